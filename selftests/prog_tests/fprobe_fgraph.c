// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe on the fgraph shadow stack, driven through the fpm_test module
 * (selftests/kmod/fpm_test.c): recursion with per-level entry data, a sleep
 * that migrates to the other CPU, 500 tasks blocked in a probed function
 * (and under a classic kretprobe with its default maxactive, which sees
 * them all on the shadow stack), unregistering
 * or disabling while tasks are inside (an exit is run or counted, never
 * lost), registering again while they are (no exit of a call the new
 * registration did not enter), registrations that fail at each
 * allocation in turn, and the next user of their fgraph slot not seeing their returns;
 * filling the shadow stack, and sharing it with the
 * function_graph tracer; registering and unregistering while calls run, and
 * tasks without shadow stack that find fgraph's pool empty; a return
 * and a call where RCU is not watching, counted as missed; a kprobe-shared
 * fprobe's call missed inside a kprobe handler, whose exit is skipped.
 */
#include <stdlib.h>
#include <sys/utsname.h>
#include "test_progs.h"
#include "helpers.h"
#include "fpm_scenario.h"

static void test_recursion(void)
{
	if (!scenario_run("recursion 64"))
		return;
	scenario_check("ret=64 entries=65 exits=65 bad_data=0 bad_ret=0 nmissed=0 frames=65");
}

static void test_migrate(void)
{
	if (!scenario_run("migrate"))
		return;
	scenario_check("ret=42 entries=1 exits=1 bad_data=0 bad_ret=0 entry_cpu=0 exit_cpu=1");
}

static void test_block(void)
{
	if (!scenario_run("block 500"))
		return;
	scenario_check("entries=500 exits=500 bad_data=0 bad_ret=0 nmissed=0 wrong_returns=0");
	/* the kretprobe takes its returns on the shadow stack: no pool to run dry */
	scenario_check("kretprobe_hits=500 kretprobe_missed=0 fgraph=1");
	scenario_check("stack=0 recursion=0 other=0");
	test__log("  blocked: fprobe %ld returns; kretprobe maxactive %ld: %ld seen, %ld missed\n",
		  scenario_field("exits"), scenario_field("kretprobe_maxactive"),
		  scenario_field("kretprobe_hits"), scenario_field("kretprobe_missed"));
}

static void test_unregister(void)
{
	if (!scenario_run("unregister 100"))
		return;
	/* the exits still to come are counted by unregister_fprobe() */
	scenario_check("entries=100 exits=0 wrong_returns=0 nmissed=100 stack=0 recursion=0");
}

/*
 * Eight threads asleep in fpm_test_block() while its fprobe goes away and
 * other fgraph users take and leave slots, until the function_graph tracer
 * gets the slot the threads' frames were pushed for. When they return, the
 * tracer must not see the returns of calls it never entered; before fgraph
 * kept an epoch per slot, it printed one "} ... fpm_test_block" each.
 */
static void test_stale_frames(void)
{
	static char trace[65536];
	bool tracer = false;

	if (!scenario_run("stale 8"))
		return;
	scenario_check("entries=8 exits=0 nmissed=8");
	if (!ASSERT_OK(write_file(TRACEFS "set_ftrace_filter", "fpm_test_block"),
		       "set_ftrace_filter fpm_test_block"))
		goto release;
	ASSERT_OK(write_file(TRACEFS "options/funcgraph-tail", "1"), "funcgraph-tail on");
	ASSERT_OK(write_file(TRACEFS "tracing_on", "1"), "tracing_on");
	tracer = ASSERT_OK(write_file(TRACEFS "current_tracer", "function_graph"),
			   "current_tracer function_graph");
	ASSERT_OK(write_file(TRACEFS "trace", ""), "clear the trace buffer");
release:
	if (scenario_run("release"))
		scenario_check("threads=8 wrong_returns=0");
	if (tracer && ASSERT_GE(read_file(TRACEFS "trace", trace, sizeof(trace)), 0,
				"read trace"))
		ASSERT_EQ(count_substr(trace, "fpm_test_block"), 0,
			  "no return of a call the tracer never entered");
	write_file(TRACEFS "current_tracer", "nop");
	write_file(TRACEFS "options/funcgraph-tail", "0");
	write_file(TRACEFS "set_ftrace_filter", "");
}

/*
 * Threads asleep in a probed function while its fprobe is unregistered and
 * registered again: the second registration must not get the returns of
 * the calls the first entered (mainline named the fprobe in the frame by
 * its address, which the second registration has too). The first counts
 * them as missed.
 */
static void test_reregister(void)
{
	if (!scenario_run("reregister 50"))
		return;
	scenario_check("entries=50 exits=0 bad_data=0 bad_ret=0 nmissed=0");
	scenario_check("wrong_returns=0 missed_first=50");
}

