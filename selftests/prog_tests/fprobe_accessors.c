// SPDX-License-Identifier: GPL-2.0
/*
 * The standard tracing accessors in fprobe.multi programs. One program
 * body (progs/fprobe_accessors.bpf.c) runs as fexit programs and as one
 * fretprobe.multi link on bpf_fentry_test1..8 and fpm_test_recurse(), a
 * module function: bpf_get_func_arg_cnt() (the BTF argument count),
 * bpf_get_func_arg() (-EINVAL past it) and bpf_get_func_ret() must give
 * the same, exact values both ways. The session kfuncs likewise, as
 * kprobe.session and as fprobe.session: a fprobe.session link reserves
 * bpf_session_cookie()'s 8 bytes though no session data was asked for;
 * outside a session, each run has a zeroed word of its own. And the
 * count of functions whose arguments the registers do not all hold in
 * order: it ends before a struct of more than 8 bytes, and at the last
 * argument register, so that no index reads another argument. The link
 * counts them only for a program that reads them, or tail-calls: a
 * program that tail-calls one that reads them gets the same counts.
 */
#include <errno.h>
#include "test_progs.h"
#include "helpers.h"
#include "fprobe_accessors.h"
#include "fprobe_accessors.skel.h"

enum acc_kind { AS_FEXIT, AS_FRETPROBE, AS_KSESSION, AS_FSESSION, AS_FENTRY_COOKIE };

static const char *acc_names[ACC_FUNCS];

static void acc_init_names(void)
{
	int i;

	for (i = 0; i < NR_FENTRY_TESTS; i++)
		acc_names[i] = fentry_test_names[i];
	acc_names[NR_FENTRY_TESTS] = "fpm_test_recurse";
}

static struct bpf_program *acc_fexit(struct fprobe_accessors_bpf *skel, int i)
{
	struct bpf_program *progs[ACC_FUNCS] = {
		skel->progs.fexit_bpf_fentry_test1, skel->progs.fexit_bpf_fentry_test2,
		skel->progs.fexit_bpf_fentry_test3, skel->progs.fexit_bpf_fentry_test4,
		skel->progs.fexit_bpf_fentry_test5, skel->progs.fexit_bpf_fentry_test6,
		skel->progs.fexit_bpf_fentry_test7, skel->progs.fexit_bpf_fentry_test8,
		skel->progs.fexit_fpm_test_recurse,
	};

	return progs[i];
}

static struct bpf_program *acc_prog(struct fprobe_accessors_bpf *skel,
				    enum acc_kind kind)
{
	switch (kind) {
	case AS_FRETPROBE:
		return skel->progs.fret;
	case AS_KSESSION:
		return skel->progs.ksess;
	case AS_FSESSION:
		return skel->progs.fsess;
	case AS_FENTRY_COOKIE:
		return skel->progs.fentry_cookie;
	default:
		return NULL;
	}
}

/* The link(s) of @kind on the ACC_FUNCS functions, into @links. */
static int acc_attach(struct fprobe_accessors_bpf *skel, enum acc_kind kind,
		      struct bpf_link **links)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, fopts, .syms = acc_names, .cnt = ACC_FUNCS,
		    .retprobe = kind == AS_FRETPROBE, .session = kind == AS_FSESSION,
		    .saved_args = kind == AS_FRETPROBE ? 6 : 0);
	LIBBPF_OPTS(bpf_kprobe_multi_opts, kopts, .syms = acc_names, .cnt = ACC_FUNCS,
		    .session = true);
	int i;

	if (kind == AS_FEXIT) {
		for (i = 0; i < ACC_FUNCS; i++) {
			links[i] = bpf_program__attach(acc_fexit(skel, i));
			if (!ASSERT_OK_PTR(links[i], "attach fexit"))
				return -1;
		}
		return 0;
	}
	if (kind == AS_KSESSION)
		links[0] = bpf_program__attach_kprobe_multi_opts(skel->progs.ksess, NULL,
								 &kopts);
	else
		links[0] = bpf_program__attach_fprobe_multi_opts(acc_prog(skel, kind), NULL,
								 &fopts);
	return ASSERT_OK_PTR(links[0], "attach the multi link") ? 0 : -1;
}

/* Load @kind's programs, attach, call the functions; their records to @skelp. */
static int acc_run(enum acc_kind kind, struct fprobe_accessors_bpf **skelp,
		   struct bpf_link **links)
{
	struct fprobe_accessors_bpf *skel;
	char buf[64];
	int i;

