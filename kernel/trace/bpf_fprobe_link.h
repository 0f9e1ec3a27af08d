/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bpf_trace.c and bpf_fprobe_link.c share. bpf_trace.c holds the hooks
 * of the BPF links on fprobe: the helpers their programs may call and the
 * context rules; bpf_fprobe_link.c holds the links themselves.
 */
#ifndef __KERNEL_TRACE_BPF_FPROBE_LINK_H
#define __KERNEL_TRACE_BPF_FPROBE_LINK_H

#include <linux/bpf.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#endif

/* The run context of a session program: bpf_session_is_return(), bpf_session_cookie(). */
struct bpf_session_run_ctx {
	struct bpf_run_ctx run_ctx;
	bool is_return;
	void *data;
};

static inline bool is_kprobe_multi(const struct bpf_prog *prog)
{
	return prog->expected_attach_type == BPF_TRACE_KPROBE_MULTI ||
	       prog->expected_attach_type == BPF_TRACE_KPROBE_SESSION;
}

static inline bool is_kprobe_session(const struct bpf_prog *prog)
{
	return prog->expected_attach_type == BPF_TRACE_KPROBE_SESSION;
}

/* A function's address from its ftrace location: less an ENDBR before it. */
#ifdef CONFIG_X86_KERNEL_IBT
static inline unsigned long get_entry_ip(unsigned long fentry_ip)
{
	u32 instr;

	/* We want to be extra safe in case entry ip is on the page edge,
	 * but otherwise we need to avoid get_kernel_nofault()'s overhead.
	 */
	if ((fentry_ip & ~PAGE_MASK) < ENDBR_INSN_SIZE) {
		if (get_kernel_nofault(instr, (u32 *)(fentry_ip - ENDBR_INSN_SIZE)))
			return fentry_ip;
	} else {
		instr = *(u32 *)(fentry_ip - ENDBR_INSN_SIZE);
	}
	if (is_endbr(instr))
		fentry_ip -= ENDBR_INSN_SIZE;
	return fentry_ip;
}
#else
static inline unsigned long get_entry_ip(unsigned long fentry_ip)
{
	return fentry_ip;
}
#endif

#ifdef CONFIG_FPROBE
/* For the helpers of a program that a link on fprobe runs. */
struct pt_regs *bpf_fprobe_link_regs(void);
u64 bpf_fprobe_link_cookie(struct bpf_run_ctx *ctx);
u64 bpf_fprobe_link_entry_ip(struct bpf_run_ctx *ctx);
int bpf_fprobe_link_func_arg(struct ftrace_regs *fregs, u32 n, u64 *value);
int bpf_fprobe_link_func_ret(struct ftrace_regs *fregs, u64 *value);
u64 bpf_fprobe_link_func_arg_cnt(void);
#else
static inline u64 bpf_fprobe_link_cookie(struct bpf_run_ctx *ctx)
{
	return 0;
}

static inline u64 bpf_fprobe_link_entry_ip(struct bpf_run_ctx *ctx)
{
	return 0;
}
#endif

#endif /* __KERNEL_TRACE_BPF_FPROBE_LINK_H */
