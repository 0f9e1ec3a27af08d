// SPDX-License-Identifier: GPL-2.0
/*
 * fptrace semantics that only a kernel shows: per-CPU maps (histograms
 * without keys too) cleared by delete(), values named from kallsyms, the
 * session data an entry probe leaves when it calls exit(), the ring
 * buffer's lost records, a verifier log bigger than its buffer, the
 * cookie of each function, unsigned division, and min/max/avg over values
 * that differ.
 *
 * Workloads as in fptrace.c: busybox dd, and the test module's "call N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test_progs.h"
#include "helpers.h"

#define FPTRACE	"/bin/fptrace"
/* fptrace's -c running dd, reading N blocks of /dev/zero */
#define DD_C(n)	"-c 'dd if=/dev/zero bs=512 count=" #n " of=/dev/null' 2>/dev/null"
#define RUN	"/sys/kernel/debug/fpm_test/run"
#define WAIT_LINK	"until /bin/bpftool link show 2>/dev/null | grep -q fprobe; do sleep 0.1; done; "

static char out[65536];

static int run(const char *cmd)
{
	int status = run_cmd(cmd, out, sizeof(out));

	if (status)
		test__log("%s: exit status %d:\n%s", cmd, status, out);
	return status;
}

/* delete() of a count clears it on every CPU: nothing is left to print. */
static void test_delete_all_cpus(void)
{
	if (!ASSERT_OK(run("taskset -c 0 " FPTRACE " -e 'fprobe:ksys_read /comm == \"dd\"/ { "
			  "@c = count(); } interval:s:6 { delete(@c); exit(); }' & " WAIT_LINK
			  "taskset -c 0 dd if=/dev/zero bs=1 count=3 of=/dev/null 2>/dev/null; "
			  "taskset -c 1 dd if=/dev/zero bs=1 count=5 of=/dev/null 2>/dev/null; "
			  "wait"),
		       "fptrace delete runs"))
		return;
	ASSERT_STREQ(out, "Attaching 2 probes...\n\n\n", "no count left on any CPU");
}

/*
 * An aggregation without keys but sum() is a per-CPU array (a hist's or
 * lhist's of buckets), which BPF cannot empty on every CPU: its delete()
 * has the runtime zero them all, and zero values print nothing, as a
 * count or a max never set does.
 */
static void test_delete_hist_all_cpus(void)
{
	if (!ASSERT_OK(run("taskset -c 0 " FPTRACE " -e 'fprobe:ksys_read /comm == \"dd\"/ { "
			  "@h = hist(arg2); @l = lhist(arg2, 0, 1024, 256); @c = count(); "
			  "if (arg2 == 12345) { @n = count(); @m = max(arg2); "
			  "} } interval:s:6 { delete(@h); delete(@l); "
			  "delete(@c); exit(); }' & " WAIT_LINK
			  "taskset -c 0 dd if=/dev/zero bs=1 count=3 of=/dev/null 2>/dev/null; "
			  "taskset -c 1 dd if=/dev/zero bs=512 count=5 of=/dev/null 2>/dev/null; "
			  "wait"),
		       "fptrace delete of histograms runs"))
		return;
	ASSERT_STREQ(out, "Attaching 2 probes...\n\n\n", "no bucket left on any CPU");
}

/* func, probe and ksym() values print as names; a map never set prints nothing. */
static void test_named_values(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:ksys_read /comm == \"dd\"/ { "
			  "@f = func; @p = probe; @k[1] = ksym(arg0 * 0 + 1); "
			  "if (pid == 1) { @never = 1 } }' " DD_C(1)),
		       "fptrace named values run"))
		return;
	/* ksym() of an address no symbol holds prints it in hex */
	ASSERT_STREQ(out, "Attaching 1 probe...\n\n\n@f: ksys_read\n@k[1]: 0x1\n"
		     "@p: fprobe:ksys_read\n", "names, and no @never");
}

/*
 * exit() in an entry probe still leaves the timestamp of latency: with
 * none, latency would be nsecs itself, the time since boot (seconds),
 * where a call of the test module takes far less than one.
 */
static void test_exit_in_entry(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:fpm_test_recurse { $d = arg0 + 10; "
			  "if (arg0 == 0) { exit() } } fretprobe:fpm_test_recurse { "
			  "@n[$d] = count(); if (latency > 1000000000) { @no_ts = count() } }' 2>&1 & "
			  WAIT_LINK "echo \"call 1\" > " RUN "; wait; cat " RUN),
		       "fptrace exit() at entry runs"))
		return;
	ASSERT_STREQ(out, "Attaching 2 probes...\n\n\n@n[10]: 1\n@n[11]: 1\nret=1\n",
		     "both calls carried $d and the timestamp");
}

