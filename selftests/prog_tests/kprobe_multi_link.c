// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe.multi link behaviour, as the base kernel's own BPF selftests check
 * it: attach by pattern, a module function (pinned while attached) with
 * its cookie, recursion refused (at the entry of an entry-only link and of
 * a session) and counted in link_info's missed (and
 * missed_recursion, which the series adds: not checked on a base the
 * series has not brought it to yet), more sessions on one function than
 * its call's entry data block holds, and the attach errors with
 * their errnos. The errors case needs no test module and runs on the base
 * kernel too, with the same results.
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include "test_progs.h"
#include "helpers.h"
#include "kprobe_multi_link.skel.h"

#define NOTRACE_FUNC "native_sched_clock"

static void test_pattern(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct kprobe_multi_link_bpf *skel;
	struct bpf_link *link = NULL;
	char name[32], l[64];
	int i;

	skel = kprobe_multi_link_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_link"))
		return;
	skel->bss->target_tgid = getpid();
	/* test_run calls bpf_fentry_test1..9 in order */
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.record_hits, "bpf_fentry_test?",
						     &opts);
	if (!ASSERT_OK_PTR(link, "attach by pattern"))
		goto out;
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..9"))
		goto out;
	ASSERT_EQ(skel->bss->nr_hits, 9, "hits");
	for (i = 0; i < 9; i++) {
		snprintf(name, sizeof(name), "bpf_fentry_test%d", i + 1);
		snprintf(l, sizeof(l), "hit %d is %s", i, name);
		ASSERT_EQ(skel->bss->hit_ip[i], ksym_addr(name), l);
		snprintf(l, sizeof(l), "hit %d has no cookie", i);
		ASSERT_EQ(skel->bss->hit_cookie[i], 0, l);
	}
out:
	bpf_link__destroy(link);
	kprobe_multi_link_bpf__destroy(skel);
}

static const char * const module_func[] = { "fpm_test_recurse" };
static const __u64 module_cookie[] = { 77 };

static void test_module(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = (const char **)module_func,
		    .cookies = module_cookie, .cnt = 1);
	struct kprobe_multi_link_bpf *skel;
	struct bpf_link *link = NULL;
	long refcnt = fpm_module_refcnt();
	char buf[32], l[64];
	int i;

	if (!ASSERT_GE(refcnt, 0, "fpm_test is loaded"))
		return;
	skel = kprobe_multi_link_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_link"))
		return;
	skel->bss->target_tgid = getpid();
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.record_hits, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach to a module function"))
		goto out;
	ASSERT_EQ(fpm_module_refcnt(), refcnt + 1, "the link holds the module");
	ASSERT_ERRNO(syscall(SYS_delete_module, "fpm_test", O_NONBLOCK), EWOULDBLOCK,
		     "the module cannot be removed while attached");
	if (!ASSERT_OK(fpm_run("call 3", buf, sizeof(buf)), "call 3"))
		goto out;
	ASSERT_STREQ(buf, "ret=3\n", "fpm_test_recurse(3)");
	ASSERT_EQ(skel->bss->nr_hits, 4, "hits, depth 3 to 0");
	for (i = 0; i < 4; i++) {
		snprintf(l, sizeof(l), "hit %d: function", i);
		ASSERT_EQ(skel->bss->hit_ip[i], ksym_addr("fpm_test_recurse"), l);
		snprintf(l, sizeof(l), "hit %d: cookie", i);
		ASSERT_EQ(skel->bss->hit_cookie[i], 77, l);
		snprintf(l, sizeof(l), "hit %d: depth argument", i);
		ASSERT_EQ((int)skel->bss->hit_arg0[i], 3 - i, l);
	}
out:
	bpf_link__destroy(link);
	ASSERT_EQ(fpm_module_refcnt(), refcnt, "the module is released with the link");
	kprobe_multi_link_bpf__destroy(skel);
}

/*
 * Two kinds of recursion. From bpf_fentry_test1, the program calls
 * bpf_get_current_comm(), which the same link probes: ftrace lets that one
 * nested hit through, and BPF refuses to run the program inside itself, so
 * it counts in the program's recursion_misses. From fpm_test_inner(),
 * which the module calls from an fprobe handler, the same nested call is
 * one level deeper in the tracing context: ftrace refuses it and the link
 * counts it as missed.
 */
static const char * const nested_funcs[] = {
	"bpf_fentry_test1", "bpf_get_current_comm", "fpm_test_inner",
};

