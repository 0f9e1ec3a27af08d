// SPDX-License-Identifier: GPL-2.0
/*
 * The fprobe.multi link: a BPF program on many kernel functions, run by an
 * fprobe at their entry, at their exit, or at both as a session, with the
 * fprobe's struct ftrace_regs as its context. The program cannot read that
 * context itself (the verifier refuses every access, see
 * bpf_prog_ctx_is_ftrace_regs()); the kfuncs of this file read it.
 *
 * Per-call data lives in the fprobe's entry data on the fgraph shadow
 * stack, in u64 words:
 *
 *	| saved_args arguments | session data (session_words) |
 *
 * The arguments are saved at entry for the exit run, which cannot read them
 * from registers the function has clobbered. The session data is zeroed at
 * entry and shared by the entry and exit runs of the call. A session's exit
 * runs only if its entry ran and returned 0; it runs then unless fprobe
 * counts it as missed (see "The missed counter" in fprobe.rst).
 *
 * No pt_regs is made on a hit. The helpers that need one (stack walks,
 * perf output) make the view on their first call in a run, see
 * bpf_fprobe_link_regs(). Programs may also use the accessors of fentry
 * and fexit programs (bpf_get_func_arg(), bpf_get_func_ret(),
 * bpf_get_func_arg_cnt()) and the session kfuncs, with the same meaning:
 * the link records each function's argument count from BTF, for a program
 * that reads it, see fprobe_link_btf_nargs().
 *
 * The functions are kept sorted by address, each the address that a run
 * gets for its function (fprobe_link_func_ip()), with cookies[] in the same
 * order: a run finds its cookie by a binary search.
 *
 * Locking: a link is set up whole before register_fprobe_ips() makes it
 * reachable, and its arrays do not change after that. The handlers run
 * with preemption disabled, as fprobe calls them, and bpf_prog_active keeps
 * them to one program per CPU, which also guards the per-CPU pt_regs view.
 * detach_lock serialises BPF_LINK_DETACH against release. unregister_fprobe()
 * returns only once no handler of the link runs, so the link is freed
 * (dealloc, after a grace period) with no run left.
 */
#include <linux/bpf.h>
#include <linux/bpf_verifier.h>
#include <linux/bsearch.h>
#include <linux/btf.h>
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

#define FPROBE_MULTI_MAX_CNT	SZ_1M

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
	u32 flags;
	enum fprobe_link_mode mode;
	u32 session_size;
	u32 session_words;
	u32 saved_args;
	u8 *nargs;		/* by function, for a program that reads them */
	u32 mods_cnt;
	struct module **mods;
	/* serialises detach and release; set once the fprobe is gone */
	struct mutex detach_lock;
	bool detached;
};

/* What a run works out only once its program asks: run_ctx->known */
#define FPROBE_RUN_REGS		BIT(0)
#define FPROBE_RUN_FUNC_IP	BIT(1)
#define FPROBE_RUN_NARGS	BIT(2)

/*
 * Set field by field on each run, not cleared first: a new field is set in
 * fprobe_run_ctx_init(), or is one that @known says is not set yet.
 */
struct bpf_fprobe_run_ctx {
	struct bpf_fprobe_link *link;
	struct bpf_session_run_ctx session_ctx;
	struct ftrace_regs *fregs;
	/* the ftrace location the fprobe was called for */
	unsigned long fentry_ip;
	u64 *args;
	u8 known;
	/* the function's argument count in registers */
	u8 nargs;
	struct pt_regs *regs;
	unsigned long func_ip;
	/* bpf_session_cookie() outside a session: this run's own word */
	u64 cookie;
};

/* The pt_regs view for the arches whose ftrace_regs holds none. */
static DEFINE_PER_CPU(struct pt_regs, fprobe_link_pt_view);

static struct bpf_fprobe_run_ctx *fprobe_link_run_ctx(void)
{
	return container_of(current->bpf_ctx, struct bpf_fprobe_run_ctx,
			    session_ctx.run_ctx);
}

/*
 * The address that stands for the function of ftrace location @ip: its
 * symbol's where the architecture finds it cheaply, else @ip itself. A
 * link's addrs[] hold these, so a run finds its function among them.
 */
