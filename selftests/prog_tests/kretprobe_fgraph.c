// SPDX-License-Identifier: GPL-2.0
/*
 * Classic kretprobes (register_kretprobe()) on the fgraph shadow stack,
 * driven through the fpm_test module (selftests/kmod/fpm_test.c): 17 nested
 * calls with an entry handler that stores per-level data and refuses the
 * returns of the odd levels, and without entry handler (the return hooked
 * in one step); the same while an fprobe hooks the calls too,
 * registered after the kretprobe or before it, so that one joins the
 * frames the other pushed (one frame per call, whichever comes first), and
 * with the function_graph tracer on the function as well; a
 * sleep that returns on the other CPU; 400 nested calls, more than the
 * shadow stack holds, the rest counted; an unregister while 100 tasks
 * are inside, their returns counted as missed; and a tracefs "r:" event
 * with $retval and an entry argument.
 *
 * The return handler checks, for every return, its entry data, the return
 * value, the return address and the stack pointer in its pt_regs, and
 * that it runs as the current kprobe (bad_data, bad_ret).
 */
#include <sys/stat.h>

#include "test_progs.h"
#include "helpers.h"
#include "fpm_scenario.h"

/* 17 levels, the entry handler refuses the 8 odd ones */
static void test_recursion(void)
{
	if (!scenario_run("kretprobe 0"))
		return;
	scenario_check("ret=16 entries=17 refused=8 exits=9 bad_data=0 bad_ret=0 frames=9");
	scenario_check("nmissed=0 fgraph=1 stack=0 recursion=0 other=0");
}

/* @mode 1: the kretprobe joins the fprobe's frames; 2: the other way */
static void test_with_fprobe(int mode)
{
	if (!scenario_run_arg("kretprobe", mode))
		return;
	scenario_check("ret=16 entries=17 refused=8 exits=9 bad_data=0 bad_ret=0 nmissed=0");
	/* 17 calls, 17 frames: both hooks of a call share its frame */
	scenario_check("frames=17 fprobe_exits=17 fprobe_bad=0 fgraph=1");
}

/*
 * Without entry handler, the return is hooked in one step: 17 returns,
 * each with its value, address and stack pointer; alone (@mode 0), with an
 * fprobe registered after (1) or before (2) the kretprobe, one frame per
 * call, and alone with the outermost value raised by 1000 (3).
 */
static void test_no_entry_handler(int mode)
{
	if (!scenario_run_arg("krnoentry", mode))
		return;
	scenario_check(mode == 3 ? "ret=1016 exits=17" : "ret=16 exits=17");
	scenario_check("bad_data=0 bad_ret=0 nmissed=0 fgraph=1 stack=0 recursion=0 other=0");
	if (mode == 1 || mode == 2)
		scenario_check("frames=17 fprobe_exits=17 fprobe_bad=0");
	else
		scenario_check("frames=0 fprobe_exits=0 fprobe_bad=0");
}

static void test_migrate(void)
{
	if (!scenario_run("kretprobe 3"))
		return;
	scenario_check("ret=42 entries=1 exits=1 bad_data=0 bad_ret=0 entry_cpu=0 exit_cpu=1");
	scenario_check("nmissed=0 fgraph=1");
}

static void test_stack_full(void)
{
	long entries, stack;

	if (!scenario_run("kretprobe 400"))
		return;
	entries = scenario_field("entries");
	stack = scenario_field("stack");
	scenario_check("ret=400 bad_data=0 bad_ret=0 recursion=0 other=0 fgraph=1");
	ASSERT_GE(stack, 1, "calls that did not fit are counted");
	ASSERT_EQ(entries + stack, 401, "every call either entered or was counted");
	ASSERT_EQ(scenario_field("refused"), entries / 2, "odd levels refused");
	ASSERT_EQ(scenario_field("exits"), entries - entries / 2, "every kept return ran");
	ASSERT_EQ(scenario_field("nmissed"), stack, "nmissed is the stack misses");
	test__log("  shadow stack: %ld of 401 nested calls hooked, %ld counted as missed\n",
		  entries, stack);
}

/*
 * Kretprobes that rethook serves, with maxactive 17: a data pouch too big
 * for the shadow stack (@mode 0), or a function without ftrace site (1).
 */
static void test_fallback(int mode)
{
	if (!scenario_run_arg("krfallback", mode))
		return;
	scenario_check("ret=16 entries=17 refused=8 exits=9 bad_data=0 bad_ret=0 nmissed=0");
	scenario_check("fgraph=0 stack=0 recursion=0 other=0");
}

/*
 * "kretprobe 0" on the shadow stack with a second kretprobe on the same
 * function for one of its two calls: a copy of its struct kretprobe,
 * which rethook serves (@mode 2), a kretprobe on rethook whose
 * pre-handler runs first (3), or a kretprobe on the shadow stack whose
 * pre-handler pushes the frames that it joins (4), whose returns fgraph
 * gives the two by a walk of each frame. None may disturb it: its 17
 * returns of the last call still come, each with the caller's return
 * address, and the second's 17 returns of the first.
 */
