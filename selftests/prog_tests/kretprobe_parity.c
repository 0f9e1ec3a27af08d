// SPDX-License-Identifier: GPL-2.0
/*
 * Parity baseline: a classic perf-event kretprobe, a kretprobe.multi link
 * and a fprobe.multi session on bpf_fentry_test1..8 must each see exactly
 * one return per call, with the function's return value, its IP and the
 * cookie of that function; run together, they must record identical tables.
 * ftrace calls the hooks of a function newest first. When the classic
 * kretprobe comes between the two links ("interleaved"), it joins the
 * call's fgraph frame that the first link's hook pushed, and the second
 * link joins it too: one frame, three returns. (On rethook, the kretprobe
 * took the return address between the two hooks, and the second link had
 * to leave that address alone.)
 */
#include "test_progs.h"
#include "helpers.h"
#include "kretprobe_record.skel.h"

static void check_table(const struct call_rec *tab, const char *who)
{
	char label[96];
	int i;

	for (i = 1; i <= NR_FENTRY_TESTS; i++) {
		const char *fn = fentry_test_names[i - 1];

		snprintf(label, sizeof(label), "%s: returns seen from %s", who, fn);
		ASSERT_EQ(tab[i].exits, 1, label);
		snprintf(label, sizeof(label), "%s: return value of %s", who, fn);
		ASSERT_EQ(tab[i].ret, fentry_test_rets[i - 1], label);
		snprintf(label, sizeof(label), "%s: bpf_get_func_ip() at exit of %s", who, fn);
		ASSERT_EQ(tab[i].func_ip, ksym_addr(fn), label);
		snprintf(label, sizeof(label), "%s: attach cookie of %s", who, fn);
		ASSERT_EQ(tab[i].cookie, i, label);
	}
}

static int attach_classic(struct kretprobe_record_bpf *skel, struct bpf_link **links)
{
	int i;

	for (i = 0; i < NR_FENTRY_TESTS; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, opts, .retprobe = true, .bpf_cookie = i + 1);

		links[i] = bpf_program__attach_kprobe_opts(skel->progs.classic_ret,
							   fentry_test_names[i], &opts);
		if (!ASSERT_OK_PTR(links[i], "attach classic kretprobe"))
			return -1;
	}
	return 0;
}

static void run(bool classic, bool multi, bool fsession, bool interleaved)
{
	struct bpf_link *links[NR_FENTRY_TESTS] = {}, *mlink = NULL, *flink = NULL;
	struct kretprobe_record_bpf *skel;
	int i;

	if (fsession && skip_without_fprobe_multi())
		return;
	skel = open_and_load_on_base(kretprobe_record_bpf);
	if (!ASSERT_OK_PTR(skel, "open and load kretprobe_record"))
		return;
	skel->bss->target_tgid = getpid();
	if (classic && !interleaved && attach_classic(skel, links))
		goto cleanup;
	if (multi) {
		mlink = attach_fentry_tests_multi(skel->progs.multi_ret, true);
		if (!ASSERT_OK_PTR(mlink, "attach kretprobe.multi"))
			goto cleanup;
	}
	if (classic && interleaved && attach_classic(skel, links))
		goto cleanup;
	if (fsession) {
		flink = attach_fsession(skel->progs.fsession_ret, fentry_test_names,
					fentry_test_cookies, NR_FENTRY_TESTS);
		if (!ASSERT_OK_PTR(flink, "attach fprobe.session"))
			goto cleanup;
	}
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8"))
		goto cleanup;

	if (classic)
		check_table(skel->bss->classic, "kretprobe");
	else
		ASSERT_EQ(skel->bss->classic[1].exits, 0, "unattached kretprobe saw no return");
	if (multi)
		check_table(skel->bss->multi, "kretprobe.multi");
	else
		ASSERT_EQ(skel->bss->multi[1].exits, 0, "unattached kretprobe.multi saw no return");
	if (fsession)
		check_table(skel->bss->fsession, "fprobe.session");
	if (classic && multi)
		ASSERT_OK(memcmp(skel->bss->classic, skel->bss->multi, sizeof(skel->bss->multi)),
			  "kretprobe and kretprobe.multi tables are identical");
	if (classic && fsession)
		ASSERT_OK(memcmp(skel->bss->classic, skel->bss->fsession,
				 sizeof(skel->bss->fsession)),
			  "kretprobe and fprobe.session tables are identical");
cleanup:
	bpf_link__destroy(flink);
	bpf_link__destroy(mlink);
	for (i = 0; i < NR_FENTRY_TESTS; i++)
		bpf_link__destroy(links[i]);
	kretprobe_record_bpf__destroy(skel);
}

void test_kretprobe_parity(void)
{
	if (test__start_subtest("classic"))
		run(true, false, false, false);
	if (test__start_subtest("multi"))
		run(false, true, false, false);
	if (test__start_subtest("same_run"))
		run(true, true, false, false);
	if (test__start_subtest("fprobe_session"))
		run(false, false, true, false);
	if (test__start_subtest("all_three"))
		run(true, true, true, false);
	if (test__start_subtest("interleaved"))
		run(true, true, true, true);
}
