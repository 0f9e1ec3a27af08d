// SPDX-License-Identifier: GPL-2.0
/*
 * BPF links on fprobe: one implementation for three attach types.
 *
 *   BPF_TRACE_FPROBE_MULTI	fprobe.multi, fretprobe.multi, fprobe.session:
 *				the program's context is the ftrace_regs, which
 *				it reads through the bpf_fprobe_*() kfuncs only.
 *   BPF_TRACE_KPROBE_MULTI	kprobe.multi and kretprobe.multi: the program
 *				reads a pt_regs view of the ftrace_regs.
 *   BPF_TRACE_KPROBE_SESSION	kprobe.session: the same at entry and exit,
 *				with a u64 of session data as its cookie.
 *
 * The kprobe flavours keep their uapi (link_create.kprobe_multi, their link
 * type and bpf_link_info member) and the way they take their input:
 * addresses as given, repeats allowed, -ESRCH for a symbol ftrace does not
 * know. fprobe.multi checks its input strictly, see
 * bpf_fprobe_multi_link_attach(). Everything else is shared: registration,
 * the run, sessions, module pinning, link information and release.
 *
 * Per-call data lives in the fprobe's entry data on the fgraph shadow stack:
 *
 *	u64 words: | saved_args arguments | session data (session_words) |
 *
 * Arguments are saved at entry for the exit run, because the argument
 * registers are clobbered by then. The session data is zeroed at entry and
 * shared by the entry and exit runs of one call. A session's exit runs only
 * when its entry ran and returned 0, and then it runs unless it is counted
 * as missed: refused as recursion (the link's missed count, or the
 * program's recursion_misses), or still to come when the link is detached
 * (the link's missed count). See "The missed counter" in fprobe.rst.
 *
 * fprobe.multi programs get no pt_regs on a hit. The helpers that need one
 * (stack walks, perf output) make the view on their first call in a run,
 * see bpf_fprobe_link_regs(). They may also use the accessors of fentry and
 * fexit programs (bpf_get_func_arg(), bpf_get_func_ret(),
 * bpf_get_func_arg_cnt()) and kprobe.session's kfuncs, with the same
 * meaning: the link records each function's argument count from BTF, for
 * a program that reads it, see fprobe_link_btf_nargs().
 *
 * cookies[], if given, is kept in the order of addrs[], sorted by address,
 * so a run looks its cookie up by the function's address.
 *
 * Locking: a link is set up whole before register_fprobe_ips() makes it
 * reachable, and its arrays do not change after that. The handlers run
 * with preemption off, as fprobe calls them; bpf_prog_active keeps them to
 * one program per CPU, which also guards the per-CPU pt_regs buffer.
 * detach_lock serialises BPF_LINK_DETACH against release, and
 * unregister_fprobe() returns only when no handler of the link runs, so
 * the link is freed (dealloc, after an RCU grace period) with no run left.
 */
#include <linux/bpf.h>
#include <linux/bpf_verifier.h>
#include <linux/bsearch.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/error-injection.h>
#include <linux/filter.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stringhash.h>
#include <linux/trace_events.h>
#include <linux/uaccess.h>

#include "bpf_fprobe_link.h"

#define MAX_KPROBE_MULTI_CNT SZ_1M

#ifdef NR_REG_ARGUMENTS
#define FPROBE_MULTI_REG_ARGS	min(NR_REG_ARGUMENTS, BPF_FPROBE_MULTI_ARGS_MAX)
#else
#define FPROBE_MULTI_REG_ARGS	BPF_FPROBE_MULTI_ARGS_MAX
#endif

#define FPROBE_MULTI_FLAGS	(BPF_F_FPROBE_MULTI_RETURN | BPF_F_FPROBE_MULTI_SESSION)

enum fprobe_link_mode {
	FPROBE_LINK_ENTRY,
	FPROBE_LINK_RETURN,
	FPROBE_LINK_SESSION,
};

struct bpf_fprobe_link {
	struct bpf_link link;
	struct fprobe fp;
	unsigned long *addrs;
	u64 *cookies;
	u32 cnt;
	u32 flags;		/* as the flavour's uapi gave them */
	enum fprobe_link_mode mode;
	u32 session_size;
	/* whole words of session data: in a session, one at least */
	u32 session_words;
	u32 saved_args;
	u8 *nargs;		/* per function, fprobe.multi only */
	bool pt_regs;		/* the kprobe flavours */
	u32 mods_cnt;
	struct module **mods;
	/* serialises detach and release; set once the fprobe is gone */
	struct mutex detach_lock;
	bool detached;
};

/* What a run works out only when its program asks, once it has: run_ctx->known */
#define FPROBE_RUN_REGS		BIT(0)
#define FPROBE_RUN_ENTRY_IP	BIT(1)
#define FPROBE_RUN_NARGS	BIT(2)

/*
 * Set field by field on each run, with no clearing first: a new field must
 * be set in fprobe_run_ctx_init(), or be one that @known tells is unset.
 */
struct bpf_fprobe_run_ctx {
	/*
	 * Not first: a struct whose first member is 16 bytes long gets 16-byte
	 * alignment on x86-64 GCC's stack, and costs an aligned frame
	 */
	struct bpf_fprobe_link *link;
	/* is_return, and the session data for bpf_session_cookie() too */
	struct bpf_session_run_ctx session_ctx;
	struct ftrace_regs *fregs;
	/* the ftrace location; regs, entry_ip and nargs as @known tells */
	unsigned long fentry_ip;
	u64 *args;
	u8 known;
	/* the function's argument count in registers */
	u8 nargs;
	struct pt_regs *regs;
	/* the function's address */
	unsigned long entry_ip;
	/* bpf_session_cookie() outside a session: this run's own word */
	u64 cookie;
};

static struct bpf_fprobe_run_ctx *fprobe_link_run_ctx(void)
{
	return container_of(current->bpf_ctx, struct bpf_fprobe_run_ctx,
			    session_ctx.run_ctx);
}

/*
 * The pt_regs view of the run's ftrace_regs. Where the arch needs a copy,
 * it goes to this per-CPU buffer: bpf_prog_active keeps it to one program
 * per CPU.
 */
static DEFINE_PER_CPU(struct pt_regs, bpf_fprobe_link_pt_regs);

/*
 * Made once per run: before it for the kprobe flavours, on the first call
 * of a helper that needs it for fprobe.multi programs.
 */
static struct pt_regs *fprobe_run_ctx_regs(struct bpf_fprobe_run_ctx *run_ctx)
{
	if (!(run_ctx->known & FPROBE_RUN_REGS)) {
		run_ctx->regs = ftrace_partial_regs(run_ctx->fregs,
						    this_cpu_ptr(&bpf_fprobe_link_pt_regs));
		run_ctx->known |= FPROBE_RUN_REGS;
	}
	return run_ctx->regs;
}

/*
 * The function's address: its ftrace location, less an ENDBR before it.
 * Reading the instruction costs, so it is done once a program asks.
 */
static unsigned long fprobe_run_ctx_entry_ip(struct bpf_fprobe_run_ctx *run_ctx)
{
	if (!(run_ctx->known & FPROBE_RUN_ENTRY_IP)) {
		run_ctx->entry_ip = get_entry_ip(run_ctx->fentry_ip);
		run_ctx->known |= FPROBE_RUN_ENTRY_IP;
	}
	return run_ctx->entry_ip;
}

