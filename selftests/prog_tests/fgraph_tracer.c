// SPDX-License-Identifier: GPL-2.0
/*
 * The function_graph tracer, the first fgraph user, filtered to
 * bpf_fentry_test1..8 with funcgraph-retval: each function must appear
 * exactly once, as a leaf, with the value it returned. fprobe shares the
 * same shadow stack: with a kretprobe.multi link on the same functions at
 * the same time, both must see every return with its value.
 *
 * slot_zero: every fgraph slot taken, by 15 function_graph instances
 * filtered to fpm_test_inner() and by fprobe (fpm_test recursion 4, on
 * fpm_test_recurse()), so that one of them holds slot 0. No instance may
 * print a return of fpm_test_recurse(), which only fprobe traces: fgraph
 * used to mark every frame with slot 0's bit, so the owner of slot 0 got
 * the return of every call (funcgraph-tail names the function).
 *
 * rcu_off_return: fpm_test_rcu_off() returns where RCU is not watching
 * (fpm_test rcuoff 0), under set_graph_notrace. Its return must still
 * reach the tracer, which clears its notrace state there: fgraph used to
 * skip such returns, and the task's later calls (fpm_test_inner()) were
 * then never traced again.
 *
 * rcu_off_entry: fpm_test_in_eqs() is called where RCU is not watching
 * (fpm_test rcuoff 3). The function_graph tracer alone needs no filter
 * test to hook it, and traced it on the base kernel: it must still appear,
 * once. Also while an fprobe with an exit handler is registered (rcuoff
 * 4), which makes fgraph call its owners from a loop rather than
 * directly: the tracer is still the only one that fgraph's own ftrace_ops
 * serves.
 *
 * timed_after_fprobe: fprobe reads no call times, so while it is fgraph's
 * only owner no call reads the clock. The function_graph tracer, started
 * while an "f%return" event on fpm_test_sleep() is enabled, must still
 * time that function: the call sleeps at least 20 ms (fpm_test sleep 0,
 * which returns 1), and the tracer must report a duration of at least
 * 15,000 us (without the clock it read 0; msleep() counts jiffies and the
 * tracer reads sched_clock(), which drift apart under TCG: one run read
 * 19,898 us). The event must fire once.
 */
#include <ctype.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "test_progs.h"
#include "helpers.h"
#include "kretprobe_record.skel.h"

static void check_multi(const struct call_rec *tab)
{
	char label[96];
	int i;

	for (i = 1; i <= NR_FENTRY_TESTS; i++) {
		snprintf(label, sizeof(label), "kretprobe.multi returns of %s",
			 fentry_test_names[i - 1]);
		ASSERT_EQ(tab[i].exits, 1, label);
		snprintf(label, sizeof(label), "kretprobe.multi return value of %s",
			 fentry_test_names[i - 1]);
		ASSERT_EQ(tab[i].ret, fentry_test_rets[i - 1], label);
	}
}

static void run(bool with_multi)
{
	struct kretprobe_record_bpf *skel = NULL;
	struct bpf_link *link = NULL;
	static char trace[32768];
	char head[64], want[96], label[96];
	int i;

	if (with_multi) {
		skel = open_and_load_on_base(kretprobe_record_bpf);
		if (!ASSERT_OK_PTR(skel, "open and load kretprobe_record"))
			return;
		skel->bss->target_tgid = getpid();
		link = attach_fentry_tests_multi(skel->progs.multi_ret, true);
		if (!ASSERT_OK_PTR(link, "attach kretprobe.multi"))
			goto cleanup;
	}

	if (!ASSERT_OK(write_file(TRACEFS "set_ftrace_filter", "bpf_fentry_test*"),
		       "filter function_graph to bpf_fentry_test*"))
		goto cleanup;
	ASSERT_OK(write_file(TRACEFS "options/funcgraph-retval", "1"), "funcgraph-retval on");
	ASSERT_OK(write_file(TRACEFS "tracing_on", "1"), "tracing_on");
	if (!ASSERT_OK(write_file(TRACEFS "current_tracer", "function_graph"),
		       "start the function_graph tracer"))
		goto cleanup;
	ASSERT_OK(write_file(TRACEFS "trace", ""), "clear the trace buffer");
	ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8");
	/* Stop recording, but keep the tracer: changing it clears the buffer. */
	ASSERT_OK(write_file(TRACEFS "tracing_on", "0"), "tracing_off");
	if (!ASSERT_GE(read_file(TRACEFS "trace", trace, sizeof(trace)), 0, "read trace"))
		goto cleanup;

	for (i = 0; i < NR_FENTRY_TESTS; i++) {
		snprintf(want, sizeof(want), "%s();", fentry_test_names[i]);
		snprintf(label, sizeof(label), "function_graph lines for %s", fentry_test_names[i]);
		ASSERT_EQ(count_substr(trace, want), 1, label);
		snprintf(head, sizeof(head), "%s(); /*", fentry_test_names[i]);
		graph_retval(want, sizeof(want) - 1, head, fentry_test_rets[i]);
		strcat(want, "\n");
		snprintf(label, sizeof(label), "function_graph return value of %s",
			 fentry_test_names[i]);
		ASSERT_HAS(trace, want, label);
	}
	if (with_multi)
		check_multi(skel->bss->multi);
cleanup:
	bpf_link__destroy(link);
	kretprobe_record_bpf__destroy(skel);
	write_file(TRACEFS "current_tracer", "nop");
	write_file(TRACEFS "tracing_on", "1");
	write_file(TRACEFS "options/funcgraph-retval", "0");
	write_file(TRACEFS "set_ftrace_filter", "");
}

