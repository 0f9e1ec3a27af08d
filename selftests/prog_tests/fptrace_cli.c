// SPDX-License-Identifier: GPL-2.0
/*
 * fptrace's command line and run in the guest: that the tool does not
 * trace itself (its writes of what it prints, its reads of /proc/kallsyms),
 * that exit() ends the output at its record, that a -c command that
 * cannot run fails the run with nothing left attached, how a script is
 * given (a file followed by options, stdin, an executable script with a
 * "#!" line), and -l's listing. Each check compares what /bin/fptrace
 * prints, and its exit status, with exact text.
 *
 * Workloads: busybox dd, which reads and writes exactly count blocks of
 * bs bytes, and the test module's "call N", which makes N + 1 nested
 * calls of fpm_test_recurse() in the writer's task.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test_progs.h"
#include "helpers.h"

#define FPTRACE	"/bin/fptrace"
#define WAIT_LINK "until /bin/bpftool link show 2>/dev/null | grep -q fprobe; do sleep 0.1; done; "
/* after a run: "links N", the links left attached */
#define LINKS	"echo \"links $(/bin/bpftool link show | grep -c fprobe)\""
#define DD5	"dd if=/dev/zero of=/dev/null bs=512 count=5"
#define DD3	"dd if=/dev/zero of=/dev/null bs=512 count=3"
#define COUNT_READS "-e 'fprobe:ksys_read { @ = count(); }'"

static char out[65536];

static int run(const char *cmd)
{
	return run_cmd(cmd, out, sizeof(out));
}

/*
 * Every 512-byte write while dd runs, with the writer's comm and pid. The
 * printed line is 512 bytes too (16 + 495 + 1), so that fptrace's own
 * write of each line would be an event of the probe: without the filter
 * of its own pid, each line makes another, until dd ends. With it: dd's
 * five writes, and none from fptrace.
 */
static void test_self_writes(void)
{
	int pid = 0, self = 0, n = 0, got, len;
	char comm[16];
	const char *p;

	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:ksys_write /arg2 == 512/ { "
			   "printf(\"%-16s%495d\\n\", comm, pid); "
			   "}' -c '" DD5 "' 2>/dev/null & P=$!; "
			   "wait $P; echo \"fptrace $P\""),
		       "fptrace on ksys_write runs"))
		return;
	if (!ASSERT_TRUE(!strncmp(out, "Attaching 1 probe...\n", 21), "attached")) {
		test__log("got:\n%.2000s", out);
		return;
	}
	for (p = out + 21; (len = (int)strcspn(p, "\n")) == 511; p += 512, n++) {
		int v;

		got = sscanf(p, "%15s %d", comm, &v);
		if (!ASSERT_EQ(got, 2, "a comm and a pid") ||
		    !ASSERT_STREQ(comm, "dd", "a write of dd's") ||
		    (pid && !ASSERT_EQ(v, pid, "one dd")))
			break;
		pid = v;
	}
	ASSERT_EQ(n, 5, "dd's five writes, no more");
	got = sscanf(p, "\n\nfptrace %d\n", &self);
	ASSERT_EQ(got, 1, "then the end, and fptrace's pid");
	ASSERT_NEQ(pid, self, "dd's pid is not fptrace's");
}

/*
 * --trace-self: fptrace's own write of "tick" (5 bytes), which the
 * interval probe's record makes, is an event; exit() ends the run there.
 */
static void test_trace_self(void)
{
	if (!ASSERT_OK(run(FPTRACE " --trace-self -e 'fprobe:ksys_write /comm == \"fptrace\"/ { "
			   "printf(\"write %d\\n\", arg2); exit(); } interval:s:1 { "
			   "printf(\"tick\\n\"); }' 2>&1"),
		       "fptrace --trace-self runs"))
		return;
	ASSERT_STREQ(out, "Attaching 2 probes...\ntick\nwrite 5\n\n\n",
		     "its own write traced, then exit()");
}

/*
 * ksym() needs /proc/kallsyms. Read when the interval probe's record is
 * printed, after the probe on ksys_read is attached, each of fptrace's
 * reads of the file would be counted (--trace-self keeps fptrace's own
 * events; nothing else of fptrace's reads while it runs). Read before
 * attaching: no read, and @reads is never set.
 */
static void test_kallsyms_before_attach(void)
{
	if (!ASSERT_OK(run(FPTRACE " --trace-self -e 'fprobe:ksys_read /comm == \"fptrace\"/ { "
			   "@reads = count(); } interval:ms:300 { "
			   "printf(\"%s\\n\", ksym(0)); exit(); }' 2>&1"),
		       "fptrace printing a ksym() runs"))
		return;
	ASSERT_STREQ(out, "Attaching 2 probes...\n0x0\n\n\n", "no read of fptrace's counted");
}

