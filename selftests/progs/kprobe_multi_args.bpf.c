// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe.multi entry on bpf_fentry_test1..8: record the six argument
 * registers, the function IP and the cookie of each call, so the test can
 * check them against the values net/bpf/test_run.c passes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "fentry_test_values.h"

char _license[] SEC("license") = "GPL";

int target_tgid;
struct call_rec rec[NR_FENTRY_TESTS + 1];

SEC("kprobe.multi")
int multi_entry(struct pt_regs *ctx)
{
	__u64 c = bpf_get_attach_cookie(ctx);
	struct call_rec *r;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	if (c < 1 || c > NR_FENTRY_TESTS)
		return 0;
	r = &rec[c];
	__sync_fetch_and_add(&r->entries, 1);
	r->func_ip = bpf_get_func_ip(ctx);
	r->cookie = c;
	r->args[0] = PT_REGS_PARM1(ctx);
	r->args[1] = PT_REGS_PARM2(ctx);
	r->args[2] = PT_REGS_PARM3(ctx);
	r->args[3] = PT_REGS_PARM4(ctx);
	r->args[4] = PT_REGS_PARM5(ctx);
	r->args[5] = PT_REGS_PARM6(ctx);
	return 0;
}

/* Without cookies: each function's calls, found by its address. */
__u64 by_ip_addrs[NR_FENTRY_TESTS + 1];
__u32 by_ip_entries[NR_FENTRY_TESTS + 1];

SEC("kprobe.multi")
int multi_entry_by_ip(struct pt_regs *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);
	int i;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	for (i = 1; i <= NR_FENTRY_TESTS; i++) {
		if (by_ip_addrs[i] == ip) {
			__sync_fetch_and_add(&by_ip_entries[i], 1);
			break;
		}
	}
	return 0;
}
