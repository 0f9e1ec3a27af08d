/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __FUNCRET_H
#define __FUNCRET_H

struct funcret_event {
	__u64 func_ip;
	__s64 ret;
	__u32 pid;
	char comm[16];
};

#endif
