// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own ftracetest cases that exercise fprobe, its tracefs
 * events, the function graph tracer and kprobe events (whose kretprobes
 * take their returns on the fgraph shadow stack), run from the applied tree's
 * tools/testing/selftests/ftrace (copied to /ftrace in the guest) with
 * bash, one case per subtest. A case whose "requires:" this kernel does not
 * meet is a skip, with that line as the reason.
 *
 * Not run, because they need features this config leaves out and do not
 * involve fprobe or fgraph:
 *   dynevent/add_remove_eprobe.tc, eprobes_syntax_errors.tc,
 *   test_duplicates.tc            event probes (EPROBE_EVENTS)
 *   dynevent/add_remove_synth.tc, clear_select_events.tc,
 *   generic_clear_event.tc        synthetic events (SYNTH_EVENTS)
 *   dynevent/add_remove_uprobe.tc uprobe events (UPROBE_EVENTS)
 *   dynevent/add_remove_tprobe_module.tc
 *                                 the trace-events-sample module
 *   ftrace/fgraph-filter-stack.tc,
 *   kprobe/kprobe_ftrace.tc       the stack tracer (STACK_TRACER)
 *   ftrace/fgraph-profiler.tc     the function profiler (FUNCTION_PROFILER)
 */
#include "test_progs.h"
#include "helpers.h"

#define FTRACE_DIR "/ftrace/"

static const char *const cases[] = {
	"test.d/dynevent/add_remove_fprobe.tc",
	"test.d/dynevent/fprobe_args_vfs.tc",
	"test.d/dynevent/fprobe_entry_arg.tc",
	"test.d/dynevent/fprobe_syntax_errors.tc",
	"test.d/dynevent/add_remove_btfarg.tc",
	"test.d/dynevent/add_remove_tprobe.tc",
	"test.d/dynevent/tprobe_syntax_errors.tc",
	"test.d/dynevent/add_remove_kprobe.tc",
	/* kprobe events: classic kretprobes take their returns on fgraph */
	"test.d/kprobe/add_and_remove.tc",
	"test.d/kprobe/busy_check.tc",
	"test.d/kprobe/kretprobe_args.tc",
	"test.d/kprobe/kretprobe_entry_arg.tc",
	"test.d/kprobe/kretprobe_maxactive.tc",
	"test.d/kprobe/kretprobe_return_suffix.tc",
	"test.d/kprobe/multiple_kprobes.tc",
	"test.d/kprobe/probepoint.tc",
	"test.d/kprobe/profile.tc",
	"test.d/ftrace/fgraph-filter.tc",
	"test.d/ftrace/fgraph-multi.tc",
	"test.d/ftrace/fgraph-retval.tc",
};

/* The case's "requires:" line, for a skip's reason. */
static void requires_of(const char *tc, char *buf, size_t size)
{
	static char text[8192];
	char path[128], *req, *end;

	snprintf(path, sizeof(path), FTRACE_DIR "%s", tc);
	snprintf(buf, size, "unsupported");
	if (read_file(path, text, sizeof(text)) < 0)
		return;
	req = strstr(text, "# requires:");
	if (!req)
		return;
	end = strchr(req, '\n');
	snprintf(buf, size, "%.*s", end ? (int)(end - req - 2) : 200, req + 2);
}

/* Run one case; its KTAP line is "ok 1 DESC", "ok 1 DESC # SKIP" or "not ok 1 DESC # ..." */
static void run_case(const char *tc)
{
	char cmd[256], line[512], why[256];
	int results = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "cd " FTRACE_DIR " && bash ./ftracetest -K %s 2>&1", tc);
	f = popen(cmd, "r");
	if (!ASSERT_TRUE(f, "start ftracetest"))
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "not ok ", 7)) {
			results++;
			ASSERT_TRUE(false, line);
		} else if (!strncmp(line, "ok ", 3)) {
			results++;
			if (strstr(line, "# SKIP")) {
				requires_of(tc, why, sizeof(why));
				test__skip(why);
			}
		}
	}
	pclose(f);
	ASSERT_EQ(results, 1, "ftracetest reported one result");
}

void test_ftracetest(void)
{
	char name[64];
	size_t i;

	if (!ASSERT_OK(access(FTRACE_DIR "ftracetest", R_OK), "ftracetest in the guest"))
		return;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *base = strrchr(cases[i], '/') + 1;

		snprintf(name, sizeof(name), "%.*s", (int)(strlen(base) - 3), base);
		if (test__start_subtest(name))
			run_case(cases[i]);
	}
}
