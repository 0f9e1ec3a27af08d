// SPDX-License-Identifier: GPL-2.0
/*
 * "bpftool link show", plain and JSON, for a fprobe.multi session link:
 * its mode, counts and sizes, then every function with its address and
 * cookie. Also a kprobe.multi link attached by pattern, whose addresses are
 * ftrace sites (after the ENDBR under IBT): bpftool must still name them.
 *
 * The missed calls of a kprobe.session and of a fprobe.session by cause,
 * plain and JSON: a shadow stack filled by recursion in the test module,
 * one hit refused as recursion in the tracing context, and the exits
 * still to come when a link is detached.
 *
 * "bpftool link attach": a pinned fprobe.session and a kretprobe.multi by
 * pattern, made by bpftool from pinned programs, that run and end with
 * their pin, and a kprobe.session of the one section it takes; and every
 * bad input refused with its one-line message and exit status 255, leaving
 * no link and no pin behind: each option on each link type that has no use
 * for it, a function named twice, and a program of another section, named
 * with the section the link needs.
 */
#include <stdarg.h>
#include "test_progs.h"
#include "helpers.h"
#include "fprobe_multi_rec.h"
#include "fprobe_multi.skel.h"
#include "kprobe_multi_args.skel.h"
#include "bpftool_attach.skel.h"
#include "bpftool_autoattach.skel.h"
#include "bpftool_missed.skel.h"

#define PROG_PIN	"/sys/fs/bpf/fpm_attach_prog"
#define KRET_PIN	"/sys/fs/bpf/fpm_attach_kret"
#define KSESS_PIN	"/sys/fs/bpf/fpm_attach_kpsession"
#define PLAIN_PIN	"/sys/fs/bpf/fpm_attach_plain"
#define LINK_PIN	"/sys/fs/bpf/fpm_attach_link"
#define AUTO_OBJ	"/tmp/bpftool_autoattach.bpf.o"

static char out[16384];

static int run_bpftool(const char *args, __u32 link_id)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "/bin/bpftool %s link show id %u 2>&1", args, link_id);
	if (run_cmd(cmd, out, sizeof(out))) {
		test__log("%s:\n%s", cmd, out);
		return -1;
	}
	return 0;
}

static __u32 link_id(struct bpf_link *link)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len))
		return 0;
	return info.id;
}

static void test_fprobe_session(void)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .syms = (const char **)fentry_test_names,
		    .cookies = fentry_test_cookies, .cnt = NR_FENTRY_TESTS, .session = true,
		    .session_size = 16, .saved_args = 2);
	struct fprobe_multi_bpf *skel;
	struct bpf_link *link = NULL;
	char want[160];
	__u32 id;
	int i;

	skel = fprobe_multi_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_multi"))
		return;
	link = bpf_program__attach_fprobe_multi_opts(skel->progs.fpm_session, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach fprobe.session"))
		goto out;
	id = link_id(link);

	if (!ASSERT_OK(run_bpftool("", id), "bpftool link show"))
		goto out;
	snprintf(want, sizeof(want), "%u: fprobe_multi  prog ", id);
	ASSERT_HAS(out, want, "link line");
	snprintf(want, sizeof(want), "\n\t%s  func_cnt 8  session_size 16  saved_args 2  %s",
		 "fprobe.session", "\n");
	ASSERT_HAS(out, want, "mode, counts and sizes");
	ASSERT_HAS(out, "\n\taddr             cookie           func [module]\n", "table header");
	for (i = 0; i < NR_FENTRY_TESTS; i++) {
		snprintf(want, sizeof(want), "\n\t%016lx %-16x %s  ",
			 ksym_addr(fentry_test_names[i]), i + 1, fentry_test_names[i]);
		ASSERT_HAS(out, want, "function row");
	}

	if (!ASSERT_OK(run_bpftool("-j", id), "bpftool -j link show"))
		goto out;
	ASSERT_HAS(out, "\"type\":\"fprobe_multi\"", "json type");
	/* overlapping pairs, so the fields come in this order */
	ASSERT_HAS(out, "\"mode\":\"session\",\"func_cnt\":8,", "json mode");
	ASSERT_HAS(out, "\"func_cnt\":8,\"session_size\":16,", "json func_cnt");
	ASSERT_HAS(out, "\"session_size\":16,\"saved_args\":2,", "json session_size");
	ASSERT_HAS(out, "\"saved_args\":2,\"missed\":0,", "json saved_args");
	ASSERT_HAS(out, "\"missed\":0,\"missed_stack\":0,\"missed_recursion\":0,\"funcs\":[",
		   "json missed");
	for (i = 0; i < NR_FENTRY_TESTS; i++) {
		snprintf(want, sizeof(want), "{\"addr\":%lu,\"func\":\"%s\",",
			 ksym_addr(fentry_test_names[i]), fentry_test_names[i]);
		ASSERT_HAS(out, want, "json function address");
		snprintf(want, sizeof(want), "\"func\":\"%s\",\"module\":null,\"cookie\":%d}",
			 fentry_test_names[i], i + 1);
		ASSERT_HAS(out, want, "json function cookie");
	}
out:
	bpf_link__destroy(link);
	fprobe_multi_bpf__destroy(skel);
}

