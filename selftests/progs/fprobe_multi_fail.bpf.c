// SPDX-License-Identifier: GPL-2.0
/*
 * Programs the verifier must reject, one per case. None is loaded by
 * default ("?" sections): prog_tests/fprobe_multi_verifier.c loads them
 * one at a time and checks the log against the message it expects.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
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
