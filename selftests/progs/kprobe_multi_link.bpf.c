// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe.multi programs for prog_tests/kprobe_multi_link.c: the IP and
 * cookie of every hit in order, and programs that call a helper which is
 * itself probed, at entry, at exit and at a session's entry, so that the
 * nested hit is refused as recursion.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "fpm_kfuncs.h"

char _license[] SEC("license") = "GPL";

#define MAX_HITS 32

int target_tgid;
__u64 nr_hits;
__u64 hit_ip[MAX_HITS];
__u64 hit_cookie[MAX_HITS];
__u64 hit_arg0[MAX_HITS];

SEC("kprobe.multi")
int record_hits(struct pt_regs *ctx)
{
	__u64 i;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	i = __sync_fetch_and_add(&nr_hits, 1);
	if (i >= MAX_HITS)
		return 0;
	hit_ip[i] = bpf_get_func_ip(ctx);
	hit_cookie[i] = bpf_get_attach_cookie(ctx);
	hit_arg0[i] = PT_REGS_PARM1(ctx);
	return 0;
}

char comm[16];
__u64 nested_runs;

SEC("kprobe.multi")
int call_probed_helper(struct pt_regs *ctx)
{
	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	__sync_fetch_and_add(&nested_runs, 1);
	bpf_get_current_comm(comm, sizeof(comm));
	return 0;
}

__u64 nested_exit_runs;

SEC("kretprobe.multi")
int call_probed_helper_exit(struct pt_regs *ctx)
{
	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	__sync_fetch_and_add(&nested_exit_runs, 1);
	bpf_get_current_comm(comm, sizeof(comm));
	return 0;
}

__u64 nested_session_entries;
__u64 nested_session_exits;

SEC("kprobe.session")
int call_probed_helper_session(struct pt_regs *ctx)
{
	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	if (fpm_session_is_return(ctx)) {
		__sync_fetch_and_add(&nested_session_exits, 1);
		return 0;
	}
	__sync_fetch_and_add(&nested_session_entries, 1);
	bpf_get_current_comm(comm, sizeof(comm));
	return 0;
}

/*
 * A session that keeps its attach cookie in its session cookie from entry
 * to exit: attached many times to one function, each link's exit run must
 * find the value its own entry run stored.
 */
__u64 crowd_entries;
__u64 crowd_exits;
__u64 crowd_bad_cookie;

SEC("kprobe.session")
int crowd_session(struct pt_regs *ctx)
{
	__u64 *cookie;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	cookie = fpm_session_cookie(ctx);
	if (!fpm_session_is_return(ctx)) {
		__sync_fetch_and_add(&crowd_entries, 1);
		*cookie = bpf_get_attach_cookie(ctx);
		return 0;
	}
	__sync_fetch_and_add(&crowd_exits, 1);
	if (*cookie != bpf_get_attach_cookie(ctx))
		__sync_fetch_and_add(&crowd_bad_cookie, 1);
	return 0;
}
