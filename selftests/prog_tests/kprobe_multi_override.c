// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_override_return() from a kprobe.multi program: on fpm_test_inject(),
 * which is on the error-injection list, the call returns the program's
 * -EACCES instead of its argument; on a function that is not on the list
 * the attach fails with -EINVAL.
 */
#include "test_progs.h"
#include "helpers.h"
#include "kprobe_multi_override.skel.h"

static const char * const injectable[] = { "fpm_test_inject" };
static const char * const not_injectable[] = { "bpf_fentry_test1" };

static void run_inject(int arg, const char *want, const char *label)
{
	char cmd[32], buf[64];

	snprintf(cmd, sizeof(cmd), "inject %d", arg);
	if (ASSERT_OK(fpm_run(cmd, buf, sizeof(buf)), cmd))
		ASSERT_STREQ(buf, want, label);
}

void test_kprobe_multi_override(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = (const char **)injectable, .cnt = 1);
	struct kprobe_multi_override_bpf *skel;
	struct bpf_link *link = NULL;

	skel = kprobe_multi_override_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_override"))
		return;
	skel->bss->target_tgid = getpid();
	run_inject(7, "ret=7\n", "fpm_test_inject(7) unprobed");

	opts.syms = (const char **)not_injectable;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.override, NULL, &opts);
	ASSERT_ERR_PTR(link, EINVAL, "override on a function not on the injection list");

	opts.syms = (const char **)injectable;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.override, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach kprobe.multi to fpm_test_inject"))
		goto out;
	run_inject(7, "ret=-13\n", "fpm_test_inject(7) overridden with -EACCES");
	ASSERT_EQ(skel->bss->hits, 1, "program runs");
	ASSERT_EQ(skel->bss->func_ip, ksym_addr("fpm_test_inject"), "bpf_get_func_ip()");
	bpf_link__destroy(link);
	link = NULL;
	run_inject(7, "ret=7\n", "fpm_test_inject(7) after detach");
out:
	bpf_link__destroy(link);
	kprobe_multi_override_bpf__destroy(skel);
}
