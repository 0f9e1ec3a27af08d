/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session kfuncs, for BPF programs built against either base.
 *
 * 6.12's vmlinux.h (pahole < 1.25) carries no kfunc prototypes, so they
 * are declared here, __weak so that a program can test for them with
 * bpf_ksym_exists() and still load on a kernel that lacks one. 7.0 and
 * later give both kfuncs the program's context as their argument, and
 * their vmlinux.h declares them: mk/user.mk then defines
 * FPM_SESSION_KFUNCS_TAKE_CTX. Programs call fpm_session_is_return(ctx)
 * and fpm_session_cookie(ctx), which pass the context only there.
 */
#ifndef __FPM_KFUNCS_H
#define __FPM_KFUNCS_H

#ifdef FPM_SESSION_KFUNCS_TAKE_CTX
#define fpm_session_is_return(ctx)	bpf_session_is_return(ctx)
#define fpm_session_cookie(ctx)		bpf_session_cookie(ctx)
#else
/* kprobe.session (v6.10+) */
extern bool __ksym __weak bpf_session_is_return(void);
extern __u64 __ksym __weak *bpf_session_cookie(void);

#define fpm_session_is_return(ctx)	bpf_session_is_return()
#define fpm_session_cookie(ctx)		bpf_session_cookie()
#endif

#endif /* __FPM_KFUNCS_H */