static void test_kprobe_multi_pattern(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct kprobe_multi_args_bpf *skel;
	struct bpf_link *link = NULL;
	char want[160];

	skel = kprobe_multi_args_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_args"))
		return;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.multi_entry, "bpf_fentry_test1",
						     &opts);
	if (!ASSERT_OK_PTR(link, "attach kprobe.multi by pattern"))
		goto out;
	if (!ASSERT_OK(run_bpftool("", link_id(link)), "bpftool link show"))
		goto out;
	snprintf(want, sizeof(want), "\n\tkprobe.multi  func_cnt 1  %s", "\n");
	ASSERT_HAS(out, want, "mode and count");
	snprintf(want, sizeof(want), "\n\t%016lx %-16x %s  ", ksym_addr("bpf_fentry_test1"), 0,
		 "bpf_fentry_test1");
	ASSERT_HAS(out, want, "the function is named");
out:
	bpf_link__destroy(link);
	kprobe_multi_args_bpf__destroy(skel);
}

struct missed_counts {
	__u64 all, stack, recursion;
};

static int read_missed(struct bpf_link *link, bool fprobe, struct missed_counts *m)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	int err;

	err = bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len);
	if (err)
		return err;
	if (fprobe) {
		m->all = info.fprobe_multi.missed;
		m->stack = info.fprobe_multi.missed_stack;
		m->recursion = info.fprobe_multi.missed_recursion;
	} else {
#ifdef FPM_NO_MISSED_BY_CAUSE
		/* a base whose kprobe.multi link_info has the total only */
		return -EOPNOTSUPP;
#else
		m->all = info.kprobe_multi.missed;
		m->stack = info.kprobe_multi.missed_stack;
		m->recursion = info.kprobe_multi.missed_recursion;
#endif
	}
	return 0;
}

/* bpftool shows @m for @link: in plain output the counts not 0, in JSON all */
static void check_missed_shown(struct bpf_link *link, const struct missed_counts *m)
{
	char want[160];
	int n;

	if (!ASSERT_OK(run_bpftool("", link_id(link)), "bpftool link show"))
		return;
	n = snprintf(want, sizeof(want), "  missed %llu  ", m->all);
	if (m->stack)
		n += snprintf(want + n, sizeof(want) - n, "missed_stack %llu  ", m->stack);
	if (m->recursion)
		n += snprintf(want + n, sizeof(want) - n, "missed_recursion %llu  ", m->recursion);
	snprintf(want + n, sizeof(want) - n, "%s", "\n");
	ASSERT_HAS(out, want, "plain: missed by cause");
	if (!ASSERT_OK(run_bpftool("-j", link_id(link)), "bpftool -j link show"))
		return;
	snprintf(want, sizeof(want), "\"missed\":%llu,\"missed_stack\":%llu,%s%llu,",
		 m->all, m->stack, "\"missed_recursion\":", m->recursion);
	ASSERT_HAS(out, want, "json: missed by cause");
}

