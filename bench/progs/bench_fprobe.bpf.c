// SPDX-License-Identifier: GPL-2.0
/*
 * Per-call cost of the fprobe.multi link, in its own object because the
 * base kernel cannot load it. The programs match bench_trig.bpf.c's: they
 * only count their runs, so the rows differ by the link alone. Saved
 * arguments and session data are link options, set by fpm_bench.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

__u64 hits;

SEC("?fprobe.multi")
int bench_fprobe_entry(struct ftrace_regs *ctx)
{
	hits++;
	return 0;
}

SEC("?fretprobe.multi")
int bench_fprobe_exit(struct ftrace_regs *ctx)
{
	hits++;
	return 0;
}

SEC("?fprobe.session")
int bench_fprobe_session(struct ftrace_regs *ctx)
{
	hits++;
	return 0;
}

SEC("?fretprobe.multi")
int bench_attach_fprobe_multi(struct ftrace_regs *ctx)
{
	return 0;
}

/* One that reads the argument count: its link looks the counts up. */
__u64 attach_arg_cnt;

SEC("?fretprobe.multi")
int bench_attach_fprobe_args(struct ftrace_regs *ctx)
{
	attach_arg_cnt = bpf_get_func_arg_cnt(ctx);
	return 0;
}