/*
 * exit() ends the run with its probe's body: "call 40" makes 41 calls in
 * one task, all recorded before fptrace wakes up; the first one's printf
 * and exit records are handled, the 40 others' dropped.
 */
static void test_exit_drops_later_events(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'fprobe:fpm_test_recurse { printf(\"depth %d\\n\", arg0); "
			   "@n = count(); exit(); }' & P=$!; " WAIT_LINK
			   "echo \"call 40\" > " FPM_RUN "; wait $P; echo \"status $?\""),
		       "fptrace with exit() runs"))
		return;
	ASSERT_STREQ(out, "Attaching 1 probe...\ndepth 40\n\n\n@n: 41\nstatus 0\n",
		     "one line; the maps still count every call");
}

/* -c with a command that is not in PATH: refused before anything is loaded. */
static void test_command_missing(void)
{
	if (!ASSERT_OK(run(FPTRACE " " COUNT_READS " -c 'no_such_cmd -x' 2>&1; "
			   "echo \"status $?\"; " LINKS),
		       "fptrace -c no_such_cmd runs"))
		return;
	ASSERT_STREQ(out, "ERROR: cannot run 'no_such_cmd': No such file or directory\n"
		     "status 1\nlinks 0\n", "the error, status 1, no link");
}

#define BEGIN_EXIT	"'BEGIN { printf(\"b\\n\"); exit() } END { printf(\"e\\n\") }'"

/* BEGIN { exit() }: the run ends there, and -c's command never runs. */
static void test_command_after_begin_exit(void)
{
	if (!ASSERT_OK(run("rm -f /tmp/fpt_ran; " FPTRACE " -e " BEGIN_EXIT
			   " -c 'touch /tmp/fpt_ran' 2>&1; echo \"status $?\"; "
			   "test -e /tmp/fpt_ran && echo ran || echo 'not run'"),
		       "fptrace -c after BEGIN's exit() runs"))
		return;
	ASSERT_STREQ(out, "Attaching 2 probes...\nb\ne\n\n\nstatus 0\n"
		     "not run\n", "no command run");
}

/*
 * -c with a file that exec refuses (not a program, a directory): the
 * exec's errno comes back from the child after the links were attached,
 * and the run fails with it.
 */
static void test_command_exec_fails(void)
{
	if (!ASSERT_OK(run("printf 'not a program\\n' > /tmp/fpt_notexec; "
			   "chmod 755 /tmp/fpt_notexec; "
			   FPTRACE " " COUNT_READS " -c /tmp/fpt_notexec 2>&1; "
			   "echo \"status $?\"; " LINKS "; "
			   FPTRACE " " COUNT_READS " -c /tmp 2>&1; "
			   "echo \"status $?\"; " LINKS),
		       "fptrace -c with unrunnable files runs"))
		return;
	ASSERT_STREQ(out, "Attaching 1 probe...\n"
		     "ERROR: cannot run '/tmp/fpt_notexec': Exec format error\n"
		     "status 1\nlinks 0\n"
		     "Attaching 1 probe...\n"
		     "ERROR: cannot run '/tmp': Permission denied\n"
		     "status 1\nlinks 0\n", "each exec's error, status 1, no link");
}

#define SCRIPT	"fprobe:ksys_read /comm == \"dd\"/ { @reads = count(); }"
#define DD4	"dd if=/dev/zero of=/dev/null bs=512 count=4"

/* A script from a file followed by options, from stdin, and run by its "#!" line. */
static void test_script_input(void)
{
	const char *want = "Attaching 1 probe...\n\n\n@reads: 4\n";
	char all[512];

	if (!ASSERT_OK(run("printf '" SCRIPT "\\n' > /tmp/fpt_s.bt; "
			   FPTRACE " /tmp/fpt_s.bt -c '" DD4 "' 2>/dev/null"),
		       "fptrace FILE -c runs"))
		return;
	ASSERT_STREQ(out, want, "a file, then -c");
	if (!ASSERT_OK(run("printf '" SCRIPT "\\n' | " FPTRACE " - -c '" DD4 "' 2>/dev/null"),
		       "fptrace - runs"))
		return;
	ASSERT_STREQ(out, want, "the program from stdin");
	if (!ASSERT_OK(run("E=$(which env); "
			   "printf '#!%s fptrace\\n" SCRIPT "\\n' $E > /tmp/fpt_x.bt; "
			   "chmod 755 /tmp/fpt_x.bt; "
			   "head -c 2 /tmp/fpt_x.bt; "
			   "echo; /tmp/fpt_x.bt -c '" DD4 "' 2>/dev/null"),
		       "an executable script runs"))
		return;
	snprintf(all, sizeof(all), "#!\n%s", want);
	ASSERT_STREQ(out, all, "run through its #! line");
}