static const char nest_result[] =
	"entries=1 exits=0 bad_data=0 bad_ret=0 nmissed=0 stack=0 recursion=0 ret=5\n";

static const char * const missed_funcs[] = {
	"fpm_test_recurse", "fpm_test_inner", "bpf_get_current_comm",
};

/*
 * First the module calls fpm_test_inner() from an fprobe handler: the
 * program's call of bpf_get_current_comm() is then one level too deep in
 * the tracing context, and the link counts one recursion miss and nothing
 * else. Then fpm_test_recurse() nests 401 deep, more than the shadow
 * stack holds: the calls that do not fit are counted as missed for lack
 * of stack. Each entry run calls the helper, nested one level deep, which
 * ftrace lets through; near the top of the stack that call may not fit
 * either, and counts as a stack miss too.
 */
static void check_missed(struct bpf_link *link, bool fprobe, __u64 *runs)
{
	struct missed_counts m = {};
	__u64 entries;
	char buf[128];

	if (!ASSERT_OK(fpm_run("nest 5", buf, sizeof(buf)), "nest 5"))
		return;
	ASSERT_STREQ(buf, nest_result, "the module's fprobe called fpm_test_inner(5)");
	ASSERT_EQ(runs[0], 1, "entry runs: fpm_test_inner");
	ASSERT_EQ(runs[1], 1, "exit runs: fpm_test_inner");
	if (!ASSERT_OK(read_missed(link, fprobe, &m), "link_info"))
		return;
	ASSERT_EQ(m.all, 1, "missed: the nested hit");
	ASSERT_EQ(m.stack, 0, "missed_stack");
	ASSERT_EQ(m.recursion, 1, "missed_recursion: the nested hit");
	check_missed_shown(link, &m);

	if (!ASSERT_OK(fpm_run("call 400", buf, sizeof(buf)), "call 400"))
		return;
	ASSERT_STREQ(buf, "ret=400\n", "fpm_test_recurse(400)");
	if (!ASSERT_OK(read_missed(link, fprobe, &m), "link_info"))
		return;
	test__log("  %s: %llu entries, %llu exits, missed %llu (stack %llu, recursion %llu)\n",
		  fprobe ? "fprobe.session" : "kprobe.session", (unsigned long long)runs[0],
		  (unsigned long long)runs[1],
		  m.all, m.stack, m.recursion);
	/* the entry runs of fpm_test_recurse, and the calls that did not fit */
	entries = runs[0] - 1;
	ASSERT_LT(entries, 401, "the shadow stack filled up");
	ASSERT_GE(m.stack, 401 - entries, "missed_stack: every call that did not fit");
	ASSERT_LE(m.stack - (401 - entries), entries, "at most one helper call per entry run");
	ASSERT_EQ(runs[1], runs[0], "every entry run has its exit run");
	ASSERT_EQ(m.recursion, 1, "missed_recursion: no new nested hit refused");
	ASSERT_EQ(m.all, m.stack + m.recursion, "missed: the sum of its causes");
	check_missed_shown(link, &m);
}

static const char * const block_func[] = { "fpm_test_block" };

/*
 * Three threads of the module stay inside fpm_test_block() while the
 * session's link is detached: their exits are counted as missed, for a
 * cause that is neither of the two named ones.
 */