/*
 * Registrations of fprobe's fgraph_ops that fail, at each allocation of an
 * ftrace hash in turn (fpm_test's "regfail"): each must leave fgraph as it
 * was, so that the next registration works and hooks the call, with fprobe
 * as fgraph's first user and again as its second, beside the
 * function_graph tracer. Before, fgraph kept the failed fgraph_ops marked
 * as registered and refused it from then on, with a warning.
 */
static void regfail_check(const char *as)
{
	char label[64];
	long failed;

	if (!scenario_run("regfail 64"))
		return;
	failed = scenario_field("failed");
	snprintf(label, sizeof(label), "%s: registrations made to fail", as);
	ASSERT_GE(failed, 2, label);
	scenario_check("other=0 retry_bad=0 complete=1");
	snprintf(label, sizeof(label), "%s: entries, one per failure", as);
	ASSERT_EQ(scenario_field("entries"), failed, label);
	snprintf(label, sizeof(label), "%s: exits, one per failure", as);
	ASSERT_EQ(scenario_field("exits"), failed, label);
	test__log("  %s: %ld registrations made to fail, each registered again\n",
		  as, failed);
}

static void test_register_failure(void)
{
	regfail_check("first user");
	if (!ASSERT_OK(write_file(TRACEFS "set_ftrace_filter", "fpm_test_outer"),
		       "set_ftrace_filter fpm_test_outer"))
		return;
	if (ASSERT_OK(write_file(TRACEFS "current_tracer", "function_graph"),
		      "current_tracer function_graph"))
		regfail_check("second user");
	write_file(TRACEFS "current_tracer", "nop");
	write_file(TRACEFS "set_ftrace_filter", "");
}

/*
 * Disabling stops new entries. On 7.x, as on mainline, no handler runs
 * while disabled, exits included, and the exits of the entries that ran
 * are counted as missed; the 6.12 series ran them.
 */
static void test_disable(void)
{
	if (!scenario_run("disable 100"))
		return;
	scenario_check("entries=100 bad_data=0 bad_ret=0 wrong_returns=0");
	if (kernel_major() >= 7)
		scenario_check("exits=0 nmissed=100");
	else
		scenario_check("exits=100 nmissed=0");
}

static void test_stack_full(void)
{
	long entries, stack;

	if (!scenario_run("recursion 400"))
		return;
	/* 400 levels do not fit in the 8 KiB shadow stack */
	entries = scenario_field("entries");
	stack = scenario_field("stack");
	scenario_check("ret=400");
	ASSERT_GE(stack, 1, "calls that did not fit are counted");
	ASSERT_EQ(entries + stack, 401, "every call either entered or was counted");
	ASSERT_EQ(scenario_field("exits"), entries, "every entered call exited");
	ASSERT_EQ(scenario_field("nmissed"), stack, "nmissed is the stack misses");
	scenario_check("recursion=0 bad_data=0 bad_ret=0");
	test__log("  shadow stack: %ld of 401 nested calls hooked, %ld counted as missed\n",
		  entries, stack);
}

static void test_with_function_graph(void)
{
	static char trace[65536];
	char want[64];
	int i;

	if (!scenario_run_graphed("recursion 8", trace, sizeof(trace)))
		return;
	scenario_check("entries=9 exits=9 bad_data=0 bad_ret=0");
	/* one fgraph frame per call, shared by both users */
	scenario_check("frames=9");
	ASSERT_EQ(count_substr(trace, "fpm_test_recurse"), 17, "function_graph lines");
	ASSERT_HAS(trace, graph_retval(want, sizeof(want), "fpm_test_recurse [fpm_test](); /*", 0),
		   "function_graph leaf return");
	for (i = 1; i <= 8; i++) {
		graph_retval(want, sizeof(want), "} /* fpm_test_recurse [fpm_test]", i);
		ASSERT_HAS(trace, want, "function_graph nested return value");
	}
}

/*
 * A second fprobe on a function registers while calls of it run: its new
 * nodes are visible before register_fprobe_ips() returns, and the exits of
 * the fprobe already there must still all arrive.
 */
static void test_register_race(void)
{
	if (!scenario_run("register 20"))
		return;
	scenario_check("cycles_ret=0 bad_data=0 bad_ret=0 nmissed=0 stack=0 recursion=0");
	ASSERT_GE(scenario_field("calls"), 2, "the looper ran");
	ASSERT_EQ(scenario_field("entries"), scenario_field("calls"), "every call entered");
	ASSERT_EQ(scenario_field("exits"), scenario_field("calls"), "every call exited");
	test__log("  %ld calls during 20 registrations, %ld exits\n", scenario_field("calls"),
		  scenario_field("exits"));
}