static const char nest_result[] =
	"entries=1 exits=0 bad_data=0 bad_ret=0 nmissed=0 stack=0 recursion=0 ret=5\n";

/* @link's link_info counts one missed call, refused as recursion */
static void check_one_recursion_miss(struct bpf_link *link, const char *what)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (!ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len), "link_info"))
		return;
	ASSERT_EQ(info.kprobe_multi.missed, 1, what);
#ifndef FPM_NO_MISSED_BY_CAUSE
	ASSERT_EQ(info.kprobe_multi.missed_recursion, 1, "missed as recursion");
	ASSERT_EQ(info.kprobe_multi.missed_stack, 0, "no stack miss");
#endif
}

static void test_missed(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = (const char **)nested_funcs, .cnt = 3);
	struct kprobe_multi_link_bpf *skel;
	struct bpf_link_info info = {};
	struct bpf_prog_info pinfo = {};
	__u32 len = sizeof(info), plen = sizeof(pinfo);
	struct bpf_link *link = NULL;
	int prog_fd;
	char buf[128];

	if (!ASSERT_NEQ(ftrace_addr("bpf_get_current_comm"), 0, "the helper is traceable"))
		return;
	skel = kprobe_multi_link_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_link"))
		return;
	skel->bss->target_tgid = getpid();
	prog_fd = bpf_program__fd(skel->progs.call_probed_helper);
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.call_probed_helper, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach"))
		goto out;

	if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8"))
		goto out;
	ASSERT_EQ(skel->bss->nested_runs, 1, "runs: bpf_fentry_test1 only");
	if (ASSERT_OK(bpf_prog_get_info_by_fd(prog_fd, &pinfo, &plen), "prog_info"))
		ASSERT_EQ(pinfo.recursion_misses, 1, "the program did not run inside itself");
	if (ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len), "link_info"))
		ASSERT_EQ(info.kprobe_multi.missed, 0, "ftrace let the nested hit through");

	if (!ASSERT_OK(fpm_run("nest 5", buf, sizeof(buf)), "nest 5"))
		goto out;
	ASSERT_STREQ(buf, nest_result, "the module's fprobe called fpm_test_inner(5)");
	ASSERT_EQ(skel->bss->nested_runs, 2, "runs: fpm_test_inner too");
	memset(&pinfo, 0, sizeof(pinfo));
	plen = sizeof(pinfo);
	if (ASSERT_OK(bpf_prog_get_info_by_fd(prog_fd, &pinfo, &plen), "prog_info"))
		ASSERT_EQ(pinfo.recursion_misses, 1, "no new recursion miss in the program");
	check_one_recursion_miss(link, "ftrace refused the nested hit: missed");
out:
	bpf_link__destroy(link);
	kprobe_multi_link_bpf__destroy(skel);
}

/*
 * The same nested call from an exit run. fpm_test_inner() returns inside
 * the module's fprobe handler, and its exit run calls
 * bpf_get_current_comm(), which the link probes too. Exit runs are not
 * under ftrace's recursion protection (BPF keeps a program from running
 * inside another), so the helper's call is hooked, not refused: its own
 * exit run is what BPF refuses, in the program's recursion_misses, and the
 * link misses nothing.
 */
static const char * const nested_exit_funcs[] = { "bpf_get_current_comm", "fpm_test_inner" };

static void test_missed_exit(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = (const char **)nested_exit_funcs,
		    .cnt = 2, .retprobe = true);
	struct kprobe_multi_link_bpf *skel;
	struct bpf_link_info info = {};
	struct bpf_prog_info pinfo = {};
	__u32 len = sizeof(info), plen = sizeof(pinfo);
	struct bpf_link *link = NULL;
	char buf[128];

	skel = kprobe_multi_link_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_link"))
		return;
	skel->bss->target_tgid = getpid();
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.call_probed_helper_exit,
						     NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach kretprobe.multi"))
		goto out;

	if (!ASSERT_OK(fpm_run("nest 5", buf, sizeof(buf)), "nest 5"))
		goto out;
	ASSERT_STREQ(buf, nest_result, "the module's fprobe called fpm_test_inner(5)");
	ASSERT_EQ(skel->bss->nested_exit_runs, 1, "exit runs: fpm_test_inner only");
	if (ASSERT_OK(bpf_prog_get_info_by_fd(bpf_program__fd(skel->progs.call_probed_helper_exit),
					      &pinfo, &plen), "prog_info"))
		ASSERT_EQ(pinfo.recursion_misses, 1, "the helper's exit run, refused by BPF");
	if (ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len), "link_info")) {
		ASSERT_EQ(info.kprobe_multi.missed, 0, "missed: none");
#ifndef FPM_NO_MISSED_BY_CAUSE
		ASSERT_EQ(info.kprobe_multi.missed_recursion, 0, "missed_recursion: none");
#endif
	}