/* min, max, avg and stats of 100, 100 and 50: all different. */
static void test_minmax_distinct(void)
{
	if (!ASSERT_OK(run("head -c 250 /dev/zero > /tmp/fpt250; " FPTRACE
			  " -e 'fretprobe:ksys_read /comm == \"dd\" && retval > 0/ { "
			  "@mn = min(retval); @mx = max(retval); @a = avg(retval); @s = stats(retval); "
			  "}' -c 'dd if=/tmp/fpt250 bs=100 of=/dev/null' 2>/dev/null"),
		       "fptrace min/max runs"))
		return;
	ASSERT_HAS(out, "@a: 83\n", "avg of 100, 100, 50");
	ASSERT_HAS(out, "@mn: 50\n", "min 50");
	ASSERT_HAS(out, "@mx: 100\n", "max 100");
	ASSERT_HAS(out, "@s: count 3, average 83, total 250\n", "stats");
}

/*
 * A one-page ring buffer that BEGIN fills before anything reads it: what
 * does not fit is counted, none silently lost. An interval probe, run when
 * the buffer has been read, ends the run.
 */
static void test_lost_events(void)
{
	static char script[8192] = "BEGIN { ";
	const char *p;
	int printed = 0;
	long lost = -1;

	for (int i = 0; i < 100; i++)
		strcat(script, "printf(\"%s\\n\", \"0123456789abcdef0123456789abcdef\"); ");
	strcat(script, "} interval:ms:100 { exit() }\n");
	if (!ASSERT_OK(create_file("/tmp/fpt_lost.bt", script, strlen(script)), "script"))
		return;
	if (!ASSERT_OK(run("FPTRACE_RB_PAGES=1 " FPTRACE " /tmp/fpt_lost.bt 2>&1"),
		       "fptrace with a one-page ring buffer runs"))
		return;
	for (p = out; (p = strstr(p, "0123456789abcdef0123456789abcdef\n")); p++)
		printed++;
	p = strstr(out, "Lost ");
	if (ASSERT_TRUE(p, "the loss is reported"))
		lost = strtol(p + 5, NULL, 10);
	ASSERT_HAS(out, " events\n", "as bpftrace words it");
	ASSERT_GE(lost, 1, "some records did not fit");
	ASSERT_EQ(printed + lost, 100, "every record printed or counted");
}

/*
 * -v with a verifier log bigger than its first buffer (4 MiB). At level 1
 * the kernel throws away the log of a program that loads, but still fails
 * the load with -ENOSPC when what it wrote on the way did not fit: 36000
 * statements make 108053 instructions verified in one path, between 5 and
 * 8 MiB of log. The load must go on in a bigger buffer, the program run
 * (it prints its count) and the log end with the verifier's summary.
 */
#define BIG_STMTS	36000
#define BIG_STMTS_S	"36000"

static void test_verbose_log(void)
{
	static char err[65536];
	const char *p;
	long insns;
	int status;

	status = run("rm -f /tmp/fpt_big.err; { echo 'BEGIN { $x = 0;'; "
		     "yes '$x = $x + 1;' | head -n " BIG_STMTS_S "; "
		     "echo 'printf(\"%d\\n\", $x); exit() }'; } > /tmp/fpt_big.bt && "
		     FPTRACE " -v /tmp/fpt_big.bt 2>/tmp/fpt_big.err");
	if (read_file("/tmp/fpt_big.err", err, sizeof(err)) < 0)
		err[0] = 0;
	if (!ASSERT_OK(status, "fptrace -v with a log over 4 MiB runs")) {
		test__log("its stderr:\n%s", err);
		return;
	}
	ASSERT_STREQ(out, "Attaching 1 probe...\n" BIG_STMTS_S "\n\n\n",
		     "the program ran every statement");
	ASSERT_HAS(err, "fptrace: fpt_begin0 loaded; the verifier's log:\n", "the log shown");
	p = strstr(err, "\nprocessed ");
	if (!ASSERT_TRUE(p, "the verifier's summary"))
		return;
	insns = strtol(p + 11, NULL, 10);
	ASSERT_GE(insns, 3 * BIG_STMTS, "every statement verified");
	ASSERT_HAS(p, " insns (limit 1000000) ", "the summary's words");
	p = strchr(p + 1, '\n');
	ASSERT_TRUE(p && !p[1], "the summary ends the log");
}

