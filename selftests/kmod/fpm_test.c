// SPDX-License-Identifier: GPL-2.0
/*
 * fpm_test: in-kernel scenarios for fprobe on the fgraph shadow stack.
 *
 * Each scenario registers its own fprobe on a function of this module,
 * drives calls to it, unregisters, and reports counters as one line of
 * "key=value" pairs. Write the scenario to /sys/kernel/debug/fpm_test/run,
 * then read the same file for its result:
 *
 *   recursion N   fpm_test_recurse() nests N + 1 deep; entry data and return
 *                 values must pair up at every level. A large N fills the
 *                 shadow stack: the calls that do not fit are counted.
 *   migrate       the caller sleeps inside fpm_test_sleep() and wakes up on
 *                 the other CPU; the exit must see the entry data.
 *   block N       N kthreads block inside fpm_test_block() under an fprobe
 *                 and a classic kretprobe (default maxactive), then are
 *                 released; both report what they saw.
 *   unregister N  as block, but the fprobe is unregistered while the
 *                 threads are inside; their returns must still be right,
 *                 and unregister_fprobe() counts their exits as missed.
 *   disable N     as block, but the fprobe is disabled while the threads
 *                 are inside: the entries that ran still get their exits.
 *   call N        fpm_test_recurse(N) in the writer's context, with no
 *                 fprobe of the module's own: for probes attached from
 *                 user space, such as BPF links on module functions.
 *   inject N      fpm_test_inject(N), which returns N unless a probe
 *                 overrides it: it is on the error-injection list.
 *   sleep N       fpm_test_sleep(N) from CPU 0, with no fprobe of the
 *                 module's own: it sleeps and wakes up on CPU 1.
 *   nest N        fpm_test_outer(N) under an fprobe whose entry handler
 *                 calls fpm_test_inner(N): a probe on fpm_test_inner()
 *                 then runs nested in the tracing context, so whatever it
 *                 calls that is probed too is refused as recursion.
 *   register N    fpm_test_recurse() runs in a loop on CPU 1 under an
 *                 fprobe with an exit handler while a second fprobe on it
 *                 (and on the other fpm_test functions) registers and
 *                 unregisters N times: the first must see every exit.
 *   unregister2   two threads unregister one fprobe at the same time: one
 *                 gets 0, the other -EINVAL, and fprobes work after.
 *   pool N        N threads made while fgraph is idle (so without shadow
 *                 stack) wake up at once under fprobes on
 *                 _raw_spin_unlock_irqrestore and fpm_test_recurse, which
 *                 each calls once: more than fgraph's pool of stacks, so
 *                 some find it empty while the lock functions are probed.
 *   forked N      N threads made while an fprobe is on fpm_test_recurse(),
 *                 fgraph's only user: they have no shadow stack at fork
 *                 (at_fork=), and one after they call it once (after_call=).
 *   lazy N        N threads made while fgraph is idle have no shadow stack
 *                 before (before=) nor after (at_attach=) an fprobe on
 *                 fpm_test_recurse() registers, fgraph's only user, and
 *                 one after they call it once (after_call=).
 *   reclaimdetach N  N threads call fpm_test_recurse() once under an
 *                 fprobe, fgraph's only user, and sleep; the fprobe is
 *                 unregistered at once, and fgraph takes their stacks back
 *                 within 30 s all the same (first_call= had one after the
 *                 call, left= still have one).
 *   stacks        counts the tasks with a shadow stack (stacked=), of all
 *                 (tasks=), and names the first few of them (names=).
 *   reclaim N     under fprobes on fpm_test_recurse() and fpm_test_block(),
 *                 fgraph's only users, N threads call the first once and
 *                 sleep with nothing on their shadow stack, and one sleeps
 *                 inside the second: fgraph takes the N stacks back within
 *                 30 s (reclaimed=), not the last one's (kept=1); once
 *                 released, the N call the first again, each taking a
 *                 stack from the pool (after_call=).
 *   reclaimbackoff N  "reclaim N" after 40 s of a thread calling the
 *                 first every 100 ms, which keeps its stack: the
 *                 take-back's looks find nothing to take and back off
 *                 (to half a minute), until the N take their stacks.
 *   stale N       N threads enter fpm_test_block() under an fprobe, which
 *                 is then unregistered while they stay inside; an exit
 *                 fprobe on fpm_test_inner() then registers and goes 15
 *                 times, so that fgraph's next user gets the slot the
 *                 threads' frames were pushed for. The threads stay.
 *   reregister N  N threads enter fpm_test_block() under an fprobe,
 *                 which is unregistered and registered again while they
 *                 stay inside (another fprobe with an exit handler keeps
 *                 fprobe's fgraph_ops registered meanwhile), then
 *                 released: the second registration, which saw none of
 *                 their entries, must run none of their exits; the first
 *                 counted them as missed (missed_first=).
 *   regfail N     (x86-64) an fprobe with entry and exit handler on
 *                 fpm_test_inner() registers N times, its k-th
 *                 allocation of an ftrace hash (alloc_ftrace_hash() or
 *                 alloc_and_copy_ftrace_hash(), through kprobes that
 *                 return NULL from them) failing the k-th time, until one
 *                 registers without reaching it (complete=1). After each failure it registers again
 *                 without one, and fpm_test_inner(1) must reach both
 *                 handlers (entries=, exits=): a failed registration of
 *                 fgraph's user must leave fgraph as it was.
 *   release       releases the threads of "stale": the test has made the
 *                 function_graph tracer that next user meanwhile. Or those
 *                 of "hold".
 *   hold N        N threads enter fpm_test_block(), with no fprobe of the
 *                 module's own, and stay inside until "release": for
 *                 probes attached from user space that go away meanwhile.
 *   rcuoff N      fpm_test_rcu_off(20) enters an RCU extended quiescent
 *                 state, as code on the way into idle does, and so returns
 *                 where RCU is not watching (eqs=1 says it did);
 *                 fpm_test_inner(1) follows. With
 *                 N = 1 an fprobe with an exit handler is on the first: it
 *                 cannot look itself up at that return, so the exit stays
 *                 pending and unregister_fprobe() counts it as missed.
 *                 With N = 2, fpm_test_in_eqs(20) is called inside such a
 *                 state instead, under an fprobe with an exit handler and
 *                 one without: neither handler runs, and both count the
 *                 call in nmissed_other (entry_only_missed= is the second's).
 *                 N = 3 makes that call with no fprobe of the module's own;
 *                 N = 4 too, while an fprobe with an exit handler is on
 *                 fpm_test_inner(), which it does not call: fgraph then
 *                 has two owners, that fprobe's and any tracer's.
 *   kshared       fpm_test_recurse(0) under a kprobe-shared fprobe
 *                 (FPROBE_FL_KPROBE_SHARED) with entry and exit handler,
 *                 called once directly and once from the pre_handler of a
 *                 kprobe on fpm_test_outer(): that call is missed, as
 *                 another kprobe runs, and neither of its handlers runs.
 *   tailcall      fpm_test_tail(4) tail-calls fpm_test_tail_inner(5), each
 *                 under an fprobe with entry and exit handler: the inner
 *                 call's frame is pushed over a return address that the
 *                 outer one hooked already. Every handler must get the
 *                 real caller as ret_ip (named as callers=ENTRY/EXIT,...).
 *   args          calls fpm_test_straddle(1, 2, 3, 4, 5, {6, 7}, 8),
 *                 fpm_test_args8(1, ..., 8) and fpm_test_wide({1, 2}, 3),
 *                 whose arguments the registers do not all hold in order,
 *                 with no fprobe of the module's own: for the argument
 *                 counts a fprobe.multi link takes from BTF.
 *   kretprobe N   a classic kretprobe (register_kretprobe()) with entry
 *                 handler and data pouch: N = 0 on fpm_test_recurse(16),
 *                 whose entry handler refuses the returns of the odd
 *                 levels; N = 1 the same with an fprobe with exit handler
 *                 registered after it, so that ftrace calls the fprobe's
 *                 ftrace_ops first and the kretprobe joins its frames;
 *                 N = 2 with the fprobe registered first: it joins the
 *                 kretprobe's frames. One frame per call either way
 *                 (frames=). N = 3 on fpm_test_sleep(41), called from
 *                 CPU 0, which returns on CPU 1. N > 3 on
 *                 fpm_test_recurse(N), which may fill the shadow stack.
 *                 The return handler checks the entry data, the return
 *                 value, the return address and stack pointer in its
 *                 pt_regs, and that it runs as the current kprobe.
 *   krnoentry N   a classic kretprobe without entry handler (its return
 *                 hooked in one step) on fpm_test_recurse(16): N = 0
 *                 alone, N = 1 with an fprobe with exit handler registered
 *                 after it, N = 2 before it, N = 3 alone, raising the
 *                 outermost return value by 1000. The return handler
 *                 checks the return value, address and stack pointer in
 *                 its pt_regs, kernel mode, and get_kretprobe().
 *   krfallback N  "kretprobe 0" where rethook serves instead of the shadow
 *                 stack (fgraph=0), with maxactive 17: N = 0 with a data
 *                 pouch of 200 bytes, more than fits; N = 1 on
 *                 fpm_test_recurse_notrace(16), which has no ftrace site.
 *                 N = 2: "kretprobe 0" on the shadow stack, after a copy
 *                 of its kretprobe, given a data pouch too big for the
 *                 shadow stack, was registered and unregistered while it
 *                 was (second_hits: the copy's returns); N = 3: the same
 *                 with a kretprobe on rethook registered after it, whose
 *                 pre-handler runs first, during one call of
 *                 fpm_test_recurse(16); N = 4: the same with a kretprobe
 *                 on the shadow stack without entry handler, which pushes
 *                 each frame that "kretprobe 0" then joins, two blocks of
 *                 one owner. The return handler checks that its return
 *                 address is the caller's, not a trampoline.
 *   kroverride N  "krfallback N" (0: rethook; 2: the shadow stack) whose
 *                 handler adds 1000 to the outermost call's return value.
 *   krunregister N  N kthreads block inside fpm_test_block() under a
 *                 classic kretprobe, which is unregistered while they are
 *                 inside: their returns are counted as missed.
 *   struct N      fpm_test_struct() N times on a struct of known members,
 *                 for tracers that read them (see run_struct()).
 *   regs          (x86-64) fpm_test_regs() called with a known value in
 *                 every register a caller can set, with no fprobe of the
 *                 module's own: a BPF program on it can tell which pt_regs
 *                 fields it sees as they were.
 *
 * The userspace side (selftests/prog_tests/fprobe_fgraph.c) checks the
 * exact values.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/context_tracking.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/error-injection.h>
#include <linux/fprobe.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <asm/asm.h>

/*
 * Built against a base the series is still moving to (make BASE=VERSION
 * test), the module has mainline's API there, as the Makefile finds it:
 * an fprobe counts its misses in one number, without cause
 * (FPM_NO_MISS_CAUSES), and no kretprobe takes its returns on the shadow
 * stack (FPM_NO_KRETPROBE_FGRAPH). Its reports say "n/a" for what that
 * API cannot tell.
 */