	skel = fprobe_accessors_bpf__open();
	*skelp = skel;
	if (!ASSERT_OK_PTR(skel, "open fprobe_accessors"))
		return -1;
	for (i = 0; i < ACC_FUNCS && kind == AS_FEXIT; i++)
		bpf_program__set_autoload(acc_fexit(skel, i), true);
	if (kind != AS_FEXIT)
		bpf_program__set_autoload(acc_prog(skel, kind), true);
	if (!ASSERT_OK(fprobe_accessors_bpf__load(skel), "load fprobe_accessors"))
		return -1;
	skel->bss->target_tgid = getpid();
	for (i = 0; i < ACC_FUNCS; i++) {
		skel->bss->funcs[i] = ksym_addr(acc_names[i]);
		if (!ASSERT_NEQ(skel->bss->funcs[i], 0, acc_names[i]))
			return -1;
	}
	if (acc_attach(skel, kind, links))
		return -1;
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8") ||
	    !ASSERT_OK(fpm_run("call 0", buf, sizeof(buf)), "fpm_test call 0"))
		return -1;
	return 0;
}

static void acc_cleanup(struct fprobe_accessors_bpf *skel, struct bpf_link **links)
{
	int i;

	for (i = 0; i < ACC_FUNCS; i++)
		bpf_link__destroy(links[i]);
	fprobe_accessors_bpf__destroy(skel);
}

/* The exact values the accessors must give for function @i. */
static void acc_check(const struct acc_rec *r, int i, const char *as)
{
	int nargs = i < NR_FENTRY_TESTS ? fentry_test_nargs[i] : 1;
	int ret = i < NR_FENTRY_TESTS ? fentry_test_rets[i] : 0;
	const struct fentry_args *e = i < NR_FENTRY_TESTS ? &fentry_test_args[i] : NULL;
	char l[128];
	int a;

#define LABEL(fmt, ...) (snprintf(l, sizeof(l), "%s %s: " fmt, as, acc_names[i], ##__VA_ARGS__), l)
	ASSERT_EQ(r->runs, 1, LABEL("runs"));
	ASSERT_EQ(r->arg_cnt, nargs, LABEL("bpf_get_func_arg_cnt()"));
	for (a = 0; a < ACC_ARGS; a++) {
		ASSERT_EQ(r->arg_err[a], a < nargs ? 0 : -EINVAL,
			  LABEL("bpf_get_func_arg(%d) result", a));
		if (e && a < e->nr)
			ASSERT_EQ(fentry_arg_bits(r->args[a], e->bits[a]), e->val[a],
				  LABEL("bpf_get_func_arg(%d)", a));
		else if (!e && !a)
			ASSERT_EQ((int)r->args[a], 0, LABEL("bpf_get_func_arg(0)"));
	}
	ASSERT_EQ(r->ret_err, 0, LABEL("bpf_get_func_ret() result"));
	ASSERT_EQ((int)r->ret, ret, LABEL("bpf_get_func_ret()"));
#undef LABEL
}

/* fexit and fretprobe.multi: exact values, and the same both ways. */
static void test_fexit_parity(void)
{
	struct acc_rec by[2][ACC_FUNCS];
	struct fprobe_accessors_bpf *skel;
	struct bpf_link *links[ACC_FUNCS];
	const char *as[2] = { "fexit", "fretprobe.multi" };
	int k, i, a;

	for (k = 0; k < 2; k++) {
		memset(links, 0, sizeof(links));
		if (acc_run(k ? AS_FRETPROBE : AS_FEXIT, &skel, links)) {
			acc_cleanup(skel, links);
			return;
		}
		memcpy(by[k], skel->bss->rec, sizeof(by[k]));
		acc_cleanup(skel, links);
		for (i = 0; i < ACC_FUNCS; i++)
			acc_check(&by[k][i], i, as[k]);
	}
	for (i = 0; i < ACC_FUNCS; i++) {
		ASSERT_EQ(by[1][i].arg_cnt, by[0][i].arg_cnt, "same bpf_get_func_arg_cnt()");
		for (a = 0; a < ACC_ARGS; a++)
			ASSERT_EQ(by[1][i].arg_err[a], by[0][i].arg_err[a],
				  "same bpf_get_func_arg() result");
		ASSERT_EQ((int)by[1][i].ret, (int)by[0][i].ret, "same bpf_get_func_ret()");
	}
}

/* kprobe.session and fprobe.session: the same cookie at every exit. */
static void test_session_parity(void)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	struct fprobe_accessors_bpf *skel;
	struct bpf_link *links[ACC_FUNCS];
	char l[96];
	int k, i;

	for (k = 0; k < 2; k++) {
		memset(links, 0, sizeof(links));
		if (acc_run(k ? AS_FSESSION : AS_KSESSION, &skel, links))
			goto next;
		for (i = 0; i < ACC_FUNCS; i++) {
			const struct acc_session *s = &skel->bss->sess[i];

			snprintf(l, sizeof(l), "%s %s", k ? "fprobe.session" : "kprobe.session",
				 acc_names[i]);
			ASSERT_EQ(s->entries, 1, l);
			ASSERT_EQ(s->exits, 1, l);
			ASSERT_EQ(s->cookie_at_entry, 0, l);
			ASSERT_EQ(s->cookie_at_exit, ACC_COOKIE, l);
		}
		if (k && ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(links[0]), &info, &len),
				   "link info"))
			ASSERT_EQ(info.fprobe_multi.session_size, 0, "session_size as asked");
