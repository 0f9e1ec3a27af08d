// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs fprobe events: "f:" on entry with $argN and "f%return" with
 * $retval and an entry argument fetched at exit, on bpf_fentry_test2(2, 3),
 * which returns 5. The trace buffer must hold exactly one line of each,
 * with those values. The entry event reports the ftrace call site, which
 * sits after the ENDBR when IBT is on.
 */
#include "test_progs.h"
#include "helpers.h"

static const char *const defs[] = {
	"f:fpm/t2 bpf_fentry_test2 a=$arg1:s32 b=$arg2:u64",
	"f:fpm/t2r bpf_fentry_test2%return ret=$retval:s32 a=$arg1:s32",
};

static void run(void)
{
	static char trace[16384];
	unsigned long site, func;
	int i, added = 0;
	char want[96];

	ASSERT_OK(write_file(TRACEFS "tracing_on", "1"), "tracing_on");
	for (i = 0; i < (int)ARRAY_SIZE(defs); i++, added++)
		if (!ASSERT_OK(append_file(TRACEFS "dynamic_events", defs[i]), defs[i]))
			goto cleanup;
	if (!ASSERT_OK(write_file(TRACEFS "trace", ""), "clear the trace buffer"))
		goto cleanup;
	if (!ASSERT_OK(write_file(TRACEFS "events/fpm/enable", "1"), "enable fpm events"))
		goto cleanup;
	ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8");
	ASSERT_OK(write_file(TRACEFS "events/fpm/enable", "0"), "disable fpm events");
	if (!ASSERT_GE(read_file(TRACEFS "trace", trace, sizeof(trace)), 0, "read trace"))
		goto cleanup;

	ASSERT_EQ(count_substr(trace, " t2: "), 1, "f: event lines");
	ASSERT_EQ(count_substr(trace, " t2r: "), 1, "f%return event lines");
	func = ksym_addr("bpf_fentry_test2");
	site = ftrace_addr("bpf_fentry_test2");
	ASSERT_NEQ(site, 0, "bpf_fentry_test2 in available_filter_functions_addrs");
	snprintf(want, sizeof(want), " t2: (bpf_fentry_test2+0x%lx/", site - func);
	ASSERT_HAS(trace, want, "f: event names the function's ftrace site");
	ASSERT_HAS(trace, ") a=2 b=3\n", "f: event $arg1 and $arg2");
	ASSERT_HAS(trace, " t2r: (bpf_prog_test_run_tracing+",
		   "f%return event names the caller");
	ASSERT_HAS(trace, " <- bpf_fentry_test2) ret=5 a=2\n",
		   "f%return event $retval and entry $arg1");
cleanup:
	while (added--) {
		char del[64];
		const char *name = defs[added] + 2;

		snprintf(del, sizeof(del), "-:%.*s", (int)strcspn(name, " "), name);
		ASSERT_OK(append_file(TRACEFS "dynamic_events", del), "remove fprobe event");
	}
}

void test_fprobe_events(void)
{
	if (test__start_subtest("entry_and_return"))
		run();
}