struct pt_regs *bpf_fprobe_link_regs(void)
{
	return fprobe_run_ctx_regs(fprobe_link_run_ctx());
}

static int fprobe_link_addrs_cmp(const void *a, const void *b)
{
	const unsigned long *addr_a = a, *addr_b = b;

	if (*addr_a == *addr_b)
		return 0;
	return *addr_a < *addr_b ? -1 : 1;
}

/*
 * The index of @ip in the link's sorted addresses, or -1. A run looks its
 * function up with this loop, not bsearch(), whose compare function is an
 * indirect call per step.
 */
static long fprobe_link_find(const struct bpf_fprobe_link *link, unsigned long ip)
{
	const unsigned long *addrs = link->addrs;
	u32 lo = 0, hi = link->cnt, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addrs[mid] == ip)
			return mid;
		if (addrs[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The run's function's argument count in registers, looked up once. */
static u32 fprobe_run_ctx_nargs(struct bpf_fprobe_run_ctx *run_ctx)
{
	struct bpf_fprobe_link *link = run_ctx->link;
	long i;

	if (run_ctx->known & FPROBE_RUN_NARGS)
		return run_ctx->nargs;
	run_ctx->nargs = FPROBE_MULTI_REG_ARGS;
	if (link->nargs) {
		i = fprobe_link_find(link, fprobe_run_ctx_entry_ip(run_ctx));
		if (i >= 0)
			run_ctx->nargs = link->nargs[i];
	}
	run_ctx->known |= FPROBE_RUN_NARGS;
	return run_ctx->nargs;
}

u64 bpf_fprobe_link_cookie(struct bpf_run_ctx *ctx)
{
	struct bpf_fprobe_run_ctx *run_ctx;
	struct bpf_fprobe_link *link;
	long i;

	if (WARN_ON_ONCE(!ctx))
		return 0;
	run_ctx = fprobe_link_run_ctx();
	link = run_ctx->link;
	if (!link->cookies)
		return 0;
	i = fprobe_link_find(link, fprobe_run_ctx_entry_ip(run_ctx));
	return i >= 0 ? link->cookies[i] : 0;
}

u64 bpf_fprobe_link_entry_ip(struct bpf_run_ctx *ctx)
{
	return fprobe_run_ctx_entry_ip(fprobe_link_run_ctx());
}

/* @session: the call's session data, or NULL for the run's own cookie */
static __always_inline void fprobe_run_ctx_init(struct bpf_fprobe_run_ctx *run_ctx,
						struct bpf_fprobe_link *link,
						unsigned long fentry_ip,
						struct ftrace_regs *fregs,
						bool is_return, u64 *words, u64 *session)
{
	run_ctx->session_ctx.is_return = is_return;
	if (!session) {
		run_ctx->cookie = 0;
		session = &run_ctx->cookie;
	}
	run_ctx->session_ctx.data = session;
	run_ctx->link = link;
	run_ctx->fregs = fregs;
	run_ctx->fentry_ip = fentry_ip;
	run_ctx->args = words;
	run_ctx->known = 0;
}

/*
 * Runs the program, with the call's saved arguments and session data, if
 * any, in @words and @session. Returns its result, or 1 when it could not
 * run.
 */
static __always_inline int fprobe_link_prog_run(struct bpf_fprobe_link *link,
						unsigned long fentry_ip,
						struct ftrace_regs *fregs,
						bool is_return, u64 *words, u64 *session)
{
	/* each field is set below: no clearing of the whole on every run */
	struct bpf_fprobe_run_ctx run_ctx __uninitialized;
	struct bpf_run_ctx *old_run_ctx;
	void *ctx = fregs;
	int ret = 1;

	/*
	 * fprobe handlers run with preemption disabled. Not cant_sleep():
	 * __cant_sleep() is traceable, and an exit run calls it unguarded.
	 */
	lockdep_assert_preemption_disabled();

	if (unlikely(__this_cpu_inc_return(bpf_prog_active) != 1)) {
		bpf_prog_inc_misses_counter(link->link.prog);
		goto out;
	}

	fprobe_run_ctx_init(&run_ctx, link, fentry_ip, fregs, is_return, words, session);
	if (link->pt_regs) {
		run_ctx.regs = ftrace_partial_regs(fregs, this_cpu_ptr(&bpf_fprobe_link_pt_regs));
		run_ctx.known = FPROBE_RUN_REGS;
		ctx = run_ctx.regs;
	}
	rcu_read_lock();
	old_run_ctx = bpf_set_run_ctx(&run_ctx.session_ctx.run_ctx);
	ret = bpf_prog_run(link->link.prog, ctx);
	bpf_reset_run_ctx(old_run_ctx);
	rcu_read_unlock();
out:
	__this_cpu_dec(bpf_prog_active);
	return ret;
}

/*
 * Save the first @n arguments. Unrolled, so that each read has a constant
 * index and compiles to a load, where a loop called the architecture's
 * argument accessor once per argument.
 */
static __always_inline void fprobe_link_save_args(u64 *words, struct ftrace_regs *fregs,
						  u32 n)
{
	BUILD_BUG_ON(BPF_FPROBE_MULTI_ARGS_MAX != 6);
	/* most links save none: one test for them, not a chain of compares */
	if (!n)
		return;
	switch (n) {
	case 6:
		words[5] = ftrace_regs_get_argument(fregs, 5);
		fallthrough;
	case 5:
		words[4] = ftrace_regs_get_argument(fregs, 4);
		fallthrough;
	case 4:
		words[3] = ftrace_regs_get_argument(fregs, 3);
		fallthrough;
	case 3:
		words[2] = ftrace_regs_get_argument(fregs, 2);
		fallthrough;
	case 2:
		words[1] = ftrace_regs_get_argument(fregs, 1);
		fallthrough;
	case 1:
		words[0] = ftrace_regs_get_argument(fregs, 0);
		break;
	}
}

static int fprobe_link_entry(struct fprobe *fp, unsigned long fentry_ip,
			     unsigned long ret_ip, struct ftrace_regs *fregs,
			     void *data)
{
	struct bpf_fprobe_link *link;
	u64 *words = data, *session = NULL;
	enum fprobe_link_mode mode;
	u32 n, saved;
	int ret;

	link = container_of(fp, struct bpf_fprobe_link, fp);
	/* in locals: the stores below may alias the link, as far as C knows */
	saved = link->saved_args;
	n = link->session_words;
	mode = link->mode;
	fprobe_link_save_args(words, fregs, saved);
	/* most have one session word, bpf_session_cookie()'s: no loop for it */
	if (n) {
		session = words + saved;
		session[0] = 0;
		if (unlikely(n > 1))
			memset(session + 1, 0, (n - 1) * sizeof(*session));
	}
	if (mode == FPROBE_LINK_RETURN)
		return 0;

	ret = fprobe_link_prog_run(link, fentry_ip, fregs, false, words, session);
	return mode == FPROBE_LINK_SESSION ? ret : 0;
}

static void fprobe_link_exit(struct fprobe *fp, unsigned long fentry_ip,
			     unsigned long ret_ip, struct ftrace_regs *fregs,
			     void *data)
{
	struct bpf_fprobe_link *link;
	u64 *words = data;

	link = container_of(fp, struct bpf_fprobe_link, fp);
	fprobe_link_prog_run(link, fentry_ip, fregs, true, words,
			     link->session_words ? words + link->saved_args : NULL);
}

struct user_syms {
	const char **syms;
	char *buf;
};

static int copy_user_syms(struct user_syms *us, unsigned long __user *usyms, u32 cnt)
{
	unsigned long __user usymbol;
	const char **syms = NULL;
	char *buf = NULL, *p;
	int err = -ENOMEM;
	unsigned int i;

	if (!access_ok(usyms, cnt * sizeof(*usyms)))
		return -EFAULT;

	syms = kvmalloc_array(cnt, sizeof(*syms), GFP_KERNEL);
	if (!syms)
		return -ENOMEM;

	buf = kvmalloc_array(cnt, KSYM_NAME_LEN, GFP_KERNEL);
	if (!buf)
		goto error;

	for (p = buf, i = 0; i < cnt; i++) {
		if (__get_user(usymbol, usyms + i)) {
			err = -EFAULT;
			goto error;
		}
		err = strncpy_from_user(p, (const char __user *)usymbol, KSYM_NAME_LEN);
		if (err == KSYM_NAME_LEN)
			err = -E2BIG;
		if (err < 0)
			goto error;
		syms[i] = p;
		p += err + 1;
	}

	us->syms = syms;
	us->buf = buf;
	return 0;

error:
	kvfree(syms);
	kvfree(buf);
	return err;
}

static void multi_link_put_modules(struct module **mods, u32 cnt)
{
	u32 i;

	for (i = 0; i < cnt; i++)
		module_put(mods[i]);
}

static void free_user_syms(struct user_syms *us)
{
	kvfree(us->syms);
	kvfree(us->buf);
}

static void bpf_fprobe_link_unhook(struct bpf_link *link)
{
	struct bpf_fprobe_link *flink;

	flink = container_of(link, struct bpf_fprobe_link, link);
	guard(mutex)(&flink->detach_lock);
	if (flink->detached)
		return;
	unregister_fprobe(&flink->fp);
	multi_link_put_modules(flink->mods, flink->mods_cnt);
	flink->detached = true;
}

static void bpf_fprobe_link_release(struct bpf_link *link)
{
	bpf_fprobe_link_unhook(link);
}

static int bpf_fprobe_link_detach(struct bpf_link *link)
{
	bpf_fprobe_link_unhook(link);
	return 0;
}

static void bpf_fprobe_link_dealloc(struct bpf_link *link)
{
	struct bpf_fprobe_link *flink;

	flink = container_of(link, struct bpf_fprobe_link, link);
	kvfree(flink->addrs);
	kvfree(flink->cookies);
	kvfree(flink->nargs);
	kfree(flink->mods);
	kfree(flink);
}

/*
 * The function arrays of link_info: as many as @ucount holds (-ENOSPC if
 * that is not all), cookies as 0 when the link has none, and addresses as
 * 0 unless kallsyms would show them to the caller. -EINVAL for arrays
 * without a count, or a count without addresses.
 */
static int fprobe_link_fill_funcs(const struct bpf_fprobe_link *flink,
				  u64 __user *uaddrs, u64 __user *ucookies,
				  u32 ucount)
{
	bool show = kallsyms_show_value(current_cred());
	int err = 0;
	u32 i;

	if (!uaddrs ^ !ucount)
		return -EINVAL;
	if (ucookies && !ucount)
		return -EINVAL;
	if (!uaddrs)
		return 0;
	if (ucount < flink->cnt)
		err = -ENOSPC;
	else
		ucount = flink->cnt;

	for (i = 0; i < ucount; i++) {
		if (ucookies &&
		    put_user(flink->cookies ? flink->cookies[i] : 0, ucookies + i))
			return -EFAULT;
		if (put_user(show ? flink->addrs[i] : 0, uaddrs + i))
			return -EFAULT;
	}
	return err;
}

static int bpf_kprobe_multi_link_fill_link_info(const struct bpf_link *link,
						struct bpf_link_info *info)
{
	u64 __user *ucookies = u64_to_user_ptr(info->kprobe_multi.cookies);
	u64 __user *uaddrs = u64_to_user_ptr(info->kprobe_multi.addrs);
	u32 ucount = info->kprobe_multi.count;
	unsigned long stack, recursion;
	struct bpf_fprobe_link *flink;

	flink = container_of(link, struct bpf_fprobe_link, link);
	info->kprobe_multi.count = flink->cnt;
	info->kprobe_multi.flags = flink->flags;
	info->kprobe_multi.missed = fprobe_missed_counts(&flink->fp, &stack, &recursion);
	info->kprobe_multi.missed_stack = stack;
	info->kprobe_multi.missed_recursion = recursion;
	return fprobe_link_fill_funcs(flink, uaddrs, ucookies, ucount);
}

static int bpf_fprobe_multi_link_fill_link_info(const struct bpf_link *link,
						struct bpf_link_info *info)
{
	u64 __user *ucookies = u64_to_user_ptr(info->fprobe_multi.cookies);
	u64 __user *uaddrs = u64_to_user_ptr(info->fprobe_multi.addrs);
	u32 ucount = info->fprobe_multi.count;
	unsigned long stack, recursion;
	struct bpf_fprobe_link *flink;

	flink = container_of(link, struct bpf_fprobe_link, link);
	info->fprobe_multi.count = flink->cnt;
	info->fprobe_multi.flags = flink->flags;
	info->fprobe_multi.missed = fprobe_missed_counts(&flink->fp, &stack, &recursion);
	info->fprobe_multi.missed_stack = stack;
	info->fprobe_multi.missed_recursion = recursion;
	info->fprobe_multi.session_size = flink->session_size;
	info->fprobe_multi.saved_args = flink->saved_args;
	return fprobe_link_fill_funcs(flink, uaddrs, ucookies, ucount);
}

#ifdef CONFIG_PROC_FS
static void bpf_fprobe_multi_link_show_fdinfo(const struct bpf_link *link,
					      struct seq_file *seq)
{
	static const char * const modes[] = {
		[FPROBE_LINK_ENTRY] = "entry",
		[FPROBE_LINK_RETURN] = "return",
		[FPROBE_LINK_SESSION] = "session",
	};
	unsigned long missed, stack, recursion;
	struct bpf_fprobe_link *flink;
	u32 i;

	flink = container_of(link, struct bpf_fprobe_link, link);
	missed = fprobe_missed_counts(&flink->fp, &stack, &recursion);
	seq_printf(seq,
		   "fprobe_cnt:\t%u\n"
		   "flags:\t%s\n"
		   "session_size:\t%u\n"
		   "saved_args:\t%u\n"
		   "missed:\t%lu\n"
		   "missed_stack:\t%lu\n"
		   "missed_recursion:\t%lu\n",
		   flink->cnt, modes[flink->mode], flink->session_size,
		   flink->saved_args, missed, stack, recursion);
	seq_puts(seq, "cookie\tfunc\n");
	for (i = 0; i < flink->cnt; i++)
		seq_printf(seq, "%llu\t%ps\n",
			   flink->cookies ? flink->cookies[i] : 0,
			   (void *)flink->addrs[i]);
}
#endif

/* kprobe.multi links keep the operations they had: no detach, no fdinfo. */
static const struct bpf_link_ops bpf_kprobe_multi_link_lops = {
	.release = bpf_fprobe_link_release,
	.dealloc_deferred = bpf_fprobe_link_dealloc,
	.fill_link_info = bpf_kprobe_multi_link_fill_link_info,
};

static const struct bpf_link_ops bpf_fprobe_multi_link_lops = {
	.release = bpf_fprobe_link_release,
	.detach = bpf_fprobe_link_detach,
	.dealloc_deferred = bpf_fprobe_link_dealloc,
	.fill_link_info = bpf_fprobe_multi_link_fill_link_info,
#ifdef CONFIG_PROC_FS
	.show_fdinfo = bpf_fprobe_multi_link_show_fdinfo,
#endif
};

static int symbols_cmp_r(const void *a, const void *b, const void *priv)
{
	const char **str_a = (const char **)a;
	const char **str_b = (const char **)b;

	return strcmp(*str_a, *str_b);
}

struct multi_symbols_sort {
	const char **funcs;
	u64 *cookies;
};

static void symbols_swap_r(void *a, void *b, int size, const void *priv)
{
	const struct multi_symbols_sort *data = priv;
	const char **name_a = a, **name_b = b;

	swap(*name_a, *name_b);

	/* If defined, swap also related cookies. */
	if (data->cookies) {
		u64 *cookie_a, *cookie_b;

		cookie_a = data->cookies + (name_a - data->funcs);
		cookie_b = data->cookies + (name_b - data->funcs);
		swap(*cookie_a, *cookie_b);
	}
}

struct modules_array {
	struct module **mods;
	int mods_cnt;
	int mods_cap;
};

static int add_module(struct modules_array *arr, struct module *mod)
{
	struct module **mods;

	if (arr->mods_cnt == arr->mods_cap) {
		arr->mods_cap = max(16, arr->mods_cap * 3 / 2);
		mods = krealloc_array(arr->mods, arr->mods_cap, sizeof(*mods), GFP_KERNEL);
		if (!mods)
			return -ENOMEM;
		arr->mods = mods;
	}

	arr->mods[arr->mods_cnt] = mod;
	arr->mods_cnt++;
	return 0;
}

static bool has_module(struct modules_array *arr, struct module *mod)
{
	int i;

	for (i = arr->mods_cnt - 1; i >= 0; i--) {
		if (arr->mods[i] == mod)
			return true;
	}
	return false;
}

static int get_modules_for_addrs(struct module ***mods, unsigned long *addrs, u32 addrs_cnt)
{
	struct modules_array arr = {};
	u32 i, err = 0;

	for (i = 0; i < addrs_cnt; i++) {
		struct module *mod;

		preempt_disable();
		mod = __module_address(addrs[i]);
		/* Either no module or we it's already stored  */
		if (!mod || has_module(&arr, mod)) {
			preempt_enable();
			continue;
		}
		if (!try_module_get(mod))
			err = -EINVAL;
		preempt_enable();
		if (err)
			break;
		err = add_module(&arr, mod);
		if (err) {
			module_put(mod);
			break;
		}
	}

	/* We return either err < 0 in case of error, ... */
	if (err) {
		multi_link_put_modules(arr.mods, arr.mods_cnt);
		kfree(arr.mods);
		return err;
	}

	/* or number of modules found if everything is ok. */
	*mods = arr.mods;
	return arr.mods_cnt;
}

static int addrs_check_error_injection_list(unsigned long *addrs, u32 cnt)
{
	u32 i;

	for (i = 0; i < cnt; i++) {
		if (!within_error_injection_list(addrs[i]))
			return -EINVAL;
	}
	return 0;
}

struct fprobe_multi_sort {
	unsigned long *addrs;
	u64 *cookies;
	u32 *idx;
};

static void fprobe_multi_addrs_swap(void *a, void *b, int size,
				    const void *priv)
{
	const struct fprobe_multi_sort *s = priv;
	unsigned long *addr_a = a, *addr_b = b;

	if (s->cookies)
		swap(s->cookies[addr_a - s->addrs], s->cookies[addr_b - s->addrs]);
	if (s->idx)
		swap(s->idx[addr_a - s->addrs], s->idx[addr_b - s->addrs]);
	swap(*addr_a, *addr_b);
}

static int fprobe_multi_addrs_cmp_r(const void *a, const void *b,
				    const void *priv)
{
	return fprobe_link_addrs_cmp(a, b);
}

/*
 * Copies @cnt symbol names from user space and sorts them, with their
 * cookies, for a lookup by name.
 */
static int fprobe_link_copy_syms(void __user *usyms, u32 cnt,
				 struct user_syms *us, u64 *cookies)
{
	struct multi_symbols_sort data = {
		.cookies = cookies,
	};
	int err;

	err = copy_user_syms(us, usyms, cnt);
	if (err)
		return err;
	data.funcs = us->syms;
	sort_r(us->syms, cnt, sizeof(*us->syms), symbols_cmp_r, symbols_swap_r,
	       &data);
	return 0;
}

static int fprobe_multi_name_cmp(const void *a, const void *b)
{
	const char * const *x = a, * const *y = b;

	return strcmp(*x, *y);
}

/*
 * fprobe.multi looks its names up in one walk over kallsyms, as
 * ftrace_lookup_symbols() does, and takes a name's first symbol that
 * ftrace can trace, as it does. But it keeps the functions in the order
 * the walk meets them: kallsyms lists vmlinux's symbols by address, so
 * they need no sort of their own unless module functions are among them.
 */
struct fprobe_multi_walk {
	const char **syms;	/* the names, sorted by strcmp() */
	u32 cnt;
	u32 found;
	unsigned long *addrs;	/* the functions, in the walk's order */
	u32 *idx;		/* each function's name: its index in syms */
	unsigned long *named;	/* a bitmap over syms: the names found */
};

static int fprobe_multi_walk_sym(void *data, const char *name,
				 unsigned long addr)
{
	struct fprobe_multi_walk *w = data;
	const char **sym;
	unsigned long ip;
	u32 i;

	sym = bsearch(&name, w->syms, w->cnt, sizeof(*w->syms),
		      fprobe_multi_name_cmp);
	if (!sym)
		return 0;
	i = sym - w->syms;
	if (test_bit(i, w->named))
		return 0;
	ip = ftrace_location(addr);
	if (!ip)
		return 0;
	__set_bit(i, w->named);
	w->addrs[w->found] = get_entry_ip(ip);
	w->idx[w->found++] = i;
	return w->found == w->cnt;
}

/*
 * Finds every name of @w: -EEXIST for a name given twice, -ENOENT for an
 * unknown one, -EOPNOTSUPP for one that ftrace cannot trace.
 */
static int fprobe_multi_walk(struct fprobe_multi_walk *w)
{
	u32 i;

	/* only the count tells: without modules, theirs is -EOPNOTSUPP */
	kallsyms_on_each_symbol(fprobe_multi_walk_sym, w);
	if (w->found < w->cnt)
		module_kallsyms_on_each_symbol(NULL, fprobe_multi_walk_sym, w);
	if (w->found == w->cnt)
		return 0;
	/* a name given twice is found once, so it cannot end the walk */
	for (i = 1; i < w->cnt; i++) {
		if (!strcmp(w->syms[i - 1], w->syms[i]))
			return -EEXIST;
	}
	i = find_first_zero_bit(w->named, w->cnt);
	return kallsyms_lookup_name(w->syms[i]) ? -EOPNOTSUPP : -ENOENT;
}

/*
 * Sorts the functions by address, with what goes with them, unless they
 * are sorted already; -EEXIST for a function that is there twice.
 */
static int fprobe_multi_sort_addrs(struct fprobe_multi_sort *s, u32 cnt)
{
	u32 i;

	for (i = 1; i < cnt; i++) {
		if (s->addrs[i - 1] >= s->addrs[i])
			break;
	}
	if (i >= cnt)
		return 0;
	sort_r(s->addrs, cnt, sizeof(*s->addrs), fprobe_multi_addrs_cmp_r,
	       fprobe_multi_addrs_swap, s);
	for (i = 1; i < cnt; i++) {
		if (s->addrs[i - 1] == s->addrs[i])
			return -EEXIST;
	}
	return 0;
}

/*
 * Turns each address into the start of a traceable function (-EOPNOTSUPP if
 * it is not one), then sorts them with their cookies (-EEXIST on repeats).
 */
static int fprobe_multi_check_addrs(unsigned long *addrs, u64 *cookies,
				    u32 cnt)
{
	struct fprobe_multi_sort s = {
		.addrs = addrs,
		.cookies = cookies,
	};
	unsigned long ftrace_ip;
	u32 i;

	for (i = 0; i < cnt; i++) {
		ftrace_ip = ftrace_location(addrs[i]);
		if (!ftrace_ip)
			return -EOPNOTSUPP;
		addrs[i] = get_entry_ip(ftrace_ip);
	}
	return fprobe_multi_sort_addrs(&s, cnt);
}

/* Puts the cookies, given in the order of the names, in the order of @idx. */
static int fprobe_multi_order_cookies(u64 *cookies, const u32 *idx, u32 cnt)
{
	u64 *by_name;
	u32 i;

	by_name = kvmemdup(cookies, cnt * sizeof(*cookies), GFP_KERNEL);
	if (!by_name)
		return -ENOMEM;
	for (i = 0; i < cnt; i++)
		cookies[i] = by_name[idx[i]];
	kvfree(by_name);
	return 0;
}

/* fprobe.multi's names, as given, and which function each one names */
struct fprobe_multi_names {
	struct user_syms us;
	u32 *idx;	/* by address: each function's name, in us.syms */
};

static void fprobe_multi_names_put(struct fprobe_multi_names *names)
{
	free_user_syms(&names->us);
	kvfree(names->idx);
	memset(names, 0, sizeof(*names));
}

/*
 * Looks fprobe.multi's names up: its functions, sorted by address, go to
 * @addrs and their cookies follow them. The caller puts @names, whatever
 * this returns.
 */
static int fprobe_multi_names_get(struct fprobe_multi_names *names,
				  void __user *usyms, u32 cnt,
				  unsigned long *addrs, u64 *cookies)
{
	struct fprobe_multi_walk w = { .cnt = cnt, .addrs = addrs };
	struct fprobe_multi_sort s = { .addrs = addrs };
	int err;

	err = fprobe_link_copy_syms(usyms, cnt, &names->us, cookies);
	if (err)
		return err;
	w.syms = names->us.syms;
	w.idx = kvmalloc_array(cnt, sizeof(*w.idx), GFP_KERNEL);
	w.named = kvcalloc(BITS_TO_LONGS(cnt), sizeof(long), GFP_KERNEL);
	names->idx = w.idx;
	s.idx = w.idx;
	if (w.idx && w.named)
		err = fprobe_multi_walk(&w);
	else
		err = -ENOMEM;
	kvfree(w.named);
	if (!err)
		err = fprobe_multi_sort_addrs(&s, cnt);
	if (!err && cookies)
		err = fprobe_multi_order_cookies(cookies, w.idx, cnt);
	return err;
}

/*
 * Argument counts from BTF. bpf_get_func_arg_cnt() gives, and
 * bpf_get_func_arg() and bpf_fprobe_arg() stop at, the number of argument
 * registers that the function's leading arguments take, as a trampoline
 * counts them, but only as far as the argument registers hold them in
 * order: the count ends before an argument that would not fit in the
 * registers left (it goes on the stack, and later ones may not), and
 * before a struct of more than 8 bytes, which some architectures pass by
 * reference. A function without BTF, with a prototype that BTF cannot
 * describe to a trampoline either, or whose name has prototypes of
 * different counts, gets the register maximum.
 *
 * The link looks the counts up once, at attach, and only for a program
 * that may read them (aux->reads_func_args, which the verifier sets): each
 * function's name, hashed, then one walk over the FUNCs of each module's
 * BTF and of vmlinux's, matching by name. The name is the one the user
 * gave, or, for a function given by address, the one kallsyms gives it. A
 * module function matches in its own module's BTF, or, if that has no FUNC
 * of its name (deduplication may leave it in the base), in vmlinux's.
 * kallsyms scans a module's symbols to name an address, so module functions
 * given by address cost more to attach.
 */
#define FPROBE_NARGS_UNSET	U8_MAX
/* a module function not found in its module's BTF (yet) */
#define FPROBE_NARGS_BASE	(U8_MAX - 1)

struct fprobe_link_fn {
	u32 hash;
	u32 idx;
	struct module *mod;
	const char *name;	/* the user's, or NULL: ask kallsyms */
};

static u32 fprobe_link_name_hash(const char *name)
{
	return full_name_hash(NULL, name, strlen(name));
}

static int fprobe_link_fn_cmp(const void *a, const void *b)
{
	const struct fprobe_link_fn *x = a, *y = b;

	if (x->hash == y->hash)
		return 0;
	return x->hash < y->hash ? -1 : 1;
}

static u8 fprobe_link_btf_count(struct btf *btf, const struct btf_type *func)
{
	const struct btf_type *proto = btf_type_by_id(btf, func->type);
	struct btf_func_model m;
	u32 i, regs = 0, n;

	if (!proto || !btf_type_is_func_proto(proto) ||
	    btf_distill_func_proto(NULL, btf, proto, NULL, &m))
		return FPROBE_MULTI_REG_ARGS;
	for (i = 0; i < m.nr_args; i++) {
		n = DIV_ROUND_UP(m.arg_size[i], sizeof(u64));
		if (m.arg_size[i] > sizeof(long) || regs + n > FPROBE_MULTI_REG_ARGS)
			break;
		regs += n;
	}
	return regs;
}

/* Whether the walk of @mod's BTF (vmlinux's if NULL) counts for @fn. */
static bool fprobe_link_fn_in(const struct bpf_fprobe_link *link,
			      const struct fprobe_link_fn *fn,
			      const struct module *mod)
{
	if (fn->mod == mod)
		return true;
	return !mod && link->nargs[fn->idx] == FPROBE_NARGS_BASE;
}

/* Whether @fn is named @name. */
static bool fprobe_link_fn_named(const struct bpf_fprobe_link *link,
				 const struct fprobe_link_fn *fn,
				 const char *name)
{
	char sym[KSYM_NAME_LEN];

	if (fn->name)
		return !strcmp(fn->name, name);
	return !lookup_symbol_name(link->addrs[fn->idx], sym) && !strcmp(sym, name);
}

/* Give the functions named like BTF FUNC @t the count of @t. */
static void fprobe_link_btf_match(struct bpf_fprobe_link *link,
				  struct btf *btf, const struct btf_type *t,
				  const struct module *mod,
				  const struct fprobe_link_fn *fns, u32 n)
{
	const char *name = btf_name_by_offset(btf, t->name_off);
	struct fprobe_link_fn key = { .hash = fprobe_link_name_hash(name) };
	const struct fprobe_link_fn *fn;
	int count = -1;
	u8 *nargs;

	fn = bsearch(&key, fns, n, sizeof(*fns), fprobe_link_fn_cmp);
	if (!fn)
		return;
	while (fn > fns && fn[-1].hash == key.hash)
		fn--;
	for (; fn < fns + n && fn->hash == key.hash; fn++) {
		if (!fprobe_link_fn_in(link, fn, mod) ||
		    !fprobe_link_fn_named(link, fn, name))
			continue;
		if (count < 0)
			count = fprobe_link_btf_count(btf, t);
		nargs = &link->nargs[fn->idx];
		if (*nargs >= FPROBE_NARGS_BASE)
			*nargs = count;
		else if (*nargs != count)
			*nargs = FPROBE_MULTI_REG_ARGS;
	}
}

/* Walk the FUNCs that @btf adds to its base, for the functions of @mod. */
static void fprobe_link_btf_walk(struct bpf_fprobe_link *link, struct btf *btf,
				 u32 start, const struct module *mod,
				 const struct fprobe_link_fn *fns, u32 n)
{
	u32 id, total = btf_nr_types(btf);

	for (id = start; id < total; id++) {
		const struct btf_type *t = btf_type_by_id(btf, id);

		if (btf_type_is_func(t))
			fprobe_link_btf_match(link, btf, t, mod, fns, n);
		if (!(id % 4096))
			cond_resched();
	}
}

/* Hash the name of each function and note its module; returns how many. */
static u32 fprobe_link_name_fns(const struct bpf_fprobe_link *link,
				const struct fprobe_multi_names *names,
				struct fprobe_link_fn *fns)
{
	char sym[KSYM_NAME_LEN];
	const char *name;
	u32 i, n = 0;

	for (i = 0; i < link->cnt; i++) {
		if (!(i % 1024))
			cond_resched();
		name = names->idx ? names->us.syms[names->idx[i]] : NULL;
		if (!name && lookup_symbol_name(link->addrs[i], sym))
			continue;
		fns[n].hash = fprobe_link_name_hash(name ?: sym);
		fns[n].name = name;
		fns[n].idx = i;
		preempt_disable();
		fns[n].mod = __module_address(link->addrs[i]);
		preempt_enable();
		n++;
	}
	sort(fns, n, sizeof(*fns), fprobe_link_fn_cmp, NULL);
	return n;
}

/* Walk each module's BTF, its functions marked to fall back on the base. */
static void fprobe_link_btf_modules(struct bpf_fprobe_link *link, struct btf *vmlinux,
				    const struct fprobe_link_fn *fns, u32 n)
{
	struct btf *btf;
	u32 i, j;

	for (i = 0; i < link->mods_cnt; i++) {
		btf = btf_get_module_btf(link->mods[i]);
		if (IS_ERR_OR_NULL(btf))
			continue;
		for (j = 0; j < n; j++) {
			if (fns[j].mod == link->mods[i])
				link->nargs[fns[j].idx] = FPROBE_NARGS_BASE;
		}
		fprobe_link_btf_walk(link, btf, btf_nr_types(vmlinux), link->mods[i],
				     fns, n);
		btf_put(btf);
	}
}

static int fprobe_link_btf_nargs(struct bpf_fprobe_link *link,
				 const struct fprobe_multi_names *names)
{
	struct btf *vmlinux = bpf_get_btf_vmlinux();
	struct fprobe_link_fn *fns;
	u32 i, n;

	link->nargs = kvmalloc_array(link->cnt, sizeof(*link->nargs), GFP_KERNEL);
	fns = kvmalloc_array(link->cnt, sizeof(*fns), GFP_KERNEL);
	if (!link->nargs || !fns) {
		kvfree(fns);
		return -ENOMEM;
	}
	memset(link->nargs, FPROBE_NARGS_UNSET, link->cnt);
	n = fprobe_link_name_fns(link, names, fns);
	if (!IS_ERR_OR_NULL(vmlinux)) {
		fprobe_link_btf_modules(link, vmlinux, fns, n);
		fprobe_link_btf_walk(link, vmlinux, 1, NULL, fns, n);
	}
	kvfree(fns);
	for (i = 0; i < link->cnt; i++) {
		if (link->nargs[i] >= FPROBE_NARGS_BASE)
			link->nargs[i] = FPROBE_MULTI_REG_ARGS;
	}
	return 0;
}

/* One attach request, in the terms of bpf_fprobe_link_attach(). */
struct fprobe_link_req {
	enum bpf_link_type type;
	const struct bpf_link_ops *ops;
	u32 flags;
	enum fprobe_link_mode mode;
	u32 cnt;
	void __user *usyms;
	void __user *uaddrs;
	void __user *ucookies;
	u32 session_size;
	u32 saved_args;
	bool strict;	/* fprobe.multi's checks of the functions */
	bool pt_regs;
};

/*
 * fprobe.multi checks the functions (sorted and unique); the kprobe
 * flavours take addresses as given and only keep the cookies with them.
 */
static int fprobe_link_order_addrs(unsigned long *addrs, u64 *cookies, u32 cnt,
				   bool strict)
{
	struct fprobe_multi_sort s = {
		.addrs = addrs,
		.cookies = cookies,
	};

	if (strict)
		return fprobe_multi_check_addrs(addrs, cookies, cnt);
	if (cookies)
		sort_r(addrs, cnt, sizeof(*addrs), fprobe_multi_addrs_cmp_r,
		       fprobe_multi_addrs_swap, &s);
	return 0;
}

/* The kprobe flavours' lookup of names, which ftrace does. */
static int fprobe_link_lookup_syms(void __user *usyms, u32 cnt,
				   unsigned long *addrs, u64 *cookies)
{
	struct user_syms us;
	int err;

	err = fprobe_link_copy_syms(usyms, cnt, &us, cookies);
	if (err)
		return err;
	err = ftrace_lookup_symbols(us.syms, cnt, addrs);
	free_user_syms(&us);
	return err;
}

/*
 * The link's functions, with their cookies in their order. fprobe.multi's
 * are sorted by address, and it keeps the names it was given in @names.
 */
static int fprobe_link_get_funcs(const struct fprobe_link_req *req,
				 unsigned long *addrs, u64 *cookies,
				 struct fprobe_multi_names *names)
{
	u32 cnt = req->cnt;
	int err;

	if (req->usyms && req->strict)
		return fprobe_multi_names_get(names, req->usyms, cnt, addrs,
					      cookies);
	if (req->usyms) {
		err = fprobe_link_lookup_syms(req->usyms, cnt, addrs, cookies);
		if (err)
			return err;
	} else if (copy_from_user(addrs, req->uaddrs, cnt * sizeof(*addrs))) {
		return -EFAULT;
	}
	return fprobe_link_order_addrs(addrs, cookies, cnt, req->strict);
}

/*
 * Pins the link's modules, counts its functions' arguments if @counts, and
 * registers its fprobe. @names is put on every path, before registration:
 * freed after it, it would be freed under the link's own probes.
 */
static int fprobe_link_hook(struct bpf_fprobe_link *link, bool counts,
			    struct fprobe_multi_names *names)
{
	int err;

	err = get_modules_for_addrs(&link->mods, link->addrs, link->cnt);
	if (err < 0) {
		fprobe_multi_names_put(names);
		return err;
	}
	link->mods_cnt = err;
	err = 0;
	if (counts)
		err = fprobe_link_btf_nargs(link, names);
	fprobe_multi_names_put(names);
	if (!err)
		err = register_fprobe_ips(&link->fp, link->addrs, link->cnt);
	if (err)
		multi_link_put_modules(link->mods, link->mods_cnt);
	return err;
}

static int bpf_fprobe_link_attach(struct bpf_prog *prog,
				  const struct fprobe_link_req *req)
{
	struct fprobe_multi_names names = {};
	struct bpf_fprobe_link *link = NULL;
	struct bpf_link_primer link_primer;
	u32 cnt = req->cnt;
	unsigned long *addrs;
	u64 *cookies = NULL;
	size_t data_size;
	bool counts;
	int err;

	/* kprobe.multi is not allowed to be sleepable, nor is fprobe.multi. */
	if (prog->sleepable)
		return -EINVAL;
	if (!!req->uaddrs == !!req->usyms)
		return -EINVAL;
	if (!cnt)
		return -EINVAL;
	if (cnt > MAX_KPROBE_MULTI_CNT)
		return -E2BIG;

	addrs = kvmalloc_array(cnt, sizeof(*addrs), GFP_KERNEL);
	if (!addrs)
		return -ENOMEM;

	if (req->ucookies) {
		cookies = kvmalloc_array(cnt, sizeof(*cookies), GFP_KERNEL);
		if (!cookies) {
			err = -ENOMEM;
			goto error;
		}
		if (copy_from_user(cookies, req->ucookies, cnt * sizeof(*cookies))) {
			err = -EFAULT;
			goto error;
		}
	}

	err = fprobe_link_get_funcs(req, addrs, cookies, &names);
	if (err)
		goto error;
	/* the names serve only to count the arguments */
	counts = req->strict && prog->aux->reads_func_args;
	if (!counts)
		fprobe_multi_names_put(&names);

	/*
	 * bpf_override_return() writes the program's pt_regs, which must then
	 * be the ftrace_regs itself, not a copy (arm64, riscv).
	 */
	if (prog->kprobe_override &&
	    !IS_ENABLED(CONFIG_HAVE_FTRACE_REGS_HAVING_PT_REGS)) {
		err = -EOPNOTSUPP;
		goto error;
	}
	if (prog->kprobe_override && addrs_check_error_injection_list(addrs, cnt)) {
		err = -EINVAL;
		goto error;
	}

	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link) {
		err = -ENOMEM;
		goto error;
	}

	mutex_init(&link->detach_lock);
	bpf_link_init(&link->link, req->type, req->ops, prog);
	err = bpf_link_prime(&link->link, &link_primer);
	if (err)
		goto error;

	link->addrs = addrs;
	link->cookies = cookies;
	link->cnt = cnt;
	link->flags = req->flags;
	link->mode = req->mode;
	link->session_size = req->session_size;
	/* bpf_session_cookie(): a session's first word, whatever its size */
	link->session_words = DIV_ROUND_UP(req->session_size, sizeof(u64));
	if (req->mode == FPROBE_LINK_SESSION)
		link->session_words = max(link->session_words, 1);
	link->saved_args = req->saved_args;
	link->pt_regs = req->pt_regs;

	data_size = (req->saved_args + link->session_words) * sizeof(u64);
	if (req->mode != FPROBE_LINK_RETURN || data_size)
		link->fp.entry_handler = fprobe_link_entry;
	if (req->mode != FPROBE_LINK_ENTRY) {
		link->fp.exit_handler = fprobe_link_exit;
		/* bpf_prog_active keeps a run from nesting: see fprobe_link_prog_run() */
		link->fp.flags |= FPROBE_FL_EXIT_OWN_RECURSION;
	}
	link->fp.entry_data_size = data_size;

	err = fprobe_link_hook(link, counts, &names);
	if (err) {
		bpf_link_cleanup(&link_primer);
		return err;
	}
	return bpf_link_settle(&link_primer);

error:
	fprobe_multi_names_put(&names);
	kfree(link);
	kvfree(addrs);
	kvfree(cookies);
	return err;
}

int bpf_kprobe_multi_link_attach(const union bpf_attr *attr, struct bpf_prog *prog)
{
	struct fprobe_link_req req = {
		.type = BPF_LINK_TYPE_KPROBE_MULTI,
		.ops = &bpf_kprobe_multi_link_lops,
		.flags = attr->link_create.kprobe_multi.flags,
		.cnt = attr->link_create.kprobe_multi.cnt,
		.usyms = u64_to_user_ptr(attr->link_create.kprobe_multi.syms),
		.uaddrs = u64_to_user_ptr(attr->link_create.kprobe_multi.addrs),
		.ucookies = u64_to_user_ptr(attr->link_create.kprobe_multi.cookies),
		.pt_regs = true,
	};

	/* no support for 32bit archs yet */
	if (sizeof(u64) != sizeof(void *))
		return -EOPNOTSUPP;
	if (attr->link_create.flags || !is_kprobe_multi(prog))
		return -EINVAL;
	if (req.flags & ~BPF_F_KPROBE_MULTI_RETURN)
		return -EINVAL;

	if (req.flags & BPF_F_KPROBE_MULTI_RETURN)
		req.mode = FPROBE_LINK_RETURN;
	else if (is_kprobe_session(prog))
		req.mode = FPROBE_LINK_SESSION;
	else
		req.mode = FPROBE_LINK_ENTRY;
	/* bpf_session_cookie(), also at the exit of a RETURN link */
	if (is_kprobe_session(prog))
		req.session_size = sizeof(u64);
	return bpf_fprobe_link_attach(prog, &req);
}

/*
 * Errors: -EPERM without CAP_BPF and CAP_PERFMON; -EINVAL for a program of
 * another attach type, a sleepable one, unknown flags, syms and addrs both
 * given or both missing, a zero cnt, or session_size/saved_args that the
 * flags do not use; -E2BIG when cnt, session_size or saved_args is over
 * its limit; -ENOENT for an unknown symbol; -EOPNOTSUPP for a function that
 * ftrace cannot trace; -EEXIST for a function given twice.
 *
 * A session reserves one word of session data at least, whatever
 * session_size says: bpf_session_cookie() is its first 8 bytes.
 */
int bpf_fprobe_multi_link_attach(const union bpf_attr *attr,
				 struct bpf_prog *prog)
{
	struct fprobe_link_req req = {
		.type = BPF_LINK_TYPE_FPROBE_MULTI,
		.ops = &bpf_fprobe_multi_link_lops,
		.flags = attr->link_create.fprobe_multi.flags,
		.cnt = attr->link_create.fprobe_multi.cnt,
		.usyms = u64_to_user_ptr(attr->link_create.fprobe_multi.syms),
		.uaddrs = u64_to_user_ptr(attr->link_create.fprobe_multi.addrs),
		.ucookies = u64_to_user_ptr(attr->link_create.fprobe_multi.cookies),
		.session_size = attr->link_create.fprobe_multi.session_size,
		.saved_args = attr->link_create.fprobe_multi.saved_args,
		.strict = true,
	};

	if (sizeof(u64) != sizeof(void *))
		return -EOPNOTSUPP;
	if (!bpf_capable() || !perfmon_capable())
		return -EPERM;
	if (attr->link_create.flags || !bpf_prog_ctx_is_ftrace_regs(prog))
		return -EINVAL;
	if ((req.flags & ~FPROBE_MULTI_FLAGS) || req.flags == FPROBE_MULTI_FLAGS)
		return -EINVAL;

	if (req.flags & BPF_F_FPROBE_MULTI_SESSION)
		req.mode = FPROBE_LINK_SESSION;
	else if (req.flags & BPF_F_FPROBE_MULTI_RETURN)
		req.mode = FPROBE_LINK_RETURN;
	else
		req.mode = FPROBE_LINK_ENTRY;

	if (req.session_size && req.mode != FPROBE_LINK_SESSION)
		return -EINVAL;
	if (req.session_size > BPF_FPROBE_MULTI_SESSION_MAX)
		return -E2BIG;
	if (req.saved_args && req.mode == FPROBE_LINK_ENTRY)
		return -EINVAL;
	if (req.saved_args > FPROBE_MULTI_REG_ARGS)
		return -E2BIG;
	return bpf_fprobe_link_attach(prog, &req);
}

/* bpf_fprobe_arg(), and bpf_get_func_arg() of fprobe.multi programs */
int bpf_fprobe_link_func_arg(struct ftrace_regs *fregs, u32 n, u64 *value)
{
	struct bpf_fprobe_run_ctx *run_ctx = fprobe_link_run_ctx();

	*value = 0;
	if (n >= fprobe_run_ctx_nargs(run_ctx))
		return -EINVAL;
	if (!run_ctx->session_ctx.is_return) {
		*value = ftrace_regs_get_argument(fregs, n);
		return 0;
	}
	if (n >= run_ctx->link->saved_args)
		return -ENOENT;
	*value = run_ctx->args[n];
	return 0;
}

/* bpf_fprobe_ret(), and bpf_get_func_ret() of fprobe.multi programs */
int bpf_fprobe_link_func_ret(struct ftrace_regs *fregs, u64 *value)
{
	if (!fprobe_link_run_ctx()->session_ctx.is_return) {
		*value = 0;
		return -EOPNOTSUPP;
	}
	*value = ftrace_regs_get_return_value(fregs);
	return 0;
}

/* bpf_get_func_arg_cnt() of fprobe.multi programs */
u64 bpf_fprobe_link_func_arg_cnt(void)
{
	return fprobe_run_ctx_nargs(fprobe_link_run_ctx());
}

__bpf_kfunc_start_defs();

/**
 * bpf_fprobe_arg - read an argument of the traced function
 * @ctx: the program's context
 * @n: the argument's index, from 0
 * @value: where the argument goes (0 on error)
 *
 * At exit, the argument is the one saved at entry. Arguments are counted
 * in registers, as bpf_get_func_arg_cnt() counts them.
 *
 * Return: 0; -EINVAL if @n is past the function's arguments (by BTF, or
 * the register arguments if it has none); at exit, -ENOENT if the link
 * does not save argument @n.
 */
__bpf_kfunc int bpf_fprobe_arg(struct ftrace_regs *ctx, u32 n, u64 *value)
{
	return bpf_fprobe_link_func_arg(ctx, n, value);
}

/**
 * bpf_fprobe_ret - read the traced function's return value
 * @ctx: the program's context
 * @value: where the value goes (0 on error)
 *
 * Return: 0, or -EOPNOTSUPP at entry.
 */
__bpf_kfunc int bpf_fprobe_ret(struct ftrace_regs *ctx, u64 *value)
{
	return bpf_fprobe_link_func_ret(ctx, value);
}

/**
 * bpf_fprobe_func_ip - the address of the traced function
 * @ctx: the program's context
 *
 * Return: the function's start address, at entry and at exit.
 */
__bpf_kfunc u64 bpf_fprobe_func_ip(struct ftrace_regs *ctx)
{
	return fprobe_run_ctx_entry_ip(fprobe_link_run_ctx());
}

/**
 * bpf_fprobe_is_return - whether the program runs at function exit
 * @ctx: the program's context
 *
 * Return: true at exit, false at entry.
 */
__bpf_kfunc bool bpf_fprobe_is_return(struct ftrace_regs *ctx)
{
	return fprobe_link_run_ctx()->session_ctx.is_return;
}

/**
 * bpf_fprobe_session_data - the data shared by a session's entry and exit
 * @ctx: the program's context
 * @rdwr_buf_size: bytes the program will access, a constant
 *
 * The data is zeroed before the entry run of each call.
 *
 * Return: the data, or NULL if @rdwr_buf_size is 0 or more than the link's
 * session_size.
 */
__bpf_kfunc u8 *bpf_fprobe_session_data(struct ftrace_regs *ctx,
					u32 rdwr_buf_size)
{
	struct bpf_fprobe_run_ctx *run_ctx = fprobe_link_run_ctx();
	struct bpf_fprobe_link *link = run_ctx->link;

	if (!rdwr_buf_size || rdwr_buf_size > link->session_size)
		return NULL;
	return run_ctx->session_ctx.data;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(fprobe_multi_kfunc_set_ids)
BTF_ID_FLAGS(func, bpf_fprobe_arg)
BTF_ID_FLAGS(func, bpf_fprobe_ret)
BTF_ID_FLAGS(func, bpf_fprobe_func_ip)
BTF_ID_FLAGS(func, bpf_fprobe_is_return)
BTF_ID_FLAGS(func, bpf_fprobe_session_data, KF_RET_NULL)
BTF_KFUNCS_END(fprobe_multi_kfunc_set_ids)

static int bpf_fprobe_multi_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (!btf_id_set8_contains(&fprobe_multi_kfunc_set_ids, kfunc_id))
		return 0;
	return bpf_prog_ctx_is_ftrace_regs(prog) ? 0 : -EACCES;
}

static const struct btf_kfunc_id_set bpf_fprobe_multi_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &fprobe_multi_kfunc_set_ids,
	.filter = bpf_fprobe_multi_filter,
};

static int __init bpf_fprobe_multi_kfuncs_init(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_KPROBE,
					 &bpf_fprobe_multi_kfunc_set);
}

late_initcall(bpf_fprobe_multi_kfuncs_init);
