/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __FUNCLAT_H
#define __FUNCLAT_H

struct funclat_event {
	__u64 func_ip;
	__u64 arg0;		/* first argument, saved at entry */
	__s64 ret;
	__u64 ns;		/* entry to exit */
	__u32 pid;
	char comm[16];
};

#endif