static void test_missed_detached(void)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .syms = (const char **)block_func, .cnt = 1,
		    .session = true);
	struct missed_counts m = {}, want = { .all = 3 };
	struct bpftool_missed_bpf *skel;
	struct bpf_link *link = NULL;
	char buf[64];

	skel = bpftool_missed_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load bpftool_missed"))
		return;
	link = bpf_program__attach_fprobe_multi_opts(skel->progs.fp_held, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach fprobe.session"))
		goto out;
	if (!ASSERT_OK(fpm_run("hold 3", buf, sizeof(buf)), "hold 3"))
		goto out;
	ASSERT_STREQ(buf, "threads=3\n", "three threads inside");
	ASSERT_EQ(skel->bss->held_runs[0], 3, "entry runs");
	ASSERT_OK(bpf_link__detach(link), "detach");
	if (ASSERT_OK(fpm_run("release", buf, sizeof(buf)), "release"))
		ASSERT_STREQ(buf, "threads=3 wrong_returns=0\n", "the threads returned right");
	ASSERT_EQ(skel->bss->held_runs[1], 0, "no exit run after detach");
	if (!ASSERT_OK(read_missed(link, true, &m), "link_info"))
		goto out;
	ASSERT_EQ(m.all, 3, "missed: the three exits");
	ASSERT_EQ(m.stack, 0, "missed_stack");
	ASSERT_EQ(m.recursion, 0, "missed_recursion");
	check_missed_shown(link, &want);
out:
	/* if the test stopped early: the threads must not stay (-EINVAL if none do) */
	fpm_run("release", buf, sizeof(buf));
	bpf_link__destroy(link);
	bpftool_missed_bpf__destroy(skel);
}

static void test_missed_causes(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, kopts, .syms = (const char **)missed_funcs,
		    .cnt = ARRAY_SIZE(missed_funcs), .session = true);
	LIBBPF_OPTS(bpf_fprobe_multi_opts, fopts, .syms = (const char **)missed_funcs,
		    .cnt = ARRAY_SIZE(missed_funcs), .session = true);
	struct bpftool_missed_bpf *skel;
	struct bpf_link *link;

	if (!ASSERT_NEQ(ftrace_addr("bpf_get_current_comm"), 0, "the helper is traceable"))
		return;
	skel = bpftool_missed_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load bpftool_missed"))
		return;
	skel->bss->target_tgid = getpid();
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.kp_session, NULL, &kopts);
	if (ASSERT_OK_PTR(link, "attach kprobe.session"))
		check_missed(link, false, skel->bss->kp_runs);
	bpf_link__destroy(link);
	link = bpf_program__attach_fprobe_multi_opts(skel->progs.fp_session, NULL, &fopts);
	if (ASSERT_OK_PTR(link, "attach fprobe.session"))
		check_missed(link, true, skel->bss->fp_runs);
	bpf_link__destroy(link);
	bpftool_missed_bpf__destroy(skel);
}

/* Run bpftool with the arguments @fmt makes; returns its exit status, output in out[]. */
static int run_tool(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int len;

	len = snprintf(cmd, sizeof(cmd), "/bin/bpftool ");
	va_start(ap, fmt);
	len += vsnprintf(cmd + len, sizeof(cmd) - len, fmt, ap);
	va_end(ap);
	snprintf(cmd + len, sizeof(cmd) - len, " 2>&1");
	return run_cmd(cmd, out, sizeof(out));
}

static int count_links(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_link_get_next_id(id, &id))
		n++;
	return n;
}

/* Whether link @id is gone; a link whose last pin went is freed by a worker. */
static bool link_gone(__u32 id)
{
	int i, fd;

	for (i = 0; i < 200; i++) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			return errno == ENOENT;
		close(fd);
		usleep(10000);
	}
	return false;
}

/*
 * Whether the session stops running: a link leaves the id table when its
 * last reference goes, and a worker detaches it after that.
 */
static bool runs_stop(struct bpftool_attach_bpf *skel)
{
	__u64 before;
	int i;

	for (i = 0; i < 200; i++) {
		before = skel->bss->fp_entries[1];
		if (trigger_fentry_tests())
			return false;
		if (skel->bss->fp_entries[1] == before)
			return true;
		usleep(10000);
	}
	return false;
}

