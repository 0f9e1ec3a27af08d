/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * BPF-side interface of fprobe.multi programs: SEC("fprobe.multi/PATTERN"),
 * SEC("fretprobe.multi/PATTERN") and SEC("fprobe.session/PATTERN").
 *
 * Their context is the kernel's struct ftrace_regs, which they must not
 * dereference: they read it through the kfuncs below. Include vmlinux.h,
 * or linux/types.h and stdbool.h (bpf_fprobe_is_return() returns a bool),
 * and bpf/bpf_helpers.h first.
 *
 * The kfuncs are declared here because a vmlinux.h made by pahole < 1.25
 * has no kfunc prototypes. They are __weak, so that an object whose other
 * programs do not use them still loads on a kernel without them (libbpf
 * then names the missing kfunc if a loaded program calls one), and a
 * program can test for them with bpf_ksym_exists(). See
 * Documentation/bpf/fprobe_multi.rst.
 */
#ifndef __BPF_FPROBE_H
#define __BPF_FPROBE_H

struct ftrace_regs;

/*
 * Argument @n (from 0) of the traced function. At exit it is the value
 * saved at entry. Returns 0; -EINVAL past the register arguments; at exit,
 * -ENOENT unless the link saves argument @n. *@value is 0 on error.
 */
extern int bpf_fprobe_arg(struct ftrace_regs *ctx, __u32 n, __u64 *value) __ksym __weak;

/* The return value, at exit. Returns 0, or -EOPNOTSUPP at entry. */
extern int bpf_fprobe_ret(struct ftrace_regs *ctx, __u64 *value) __ksym __weak;

/* Start address of the traced function, at entry and at exit. */
extern __u64 bpf_fprobe_func_ip(struct ftrace_regs *ctx) __ksym __weak;

/* True when the program runs at function exit. */
extern bool bpf_fprobe_is_return(struct ftrace_regs *ctx) __ksym __weak;

/*
 * Per-call data shared by the entry and exit runs of a session, zeroed
 * before the entry run. @rdwr_buf_size must be a constant; the result is
 * NULL when it is 0 or larger than the link's session_size.
 */
extern __u8 *bpf_fprobe_session_data(struct ftrace_regs *ctx,
				     __u32 rdwr_buf_size) __ksym __weak;

/* Argument @n as a plain value, 0 when it cannot be read. */
static __always_inline __u64 bpf_fprobe_arg_value(struct ftrace_regs *ctx, __u32 n)
{
	__u64 value = 0;

	bpf_fprobe_arg(ctx, n, &value);
	return value;
}

/* The return value as a plain value, 0 at entry. */
static __always_inline __u64 bpf_fprobe_ret_value(struct ftrace_regs *ctx)
{
	__u64 value = 0;

	bpf_fprobe_ret(ctx, &value);
	return value;
}

#define ___bpf_fprobe_args0()		ctx
#define ___bpf_fprobe_args1(x)		___bpf_fprobe_args0(), bpf_fprobe_arg_value(ctx, 0)
#define ___bpf_fprobe_args2(x, args...)	___bpf_fprobe_args1(args), bpf_fprobe_arg_value(ctx, 1)
#define ___bpf_fprobe_args3(x, args...)	___bpf_fprobe_args2(args), bpf_fprobe_arg_value(ctx, 2)
#define ___bpf_fprobe_args4(x, args...)	___bpf_fprobe_args3(args), bpf_fprobe_arg_value(ctx, 3)
#define ___bpf_fprobe_args5(x, args...)	___bpf_fprobe_args4(args), bpf_fprobe_arg_value(ctx, 4)
#define ___bpf_fprobe_args6(x, args...)	___bpf_fprobe_args5(args), bpf_fprobe_arg_value(ctx, 5)
#define ___bpf_fprobe_args(args...)	\
	___bpf_apply(___bpf_fprobe_args, ___bpf_narg(args))(args)

/*
 * BPF_FPROBE(name, typed args...) defines an fprobe.multi program whose
 * body sees the traced function's leading arguments by name and type, as
 * BPF_KPROBE does for kprobes. The context stays available as 'ctx'. At
 * exit the arguments are those saved at entry (the link's saved_args), or 0.
 *
 *	SEC("fprobe.session/vfs_read")
 *	int BPF_FPROBE(on_read, struct file *file, char *buf, size_t count)
 */
#define BPF_FPROBE(name, args...)					\
name(struct ftrace_regs *ctx);						\
static __always_inline typeof(name(0))					\
____##name(struct ftrace_regs *ctx, ##args);				\
typeof(name(0)) name(struct ftrace_regs *ctx)				\
{									\
	_Pragma("GCC diagnostic push")					\
	_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")		\
	return ____##name(___bpf_fprobe_args(args));			\
	_Pragma("GCC diagnostic pop")					\
}									\
static __always_inline typeof(name(0))					\
____##name(struct ftrace_regs *ctx, ##args)

#endif /* __BPF_FPROBE_H */
