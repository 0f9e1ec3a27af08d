/* SPDX-License-Identifier: GPL-2.0 */
/* What progs/kprobe_multi_*regs.bpf.c record of each program's pt_regs. */
#ifndef __KPROBE_MULTI_REGS_H
#define __KPROBE_MULTI_REGS_H

struct regs_rec {
	__u64 runs;
	__u64 ip;		/* bpf_get_func_ip() */
	__u64 sp, bp, arg1, arg2, rc;
	__u64 at_sp;		/* the word at sp: the return address at entry */
};

/* The pt_regs of progs/kprobe_multi_saved_regs.bpf.c, field by field. */
struct saved_regs {
	__u64 runs;
	__u64 func_ip;		/* bpf_get_func_ip() */
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
	__u64 at_sp;		/* the word at sp */
};

#endif