static void unpin_progs(void)
{
	unlink(PROG_PIN);
	unlink(KRET_PIN);
	unlink(KSESS_PIN);
	unlink(PLAIN_PIN);
	unlink(LINK_PIN);
}

static bool pin_progs(struct bpftool_attach_bpf *skel)
{
	unpin_progs();
	return ASSERT_OK(bpf_obj_pin(bpf_program__fd(skel->progs.att_session), PROG_PIN),
			 "pin the session program") &&
	       ASSERT_OK(bpf_obj_pin(bpf_program__fd(skel->progs.att_kretprobe), KRET_PIN),
			 "pin the kretprobe.multi program") &&
	       ASSERT_OK(bpf_obj_pin(bpf_program__fd(skel->progs.att_kpsession), KSESS_PIN),
			 "pin the kprobe.session program") &&
	       ASSERT_OK(bpf_obj_pin(bpf_program__fd(skel->progs.att_plain), PLAIN_PIN),
			 "pin the plain kprobe program");
}

/* The programs, loaded and pinned for bpftool, or NULL */
static struct bpftool_attach_bpf *load_and_pin(void)
{
	struct bpftool_attach_bpf *skel;

	skel = bpftool_attach_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load bpftool_attach"))
		return NULL;
	skel->bss->target_tgid = getpid();
	if (pin_progs(skel))
		return skel;
	unpin_progs();
	bpftool_attach_bpf__destroy(skel);
	return NULL;
}

static void test_attach_session(void)
{
	struct bpftool_attach_bpf *skel;
	__u32 id = 0;
	int i, n;

	skel = load_and_pin();
	if (!skel)
		return;
	n = run_tool("-j link attach pinned %s fprobe.session func %s cookie 1 2 %s pinned %s",
		     PROG_PIN, "bpf_fentry_test1 bpf_fentry_test2", "session_size 8 saved_args 1",
		     LINK_PIN);
	if (!ASSERT_EQ(n, 0, "bpftool link attach"))
		goto fail;
	n = sscanf(out, "{\"id\":%u}", &id);
	ASSERT_EQ(n, 1, "the new link's id in JSON");
	ASSERT_OK(trigger_fentry_tests(), "trigger");
	for (i = 1; i <= 2; i++) {
		ASSERT_EQ(skel->bss->fp_entries[i], 1, "entries by cookie");
		ASSERT_EQ(skel->bss->fp_exits[i], 1, "exits by cookie");
		ASSERT_EQ(skel->bss->fp_arg0_at_exit[i], i, "saved first argument at exit");
		ASSERT_EQ(skel->bss->fp_data_at_exit[i], 100 + i, "session data at exit");
	}
	ASSERT_EQ(skel->bss->fp_entries[0] + skel->bss->fp_entries[3], 0, "no other function");
	if (ASSERT_EQ(run_tool("link show pinned %s", LINK_PIN), 0, "bpftool link show pinned"))
		ASSERT_HAS(out, "\n\tfprobe.session  func_cnt 2  session_size 8  saved_args 1  ",
			   "the link bpftool made");
	ASSERT_OK(unlink(LINK_PIN), "remove the link's pin");
	ASSERT_TRUE(link_gone(id), "the link's id goes with its pin");
	ASSERT_TRUE(runs_stop(skel), "the program stops running once the link is freed");
	goto out;
fail:
	test__log("%s", out);
out:
	unpin_progs();
	bpftool_attach_bpf__destroy(skel);
}

