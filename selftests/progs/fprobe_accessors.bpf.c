// SPDX-License-Identifier: GPL-2.0
/*
 * One program body, attached as fexit and as fretprobe.multi (and, for the
 * session kfuncs, as kprobe.session and fprobe.session): it uses only the
 * standard tracing accessors, which must give the same values either way.
 * Records are indexed by the function's address, which the test gives in
 * funcs[]: bpf_fentry_test1..8 and the fpm_test module's fpm_test_recurse().
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "fpm_kfuncs.h"
#include "fprobe_accessors.h"

char _license[] SEC("license") = "GPL";

int target_tgid;
__u64 funcs[ACC_FUNCS];
struct acc_rec rec[ACC_FUNCS];
struct acc_session sess[ACC_FUNCS];

static __always_inline int func_index(__u64 ip)
{
	int i;

	for (i = 0; i < ACC_FUNCS; i++)
		if (funcs[i] == ip)
			return i;
	return -1;
}

static __always_inline int record(void *ctx)
{
	struct acc_rec *r;
	int i;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	i = func_index(bpf_get_func_ip(ctx));
	if (i < 0)
		return 0;
	r = &rec[i];
	r->runs++;
	r->arg_cnt = bpf_get_func_arg_cnt(ctx);
	for (i = 0; i < ACC_ARGS; i++)
		r->arg_err[i] = bpf_get_func_arg(ctx, i, &r->args[i]);
	r->ret_err = bpf_get_func_ret(ctx, &r->ret);
	return 0;
}

#define FEXIT(fn)							\
SEC("?fexit/" #fn)							\
int fexit_##fn(void *ctx)						\
{									\
	return record(ctx);						\
}

FEXIT(bpf_fentry_test1)
FEXIT(bpf_fentry_test2)
FEXIT(bpf_fentry_test3)
FEXIT(bpf_fentry_test4)
FEXIT(bpf_fentry_test5)
FEXIT(bpf_fentry_test6)
FEXIT(bpf_fentry_test7)
FEXIT(bpf_fentry_test8)
FEXIT(fpm_test_recurse)

SEC("?fretprobe.multi")
int fret(void *ctx)
{
	return record(ctx);
}

/* Functions whose arguments the registers do not all hold in order. */
__u64 cnt_funcs[CNT_FUNCS];
struct acc_rec cnt_rec[CNT_FUNCS];

static __always_inline int count_args(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);
	struct acc_rec *r = NULL;
	int i;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	for (i = 0; i < CNT_FUNCS; i++)
		if (cnt_funcs[i] == ip)
			r = &cnt_rec[i];
	if (!r)
		return 0;
	r->runs++;
	r->arg_cnt = bpf_get_func_arg_cnt(ctx);
	for (i = 0; i < ACC_ARGS; i++)
		r->arg_err[i] = bpf_get_func_arg(ctx, i, &r->args[i]);
	return 0;
}

SEC("?fprobe.multi")
int counts(void *ctx)
{
	return count_args(ctx);
}

/* The same, in a program that counts_via_tail tail-calls. */
SEC("?fprobe.multi")
int counts_tail(void *ctx)
{
	return count_args(ctx);
}

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__array(values, int (void *));
} counts_jmp SEC(".maps");	/* [0]: counts_tail, set by the test */

/* Reads no argument itself: the link must count them for counts_tail. */
SEC("?fprobe.multi")
int counts_via_tail(void *ctx)
{
	bpf_tail_call(ctx, &counts_jmp, 0);
	return 0;
}

/* The session kfuncs: a cookie set at entry, found at exit. */
static __always_inline int session(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx), *cookie;
	int i;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	i = func_index(ip);
	if (i < 0)
		return 0;
	cookie = fpm_session_cookie(ctx);
	if (!fpm_session_is_return(ctx)) {
		sess[i].entries++;
		sess[i].cookie_at_entry = *cookie;
		*cookie = ip ^ ACC_COOKIE;
		return 0;
	}
	sess[i].exits++;
	sess[i].cookie_at_exit = *cookie ^ ip;
	return 0;
}

SEC("?kprobe.session")
int ksess(void *ctx)
{
	return session(ctx);
}

SEC("?fprobe.session")
int fsess(void *ctx)
{
	return session(ctx);
}

/* bpf_session_cookie() in a program for a link that is not a session */
SEC("?fprobe.multi")
int fentry_cookie(void *ctx)
{
	return session(ctx);
}
