// SPDX-License-Identifier: GPL-2.0
/*
 * fptrace, the bpftrace-style tool of tools/bpf/fptrace, run as
 * /bin/fptrace on one-liners: each subtest runs one shell command and
 * compares what it prints, byte for byte, with what bpftrace prints for
 * the same program and workload. The expected strings are those observed
 * in the guest when the tool was written; where a value depends on the run
 * (a pid, latencies, the number of calls that fit on the shadow stack) the
 * check reads it from the output and compares it with its other source.
 *
 * Workloads are busybox dd (its reads of /dev/zero, its opens), and the
 * test module's "call N", which runs fpm_test_recurse(N): N + 1 nested
 * calls with depths N down to 0; "call 400" does not fit on the shadow
 * stack, and the calls that do not are the link's missed_stack; "sleep N"
 * calls fpm_test_sleep(N) on CPU 0, which sleeps 20 ms, wakes up on CPU 1
 * and returns N + 1.
 *
 * Stderr is dropped where dd prints its record counts; fptrace writes its
 * diagnostics and missed counts there, and the subtests that check those
 * keep it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "test_progs.h"
#include "helpers.h"

#define FPTRACE	"/bin/fptrace"
#define RUN	"/sys/kernel/debug/fpm_test/run"
/*
 * Wait until the tool's link is attached: "Attaching" comes before it.
 * Runs that an interval probe ends give the workload six seconds after
 * that: the guest runs slower when the host is busy.
 */
#define WAIT_LINK	"until /bin/bpftool link show 2>/dev/null | grep -q fprobe; do sleep 0.1; done; "
#define BAR52	"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@"

static char out[16384];

/* Run cmd with sh; its output in out. */
static int run(const char *cmd)
{
	int status = run_cmd(cmd, out, sizeof(out));

	if (status)
		test__log("%s: exit status %d:\n%s", cmd, status, out);
	return status;
}

/* (a) count by comm, ended by an interval probe's exit(). */
static void test_count_by_comm(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:ksys_read /comm == \"dd\"/ { "
			  "@[comm] = count(); "
			  "} interval:s:6 { exit(); }' & " WAIT_LINK
			  "dd if=/dev/zero bs=512 count=10 of=/dev/null 2>/dev/null; wait"),
		      "fptrace count by comm runs"))
		return;
	ASSERT_STREQ(out, "Attaching 2 probes...\n\n\n@[dd]: 10\n", "ten reads by dd");
}

/* (b) hist(retval) of a fretprobe under -c. */
static void test_hist_retval(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'fretprobe:ksys_read /comm == \"dd\"/ { "
			  "@bytes = hist(retval); "
			  "}' -c 'dd if=/dev/zero bs=512 count=10 of=/dev/null' 2>/dev/null"),
		      "fptrace hist -c dd runs"))
		return;
	/* "@bytes:\x20\n": bpftrace ends a histogram's header line with a space */
	ASSERT_STREQ(out, "Attaching 1 probe...\n\n\n@bytes:\x20\n"
		     "[512, 1K)             10 |" BAR52 "|\n\n",
		     "ten reads of 512 bytes in one bucket");
}

/* The total count of a hist printed after its header line "@lat: ". */
static long hist_total(const char *s)
{
	long total = 0, n;
	char label[32];

	while ((s = strchr(s, '\n')) && sscanf(++s, "%31[^ ] %*[^ ] %ld |", label, &n) == 2)
		total += n;
	return total;
}

/* (c) a session: an entry variable read at exit, and latency. */
static void test_session(void)
{
	const char *want = "Attaching 3 probes...\nret=3\n\n\n"
		"@[0]: 1\n@[1]: 1\n@[2]: 1\n@[3]: 1\n@lat:\x20\n";

	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:fpm_test_recurse { $t = arg0; "
			  "} fretprobe:fpm_test_recurse { @[$t] = count(); @lat = hist(latency); "
			  "} interval:s:6 { exit(); }' & " WAIT_LINK "echo \"call 3\" > " RUN "; "
			  "cat " RUN "; wait"),
		      "fptrace session runs"))
		return;
	if (!ASSERT_TRUE(!strncmp(out, want, strlen(want)), "one call of each depth"))
		test__log("got:\n%s", out);
	ASSERT_EQ(hist_total(strstr(out, "@lat:\x20\n")), 4, "four latencies");
}

