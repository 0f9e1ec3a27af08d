// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe.multi entry programs on bpf_fentry_test1..8, attached by symbol
 * and by address: each call is seen once, with the arguments the caller
 * passed (compared at their C type's width, as the upper bits of narrow
 * register arguments are undefined), the function IP and its cookie; and
 * once when given an address twice, sorted (with cookies) or not.
 */
#include "test_progs.h"
#include "helpers.h"
#include "kprobe_multi_args.skel.h"

static void check_calls(const struct call_rec *rec)
{
	char label[96];
	int i, a;

	for (i = 1; i <= NR_FENTRY_TESTS; i++) {
		const struct fentry_args *e = &fentry_test_args[i - 1];
		const char *fn = fentry_test_names[i - 1];

		snprintf(label, sizeof(label), "entries seen for %s", fn);
		ASSERT_EQ(rec[i].entries, 1, label);
		snprintf(label, sizeof(label), "bpf_get_func_ip() at entry of %s", fn);
		ASSERT_EQ(rec[i].func_ip, ksym_addr(fn), label);
		snprintf(label, sizeof(label), "attach cookie of %s", fn);
		ASSERT_EQ(rec[i].cookie, i, label);
		for (a = 0; a < e->nr; a++) {
			snprintf(label, sizeof(label), "%s argument %d", fn, a + 1);
			ASSERT_EQ(fentry_arg_bits(rec[i].args[a], e->bits[a]), e->val[a], label);
		}
	}
	/* Kernel addresses have the top bit set, with 4- and 5-level paging. */
	ASSERT_TRUE((__s64)rec[8].args[0] < 0,
		    "bpf_fentry_test8 argument 1 is a kernel-half address");
}

enum attach_by {
	BY_SYMS,
	BY_ADDRS,
	BY_ADDRS_REPEATED,	/* bpf_fentry_test1's address twice */
};

/*
 * An address given twice is probed once, as the ftrace filter under the
 * old fprobe made it, so every mode must record the same calls.
 */
static const __u64 repeated_cookies[NR_FENTRY_TESTS + 1] = { 1, 1, 2, 3, 4, 5, 6, 7, 8 };

static void run(enum attach_by by)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts,
		    .cookies = fentry_test_cookies,
		    .cnt = NR_FENTRY_TESTS);
	unsigned long addrs[NR_FENTRY_TESTS + 1];
	struct kprobe_multi_args_bpf *skel;
	struct bpf_link *link = NULL;
	int i, n = 0;

	skel = kprobe_multi_args_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_args"))
		return;
	skel->bss->target_tgid = getpid();
	if (by == BY_ADDRS_REPEATED) {
		addrs[n++] = ksym_addr(fentry_test_names[0]);
		opts.cookies = repeated_cookies;
		opts.cnt = NR_FENTRY_TESTS + 1;
	}
	for (i = 0; i < NR_FENTRY_TESTS; i++)
		addrs[n++] = ksym_addr(fentry_test_names[i]);
	if (by == BY_SYMS)
		opts.syms = (const char **)fentry_test_names;
	else
		opts.addrs = addrs;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.multi_entry, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach kprobe.multi"))
		goto cleanup;
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8"))
		goto cleanup;
	check_calls(skel->bss->rec);
cleanup:
	bpf_link__destroy(link);
	kprobe_multi_args_bpf__destroy(skel);
}

/*
 * The same without cookies, which is when the link passes the addresses
 * in the order given: bpf_fentry_test8..1, then bpf_fentry_test1 again.
 * fprobe sorts them before it drops the second one.
 */
static void run_unsorted(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .cnt = NR_FENTRY_TESTS + 1);
	unsigned long addrs[NR_FENTRY_TESTS + 1];
	struct kprobe_multi_args_bpf *skel;
	struct bpf_link *link = NULL;
	char label[96];
	int i;

	skel = kprobe_multi_args_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_args"))
		return;
	skel->bss->target_tgid = getpid();
	for (i = 0; i < NR_FENTRY_TESTS; i++) {
		addrs[i] = ksym_addr(fentry_test_names[NR_FENTRY_TESTS - 1 - i]);
		skel->bss->by_ip_addrs[i + 1] = ksym_addr(fentry_test_names[i]);
	}
	addrs[NR_FENTRY_TESTS] = addrs[NR_FENTRY_TESTS - 1];
	opts.addrs = addrs;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.multi_entry_by_ip, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach kprobe.multi"))
		goto cleanup;
	if (!ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8"))
		goto cleanup;
	for (i = 1; i <= NR_FENTRY_TESTS; i++) {
		snprintf(label, sizeof(label), "entries seen for %s", fentry_test_names[i - 1]);
		ASSERT_EQ(skel->bss->by_ip_entries[i], 1, label);
	}
cleanup:
	bpf_link__destroy(link);
	kprobe_multi_args_bpf__destroy(skel);
}

void test_kprobe_multi(void)
{
	if (test__start_subtest("args_by_syms"))
		run(BY_SYMS);
	if (test__start_subtest("args_by_addrs"))
		run(BY_ADDRS);
	if (test__start_subtest("repeated_address"))
		run(BY_ADDRS_REPEATED);
	if (test__start_subtest("repeated_address_unsorted"))
		run_unsorted();
}
