// SPDX-License-Identifier: GPL-2.0
/*
 * "bpftool link show", plain and JSON, for a fprobe.multi session link:
 * its mode, counts and sizes, then every function with its address and
 * cookie. Also a kprobe.multi link attached by pattern, whose addresses are
 * ftrace sites (after the ENDBR under IBT): bpftool must still name them.
 */
#include "test_progs.h"
#include "helpers.h"
#include "fprobe_multi_rec.h"
#include "fprobe_multi.skel.h"
#include "kprobe_multi_args.skel.h"

static char out[16384];

static int run_bpftool(const char *args, __u32 link_id)
{
	char cmd[128];
	size_t n;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "/bin/bpftool %s link show id %u 2>&1", args, link_id);
	f = popen(cmd, "r");
	if (!f)
		return -errno;
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	if (pclose(f)) {
		test__log("%s:\n%s", cmd, out);
		return -1;
	}
	return 0;
}

static __u32 link_id(struct bpf_link *link)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len))
		return 0;
	return info.id;
}

static void test_fprobe_session(void)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .syms = (const char **)fentry_test_names,
		    .cookies = fentry_test_cookies, .cnt = NR_FENTRY_TESTS, .session = true,
		    .session_size = 16, .saved_args = 2);
	struct fprobe_multi_bpf *skel;
	struct bpf_link *link = NULL;
	char want[160];
	__u32 id;
	int i;

	skel = fprobe_multi_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load fprobe_multi"))
		return;
	link = bpf_program__attach_fprobe_multi_opts(skel->progs.fpm_session, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach fprobe.session"))
		goto out;
	id = link_id(link);

	if (!ASSERT_OK(run_bpftool("", id), "bpftool link show"))
		goto out;
	snprintf(want, sizeof(want), "%u: fprobe_multi  prog ", id);
	ASSERT_HAS(out, want, "link line");
	snprintf(want, sizeof(want), "\n\t%s  func_cnt 8  session_size 16  saved_args 2  %s",
		 "fprobe.session", "\n");
	ASSERT_HAS(out, want, "mode, counts and sizes");
	ASSERT_HAS(out, "\n\taddr             cookie           func [module]\n", "table header");
	for (i = 0; i < NR_FENTRY_TESTS; i++) {
		snprintf(want, sizeof(want), "\n\t%016lx %-16x %s  ",
			 ksym_addr(fentry_test_names[i]), i + 1, fentry_test_names[i]);
		ASSERT_HAS(out, want, "function row");
	}

	if (!ASSERT_OK(run_bpftool("-j", id), "bpftool -j link show"))
		goto out;
	ASSERT_HAS(out, "\"type\":\"fprobe_multi\"", "json type");
	/* overlapping pairs, so the fields come in this order */
	ASSERT_HAS(out, "\"mode\":\"session\",\"func_cnt\":8,", "json mode");
	ASSERT_HAS(out, "\"func_cnt\":8,\"session_size\":16,", "json func_cnt");
	ASSERT_HAS(out, "\"session_size\":16,\"saved_args\":2,", "json session_size");
	ASSERT_HAS(out, "\"saved_args\":2,\"missed\":0,", "json saved_args");
	ASSERT_HAS(out, "\"missed\":0,\"missed_stack\":0,\"funcs\":[", "json missed");
	for (i = 0; i < NR_FENTRY_TESTS; i++) {
		snprintf(want, sizeof(want), "{\"addr\":%lu,\"func\":\"%s\",",
			 ksym_addr(fentry_test_names[i]), fentry_test_names[i]);
		ASSERT_HAS(out, want, "json function address");
		snprintf(want, sizeof(want), "\"func\":\"%s\",\"module\":null,\"cookie\":%d}",
			 fentry_test_names[i], i + 1);
		ASSERT_HAS(out, want, "json function cookie");
	}
out:
	bpf_link__destroy(link);
	fprobe_multi_bpf__destroy(skel);
}

static void test_kprobe_multi_pattern(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct kprobe_multi_args_bpf *skel;
	struct bpf_link *link = NULL;
	char want[160];

	skel = kprobe_multi_args_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_args"))
		return;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.multi_entry, "bpf_fentry_test1",
						     &opts);
	if (!ASSERT_OK_PTR(link, "attach kprobe.multi by pattern"))
		goto out;
	if (!ASSERT_OK(run_bpftool("", link_id(link)), "bpftool link show"))
		goto out;
	snprintf(want, sizeof(want), "\n\tkprobe.multi  func_cnt 1  %s", "\n");
	ASSERT_HAS(out, want, "mode and count");
	snprintf(want, sizeof(want), "\n\t%016lx %-16x %s  ", ksym_addr("bpf_fentry_test1"), 0,
		 "bpf_fentry_test1");
	ASSERT_HAS(out, want, "the function is named");
out:
	bpf_link__destroy(link);
	kprobe_multi_args_bpf__destroy(skel);
}

void test_bpftool_link(void)
{
	if (test__start_subtest("fprobe_session"))
		test_fprobe_session();
	if (test__start_subtest("kprobe_multi_pattern"))
		test_kprobe_multi_pattern();
}
