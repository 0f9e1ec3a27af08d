// SPDX-License-Identifier: GPL-2.0
/*
 * Record every return of bpf_fentry_test1..8 as seen by a classic
 * (perf-event) kretprobe, by a kretprobe.multi link and by the exit run of
 * a fprobe.multi session. All index by the attach cookie, which user space
 * sets to the function number, so the tables can be compared entry by
 * entry: the parity baseline that every exit path must match.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf_fprobe.h"
#include "fentry_test_values.h"

char _license[] SEC("license") = "GPL";

int target_tgid;
struct call_rec classic[NR_FENTRY_TESTS + 1];
struct call_rec multi[NR_FENTRY_TESTS + 1];
struct call_rec fsession[NR_FENTRY_TESTS + 1];

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

SEC("fprobe.session")
int fsession_ret(struct ftrace_regs *ctx)
{
	__u64 c = bpf_get_attach_cookie(ctx), ret = 0;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	if (c < 1 || c > NR_FENTRY_TESTS || !bpf_fprobe_is_return(ctx))
		return 0;
	__sync_fetch_and_add(&fsession[c].exits, 1);
	bpf_fprobe_ret(ctx, &ret);
	fsession[c].ret = (int)ret;
	fsession[c].func_ip = bpf_fprobe_func_ip(ctx);
	fsession[c].cookie = c;
	return 0;
}
