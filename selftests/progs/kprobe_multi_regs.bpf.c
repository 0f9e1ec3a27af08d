// SPDX-License-Identifier: GPL-2.0
/*
 * The registers a classic kprobe and a kprobe.multi program see on entry
 * to bpf_fentry_test2(int a, u64 b), and what a kretprobe.multi program
 * sees at its exit: the pt_regs view of the ftrace_regs must hold what a
 * real pt_regs holds.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kprobe_multi_regs.h"

char _license[] SEC("license") = "GPL";

int target_tgid;
struct regs_rec classic, multi, multi_exit;

static __always_inline void record(struct regs_rec *r, struct pt_regs *ctx)
{
	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return;
	r->runs++;
	r->ip = bpf_get_func_ip(ctx);
	r->sp = PT_REGS_SP(ctx);
	r->bp = PT_REGS_FP(ctx);
	r->arg1 = PT_REGS_PARM1(ctx);
	r->arg2 = PT_REGS_PARM2(ctx);
	r->rc = PT_REGS_RC(ctx);
	bpf_probe_read_kernel(&r->at_sp, sizeof(r->at_sp), (void *)r->sp);
}

SEC("kprobe/bpf_fentry_test2")
int classic_entry(struct pt_regs *ctx)
{
	record(&classic, ctx);
	return 0;
}

SEC("kprobe.multi/bpf_fentry_test2")
int multi_entry(struct pt_regs *ctx)
{
	record(&multi, ctx);
	return 0;
}

SEC("kretprobe.multi/bpf_fentry_test2")
int multi_ret(struct pt_regs *ctx)
{
	record(&multi_exit, ctx);
	return 0;
}
