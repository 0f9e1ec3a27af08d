/* SPDX-License-Identifier: GPL-2.0 */
/* What progs/kprobe_multi_regs.bpf.c records of each program's pt_regs. */
#ifndef __KPROBE_MULTI_REGS_H
#define __KPROBE_MULTI_REGS_H

struct regs_rec {
	__u64 runs;
	__u64 ip;		/* bpf_get_func_ip() */
	__u64 sp, bp, arg1, arg2, rc;
	__u64 at_sp;		/* the word at sp: the return address at entry */
};

#endif