/* Two threads unregister one fprobe at once: only one may undo it. */
static void test_unregister_race(void)
{
	if (!scenario_run("unregister2"))
		return;
	scenario_check("ok=1 einval=1 ret=4 entries=5 exits=5 bad_data=0 bad_ret=0 nmissed=0");
}

/*
 * 64 tasks without shadow stack wake up at once under fprobes on
 * _raw_spin_unlock_irqrestore and fpm_test_recurse: fgraph's pool of 8
 * stacks runs out while the unlock it might take itself is probed.
 */
static void test_pool_empty(void)
{
	if (!scenario_run("pool 64"))
		return;
	scenario_check("stackless=64 unlock_exits=1 bad_data=0 bad_ret=0 recursion=0");
	ASSERT_EQ(scenario_field("entries") + scenario_field("stack"), 64,
		  "every call entered or counted");
	ASSERT_EQ(scenario_field("exits"), scenario_field("entries"), "every entered call exited");
	test__log("  64 stackless tasks: %ld calls hooked, %ld found no stack\n",
		  scenario_field("entries"), scenario_field("stack"));
}

/*
 * Whether no tracer is on: one without lazy stacks (function_graph) would
 * give every task a stack, and keep fgraph from taking any back.
 */
static bool no_tracer(void)
{
	char tracer[32];

	return ASSERT_GE(read_file(TRACEFS "current_tracer", tracer, sizeof(tracer)), 1,
			 "read current_tracer") &&
	       ASSERT_STREQ(tracer, "nop\n", "no tracer");
}

/*
 * Tasks that exist when an fprobe registers, fgraph's only user, get no
 * shadow stack then: 8 threads made while fgraph is idle take one each on
 * their first probed call, at once, from fgraph's pool, which holds 8
 * when fgraph starts. Every call is seen.
 */
static void test_lazy_stacks(void)
{
	if (!no_tracer() || !scenario_run("lazy 8"))
		return;
	scenario_check("entries=8 exits=8 bad_data=0 bad_ret=0 nmissed=0 stack=0 recursion=0");
	scenario_check("before=0 at_attach=0 after_call=8");
}

/*
 * Threads forked while an fprobe is fgraph's only user get no shadow stack
 * at fork; all 64 then take one from fgraph's pool on their first probed
 * call, at once: more than the 8 its worker keeps there (pool_empty above
 * misses some of 64), but each fork added one, so none is missed.
 */
static void test_forked_lazy(void)
{
	if (!no_tracer() || !scenario_run("forked 64"))
		return;
	scenario_check("entries=64 exits=64 bad_data=0 bad_ret=0 nmissed=0 stack=0 recursion=0");
	scenario_check("at_fork=0 after_call=64");
}

/*
 * A task that sleeps with nothing on its shadow stack gives its stack back
 * while fprobes are fgraph's only users: 8 threads take one on a probed
 * call and go to sleep, and fgraph takes all 8 back (it sees each
 * asleep twice, a second or more apart), but not that of a thread asleep
 * inside a probed call. Woken, the 8 call again at once and take stacks
 * from the pool, which keeps 8: every call and return is seen.
 */
static void test_sleeper_reclaim(void)
{
	if (!no_tracer() || !scenario_run("reclaim 8"))
		return;
	scenario_check("entries=17 exits=17 bad_data=0 bad_ret=0 nmissed=0 stack=0 recursion=0");
	scenario_check("first_call=8 reclaimed=8 kept=1 after_call=8 holder_ret=1 holder_missed=0");
}

/*
 * The same once the take-back's looks have backed off, for 40 s, at a
 * thread that calls the function every 100 ms and keeps its stack: the 8
 * sleepers taking their stacks bring the next look forward and restart
 * the backoff, so that the look after it, a second later, takes them
 * back. Every call of the busy thread is seen.
 */
static void test_sleeper_reclaim_backed_off(void)
{
	if (!no_tracer() || !scenario_run("reclaimbackoff 8"))
		return;
	scenario_check("first_call=8 reclaimed=8 kept=1 after_call=8 holder_ret=1 holder_missed=0");
	scenario_check("bad_data=0 bad_ret=0 nmissed=0 stack=0 recursion=0");
	ASSERT_GE(scenario_field("entries"), 17 + 100, "the busy thread's calls");
	ASSERT_EQ(scenario_field("exits"), scenario_field("entries"), "all seen");
}

/*
 * The take-back goes on once fgraph's last user has left: 500 threads
 * take a stack on a call under an fprobe and sleep, the fprobe goes at
 * once, and within 30 s none of them has a stack left. Every call is
 * seen or counted as a stack miss (the pool may run dry as they start).
 */