/* Errors of the command line, from the binary: one line, status 1. */
static void test_cli_errors(void)
{
	if (!ASSERT_OK(run(FPTRACE " -e 'BEGIN { exit(); }' -e 'END { }' 2>&1; "
			   "echo \"status $?\"; "
			   FPTRACE " -e 'BEGIN { exit(); }' /tmp/fpt_s.bt 2>&1; "
			   "echo \"status $?\"; "
			   FPTRACE " /tmp/no_such_script.bt 2>&1; "
			   "echo \"status $?\""),
		       "fptrace with bad command lines runs"))
		return;
	ASSERT_STREQ(out, "ERROR: -e given twice: fptrace runs one program\nstatus 1\n"
		     "ERROR: -e PROGRAM and FILE '/tmp/fpt_s.bt' both given: give one program\n"
		     "status 1\n"
		     "ERROR: cannot open /tmp/no_such_script.bt: No such file or directory\n"
		     "status 1\n", "each refusal");
}

/* -l SPEC: probe-prefixed names; -lv: bpftrace's argument lines. */
static void test_list(void)
{
	if (!ASSERT_OK(run(FPTRACE " -l 'fprobe:vfs_rea*'; " FPTRACE " -l 'kretprobe:vfs_read'; "
			   FPTRACE " -lv 'fretprobe:vfs_read'; " FPTRACE " -v -l 'fpm_test_rec*'"),
		       "fptrace -l runs"))
		return;
	ASSERT_STREQ(out, "fprobe:vfs_read\nfprobe:vfs_readlink\nfprobe:vfs_readv\n"
		     "kretprobe:vfs_read\n"
		     "fretprobe:vfs_read\n"
		     "    struct file * file\n"
		     "    char * buf\n"
		     "    size_t count\n"
		     "    loff_t * pos\n"
		     "    ssize_t retval\n"
		     "fprobe:fpm_test_recurse\n"
		     "    int depth\n", "the listings");
}

#define NOT_SUPPORTED	"tracepoint probes are not supported by fptrace: it attaches to kernel functions only"
#define KFUNC_LEFT_OUT	"kfunc probes are not supported by fptrace: use fprobe, which reads args.NAME from BTF too"

static void test_list_errors(void)
{
	if (!ASSERT_OK(run(FPTRACE " -l 'fprobe:zzq_nothing*' 2>&1; echo \"status $?\"; "
			   FPTRACE " -l 'tracepoint:syscalls:*' 2>&1; echo \"status $?\"; "
			   FPTRACE " -l 'kfunc:vfs_*' 2>&1; echo \"status $?\"; "
			   FPTRACE " -l 'zzq:vfs_*' 2>&1; echo \"status $?\""),
		       "fptrace -l with bad specs runs"))
		return;
	ASSERT_STREQ(out, "ERROR: -l: pattern 'fprobe:zzq_nothing*' matches no traceable function\n"
		     "status 1\n"
		     "ERROR: -l: " NOT_SUPPORTED "\n"
		     "status 1\n"
		     "ERROR: -l: " KFUNC_LEFT_OUT "\n"
		     "status 1\n"
		     "ERROR: -l: unknown probe type 'zzq'\n"
		     "status 1\n", "each refusal");
}

void test_fptrace_cli(void)
{
	if (access(FPTRACE, X_OK)) {
		test__skip(FPTRACE " is not installed");
		return;
	}
	if (test__start_subtest("self_writes"))
		test_self_writes();
	if (test__start_subtest("trace_self"))
		test_trace_self();
	if (test__start_subtest("kallsyms_before_attach"))
		test_kallsyms_before_attach();
	if (test__start_subtest("exit_drops_later_events"))
		test_exit_drops_later_events();
	if (test__start_subtest("command_missing"))
		test_command_missing();
	if (test__start_subtest("command_after_begin_exit"))
		test_command_after_begin_exit();
	if (test__start_subtest("command_exec_fails"))
		test_command_exec_fails();
	if (test__start_subtest("script_input"))
		test_script_input();
	if (test__start_subtest("cli_errors"))
		test_cli_errors();
	if (test__start_subtest("list"))
		test_list();
	if (test__start_subtest("list_errors"))
		test_list_errors();
}