static void test_second(int mode)
{
	if (!scenario_run_arg("krfallback", mode))
		return;
	scenario_check("ret=16 entries=34 refused=16 exits=18 bad_data=0 bad_ret=0 nmissed=0");
	scenario_check("fgraph=1 stack=0 recursion=0 other=0 second_hits=17 entries_last=17");
}

/* A return handler that changes the return value: on rethook (0), on fgraph (2) */
static void test_override(int mode)
{
	if (!scenario_run_arg("kroverride", mode))
		return;
	scenario_check("ret=1016 bad_data=0 bad_ret=0 nmissed=0");
	/* mode 2 calls the function twice, both times with the override */
	ASSERT_EQ(scenario_field("exits"), mode == 2 ? 18 : 9, "returns");
	ASSERT_EQ(scenario_field("fgraph"), mode == 2, "the path");
}

static void test_unregister(void)
{
	if (!scenario_run("krunregister 100"))
		return;
	/* the fprobe sees all; the kretprobe, gone, counts what was pending */
	scenario_check("entries=100 exits=100 wrong_returns=0 kretprobe_hits=0");
	scenario_check("kretprobe_missed=100 fgraph=1 stack=0 recursion=0 other=100");
}

/*
 * debugfs kprobes/list shows the event's kretprobe as one ("r"), on the
 * shadow stack: through ftrace, and not marked as taking rethook.
 */
static void check_list_line(void)
{
	static char list[16384];
	char *line, *end;

	if (!ASSERT_GE(read_file("/sys/kernel/debug/kprobes/list", list, sizeof(list)), 0,
		       "read kprobes/list"))
		return;
	line = strstr(list, "  r  fpm_test_recurse+0x");
	if (!ASSERT_TRUE(line, "the kretprobe is listed as one")) {
		test__log("%s", list);
		return;
	}
	end = strchr(line, '\n');
	if (end)
		*end = 0;
	ASSERT_HAS(line, "  fpm_test [FTRACE]", "its flags");
	ASSERT_FALSE(strstr(line, "[RETHOOK]"), "not on rethook");
}

#define SLOT_INSTANCES	20

/* Tracing instance @i's file @file */
static const char *slot_path(int i, const char *file)
{
	static char path[128];

	snprintf(path, sizeof(path), TRACEFS "instances/fpmslot%d%s%s", i, *file ? "/" : "",
		 file);
	return path;
}

/*
 * With every fgraph slot taken (the function_graph tracer in tracing
 * instances), a kretprobe cannot get one for the shadow stack: a tracefs
 * r: event still registers, on rethook, and gets its returns.
 */
static void test_no_slot(void)
{
	static char trace[65536], list[16384];
	bool full = false;
	int n, i;

	for (n = 0; n < SLOT_INSTANCES && !full; n++) {
		if (!ASSERT_OK(mkdir(slot_path(n, ""), 0755), "make a tracing instance"))
			break;
		write_file(slot_path(n, "set_ftrace_filter"), "fpm_test_recurse");
		/* no slot left for this one */
		full = write_file(slot_path(n, "current_tracer"), "function_graph");
	}
	if (!ASSERT_TRUE(full, "function_graph instances took every fgraph slot") ||
	    !ASSERT_OK(write_file(TRACEFS "kprobe_events",
				  "r:kprobes/fpmslot fpm_test_recurse ret=$retval"),
		       "add r: event"))
		goto out;
	if (!ASSERT_OK(write_file(TRACEFS "events/kprobes/fpmslot/enable", "1"),
		       "enable with no fgraph slot"))
		goto out_event;
	write_file(TRACEFS "trace", "");
	if (scenario_run("call 5"))
		scenario_check("ret=5");
	write_file(TRACEFS "events/kprobes/fpmslot/enable", "0");
	if (ASSERT_GE(read_file(TRACEFS "trace", trace, sizeof(trace)), 0, "read trace"))
		ASSERT_EQ(count_substr(trace, "fpmslot:"), 6, "one event per return");
	write_file(TRACEFS "events/kprobes/fpmslot/enable", "1");
	if (ASSERT_GE(read_file("/sys/kernel/debug/kprobes/list", list, sizeof(list)), 0,
		      "read kprobes/list"))
		ASSERT_HAS(list, "fpm_test [FTRACE][RETHOOK]", "listed on rethook");
out_event:
	write_file(TRACEFS "events/kprobes/fpmslot/enable", "0");
	write_file(TRACEFS "kprobe_events", "");
out:
	for (i = 0; i < n; i++) {
		write_file(slot_path(i, "current_tracer"), "nop");
		rmdir(slot_path(i, ""));
	}
}