#ifdef FPM_NO_MISS_CAUSES
static unsigned long fprobe_nmissed(struct fprobe *fp)
{
	return READ_ONCE(fp->nmissed);
}
#endif

#ifdef FPM_NO_KRETPROBE_FGRAPH
static bool kretprobe_on_fgraph(struct kretprobe *rp)
{
	return false;
}
#endif

#define ENTRY_MAGIC	0xf9b0000000000000UL
#define MAGIC_MASK	0xffff000000000000UL

struct fpm_counts {
	atomic_t entries;
	atomic_t exits;
	atomic_t bad_data;	/* entry data not as stored at entry */
	atomic_t bad_ret;	/* wrong return value or return address */
	atomic_t max_frames;	/* fgraph frames on the stack at the deepest call */
	int entry_cpu;
	int exit_cpu;
};

static struct fpm_counts cnt;
static DEFINE_MUTEX(fpm_lock);
static char fpm_result[256];

/* Keep the compiler from turning the recursion into a loop. */
static int fpm_one = 1;

noinline int fpm_test_recurse(int depth)
{
	int ret;

	if (depth <= 0)
		return 0;
	ret = fpm_test_recurse(depth - 1);
	barrier();
	return ret + READ_ONCE(fpm_one);
}

/* fpm_test_recurse() without ftrace site: a kretprobe on it takes rethook */
noinline notrace int fpm_test_recurse_notrace(int depth)
{
	int ret;

	if (depth <= 0)
		return 0;
	ret = fpm_test_recurse_notrace(depth - 1);
	barrier();
	return ret + READ_ONCE(fpm_one);
}

noinline int fpm_test_sleep(int arg)
{
	int cpu = raw_smp_processor_id();

	set_cpus_allowed_ptr(current, cpumask_of(!cpu));
	msleep(20);
	return arg + 1;
}

noinline int fpm_test_inner(int arg)
{
	return READ_ONCE(fpm_one) + arg;
}

noinline int fpm_test_outer(int arg)
{
	return READ_ONCE(fpm_one) * arg;
}

noinline int fpm_test_inject(int arg)
{
	return READ_ONCE(fpm_one) * arg;
}
ALLOW_ERROR_INJECTION(fpm_test_inject, ERRNO);

#ifdef CONFIG_X86_64
/* Two words: returned in ax and dx. */
struct fpm_pair {
	long lo;
	long hi;
};

/*
 * Called by fpm_regs_call() only, with the six arguments 0x11..0x16, ax
 * 0x20, bx 0x21 and r10..r15 0x22..0x27; it returns 0xa0 in ax and 0xd0
 * in dx, the first only if the arguments came as set.
 */
noinline struct fpm_pair fpm_test_regs(long a, long b, long c, long d, long e, long f)
{
	struct fpm_pair p = {
		.lo = a + b + c + d + e + f - 0x75 + 0xa0,
		.hi = 0xd0 * READ_ONCE(fpm_one),
	};

	return p;
}

static noinline long fpm_regs_call(long *hi)
{
	long lo, dx;

	asm volatile("mov $0x11, %%edi\n\t"
		     "mov $0x12, %%esi\n\t"
		     "mov $0x13, %%edx\n\t"
		     "mov $0x14, %%ecx\n\t"
		     "mov $0x15, %%r8d\n\t"
		     "mov $0x16, %%r9d\n\t"
		     "mov $0x20, %%eax\n\t"
		     "mov $0x21, %%ebx\n\t"
		     "mov $0x22, %%r10d\n\t"
		     "mov $0x23, %%r11d\n\t"
		     "mov $0x24, %%r12d\n\t"
		     "mov $0x25, %%r13d\n\t"
		     "mov $0x26, %%r14d\n\t"
		     "mov $0x27, %%r15d\n\t"
		     "call fpm_test_regs\n\t"
		     : "=a" (lo), "=d" (dx), ASM_CALL_CONSTRAINT
		     :
		     : "rbx", "rcx", "rsi", "rdi", "r8", "r9", "r10", "r11",
		       "r12", "r13", "r14", "r15", "cc", "memory");
	*hi = dx;
	return lo;
}

static int run_regs(void)
{
	long lo, hi;

	lo = fpm_regs_call(&hi);
	snprintf(fpm_result, sizeof(fpm_result), "ax=%#lx dx=%#lx\n", lo, hi);
	return 0;
}
#else
static int run_regs(void)
{
	return -EOPNOTSUPP;
}
#endif

/* A struct that takes two registers, or goes by reference or on the stack. */
struct fpm_wide {
	long lo;
	long hi;
};

noinline long fpm_test_straddle(char a, char b, char c, char d, char e,
				struct fpm_wide s, char g)
{
	return a + b + c + d + e + s.lo + s.hi + g * READ_ONCE(fpm_one);
}

noinline long fpm_test_args8(long a, long b, long c, long d, long e, long f,
			     long g, long h)
{
	return a + b + c + d + e + f + g + h * READ_ONCE(fpm_one);
}

noinline long fpm_test_wide(struct fpm_wide s, long b)
{
	return s.lo + s.hi + b * READ_ONCE(fpm_one);
}

static int run_args(void)
{
	struct fpm_wide s67 = { 6, 7 }, s12 = { 1, 2 };

	snprintf(fpm_result, sizeof(fpm_result), "straddle=%ld args8=%ld wide=%ld\n",
		 fpm_test_straddle(1, 2, 3, 4, 5, s67, 8),
		 fpm_test_args8(1, 2, 3, 4, 5, 6, 7, 8), fpm_test_wide(s12, 3));
	return 0;
}

/* Members of each kind a tracer reads: narrow signed ones, a char array... */
struct fpm_peer {
	long id;
};

struct fpm_inner {
	int tag;
};

struct fpm_rec {
	s8 small;
	s16 mid;
	u32 big;
	char name[8];
	struct fpm_inner in;
	struct fpm_peer *peer;
};

noinline __noclone int fpm_test_struct(struct fpm_rec *r)
{
	return r->in.tag * READ_ONCE(fpm_one);
}

/*
 * fpm_test_struct() N times on small -3, mid -300, big 4000000000, name
 * "fpm" whose bytes after the NUL change from call to call, in.tag 77 and
 * peer->id 1234567.
 */
static int run_struct(int n)
{
	struct fpm_peer peer = { .id = 1234567 };
	struct fpm_rec r = {
		.small = -3, .mid = -300, .big = 4000000000U,
		.in.tag = 77, .peer = &peer,
	};
	int sum = 0;

	for (int i = 0; i < n; i++) {
		memcpy(r.name, "fpm\0", 4);
		memset(r.name + 4, 'a' + i, sizeof(r.name) - 4);
		sum += fpm_test_struct(&r);
	}
	snprintf(fpm_result, sizeof(fpm_result), "sum=%d\n", sum);
	return 0;
}

static DECLARE_COMPLETION(fpm_release);
static atomic_t fpm_inside;

noinline int fpm_test_block(int arg)
{
	atomic_inc(&fpm_inside);
	wait_for_completion(&fpm_release);
	return 2 * arg + 1;
}

static int rec_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		     struct ftrace_regs *fregs, void *data)
{
	unsigned long *d = data;
	long depth = ftrace_regs_get_argument(fregs, 0);

	d[0] = ENTRY_MAGIC | depth;
	d[1] = ret_ip;
	atomic_inc(&cnt.entries);
	/* fgraph frames on this task's shadow stack (depth counts from -1) */
	if (!depth)
		atomic_set(&cnt.max_frames, current->curr_ret_depth + 1);
	return 0;
}

static void rec_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		     struct ftrace_regs *fregs, void *data)
{
	unsigned long *d = data;

	atomic_inc(&cnt.exits);
	if ((d[0] & MAGIC_MASK) != ENTRY_MAGIC)
		atomic_inc(&cnt.bad_data);
	else if ((int)ftrace_regs_get_return_value(fregs) != (int)(d[0] & ~MAGIC_MASK) ||
		 ret_ip != d[1])
		atomic_inc(&cnt.bad_ret);
}

/* An fprobe whose handlers check each call's entry data and return value */
#define REC_FPROBE {					\
	.entry_handler = rec_entry,			\
	.exit_handler = rec_exit,			\
	.entry_data_size = 2 * sizeof(long),		\
}

