// SPDX-License-Identifier: GPL-2.0
/*
 * Every pt_regs field a kprobe.multi program sees at the entry of
 * fpm_test_regs() (test module), and a kretprobe.multi program at its exit.
 * The caller sets a known value in each register it can, so the test can
 * say which fields hold what the CPU held.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kprobe_multi_regs.h"

char _license[] SEC("license") = "GPL";

int target_tgid;
struct saved_regs at_entry, at_exit;

static __always_inline void save(struct saved_regs *r, struct pt_regs *ctx)
{
	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return;
	r->runs++;
	r->func_ip = bpf_get_func_ip(ctx);
	r->r15 = ctx->r15;
	r->r14 = ctx->r14;
	r->r13 = ctx->r13;
	r->r12 = ctx->r12;
	r->bp = ctx->bp;
	r->bx = ctx->bx;
	r->r11 = ctx->r11;
	r->r10 = ctx->r10;
	r->r9 = ctx->r9;
	r->r8 = ctx->r8;
	r->ax = ctx->ax;
	r->cx = ctx->cx;
	r->dx = ctx->dx;
	r->si = ctx->si;
	r->di = ctx->di;
	r->orig_ax = ctx->orig_ax;
	r->ip = ctx->ip;
	r->cs = ctx->cs;
	r->flags = ctx->flags;
	r->sp = ctx->sp;
	r->ss = ctx->ss;
	bpf_probe_read_kernel(&r->at_sp, sizeof(r->at_sp), (void *)r->sp);
}

SEC("?kprobe.multi/fpm_test_regs")
int regs_entry(struct pt_regs *ctx)
{
	save(&at_entry, ctx);
	return 0;
}

SEC("?kretprobe.multi/fpm_test_regs")
int regs_exit(struct pt_regs *ctx)
{
	save(&at_exit, ctx);
	return 0;
}
