// SPDX-License-Identifier: GPL-2.0
/*
 * Programs the verifier must reject, one per case, and a few it must still
 * accept (marked "must load"). None is loaded by default ("?" sections):
 * prog_tests/fprobe_multi_verifier.c loads them one at a time and checks
 * the log against the message it expects.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpf_fprobe.h"

char _license[] SEC("license") = "GPL";

/* fprobe.multi: a load from the ftrace_regs context */
SEC("?fprobe.multi")
int ctx_load(struct ftrace_regs *ctx)
{
	return *(volatile __u64 *)ctx;
}

/* fprobe.multi: a store to it */
SEC("?fprobe.multi")
int ctx_store(struct ftrace_regs *ctx)
{
	*(volatile __u64 *)ctx = 0;
	return 0;
}

/* fprobe.multi: bpf_override_return() needs a kprobe's pt_regs */
SEC("?fprobe.multi")
int override(struct ftrace_regs *ctx)
{
	return bpf_override_return((void *)ctx, 0);
}

/* fprobe.multi: a non-constant session data size */
__u32 size;

SEC("?fprobe.session")
int session_size_var(struct ftrace_regs *ctx)
{
	return !!bpf_fprobe_session_data(ctx, size);
}

/* fprobe.multi: session data used without a NULL check */
SEC("?fprobe.session")
int session_no_null_check(struct ftrace_regs *ctx)
{
	return *bpf_fprobe_session_data(ctx, 8);
}

/* fprobe.multi: session data accessed past the size asked for */
SEC("?fprobe.session")
int session_past_size(struct ftrace_regs *ctx)
{
	__u64 *data = (__u64 *)bpf_fprobe_session_data(ctx, 8);

	return data ? data[1] : 0;
}

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

/* fprobe.multi: the context cast to the kernel's type for it */
SEC("?fprobe.multi")
int cast_kern_ctx(struct ftrace_regs *ctx)
{
	struct pt_regs *regs = bpf_cast_to_kern_ctx(ctx);

	return regs->ip != 0;
}

/* fprobe.multi: the context read as plain memory */
SEC("?fprobe.multi")
int probe_read_ctx(struct ftrace_regs *ctx)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), ctx);
	return v != 0;
}

/* fprobe.multi: the context cast to a pt_regs */
SEC("?fprobe.multi")
int rdonly_cast_ctx(struct ftrace_regs *ctx)
{
	struct pt_regs *regs = bpf_core_cast(ctx, struct pt_regs);

	return regs->ip != 0;
}

/* A global function whose argument is a context only for fprobe.multi. */
__noinline int subprog_ftrace_regs(struct ftrace_regs *regs)
{
	return regs ? bpf_fprobe_is_return(regs) : 0;
}

/* fprobe.multi: the context handed to a global function (must load) */
SEC("?fprobe.multi")
int subprog_ctx(struct ftrace_regs *ctx)
{
	return subprog_ftrace_regs(ctx);
}

/* A global function tagged as taking the context, a pt_regs. */
__noinline int subprog_tagged_pt_regs(struct pt_regs *regs __arg_ctx)
{
	return regs != 0;
}

/* fprobe.multi: a global function whose context argument is a pt_regs */
SEC("?fprobe.multi")
int subprog_pt_regs_ctx(struct ftrace_regs *ctx)
{
	return subprog_tagged_pt_regs((struct pt_regs *)ctx);
}

/* A global function that hands its struct ftrace_regs on as a context. */
__noinline int subprog_ftrace_regs_ptr(struct ftrace_regs *regs)
{
	return regs ? bpf_get_func_ip(regs) != 0 : 0;
}

/* a classic kprobe's pt_regs handed on as a struct ftrace_regs */
SEC("?kprobe/bpf_fentry_test1")
int kprobe_ctx_as_ftrace_regs(struct pt_regs *ctx)
{
	return subprog_ftrace_regs_ptr((struct ftrace_regs *)ctx);
}

/* a classic kprobe still reads its pt_regs these ways (must load) */
SEC("?kprobe/bpf_fentry_test1")
int kprobe_reads_ctx(struct pt_regs *ctx)
{
	struct pt_regs *regs = bpf_cast_to_kern_ctx(ctx);
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), ctx);
	return regs->ip != v;
}

/* a kfunc from a classic kprobe program */
SEC("?kprobe/bpf_fentry_test1")
int kfunc_from_kprobe(struct pt_regs *ctx)
{
	return bpf_fprobe_is_return((struct ftrace_regs *)ctx);
}

/* a kfunc from a kprobe.multi program */
SEC("?kprobe.multi/bpf_fentry_test1")
int kfunc_from_kprobe_multi(struct pt_regs *ctx)
{
	return bpf_fprobe_func_ip((struct ftrace_regs *)ctx);
}

/* a kfunc from a kprobe.session program */
SEC("?kprobe.session/bpf_fentry_test1")
int kfunc_from_kprobe_session(struct pt_regs *ctx)
{
	__u64 v = 0;

	return bpf_fprobe_arg((struct ftrace_regs *)ctx, 0, &v);
}

/* a kfunc from another program type: fentry */
SEC("?fentry/bpf_fentry_test1")
int kfunc_from_fentry(void *ctx)
{
	return bpf_fprobe_is_return(ctx);
}

/* a kfunc from another program type: tracepoint */
SEC("?tracepoint/syscalls/sys_enter_getpid")
int kfunc_from_tracepoint(void *ctx)
{
	__u64 v = 0;

	return bpf_fprobe_ret(ctx, &v);
}