static int sleep_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		       struct ftrace_regs *fregs, void *data)
{
	unsigned long *d = data;

	d[0] = ENTRY_MAGIC | ftrace_regs_get_argument(fregs, 0);
	cnt.entry_cpu = raw_smp_processor_id();
	atomic_inc(&cnt.entries);
	return 0;
}

static void sleep_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		       struct ftrace_regs *fregs, void *data)
{
	unsigned long *d = data;

	cnt.exit_cpu = raw_smp_processor_id();
	atomic_inc(&cnt.exits);
	if ((d[0] & MAGIC_MASK) != ENTRY_MAGIC)
		atomic_inc(&cnt.bad_data);
	else if (ftrace_regs_get_return_value(fregs) != (d[0] & ~MAGIC_MASK) + 1)
		atomic_inc(&cnt.bad_ret);
}

static int block_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		       struct ftrace_regs *fregs, void *data)
{
	*(unsigned long *)data = ENTRY_MAGIC | ftrace_regs_get_argument(fregs, 0);
	atomic_inc(&cnt.entries);
	return 0;
}

static void block_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		       struct ftrace_regs *fregs, void *data)
{
	unsigned long d = *(unsigned long *)data;

	atomic_inc(&cnt.exits);
	if ((d & MAGIC_MASK) != ENTRY_MAGIC)
		atomic_inc(&cnt.bad_data);
	else if (ftrace_regs_get_return_value(fregs) != 2 * (d & ~MAGIC_MASK) + 1)
		atomic_inc(&cnt.bad_ret);
}

static atomic_t krp_hits;

static int krp_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&krp_hits);
	return 0;
}

/* The causes of a kretprobe's misses, and whether it used the shadow stack */
static const char *kretprobe_causes(struct kretprobe *rp, bool fgraph)
{
	static char buf[96];

#ifdef CONFIG_KRETPROBE_ON_FGRAPH
	snprintf(buf, sizeof(buf), " fgraph=%d stack=%ld recursion=%ld other=%ld", fgraph,
		 atomic_long_read(&rp->fgraph.nmissed_stack),
		 atomic_long_read(&rp->fgraph.nmissed_recursion),
		 atomic_long_read(&rp->fgraph.nmissed_other));
#else
	snprintf(buf, sizeof(buf), " fgraph=0");
#endif
	return buf;
}

/* Writes @fp's miss causes to @buf, and returns its misses in all */
#ifdef FPM_NO_MISS_CAUSES
static unsigned long miss_causes(struct fprobe *fp, char *buf, size_t size)
{
	strscpy(buf, "stack=n/a recursion=n/a", size);
	return fprobe_nmissed(fp);
}
#else
static unsigned long miss_causes(struct fprobe *fp, char *buf, size_t size)
{
	unsigned long missed, stack, recursion;

	missed = fprobe_missed_counts(fp, &stack, &recursion);
	snprintf(buf, size, "stack=%lu recursion=%lu", stack, recursion);
	return missed;
}
#endif

static void report(struct fprobe *fp, const char *extra)
{
	unsigned long missed;
	char causes[64];

	missed = miss_causes(fp, causes, sizeof(causes));
	snprintf(fpm_result, sizeof(fpm_result),
		 "entries=%d exits=%d bad_data=%d bad_ret=%d nmissed=%lu %s%s\n",
		 atomic_read(&cnt.entries), atomic_read(&cnt.exits),
		 atomic_read(&cnt.bad_data), atomic_read(&cnt.bad_ret),
		 missed, causes, extra);
}

static int run_recursion(int depth)
{
	struct fprobe fp = REC_FPROBE;
	unsigned long addr = (unsigned long)fpm_test_recurse;
	char extra[64];
	int ret;

	ret = register_fprobe_ips(&fp, &addr, 1);
	if (ret)
		return ret;
	ret = fpm_test_recurse(depth);
	unregister_fprobe(&fp);
	snprintf(extra, sizeof(extra), " ret=%d frames=%d", ret,
		 atomic_read(&cnt.max_frames));
	report(&fp, extra);
	return 0;
}

/*
 * fpm_test_sleep(@arg) called from CPU 0, so that it wakes up on CPU 1; the
 * caller's CPUs are restored after. *@before and *@after are the CPUs of
 * the call and of its return.
 */
static int sleep_from_cpu0(int arg, int *ret, int *before, int *after)
{
	cpumask_var_t saved;

	if (num_online_cpus() < 2)
		return -EOPNOTSUPP;
	if (!alloc_cpumask_var(&saved, GFP_KERNEL))
		return -ENOMEM;
	cpumask_copy(saved, current->cpus_ptr);
	set_cpus_allowed_ptr(current, cpumask_of(0));
	*before = raw_smp_processor_id();
	*ret = fpm_test_sleep(arg);
	*after = raw_smp_processor_id();
	set_cpus_allowed_ptr(current, saved);
	free_cpumask_var(saved);
	return 0;
}

static int run_migrate(void)
{
	struct fprobe fp = {
		.entry_handler = sleep_entry,
		.exit_handler = sleep_exit,
		.entry_data_size = sizeof(long),
	};
	unsigned long addr = (unsigned long)fpm_test_sleep;
	int err, ret, before, after;
	char extra[64];

	err = register_fprobe_ips(&fp, &addr, 1);
	if (err)
		return err;
	err = sleep_from_cpu0(41, &ret, &before, &after);
	unregister_fprobe(&fp);
	if (err)
		return err;
	snprintf(extra, sizeof(extra), " ret=%d entry_cpu=%d exit_cpu=%d",
		 ret, cnt.entry_cpu, cnt.exit_cpu);
	report(&fp, extra);
	return 0;
}

/*
 * Returns where RCU is not watching, as a function on the way into idle
 * does: the caller has interrupts off and ends the quiescent state.
 */
noinline int fpm_test_rcu_off(int arg)
{
	ct_idle_enter();
	return 2 * arg + READ_ONCE(fpm_one);
}

/* Called where RCU is not watching, as a function in the idle path is */
noinline int fpm_test_in_eqs(int arg)
{
	return 2 * arg + READ_ONCE(fpm_one);
}

/* fpm_test_in_eqs(20) called where RCU is not watching; whether it was */
static int call_in_eqs(bool *eqs)
{
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ct_idle_enter();
	*eqs = !rcu_is_watching();
	ret = fpm_test_in_eqs(20);
	ct_idle_exit();
	local_irq_restore(flags);
	return ret;
}

/* fpm_test_in_eqs() under an fprobe with exit handler and one without */
static int run_rcuoff_entry(void)
{
	struct fprobe fp = {
		.entry_handler = block_entry,
		.exit_handler = block_exit,
		.entry_data_size = sizeof(long),
	};
	struct fprobe entry_only = { .entry_handler = block_entry };
	unsigned long addr = (unsigned long)fpm_test_in_eqs;
	char extra[80];
	int ret, err;
	bool eqs;

	err = register_fprobe_ips(&fp, &addr, 1);
	if (err)
		return err;
	err = register_fprobe_ips(&entry_only, &addr, 1);
	if (err) {
		unregister_fprobe(&fp);
		return err;
	}
	ret = call_in_eqs(&eqs);
	unregister_fprobe(&entry_only);
	unregister_fprobe(&fp);
	snprintf(extra, sizeof(extra), " ret=%d eqs=%d entry_only_missed=%lu",
		 ret, eqs, fprobe_nmissed(&entry_only));
	report(&fp, extra);
	return 0;
}

noinline int fpm_test_tail_inner(int x)
{
	return 3 * x + READ_ONCE(fpm_one);
}

/* A sibling call: fpm_test_tail_inner() returns to our caller */
noinline int fpm_test_tail(int x)
{
	return fpm_test_tail_inner(x + READ_ONCE(fpm_one));
}

/* ret_ip at entry [0] and exit [1] of fpm_test_tail [0] and _inner [1] */
static unsigned long tail_ret_ip[2][2];
static struct fprobe *tail_outer;

static int tail_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		      struct ftrace_regs *fregs, void *data)
{
	tail_ret_ip[fp != tail_outer][0] = ret_ip;
	return 0;
}

static void tail_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		      struct ftrace_regs *fregs, void *data)
{
	tail_ret_ip[fp != tail_outer][1] = ret_ip;
}

/* Append the function that @ip returns into to fpm_result */
static void tail_name(unsigned long ip, const char *sep)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(sym, ip);
	/* "fn [module]": keep the function */
	sym[strcspn(sym, " ")] = 0;
	strlcat(fpm_result, sep, sizeof(fpm_result));
	strlcat(fpm_result, sym, sizeof(fpm_result));
}

static noinline int run_tailcall(void)
{
	struct fprobe outer = { .entry_handler = tail_entry, .exit_handler = tail_exit };
	struct fprobe inner = { .entry_handler = tail_entry, .exit_handler = tail_exit };
	unsigned long addr[2] = { (unsigned long)fpm_test_tail,
				  (unsigned long)fpm_test_tail_inner };
	int ret, err, i;

	memset(tail_ret_ip, 0, sizeof(tail_ret_ip));
	tail_outer = &outer;
	err = register_fprobe_ips(&outer, &addr[0], 1);
	if (err)
		return err;
	err = register_fprobe_ips(&inner, &addr[1], 1);
	if (err)
		goto out;
	ret = fpm_test_tail(4);
	unregister_fprobe(&inner);
	snprintf(fpm_result, sizeof(fpm_result), "ret=%d callers=", ret);
	for (i = 0; i < 4; i++)
		tail_name(tail_ret_ip[i / 2][i % 2], i ? "," : "");
	strlcat(fpm_result, "\n", sizeof(fpm_result));
out:
	unregister_fprobe(&outer);
	return err;
}

