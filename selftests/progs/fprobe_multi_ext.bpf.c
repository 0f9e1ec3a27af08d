// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe.multi programs whose global function acc_hook() an extension
 * program replaces (progs/fprobe_multi_ext_hook.bpf.c). An fprobe.multi
 * link looks its functions' argument counts up only for a program that
 * reads them, so an extension that reads them may replace a function of
 * with_args only, not of no_args. pt_regs_main() declares the KPROBE
 * type's context: a fentry program on it must not read that as a pt_regs
 * (progs/fprobe_multi_ext_hook.bpf.c's spy_regs).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "fprobe_accessors.h"

char _license[] SEC("license") = "GPL";

int target_tgid;
__u64 cnt_funcs[CNT_FUNCS];
__s64 hook_cnt[CNT_FUNCS];
__s64 own_cnt;
int no_args_ret;

/* What an extension replaces; its own result is never used. */
__noinline int acc_hook(struct ftrace_regs *ctx)
{
	return ctx != 0;
}

SEC("?fprobe.multi")
int no_args(struct ftrace_regs *ctx)
{
	no_args_ret = acc_hook(ctx);
	return 0;
}

/* Records what acc_hook() gives for each of cnt_funcs[]. */
SEC("?fprobe.multi")
int with_args(struct ftrace_regs *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);
	int i;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	for (i = 0; i < CNT_FUNCS; i++) {
		if (cnt_funcs[i] == ip)
			hook_cnt[i] = acc_hook(ctx);
	}
	/* the program's own read, which lets an extension read too */
	own_cnt = bpf_get_func_arg_cnt(ctx);
	return 0;
}

SEC("?fprobe.multi")
int pt_regs_main(struct pt_regs *ctx)
{
	return 0;
}
