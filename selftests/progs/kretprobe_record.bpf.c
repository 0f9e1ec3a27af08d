// SPDX-License-Identifier: GPL-2.0
/*
 * Record every return of bpf_fentry_test1..8 as seen by a classic
 * (perf-event) kretprobe and by a kretprobe.multi link. Both index by the
 * attach cookie, which user space sets to the function number, so the two
 * tables can be compared entry by entry: the parity baseline that later
 * exit paths must match.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "fentry_test_values.h"

char _license[] SEC("license") = "GPL";

int target_tgid;
struct call_rec classic[NR_FENTRY_TESTS + 1];
struct call_rec multi[NR_FENTRY_TESTS + 1];

static __always_inline void record(struct call_rec *tab, struct pt_regs *ctx)
{
	__u64 c = bpf_get_attach_cookie(ctx);

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return;
	if (c < 1 || c > NR_FENTRY_TESTS)
		return;
	__sync_fetch_and_add(&tab[c].exits, 1);
	tab[c].ret = (int)PT_REGS_RC(ctx);
	tab[c].func_ip = bpf_get_func_ip(ctx);
	tab[c].cookie = c;
}

SEC("kretprobe")
int classic_ret(struct pt_regs *ctx)
{
	record(classic, ctx);
	return 0;
}

SEC("kretprobe.multi")
int multi_ret(struct pt_regs *ctx)
{
	record(multi, ctx);
	return 0;
}
