// SPDX-License-Identifier: GPL-2.0
/*
 * BPF_FPROBE programs in the three fprobe.multi sections, auto-attached by
 * the skeleton: typed arguments at entry, saved arguments and the return
 * value at exit, and the 8 bytes of session data auto-attach gives.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_fprobe.h"

char _license[] SEC("license") = "GPL";

int target_tgid;

/* bpf_fentry_test1(int a) */
__u64 t1_runs, t1_a;

SEC("fprobe.multi/bpf_fentry_test1")
int BPF_FPROBE(auto_entry, int a)
{
	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	t1_runs++;
	t1_a = a;
	return 0;
}

/* bpf_fentry_test2(int a, u64 b), at exit */
__u64 t2_runs, t2_a, t2_b, t2_ret;

SEC("fretprobe.multi/bpf_fentry_test2")
int BPF_FPROBE(auto_exit, int a, __u64 b)
{
	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	t2_runs++;
	t2_a = a;
	t2_b = b;
	t2_ret = bpf_fprobe_ret_value(ctx);
	return 0;
}

/* bpf_fentry_test3(char a, int b, u64 c), as a session */
__u64 t3_entries, t3_exits, t3_c_at_exit, t3_ret, t3_data;

SEC("fprobe.session/bpf_fentry_test3")
int BPF_FPROBE(auto_session, char a, int b, __u64 c)
{
	__u64 *data = (__u64 *)bpf_fprobe_session_data(ctx, 8);

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid || !data)
		return 0;
	if (!bpf_fprobe_is_return(ctx)) {
		t3_entries++;
		*data = a + b;
		return 0;
	}
	t3_exits++;
	t3_c_at_exit = c;
	t3_ret = bpf_fprobe_ret_value(ctx);
	t3_data = *data;
	return 0;
}

/* Not loaded by default: its pattern is invalid, so attaching must fail. */
SEC("?fprobe.multi/!bad")
int bad_pattern(struct ftrace_regs *ctx)
{
	return 0;
}
