// SPDX-License-Identifier: GPL-2.0
/*
 * Probes on what the exit path itself calls. The exits of fprobe's BPF
 * links and of kretprobes on the shadow stack run without ftrace's
 * recursion protection, so nothing traceable may run between a function's
 * return and their own guard (bpf_prog_active, current_kprobe): a probe on
 * it would recurse without end and overflow the stack. With the debug
 * flavour's PROVE_RCU and DEBUG_ATOMIC_SLEEP, RCU's lockdep checks and
 * cant_sleep() are such functions, and traceable: an fprobe.session link
 * and classic kretprobes (tracefs r: events) go on every one of them that
 * ftrace can hook; the session also on bpf_fentry_test1() and
 * bpf_get_current_comm(), which it calls at every exit, and a kretprobe on
 * bpf_fentry_test1() too. The default flavour has none of the debug
 * functions, and checks the rest.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test_progs.h"
#include "helpers.h"
#include "exit_path_probes.skel.h"

#define EVENTS "/sys/kernel/tracing/dynamic_events"
#define GROUP "fpm_exitpath"

static const char * const debug_funcs[] = {
	"rcu_read_lock_held", "rcu_read_lock_sched_held", "rcu_read_lock_any_held",
	"rcu_read_lock_bh_held", "__cant_sleep", "__cant_migrate",
};

/* The debug functions ftrace can hook, after bpf_fentry_test1 and the helper */
static int exit_path_funcs(const char **syms)
{
	int i, n = 0;

	syms[n++] = "bpf_fentry_test1";
	syms[n++] = "bpf_get_current_comm";
	for (i = 0; i < ARRAY_SIZE(debug_funcs); i++)
		if (ftrace_addr(debug_funcs[i]))
			syms[n++] = debug_funcs[i];
	return n;
}

#define INSTANCE "/sys/kernel/tracing/instances/" GROUP

/*
 * A kretprobe event on bpf_fentry_test1 (e0), enabled in a trace instance
 * of its own, where its hits are counted, and one on each debug function,
 * enabled in the top buffer, emptied after. @k counts the events made.
 */
static int add_kretprobes(const char **syms, int n, int *k)
{
	char cmd[128];
	int i;

	for (i = 0; i < n; i++) {
		if (i == 1)	/* the helper: the session's own call */
			continue;
		snprintf(cmd, sizeof(cmd), "r:" GROUP "/e%d %s", *k, syms[i]);
		if (!ASSERT_OK(append_file(EVENTS, cmd), cmd))
			return -1;
		(*k)++;
	}
	if (!ASSERT_OK(mkdir(INSTANCE, 0755), "a trace instance for e0") ||
	    !ASSERT_OK(write_file(INSTANCE "/events/" GROUP "/e0/enable", "1"), "enable e0"))
		return -1;
	for (i = 1; i < *k; i++) {
		snprintf(cmd, sizeof(cmd), "/sys/kernel/tracing/events/" GROUP "/e%d/enable", i);
		if (!ASSERT_OK(write_file(cmd, "1"), "enable a debug function's kretprobe"))
			return -1;
	}
	return 0;
}

static void del_kretprobes(int k)
{
	char cmd[64];
	int i;

	write_file("/sys/kernel/tracing/events/" GROUP "/enable", "0");
	write_file(INSTANCE "/events/" GROUP "/enable", "0");
	rmdir(INSTANCE);
	write_file("/sys/kernel/tracing/trace", "");
	for (i = 0; i < k; i++) {
		snprintf(cmd, sizeof(cmd), "-:" GROUP "/e%d", i);
		append_file(EVENTS, cmd);
	}
}

void test_exit_path_probes(void)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .session = true);
	const char *syms[2 + ARRAY_SIZE(debug_funcs)];
	struct exit_path_probes_bpf *skel;
	struct bpf_prog_info pinfo = {};
	__u32 plen = sizeof(pinfo);
	struct bpf_link *link = NULL;
	int kretprobes = 0;
	char buf[4096];

	opts.syms = syms;
	opts.cnt = exit_path_funcs(syms);
	test__log("  %zu debug functions traceable\n", opts.cnt - 2);
	skel = exit_path_probes_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load exit_path_probes"))
		return;
	skel->bss->target_tgid = getpid();
	skel->bss->test1_ip = ksym_addr("bpf_fentry_test1");
	link = bpf_program__attach_fprobe_multi_opts(skel->progs.exit_path_session, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach the session"))
		goto out;
	if (add_kretprobes(syms, opts.cnt, &kretprobes))
		goto out;

	if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8"))
		goto out;
	ASSERT_EQ(skel->bss->test1_runs[0], 1, "bpf_fentry_test1: entry runs");
	ASSERT_EQ(skel->bss->test1_runs[1], 1, "bpf_fentry_test1: exit runs");
	if (ASSERT_GE(read_file(INSTANCE "/trace", buf, sizeof(buf)), 0, "read e0's trace"))
		ASSERT_EQ(count_substr(buf, " e0: "), 1, "the kretprobe event: one return");
	/*
	 * Each exit run's helper call: hooked, its entry run refused as
	 * nested. The debug functions are also called, nested, from the
	 * runs themselves and from interrupts during them: then more.
	 */
	if (ASSERT_OK(bpf_prog_get_info_by_fd(bpf_program__fd(skel->progs.exit_path_session),
					      &pinfo, &plen), "prog_info")) {
		if (opts.cnt == 2)
			ASSERT_EQ(pinfo.recursion_misses, skel->bss->all_runs[1],
				  "recursion_misses: one per exit run");
		else
			ASSERT_GE(pinfo.recursion_misses, skel->bss->all_runs[1],
				  "recursion_misses: one per exit run at least");
	}
	ASSERT_LE(skel->bss->all_runs[1], skel->bss->all_runs[0], "exit runs <= entry runs");
out:
	bpf_link__destroy(link);
	del_kretprobes(kretprobes);
	exit_path_probes_bpf__destroy(skel);
}
