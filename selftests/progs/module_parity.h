/* SPDX-License-Identifier: GPL-2.0 */
/* What progs/module_parity.bpf.c records per probed function. */
#ifndef __MODULE_PARITY_H
#define __MODULE_PARITY_H

#define NR_RETS 64

enum { PROBE_CLASSIC, PROBE_MULTI, PROBE_FSESSION };

struct ret_table {
	__u64 returns;
	__u64 func_ip;
	__u64 by_value[NR_RETS];	/* returns of each value 0..NR_RETS-1 */
	__u64 other;			/* returns of any other value */
};

#endif