/* (d) printf of comm and pid: one line a read, all with dd's pid. */
static void test_printf(void)
{
	int pid[3] = { 0 }, n;

	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:ksys_read /comm == \"dd\"/ { "
			  "printf(\"%s %d\\n\", comm, pid); "
			  "}' -c 'dd if=/dev/zero bs=512 count=3 of=/dev/null' 2>/dev/null"),
		      "fptrace printf runs"))
		return;
	n = sscanf(out, "Attaching 1 probe...\ndd %d\ndd %d\ndd %d\n", &pid[0], &pid[1], &pid[2]);
	ASSERT_EQ(n, 3, "three printf lines");
	ASSERT_GE(pid[0], 2, "dd's pid");
	ASSERT_TRUE(pid[0] == pid[1] && pid[1] == pid[2], "one pid");
	ASSERT_TRUE(strstr(out, "\n\n\n") && !strcmp(strstr(out, "\n\n\n"), "\n\n\n"),
		    "nothing but the blank lines after the events");
}

/* (e) str() of a user pointer argument by name. */
static void test_str_args(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:do_sys_openat2 /comm == \"dd\"/ { "
			  "printf(\"%s\\n\", str(args.filename)); "
			  "}' -c 'dd if=/proc/version of=/dev/null' 2>/dev/null"),
		      "fptrace str(args.filename) runs"))
		return;
	ASSERT_STREQ(out, "Attaching 1 probe...\n/proc/version\n/dev/null\n\n\n", "dd's two opens");
}

/* (f) lhist, avg, stats, min, max and sum, printed in the order of names. */
static void test_aggregations(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'fretprobe:ksys_read /comm == \"dd\"/ { "
			  "@l = lhist(retval, 0, 1024, 256); @a = avg(retval); @s = stats(retval); "
			  "@mn = min(retval); @mx = max(retval); @sum = sum(retval); "
			  "}' -c 'dd if=/dev/zero bs=512 count=10 of=/dev/null' 2>/dev/null"),
		      "fptrace aggregations run"))
		return;
	ASSERT_STREQ(out, "Attaching 1 probe...\n\n\n"
		     "@a: 512\n\n"
		     "@l:\x20\n[512, 768)            10 |" BAR52 "|\n\n"
		     "@mn: 512\n@mx: 512\n"
		     "@s: count 10, average 512, total 5120\n\n"
		     "@sum: 5120\n",
		     "every aggregation of ten 512-byte reads");
}

/* (g) a verifier rejection reported at the statement that caused it. */
static void test_reject(void)
{
	int status = run_cmd("printf 'fprobe:ksys_read\\n{\\n  @reads[comm] = count();\\n"
			     "  @bytes = hist(arg2);\\n}\\n' > /tmp/fptrace_reject.bt; "
			     "FPTRACE_TEST_REJECT=4 " FPTRACE " /tmp/fptrace_reject.bt 2>&1",
			     out, sizeof(out));

	ASSERT_EQ(status, 1, "exit status 1");
	ASSERT_HAS(out, "fptrace: the verifier's log of fpt_link0 ends with:\n",
		   "the log's tail is shown");
	/* 7.x follows the verifier's line with a report, which ends the log */
	if (kernel_major() >= 7)
		ASSERT_HAS(out, "\nSuggestion:\n  Initialize R9 on every path",
			   "the verifier's report");
	else
		ASSERT_HAS(out, "\nR9 !read_ok\n", "the verifier's reason");
	ASSERT_HAS(out,
		   "/tmp/fptrace_reject.bt:4:3-22: ERROR: the kernel refused fpt_link0 at instruction 38: R9 !read_ok\n"
		   "  @bytes = hist(arg2);\n"
		   "  ^~~~~~~~~~~~~~~~~~~\n",
		   "the error points at line 4");
}

