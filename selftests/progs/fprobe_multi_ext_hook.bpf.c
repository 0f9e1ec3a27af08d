// SPDX-License-Identifier: GPL-2.0
/* An extension of acc_hook() in progs/fprobe_multi_ext.bpf.c: it reads the count. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

SEC("?freplace/acc_hook")
int hook_arg_cnt(struct ftrace_regs *ctx)
{
	return bpf_get_func_arg_cnt(ctx);
}
