// SPDX-License-Identifier: GPL-2.0
/*
 * The pt_regs view kprobe.multi programs get, against the real pt_regs of a
 * classic kprobe on the same call of bpf_fentry_test2(2, 3): the same
 * arguments, stack pointer, frame pointer and function IP, and the same
 * word at the stack pointer. That word is the return address into the
 * caller, or return_to_handler: the kretprobe.multi link on the same
 * function hooks the return from its own ftrace_ops, which ftrace may call
 * before the others (on the base kernel, its rethook did the same). At
 * exit, kretprobe.multi sees the return value 5 and the stack pointer one
 * word higher, the return address popped.
 */
#include "test_progs.h"
#include "helpers.h"
#include "kprobe_multi_regs.h"
#include "kprobe_multi_regs.skel.h"

static int in_caller(__u64 addr)
{
	return addr > ksym_addr("bpf_prog_test_run_tracing") &&
	       addr < ksym_addr("bpf_prog_test_run_tracing") + 4096;
}

void test_kprobe_multi_regs(void)
{
	struct kprobe_multi_regs_bpf *skel;
	const struct regs_rec *c, *m, *x;

	skel = kprobe_multi_regs_bpf__open_and_load();
	if (!ASSERT_OK_PTR(skel, "open and load kprobe_multi_regs"))
		return;
	skel->bss->target_tgid = getpid();
	if (!ASSERT_OK(kprobe_multi_regs_bpf__attach(skel), "attach") ||
	    !ASSERT_OK(trigger_fentry_tests(), "trigger bpf_fentry_test1..8"))
		goto out;
	c = &skel->bss->classic;
	m = &skel->bss->multi;
	x = &skel->bss->multi_exit;
	ASSERT_EQ(c->runs, 1, "classic kprobe runs");
	ASSERT_EQ(m->runs, 1, "kprobe.multi runs");
	ASSERT_EQ(x->runs, 1, "kretprobe.multi runs");

	ASSERT_EQ((int)m->arg1, 2, "kprobe.multi: argument 1");
	ASSERT_EQ(m->arg2, 3, "kprobe.multi: argument 2");
	ASSERT_EQ(m->arg1, c->arg1, "argument 1 register as the kprobe's");
	ASSERT_EQ(m->arg2, c->arg2, "argument 2 register as the kprobe's");
	ASSERT_EQ(m->sp, c->sp, "stack pointer as the kprobe's");
	ASSERT_EQ(m->bp, c->bp, "frame pointer as the kprobe's");
	ASSERT_EQ(m->ip, c->ip, "bpf_get_func_ip() as the kprobe's");
	ASSERT_EQ(m->ip, ksym_addr("bpf_fentry_test2"), "bpf_get_func_ip()");
	ASSERT_EQ(m->at_sp, c->at_sp, "the word at the stack pointer as the kprobe's");
	ASSERT_TRUE(in_caller(m->at_sp) || m->at_sp == ksym_addr("return_to_handler"),
		    "a return address into bpf_prog_test_run_tracing, or the exit hook");

	ASSERT_EQ(x->rc, 5, "kretprobe.multi: return value");
	ASSERT_EQ(x->sp, m->sp + 8, "kretprobe.multi: stack pointer after the return");
	ASSERT_EQ(x->ip, m->ip, "kretprobe.multi: bpf_get_func_ip()");
out:
	kprobe_multi_regs_bpf__destroy(skel);
}
