// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe.multi links on bpf_fentry_test1..8, whose arguments and return
 * values are known: every kfunc is checked with exact values at entry, at
 * exit and in a session, with and without saved arguments, at session data
 * sizes 0, 8 and the maximum, and with the exit skipped from the entry run;
 * then the section names' auto-attach, with BPF_FPROBE programs.
 */
#include <errno.h>
#include "test_progs.h"
#include "helpers.h"
#include "fprobe_multi_rec.h"
#include "fprobe_multi.skel.h"
#include "fprobe_multi_auto.skel.h"

enum fpm_mode { ENTRY, EXIT, SESSION };

struct fpm_case {
	enum fpm_mode mode;
	__u32 saved_args;
	__u32 session_size;
	__u32 skip_exit_mask;
};

static void check_side(const struct fprobe_side *s, int fn, bool exit,
		       const struct fpm_case *c)
{
	const struct fentry_args *e = &fentry_test_args[fn - 1];
	const char *name = fentry_test_names[fn - 1];
	const char *side = exit ? "exit" : "entry";
	unsigned long ip = ksym_addr(name);
	char l[128];
	int a;

#define LABEL(fmt, ...) (snprintf(l, sizeof(l), "%s %s: " fmt, name, side, ##__VA_ARGS__), l)
	ASSERT_EQ(s->runs, 1, LABEL("runs"));
	ASSERT_EQ(s->is_return, exit, LABEL("bpf_fprobe_is_return()"));
	ASSERT_EQ(s->func_ip, ip, LABEL("bpf_fprobe_func_ip()"));
	ASSERT_EQ(s->helper_ip, ip, LABEL("bpf_get_func_ip()"));
	ASSERT_EQ(s->cookie, fn, LABEL("bpf_get_attach_cookie()"));

	/* past the function's BTF arguments -EINVAL, unsaved at exit -ENOENT */
	for (a = 0; a < FPROBE_REC_ARGS; a++) {
		bool readable = !exit || a < (int)c->saved_args;
		int want = a >= fentry_test_nargs[fn - 1] ? -EINVAL : readable ? 0 : -ENOENT;

		ASSERT_EQ(s->arg_err[a], want, LABEL("bpf_fprobe_arg(%d) result", a));
		if (want)
			ASSERT_EQ(s->args[a], 0, LABEL("bpf_fprobe_arg(%d) value on error", a));
		else if (a < e->nr)
			ASSERT_EQ(fentry_arg_bits(s->args[a], e->bits[a]), e->val[a],
				  LABEL("bpf_fprobe_arg(%d)", a));
	}
	if (fn == 8 && (!exit || c->saved_args))
		ASSERT_TRUE((__s64)s->args[0] < 0, LABEL("argument 0 is a kernel-half address"));

	if (exit) {
		ASSERT_EQ(s->ret_err, 0, LABEL("bpf_fprobe_ret() result"));
		ASSERT_EQ((int)s->ret, fentry_test_rets[fn - 1], LABEL("bpf_fprobe_ret()"));
	} else {
		ASSERT_EQ(s->ret_err, -EOPNOTSUPP, LABEL("bpf_fprobe_ret() result"));
		ASSERT_EQ(s->ret, 0, LABEL("bpf_fprobe_ret() value"));
	}

	ASSERT_EQ(s->data0, 0, LABEL("bpf_fprobe_session_data(0) is NULL"));
	ASSERT_EQ(s->data8, c->session_size >= 8, LABEL("bpf_fprobe_session_data(8)"));
	ASSERT_EQ(s->data64, c->session_size >= 64, LABEL("bpf_fprobe_session_data(64)"));
	ASSERT_EQ(s->data65, 0, LABEL("bpf_fprobe_session_data(65) is NULL"));
	for (a = 0; a < (int)c->session_size / 8; a++) {
		__u64 want;

		if (c->session_size == 8)
			want = exit ? fn * 100 : 0;
		else
			want = exit ? fn * 100 + a : 0;
		ASSERT_EQ(s->data_words[a], want, LABEL("session data word %d", a));
	}
#undef LABEL
}