static void test_attach_pattern(void)
{
	struct bpftool_attach_bpf *skel;

	skel = load_and_pin();
	if (!skel)
		return;
	if (!ASSERT_EQ(run_tool("link attach pinned %s kretprobe.multi pattern %s pinned %s",
				KRET_PIN, "'bpf_fentry_test[1-3]'", LINK_PIN), 0,
		       "bpftool link attach by pattern")) {
		test__log("%s", out);
		goto out;
	}
	ASSERT_STREQ(out, "", "no output without -j");
	ASSERT_OK(trigger_fentry_tests(), "trigger");
	ASSERT_EQ(skel->bss->kp_exits, 3, "returns of bpf_fentry_test1..3");
	ASSERT_EQ(skel->bss->kp_ret_sum, fentry_test_rets[0] + fentry_test_rets[1] +
		  fentry_test_rets[2], "their return values");
	if (ASSERT_EQ(run_tool("link show pinned %s", LINK_PIN), 0, "bpftool link show pinned"))
		ASSERT_HAS(out, "\n\tkretprobe.multi  func_cnt 3  ", "three functions");
out:
	unpin_progs();
	bpftool_attach_bpf__destroy(skel);
}

/* A kprobe.session program, the one kind of program that link type takes */
static void test_attach_kprobe_session(void)
{
	struct bpftool_attach_bpf *skel;
	__u32 id = 0;

	skel = load_and_pin();
	if (!skel)
		return;
	if (!ASSERT_EQ(run_tool("-j link attach pinned %s kprobe.session func %s pinned %s",
				KSESS_PIN, "bpf_fentry_test1 bpf_fentry_test2", LINK_PIN), 0,
		       "bpftool link attach kprobe.session")) {
		test__log("%s", out);
		goto out;
	}
	ASSERT_EQ(sscanf(out, "{\"id\":%u}", &id), 1, "the new link's id in JSON");
	ASSERT_OK(trigger_fentry_tests(), "trigger");
	ASSERT_EQ(skel->bss->kps_runs[0], 2, "entry runs of bpf_fentry_test1 and 2");
	ASSERT_EQ(skel->bss->kps_runs[1], 2, "exit runs of bpf_fentry_test1 and 2");
	/* gone before the next subtest counts the links */
	ASSERT_OK(unlink(LINK_PIN), "remove the link's pin");
	ASSERT_TRUE(link_gone(id), "the link's id goes with its pin");
out:
	unpin_progs();
	bpftool_attach_bpf__destroy(skel);
}

#define FPROBE_SECS	"SEC(\"fprobe.multi\"), SEC(\"fretprobe.multi\") or SEC(\"fprobe.session\")"
#define KPROBE_SECS	"SEC(\"kprobe.multi\") or SEC(\"kretprobe.multi\")"
#define KSESS_SEC	"SEC(\"kprobe.session\")"
#define SAVED_FOR	"saved arguments are for fretprobe.multi and fprobe.session"