out:
	bpf_link__destroy(link);
	kprobe_multi_link_bpf__destroy(skel);
}

/*
 * The nested call from a session's entry run. The session hooks the
 * return of fpm_test_inner(), which the module calls from an fprobe
 * handler, so fgraph hooks that call; the entry run then calls
 * bpf_get_current_comm(), which fgraph's own recursion protection
 * refuses, and reports to fprobe as missed for the link: one miss, by
 * recursion. The entry and the exit of fpm_test_inner() ran.
 */
static void test_missed_session(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = (const char **)nested_exit_funcs,
		    .cnt = 2, .session = true);
	struct kprobe_multi_link_bpf *skel;
	struct bpf_prog_info pinfo = {};
	__u32 plen = sizeof(pinfo);
	struct bpf_link *link = NULL;
	struct bpf_program *prog;
	char buf[128];

	skel = kprobe_multi_link_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_link"))
		return;
	skel->bss->target_tgid = getpid();
	prog = skel->progs.call_probed_helper_session;
	link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach kprobe.session"))
		goto out;

	if (!ASSERT_OK(fpm_run("nest 5", buf, sizeof(buf)), "nest 5"))
		goto out;
	ASSERT_STREQ(buf, nest_result, "the module's fprobe called fpm_test_inner(5)");
	ASSERT_EQ(skel->bss->nested_session_entries, 1, "entry runs: fpm_test_inner only");
	ASSERT_EQ(skel->bss->nested_session_exits, 1, "exit runs: fpm_test_inner only");
	if (ASSERT_OK(bpf_prog_get_info_by_fd(bpf_program__fd(prog), &pinfo, &plen),
		      "prog_info"))
		ASSERT_EQ(pinfo.recursion_misses, 0, "BPF refused no run");
	check_one_recursion_miss(link, "the helper's call, refused: missed");
out:
	bpf_link__destroy(link);
	kprobe_multi_link_bpf__destroy(skel);
}

/*
 * More sessions on one function than one block of a call's frame, at most
 * 32 words (on 64-bit), can hold: a session takes two, its header and its
 * cookie. Where fprobe keeps the entry data of every fprobe of a function
 * in one such block (mainline's fprobe on fgraph), 16 links fit. The 17th
 * misses the call, counted as missed (not for want of stack: there is room
 * on it); the other 16 run at both ends, each with its own cookie. Mainline
 * asked fgraph for the block of all 17 at once, which it refuses, and every
 * link missed the call. Where each fprobe has a block of its own (the
 * series on either base), all 17 run.
 */
#define CROWD_LINKS 17
#ifdef FPM_SHARED_FPROBE_BLOCK
#define CROWD_FIT 16
#else
#define CROWD_FIT CROWD_LINKS
#endif

static void check_crowd_misses(struct bpf_link **links, int nr, int fit)
{
	int i, missed = 0, missed_stack = 0;

	for (i = 0; i < nr; i++) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);

		if (!ASSERT_OK(bpf_link_get_info_by_fd(bpf_link__fd(links[i]), &info, &len),
			       "link_info"))
			return;
		missed += info.kprobe_multi.missed;
#ifndef FPM_NO_MISSED_BY_CAUSE
		missed_stack += info.kprobe_multi.missed_stack;
#endif
	}
	ASSERT_EQ(missed, CROWD_LINKS - fit, "missed: the links that did not fit");
	ASSERT_EQ(missed_stack, 0, "none missed for want of stack");
}

static void test_crowded_function(void)
{
	struct bpf_link *links[CROWD_LINKS] = {};
	struct kprobe_multi_link_bpf *skel;
	const char *sym = "bpf_fentry_test1";
	int i, fit = CROWD_FIT;
	__u64 cookie;

	skel = kprobe_multi_link_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_link"))
		return;
	skel->bss->target_tgid = getpid();
	for (i = 0; i < CROWD_LINKS; i++) {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = &sym, .cookies = &cookie,
			    .cnt = 1, .session = true);

		cookie = 1000 + i;
		links[i] = bpf_program__attach_kprobe_multi_opts(skel->progs.crowd_session,
								 NULL, &opts);
		if (!ASSERT_OK_PTR(links[i], "attach kprobe.session"))
			goto out;
	}
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8"))
		goto out;
	ASSERT_EQ(skel->bss->crowd_entries, fit, "entry runs: the links that fit");
	ASSERT_EQ(skel->bss->crowd_exits, fit, "exit runs: the same");
	ASSERT_EQ(skel->bss->crowd_bad_cookie, 0, "each exit found its own cookie");
	check_crowd_misses(links, CROWD_LINKS, fit);
