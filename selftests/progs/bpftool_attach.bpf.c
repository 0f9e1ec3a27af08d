// SPDX-License-Identifier: GPL-2.0
/*
 * Programs that only "bpftool link attach" attaches: the test loads them
 * and pins them, bpftool makes the links. Each counts its runs by attach
 * cookie (1..8, 0 for none); the session also carries a value from entry
 * to exit in its session data and reads the first argument at exit.
 *
 * One program of each kind the kernel tells apart by its section: loaded
 * for fprobe.multi, kprobe.multi, kprobe.session, and a plain kprobe
 * loaded for no multi-function link, which bpftool must refuse naming
 * what the program is and the section the link needs. The kprobe.session
 * program counts its entry and exit runs, for the one link it fits.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "fpm_kfuncs.h"
#include "bpf_fprobe.h"
#include "fentry_test_values.h"

char _license[] SEC("license") = "GPL";

int target_tgid;
__u64 fp_entries[NR_FENTRY_TESTS + 1];
__u64 fp_exits[NR_FENTRY_TESTS + 1];
__u64 fp_arg0_at_exit[NR_FENTRY_TESTS + 1];
__u64 fp_data_at_exit[NR_FENTRY_TESTS + 1];
__u64 kp_exits;
__s64 kp_ret_sum;
__u64 kps_runs[2];	/* kprobe.session: entry runs, exit runs */

static __always_inline __u32 slot(__u64 cookie)
{
	return cookie <= NR_FENTRY_TESTS ? cookie : 0;
}

static __always_inline bool mine(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

SEC("fprobe.session")
int att_session(struct ftrace_regs *ctx)
{
	__u32 c = slot(bpf_get_attach_cookie(ctx));
	__u64 *data = (__u64 *)bpf_fprobe_session_data(ctx, 8);

	if (!mine())
		return 0;
	if (!bpf_fprobe_is_return(ctx)) {
		__sync_fetch_and_add(&fp_entries[c], 1);
		if (data)
			*data = 100 + c;
		return 0;
	}
	__sync_fetch_and_add(&fp_exits[c], 1);
	fp_arg0_at_exit[c] = bpf_fprobe_arg_value(ctx, 0);
	if (data)
		fp_data_at_exit[c] = *data;
	return 0;
}

SEC("kretprobe.multi")
int att_kretprobe(struct pt_regs *ctx)
{
	if (!mine())
		return 0;
	__sync_fetch_and_add(&kp_exits, 1);
	__sync_fetch_and_add(&kp_ret_sum, (int)PT_REGS_RC(ctx));
	return 0;
}

SEC("kprobe.session")
int att_kpsession(struct pt_regs *ctx)
{
	if (!mine())
		return 0;
	__sync_fetch_and_add(&kps_runs[fpm_session_is_return(ctx) ? 1 : 0], 1);
	return 0;
}

SEC("kprobe")
int att_plain(struct pt_regs *ctx)
{
	return 0;
}