static int run_rcuoff(int probe)
{
	struct fprobe fp = {
		.entry_handler = block_entry,
		.exit_handler = block_exit,
		.entry_data_size = sizeof(long),
	};
	unsigned long addr = (unsigned long)fpm_test_rcu_off;
	unsigned long flags;
	char extra[64];
	int ret, inner;
	bool eqs;

	/* it warns of a quiescent state entered by a task that is not idle */
	if (IS_ENABLED(CONFIG_RCU_EQS_DEBUG))
		return -EOPNOTSUPP;
	if (probe == 2)
		return run_rcuoff_entry();
	if (probe >= 3) {
		unsigned long ip = (unsigned long)fpm_test_inner;

		if (probe == 4) {
			ret = register_fprobe_ips(&fp, &ip, 1);
			if (ret)
				return ret;
		}
		ret = call_in_eqs(&eqs);
		if (probe == 4)
			unregister_fprobe(&fp);
		snprintf(fpm_result, sizeof(fpm_result), "ret=%d eqs=%d\n", ret, eqs);
		return 0;
	}
	if (probe) {
		ret = register_fprobe_ips(&fp, &addr, 1);
		if (ret)
			return ret;
	}
	local_irq_save(flags);
	ret = fpm_test_rcu_off(20);
	eqs = !rcu_is_watching();
	ct_idle_exit();
	local_irq_restore(flags);
	inner = fpm_test_inner(1);
	snprintf(extra, sizeof(extra), " ret=%d inner=%d eqs=%d", ret, inner, eqs);
	if (!probe) {
		snprintf(fpm_result, sizeof(fpm_result), "%s\n", extra + 1);
		return 0;
	}
	unregister_fprobe(&fp);
	report(&fp, extra);
	return 0;
}

struct blocker {
	int arg;
	int ret;
	struct completion done;
	struct task_struct *task;
};

static int blocker_fn(void *data)
{
	struct blocker *b = data;

	b->ret = fpm_test_block(b->arg);
	/* the module may go once @done is complete: leave its code first */
	kthread_complete_and_exit(&b->done, 0);
}

/* Start @n threads of @fn and wait until all have counted in fpm_inside. */
static int start_threads(struct blocker *b, int n, int (*fn)(void *), const char *name)
{
	int i;

	reinit_completion(&fpm_release);
	atomic_set(&fpm_inside, 0);
	for (i = 0; i < n; i++) {
		struct task_struct *t;

		b[i].arg = i;
		init_completion(&b[i].done);
		t = kthread_run(fn, &b[i], "%s/%d", name, i);
		b[i].task = t;
		if (IS_ERR(t)) {
			/* let the started ones go, then report */
			complete_all(&fpm_release);
			while (i--)
				wait_for_completion(&b[i].done);
			return PTR_ERR(t);
		}
	}
	while (atomic_read(&fpm_inside) < n)
		msleep(20);
	return 0;
}

/* Release the threads; count those that got a wrong return value. */
static int release_blockers(struct blocker *b, int n)
{
	int i, bad = 0;

	complete_all(&fpm_release);
	for (i = 0; i < n; i++) {
		wait_for_completion(&b[i].done);
		if (b[i].ret != 2 * i + 1)
			bad++;
	}
	return bad;
}

enum block_mode {
	BLOCK_RELEASE,		/* release the threads */
	BLOCK_UNREGISTER,	/* unregister the fprobe, then release them */
	BLOCK_DISABLE,		/* disable the fprobe, then release them */
	BLOCK_KRP_UNREGISTER,	/* unregister the kretprobe, then release them */
};

static int run_block(int n, enum block_mode mode)
{
	struct fprobe fp = {
		.entry_handler = block_entry,
		.exit_handler = block_exit,
		.entry_data_size = sizeof(long),
	};
	struct kretprobe krp = {
		.handler = krp_handler,
		.kp.symbol_name = "fpm_test_block",
	};
	unsigned long addr = (unsigned long)fpm_test_block;
	struct blocker *b;
	char extra[192];
	bool fgraph;
	int ret, bad;

	b = kvcalloc(n, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	atomic_set(&krp_hits, 0);
	ret = register_fprobe_ips(&fp, &addr, 1);
	if (ret)
		goto out_free;
	ret = register_kretprobe(&krp);
	if (ret)
		goto out_fprobe;
	ret = start_threads(b, n, blocker_fn, "fpm_block");
	if (ret)
		goto out_kretprobe;
	fgraph = kretprobe_on_fgraph(&krp);
	if (mode == BLOCK_UNREGISTER)
		unregister_fprobe(&fp);
	else if (mode == BLOCK_DISABLE)
		disable_fprobe(&fp);
	else if (mode == BLOCK_KRP_UNREGISTER)
		unregister_kretprobe(&krp);
	bad = release_blockers(b, n);
	snprintf(extra, sizeof(extra),
		 " wrong_returns=%d kretprobe_hits=%d kretprobe_missed=%d kretprobe_maxactive=%d%s",
		 bad, atomic_read(&krp_hits), krp.nmissed, krp.maxactive,
		 kretprobe_causes(&krp, fgraph));
out_kretprobe:
	if (mode != BLOCK_KRP_UNREGISTER || ret)
		unregister_kretprobe(&krp);
out_fprobe:
	if (mode != BLOCK_UNREGISTER || ret)
		unregister_fprobe(&fp);
	if (!ret)
		report(&fp, extra);
out_free:
	kvfree(b);
	return ret;
}

static int count_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		       struct ftrace_regs *fregs, void *data)
{
	atomic_inc(&cnt.entries);
	return 0;
}

static void count_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		       struct ftrace_regs *fregs, void *data)
{
	atomic_inc(&cnt.exits);
}

#ifdef CONFIG_X86_64
static atomic_t regfail_countdown;
static struct task_struct *regfail_task;

/* Make the registering task's k-th call of the probed function return NULL */
static int regfail_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (current != READ_ONCE(regfail_task) ||
	    atomic_dec_return(&regfail_countdown))
		return 0;
	regs->ax = 0;
	regs->ip = *(unsigned long *)regs->sp;
	regs->sp += sizeof(unsigned long);
	return 1;	/* resume at the return address */
}

/*
 * A kprobe with a post_handler is never optimized into a jump, whose
 * detour would ignore the return address that regfail_pre() sets.
 */
static void regfail_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
}

static int register_failing(struct fprobe *fp, unsigned long *addr, int k)
{
	int ret;

	atomic_set(&regfail_countdown, k);
	WRITE_ONCE(regfail_task, current);
	ret = register_fprobe_ips(fp, addr, 1);
	WRITE_ONCE(regfail_task, NULL);
	return ret;
}

static int run_regfail(int n)
{
	struct fprobe fp = { .entry_handler = count_entry, .exit_handler = count_exit };
	/* The functions that allocate ftrace hashes, inlined in some callers */
	struct kprobe kp[] = {
		{ .symbol_name = "alloc_ftrace_hash",
		  .pre_handler = regfail_pre, .post_handler = regfail_post },
		{ .symbol_name = "alloc_and_copy_ftrace_hash",
		  .pre_handler = regfail_pre, .post_handler = regfail_post },
	};
	struct kprobe *kps[] = { &kp[0], &kp[1] };
	unsigned long addr = (unsigned long)fpm_test_inner;
	int k, ret, failed = 0, other = 0, retry_bad = 0;
	bool complete = false;

	ret = register_kprobes(kps, ARRAY_SIZE(kps));
	if (ret)
		return ret;
	for (k = 1; k <= n && !complete; k++) {
		ret = register_failing(&fp, &addr, k);
		if (!ret) {
			complete = true;
			unregister_fprobe(&fp);
			continue;
		}
		if (ret == -ENOMEM)
			failed++;
		else
			other++;
		if (register_fprobe_ips(&fp, &addr, 1)) {
			retry_bad++;
			continue;
		}
		fpm_test_inner(1);
		unregister_fprobe(&fp);
	}
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	snprintf(fpm_result, sizeof(fpm_result),
		 "failed=%d other=%d retry_bad=%d entries=%d exits=%d complete=%d\n",
		 failed, other, retry_bad, atomic_read(&cnt.entries),
		 atomic_read(&cnt.exits), complete);
	return 0;
}
#else
static int run_regfail(int n)
{
	return -EOPNOTSUPP;
}
#endif

/* The threads of "stale" or "hold", until "release" (or the module's exit). */
static struct blocker *stale_b;
static int stale_n;

/* Room for the @n threads of "stale" or "hold", unless some are held already. */
static int stale_alloc(int n)
{
	if (stale_b)
		return -EBUSY;
	stale_b = kvcalloc(n, sizeof(*stale_b), GFP_KERNEL);
	if (!stale_b)
		return -ENOMEM;
	stale_n = n;
	return 0;
}

/* Give that room back when no thread was left holding it. */
static void stale_free(void)
{
	kvfree(stale_b);
	stale_b = NULL;
}

static void stale_release(void)
{
	int bad = release_blockers(stale_b, stale_n);

	stale_free();
	snprintf(fpm_result, sizeof(fpm_result), "threads=%d wrong_returns=%d\n",
		 stale_n, bad);
}

/* fgraph keeps its 16 slots in LRU order: 15 users go before the slot returns. */
#define FGRAPH_SLOTS	16

static void nop_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		     struct ftrace_regs *fregs, void *data)
{
}

