// SPDX-License-Identifier: GPL-2.0
/*
 * Extension programs of fprobe.multi programs and the argument counts. An
 * fprobe.multi link looks its functions' counts up only for a program that
 * reads them, so the verifier refuses an extension that reads them
 * (hook_arg_cnt, progs/fprobe_multi_ext_hook.bpf.c) in a program that does
 * not (no_args, progs/fprobe_multi_ext.bpf.c), with a message. In one
 * that does (with_args), it loads, and gives the exact counts. A fentry
 * program on an fprobe.multi program cannot read the context as the
 * pt_regs that the program's function declares (spy_regs on
 * pt_regs_main): the context is an opaque struct ftrace_regs, so the
 * verifier takes that declaration as unreliable and gives the fentry
 * program the argument as a number, not as a pointer it may read through.
 */
#include <errno.h>
#include "test_progs.h"
#include "helpers.h"
#include "fprobe_accessors.h"
#include "fprobe_multi_ext.skel.h"
#include "fprobe_multi_ext_hook.skel.h"

static const char *ext_names[CNT_FUNCS] = {
	"fpm_test_straddle", "fpm_test_args8", "fpm_test_wide",
};

static char log_buf[1 << 16];

/*
 * Loads the hook object with its program @name alone, on @func of
 * @target: hook_arg_cnt on acc_hook(), spy_regs on pt_regs_main().
 */
static struct fprobe_multi_ext_hook_bpf *load_hook(struct bpf_program *target,
						   const char *name, const char *func,
						   int *err)
{
	struct fprobe_multi_ext_hook_bpf *hook;
	struct bpf_program *prog;

	hook = fprobe_multi_ext_hook_bpf__open();
	if (!ASSERT_OK_PTR(hook, "open fprobe_multi_ext_hook"))
		return NULL;
	prog = bpf_object__find_program_by_name(hook->obj, name);
	bpf_program__set_autoload(prog, true);
	log_buf[0] = 0;
	bpf_program__set_log_buf(prog, log_buf, sizeof(log_buf));
	bpf_program__set_log_level(prog, 1);
	*err = bpf_program__set_attach_target(prog, bpf_program__fd(target), func);
	if (!*err)
		*err = fprobe_multi_ext_hook_bpf__load(hook);
	return hook;
}

static void test_refused(struct fprobe_multi_ext_bpf *skel)
{
	struct fprobe_multi_ext_hook_bpf *hook;
	int err;

	hook = load_hook(skel->progs.no_args, "hook_arg_cnt", "acc_hook", &err);
	if (!hook)
		return;
	ASSERT_ERRNO(err, EINVAL, "extension of no_args");
	ASSERT_HAS(log_buf,
		   "Extension program may read the function's arguments, while original does not",
		   "verifier log");
	fprobe_multi_ext_hook_bpf__destroy(hook);
}

static void test_counts(struct fprobe_multi_ext_bpf *skel)
{
	LIBBPF_OPTS(bpf_fprobe_multi_opts, opts, .syms = ext_names, .cnt = CNT_FUNCS);
	struct bpf_link *ext = NULL, *link = NULL;
	struct fprobe_multi_ext_hook_bpf *hook;
	char buf[64];
	int i, err;

	hook = load_hook(skel->progs.with_args, "hook_arg_cnt", "acc_hook", &err);
	if (!hook)
		return;
	if (!ASSERT_OK(err, "extension of with_args"))
		goto out;
	ext = bpf_program__attach_freplace(hook->progs.hook_arg_cnt,
					   bpf_program__fd(skel->progs.with_args), "acc_hook");
	if (!ASSERT_OK_PTR(ext, "attach the extension"))
		goto out;
	skel->bss->target_tgid = getpid();
	for (i = 0; i < CNT_FUNCS; i++)
		skel->bss->cnt_funcs[i] = ksym_addr(ext_names[i]);
	link = bpf_program__attach_fprobe_multi_opts(skel->progs.with_args, NULL, &opts);
	if (!ASSERT_OK_PTR(link, "attach with_args") ||
	    !ASSERT_OK(fpm_run("args", buf, sizeof(buf)), "fpm_test args"))
		goto out;
	/* as test_fprobe_accessors/arg_counts has them */
	ASSERT_EQ(skel->bss->hook_cnt[0], 5, "fpm_test_straddle: count in the extension");
	ASSERT_EQ(skel->bss->hook_cnt[1], 6, "fpm_test_args8: count in the extension");
	ASSERT_EQ(skel->bss->hook_cnt[2], 0, "fpm_test_wide: count in the extension");
out:
	bpf_link__destroy(link);
	bpf_link__destroy(ext);
	fprobe_multi_ext_hook_bpf__destroy(hook);
}

static void test_fentry_on_prog(struct fprobe_multi_ext_bpf *skel)
{
	struct fprobe_multi_ext_hook_bpf *hook;
	int err;

	hook = load_hook(skel->progs.pt_regs_main, "spy_regs", "pt_regs_main", &err);
	if (!hook)
		return;
	ASSERT_ERRNO(err, EACCES, "fentry on pt_regs_main");
	ASSERT_HAS(log_buf, "R1 invalid mem access 'scalar'", "verifier log");
	fprobe_multi_ext_hook_bpf__destroy(hook);
}

void test_fprobe_multi_ext(void)
{
	struct fprobe_multi_ext_bpf *skel;

	skel = fprobe_multi_ext_bpf__open();
	if (!ASSERT_OK_PTR(skel, "open fprobe_multi_ext"))
		return;
	bpf_program__set_autoload(skel->progs.no_args, true);
	bpf_program__set_autoload(skel->progs.with_args, true);
	bpf_program__set_autoload(skel->progs.pt_regs_main, true);
	if (!ASSERT_OK(fprobe_multi_ext_bpf__load(skel), "load fprobe_multi_ext"))
		goto out;
	if (test__start_subtest("refused"))
		test_refused(skel);
	if (test__start_subtest("counts"))
		test_counts(skel);
	if (test__start_subtest("fentry_on_prog"))
		test_fentry_on_prog(skel);
out:
	fprobe_multi_ext_bpf__destroy(skel);
}