next:
		acc_cleanup(skel, links);
	}
}

/* bpf_session_cookie() outside a session: a zeroed word per run. */
static void test_cookie_outside_session(void)
{
	struct fprobe_accessors_bpf *skel;
	struct bpf_link *links[ACC_FUNCS];
	char l[96];
	int i;

	memset(links, 0, sizeof(links));
	if (acc_run(AS_FENTRY_COOKIE, &skel, links))
		goto out;
	for (i = 0; i < ACC_FUNCS; i++) {
		const struct acc_session *s = &skel->bss->sess[i];

		snprintf(l, sizeof(l), "fprobe.multi %s", acc_names[i]);
		ASSERT_EQ(s->entries, 1, l);
		ASSERT_EQ(s->exits, 0, l);
		ASSERT_EQ(s->cookie_at_entry, 0, l);
	}
out:
	acc_cleanup(skel, links);
}

static const char *cnt_names[CNT_FUNCS] = {
	"fpm_test_straddle", "fpm_test_args8", "fpm_test_wide",
};

/* Each function's count, and every argument below it exact. */
static void cnt_check(const struct acc_rec *r, int i, int nargs)
{
	char l[96];
	int a;

	snprintf(l, sizeof(l), "%s: runs", cnt_names[i]);
	ASSERT_EQ(r->runs, 1, l);
	snprintf(l, sizeof(l), "%s: bpf_get_func_arg_cnt()", cnt_names[i]);
	ASSERT_EQ(r->arg_cnt, nargs, l);
	for (a = 0; a < ACC_ARGS; a++) {
		snprintf(l, sizeof(l), "%s: bpf_get_func_arg(%d)", cnt_names[i], a);
		ASSERT_EQ(r->arg_err[a], a < nargs ? 0 : -EINVAL, l);
		if (a < nargs)
			ASSERT_EQ(fentry_arg_bits(r->args[a], i ? 64 : 8), a + 1, l);
	}
}

/*
 * @tail: attach counts_via_tail, which reads nothing itself but tail-calls
 * a program that reads the counts; the link must count them all the same.
 */
static void test_arg_counts(bool tail)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .syms = cnt_names, .cnt = CNT_FUNCS);
	struct fprobe_accessors_bpf *skel;
	struct bpf_link *link = NULL;
	struct bpf_program *prog;
	char buf[64];
	int i;

	skel = fprobe_accessors_bpf__open();
	if (!ASSERT_OK_PTR(skel, "open fprobe_accessors"))
		return;
	prog = tail ? skel->progs.counts_via_tail : skel->progs.counts;
	bpf_program__set_autoload(prog, true);
	bpf_program__set_autoload(skel->progs.counts_tail, tail);
	if (!ASSERT_OK(fprobe_accessors_bpf__load(skel), "load"))
		goto out;
	skel->bss->target_tgid = getpid();
	for (i = 0; i < CNT_FUNCS; i++)
		skel->bss->cnt_funcs[i] = ksym_addr(cnt_names[i]);
	if (tail) {
		int key = 0, fd = bpf_program__fd(skel->progs.counts_tail);

		if (!ASSERT_OK(bpf_map_update_elem(bpf_map__fd(skel->maps.counts_jmp),
						   &key, &fd, BPF_ANY), "set counts_jmp[0]"))
			goto out;
	}
	link = bpf_program__attach_fprobe_multi_opts(prog, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach fprobe.multi") ||
	    !ASSERT_OK(fpm_run("args", buf, sizeof(buf)), "fpm_test args"))
		goto out;
	ASSERT_STREQ(buf, "straddle=36 args8=36 wide=6\n", "fpm_test args result");
	/* five chars, then a 16-byte struct: five */
	cnt_check(&skel->bss->cnt_rec[0], 0, 5);
	/* eight longs: the six in registers */
	cnt_check(&skel->bss->cnt_rec[1], 1, 6);
	/* a 16-byte struct first: none */
	cnt_check(&skel->bss->cnt_rec[2], 2, 0);
out:
	bpf_link__destroy(link);
	fprobe_accessors_bpf__destroy(skel);
}

void test_fprobe_accessors(void)
{
	acc_init_names();
	if (test__start_subtest("fexit_parity"))
		test_fexit_parity();
	if (test__start_subtest("session_parity"))
		test_session_parity();
	if (test__start_subtest("cookie_outside_session"))
		test_cookie_outside_session();
	if (test__start_subtest("arg_counts"))
		test_arg_counts(false);
	if (test__start_subtest("arg_counts_tail_call"))
		test_arg_counts(true);
}