/* Each bad input: the program's pin, the rest of the command, the message after "TYPE link: ". */
static const struct {
	const char *prog;
	const char *args;
	bool no_pin;		/* leave out "pinned PATH" */
	const char *error;
} attach_errors[] = {
	{ PROG_PIN, "fprobe.multi func no_such_function_fpm", false,
	  "fprobe.multi link: function 'no_such_function_fpm' is not traceable: No such file or directory",
	},
	{ KRET_PIN, "kretprobe.multi func no_such_function_fpm", false,
	  "kretprobe.multi link: function 'no_such_function_fpm' is not traceable: No such process",
	},
	{ PROG_PIN, "fprobe.multi pattern 'no_such_fpm_*'", false,
	  "fprobe.multi link: pattern 'no_such_fpm_*' matches no traceable function: No such file or directory",
	},
	{ KRET_PIN, "fprobe.multi func bpf_fentry_test1", false,
	  "fprobe.multi link: program 'att_kretprobe' is a kprobe.multi program; fprobe.multi needs a "
	  FPROBE_SECS " program: Invalid argument",
	},
	{ PROG_PIN, "kretprobe.multi func bpf_fentry_test1", false,
	  "kretprobe.multi link: program 'att_session' is a fprobe.multi program; kretprobe.multi needs a "
	  KPROBE_SECS " program: Invalid argument",
	},
	{ KRET_PIN, "kprobe.session func bpf_fentry_test1", false,
	  "kprobe.session link: program 'att_kretprobe' is a kprobe.multi program; kprobe.session needs a "
	  KSESS_SEC " program: Invalid argument",
	},
	{ KSESS_PIN, "kprobe.multi func bpf_fentry_test1", false,
	  "kprobe.multi link: program 'att_kpsession' is a kprobe.session program; kprobe.multi needs a "
	  KPROBE_SECS " program: Invalid argument",
	},
	{ PLAIN_PIN, "fprobe.session func bpf_fentry_test1", false,
	  "fprobe.session link: program 'att_plain' was loaded for no multi-function link; fprobe.session needs a "
	  FPROBE_SECS " program: Invalid argument",
	},
	{ PROG_PIN, "fprobe.multi func bpf_fentry_test1 bpf_fentry_test2 bpf_fentry_test1", false,
	  "fprobe.multi link: function 'bpf_fentry_test1' is given twice: File exists",
	},
	{ KRET_PIN, "kretprobe.multi func bpf_fentry_test2 bpf_fentry_test2 bpf_fentry_test2",
	  false,
	  "kretprobe.multi link: function 'bpf_fentry_test2' is given 3 times: No such process",
	},
	{ PROG_PIN, "fprobe.session func bpf_fentry_test1 bpf_fentry_test2 cookie 1", false,
	  "fprobe.session link: 1 cookie(s) for 2 function(s): Invalid argument",
	},
	{ PROG_PIN, "fprobe.session func bpf_fentry_test1 session_size 65", false,
	  "fprobe.session link: session_size 65 is over the limit of 64: Argument list too long",
	},
	{ PROG_PIN, "fprobe.session func bpf_fentry_test1 saved_args 7", false,
	  "fprobe.session link: saved_args 7 is over the limit of 6: Argument list too long",
	},
	{ PROG_PIN, "fprobe.multi func bpf_fentry_test1 session_size 8", false,
	  "fprobe.multi link: session_size: fprobe.multi links run at entry only; "
	  "session data is for fprobe.session: Invalid argument",
	},
	{ PROG_PIN, "fretprobe.multi func bpf_fentry_test1 session_size 8", false,
	  "fretprobe.multi link: session_size: fretprobe.multi links run at exit only; "
	  "session data is for fprobe.session: Invalid argument",
	},
	{ KSESS_PIN, "kprobe.session func bpf_fentry_test1 session_size 8", false,
	  "kprobe.session link: session_size: kprobe.session links have one 8-byte session cookie; "
	  "session data of a chosen size is for fprobe.session: Invalid argument",
	},
	{ PROG_PIN, "fprobe.multi func bpf_fentry_test1 saved_args 2", false,
	  "fprobe.multi link: saved_args: fprobe.multi links run at entry only; " SAVED_FOR
	  ": Invalid argument",
	},
	{ KRET_PIN, "kretprobe.multi func bpf_fentry_test1 saved_args 1", false,
	  "kretprobe.multi link: saved_args: kretprobe.multi links save no arguments; " SAVED_FOR
	  ": Invalid argument",
	},
	{ PROG_PIN, "fprobe.multi func bpf_fentry_test1", true,
	  "fprobe.multi link: 'pinned PATH' is missing: Invalid argument",
	},
	{ PROG_PIN, "fprobe.multi", false,
	  "fprobe.multi link: give a 'pattern' or a 'func' list: Invalid argument",
	},
	{ PROG_PIN, "fprobe.multi pattern 'bpf_fentry_test*' func bpf_fentry_test1", false,
	  "fprobe.multi link: give either one 'pattern' or one 'func' list: Invalid argument",
	},
	{ PROG_PIN, "fprobe.multi func bpf_fentry_test1 cookie x", false,
	  "fprobe.multi link: cookie 'x' is not a number: Invalid argument",
	},
	{ PROG_PIN, "fprobe.bogus func bpf_fentry_test1", false,
	  "multi link: unknown link type 'fprobe.bogus': Invalid argument",
	},
};