/* (h) missed calls: fptrace's count on stderr equals bpftool's. */
static void test_missed(void)
{
	unsigned long tool = 0, tool_stack = 0, bt = 0, bt_stack = 0, n = 0;
	const char *p;
	int got;

	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:fpm_test_recurse { $d = arg0; "
			  "} fretprobe:fpm_test_recurse { @n = count(); "
			  "} interval:s:6 { exit(); }' 2>&1 & "
			  WAIT_LINK "echo \"call 400\" > " RUN "; cat " RUN "; "
			  "/bin/bpftool link show; wait"),
		      "fptrace with call 400 runs"))
		return;
	p = strstr(out, "fprobe.session  func_cnt 1  missed ");
	if (!ASSERT_TRUE(p, "bpftool shows the link's misses"))
		return;
	got = sscanf(p, "fprobe.session  func_cnt 1  missed %lu  missed_stack %lu", &bt, &bt_stack);
	ASSERT_EQ(got, 2, "bpftool's missed counts read");
	p = strstr(out, "fptrace: fprobe:fpm_test_recurse, fretprobe:fpm_test_recurse: missed ");
	if (!ASSERT_TRUE(p, "fptrace prints the link's misses"))
		return;
	got = sscanf(p,
		     "fptrace: fprobe:fpm_test_recurse, fretprobe:fpm_test_recurse: missed %lu (stack %lu, recursion 0)\n",
		     &tool, &tool_stack);
	ASSERT_EQ(got, 2, "fptrace's missed counts read");
	ASSERT_HAS(out, "ret=400\n", "the call returned");
	ASSERT_GE(bt_stack, 1, "the shadow stack overflowed");
	ASSERT_EQ(tool, bt, "fptrace's missed is bpftool's");
	ASSERT_EQ(tool_stack, bt_stack, "fptrace's missed_stack is bpftool's");
	p = strstr(out, "\n@n: ");
	if (ASSERT_TRUE(p, "@n printed"))
		n = strtoul(p + 5, NULL, 10);
	ASSERT_EQ(n + tool_stack, 401, "every call ran or was missed");
}

/* -f json: events, hist and map records, one a line. */
static void test_json(void)
{
	if (!ASSERT_OK(run(FPTRACE " -f json -e 'fretprobe:ksys_read /comm == \"dd\"/ { "
			  "@bytes = hist(retval); @c[comm] = count(); printf(\"r %d\\n\", retval); "
			  "}' -c 'dd if=/dev/zero bs=512 count=2 of=/dev/null' 2>/dev/null"),
		      "fptrace -f json runs"))
		return;
	ASSERT_STREQ(out, "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}\n"
		     "{\"type\": \"printf\", \"data\": \"r 512\\n\"}\n"
		     "{\"type\": \"printf\", \"data\": \"r 512\\n\"}\n"
		     "{\"type\": \"hist\", \"data\": {\"@bytes\": [{\"min\": 512, \"max\": 1023, \"count\": 2}]}}\n"
		     "{\"type\": \"map\", \"data\": {\"@c\": {\"dd\": 2}}}\n",
		     "the JSON records");
}

/* A dd whose four one-byte reads come in the 4 seconds after it starts */
#define SLOW_DD	"(sleep 3; echo a; sleep 1; echo b) | dd bs=1 of=/dev/null 2>/dev/null"

/* -p: only the process's reads count, and the run ends with it. */
static void test_pid(void)
{
	char want[128];
	int pid = 0;
	const char *p;

	if (!ASSERT_OK(run(SLOW_DD " & P=$!; " SLOW_DD " & "
			  FPTRACE " -p $P -e 'fprobe:ksys_read { @[comm, pid] = count(); }'; "
			  "echo \"P=$P\""),
		      "fptrace -p runs"))
		return;
	p = strstr(out, "P=");
	if (!ASSERT_TRUE(p, "the pid is shown"))
		return;
	pid = atoi(p + 2);
	snprintf(want, sizeof(want), "Attaching 1 probe...\n\n\n@[dd, %d]: 4\nP=%d\n", pid, pid);
	ASSERT_STREQ(out, want, "four reads of the one dd");
}

/* -l GLOB: the functions as fprobe probes, a module's too (see fptrace_cli). */
static void test_list(void)
{
	if (!ASSERT_OK(run(FPTRACE " -l 'vfs_rea*'; " FPTRACE " -l 'fpm_test_rec*'"),
		       "fptrace -l runs"))
		return;
	ASSERT_STREQ(out, "fprobe:vfs_read\n"
		     "fprobe:vfs_readlink\n"
		     "fprobe:vfs_readv\n"
		     "fprobe:fpm_test_recurse\n",
		     "the listing");
}

