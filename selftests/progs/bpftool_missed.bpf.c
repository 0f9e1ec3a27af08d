// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions of both link families for the missed-by-cause output of
 * "bpftool link show". Each counts its entry runs in runs[0] and its exit
 * runs in runs[1], and at entry calls bpf_get_current_comm(), which its
 * link probes too, so that a hit nested in the tracing context is refused
 * as recursion. They run for the test's process only. A third session
 * counts the runs of any task, for the module's threads that stay inside
 * fpm_test_block() while its link is detached.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "fpm_kfuncs.h"
#include "bpf_fprobe.h"

char _license[] SEC("license") = "GPL";

int target_tgid;
__u64 kp_runs[2];
__u64 fp_runs[2];
__u64 held_runs[2];
char comm[16];

static __always_inline bool mine(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

SEC("kprobe.session")
int kp_session(struct pt_regs *ctx)
{
	if (!mine())
		return 0;
	if (fpm_session_is_return(ctx)) {
		__sync_fetch_and_add(&kp_runs[1], 1);
		return 0;
	}
	__sync_fetch_and_add(&kp_runs[0], 1);
	bpf_get_current_comm(comm, sizeof(comm));
	return 0;
}

SEC("fprobe.session")
int fp_session(struct ftrace_regs *ctx)
{
	if (!mine())
		return 0;
	if (bpf_fprobe_is_return(ctx)) {
		__sync_fetch_and_add(&fp_runs[1], 1);
		return 0;
	}
	__sync_fetch_and_add(&fp_runs[0], 1);
	bpf_get_current_comm(comm, sizeof(comm));
	return 0;
}

SEC("fprobe.session")
int fp_held(struct ftrace_regs *ctx)
{
	__sync_fetch_and_add(&held_runs[bpf_fprobe_is_return(ctx)], 1);
	return 0;
}
