// SPDX-License-Identifier: GPL-2.0
/*
 * The function_graph tracer, the first fgraph user, filtered to
 * bpf_fentry_test1..8 with funcgraph-retval: each function must appear
 * exactly once, as a leaf, with the value it returned. fprobe shares the
 * same shadow stack: with a kretprobe.multi link on the same functions at
 * the same time, both must see every return with its value.
 */
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
	char want[96], label[96];
	int i;

	if (with_multi) {
		skel = kretprobe_record_bpf__open_and_load();
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
		snprintf(want, sizeof(want), "%s(); /* = 0x%x */\n", fentry_test_names[i],
			 fentry_test_rets[i]);
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

void test_fgraph_tracer(void)
{
	if (test__start_subtest("retval"))
		run(false);
	if (test__start_subtest("with_kretprobe_multi"))
		run(true);
}