static unsigned long fprobe_link_func_ip(unsigned long ip)
{
	unsigned long sym = ftrace_get_symaddr(ip);

	return sym ?: ip;
}

struct pt_regs *bpf_fprobe_link_regs(void)
{
	struct bpf_fprobe_run_ctx *run_ctx = fprobe_link_run_ctx();

	if (!(run_ctx->known & FPROBE_RUN_REGS)) {
		run_ctx->regs = ftrace_partial_regs(run_ctx->fregs,
						    this_cpu_ptr(&fprobe_link_pt_view));
		run_ctx->known |= FPROBE_RUN_REGS;
	}
	return run_ctx->regs;
}

static unsigned long fprobe_run_ctx_func_ip(struct bpf_fprobe_run_ctx *run_ctx)
{
	if (!(run_ctx->known & FPROBE_RUN_FUNC_IP)) {
		run_ctx->func_ip = fprobe_link_func_ip(run_ctx->fentry_ip);
		run_ctx->known |= FPROBE_RUN_FUNC_IP;
	}
	return run_ctx->func_ip;
}

u64 bpf_fprobe_link_entry_ip(void)
{
	return fprobe_run_ctx_func_ip(fprobe_link_run_ctx());
}

/*
 * The index of @ip in the link's sorted addresses, or -1: a loop rather
 * than bsearch(), whose compare callback is an indirect call per step.
 */
