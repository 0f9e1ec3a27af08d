// SPDX-License-Identifier: GPL-2.0
/*
 * The function_graph tracer, the first fgraph user, filtered to
 * bpf_fentry_test1..8 with funcgraph-retval: each function must appear
 * exactly once, as a leaf, with the value it returned. Later changes move
 * fprobe onto the same shadow stack, so this must keep holding.
 */
#include "test_progs.h"
#include "helpers.h"

static int count(const char *s, const char *needle)
{
	int n = 0;

	for (s = strstr(s, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

static void run(void)
{
	static char trace[32768];
	char want[96], label[96];
	int i;

	if (!ASSERT_OK(write_file(TRACEFS "set_ftrace_filter", "bpf_fentry_test*"),
		       "filter function_graph to bpf_fentry_test*"))
		return;
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
		ASSERT_EQ(count(trace, want), 1, label);
		snprintf(want, sizeof(want), "%s(); /* = 0x%x */\n", fentry_test_names[i],
			 fentry_test_rets[i]);
		snprintf(label, sizeof(label), "function_graph return value of %s",
			 fentry_test_names[i]);
		ASSERT_HAS(trace, want, label);
	}
cleanup:
	write_file(TRACEFS "current_tracer", "nop");
	write_file(TRACEFS "tracing_on", "1");
	write_file(TRACEFS "options/funcgraph-retval", "0");
	write_file(TRACEFS "set_ftrace_filter", "");
}

void test_fgraph_tracer(void)
{
	if (test__start_subtest("retval"))
		run();
}
