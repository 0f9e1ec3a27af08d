// SPDX-License-Identifier: GPL-2.0
/*
 * fptrace one-liners on bpf_fentry_test1..8, whose arguments and return
 * values are fixed (progs/fentry_test_values.h): the tool runs in the
 * background while the test calls each function twice (BPF_PROG_TEST_RUN
 * of the trigger program), then stops it with SIGINT and compares what it
 * printed, byte for byte: counts per function, arguments at entry and at
 * exit (saved at entry, also when the functions' argument types differ),
 * return values, hist and lhist buckets.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test_progs.h"
#include "helpers.h"

#define FPTRACE	"/bin/fptrace"
#define OUT	"/tmp/fptrace_fentry.out"
#define PIDFILE	"/tmp/fptrace_fentry.pid"
/* The programs, whole: each on one line of its own */
#define EXIT_2_3	"fretprobe:bpf_fentry_test2,fretprobe:bpf_fentry_test3 "
#define EXIT_ARGS	"{ @[func, arg0, arg1, retval] = count(); }"
#define ENTRY_6		"fprobe:bpf_fentry_test6 { @entry[arg0, arg2, arg3, arg5] = count(); "
#define ENTRY_6_SAVE	"$a = arg0; } "
#define EXIT_6		"fretprobe:bpf_fentry_test6 { @exit[$a, args.f, retval] = count(); }"
#define BUCKETS		" /retval > 0/ { @h = hist(retval); @l = lhist(retval, 0, 40, 10); }"

/* bpftrace's map header ends in a space */
#define SP		"\x20"
#define BAR26		"@@@@@@@@@@@@@@@@@@@@@@@@@@"
#define BAR26_BLANK	"                          "

static char out[8192];

/* Whether process @pid is gone, waiting up to 10 s */
static bool gone(int pid)
{
	char path[32];
	int i;

	snprintf(path, sizeof(path), "/proc/%d", pid);
	for (i = 0; i < 100; i++) {
		if (access(path, F_OK))
			return true;
		usleep(100000);
	}
	return false;
}

/* @probe (fprobe: or fretprobe:) on each of bpf_fentry_test1..8, then @body */
static const char *on_all(const char *probe, const char *body)
{
	static char prog[1024];
	int i, n = 0;

	for (i = 1; i <= 8; i++)
		n += snprintf(prog + n, sizeof(prog) - n, "%s%sbpf_fentry_test%d",
			      i > 1 ? "," : "", probe, i);
	snprintf(prog + n, sizeof(prog) - n, "%s", body);
	return prog;
}

/* Run fptrace on @prog while the functions are called twice; its output */
static bool trace(const char *prog)
{
	char cmd[2048], pid[16];
	int p;

	snprintf(cmd, sizeof(cmd), FPTRACE " -e '%s' >" OUT " 2>&1 & echo $! >" PIDFILE, prog);
	if (!ASSERT_EQ(system(cmd), 0, "fptrace started") ||
	    !ASSERT_EQ(run_cmd("until /bin/bpftool link show | grep -q fprobe; "
			       "do sleep 0.1; done", out, sizeof(out)), 0, "its link attached"))
		return false;
	ASSERT_OK(trigger_fentry_tests(), "first calls");
	ASSERT_OK(trigger_fentry_tests(), "second calls");
	if (!ASSERT_GE(read_file(PIDFILE, pid, sizeof(pid)), 2, "fptrace's pid"))
		return false;
	p = atoi(pid);
	ASSERT_OK(kill(p, SIGINT), "SIGINT");
	if (!ASSERT_TRUE(gone(p), "fptrace ended"))
		return false;
	return ASSERT_GE(read_file(OUT, out, sizeof(out)), 1, "its output");
}

static void test_count_per_function(void)
{
	if (!trace(on_all("fprobe:", " { @[func] = count(); }")))
		return;
	ASSERT_STREQ(out, "Attaching 8 probes...\n\n\n"
		     "@[bpf_fentry_test1]: 2\n@[bpf_fentry_test2]: 2\n"
		     "@[bpf_fentry_test3]: 2\n@[bpf_fentry_test4]: 2\n"
		     "@[bpf_fentry_test5]: 2\n@[bpf_fentry_test6]: 2\n"
		     "@[bpf_fentry_test7]: 2\n@[bpf_fentry_test8]: 2\n",
		     "two calls of each");
}

