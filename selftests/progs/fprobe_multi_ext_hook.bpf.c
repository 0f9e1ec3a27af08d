// SPDX-License-Identifier: GPL-2.0
/*
 * Programs on those of progs/fprobe_multi_ext.bpf.c: an extension of
 * acc_hook() that reads the count, and a fentry program on pt_regs_main()
 * that reads its context as the pt_regs that function declares.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

SEC("?freplace/acc_hook")
int hook_arg_cnt(struct ftrace_regs *ctx)
{
	return bpf_get_func_arg_cnt(ctx);
}

__u64 spied_ip;

SEC("?fentry/pt_regs_main")
int BPF_PROG(spy_regs, struct pt_regs *regs)
{
	spied_ip = PT_REGS_IP(regs);
	return 0;
}