static int stale_cycle_slots(void)
{
	struct fprobe fp = { .exit_handler = nop_exit };
	unsigned long addr = (unsigned long)fpm_test_inner;
	int i, ret = 0;

	for (i = 0; i < FGRAPH_SLOTS - 1 && !ret; i++) {
		ret = register_fprobe_ips(&fp, &addr, 1);
		if (!ret)
			unregister_fprobe(&fp);
	}
	return ret;
}

/*
 * @n threads asleep in fpm_test_block() while its fprobe is unregistered
 * and registered again: the calls that the first registration entered
 * return under the second, which must not run their exits (it never saw
 * their entries, nor wrote their entry data). The first registration
 * counts them as missed when it goes. Another fprobe with an exit handler
 * stays registered all along, so that fprobe's fgraph_ops does too, and
 * the frames stay its own.
 */
static int run_reregister(int n)
{
	struct fprobe fp = {
		.entry_handler = block_entry,
		.exit_handler = block_exit,
		.entry_data_size = sizeof(long),
	};
	struct fprobe keeper = { .exit_handler = nop_exit };
	unsigned long keeper_addr = (unsigned long)fpm_test_inner;
	unsigned long addr = (unsigned long)fpm_test_block;
	unsigned long missed_first;
	struct blocker *b;
	char extra[96];
	int ret, bad;

	b = kvcalloc(n, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = register_fprobe_ips(&keeper, &keeper_addr, 1);
	if (ret)
		goto out_free;
	ret = register_fprobe_ips(&fp, &addr, 1);
	if (ret)
		goto out_keeper;
	ret = start_threads(b, n, blocker_fn, "fpm_rereg");
	unregister_fprobe(&fp);
	if (ret)
		goto out_keeper;
	missed_first = fprobe_nmissed(&fp);
	ret = register_fprobe_ips(&fp, &addr, 1);
	bad = release_blockers(b, n);
	if (ret)
		goto out_keeper;
	unregister_fprobe(&fp);
	snprintf(extra, sizeof(extra), " wrong_returns=%d missed_first=%lu",
		 bad, missed_first);
	report(&fp, extra);
out_keeper:
	unregister_fprobe(&keeper);
out_free:
	kvfree(b);
	return ret;
}

static int run_stale(int n)
{
	struct fprobe fp = {
		.entry_handler = block_entry,
		.exit_handler = block_exit,
		.entry_data_size = sizeof(long),
	};
	unsigned long addr = (unsigned long)fpm_test_block;
	int ret;

	ret = stale_alloc(n);
	if (ret)
		return ret;
	ret = register_fprobe_ips(&fp, &addr, 1);
	if (ret) {
		stale_free();
		return ret;
	}
	ret = start_threads(stale_b, n, blocker_fn, "fpm_stale");
	unregister_fprobe(&fp);
	if (!ret)
		ret = stale_cycle_slots();
	if (ret) {
		stale_release();
		return ret;
	}
	report(&fp, "");
	return 0;
}

static int run_hold(int n)
{
	int ret;

	ret = stale_alloc(n);
	if (ret)
		return ret;
	ret = start_threads(stale_b, n, blocker_fn, "fpm_hold");
	if (ret) {
		stale_free();
		return ret;
	}
	snprintf(fpm_result, sizeof(fpm_result), "threads=%d\n", n);
	return 0;
}

static int run_release(void)
{
	if (!stale_b)
		return -EINVAL;
	stale_release();
	return 0;
}

/* What the kretprobe of "kretprobe" saw */
static struct {
	atomic_t entries, exits, refused, bad_data, bad_ret, frames;
	int entry_cpu, exit_cpu;
	bool recurse;	/* on fpm_test_recurse(), else on fpm_test_sleep() */
	bool override;	/* add 1000 to the outermost call's return value */
	struct kretprobe *rp;
	unsigned long last_sp;	/* "krnoentry": the previous return's */
} kr;

struct kr_data {
	unsigned long magic;	/* ENTRY_MAGIC | the argument */
	unsigned long sp;	/* the stack pointer at entry */
};

static int kr_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kr_data *d = (struct kr_data *)ri->data;
	long arg = regs_get_kernel_argument(regs, 0);

	atomic_inc(&kr.entries);
	kr.entry_cpu = raw_smp_processor_id();
	/* fpm_test_recurse(): only the returns of the even levels */
	if (kr.recurse && (arg & 1)) {
		atomic_inc(&kr.refused);
		return 1;
	}
	d->magic = ENTRY_MAGIC | arg;
	d->sp = kernel_stack_pointer(regs);
	/* the frames on this task's shadow stack at the deepest call */
	if (!arg)
		atomic_set(&kr.frames, current->curr_ret_depth + 1);
	return 0;
}

/*
 * Whether @ip is not the caller's, in this module, but a return hook's
 * trampoline (rethook's, fgraph's return_to_handler).
 */
static bool kr_hooked_ip(unsigned long ip)
{
	return !within_module_mem_type(ip, THIS_MODULE, MOD_TEXT);
}

/* The return: the entry data, the return value and address as they were */
static int kr_exit(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kr_data *d = (struct kr_data *)ri->data;
	long arg = d->magic & ~MAGIC_MASK;
	long want = kr.recurse ? arg : arg + 1;

	atomic_inc(&kr.exits);
	kr.exit_cpu = raw_smp_processor_id();
	if ((d->magic & MAGIC_MASK) != ENTRY_MAGIC || get_kretprobe(ri) != kr.rp)
		atomic_inc(&kr.bad_data);
	else if ((int)regs_return_value(regs) != (int)want ||
		 instruction_pointer(regs) != get_kretprobe_retaddr(ri) ||
		 kr_hooked_ip(instruction_pointer(regs)) ||
		 kernel_stack_pointer(regs) != d->sp + sizeof(long))
		atomic_inc(&kr.bad_ret);
	/* as on rethook, the return value the handler leaves is the call's */
	if (kr.override && arg == 16)
		regs_set_return_value(regs, regs_return_value(regs) + 1000);
	return 0;
}

/*
 * Register @krp, and @fp on fpm_test_recurse() after it (@order 1) or
 * before it (2), or @krp alone (any other @order).
 */
static int kr_register_with(struct kretprobe *krp, struct fprobe *fp, int order)
{
	unsigned long addr = (unsigned long)fpm_test_recurse;
	int ret;

	if (order == 2) {
		ret = register_fprobe_ips(fp, &addr, 1);
		if (ret)
			return ret;
	}
	ret = register_kretprobe(krp);
	if (!ret && order == 1) {
		ret = register_fprobe_ips(fp, &addr, 1);
		if (ret)
			unregister_kretprobe(krp);
	}
	if (ret && order == 2)
		unregister_fprobe(fp);
	return ret;
}

/* Undo kr_register_with(), in the reverse order */
static void kr_unregister_with(struct kretprobe *krp, struct fprobe *fp, int order)
{
	if (order == 1)
		unregister_fprobe(fp);
	unregister_kretprobe(krp);
	if (order == 2)
		unregister_fprobe(fp);
}

/*
 * A classic kretprobe on fpm_test_recurse(16) alone (@mode 0), with an
 * fprobe registered after it (1) or before it (2); on fpm_test_sleep()
 * called from CPU 0 (3); on fpm_test_recurse(@mode) for a @mode over 3,
 * which may fill the shadow stack.
 */
static int run_kretprobe(int mode)
{
	struct kretprobe krp = {
		.kp.symbol_name = mode == 3 ? "fpm_test_sleep" : "fpm_test_recurse",
		.entry_handler = kr_entry,
		.handler = kr_exit,
		.data_size = sizeof(struct kr_data),
	};
	struct fprobe fp = REC_FPROBE;
	int ret, val = 0, before, after;
	bool fgraph;

	memset(&kr, 0, sizeof(kr));
	kr.recurse = mode != 3;
	kr.rp = &krp;
	ret = kr_register_with(&krp, &fp, mode);
	if (ret)
		return ret;
	fgraph = kretprobe_on_fgraph(&krp);
	if (mode == 3)
		ret = sleep_from_cpu0(41, &val, &before, &after);
	else
		val = fpm_test_recurse(mode > 3 ? mode : 16);
	kr_unregister_with(&krp, &fp, mode);
	if (ret)
		return ret;
	snprintf(fpm_result, sizeof(fpm_result),
		 "ret=%d entries=%d exits=%d refused=%d bad_data=%d bad_ret=%d frames=%d entry_cpu=%d exit_cpu=%d nmissed=%d%s fprobe_exits=%d fprobe_bad=%d\n",
		 val, atomic_read(&kr.entries), atomic_read(&kr.exits),
		 atomic_read(&kr.refused), atomic_read(&kr.bad_data),
		 atomic_read(&kr.bad_ret),
		 mode == 1 || mode == 2 ? atomic_read(&cnt.max_frames) : atomic_read(&kr.frames),
		 kr.entry_cpu, kr.exit_cpu, krp.nmissed, kretprobe_causes(&krp, fgraph),
		 atomic_read(&cnt.exits),
		 atomic_read(&cnt.bad_data) + atomic_read(&cnt.bad_ret));
	return 0;
}

/*
 * A return of "krnoentry", whose kretprobe has no entry handler: the n-th
 * return, the innermost first, is that of fpm_test_recurse(n), which
 * returns n, one frame further up the stack than the one before.
 */
static int krn_exit(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	int n = atomic_inc_return(&kr.exits) - 1;
	unsigned long sp = kernel_stack_pointer(regs);

	kr.exit_cpu = raw_smp_processor_id();
	if (get_kretprobe(ri) != kr.rp)
		atomic_inc(&kr.bad_data);
	else if ((int)regs_return_value(regs) != n || user_mode(regs) ||
		 instruction_pointer(regs) != get_kretprobe_retaddr(ri) ||
		 kr_hooked_ip(instruction_pointer(regs)) || sp <= kr.last_sp)
		atomic_inc(&kr.bad_ret);
	kr.last_sp = sp;
	if (kr.override && n == 16)
		regs_set_return_value(regs, regs_return_value(regs) + 1000);
	return 0;
}