static long fprobe_link_find(const struct bpf_fprobe_link *link, unsigned long ip)
{
	u32 lo = 0, hi = link->cnt, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (link->addrs[mid] == ip)
			return mid;
		if (link->addrs[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

u64 bpf_fprobe_link_cookie(void)
{
	struct bpf_fprobe_run_ctx *run_ctx = fprobe_link_run_ctx();
	struct bpf_fprobe_link *link = run_ctx->link;
	long i;

	if (!link->cookies)
		return 0;
	i = fprobe_link_find(link, fprobe_run_ctx_func_ip(run_ctx));
	return i >= 0 ? link->cookies[i] : 0;
}

static __always_inline void fprobe_run_ctx_init(struct bpf_fprobe_run_ctx *run_ctx,
						struct bpf_fprobe_link *link,
						unsigned long fentry_ip,
						struct ftrace_regs *fregs,
						bool is_return, u64 *words)
{
	run_ctx->session_ctx.is_return = is_return;
	if (link->session_words) {
		run_ctx->session_ctx.data = words + link->saved_args;
	} else {
		run_ctx->cookie = 0;
		run_ctx->session_ctx.data = &run_ctx->cookie;
	}
	run_ctx->link = link;
	run_ctx->fregs = fregs;
	run_ctx->fentry_ip = fentry_ip;
	run_ctx->args = words;
	run_ctx->known = 0;
}

/*
 * Runs the program with the call's entry data @words. Returns its result,
 * or 1 when it could not run, which skips a session's exit.
 */
static __always_inline int fprobe_link_prog_run(struct bpf_fprobe_link *link,
						unsigned long fentry_ip,
						struct ftrace_regs *fregs,
						bool is_return, u64 *words)
{
	struct bpf_fprobe_run_ctx run_ctx __uninitialized;
	struct bpf_run_ctx *old_run_ctx;
	int ret = 1;

	/* Not cant_sleep(): __cant_sleep() is traceable. */
	lockdep_assert_preemption_disabled();

	if (unlikely(__this_cpu_inc_return(bpf_prog_active) != 1)) {
		bpf_prog_inc_misses_counter(link->link.prog);
		goto out;
	}

	fprobe_run_ctx_init(&run_ctx, link, fentry_ip, fregs, is_return, words);
	rcu_read_lock();
	old_run_ctx = bpf_set_run_ctx(&run_ctx.session_ctx.run_ctx);
	ret = bpf_prog_run(link->link.prog, fregs);
	bpf_reset_run_ctx(old_run_ctx);
	rcu_read_unlock();
out:
	__this_cpu_dec(bpf_prog_active);
	return ret;
}

/*
 * Saves the first @n arguments: unrolled, so that every read has a constant
 * index and becomes one load.
 */
static __always_inline void fprobe_link_save_args(u64 *words, struct ftrace_regs *fregs,
						  u32 n)
{
	BUILD_BUG_ON(BPF_FPROBE_MULTI_ARGS_MAX != 6);
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
	enum fprobe_link_mode mode;
	u64 *words = data;
	u32 saved, n;
	int ret;

	link = container_of(fp, struct bpf_fprobe_link, fp);
	/* in locals: the stores below may alias the link, as far as C knows */
	saved = link->saved_args;
	n = link->session_words;
	mode = link->mode;
	fprobe_link_save_args(words, fregs, saved);
	/* most sessions have one word: a store, not a memset() of one */
	if (n) {
		words[saved] = 0;
		if (unlikely(n > 1))
			memset(words + saved + 1, 0, (n - 1) * sizeof(*words));
	}
	if (mode == FPROBE_LINK_RETURN)
		return 0;

	ret = fprobe_link_prog_run(link, fentry_ip, fregs, false, words);
	return mode == FPROBE_LINK_SESSION ? ret : 0;
}

static void fprobe_link_exit(struct fprobe *fp, unsigned long fentry_ip,
			     unsigned long ret_ip, struct ftrace_regs *fregs,
			     void *data)
{
	struct bpf_fprobe_link *link = container_of(fp, struct bpf_fprobe_link, fp);

	fprobe_link_prog_run(link, fentry_ip, fregs, true, data);
}

static void bpf_fprobe_link_unhook(struct bpf_link *link)
{
	struct bpf_fprobe_link *flink = container_of(link, struct bpf_fprobe_link, link);

	guard(mutex)(&flink->detach_lock);
	if (flink->detached)
		return;
	unregister_fprobe(&flink->fp);
	kprobe_multi_put_modules(flink->mods, flink->mods_cnt);
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
	struct bpf_fprobe_link *flink = container_of(link, struct bpf_fprobe_link, link);

	mutex_destroy(&flink->detach_lock);
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

static int bpf_fprobe_link_fill_link_info(const struct bpf_link *link,
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
/*
 * One "key: value" line per property, the misses with their causes on one
 * line, then one line per function: its symbol and, if the link has
 * cookies, its cookie.
 */
static void bpf_fprobe_link_show_fdinfo(const struct bpf_link *link,
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
	seq_printf(seq, "mode:\t%s\nfunctions:\t%u\n", modes[flink->mode], flink->cnt);
	seq_printf(seq, "session_size:\t%u\nsaved_args:\t%u\n",
		   flink->session_size, flink->saved_args);
	seq_printf(seq, "missed:\t%lu (stack %lu, recursion %lu, other %lu)\n",
		   missed, stack, recursion, missed - stack - recursion);
	for (i = 0; i < flink->cnt; i++) {
		seq_printf(seq, "func:\t%ps", (void *)flink->addrs[i]);
		if (flink->cookies)
			seq_printf(seq, "\tcookie %llu", flink->cookies[i]);
		seq_putc(seq, '\n');
	}
}
#endif

static const struct bpf_link_ops bpf_fprobe_link_lops = {
	.release = bpf_fprobe_link_release,
	.detach = bpf_fprobe_link_detach,
	.dealloc_deferred = bpf_fprobe_link_dealloc,
	.fill_link_info = bpf_fprobe_link_fill_link_info,
#ifdef CONFIG_PROC_FS
	.show_fdinfo = bpf_fprobe_link_show_fdinfo,
#endif
};

/* Sorts addresses, and whatever goes with each: cookies, name indexes. */
struct fprobe_multi_sort {
	unsigned long *addrs;
	u64 *cookies;
	u32 *idx;
};

static int fprobe_multi_addrs_cmp(const void *a, const void *b, const void *priv)
{
	const unsigned long *x = a, *y = b;

	if (*x == *y)
		return 0;
	return *x < *y ? -1 : 1;
}

static void fprobe_multi_addrs_swap(void *a, void *b, int size, const void *priv)
{
	const struct fprobe_multi_sort *s = priv;
	unsigned long *addr_a = a, *addr_b = b;

	if (s->cookies)
		swap(s->cookies[addr_a - s->addrs], s->cookies[addr_b - s->addrs]);
	if (s->idx)
		swap(s->idx[addr_a - s->addrs], s->idx[addr_b - s->addrs]);
	swap(*addr_a, *addr_b);
}

/*
 * Sorts the functions by address, unless they are sorted already; -EEXIST
 * for a function that is there twice.
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
	sort_r(s->addrs, cnt, sizeof(*s->addrs), fprobe_multi_addrs_cmp,
	       fprobe_multi_addrs_swap, s);
	for (i = 1; i < cnt; i++) {
		if (s->addrs[i - 1] == s->addrs[i])
			return -EEXIST;
	}
	return 0;
}

/*
 * The address a link keeps for the function at @addr (its start, or its
 * ftrace location), or 0 if ftrace cannot trace it.
 */
static unsigned long fprobe_multi_func_addr(unsigned long addr)
{
	unsigned long ip = ftrace_location(addr);

	return ip ? fprobe_link_func_ip(ip) : 0;
}

/*
 * The functions given by address: each must be one ftrace can trace
 * (-EOPNOTSUPP), then they are sorted with their cookies (-EEXIST on a
 * repeat).
 */
static int fprobe_multi_check_addrs(unsigned long *addrs, u64 *cookies, u32 cnt)
{
	struct fprobe_multi_sort s = { .addrs = addrs, .cookies = cookies };
	u32 i;

	for (i = 0; i < cnt; i++) {
		addrs[i] = fprobe_multi_func_addr(addrs[i]);
		if (!addrs[i])
			return -EOPNOTSUPP;
	}
	return fprobe_multi_sort_addrs(&s, cnt);
}

/*
 * fprobe.multi looks its names up in one walk over kallsyms and takes the
 * first symbol of each name that ftrace can trace. It keeps the functions
 * in the order the walk meets them: kallsyms lists vmlinux's symbols by
 * address, so they need a sort only when module functions are among them.
 */
struct fprobe_multi_walk {
	const char **syms;	/* the names, sorted by strcmp() */
	u32 cnt;
	u32 found;
	unsigned long *addrs;	/* the functions, in the walk's order */
	u32 *idx;		/* each function's name: its index in syms */
	unsigned long *named;	/* a bitmap over syms: the names found */
};

static int fprobe_multi_name_cmp(const void *a, const void *b)
{
	const char * const *x = a, * const *y = b;

	return strcmp(*x, *y);
}

static int fprobe_multi_walk_sym(void *data, const char *name, unsigned long addr)
{
	struct fprobe_multi_walk *w = data;
	unsigned long func;
	const char **sym;
	u32 i;

	sym = bsearch(&name, w->syms, w->cnt, sizeof(*w->syms), fprobe_multi_name_cmp);
	if (!sym)
		return 0;
	i = sym - w->syms;
	if (test_bit(i, w->named))
		return 0;
	func = fprobe_multi_func_addr(addr);
	if (!func)
		return 0;
	__set_bit(i, w->named);
	w->addrs[w->found] = func;
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

	kallsyms_on_each_symbol(fprobe_multi_walk_sym, w);
	if (w->found < w->cnt)
		module_kallsyms_on_each_symbol(NULL, fprobe_multi_walk_sym, w);
	if (w->found == w->cnt)
		return 0;
	/* a name given twice is found once, so the walk cannot end */
	for (i = 1; i < w->cnt; i++) {
		if (!strcmp(w->syms[i - 1], w->syms[i]))
			return -EEXIST;
	}
	i = find_first_zero_bit(w->named, w->cnt);
	return kallsyms_lookup_name(w->syms[i]) ? -EOPNOTSUPP : -ENOENT;
}

/* Puts the cookies, given in the order of the names, in the order of @idx. */
static int fprobe_multi_order_cookies(u64 *cookies, const u32 *idx,
				      const u32 *name_pos, u32 cnt)
{
	u64 *given;
	u32 i;

	given = kvmemdup(cookies, cnt * sizeof(*cookies), GFP_KERNEL);
	if (!given)
		return -ENOMEM;
	for (i = 0; i < cnt; i++)
		cookies[i] = given[name_pos[idx[i]]];
	kvfree(given);
	return 0;
}

/*
 * Where each name was in the user's array, after sort_r() of the names:
 * the positions, sorted along with them.
 */
struct fprobe_multi_names {
	const char **syms;
	u32 *pos;
};

static int fprobe_multi_names_cmp(const void *a, const void *b, const void *priv)
{
	return fprobe_multi_name_cmp(a, b);
}

static void fprobe_multi_names_swap(void *a, void *b, int size, const void *priv)
{
	const struct fprobe_multi_names *n = priv;
	const char **x = a, **y = b;

	swap(n->pos[x - n->syms], n->pos[y - n->syms]);
	swap(*x, *y);
}

/* Sorts @us's names, keeping in @pos where each one was. */
static void fprobe_multi_sort_names(struct user_syms *us, u32 *pos, u32 cnt)
{
	struct fprobe_multi_names n = { .syms = us->syms, .pos = pos };
	u32 i;

	for (i = 0; i < cnt; i++)
		pos[i] = i;
	sort_r(us->syms, cnt, sizeof(*us->syms), fprobe_multi_names_cmp,
	       fprobe_multi_names_swap, &n);
}

/* The walk over the sorted names, then the sort of what it found. */
static int fprobe_multi_find_names(struct user_syms *us, u32 cnt, u32 *idx,
				   unsigned long *addrs)
{
	struct fprobe_multi_walk w = {
		.syms = us->syms, .cnt = cnt, .addrs = addrs, .idx = idx,
	};
	struct fprobe_multi_sort s = { .addrs = addrs, .idx = idx };
	int err;

	w.named = bitmap_zalloc(cnt, GFP_KERNEL);
	if (!w.named)
		return -ENOMEM;
	err = fprobe_multi_walk(&w);
	bitmap_free(w.named);
	return err ?: fprobe_multi_sort_addrs(&s, cnt);
}

/*
 * The functions given by name, sorted by address into @addrs, with their
 * cookies, if any, put in the same order.
 */
static int fprobe_multi_lookup_names(void __user *usyms, u32 cnt,
				     unsigned long *addrs, u64 *cookies)
{
	struct user_syms us;
	u32 *idx, *pos;
	int err;

	err = copy_user_syms(&us, usyms, cnt);
	if (err)
		return err;
	idx = kvmalloc_array(cnt, sizeof(*idx), GFP_KERNEL);
	pos = kvmalloc_array(cnt, sizeof(*pos), GFP_KERNEL);
	if (!idx || !pos) {
		err = -ENOMEM;
		goto out;
	}
	fprobe_multi_sort_names(&us, pos, cnt);
	err = fprobe_multi_find_names(&us, cnt, idx, addrs);
	if (!err && cookies)
		err = fprobe_multi_order_cookies(cookies, idx, pos, cnt);
out:
	kvfree(idx);
	kvfree(pos);
	free_user_syms(&us);
	return err;
}

/* link_create.fprobe_multi, checked and in the link's terms */
struct fprobe_multi_req {
	u32 flags;
	enum fprobe_link_mode mode;
	u32 cnt;
	void __user *usyms;
	void __user *uaddrs;
	void __user *ucookies;
	u32 session_size;
	u32 saved_args;
};

/* The link's functions, sorted, and their cookies, if given, with them. */
static int fprobe_multi_get_funcs(const struct fprobe_multi_req *req,
				  unsigned long **addrsp, u64 **cookiesp)
{
	size_t size = req->cnt * sizeof(u64);
	unsigned long *addrs;
	u64 *cookies = NULL;
	int err = -ENOMEM;

	BUILD_BUG_ON(sizeof(*addrs) != sizeof(u64));
	addrs = kvmalloc(size, GFP_KERNEL);
	if (!addrs)
		return -ENOMEM;
	if (req->ucookies) {
		cookies = kvmalloc(size, GFP_KERNEL);
		if (!cookies)
			goto error;
		err = -EFAULT;
		if (copy_from_user(cookies, req->ucookies, size))
			goto error;
	}
	if (req->usyms)
		err = fprobe_multi_lookup_names(req->usyms, req->cnt, addrs, cookies);
	else if (copy_from_user(addrs, req->uaddrs, size))
		err = -EFAULT;
	else
		err = fprobe_multi_check_addrs(addrs, cookies, req->cnt);
	if (err)
		goto error;
	*addrsp = addrs;
	*cookiesp = cookies;
	return 0;
error:
	kvfree(addrs);
	kvfree(cookies);
	return err;
}

/* The fprobe of a link, its handlers and entry data as its mode needs. */
static void fprobe_multi_link_setup(struct bpf_fprobe_link *link,
				    const struct fprobe_multi_req *req)
{
	u32 data_words;

	link->flags = req->flags;
	link->mode = req->mode;
	link->session_size = req->session_size;
	link->session_words = DIV_ROUND_UP(req->session_size, sizeof(u64));
	/* bpf_session_cookie(): a session's first word, whatever its size */
	if (req->mode == FPROBE_LINK_SESSION)
		link->session_words = max(link->session_words, 1);
	/* the arguments past the registers cannot be read at entry either */
	link->saved_args = min(req->saved_args, FPROBE_MULTI_REG_ARGS);

	data_words = link->saved_args + link->session_words;
	if (req->mode != FPROBE_LINK_RETURN || data_words)
		link->fp.entry_handler = fprobe_link_entry;
	if (req->mode != FPROBE_LINK_ENTRY)
		link->fp.exit_handler = fprobe_link_exit;
	link->fp.entry_data_size = data_words * sizeof(u64);
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
 * function's kallsyms name, hashed, then one walk over the FUNCs of each
 * module's BTF and of vmlinux's, matching by name. A module function
 * matches in its own module's BTF or, if that has no FUNC of its name
 * (deduplication may leave it in the base), in vmlinux's.
 */
#define FPROBE_NARGS_UNSET	U8_MAX
/* a module function not found in its module's BTF (yet) */
#define FPROBE_NARGS_BASE	(U8_MAX - 1)

struct fprobe_link_fn {
	u32 hash;
	u32 idx;
	struct module *mod;
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

static bool fprobe_link_fn_named(const struct bpf_fprobe_link *link,
				 const struct fprobe_link_fn *fn, const char *name)
{
	char sym[KSYM_NAME_LEN];

	return !lookup_symbol_name(link->addrs[fn->idx], sym) && !strcmp(sym, name);
}

/* Gives the functions named like BTF FUNC @t the count of @t. */
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

/* Walks the FUNCs that @btf adds to its base, for the functions of @mod. */
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

/* Hashes each function's name and notes its module; returns how many. */
static u32 fprobe_link_name_fns(const struct bpf_fprobe_link *link,
				struct fprobe_link_fn *fns)
{
	char sym[KSYM_NAME_LEN];
	u32 i, n = 0;

	for (i = 0; i < link->cnt; i++) {
		if (!(i % 1024))
			cond_resched();
		if (lookup_symbol_name(link->addrs[i], sym))
			continue;
		fns[n].hash = fprobe_link_name_hash(sym);
		fns[n].idx = i;
		scoped_guard(rcu)
			fns[n].mod = __module_address(link->addrs[i]);
		n++;
	}
	sort(fns, n, sizeof(*fns), fprobe_link_fn_cmp, NULL);
	return n;
}

/* Walks each module's BTF, its functions marked to fall back on the base. */
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

static int fprobe_link_btf_nargs(struct bpf_fprobe_link *link)
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
	n = fprobe_link_name_fns(link, fns);
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

/*
 * Pins the link's modules, counts its functions' arguments if its program
 * may read them, and registers its fprobe.
 */
static int fprobe_multi_link_hook(struct bpf_fprobe_link *link, bool counts)
{
	int err;

	err = get_modules_for_addrs(&link->mods, link->addrs, link->cnt);
	if (err < 0)
		return err;
	link->mods_cnt = err;
	err = counts ? fprobe_link_btf_nargs(link) : 0;
	if (!err)
		err = register_fprobe_ips(&link->fp, link->addrs, link->cnt);
	if (err)
		kprobe_multi_put_modules(link->mods, link->mods_cnt);
	return err;
}

static int fprobe_multi_link_create(struct bpf_prog *prog,
				    const struct fprobe_multi_req *req)
{
	struct bpf_link_primer link_primer;
	struct bpf_fprobe_link *link;
	unsigned long *addrs;
	u64 *cookies;
	int err;

	err = fprobe_multi_get_funcs(req, &addrs, &cookies);
	if (err)
		return err;
	link = kzalloc_obj(*link);
	if (!link) {
		err = -ENOMEM;
		goto out_free_funcs;
	}
	mutex_init(&link->detach_lock);
	link->addrs = addrs;
	link->cookies = cookies;
	link->cnt = req->cnt;
	fprobe_multi_link_setup(link, req);
	bpf_link_init(&link->link, BPF_LINK_TYPE_FPROBE_MULTI, &bpf_fprobe_link_lops,
		      prog, BPF_TRACE_FPROBE_MULTI);
	err = bpf_link_prime(&link->link, &link_primer);
	if (err)
		goto out_free_link;

	err = fprobe_multi_link_hook(link, prog->aux->reads_func_args);
	if (err) {
		bpf_link_cleanup(&link_primer);
		return err;
	}
	return bpf_link_settle(&link_primer);

out_free_link:
	mutex_destroy(&link->detach_lock);
	kfree(link);
out_free_funcs:
	kvfree(addrs);
	kvfree(cookies);
	return err;
}

/* Checks link_create.fprobe_multi's mode and sizes into @req. */
static int fprobe_multi_check_req(struct fprobe_multi_req *req)
{
	if ((req->flags & ~FPROBE_MULTI_FLAGS) || req->flags == FPROBE_MULTI_FLAGS)
		return -EINVAL;
	if (req->flags & BPF_F_FPROBE_MULTI_SESSION)
		req->mode = FPROBE_LINK_SESSION;
	else if (req->flags & BPF_F_FPROBE_MULTI_RETURN)
		req->mode = FPROBE_LINK_RETURN;
	else
		req->mode = FPROBE_LINK_ENTRY;

	/*
	 * The sizes first: their -E2BIG, before any look at the functions,
	 * tells user space that the kernel has this link and this mode.
	 */
	if (req->session_size && req->mode != FPROBE_LINK_SESSION)
		return -EINVAL;
	if (req->session_size > BPF_FPROBE_MULTI_SESSION_MAX)
		return -E2BIG;
	if (req->saved_args && req->mode == FPROBE_LINK_ENTRY)
		return -EINVAL;
	if (req->saved_args > BPF_FPROBE_MULTI_ARGS_MAX)
		return -E2BIG;
	if (!!req->uaddrs == !!req->usyms || !req->cnt)
		return -EINVAL;
	if (req->cnt > FPROBE_MULTI_MAX_CNT)
		return -E2BIG;
	return 0;
}

/*
 * Errors: -EPERM without CAP_BPF and CAP_PERFMON (the program's fd may have
 * been passed on); -EINVAL for a program of another attach type, a
 * sleepable one, unknown or conflicting flags, syms and addrs both given or
 * both missing, a zero cnt, or session_size or saved_args that the mode
 * does not use; -E2BIG when cnt, session_size or saved_args is over its
 * limit; -ENOENT for an unknown symbol; -EOPNOTSUPP for a function that
 * ftrace cannot trace; -EEXIST for a function given twice.
 */
int bpf_fprobe_multi_link_attach(const union bpf_attr *attr, struct bpf_prog *prog)
{
	struct fprobe_multi_req req = {
		.flags = attr->link_create.fprobe_multi.flags,
		.cnt = attr->link_create.fprobe_multi.cnt,
		.usyms = u64_to_user_ptr(attr->link_create.fprobe_multi.syms),
		.uaddrs = u64_to_user_ptr(attr->link_create.fprobe_multi.addrs),
		.ucookies = u64_to_user_ptr(attr->link_create.fprobe_multi.cookies),
		.session_size = attr->link_create.fprobe_multi.session_size,
		.saved_args = attr->link_create.fprobe_multi.saved_args,
	};
	int err;

	/* the entry data holds addresses and arguments as u64 */
	if (sizeof(u64) != sizeof(void *))
		return -EOPNOTSUPP;
	if (!bpf_capable() || !perfmon_capable())
		return -EPERM;
	if (attr->link_create.flags || !bpf_prog_ctx_is_ftrace_regs(prog) ||
	    prog->sleepable)
		return -EINVAL;
	err = fprobe_multi_check_req(&req);
	if (err)
		return err;
	return fprobe_multi_link_create(prog, &req);
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
		i = fprobe_link_find(link, fprobe_run_ctx_func_ip(run_ctx));
		if (i >= 0)
			run_ctx->nargs = link->nargs[i];
	}
	run_ctx->known |= FPROBE_RUN_NARGS;
	return run_ctx->nargs;
}

/* bpf_fprobe_arg(), and bpf_get_func_arg() of fprobe.multi programs */
int bpf_fprobe_link_func_arg(u32 n, u64 *value)
{
	struct bpf_fprobe_run_ctx *run_ctx = fprobe_link_run_ctx();

	*value = 0;
	if (n >= fprobe_run_ctx_nargs(run_ctx))
		return -EINVAL;
	if (!run_ctx->session_ctx.is_return) {
		*value = ftrace_regs_get_argument(run_ctx->fregs, n);
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
 * At exit, the argument is the copy the link saved at entry.
 *
 * Arguments are counted in registers, as bpf_get_func_arg_cnt() counts
 * them.
 *
 * Return: 0; -EINVAL if @n is past the function's arguments (by BTF, or
 * the register arguments if it has none); at exit, -ENOENT if the link
 * does not save argument @n.
 */
__bpf_kfunc int bpf_fprobe_arg(struct ftrace_regs *ctx, u32 n, u64 *value)
{
	return bpf_fprobe_link_func_arg(n, value);
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
 * Return: what bpf_get_func_ip() returns, at entry and at exit.
 */
__bpf_kfunc u64 bpf_fprobe_func_ip(struct ftrace_regs *ctx)
{
	return fprobe_run_ctx_func_ip(fprobe_link_run_ctx());
}

/**
 * bpf_fprobe_is_return - whether the program runs at the function's exit
 * @ctx: the program's context
 *
 * Return: true at exit, false at entry.
 */
__bpf_kfunc bool bpf_fprobe_is_return(struct ftrace_regs *ctx)
{
	return fprobe_link_run_ctx()->session_ctx.is_return;
}

/**
 * bpf_fprobe_session_data - the data a session's entry and exit share
 * @ctx: the program's context
 * @rdwr_buf_size: the bytes the program will access, a constant
 *
 * The data is zeroed before the entry run of each call.
 *
 * Return: the data, or NULL if @rdwr_buf_size is 0 or more than the link's
 * session_size.
 */
__bpf_kfunc u8 *bpf_fprobe_session_data(struct ftrace_regs *ctx, u32 rdwr_buf_size)
{
	struct bpf_fprobe_run_ctx *run_ctx = fprobe_link_run_ctx();

	if (!rdwr_buf_size || rdwr_buf_size > run_ctx->link->session_size)
		return NULL;
	return run_ctx->session_ctx.data;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(fprobe_multi_kfunc_ids)
BTF_ID_FLAGS(func, bpf_fprobe_arg)
BTF_ID_FLAGS(func, bpf_fprobe_ret)
BTF_ID_FLAGS(func, bpf_fprobe_func_ip)
BTF_ID_FLAGS(func, bpf_fprobe_is_return)
BTF_ID_FLAGS(func, bpf_fprobe_session_data, KF_RET_NULL)
BTF_KFUNCS_END(fprobe_multi_kfunc_ids)

/* The kfuncs rely on the link's run context: fprobe.multi programs only. */
static int fprobe_multi_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (!btf_id_set8_contains(&fprobe_multi_kfunc_ids, kfunc_id))
		return 0;
	return bpf_prog_ctx_is_ftrace_regs(prog) ? 0 : -EACCES;
}

static const struct btf_kfunc_id_set fprobe_multi_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &fprobe_multi_kfunc_ids,
	.filter = fprobe_multi_kfunc_filter,
};

static int __init fprobe_multi_kfuncs_init(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_KPROBE, &fprobe_multi_kfunc_set);
}
late_initcall(fprobe_multi_kfuncs_init);
