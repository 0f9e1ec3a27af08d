/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bpf_trace.c and bpf_fprobe_link.c share. bpf_trace.c has the
 * kprobe.multi links, the helpers of every kprobe program and the parts of
 * a multi-function link that do not depend on its flavour (names copied
 * from user space, modules pinned); bpf_fprobe_link.c has the fprobe.multi
 * link, whose programs take the ftrace_regs as their context.
 */
#ifndef __KERNEL_TRACE_BPF_FPROBE_LINK_H
#define __KERNEL_TRACE_BPF_FPROBE_LINK_H

#include <linux/bpf.h>

struct module;

/* A session program's run: bpf_session_is_return(), bpf_session_cookie(). */
struct bpf_session_run_ctx {
	struct bpf_run_ctx run_ctx;
	bool is_return;
	void *data;
};

#ifdef CONFIG_FPROBE
struct user_syms {
	const char **syms;
	char *buf;
};

int copy_user_syms(struct user_syms *us, unsigned long __user *usyms, u32 cnt);
void free_user_syms(struct user_syms *us);
int get_modules_for_addrs(struct module ***mods, unsigned long *addrs, u32 addrs_cnt);
void kprobe_multi_put_modules(struct module **mods, u32 cnt);

/* For the helpers of a program that a fprobe.multi link runs. */
struct pt_regs *bpf_fprobe_link_regs(void);
u64 bpf_fprobe_link_cookie(void);
u64 bpf_fprobe_link_entry_ip(void);
int bpf_fprobe_link_func_arg(u32 n, u64 *value);
int bpf_fprobe_link_func_ret(struct ftrace_regs *fregs, u64 *value);
u64 bpf_fprobe_link_func_arg_cnt(void);
#endif

#endif /* __KERNEL_TRACE_BPF_FPROBE_LINK_H */