/*
 * A classic kretprobe without entry handler, which hooks the return in one
 * step, on fpm_test_recurse(16): alone (@mode 0), with an fprobe
 * registered after it (1) or before it (2), or alone with the outermost
 * return value raised by 1000 (3).
 */
static int run_krnoentry(int mode)
{
	struct kretprobe krp = {
		.kp.symbol_name = "fpm_test_recurse",
		.handler = krn_exit,
	};
	struct fprobe fp = REC_FPROBE;
	bool fgraph;
	int ret, val;

	memset(&kr, 0, sizeof(kr));
	kr.rp = &krp;
	kr.override = mode == 3;
	ret = kr_register_with(&krp, &fp, mode);
	if (ret)
		return ret;
	fgraph = kretprobe_on_fgraph(&krp);
	val = fpm_test_recurse(16);
	kr_unregister_with(&krp, &fp, mode);
	snprintf(fpm_result, sizeof(fpm_result),
		 "ret=%d exits=%d bad_data=%d bad_ret=%d frames=%d nmissed=%d%s fprobe_exits=%d fprobe_bad=%d\n",
		 val, atomic_read(&kr.exits), atomic_read(&kr.bad_data),
		 atomic_read(&kr.bad_ret), atomic_read(&cnt.max_frames), krp.nmissed,
		 kretprobe_causes(&krp, fgraph), atomic_read(&cnt.exits),
		 atomic_read(&cnt.bad_data) + atomic_read(&cnt.bad_ret));
	return 0;
}

/* A kretprobe that rethook serves on fpm_test_recurse(): a big data pouch */
#define KR_RETHOOK(name, handler_fn)					\
	struct kretprobe name = {					\
		.kp.symbol_name = "fpm_test_recurse",			\
		.handler = handler_fn,					\
		.data_size = 200,					\
		.maxactive = 17,					\
	}

/*
 * A second kretprobe on fpm_test_recurse(), next to the one of "kretprobe
 * 0" (@rp, registered): a copy of @rp given a data pouch too big for the
 * shadow stack (@mode 2), whose registration must not take over @rp's
 * state on the shadow stack; or a kretprobe that rethook serves (3),
 * whose pre-handler runs before @rp's (the newer first), so that @rp's
 * hook finds rethook's trampoline as the return address; or (4) a
 * kretprobe on the shadow stack, whose pre-handler pushes the frame that
 * @rp's joins. Each call's returns counted in krp_hits.
 */
static int run_krsecond(struct kretprobe *rp, int mode)
{
	KR_RETHOOK(other, krp_handler);
	struct kretprobe on_fgraph = {
		.kp.symbol_name = "fpm_test_recurse",
		.handler = krp_handler,
	};
	struct kretprobe *second = mode == 4 ? &on_fgraph : &other;
	bool on_shadow_stack = mode == 4;
	int ret;

	if (mode == 2) {
		second = kmemdup(rp, sizeof(*rp), GFP_KERNEL);
		if (!second)
			return -ENOMEM;
		second->kp.addr = NULL;
		second->kp.flags = 0;
		second->handler = krp_handler;
		second->entry_handler = NULL;
		second->data_size = 200;
		second->maxactive = 17;
	}
	atomic_set(&krp_hits, 0);
	ret = register_kretprobe(second);
	if (!ret) {
		if (kretprobe_on_fgraph(second) != on_shadow_stack)
			ret = -EPROTO;
		else
			fpm_test_recurse(16);
		unregister_kretprobe(second);
	}
	if (mode == 2)
		kfree(second);
	return ret;
}

/*
 * "kretprobe 0" on a kretprobe that stays on rethook: with a data pouch
 * too big for the shadow stack (@mode 0), or on a function without ftrace
 * site (1); modes 2 and 3, see run_krsecond(). @override: the outermost
 * return handler adds 1000 to the return value.
 */
static int run_krfallback(int mode, bool override)
{
	struct kretprobe krp = {
		.kp.symbol_name = mode == 1 ? "fpm_test_recurse_notrace" : "fpm_test_recurse",
		.entry_handler = kr_entry,
		.handler = kr_exit,
		.data_size = mode ? sizeof(struct kr_data) : 200,
		.maxactive = 17,
	};
	int ret, val = 0, entries;
	bool fgraph;

	memset(&kr, 0, sizeof(kr));
	kr.recurse = true;
	kr.override = override;
	kr.rp = &krp;
	ret = register_kretprobe(&krp);
	if (ret)
		return ret;
	fgraph = kretprobe_on_fgraph(&krp);
	if (mode >= 2)
		ret = run_krsecond(&krp, mode);
	/* the kretprobe alone again, or still */
	entries = atomic_read(&kr.entries);
	if (!ret)
		val = mode == 1 ? fpm_test_recurse_notrace(16) : fpm_test_recurse(16);
	unregister_kretprobe(&krp);
	if (ret)
		return ret;
	snprintf(fpm_result, sizeof(fpm_result),
		 "ret=%d entries=%d exits=%d refused=%d bad_data=%d bad_ret=%d nmissed=%d%s second_hits=%d entries_last=%d\n",
		 val, atomic_read(&kr.entries), atomic_read(&kr.exits),
		 atomic_read(&kr.refused), atomic_read(&kr.bad_data),
		 atomic_read(&kr.bad_ret), krp.nmissed, kretprobe_causes(&krp, fgraph),
		 atomic_read(&krp_hits), atomic_read(&kr.entries) - entries);
	return 0;
}

static int run_call(int depth)
{
	snprintf(fpm_result, sizeof(fpm_result), "ret=%d\n",
		 fpm_test_recurse(depth));
	return 0;
}

static int run_sleep(int arg)
{
	int err, ret, before, after;

	err = sleep_from_cpu0(arg, &ret, &before, &after);
	if (err)
		return err;
	snprintf(fpm_result, sizeof(fpm_result), "ret=%d cpu_before=%d cpu_after=%d\n",
		 ret, before, after);
	return 0;
}

static int nest_entry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
		      struct ftrace_regs *fregs, void *data)
{
	atomic_inc(&cnt.entries);
	if (fpm_test_inner(ftrace_regs_get_argument(fregs, 0)) !=
	    ftrace_regs_get_argument(fregs, 0) + 1)
		atomic_inc(&cnt.bad_ret);
	return 0;
}

static int run_nest(int arg)
{
	struct fprobe fp = { .entry_handler = nest_entry };
	unsigned long addr = (unsigned long)fpm_test_outer;
	char extra[32];
	int ret;

	ret = register_fprobe_ips(&fp, &addr, 1);
	if (ret)
		return ret;
	ret = fpm_test_outer(arg);
	unregister_fprobe(&fp);
	snprintf(extra, sizeof(extra), " ret=%d", ret);
	report(&fp, extra);
	return 0;
}

static atomic_t kshared_hits;

static int kshared_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kshared_hits);
	if (fpm_test_recurse(0))
		atomic_inc(&cnt.bad_ret);
	return 0;
}

static int run_kshared(void)
{
	struct fprobe fp = REC_FPROBE;
	struct kprobe kp = {
		.symbol_name = "fpm_test_outer",
		.pre_handler = kshared_pre,
	};
	unsigned long addr = (unsigned long)fpm_test_recurse;
	char extra[48];
	int ret;

	fp.flags = FPROBE_FL_KPROBE_SHARED;
	atomic_set(&kshared_hits, 0);
	ret = register_fprobe_ips(&fp, &addr, 1);
	if (ret)
		return ret;
	ret = register_kprobe(&kp);
	if (ret) {
		unregister_fprobe(&fp);
		return ret;
	}
	fpm_test_recurse(0);
	ret = fpm_test_outer(3);
	unregister_kprobe(&kp);
	unregister_fprobe(&fp);
	snprintf(extra, sizeof(extra), " ret=%d kprobe_hits=%d", ret,
		 atomic_read(&kshared_hits));
	report(&fp, extra);
	return 0;
}

static int run_inject(int arg)
{
	snprintf(fpm_result, sizeof(fpm_result), "ret=%d\n", fpm_test_inject(arg));
	return 0;
}

static int looper_fn(void *data)
{
	atomic_t *calls = data;

	while (!kthread_should_stop()) {
		fpm_test_recurse(1);
		atomic_inc(calls);
		cond_resched();
	}
	return 0;
}

/*
 * Register and unregister a second fprobe on fpm_test_recurse() @n times.
 * The other functions of this module are not probed yet, so each time the
 * filter change patches code, which keeps the new nodes visible for a
 * while before register_fprobe_ips() returns.
 */
static int register_cycles(int n)
{
	unsigned long addrs[] = {
		(unsigned long)fpm_test_recurse, (unsigned long)fpm_test_inner,
		(unsigned long)fpm_test_outer, (unsigned long)fpm_test_inject,
		(unsigned long)fpm_test_block,
	};
	struct fprobe fp2 = { .exit_handler = nop_exit };
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++) {
		ret = register_fprobe_ips(&fp2, addrs, ARRAY_SIZE(addrs));
		if (!ret)
			ret = unregister_fprobe(&fp2);
	}
	return ret;
}

