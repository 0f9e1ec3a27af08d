/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What BPF_PROG_TEST_RUN on a fentry program does (net/bpf/test_run.c):
 * it calls bpf_fentry_test1..8 once each, in order, with these arguments,
 * and they return these values. Tests index by function number 1..8 and
 * pass that number as the attach cookie.
 */
#ifndef __FENTRY_TEST_VALUES_H
#define __FENTRY_TEST_VALUES_H

#define NR_FENTRY_TESTS 8

struct call_rec {
	__u64 entries;
	__u64 exits;
	__s64 ret;		/* return value, sign-extended from int */
	__u64 func_ip;		/* bpf_get_func_ip() */
	__u64 cookie;		/* bpf_get_attach_cookie() */
	__u64 session;		/* session cookie seen at exit */
	__u64 args[6];		/* raw argument registers at entry */
};

#endif