static void test_reclaim_after_detach(void)
{
	struct utsname u;

	/* fixed where the series was rebuilt (issue 38, item 3) */
	if (!uname(&u) && atoi(u.release) < 7) {
		test__skip("the 6.12 series stops taking stacks back with fgraph's last user");
		return;
	}
	if (!no_tracer() || !scenario_run("reclaimdetach 500"))
		return;
	scenario_check("bad_data=0 bad_ret=0 recursion=0 left=0");
	ASSERT_EQ(scenario_field("first_call"), scenario_field("entries"),
		  "a stack for every call seen");
	ASSERT_EQ(scenario_field("entries") + scenario_field("stack"), 500,
		  "every call seen or counted");
	ASSERT_EQ(scenario_field("exits"), scenario_field("entries"), "every exit seen");
	test__log("  500 threads: %ld took a stack, all given back after the detach\n",
		  scenario_field("first_call"));
}

/*
 * fpm_test_rcu_off() returns where RCU is not watching: fprobe cannot look
 * its fprobes up there, so the exit stays pending and is counted as missed
 * when the fprobe goes; the caller goes on unharmed.
 */
static void test_rcu_off(void)
{
	if (!scenario_run("rcuoff 1"))
		return;
	scenario_check("entries=1 exits=0 bad_data=0 bad_ret=0 nmissed=1 stack=0 recursion=0");
	scenario_check("ret=41 inner=2 eqs=1");
}

/*
 * fpm_test_in_eqs() is called where RCU is not watching: fgraph hooks
 * nothing there and no handler runs, but the call is counted as missed,
 * with an exit handler as without.
 */
static void test_rcu_off_entry(void)
{
	if (!scenario_run("rcuoff 2"))
		return;
	scenario_check("entries=0 exits=0 bad_data=0 bad_ret=0 nmissed=1 stack=0 recursion=0");
	scenario_check("ret=41 eqs=1 entry_only_missed=1");
}

/*
 * fpm_test_tail() tail-calls fpm_test_tail_inner(), each under an fprobe:
 * the inner frame is pushed over a return address hooked already, yet
 * all four handlers get the real caller, run_tailcall(), as ret_ip.
 */
static void test_tail_call(void)
{
	if (!scenario_run("tailcall"))
		return;
	ASSERT_STREQ(scenario_result,
		     " ret=16 callers=run_tailcall,run_tailcall,run_tailcall,run_tailcall\n",
		     "ret_ip of outer entry, outer exit, inner entry, inner exit");
}

/*
 * A kprobe-shared fprobe with entry and exit handler on fpm_test_recurse(),
 * which a kprobe's pre_handler calls: that call is missed, as a kprobe
 * runs, and counted as recursion. Its exit must not run either: its entry
 * data was never written (rec_exit() would count bad_data).
 */
static void test_kprobe_shared(void)
{
	if (!scenario_run("kshared"))
		return;
	scenario_check("entries=1 exits=1 bad_data=0 bad_ret=0 nmissed=1 stack=0 recursion=1");
	scenario_check("ret=3 kprobe_hits=1");
}

void test_fprobe_fgraph(void)
{
	if (!ASSERT_OK(access(FPM_RUN, W_OK), "fpm_test module loaded"))
		return;
	if (test__start_subtest("recursion_64"))
		test_recursion();
	if (test__start_subtest("sleep_and_migrate"))
		test_migrate();
	if (test__start_subtest("blocked_500"))
		test_block();
	if (test__start_subtest("unregister_under_load"))
		test_unregister();
	if (test__start_subtest("disable_under_load"))
		test_disable();
	if (test__start_subtest("register_failure"))
		test_register_failure();
	if (test__start_subtest("reregister_pending"))
		test_reregister();
	if (test__start_subtest("stale_frames"))
		test_stale_frames();
	if (test__start_subtest("stack_exhaustion"))
		test_stack_full();
	if (test__start_subtest("with_function_graph"))
		test_with_function_graph();
	if (test__start_subtest("register_race"))
		test_register_race();
	if (test__start_subtest("unregister_race"))
		test_unregister_race();
	if (test__start_subtest("pool_empty"))
		test_pool_empty();
	if (test__start_subtest("lazy_stacks"))
		test_lazy_stacks();
	if (test__start_subtest("forked_lazy"))
		test_forked_lazy();
	if (test__start_subtest("reclaim_after_detach"))
		test_reclaim_after_detach();
	if (test__start_subtest("sleeper_reclaim"))
		test_sleeper_reclaim();
	if (test__start_subtest("sleeper_reclaim_backed_off"))
		test_sleeper_reclaim_backed_off();
	if (test__start_subtest("rcu_off_return"))
		test_rcu_off();
	if (test__start_subtest("rcu_off_entry"))
		test_rcu_off_entry();
	if (test__start_subtest("tail_call"))
		test_tail_call();
	if (test__start_subtest("kprobe_shared"))
		test_kprobe_shared();
}