static int run_register(int n)
{
	struct fprobe fp = REC_FPROBE;
	unsigned long addr = (unsigned long)fpm_test_recurse;
	struct task_struct *looper;
	atomic_t calls = ATOMIC_INIT(0);
	char extra[64];
	int ret;

	if (num_online_cpus() < 2)
		return -EOPNOTSUPP;
	ret = register_fprobe_ips(&fp, &addr, 1);
	if (ret)
		return ret;
	looper = kthread_create(looper_fn, &calls, "fpm_looper");
	if (IS_ERR(looper)) {
		unregister_fprobe(&fp);
		return PTR_ERR(looper);
	}
	kthread_bind(looper, 1);
	wake_up_process(looper);
	ret = register_cycles(n);
	kthread_stop(looper);
	unregister_fprobe(&fp);
	snprintf(extra, sizeof(extra), " calls=%d cycles_ret=%d",
		 2 * atomic_read(&calls), ret);
	report(&fp, extra);
	return 0;
}

struct unregisterer {
	struct fprobe *fp;
	atomic_t *go;
	int ret;
	struct completion done;
};

static int unregisterer_fn(void *data)
{
	struct unregisterer *u = data;

	atomic_inc(u->go);
	while (atomic_read(u->go) < 2)
		cpu_relax();
	u->ret = unregister_fprobe(u->fp);
	kthread_complete_and_exit(&u->done, 0);
}

static int run_unregister2(void)
{
	struct fprobe fp = { .exit_handler = nop_exit };
	unsigned long addr = (unsigned long)fpm_test_inner;
	struct task_struct *t[2];
	struct unregisterer u[2];
	atomic_t go = ATOMIC_INIT(0);
	char extra[64];
	int i, ret;

	if (num_online_cpus() < 2)
		return -EOPNOTSUPP;
	for (i = 0; i < 2; i++) {
		u[i] = (struct unregisterer){ .fp = &fp, .go = &go };
		init_completion(&u[i].done);
		t[i] = kthread_create(unregisterer_fn, &u[i], "fpm_unreg/%d", i);
		if (IS_ERR(t[i])) {
			ret = PTR_ERR(t[i]);
			if (i)
				kthread_stop(t[0]);	/* never woken: does not run */
			return ret;
		}
		kthread_bind(t[i], i);
	}
	ret = register_fprobe_ips(&fp, &addr, 1);
	for (i = 0; i < 2; i++) {
		if (ret)
			kthread_stop(t[i]);
		else
			wake_up_process(t[i]);
	}
	if (ret)
		return ret;
	for (i = 0; i < 2; i++)
		wait_for_completion(&u[i].done);
	/* fprobe's bookkeeping must be right for the next user */
	ret = run_recursion(4);
	snprintf(extra, sizeof(extra), " ok=%d einval=%d\n",
		 !u[0].ret + !u[1].ret, (u[0].ret == -EINVAL) + (u[1].ret == -EINVAL));
	fpm_result[strcspn(fpm_result, "\n")] = 0;
	strlcat(fpm_result, extra, sizeof(fpm_result));
	return ret;
}

static atomic_t pool_unlocks;

static void unlock_exit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			struct ftrace_regs *fregs, void *data)
{
	atomic_inc(&pool_unlocks);
}

static DEFINE_SPINLOCK(pool_lock);

static int pool_fn(void *data)
{
	struct blocker *b = data;
	unsigned long flags;

	b->ret = !current->ret_stack;
	atomic_inc(&fpm_inside);
	wait_for_completion(&fpm_release);
	spin_lock_irqsave(&pool_lock, flags);
	spin_unlock_irqrestore(&pool_lock, flags);
	fpm_test_recurse(0);
	kthread_complete_and_exit(&b->done, 0);
}