/* -d: the AST and the instructions of each program, and nothing is loaded. */
static void test_dump(void)
{
	if (!ASSERT_OK(run(FPTRACE " -d -e 'BEGIN { exit() }' 2>&1; "
			   "/bin/bpftool prog show | grep -c fpt_; true"),
		       "fptrace -d runs"))
		return;
	ASSERT_STREQ(out, "(probe (BEGIN) (block (exit)))\n"
		     "\n"
		     "fpt_begin0: 25 insns, 24 bytes of stack\n"
		     "   0: (7a) *(u64 *)(r10 -8) = 0\n"
		     "   1: (bf) r6 = r1\n"
		     "   2: (62) *(u32 *)(r10 -16) = 0\n"
		     "   3: (62) *(u32 *)(r10 -12) = 0\n"
		     "   4: (18) r1 = map[id:.events]\n"
		     "   6: (bf) r2 = r10\n"
		     "   7: (07) r2 += -16\n"
		     "   8: (b7) r3 = 8\n"
		     "   9: (b7) r4 = 0\n"
		     "  10: (85) call bpf_ringbuf_output#130\n"
		     "  11: (15) if r0 == 0x0 goto pc+10\n"
		     "  12: (62) *(u32 *)(r10 -24) = 0\n"
		     "  13: (18) r1 = map[id:.lost]\n"
		     "  15: (bf) r2 = r10\n"
		     "  16: (07) r2 += -24\n"
		     "  17: (85) call bpf_map_lookup_elem#1\n"
		     "  18: (15) if r0 == 0x0 goto pc+3\n"
		     "  19: (79) r1 = *(u64 *)(r0 +0)\n"
		     "  20: (07) r1 += 1\n"
		     "  21: (7b) *(u64 *)(r0 +0) = r1\n"
		     "  22: (05) goto pc+0\n"
		     "  23: (b7) r0 = 0\n"
		     "  24: (95) exit\n"
		     "0\n",
		     "the dump, and no program loaded");
}

/* --help on stdout with status 0; an unknown option, usage on stderr and 1. */
static void test_help(void)
{
	if (!ASSERT_OK(run(FPTRACE " --help | head -2; " FPTRACE " -x 2>&1 >/dev/null | head -2; "
			   FPTRACE " -x >/dev/null 2>&1; echo \"status $?\""),
		       "fptrace --help runs"))
		return;
	ASSERT_STREQ(out, "usage: fptrace [options] (-e PROGRAM | FILE | -)\n"
		     "       fptrace -l [-v] [SPEC]\n"
		     "/bin/fptrace: invalid option -- 'x'\n"
		     "usage: fptrace [options] (-e PROGRAM | FILE | -)\n"
		     "status 1\n",
		     "the help, and the refusal of -x");
}

/* The calls of "call 5": depths 5 down to 0. */
#define REC_DEPTH	5

/*
 * A session's events in order: every entry (innermost last), then every
 * exit (innermost first), each exit with the depth saved at entry, the
 * argument saved for the exit, and its latency, which grows from the
 * innermost call outwards: each call's time holds its callee's.
 */
