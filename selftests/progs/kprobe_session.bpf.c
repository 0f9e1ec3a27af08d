// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe.session on bpf_fentry_test1..8. The entry run stores a value
 * derived from the attach cookie in the per-call session cookie and asks
 * to skip the exit for odd-numbered functions. The exit run records what
 * it finds in the session cookie and the return value. The test checks
 * that exits ran exactly for the even functions, each with its own value.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "fpm_kfuncs.h"
#include "fentry_test_values.h"

char _license[] SEC("license") = "GPL";

#define SESSION_MAGIC 0x5e55000000000000ULL

int target_tgid;
struct call_rec rec[NR_FENTRY_TESTS + 1];

SEC("kprobe.session")
int session(struct pt_regs *ctx)
{
	__u64 c = bpf_get_attach_cookie(ctx);
	struct call_rec *r;
	__u64 *cookie;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 1;
	if (c < 1 || c > NR_FENTRY_TESTS)
		return 1;
	r = &rec[c];
	cookie = fpm_session_cookie(ctx);
	if (!fpm_session_is_return(ctx)) {
		__sync_fetch_and_add(&r->entries, 1);
		*cookie = SESSION_MAGIC | c;
		return c & 1;
	}
	__sync_fetch_and_add(&r->exits, 1);
	r->session = *cookie;
	r->ret = (int)PT_REGS_RC(ctx);
	r->func_ip = bpf_get_func_ip(ctx);
	return 0;
}