static int run_pool(int n)
{
	struct fprobe fp = REC_FPROBE;
	struct fprobe fpu = { .exit_handler = unlock_exit };
	unsigned long addr = (unsigned long)fpm_test_recurse;
	int i, ret, stackless = 0;
	struct blocker *b;
	char extra[64];

	b = kvcalloc(n, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	atomic_set(&pool_unlocks, 0);
	ret = start_threads(b, n, pool_fn, "fpm_pool");
	if (ret)
		goto out_free;
	ret = register_fprobe_ips(&fp, &addr, 1);
	if (!ret) {
		ret = register_fprobe(&fpu, "_raw_spin_unlock_irqrestore", NULL);
		if (ret)
			unregister_fprobe(&fp);
	}
	complete_all(&fpm_release);
	for (i = 0; i < n; i++) {
		wait_for_completion(&b[i].done);
		stackless += b[i].ret;
	}
	if (ret)
		goto out_free;
	unregister_fprobe(&fpu);
	unregister_fprobe(&fp);
	snprintf(extra, sizeof(extra), " stackless=%d unlock_exits=%d",
		 stackless, atomic_read(&pool_unlocks) > 0);
	report(&fp, extra);
out_free:
	kvfree(b);
	return ret;
}

/*
 * Bit 0 of b->ret: current has a shadow stack; then, once released, bit 1:
 * it has one after a call of fpm_test_recurse(). A kthread forked while
 * only lazy users of fgraph are registered runs it at once (forked_fn).
 */
static void stack_then_call(struct blocker *b)
{
	b->ret = !!current->ret_stack;
	atomic_inc(&fpm_inside);
	wait_for_completion(&fpm_release);
	fpm_test_recurse(0);
	b->ret |= !!current->ret_stack << 1;
}

static int forked_fn(void *data)
{
	struct blocker *b = data;

	stack_then_call(b);
	kthread_complete_and_exit(&b->done, 0);
}

static int run_forked(int n)
{
	struct fprobe fp = REC_FPROBE;
	unsigned long addr = (unsigned long)fpm_test_recurse;
	int i, ret, at_fork = 0, after = 0;
	struct blocker *b;
	char extra[48];

	b = kvcalloc(n, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = register_fprobe_ips(&fp, &addr, 1);
	if (ret)
		goto out_free;
	ret = start_threads(b, n, forked_fn, "fpm_forked");
	if (!ret) {
		complete_all(&fpm_release);
		for (i = 0; i < n; i++) {
			wait_for_completion(&b[i].done);
			at_fork += b[i].ret & 1;
			after += b[i].ret >> 1;
		}
	}
	unregister_fprobe(&fp);
	snprintf(extra, sizeof(extra), " at_fork=%d after_call=%d", at_fork, after);
	report(&fp, extra);
out_free:
	kvfree(b);
	return ret;
}

/*
 * Threads made while fgraph is idle, then an fprobe (on fgraph, which
 * gives stacks on first use to fprobe's tasks): which of them have a
 * shadow stack before the registration, after it, and after one call.
 */
static int run_lazy(int n)
{
	struct fprobe fp = REC_FPROBE;
	unsigned long addr = (unsigned long)fpm_test_recurse;
	int i, ret, before = 0, attached = 0, after = 0;
	struct blocker *b;
	char extra[64];

	b = kvcalloc(n, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = start_threads(b, n, forked_fn, "fpm_lazy");
	if (ret)
		goto out_free;
	ret = register_fprobe_ips(&fp, &addr, 1);
	/* the threads wait in stack_then_call() meanwhile, alive */
	for (i = 0; i < n; i++)
		attached += !!READ_ONCE(b[i].task->ret_stack);
	complete_all(&fpm_release);
	for (i = 0; i < n; i++) {
		wait_for_completion(&b[i].done);
		before += b[i].ret & 1;
		after += b[i].ret >> 1;
	}
	if (ret)
		goto out_free;
	unregister_fprobe(&fp);
	snprintf(extra, sizeof(extra), " before=%d at_attach=%d after_call=%d",
		 before, attached, after);
	report(&fp, extra);
out_free:
	kvfree(b);
	return ret;
}

/*
 * "reclaim": thread 0 sleeps inside fpm_test_block(); the others call
 * fpm_test_recurse(0), sleep with nothing on their shadow stack until the
 * release, and call it again. Bit 0 of b->ret: a stack after the first
 * call; bit 1, one after the second.
 */
static int reclaim_fn(void *data)
{
	struct blocker *b = data;

	if (!b->arg) {
		b->ret = fpm_test_block(0);
		kthread_complete_and_exit(&b->done, 0);
	}
	fpm_test_recurse(0);
	stack_then_call(b);
	kthread_complete_and_exit(&b->done, 0);
}

/* How many of the sleepers of "reclaim" still have a shadow stack. */
static int reclaim_stacked(struct blocker *b, int n)
{
	int i, stacked = 0;

	for (i = 1; i <= n; i++)
		stacked += !!READ_ONCE(b[i].task->ret_stack);
	return stacked;
}

/* Call fpm_test_recurse() every 100 ms, so as never to sleep long */
static int churn_fn(void *data)
{
	while (!kthread_should_stop()) {
		fpm_test_recurse(0);
		msleep(100);
	}
	return 0;
}

/*
 * For "reclaimbackoff": run churn_fn() for 40 s, long enough for the
 * take-back's looks, which find its switch count changed each time, to
 * back off. Slept a second at a time: the hung task detector reports a
 * task that did not switch for 30 s.
 */
static struct task_struct *start_churn(bool backed_off)
{
	struct task_struct *t;
	int i;

	if (!backed_off)
		return NULL;
	t = kthread_run(churn_fn, NULL, "fpm_churn");
	for (i = 0; !IS_ERR(t) && i < 40; i++)
		msleep(1000);
	return t;
}

/* Wait up to 30 s for fgraph to take the sleepers' stacks back. */
static void reclaim_wait(struct blocker *b, int n, int *left, bool *kept)
{
	int waited;

	for (waited = 0; waited < 30000; waited += 100) {
		*left = reclaim_stacked(b, n);
		if (!*left)
			break;
		msleep(100);
	}
	*kept = READ_ONCE(b[0].task->ret_stack);
}

static int run_reclaim(int n, bool backed_off)
{
	struct fprobe fp = REC_FPROBE;
	struct fprobe fph = {
		.entry_handler = block_entry,
		.exit_handler = block_exit,
		.entry_data_size = sizeof(long),
	};
	unsigned long addr = (unsigned long)fpm_test_recurse;
	unsigned long haddr = (unsigned long)fpm_test_block;
	int i, ret, first = 0, left = 0, after = 0;
	struct blocker *b;
	struct task_struct *churn;
	bool kept = false;
	char extra[128];

	b = kvcalloc(n + 1, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = register_fprobe_ips(&fp, &addr, 1);
	if (ret)
		goto out_free;
	ret = register_fprobe_ips(&fph, &haddr, 1);
	if (ret)
		goto out_fp;
	churn = start_churn(backed_off);
	ret = PTR_ERR_OR_ZERO(churn);
	if (!ret)
		ret = start_threads(b, n + 1, reclaim_fn, "fpm_reclaim");
	if (ret)
		goto out_churn;
	reclaim_wait(b, n, &left, &kept);
	complete_all(&fpm_release);
	for (i = 0; i <= n; i++) {
		wait_for_completion(&b[i].done);
		first += i && (b[i].ret & 1);
		after += i && (b[i].ret >> 1);
	}
	snprintf(extra, sizeof(extra),
		 " first_call=%d reclaimed=%d kept=%d after_call=%d holder_ret=%d holder_missed=%lu",
		 first, n - left, kept, after, b[0].ret, fprobe_nmissed(&fph));
out_churn:
	if (!IS_ERR_OR_NULL(churn))
		kthread_stop(churn);
	unregister_fprobe(&fph);
out_fp:
	unregister_fprobe(&fp);
	if (!ret)
		report(&fp, extra);
out_free:
	kvfree(b);
	return ret;
}

static int detach_fn(void *data)
{
	struct blocker *b = data;

	fpm_test_recurse(0);
	b->ret = !!current->ret_stack;
	atomic_inc(&fpm_inside);
	wait_for_completion(&fpm_release);
	kthread_complete_and_exit(&b->done, 0);
}

/* How many of @n threads still have a shadow stack after up to 30 s. */
static int detach_wait(struct blocker *b, int n)
{
	int i, waited, left = n;

	for (waited = 0; left && waited < 30000; waited += 100) {
		msleep(100);
		for (i = 0, left = 0; i < n; i++)
			left += !!READ_ONCE(b[i].task->ret_stack);
	}
	return left;
}

static int run_reclaim_detach(int n)
{
	struct fprobe fp = REC_FPROBE;
	unsigned long addr = (unsigned long)fpm_test_recurse;
	int i, ret, first = 0, left;
	struct blocker *b;
	char extra[64];

	b = kvcalloc(n, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = register_fprobe_ips(&fp, &addr, 1);
	if (ret)
		goto out_free;
	ret = start_threads(b, n, detach_fn, "fpm_detach");
	unregister_fprobe(&fp);
	if (ret)
		goto out_free;
	left = detach_wait(b, n);
	complete_all(&fpm_release);
	for (i = 0; i < n; i++) {
		wait_for_completion(&b[i].done);
		first += b[i].ret;
	}
	snprintf(extra, sizeof(extra), " first_call=%d left=%d", first, left);
	report(&fp, extra);
out_free:
	kvfree(b);
	return ret;
}

/*
 * "stacks": how many tasks have a shadow stack, of how many, and the
 * names of the first few that have one.
 */
static int run_stacks(void)
{
	char names[160] = "";
	struct task_struct *g, *t;
	int tasks = 0, stacked = 0;
	size_t len = 0;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		tasks++;
		if (!READ_ONCE(t->ret_stack))
			continue;
		stacked++;
		if (len + TASK_COMM_LEN + 2 < sizeof(names))
			len += scnprintf(names + len, sizeof(names) - len, " %s", t->comm);
	}
	rcu_read_unlock();
	snprintf(fpm_result, sizeof(fpm_result), "stacked=%d tasks=%d names=%s\n",
		 stacked, tasks, names);
	return 0;
}

static ssize_t run_write(struct file *file, const char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	char buf[64], name[16];
	int arg = 0, ret;

	if (len >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%15s %d", name, &arg) < 1)
		return -EINVAL;

	mutex_lock(&fpm_lock);
	memset(&cnt, 0, sizeof(cnt));
	fpm_result[0] = 0;
	/* they share fpm_release with the threads of "stale" and "hold" */
	if (stale_b && (!strcmp(name, "block") || !strcmp(name, "unregister") ||
			!strcmp(name, "krunregister") ||
			!strcmp(name, "disable") || !strcmp(name, "pool") ||
			!strcmp(name, "forked") || !strcmp(name, "reclaim") ||
			!strcmp(name, "lazy") || !strcmp(name, "reclaimdetach") ||
			!strcmp(name, "reclaimbackoff") || !strcmp(name, "reregister")))
		ret = -EBUSY;
	else if (!strcmp(name, "recursion") && arg >= 0 && arg <= 4096)
		ret = run_recursion(arg);
	else if (!strcmp(name, "migrate"))
		ret = run_migrate();
	else if (!strcmp(name, "block") && arg > 0 && arg <= 4096)
		ret = run_block(arg, BLOCK_RELEASE);
	else if (!strcmp(name, "unregister") && arg > 0 && arg <= 4096)
		ret = run_block(arg, BLOCK_UNREGISTER);
	else if (!strcmp(name, "disable") && arg > 0 && arg <= 4096)
		ret = run_block(arg, BLOCK_DISABLE);
	else if (!strcmp(name, "reregister") && arg > 0 && arg <= 4096)
		ret = run_reregister(arg);
	else if (!strcmp(name, "regfail") && arg > 0 && arg <= 64)
		ret = run_regfail(arg);
	else if (!strcmp(name, "krunregister") && arg > 0 && arg <= 4096)
		ret = run_block(arg, BLOCK_KRP_UNREGISTER);
	else if (!strcmp(name, "forked") && arg > 0 && arg <= 64)
		ret = run_forked(arg);
	else if (!strcmp(name, "lazy") && arg > 0 && arg <= 64)
		ret = run_lazy(arg);
	else if (!strcmp(name, "reclaimdetach") && arg > 0 && arg <= 1024)
		ret = run_reclaim_detach(arg);
	else if (!strcmp(name, "reclaim") && arg > 0 && arg <= 64)
		ret = run_reclaim(arg, false);
	else if (!strcmp(name, "reclaimbackoff") && arg > 0 && arg <= 64)
		ret = run_reclaim(arg, true);
	else if (!strcmp(name, "stacks"))
		ret = run_stacks();
	else if (!strcmp(name, "call") && arg >= 0 && arg <= 4096)
		ret = run_call(arg);
	else if (!strcmp(name, "inject"))
		ret = run_inject(arg);
	else if (!strcmp(name, "sleep"))
		ret = run_sleep(arg);
	else if (!strcmp(name, "nest"))
		ret = run_nest(arg);
	else if (!strcmp(name, "register") && arg > 0 && arg <= 1000)
		ret = run_register(arg);
	else if (!strcmp(name, "unregister2"))
		ret = run_unregister2();
	else if (!strcmp(name, "pool") && arg > 0 && arg <= 1024)
		ret = run_pool(arg);
	else if (!strcmp(name, "rcuoff") && arg >= 0 && arg <= 4)
		ret = run_rcuoff(arg);
	else if (!strcmp(name, "tailcall"))
		ret = run_tailcall();
	else if (!strcmp(name, "kshared"))
		ret = run_kshared();
	else if (!strcmp(name, "args"))
		ret = run_args();
	else if (!strcmp(name, "struct") && arg > 0 && arg <= 26)
		ret = run_struct(arg);
	else if (!strcmp(name, "kretprobe") && arg >= 0 && arg <= 4096)
		ret = run_kretprobe(arg);
	else if (!strcmp(name, "krnoentry") && arg >= 0 && arg <= 3)
		ret = run_krnoentry(arg);
	else if (!strcmp(name, "krfallback") && arg >= 0 && arg <= 4)
		ret = run_krfallback(arg, false);
	else if (!strcmp(name, "kroverride") && (arg == 0 || arg == 2))
		ret = run_krfallback(arg, true);
	else if (!strcmp(name, "regs"))
		ret = run_regs();
	else if (!strcmp(name, "stale") && arg > 0 && arg <= 1024)
		ret = run_stale(arg);
	else if (!strcmp(name, "hold") && arg > 0 && arg <= 1024)
		ret = run_hold(arg);
	else if (!strcmp(name, "release"))
		ret = run_release();
	else
		ret = -EINVAL;
	mutex_unlock(&fpm_lock);
	return ret ? ret : len;
}

static ssize_t run_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&fpm_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, fpm_result, strlen(fpm_result));
	mutex_unlock(&fpm_lock);
	return ret;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.write = run_write,
	.read = run_read,
	.llseek = default_llseek,
};

static struct dentry *fpm_dir;

static int __init fpm_test_init(void)
{
	fpm_dir = debugfs_create_dir("fpm_test", NULL);
	debugfs_create_file("run", 0600, fpm_dir, NULL, &run_fops);
	return 0;
}

static void __exit fpm_test_exit(void)
{
	debugfs_remove_recursive(fpm_dir);
	if (stale_b)
		stale_release();
}

module_init(fpm_test_init);
module_exit(fpm_test_exit);
MODULE_DESCRIPTION("fprobe on fgraph test scenarios");
MODULE_LICENSE("GPL");
