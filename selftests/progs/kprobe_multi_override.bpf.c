// SPDX-License-Identifier: GPL-2.0
/*
 * A kprobe.multi program that makes the probed function return -EACCES
 * without running it, through bpf_override_return().
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

#define EACCES 13

int target_tgid;
__u64 hits, func_ip;

SEC("kprobe.multi")
int override(struct pt_regs *ctx)
{
	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	hits++;
	func_ip = bpf_get_func_ip(ctx);
	bpf_override_return(ctx, -EACCES);
	return 0;
}