out:
	for (i = 0; i < CROWD_LINKS; i++)
		bpf_link__destroy(links[i]);
	kprobe_multi_link_bpf__destroy(skel);
}

struct km_err {
	const char *name;
	int err;
	int err_7;	/* the errno of 7.x kernels, where it differs */
	__u32 flags, link_flags, cnt;
	int syms;	/* 1: fentry tests, 2: unknown, 3: notrace */
	int addrs;	/* 1: fentry tests, 3: notrace */
	bool cookies;
};

static const struct km_err km_errs[] = {
	{ "cnt_zero", EINVAL, .syms = 1 },
	{ "cnt_over_limit", E2BIG, .cnt = (1 << 20) + 1, .syms = 1 },
	{ "unknown_symbol", ESRCH, .cnt = 1, .syms = 2 },
	{ "notrace_symbol", ESRCH, .cnt = 1, .syms = 3 },
	/* mainline's fprobe on fgraph (7.x) finds no ftrace site: ENOENT */
	{ "notrace_address", EINVAL, ENOENT, .cnt = 1, .addrs = 3 },
	{ "syms_and_addrs", EINVAL, .cnt = 8, .syms = 1, .addrs = 1 },
	{ "cookies_alone", EINVAL, .cnt = 8, .cookies = true },
	{ "unknown_flag", EINVAL, .flags = 1 << 1, .cnt = 8, .syms = 1 },
	{ "link_create_flags", EINVAL, .link_flags = 1, .cnt = 8, .syms = 1 },
};

static void test_errors(void)
{
	static const char * const unknown[] = { "fpm_no_such_function" };
	static const char * const notrace[] = { NOTRACE_FUNC };
	struct kprobe_multi_link_bpf *skel;
	unsigned long addrs[8];
	int prog_fd, fd, i;
	size_t c;
	bool v7 = kernel_major() >= 7;

	skel = kprobe_multi_link_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_link"))
		return;
	prog_fd = bpf_program__fd(skel->progs.record_hits);
	for (c = 0; c < ARRAY_SIZE(km_errs); c++) {
		LIBBPF_OPTS(bpf_link_create_opts, opts);
		const struct km_err *e = &km_errs[c];

		opts.flags = e->link_flags;
		opts.kprobe_multi.flags = e->flags;
		opts.kprobe_multi.cnt = e->cnt;
		if (e->cookies)
			opts.kprobe_multi.cookies = fentry_test_cookies;
		if (e->syms == 1)
			opts.kprobe_multi.syms = (const char **)fentry_test_names;
		else if (e->syms == 2)
			opts.kprobe_multi.syms = (const char **)unknown;
		else if (e->syms == 3)
			opts.kprobe_multi.syms = (const char **)notrace;
		if (e->addrs == 1) {
			for (i = 0; i < 8; i++)
				addrs[i] = ksym_addr(fentry_test_names[i]);
			opts.kprobe_multi.addrs = addrs;
		} else if (e->addrs == 3) {
			addrs[0] = ksym_addr(NOTRACE_FUNC);
			opts.kprobe_multi.addrs = addrs;
		}
		fd = bpf_link_create(prog_fd, 0, BPF_TRACE_KPROBE_MULTI, &opts);
		ASSERT_ERRNO(fd, v7 && e->err_7 ? e->err_7 : e->err, e->name);
		if (fd >= 0)
			close(fd);
	}

	kprobe_multi_link_bpf__destroy(skel);
}

void test_kprobe_multi_link(void)
{
	if (test__start_subtest("pattern"))
		test_pattern();
	if (test__start_subtest("module"))
		test_module();
	if (test__start_subtest("missed"))
		test_missed();
	if (test__start_subtest("missed_exit"))
		test_missed_exit();
	if (test__start_subtest("missed_session"))
		test_missed_session();
	if (test__start_subtest("crowded_function"))
		test_crowded_function();
	if (test__start_subtest("errors"))
		test_errors();
}