static void test_session_recursion(void)
{
	unsigned long long latency, last = 0;
	int i, depth, var, arg, n;
	const char *p;

	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:fpm_test_recurse { $d = arg0; "
			  "printf(\"entry %d\\n\", arg0); } fretprobe:fpm_test_recurse { "
			  "printf(\"exit %d %d %u\\n\", $d, arg0, latency); }' 2>&1 & P=$!; "
			  WAIT_LINK "echo \"call 5\" > " RUN "; R=$(cat " RUN "); "
			  "kill -INT $P; wait $P; S=$?; echo \"$R\"; echo \"status $S\""),
		      "fptrace session on the recursion runs"))
		return;
	p = out;
	if (!ASSERT_TRUE(!strncmp(p, "Attaching 2 probes...\n", 22), "two probes attached")) {
		test__log("got:\n%s", out);
		return;
	}
	p += 22;
	for (i = 0; i <= REC_DEPTH; i++) {
		n = -1;
		if (sscanf(p, "entry %d\n%n", &depth, &n) != 1 || n < 0 ||
		    !ASSERT_EQ(depth, REC_DEPTH - i, "the entries, outermost first")) {
			test__log("entry %d of %d; got:\n%s", i, REC_DEPTH + 1, out);
			return;
		}
		p += n;
	}
	for (i = 0; i <= REC_DEPTH; i++) {
		n = -1;
		if (sscanf(p, "exit %d %d %llu\n%n", &var, &arg, &latency, &n) != 3 || n < 0) {
			ASSERT_TRUE(false, "an exit event");
			test__log("exit %d of %d; got:\n%s", i, REC_DEPTH + 1, out);
			return;
		}
		p += n;
		ASSERT_EQ(var, i, "the exits, innermost first, with the depth saved at entry");
		ASSERT_EQ(arg, i, "the argument saved for the exit");
		ASSERT_LT(last, latency, "each call takes longer than the one it made");
		last = latency;
	}
	/*
	 * The call's result is printed once fptrace is done, not in the middle
	 * of its events ($() drops the blank lines after it).
	 */
	ASSERT_STREQ(p, "ret=5\nstatus 0\n",
		     "no other event, no map, no error, the call's result, status 0");
}

/*
 * A session across a sleep that migrates: fpm_test_sleep(41), called on
 * CPU 0, sleeps 20 ms and returns 42 on CPU 1. The entry's cpu, kept in
 * the session data, and the exit's differ. latency is at least the sleep
 * and at most the time between the entry's nsecs and the exit's: not
 * measured from some other time. (Its entry timestamp is taken after the
 * entry's statements, and it is printed before the exit's nsecs is read.)
 */
static void test_session_migrate(void)
{
	unsigned long long latency = 0, t0 = 0, t1 = 0;
	int arg = -1, ret = -1, cpu0 = -1, cpu1 = -1, n = -1, got;
	const char *p;

	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:fpm_test_sleep { $c = cpu; $t = nsecs; }\n"
			  "fretprobe:fpm_test_sleep {\n"
			  "printf(\"arg %d ret %d cpu %d %d latency %u ns %u %u\\n\",\n"
			  "arg0, retval, $c, cpu, latency, $t, nsecs); }' 2>&1 & P=$!; "
			  WAIT_LINK "echo \"sleep 41\" > " RUN "; cat " RUN "; "
			  "kill -INT $P; wait $P; echo \"status $?\""),
		      "fptrace session on the sleep runs"))
		return;
	p = out;
	if (!ASSERT_TRUE(!strncmp(p, "Attaching 2 probes...\n", 22), "two probes attached")) {
		test__log("got:\n%s", out);
		return;
	}
	p += 22;
	got = sscanf(p, "arg %d ret %d cpu %d %d latency %llu ns %llu %llu\n%n",
		     &arg, &ret, &cpu0, &cpu1, &latency, &t0, &t1, &n);
	if (!ASSERT_EQ(got, 7, "one exit event") ||
	    !ASSERT_GE(n, 0, "the event's line read")) {
		test__log("got:\n%s", out);
		return;
	}
	ASSERT_EQ(arg, 41, "the argument saved for the exit");
	ASSERT_EQ(ret, 42, "the return value");
	ASSERT_EQ(cpu0, 0, "entered on CPU 0");
	ASSERT_EQ(cpu1, 1, "returned on CPU 1");
	ASSERT_GE(latency, 20000000, "latency holds the 20 ms sleep");
	ASSERT_TRUE(t0 && t1 > t0, "the entry's and the exit's nsecs");
	ASSERT_LE(latency, t1 - t0, "latency is within the call");
	/* and the call's own account agrees */
	ASSERT_STREQ(p + n, "ret=42 cpu_before=0 cpu_after=1\n\n\nstatus 0\n",
		     "no other event, the module's result, no map, no error, status 0");
}

/*
 * Histograms without keys (per-CPU arrays of buckets): clear() empties
 * every bucket of @h, and a bucket that no event reached is not printed.
 * "call 3" counts depths 3 to 0 in @h and then clears it; "call 2" counts
 * 2 to 0 only. @e, never cleared, holds all seven calls in its underflow
 * bucket; @z, never reached, prints nothing, as bpftrace's would not.
 */