static void test_args_at_exit(void)
{
	if (!trace(EXIT_2_3 EXIT_ARGS))
		return;
	ASSERT_STREQ(out, "Attaching 2 probes...\n\n\n"
		     "@[bpf_fentry_test2, 2, 3, 5]: 2\n"
		     "@[bpf_fentry_test3, 4, 5, 15]: 2\n",
		     "arguments saved at entry, although their types differ");
}

static void test_session_args(void)
{
	if (!trace(ENTRY_6 ENTRY_6_SAVE EXIT_6))
		return;
	/* one session link on one function: two probes, as bpftrace counts */
	ASSERT_STREQ(out, "Attaching 2 probes...\n\n\n"
		     "@entry[16, 18, 19, 21]: 2\n"
		     "@exit[16, 21, 111]: 2\n",
		     "arguments at entry, and at exit from the session");
}

static void test_hist_lhist(void)
{
	if (!trace(on_all("fretprobe:", BUCKETS)))
		return;
	/* 2, 5, 15, 34, 65 and 111, twice each; 7 and 8 return 0 */
	ASSERT_STREQ(out, "Attaching 8 probes...\n\n\n"
		     "@h:" SP "\n"
		     "[2, 4)                 2 |" BAR26 "                          |\n"
		     "[4, 8)                 2 |" BAR26 "                          |\n"
		     "[8, 16)                2 |" BAR26 "                          |\n"
		     "[16, 32)               0 |" BAR26_BLANK "                          |\n"
		     "[32, 64)               2 |" BAR26 "                          |\n"
		     "[64, 128)              4 |" BAR26 BAR26 "|\n"
		     "\n"
		     "@l:" SP "\n"
		     "[0, 10)                4 |" BAR26 BAR26 "|\n"
		     "[10, 20)               2 |" BAR26 "                          |\n"
		     "[20, 30)               0 |" BAR26_BLANK "                          |\n"
		     "[30, 40)               2 |" BAR26 "                          |\n"
		     "[40, ...)              4 |" BAR26 BAR26 "|\n"
		     "\n",
		     "the power-of-two and the linear buckets");
}

static void test_sum_by_args(void)
{
	if (!trace("fretprobe:bpf_fentry_test3 { @[args.a, args.b, args.c] = sum(retval); }"))
		return;
	ASSERT_STREQ(out, "Attaching 1 probe...\n\n\n@[4, 5, 6]: 30\n", "the sum by arguments");
}

/*
 * Members of struct bpf_fentry_test_t { struct bpf_fentry_test_t *a; }:
 * bpf_fentry_test7 gets NULL, whose read faults and reads 0, and test8 a
 * zeroed struct on the caller's stack, whose a is NULL; at exit the saved
 * argument, typed the same, and a cast of arg0 read them too. The member
 * is a pointer, typed as one: its own ->a is read as well (from NULL: 0).
 */
static void test_struct_member(void)
{
	if (!trace("fprobe:bpf_fentry_test7,fprobe:bpf_fentry_test8 { "
		   "@in[func, args.arg->a, args.arg->a->a] = count(); "
		   "} fretprobe:bpf_fentry_test8 { "
		   "@out[retval, ((struct bpf_fentry_test_t *)arg0)->a] = count(); }"))
		return;
	ASSERT_STREQ(out, "Attaching 3 probes...\n\n\n"
		     "@in[bpf_fentry_test7, 0, 0]: 2\n@in[bpf_fentry_test8, 0, 0]: 2\n"
		     "@out[0, 0]: 2\n",
		     "NULL members, read through the argument and through a cast");
}

void test_fptrace_fentry(void)
{
	if (test__start_subtest("count_per_function"))
		test_count_per_function();
	if (test__start_subtest("args_at_exit"))
		test_args_at_exit();
	if (test__start_subtest("session_args"))
		test_session_args();
	if (test__start_subtest("hist_lhist"))
		test_hist_lhist();
	if (test__start_subtest("sum_by_args"))
		test_sum_by_args();
	if (test__start_subtest("struct_member"))
		test_struct_member();
}
