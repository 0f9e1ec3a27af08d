/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfunc declarations for BPF programs built against a vmlinux.h made with
 * pahole < 1.25, which carries no kfunc prototypes. They are __weak, so a
 * program can test for them with bpf_ksym_exists() and still load on a
 * kernel that lacks one.
 */
#ifndef __FPM_KFUNCS_H
#define __FPM_KFUNCS_H

/* kprobe.session (v6.10+) */
extern bool __ksym __weak bpf_session_is_return(void);
extern __u64 __ksym __weak *bpf_session_cookie(void);

#endif /* __FPM_KFUNCS_H */