static void test_clear_hist(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:fpm_test_recurse { @h = hist(arg0); "
			  "@e = lhist(arg0, 100, 200, 10); if (arg0 > 100) { @z = hist(arg0); "
			  "} if (arg0 == 0 && @cleared == 0) { clear(@h); @cleared = 1; "
			  "} }' & P=$!; "
			  WAIT_LINK "echo \"call 3\" > " RUN "; sleep 1; "
			  "echo \"call 2\" > " RUN "; kill -INT $P; wait $P"),
		      "fptrace clear() of a hist runs"))
		return;
	ASSERT_STREQ(out, "Attaching 1 probe...\n\n\n@cleared: 1\n"
		     "@e:\x20\n(..., 100)             7 |" BAR52 "|\n\n@h:\x20\n"
		     "[0]                    1 |" BAR52 "|\n"
		     "[1]                    1 |" BAR52 "|\n"
		     "[2, 4)                 1 |" BAR52 "|\n\n",
		     "@h with the second call's depths only, @e with all, no @z");
}

/* SIGTERM ends a run cleanly: the maps printed, no error, status 0 */
static void test_sigterm(void)
{
	const char *want = "Attaching 1 probe...\n\n\n@x: ";

	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:ksys_read { @x = count(); }' 2>&1 & P=$!; "
			  WAIT_LINK "cat /proc/version >/dev/null; kill -TERM $P; wait $P; "
			  "echo \"status $?\""),
		      "fptrace stopped by SIGTERM"))
		return;
	ASSERT_TRUE(!strncmp(out, want, strlen(want)), "the map printed after the signal");
	ASSERT_TRUE(!strstr(out, "fptrace:"), "no error message");
	ASSERT_HAS(out, "\nstatus 0\n", "exit status 0");
}

/*
 * kstack(N) prints N frames, kstack(perf) the address too: at depth 0 of
 * "call 5", the innermost frames are all fpm_test_recurse's (the probed
 * call, then its recursive callers). Each perf frame's address is the
 * symbol's address plus the offset printed.
 */
static void test_kstack_limit_perf(void)
{
	unsigned long long base = ksym_addr("fpm_test_recurse"), addr, off;
	const char *p;
	int i, n;

	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:fpm_test_recurse /arg0 == 0/ { "
			  "printf(\"b%s\", kstack(3)); printf(\"p%s\", kstack(perf, 2)); "
			  "printf(\"d%s\", kstack); }' 2>&1 & P=$!; "
			  WAIT_LINK "echo \"call 5\" > " RUN "; cat " RUN "; "
			  "kill -INT $P; wait $P"),
		      "fptrace kstack(3), kstack(perf, 2) run"))
		return;
	p = strstr(out, "b\n");
	if (!ASSERT_OK_PTR(p, "the bpftrace-mode stack") || !ASSERT_NEQ(base, 0, "kallsyms"))
		return;
	p += 2;
	for (i = 0; i < 3; i++) {
		n = -1;
		if (sscanf(p, "        fpm_test_recurse+%llu\n%n", &off, &n) != 1 ||
		    !ASSERT_GE(n, 1, "a frame of fpm_test_recurse, indented by 8")) {
			test__log("got:\n%s", out);
			return;
		}
		p += n;
	}
	if (!ASSERT_EQ(*p, 'p', "three frames, then the perf stack"))
		return;
	p += 2;
	for (i = 0; i < 2; i++) {
		n = -1;
		if (sscanf(p, "\t%llx fpm_test_recurse+%llu\n%n", &addr, &off, &n) != 2 ||
		    !ASSERT_GE(n, 1, "a perf frame: tab, address, space, sym+off"))
			return;
		ASSERT_EQ(addr, base + off, "the address is the symbol's plus the offset");
		p += n;
	}
	if (!ASSERT_EQ(*p, 'd', "two perf frames"))
		return;
	/* a bare kstack: the six nested calls and what called them */
	for (i = 0, p += 2; !strncmp(p, "        fpm_test_recurse+", 25); i++)
		p = strchr(p, '\n') + 1;
	ASSERT_EQ(i, 6, "the whole stack: the six nested calls");
	ASSERT_TRUE(!strncmp(p, "        ", 8), "and their caller");
	ASSERT_HAS(out, "ret=5\n", "the call returned");
}

