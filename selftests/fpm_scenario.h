/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scenarios of the fpm_test module (selftests/kmod/fpm_test.c), for the
 * tests that drive it: run one, then check the "key=value" fields of its
 * result line.
 */
#ifndef FPM_SCENARIO_H
#define FPM_SCENARIO_H

#include "test_progs.h"
#include "helpers.h"

/* The result line, after a space so that every key follows one. */
static char scenario_result[512] = " ";

static inline bool scenario_run(const char *scenario)
{
	if (!ASSERT_OK(write_file(FPM_RUN, scenario), scenario))
		return false;
	return ASSERT_GE(read_file(FPM_RUN, scenario_result + 1,
				   sizeof(scenario_result) - 1), 1,
			 "read result");
}

/* scenario_run() of "@name @arg" */
static inline bool scenario_run_arg(const char *name, int arg)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "%s %d", name, arg);
	return scenario_run(cmd);
}

/*
 * scenario_run() under the function_graph tracer on fpm_test_recurse(),
 * with return values shown, and its trace read into @trace (@size bytes);
 * the tracer is off again on return.
 */
static inline bool scenario_run_graphed(const char *scenario, char *trace, size_t size)
{
	bool ok = false;

	if (!ASSERT_OK(write_file(TRACEFS "set_ftrace_filter", "fpm_test_recurse"),
		       "filter function_graph to fpm_test_recurse"))
		return false;
	/* a return's line names the function only with its value */
	write_file(TRACEFS "options/funcgraph-retval", "1");
	write_file(TRACEFS "tracing_on", "1");
	if (!ASSERT_OK(write_file(TRACEFS "current_tracer", "function_graph"),
		       "start function_graph"))
		goto cleanup;
	write_file(TRACEFS "trace", "");
	if (!scenario_run(scenario))
		goto cleanup;
	write_file(TRACEFS "tracing_on", "0");
	ok = ASSERT_GE(read_file(TRACEFS "trace", trace, size), 0, "read trace");
cleanup:
	write_file(TRACEFS "current_tracer", "nop");
	write_file(TRACEFS "options/funcgraph-retval", "0");
	write_file(TRACEFS "set_ftrace_filter", "");
	write_file(TRACEFS "tracing_on", "1");
	return ok;
}

/* The value of "key=" in the result line; -1 when absent. */
static inline long scenario_field(const char *key)
{
	char pat[40];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(scenario_result, pat);
	return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/* Check each "key=value" of @expected against the result line. */
static inline void scenario_check(const char *expected)
{
	char key[32], label[64];
	long value;
	int n;

	while (sscanf(expected, " %31[^=]=%ld%n", key, &value, &n) == 2) {
		snprintf(label, sizeof(label), "fpm_test %s", key);
		ASSERT_EQ(scenario_field(key), value, label);
		expected += n;
	}
	ASSERT_FALSE(*expected, "every expected field parsed");
}

#endif