#define NR_INSTANCES	15	/* fgraph has 16 slots */

static int instance_write(int i, const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), TRACEFS "instances/fpm_slot%d/%s", i, file);
	return write_file(path, val);
}

static int make_instance(int i)
{
	char path[128];

	snprintf(path, sizeof(path), TRACEFS "instances/fpm_slot%d", i);
	if (mkdir(path, 0755))
		return -errno;
	if (instance_write(i, "set_ftrace_filter", "fpm_test_inner") ||
	    instance_write(i, "options/funcgraph-tail", "1") ||
	    instance_write(i, "current_tracer", "function_graph"))
		return -EIO;
	return 0;
}

static void remove_instance(int i)
{
	char path[128];

	instance_write(i, "current_tracer", "nop");
	snprintf(path, sizeof(path), TRACEFS "instances/fpm_slot%d", i);
	ASSERT_OK(rmdir(path) ? -errno : 0, "remove the instance");
}

static void slot_zero(void)
{
	static char trace[16384];
	int i, made, seen = 0;
	char buf[64];

	for (made = 0; made < NR_INSTANCES; made++)
		if (!ASSERT_OK(make_instance(made), "a function_graph instance"))
			break;
	if (made < NR_INSTANCES ||
	    !ASSERT_OK(fpm_run("recursion 4", buf, sizeof(buf)), "fpm_test recursion 4"))
		goto out;
	ASSERT_HAS(buf, "entries=5 exits=5 ", "fprobe saw the 5 calls");
	for (i = 0; i < NR_INSTANCES; i++) {
		char path[128];

		snprintf(path, sizeof(path), TRACEFS "instances/fpm_slot%d/trace", i);
		if (ASSERT_GE(read_file(path, trace, sizeof(trace)), 0, "read the trace"))
			seen += count_substr(trace, "fpm_test_recurse");
	}
	ASSERT_EQ(seen, 0, "no instance got a return of a call it did not trace");
out:
	while (made--)
		remove_instance(made);
}

/*
 * Clear the trace, run fpm_test's @cmd (its result in @buf), stop recording
 * and read the trace into @trace. False if a step failed.
 */
static bool run_traced(const char *cmd, char *buf, size_t len, char *trace, size_t tlen)
{
	char label[64];

	ASSERT_OK(write_file(TRACEFS "trace", ""), "clear the trace buffer");
	snprintf(label, sizeof(label), "fpm_test %s", cmd);
	if (!ASSERT_OK(fpm_run(cmd, buf, len), label))
		return false;
	ASSERT_OK(write_file(TRACEFS "tracing_on", "0"), "tracing_off");
	return ASSERT_GE(read_file(TRACEFS "trace", trace, tlen), 0, "read trace");
}

static void rcu_off_return(void)
{
	static char trace[16384];
	char buf[64];

	if (!ASSERT_OK(write_file(TRACEFS "set_ftrace_filter", "fpm_test_rcu_off"),
		       "filter function_graph to fpm_test_rcu_off") ||
	    !ASSERT_OK(append_file(TRACEFS "set_ftrace_filter", "fpm_test_inner"),
		       "and to fpm_test_inner") ||
	    !ASSERT_OK(write_file(TRACEFS "set_graph_notrace", "fpm_test_rcu_off"),
		       "set_graph_notrace fpm_test_rcu_off"))
		goto cleanup;
	ASSERT_OK(write_file(TRACEFS "tracing_on", "1"), "tracing_on");
	if (!ASSERT_OK(write_file(TRACEFS "current_tracer", "function_graph"),
		       "start the function_graph tracer"))
		goto cleanup;
	if (!run_traced("rcuoff 0", buf, sizeof(buf), trace, sizeof(trace)))
		goto cleanup;
	ASSERT_STREQ(buf, "ret=41 inner=2 eqs=1\n", "fpm_test rcuoff 0 result");
	ASSERT_EQ(count_substr(trace, "fpm_test_rcu_off"), 0, "the notrace function not traced");
	ASSERT_EQ(count_substr(trace, "fpm_test_inner"), 1,
		  "the call after the notrace one traced");
cleanup:
	write_file(TRACEFS "current_tracer", "nop");
	write_file(TRACEFS "tracing_on", "1");
	write_file(TRACEFS "set_graph_notrace", "");
	write_file(TRACEFS "set_ftrace_filter", "");
}