/*
 * Stacks of 1 and 2 frames as map keys of "call 2" (depths 2, 1, 0): one
 * frame is the probed function for all three calls, one key; two frames
 * tell the outermost call (its caller is the module's) from the two
 * recursive ones.
 */
static void test_kstack_keys(void)
{
	int c1 = 0, ca = 0, cb = 0, got;
	unsigned long long o1, o2, o3;
	const char *p;

	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:fpm_test_recurse { @a[kstack(1)] = count(); "
			  "@b[kstack(2)] = count(); }' 2>&1 & P=$!; "
			  WAIT_LINK "echo \"call 2\" > " RUN "; cat " RUN "; "
			  "kill -INT $P; wait $P"),
		      "fptrace kstack(1), kstack(2) keys run"))
		return;
	p = strstr(out, "@a[\n");
	got = 0;
	if (p)
		got = sscanf(p, "@a[\n        fpm_test_recurse+%llu\n]: %d\n", &o1, &c1);
	if (!ASSERT_EQ(got, 2, "one key of one frame")) {
		test__log("got:\n%s", out);
		return;
	}
	ASSERT_EQ(c1, 3, "all three calls under it");
	p = strstr(out, "@b[\n");
	if (!ASSERT_OK_PTR(p, "@b printed"))
		return;
	/* sorted by count: the outer call's key (1), then the recursive ones' (2) */
	got = sscanf(p, "@b[\n        fpm_test_recurse+%llu\n        %*[^+]+%*u\n]: %d\n",
		     &o2, &ca);
	ASSERT_EQ(got, 2, "the outermost call's key");
	ASSERT_EQ(ca, 1, "one outermost call");
	p = strstr(p + 4, "@b[\n");
	if (!ASSERT_OK_PTR(p, "a second @b key"))
		return;
	got = sscanf(p, "@b[\n        fpm_test_recurse+%llu\n"
		     "        fpm_test_recurse+%llu\n]: %d\n", &o2, &o3, &cb);
	ASSERT_EQ(got, 3, "the recursive calls' key");
	ASSERT_EQ(cb, 2, "two recursive calls");
	ASSERT_EQ(o2, o1, "the same first frame");
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * elapsed, bpftrace's: nanoseconds since fptrace started, in any probe.
 * Each line prints elapsed, then nsecs: nsecs - elapsed is at least the
 * start (read before nsecs), and the start comes after this test's t0;
 * every line's is before t1. elapsed grows from BEGIN to interval to
 * END, and the 200 ms interval fires 200 ms after the start at least.
 */
static void test_elapsed(void)
{
	unsigned long long t0 = mono_ns(), t1, e[3] = { 0 }, n[3] = { 0 };
	int got;

	if (!ASSERT_OK(run(FPTRACE " -e 'BEGIN { "
			  "printf(\"%u %u\\n\", elapsed, nsecs) } interval:ms:200 { "
			  "printf(\"%u %u\\n\", elapsed, nsecs); exit() } END { "
			  "printf(\"%u %u\\n\", elapsed, nsecs) }'"),
		      "fptrace elapsed runs"))
		return;
	t1 = mono_ns();
	got = sscanf(out, "Attaching 3 probes...\n%llu %llu\n%llu %llu\n%llu %llu\n",
		     &e[0], &n[0], &e[1], &n[1], &e[2], &n[2]);
	if (!ASSERT_EQ(got, 6, "three lines")) {
		test__log("got:\n%s", out);
		return;
	}
	for (int i = 0; i < 3; i++) {
		ASSERT_GE(n[i] - e[i], t0, "the start is after the test's t0");
		ASSERT_LE(n[i], t1, "the line before the test's t1");
	}
	ASSERT_LT(e[0], e[1], "BEGIN's before the interval's");
	ASSERT_LE(e[1], e[2], "the interval's before END's");
	ASSERT_GE(e[1], 200000000, "the interval fired 200 ms after the start at least");
	ASSERT_LE(e[2], t1 - t0, "within the run");
}

/*
 * Struct members on dd's reads of /dev/zero and its two opens: the file's
 * name through an embedded struct and two pointers, the qstr's len (in an
 * anonymous struct of an anonymous union), the open flags; a $variable
 * holding the pointer; a cast; retval->field of a struct file * return.
 */
