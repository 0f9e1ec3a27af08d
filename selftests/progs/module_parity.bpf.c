// SPDX-License-Identifier: GPL-2.0
/*
 * Returns of the test module's fpm_test_recurse() (cookie 1) and
 * fpm_test_sleep() (cookie 2), as a classic kretprobe, a kretprobe.multi
 * link and a fprobe.multi session see them: per function, the number of
 * returns, how many returned each value, and the function's IP.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf_fprobe.h"
#include "module_parity.h"

char _license[] SEC("license") = "GPL";

int target_tgid;

/* key: PROBE_* * 3 + cookie (1 or 2) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 9);
	__type(key, __u32);
	__type(value, struct ret_table);
} tables SEC(".maps");

static __always_inline void record(__u32 probe, __u64 cookie, __s64 ret, __u64 ip)
{
	struct ret_table *t;
	__u32 key;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return;
	if (cookie != 1 && cookie != 2)
		return;
	key = probe * 3 + cookie;
	t = bpf_map_lookup_elem(&tables, &key);
	if (!t)
		return;
	__sync_fetch_and_add(&t->returns, 1);
	t->func_ip = ip;
	if ((__u64)ret < NR_RETS) {
		__u64 i = ret;

		/* keep the mask, which bounds the index for the verifier */
		barrier_var(i);
		i &= NR_RETS - 1;
		__sync_fetch_and_add(&t->by_value[i], 1);
	} else {
		__sync_fetch_and_add(&t->other, 1);
	}
}

SEC("kretprobe")
int classic_ret(struct pt_regs *ctx)
{
	record(PROBE_CLASSIC, bpf_get_attach_cookie(ctx), (int)PT_REGS_RC(ctx),
	       bpf_get_func_ip(ctx));
	return 0;
}

SEC("kretprobe.multi")
int multi_ret(struct pt_regs *ctx)
{
	record(PROBE_MULTI, bpf_get_attach_cookie(ctx), (int)PT_REGS_RC(ctx),
	       bpf_get_func_ip(ctx));
	return 0;
}

SEC("fprobe.session")
int fsession_ret(struct ftrace_regs *ctx)
{
	__u64 ret = 0;

	if (!bpf_fprobe_is_return(ctx))
		return 0;
	bpf_fprobe_ret(ctx, &ret);
	record(PROBE_FSESSION, bpf_get_attach_cookie(ctx), (int)ret, bpf_fprobe_func_ip(ctx));
	return 0;
}
