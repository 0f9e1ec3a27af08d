// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe.multi programs on bpf_fentry_test1..8, in entry, exit and session
 * mode. Each records, per function (indexed by its attach cookie), what
 * every kfunc returned, so the test can check exact values.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf_fprobe.h"
#include "fprobe_multi_rec.h"

char _license[] SEC("license") = "GPL";

int target_tgid;
/* Session mode: the entry run returns nonzero for these cookies' bits. */
__u32 skip_exit_mask;
struct fprobe_rec rec[NR_FENTRY_TESTS + 1];

static __always_inline void record_side(struct ftrace_regs *ctx,
					struct fprobe_side *s, __u64 cookie)
{
	__u64 *data;
	int i;

	s->runs++;
	s->is_return = bpf_fprobe_is_return(ctx);
	s->func_ip = bpf_fprobe_func_ip(ctx);
	s->helper_ip = bpf_get_func_ip(ctx);
	s->cookie = cookie;
	for (i = 0; i < FPROBE_REC_ARGS; i++)
		s->arg_err[i] = bpf_fprobe_arg(ctx, i, &s->args[i]);
	s->ret_err = bpf_fprobe_ret(ctx, &s->ret);

	s->data8 = !!bpf_fprobe_session_data(ctx, 8);
	s->data64 = !!bpf_fprobe_session_data(ctx, FPROBE_SESSION_MAX);
	s->data65 = !!bpf_fprobe_session_data(ctx, FPROBE_SESSION_MAX + 1);
	s->data0 = !!bpf_fprobe_session_data(ctx, 0);

	data = (__u64 *)bpf_fprobe_session_data(ctx, FPROBE_SESSION_MAX);
	if (data) {
		for (i = 0; i < FPROBE_SESSION_MAX / 8; i++)
			s->data_words[i] = data[i];
		if (!s->is_return)
			for (i = 0; i < FPROBE_SESSION_MAX / 8; i++)
				data[i] = cookie * 100 + i;
		return;
	}
	data = (__u64 *)bpf_fprobe_session_data(ctx, 8);
	if (data) {
		s->data_words[0] = data[0];
		if (!s->is_return)
			data[0] = cookie * 100;
	}
}

static __always_inline int record(struct ftrace_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	struct fprobe_rec *r;
	bool exit;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	if (cookie < 1 || cookie > NR_FENTRY_TESTS)
		return 0;
	r = &rec[cookie];
	exit = bpf_fprobe_is_return(ctx);
	record_side(ctx, exit ? &r->exit : &r->entry, cookie);
	if (!exit && (skip_exit_mask & (1U << cookie)))
		return 1;
	return 0;
}

SEC("fprobe.multi")
int fpm_entry(struct ftrace_regs *ctx)
{
	return record(ctx);
}

SEC("fretprobe.multi")
int fpm_exit(struct ftrace_regs *ctx)
{
	return record(ctx);
}

SEC("fprobe.session")
int fpm_session(struct ftrace_regs *ctx)
{
	return record(ctx);
}

/*
 * fpm_test_recurse(int depth) of the test module, as a session saving its
 * argument: the return value at each depth, and the counts.
 */
__u64 mod_entries, mod_exits, mod_func_ip;
__s64 mod_ret[8];

SEC("fprobe.session")
int fpm_module(struct ftrace_regs *ctx)
{
	__u64 depth = 0, ret = 0;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	if (!bpf_fprobe_is_return(ctx)) {
		__sync_fetch_and_add(&mod_entries, 1);
		return 0;
	}
	__sync_fetch_and_add(&mod_exits, 1);
	mod_func_ip = bpf_fprobe_func_ip(ctx);
	if (bpf_fprobe_arg(ctx, 0, &depth) || bpf_fprobe_ret(ctx, &ret))
		return 0;
	if (depth < 8)
		mod_ret[depth] = (int)ret;
	return 0;
}
