// SPDX-License-Identifier: GPL-2.0
/*
 * same_as_kprobe: the pt_regs view kprobe.multi programs get, against the
 * real pt_regs of a
 * classic kprobe on the same call of bpf_fentry_test2(2, 3): the same
 * arguments, stack pointer, frame pointer and function IP, and the same
 * word at the stack pointer. That word is the return address into the
 * caller, or return_to_handler: the kretprobe.multi link on the same
 * function hooks the return from its own ftrace_ops, which ftrace may call
 * before the others (on the base kernel, its rethook did the same). At
 * exit, kretprobe.multi sees the return value 5 and the stack pointer one
 * word higher, the return address popped.
 *
 * valid_fields: which pt_regs fields hold what the CPU held, with nothing
 * else on the function to make ftrace save more. fpm_test_regs() (test
 * module) is called with a known value in every register its caller can
 * set. At entry the six argument registers, ax, bp, sp and ip are valid;
 * at exit ax, dx, bp, sp and ip. ip is the address after the call to
 * __fentry__ at entry, as on the base kernel, and the return address at
 * exit. cs is the kernel's and flags has its fixed bit, so that the view
 * reads as kernel-mode registers. bx, r10 to r15, ss and the other flags
 * are not saved on this path (the base kernel saved them all)
 * (Documentation/bpf/fprobe_multi.rst, "The registers of kprobe.multi
 * programs"). As in same_as_kprobe, the word at sp at entry may already
 * be return_to_handler.
 */
#include "test_progs.h"
#include "helpers.h"
#include "kprobe_multi_regs.h"
#include "kprobe_multi_regs.skel.h"
#include "kprobe_multi_saved_regs.skel.h"

static int in_func(__u64 addr, const char *func, __u64 size)
{
	return addr > ksym_addr(func) && addr < ksym_addr(func) + size;
}

static int in_caller(__u64 addr)
{
	return in_func(addr, "bpf_prog_test_run_tracing", 4096);
}

/* x86's __KERNEL_CS and X86_EFLAGS_FIXED */
#define KERNEL_CS	0x10
#define EFLAGS_FIXED	0x2

static void same_as_kprobe(void)
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

static void check_entry(const struct saved_regs *e)
{
	ASSERT_EQ(e->runs, 1, "entry: runs");
	ASSERT_EQ(e->func_ip, ksym_addr("fpm_test_regs"), "entry: bpf_get_func_ip()");
	ASSERT_EQ(e->di, 0x11, "entry: di, argument 1");
	ASSERT_EQ(e->si, 0x12, "entry: si, argument 2");
	ASSERT_EQ(e->dx, 0x13, "entry: dx, argument 3");
	ASSERT_EQ(e->cx, 0x14, "entry: cx, argument 4");
	ASSERT_EQ(e->r8, 0x15, "entry: r8, argument 5");
	ASSERT_EQ(e->r9, 0x16, "entry: r9, argument 6");
	ASSERT_EQ(e->ax, 0x20, "entry: ax");
	ASSERT_EQ(e->ip, ftrace_addr("fpm_test_regs") + 5,
		  "entry: ip, after the call to __fentry__");
	ASSERT_TRUE(in_func(e->at_sp, "fpm_regs_call", 256) ||
		    e->at_sp == ksym_addr("return_to_handler"),
		    "entry: the word at sp returns into fpm_regs_call(), or to the exit hook");
	ASSERT_EQ(e->cs, KERNEL_CS, "entry: cs, kernel mode");
	ASSERT_EQ(e->flags & EFLAGS_FIXED, EFLAGS_FIXED, "entry: flags, the fixed bit");
}

static void check_exit(const struct saved_regs *x, const struct saved_regs *e)
{
	ASSERT_EQ(x->runs, 1, "exit: runs");
	ASSERT_EQ(x->func_ip, e->func_ip, "exit: bpf_get_func_ip()");
	ASSERT_EQ(x->ax, 0xa0, "exit: ax, the return value");
	ASSERT_EQ(x->dx, 0xd0, "exit: dx, the return value's second word");
	ASSERT_EQ(x->sp, e->sp + 8, "exit: sp, the return address popped");
	ASSERT_EQ(x->bp, e->bp, "exit: bp as at entry");
	ASSERT_TRUE(in_func(x->ip, "fpm_regs_call", 256), "exit: ip, the return address");
	ASSERT_TRUE(e->at_sp == x->ip || e->at_sp == ksym_addr("return_to_handler"),
		    "exit: ip, the word at sp at entry unless fgraph had replaced it");
	ASSERT_EQ(x->cs, KERNEL_CS, "exit: cs, kernel mode");
	ASSERT_EQ(x->flags & EFLAGS_FIXED, EFLAGS_FIXED, "exit: flags, the fixed bit");
}

static void valid_fields(void)
{
	struct kprobe_multi_saved_regs_bpf *skel;
	struct bpf_link *l1 = NULL, *l2 = NULL;
	char buf[64];

	skel = kprobe_multi_saved_regs_bpf__open();
	if (!ASSERT_OK_PTR(skel, "open kprobe_multi_saved_regs"))
		return;
	bpf_program__set_autoload(skel->progs.regs_entry, true);
	bpf_program__set_autoload(skel->progs.regs_exit, true);
	if (!ASSERT_OK(kprobe_multi_saved_regs_bpf__load(skel), "load"))
		goto out;
	skel->bss->target_tgid = getpid();
	l1 = bpf_program__attach(skel->progs.regs_entry);
	l2 = bpf_program__attach(skel->progs.regs_exit);
	if (!ASSERT_OK_PTR(l1, "attach kprobe.multi") ||
	    !ASSERT_OK_PTR(l2, "attach kretprobe.multi") ||
	    !ASSERT_OK(fpm_run("regs", buf, sizeof(buf)), "fpm_test regs"))
		goto out;
	ASSERT_STREQ(buf, "ax=0xa0 dx=0xd0\n", "fpm_test_regs() returned as called");
	check_entry(&skel->bss->at_entry);
	check_exit(&skel->bss->at_exit, &skel->bss->at_entry);
out:
	bpf_link__destroy(l2);
	bpf_link__destroy(l1);
	kprobe_multi_saved_regs_bpf__destroy(skel);
}

void test_kprobe_multi_regs(void)
{
	if (test__start_subtest("same_as_kprobe"))
		same_as_kprobe();
	if (test__start_subtest("valid_fields"))
		valid_fields();
}