static void test_struct_fields(void)
{
	/* the function that opens a file by its struct filename, on 7.x renamed */
	const char *open_fn = kernel_major() >= 7 ? "do_file_open" : "do_filp_open";
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), FPTRACE " -e 'fprobe:vfs_read /comm == \"dd\"/ { "
		 "$f = args.file; $d = $f->f_path.dentry; "
		 "$n = str(args.file->f_path.dentry->d_name.name); "
		 "$h = ((struct file *)arg0)->f_path.dentry->d_name.hash_len >> 32; "
		 "@[$n, $d->d_name.len, args.file->f_flags & 3, $h] = count(); "
		 "} fretprobe:%s /comm == \"dd\"/ { "
		 "$r = str(retval->f_path.dentry->d_name.name); "
		 "$l = retval->f_path.dentry->d_name.len; "
		 "printf(\"%%s %%s %%d\\n\", str(args.pathname->name), $r, $l); "
		 "}' -c 'dd if=/dev/zero bs=512 count=3 of=/dev/null' 2>/dev/null", open_fn);
	if (!ASSERT_OK(run(cmd), "fptrace struct fields run"))
		return;
	ASSERT_STREQ(out, "Attaching 2 probes...\n/dev/zero zero 4\n/dev/null null 4\n\n\n"
		     "@[zero, 4, 0, 4]: 3\n",
		     "names, lengths and flags of the files dd opens and reads");
}

/* time(FORMAT) prints the wall-clock time as strftime() does: date's. */
#define TIME_DAY	FPTRACE " -e 'BEGIN { time(\"%Y-%m-%d\\n\"); exit() }' | sed -n 2p; "
#define TIME_HMS	FPTRACE " -e 'BEGIN { time(); exit() }' | sed -n 2p | " \
			"grep -c '^[0-2][0-9]:[0-5][0-9]:[0-6][0-9]$'"

static void test_time(void)
{
	char before[16], day[16], after[16];
	int hms = -1, n;

	if (!ASSERT_OK(run("date +%Y-%m-%d; " TIME_DAY "date +%Y-%m-%d; " TIME_HMS),
		       "fptrace time() runs"))
		return;
	/* date's day before and after: fptrace's is one of them at midnight */
	n = sscanf(out, "%15s %15s %15s %d", before, day, after, &hms);
	if (!ASSERT_EQ(n, 4, "four lines"))
		return;
	ASSERT_TRUE(strlen(day) == 10 && (!strcmp(day, before) || !strcmp(day, after)),
		    "time(FORMAT) is date's day");
	ASSERT_EQ(hms, 1, "time() prints HH:MM:SS");
}

void test_fptrace(void)
{
	if (access(FPTRACE, X_OK)) {
		test__skip(FPTRACE " is not installed");
		return;
	}
	if (test__start_subtest("count_by_comm"))
		test_count_by_comm();
	if (test__start_subtest("hist_retval"))
		test_hist_retval();
	if (test__start_subtest("session"))
		test_session();
	if (test__start_subtest("printf"))
		test_printf();
	if (test__start_subtest("str_args"))
		test_str_args();
	if (test__start_subtest("aggregations"))
		test_aggregations();
	if (test__start_subtest("reject"))
		test_reject();
	if (test__start_subtest("missed"))
		test_missed();
	if (test__start_subtest("json"))
		test_json();
	if (test__start_subtest("pid"))
		test_pid();
	if (test__start_subtest("list"))
		test_list();
	if (test__start_subtest("dump"))
		test_dump();
	if (test__start_subtest("help"))
		test_help();
	if (test__start_subtest("sigterm"))
		test_sigterm();
	if (test__start_subtest("session_recursion"))
		test_session_recursion();
	if (test__start_subtest("session_migrate"))
		test_session_migrate();
	if (test__start_subtest("clear_hist"))
		test_clear_hist();
	if (test__start_subtest("kstack_limit_perf"))
		test_kstack_limit_perf();
	if (test__start_subtest("kstack_keys"))
		test_kstack_keys();
	if (test__start_subtest("elapsed"))
		test_elapsed();
	if (test__start_subtest("struct_fields"))
		test_struct_fields();
	if (test__start_subtest("time"))
		test_time();
}
