// SPDX-License-Identifier: GPL-2.0
/*
 * The verifier rejects what fprobe.multi programs must not do, and the
 * fprobe kfuncs anywhere else: each program of progs/fprobe_multi_fail.bpf.c
 * is loaded alone and must fail with its errno and its message in the log.
 * The few with errno 0 are the ways that stay open, and must load.
 */
#include <errno.h>
#include "test_progs.h"
#include "helpers.h"
#include "fprobe_multi_fail.skel.h"

/*
 * err7 and msg7, where set, are what 7.x kernels say instead: they reject
 * the program as 6.12 does, from another check of the verifier.
 */
static const struct {
	const char *prog;
	int err;
	const char *msg;
	int err7;
	const char *msg7;
} cases[] = {
	{ "ctx_load", EACCES, "fprobe.multi programs cannot access the context directly" },
	{ "ctx_store", EACCES, "fprobe.multi programs cannot access the context directly" },
	{ "override", EINVAL, "program of this type cannot use helper bpf_override_return#58" },
	{ "session_size_var", EINVAL, "is not a const" },
	{ "session_no_null_check", EACCES, "invalid mem access 'mem_or_null'" },
	{ "session_past_size", EACCES, "invalid access to memory, mem_size=8 off=8 size=8" },
	{ "cast_kern_ctx", EACCES,
	  "fprobe.multi programs cannot use bpf_cast_to_kern_ctx(): their context is opaque" },
	{ "probe_read_ctx", EACCES, "R3: the context of fprobe.multi programs is opaque" },
	{ "rdonly_cast_ctx", EACCES, "R1: the context of fprobe.multi programs is opaque" },
	{ "subprog_ctx", 0, NULL },
	{ "subprog_pt_regs_ctx", EINVAL,
	  "arg#0: the context of fprobe.multi programs is a struct ftrace_regs pointer" },
	{ "kprobe_ctx_as_ftrace_regs", EACCES, "R1 type=mem expected=ctx",
	  EINVAL, "R1 type=ctx expected=fp" },
	{ "kprobe_reads_ctx", 0, NULL },
	{ "kfunc_from_kprobe", EACCES,
	  "calling kernel function bpf_fprobe_is_return is not allowed" },
	{ "kfunc_from_kprobe_multi", EACCES,
	  "calling kernel function bpf_fprobe_func_ip is not allowed" },
	{ "kfunc_from_kprobe_session", EACCES,
	  "calling kernel function bpf_fprobe_arg is not allowed" },
	{ "kfunc_from_fentry", EACCES,
	  "calling kernel function bpf_fprobe_is_return is not allowed" },
	{ "kfunc_from_tracepoint", EACCES,
	  "calling kernel function bpf_fprobe_ret is not allowed" },
};

static char log_buf[1 << 20];

static void run(const char *prog_name, int expected_err, const char *msg)
{
	struct fprobe_multi_fail_bpf *skel;
	struct bpf_program *prog;
	int err;

	skel = fprobe_multi_fail_bpf__open();
	if (!ASSERT_OK_PTR(skel, "open fprobe_multi_fail"))
		return;
	prog = bpf_object__find_program_by_name(skel->obj, prog_name);
	if (!ASSERT_OK_PTR(prog, "find the program"))
		goto out;
	log_buf[0] = 0;
	bpf_program__set_autoload(prog, true);
	bpf_program__set_log_buf(prog, log_buf, sizeof(log_buf));
	bpf_program__set_log_level(prog, 1);
	err = fprobe_multi_fail_bpf__load(skel);
	if (!expected_err) {
		ASSERT_OK(err, "the program loads");
		goto out;
	}
	ASSERT_ERRNO(err, expected_err, "load fails with the expected errno");
	ASSERT_HAS(log_buf, msg, "verifier log");
out:
	fprobe_multi_fail_bpf__destroy(skel);
}

void test_fprobe_multi_verifier(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (!test__start_subtest(cases[i].prog))
			continue;
		if (cases[i].msg7 && kernel_major() >= 7)
			run(cases[i].prog, cases[i].err7, cases[i].msg7);
		else
			run(cases[i].prog, cases[i].err, cases[i].msg);
	}
}