static void rcu_off_entry(void)
{
	static char trace[16384];
	static const char * const cmds[] = { "rcuoff 3", "rcuoff 4" };
	char buf[64];
	int i;

	if (!ASSERT_OK(write_file(TRACEFS "set_ftrace_filter", "fpm_test_in_eqs"),
		       "filter function_graph to fpm_test_in_eqs"))
		goto cleanup;
	ASSERT_OK(write_file(TRACEFS "tracing_on", "1"), "tracing_on");
	if (!ASSERT_OK(write_file(TRACEFS "current_tracer", "function_graph"),
		       "start the function_graph tracer"))
		goto cleanup;
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		ASSERT_OK(write_file(TRACEFS "tracing_on", "1"), "tracing_on");
		if (!run_traced(cmds[i], buf, sizeof(buf), trace, sizeof(trace)))
			goto cleanup;
		ASSERT_STREQ(buf, "ret=41 eqs=1\n", cmds[i]);
		ASSERT_EQ(count_substr(trace, "fpm_test_in_eqs"), 1,
			  "the call made where RCU is not watching traced");
		test__log("  %s: %d line(s) name fpm_test_in_eqs\n", cmds[i],
			  count_substr(trace, "fpm_test_in_eqs"));
	}
cleanup:
	write_file(TRACEFS "current_tracer", "nop");
	write_file(TRACEFS "tracing_on", "1");
	write_file(TRACEFS "set_ftrace_filter", "");
}

/*
 * The durations that function_graph reports on lines naming @func (a leaf
 * call, or the closing brace of one that had an event inside): how many
 * there are, and the last one in us.
 */
static int graph_durations(const char *trace, const char *func, double *us)
{
	const char *line = trace, *end, *at, *p;
	int n = 0;

	for (; *line; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		at = strstr(line, func);
		if (!at || at > end)
			continue;
		p = strstr(line, " us ");
		if (!p || p > at)
			continue;
		while (p > line && (isdigit(p[-1]) || p[-1] == '.'))
			p--;
		*us = strtod(p, NULL);
		n++;
	}
	return n;
}

static void timed_after_fprobe(void)
{
	static const char *const def = "f:fpm/slr fpm_test_sleep%return ret=$retval:s32";
	static char trace[16384];
	bool added = false;
	char buf[96];
	double us = -1;

	ASSERT_OK(write_file(TRACEFS "tracing_on", "1"), "tracing_on");
	if (!ASSERT_OK(append_file(TRACEFS "dynamic_events", def), def))
		goto cleanup;
	added = true;
	if (!ASSERT_OK(write_file(TRACEFS "events/fpm/slr/enable", "1"), "enable the event") ||
	    !ASSERT_OK(write_file(TRACEFS "set_ftrace_filter", "fpm_test_sleep"),
		       "filter function_graph to fpm_test_sleep") ||
	    !ASSERT_OK(write_file(TRACEFS "current_tracer", "function_graph"),
		       "start the function_graph tracer"))
		goto cleanup;
	if (!run_traced("sleep 0", buf, sizeof(buf), trace, sizeof(trace)))
		goto cleanup;
	ASSERT_HAS(buf, "ret=1 ", "fpm_test_sleep(0) returned 1");
	ASSERT_EQ(count_substr(trace, "slr: "), 1, "the f%return event fired once");
	ASSERT_EQ(count_substr(trace, " ret=1 */"), 1, "with the return value");
	ASSERT_EQ(graph_durations(trace, "fpm_test_sleep [", &us), 1,
		  "one function_graph duration for fpm_test_sleep()");
	/* msleep() counts jiffies, the tracer sched_clock(): under TCG they drift */
	ASSERT_GE(us, 15000, "function_graph timed the 20 ms sleep (us)");
	ASSERT_TRUE(us < 60e6, "within a minute: not by a clock it never read");
cleanup:
	write_file(TRACEFS "current_tracer", "nop");
	write_file(TRACEFS "tracing_on", "1");
	write_file(TRACEFS "set_ftrace_filter", "");
	if (added) {
		write_file(TRACEFS "events/fpm/slr/enable", "0");
		ASSERT_OK(append_file(TRACEFS "dynamic_events", "-:fpm/slr"), "remove the event");
	}
}

void test_fgraph_tracer(void)
{
	if (test__start_subtest("retval"))
		run(false);
	if (test__start_subtest("with_kretprobe_multi"))
		run(true);
	if (test__start_subtest("slot_zero"))
		slot_zero();
	if (test__start_subtest("rcu_off_return"))
		rcu_off_return();
	if (test__start_subtest("rcu_off_entry"))
		rcu_off_entry();
	if (test__start_subtest("timed_after_fprobe"))
		timed_after_fprobe();
}