/* cookie: each function's index in the probe's sorted function list. */
static void test_cookie(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:ksys_write,fprobe:ksys_read /comm == \"dd\"/ { "
			  "@[func, cookie] = count(); }' " DD_C(2)),
		       "fptrace cookie runs"))
		return;
	/* dd writes its record counts too: only the reads' count is known */
	ASSERT_HAS(out, "\n@[ksys_read, 0]: 2\n", "ksys_read's cookie is 0");
	ASSERT_HAS(out, "\n@[ksys_write, 1]: ", "ksys_write's cookie is 1");
}

/* / % >> are unsigned, as in bpftrace. */
static void test_unsigned_div(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'BEGIN { $a = -10; "
			  "printf(\"%d %d %d\\n\", $a / 3, $a % 3, $a >> 60); exit() }'"),
		       "fptrace division runs"))
		return;
	ASSERT_STREQ(out, "Attaching 1 probe...\n6148914691236517202 0 15\n\n\n",
		     "bpftrace's udiv, urem and lshr");
}

/*
 * Members of each kind, read from the test module's "struct 3": three
 * calls of fpm_test_struct() on small -3 (s8), mid -300 (s16), big
 * 4000000000 (u32), name "fpm" (char[8]) with other bytes after its NUL
 * at each call, in.tag 77 (an embedded struct) and peer->id 1234567 (a
 * pointed-to struct). The narrow ones are sign-extended, and the name is
 * read up to its NUL: one key, not three.
 */
static void test_struct_members(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:fpm_test_struct { $r = args.r; "
			  "@m[$r->small, $r->mid, $r->big, $r->in.tag, $r->peer->id] = count(); "
			  "@n[$r->name] = count(); }' & P=$!; " WAIT_LINK
			  "echo \"struct 3\" > " RUN "; kill -INT $P; wait $P"),
		       "fptrace on fpm_test_struct runs"))
		return;
	ASSERT_STREQ(out, "Attaching 1 probe...\n\n\n@m[-3, -300, 4000000000, 77, 1234567]: 3\n"
		     "@n[fpm]: 3\n", "each member's value, and one key for the name");
}

/* The bars of counts 1, 2 and 4 when the largest is 4 */
#define BAR1	"|@@@@@@@@@@@@@                                       |\n"
#define BAR2	"|@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
#define BAR4	"|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"

/*
 * hist(x, 2) splits each power of two in four buckets: depths 20 to 0 of
 * "call 20" fill 0 to 7 one each, [8, 16) two per bucket, [16, 20) four
 * and [20, 24) one.
 */
static void test_hist_bits(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:fpm_test_recurse { @h = hist(arg0, 2); }' & P=$!; "
			  WAIT_LINK "echo \"call 20\" > " RUN "; kill -INT $P; wait $P"),
		       "fptrace hist(arg0, 2) runs"))
		return;
	ASSERT_STREQ(out, "Attaching 1 probe...\n\n\n@h:\x20\n"
		     "[0]                    1 " BAR1
		     "[1]                    1 " BAR1
		     "[2]                    1 " BAR1
		     "[3]                    1 " BAR1
		     "[4]                    1 " BAR1
		     "[5]                    1 " BAR1
		     "[6]                    1 " BAR1
		     "[7]                    1 " BAR1
		     "[8, 10)                2 " BAR2
		     "[10, 12)               2 " BAR2
		     "[12, 14)               2 " BAR2
		     "[14, 16)               2 " BAR2
		     "[16, 20)               4 " BAR4
		     "[20, 24)               1 " BAR1 "\n",
		     "the BPF side's buckets of hist(x, 2)");
}

void test_fptrace_semantics(void)
{
	if (access(FPTRACE, X_OK)) {
		test__skip(FPTRACE " is not installed");
		return;
	}
	if (test__start_subtest("delete_all_cpus"))
		test_delete_all_cpus();
	if (test__start_subtest("delete_hist_all_cpus"))
		test_delete_hist_all_cpus();
	if (test__start_subtest("named_values"))
		test_named_values();
	if (test__start_subtest("exit_in_entry"))
		test_exit_in_entry();
	if (test__start_subtest("minmax_distinct"))
		test_minmax_distinct();
	if (test__start_subtest("lost_events"))
		test_lost_events();
	if (test__start_subtest("verbose_log"))
		test_verbose_log();
	if (test__start_subtest("cookie"))
		test_cookie();
	if (test__start_subtest("unsigned_div"))
		test_unsigned_div();
	if (test__start_subtest("struct_members"))
		test_struct_members();
	if (test__start_subtest("hist_bits"))
		test_hist_bits();
}