static void run_case(const struct fpm_case *c)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts,
		    .syms = (const char **)fentry_test_names,
		    .cookies = fentry_test_cookies,
		    .cnt = NR_FENTRY_TESTS,
		    .retprobe = c->mode == EXIT,
		    .session = c->mode == SESSION,
		    .session_size = c->session_size,
		    .saved_args = c->saved_args);
	struct fprobe_multi_bpf *skel;
	struct bpf_program *prog;
	struct bpf_link *link = NULL;
	char l[64];
	int fn;

	skel = fprobe_multi_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_multi"))
		return;
	skel->bss->target_tgid = getpid();
	skel->bss->skip_exit_mask = c->skip_exit_mask;
	prog = c->mode == ENTRY ? skel->progs.fpm_entry :
	       c->mode == EXIT ? skel->progs.fpm_exit : skel->progs.fpm_session;
	link = bpf_program__attach_fprobe_multi_opts(prog, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach fprobe.multi"))
		goto out;
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8"))
		goto out;

	for (fn = 1; fn <= NR_FENTRY_TESTS; fn++) {
		const struct fprobe_rec *r = &skel->bss->rec[fn];
		bool skipped = c->skip_exit_mask & (1U << fn);

		if (c->mode != EXIT) {
			check_side(&r->entry, fn, false, c);
		} else {
			snprintf(l, sizeof(l), "%s: entry not run", fentry_test_names[fn - 1]);
			ASSERT_EQ(r->entry.runs, 0, l);
		}
		if (c->mode == ENTRY || skipped) {
			snprintf(l, sizeof(l), "%s: exit not run", fentry_test_names[fn - 1]);
			ASSERT_EQ(r->exit.runs, 0, l);
		} else {
			check_side(&r->exit, fn, true, c);
		}
	}
out:
	bpf_link__destroy(link);
	fprobe_multi_bpf__destroy(skel);
}

/* Skeleton auto-attach from the section names, with BPF_FPROBE programs. */
static void run_auto(void)
{
	struct fprobe_multi_auto_bpf *skel;

	skel = fprobe_multi_auto_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_multi_auto"))
		return;
	skel->bss->target_tgid = getpid();
	if (!ASSERT_OK(fprobe_multi_auto_bpf__attach(skel), "auto-attach"))
		goto out;
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8"))
		goto out;
	ASSERT_EQ(skel->bss->t1_runs, 1, "fprobe.multi: runs");
	ASSERT_EQ(skel->bss->t1_a, 1, "fprobe.multi: int a");
	ASSERT_EQ(skel->bss->t2_runs, 1, "fretprobe.multi: runs");
	ASSERT_EQ(skel->bss->t2_a, 2, "fretprobe.multi: saved int a");
	ASSERT_EQ(skel->bss->t2_b, 3, "fretprobe.multi: saved u64 b");
	ASSERT_EQ(skel->bss->t2_ret, 5, "fretprobe.multi: return value");
	ASSERT_EQ(skel->bss->t3_entries, 1, "fprobe.session: entries");
	ASSERT_EQ(skel->bss->t3_exits, 1, "fprobe.session: exits");
	ASSERT_EQ(skel->bss->t3_c_at_exit, 6, "fprobe.session: saved u64 c");
	ASSERT_EQ(skel->bss->t3_ret, 15, "fprobe.session: return value");
	ASSERT_EQ(skel->bss->t3_data, 4 + 5, "fprobe.session: session data from entry");
out:
	fprobe_multi_auto_bpf__destroy(skel);
}

/*
 * A section without a pattern has no auto-attach; an invalid pattern fails
 * to attach with -EINVAL and says why.
 */
static void run_auto_errors(void)
{
	struct fprobe_multi_auto_bpf *autos = NULL;
	struct fprobe_multi_bpf *skel;
	struct bpf_link *link;

	skel = fprobe_multi_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_multi"))
		return;
	if (ASSERT_OK(fprobe_multi_bpf__attach(skel), "skeleton attach without patterns"))
		ASSERT_TRUE(!skel->links.fpm_entry && !skel->links.fpm_session,
			    "nothing auto-attached");
	link = bpf_program__attach(skel->progs.fpm_entry);
	ASSERT_ERR_PTR(link, EOPNOTSUPP, "bpf_program__attach() of a bare fprobe.multi section");

	autos = fprobe_multi_auto_bpf__open();
	if (!ASSERT_OK_PTR(autos, "open fprobe_multi_auto"))
		goto out;
	bpf_program__set_autoload(autos->progs.bad_pattern, true);
	if (!ASSERT_OK(fprobe_multi_auto_bpf__load(autos), "load"))
		goto out;
	link = bpf_program__attach(autos->progs.bad_pattern);
	ASSERT_ERR_PTR(link, EINVAL, "attach SEC(\"fprobe.multi/!bad\")");
out:
	fprobe_multi_auto_bpf__destroy(autos);
	fprobe_multi_bpf__destroy(skel);
}

void test_fprobe_multi(void)
{
	static const struct fpm_case cases[] = {
		{ ENTRY },
		{ EXIT },
		{ EXIT, .saved_args = 6 },
		{ EXIT, .saved_args = 2 },
		{ SESSION },
		{ SESSION, .saved_args = 3, .session_size = 8 },
		{ SESSION, .saved_args = 6, .session_size = FPROBE_SESSION_MAX },
		{ SESSION, .session_size = 8, .skip_exit_mask = 0xaa },
	};
	static const char *const names[] = {
		"entry", "exit", "exit_saved_args_6", "exit_saved_args_2",
		"session_data_0", "session_data_8", "session_data_64",
		"session_skip_exit",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (test__start_subtest(names[i]))
			run_case(&cases[i]);
	}
	if (test__start_subtest("auto_attach"))
		run_auto();
	if (test__start_subtest("auto_attach_errors"))
		run_auto_errors();
}
