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
