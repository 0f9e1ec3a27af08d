// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe.session: one program at entry and exit. The entry stores
 * SESSION_MAGIC | N in the session cookie of bpf_fentry_testN and returns
 * nonzero for odd N, which must skip that call's exit. Exits must run for
 * the even functions only, each seeing its own cookie and return value.
 */
#include "test_progs.h"
#include "helpers.h"
#include "kprobe_session.skel.h"

#define SESSION_MAGIC 0x5e55000000000000ULL

static void run(int rounds)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts,
		    .syms = (const char **)fentry_test_names,
		    .cookies = fentry_test_cookies,
		    .cnt = NR_FENTRY_TESTS,
		    .session = true);
	struct kprobe_session_bpf *skel;
	struct bpf_link *link = NULL;
	const struct call_rec *r;
	char label[96];
	int i;

	skel = kprobe_session_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_session"))
		return;
	skel->bss->target_tgid = getpid();
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.session, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach kprobe.session"))
		goto cleanup;
	for (i = 0; i < rounds; i++)
		if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8"))
			goto cleanup;

	for (i = 1; i <= NR_FENTRY_TESTS; i++) {
		const char *fn = fentry_test_names[i - 1];
		bool odd = i & 1;

		r = &skel->bss->rec[i];
		snprintf(label, sizeof(label), "session entries of %s", fn);
		ASSERT_EQ(r->entries, rounds, label);
		snprintf(label, sizeof(label), "session exits of %s (%s)", fn,
			 odd ? "skipped by entry" : "kept");
		ASSERT_EQ(r->exits, odd ? 0 : rounds, label);
		if (odd)
			continue;
		snprintf(label, sizeof(label), "session cookie at exit of %s", fn);
		ASSERT_EQ(r->session, SESSION_MAGIC | i, label);
		snprintf(label, sizeof(label), "return value at session exit of %s", fn);
		ASSERT_EQ(r->ret, fentry_test_rets[i - 1], label);
		snprintf(label, sizeof(label), "bpf_get_func_ip() at session exit of %s", fn);
		ASSERT_EQ(r->func_ip, ksym_addr(fn), label);
	}
cleanup:
	bpf_link__destroy(link);
	kprobe_session_bpf__destroy(skel);
}

void test_kprobe_session(void)
{
	if (test__start_subtest("cookie_and_skip"))
		run(1);
	if (test__start_subtest("repeated_calls"))
		run(3);
}
