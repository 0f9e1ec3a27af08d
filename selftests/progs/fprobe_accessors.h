/* SPDX-License-Identifier: GPL-2.0 */
/* What progs/fprobe_accessors.bpf.c records for each function. */
#ifndef __FPROBE_ACCESSORS_H
#define __FPROBE_ACCESSORS_H

#define ACC_FUNCS	9	/* bpf_fentry_test1..8, fpm_test_recurse */
#define ACC_ARGS	7	/* one past the register arguments */
#define ACC_COOKIE	0x5e55105e55105e55ULL
/* fpm_test_straddle(), fpm_test_args8(), fpm_test_wide() */
#define CNT_FUNCS	3

struct acc_rec {
	__u64 runs;
	__s64 arg_cnt;			/* bpf_get_func_arg_cnt() */
	__u64 args[ACC_ARGS];		/* bpf_get_func_arg() */
	__s64 arg_err[ACC_ARGS];
	__u64 ret;			/* bpf_get_func_ret() */
	__s64 ret_err;
};

struct acc_session {
	__u64 entries;
	__u64 exits;
	__u64 cookie_at_entry;		/* 0: zeroed for each call */
	__u64 cookie_at_exit;		/* ACC_COOKIE: the entry's */
};

#endif
