// SPDX-License-Identifier: GPL-2.0
/*
 * A fprobe.multi session on bpf_fentry_test1 that takes kernel stacks with
 * bpf_get_stack() and bpf_get_stackid(), and sends a perf event, at entry
 * and at exit: the helpers that need a pt_regs view of the ftrace_regs.
 * Each side has a stack map of its own: in one map, two stacks can hash to
 * the same bucket, and bpf_get_stackid() then fails with -EEXIST.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_fprobe.h"

char _license[] SEC("license") = "GPL";

#define STACK_DEPTH 16

struct stackmap {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, STACK_DEPTH * sizeof(__u64));
};

struct stackmap entry_stacks SEC(".maps");
struct stackmap exit_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} events SEC(".maps");

struct fpm_event {
	__u64 is_return;
	__u64 func_ip;
	__u64 ret;
};

int target_tgid;
__u64 stack[2][STACK_DEPTH];
long stack_len[2];
long stackid[2];
long output_err[2];

SEC("fprobe.session")
int fpm_stack(struct ftrace_regs *ctx)
{
	struct fpm_event ev = {};
	int side;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	side = bpf_fprobe_is_return(ctx);
	stack_len[side] = bpf_get_stack(ctx, stack[side], sizeof(stack[side]), 0);
	if (side)
		stackid[1] = bpf_get_stackid(ctx, &exit_stacks, 0);
	else
		stackid[0] = bpf_get_stackid(ctx, &entry_stacks, 0);
	ev.is_return = side;
	ev.func_ip = bpf_fprobe_func_ip(ctx);
	bpf_fprobe_ret(ctx, &ev.ret);
	output_err[side] = bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU,
						 &ev, sizeof(ev));
	return 0;
}