static void test_attach_errors(void)
{
	struct bpftool_attach_bpf *skel;
	char cmd[512], want[512];
	int before, status;
	size_t i;

	skel = load_and_pin();
	if (!skel)
		return;
	before = count_links();
	for (i = 0; i < ARRAY_SIZE(attach_errors); i++) {
		snprintf(cmd, sizeof(cmd), "link attach pinned %s %s%s", attach_errors[i].prog,
			 attach_errors[i].args, attach_errors[i].no_pin ? "" : " pinned " LINK_PIN);
		snprintf(want, sizeof(want), "Error: can't attach %s\n", attach_errors[i].error);
		status = run_tool("%s", cmd);
		ASSERT_EQ(status, 255, cmd);
		ASSERT_STREQ(out, want, cmd);
		ASSERT_EQ(access(LINK_PIN, F_OK), -1, "no pin left");
		ASSERT_EQ(count_links(), before, "no link left");
	}
	unpin_progs();
	bpftool_attach_bpf__destroy(skel);
}

/* The run count of the program of the link pinned at @path, or -1. */
static long long pinned_link_prog_runs(const char *path)
{
	struct bpf_link_info link = {};
	struct bpf_prog_info prog = {};
	__u32 len = sizeof(link);
	int fd, pfd;

	fd = bpf_obj_get(path);
	if (fd < 0)
		return -1;
	if (bpf_link_get_info_by_fd(fd, &link, &len)) {
		close(fd);
		return -1;
	}
	close(fd);
	pfd = bpf_prog_get_fd_by_id(link.prog_id);
	if (pfd < 0)
		return -1;
	len = sizeof(prog);
	fd = bpf_prog_get_info_by_fd(pfd, &prog, &len);
	close(pfd);
	return fd ? -1 : (long long)prog.run_cnt;
}

/* "bpftool prog load OBJ PATH autoattach" on a fprobe.session section */
static void test_autoattach(void)
{
	size_t size;
	const void *elf = bpftool_autoattach_bpf__elf_bytes(&size);

	unlink(LINK_PIN);
	if (!ASSERT_OK(create_file(AUTO_OBJ, elf, size), "write the object file"))
		return;
	if (!ASSERT_OK(write_file("/proc/sys/kernel/bpf_stats_enabled", "1"), "bpf stats on"))
		goto out;
	if (!ASSERT_EQ(run_tool("prog load %s %s autoattach", AUTO_OBJ, LINK_PIN), 0,
		       "bpftool prog load autoattach")) {
		test__log("%s", out);
		goto out;
	}
	if (ASSERT_EQ(run_tool("link show pinned %s", LINK_PIN), 0, "bpftool link show pinned"))
		ASSERT_HAS(out, "\n\tfprobe.session  func_cnt 1  session_size 8  saved_args 6  ",
			   "the section's function and defaults");
	ASSERT_OK(trigger_fentry_tests(), "trigger");
	ASSERT_EQ(pinned_link_prog_runs(LINK_PIN), 2, "one entry and one exit run");
out:
	write_file("/proc/sys/kernel/bpf_stats_enabled", "0");
	unlink(LINK_PIN);
	unlink(AUTO_OBJ);
}

void test_bpftool_link(void)
{
	if (test__start_subtest("fprobe_session"))
		test_fprobe_session();
	if (test__start_subtest("kprobe_multi_pattern"))
		test_kprobe_multi_pattern();
	if (test__start_subtest("missed_causes"))
		test_missed_causes();
	if (test__start_subtest("missed_detached"))
		test_missed_detached();
	if (test__start_subtest("attach_session"))
		test_attach_session();
	if (test__start_subtest("attach_pattern"))
		test_attach_pattern();
	if (test__start_subtest("attach_kprobe_session"))
		test_attach_kprobe_session();
	if (test__start_subtest("attach_errors"))
		test_attach_errors();
	if (test__start_subtest("autoattach"))
		test_autoattach();
}
