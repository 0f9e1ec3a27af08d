// SPDX-License-Identifier: GPL-2.0
/*
 * A session on the functions that the exit path of fprobe's BPF links can
 * call itself, for prog_tests/exit_path_probes.c. Exit runs take no ftrace
 * recursion protection: a probe on something the exit path calls before
 * its guard (bpf_prog_active) would recurse without end. The session
 * counts its runs on bpf_fentry_test1() for the test's process, and at
 * every exit calls bpf_get_current_comm(), which it probes too: that
 * nested call is hooked, and its own runs are refused as recursion.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "fpm_kfuncs.h"
#include "bpf_fprobe.h"

char _license[] SEC("license") = "GPL";

int target_tgid;
__u64 test1_ip;
__u64 test1_runs[2];
__u64 all_runs[2];
char comm[16];

SEC("fprobe.session")
int exit_path_session(struct ftrace_regs *ctx)
{
	int ret = bpf_fprobe_is_return(ctx);

	__sync_fetch_and_add(&all_runs[ret], 1);
	if ((bpf_get_current_pid_tgid() >> 32) == target_tgid &&
	    bpf_fprobe_func_ip(ctx) == test1_ip)
		__sync_fetch_and_add(&test1_runs[ret], 1);
	if (ret)
		bpf_get_current_comm(comm, sizeof(comm));
	return 0;
}