/*
 * A tracefs kretprobe event with $retval and an entry argument kept for
 * the return (in the instance's data pouch): fpm_test_recurse(5) nests 6
 * deep, and returns its argument at every level.
 */
static void test_tracefs_event(void)
{
	static char trace[65536];
	char want[64], label[96];
	int i;

	if (!ASSERT_OK(write_file(TRACEFS "kprobe_events",
				  "r:kprobes/fpmret fpm_test_recurse ret=$retval depth=$arg1"),
		       "add r: event"))
		return;
	if (!ASSERT_OK(write_file(TRACEFS "events/kprobes/fpmret/enable", "1"), "enable"))
		goto out;
	check_list_line();
	ASSERT_OK(write_file(TRACEFS "trace", ""), "clear the trace buffer");
	if (!scenario_run("call 5"))
		goto out;
	scenario_check("ret=5");
	write_file(TRACEFS "events/kprobes/fpmret/enable", "0");
	if (!ASSERT_GE(read_file(TRACEFS "trace", trace, sizeof(trace)), 0, "read trace"))
		goto out;
	if (!ASSERT_EQ(count_substr(trace, "fpmret:"), 6, "one event per return"))
		test__log("%s", trace);
	ASSERT_EQ(count_substr(trace, "<- fpm_test_recurse)"), 6, "events of the function");
	/* the 5 inner levels return into the function itself */
	ASSERT_EQ(count_substr(trace, "(fpm_test_recurse+"), 5, "return sites");
	for (i = 0; i <= 5; i++) {
		snprintf(want, sizeof(want), " ret=%d depth=0x%x\n", i, i);
		snprintf(label, sizeof(label), "return value and entry argument of level %d", i);
		if (!ASSERT_EQ(count_substr(trace, want), 1, label))
			test__log("%s", strstr(trace, "fpmret:") ?: trace);
	}
out:
	write_file(TRACEFS "events/kprobes/fpmret/enable", "0");
	write_file(TRACEFS "kprobe_events", "");
}

/*
 * The function_graph tracer, an fprobe (what kretprobe.multi and
 * fprobe.multi links run on) and the kretprobe on one function: still one
 * frame per call, and each sees its returns.
 */
static void test_with_function_graph(void)
{
	static char trace[65536];
	char want[64];

	if (!scenario_run_graphed("kretprobe 1", trace, sizeof(trace)))
		return;
	scenario_check("ret=16 entries=17 refused=8 exits=9 bad_data=0 bad_ret=0 nmissed=0");
	scenario_check("frames=17 fprobe_exits=17 fprobe_bad=0 fgraph=1");
	/* 16 nested calls, each opened and closed, and the leaf */
	ASSERT_EQ(count_substr(trace, "fpm_test_recurse"), 33, "function_graph lines");
	ASSERT_HAS(trace, graph_retval(want, sizeof(want), "} /* fpm_test_recurse [fpm_test]", 16),
		   "function_graph outermost return value");
}

void test_kretprobe_fgraph(void)
{
	if (!ASSERT_OK(access(FPM_RUN, W_OK), "fpm_test module loaded"))
		return;
	if (test__start_subtest("recursion_16"))
		test_recursion();
	if (test__start_subtest("joins_fprobe_frames"))
		test_with_fprobe(1);
	if (test__start_subtest("fprobe_joins_frames"))
		test_with_fprobe(2);
	if (test__start_subtest("no_entry_handler"))
		test_no_entry_handler(0);
	if (test__start_subtest("no_entry_handler_joins_fprobe"))
		test_no_entry_handler(1);
	if (test__start_subtest("no_entry_handler_fprobe_joins"))
		test_no_entry_handler(2);
	if (test__start_subtest("no_entry_handler_override"))
		test_no_entry_handler(3);
	if (test__start_subtest("sleep_and_migrate"))
		test_migrate();
	if (test__start_subtest("stack_exhaustion"))
		test_stack_full();
	if (test__start_subtest("fallback_data_size"))
		test_fallback(0);
	if (test__start_subtest("fallback_no_ftrace_site"))
		test_fallback(1);
	if (test__start_subtest("copy_of_registered"))
		test_second(2);
	if (test__start_subtest("under_rethook"))
		test_second(3);
	if (test__start_subtest("two_on_fgraph"))
		test_second(4);
	if (test__start_subtest("return_value_override_rethook"))
		test_override(0);
	if (test__start_subtest("return_value_override"))
		test_override(2);
	if (test__start_subtest("no_fgraph_slot"))
		test_no_slot();
	if (test__start_subtest("unregister_under_load"))
		test_unregister();
	if (test__start_subtest("with_function_graph"))
		test_with_function_graph();
	if (test__start_subtest("tracefs_event"))
		test_tracefs_event();
}
