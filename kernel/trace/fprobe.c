// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe - probe function entries and exits on the function graph tracer
 *
 * Every fprobe has an ftrace_ops of its own, whose filter is its
 * addresses, so a call reaches the fprobes on its function with no table
 * lookup. An fprobe with only an entry handler runs it from that
 * ftrace_ops' callback and needs nothing on the shadow stack.
 *
 * The ftrace_ops of an fprobe with an exit handler hooks calls for
 * fprobe's one fgraph_ops (see fgraph_init_owner_ops()): fgraph pushes the
 * call's frame, or joins the frame that another hook of the same call
 * pushed, so that a call is hooked once, and calls fprobe_entry() with
 * the ftrace_ops at hand and a block of the fprobe's own in the frame, of
 * the size set at registration: a 64-bit header and its entry data.
 *
 *   block in the frame, at most FPROBE_RESERVE_WORDS words
 *   +--------------------------------+ <- lowest address
 *   | header: id | data words        |
 *   | entry data (n words)           |
 *   +--------------------------------+
 *
 *   header bits  0..31  FPROBE_HDR_ID    the fprobe's id, never 0
 *   header bits 32..39  FPROBE_HDR_SIZE  entry data size in words
 *
 * An fprobe whose entry handler returns nonzero keeps no block, so its
 * exit is skipped at no cost. The exit handler runs under ftrace's
 * recursion protection, as the entry's handlers do, unless the fprobe has
 * FPROBE_FL_EXIT_OWN_RECURSION: then fprobe_return() checks the block and
 * ends in a tail call to the handler, and calls nothing traceable before
 * it. fprobe keeps each registered fprobe's header in it (fp->hdr) and
 * writes it whole. When the task's stack has no room, fgraph tells
 * fprobe_missed(), and the fprobe counts the call in its nmissed_stack.
 * At the return, fgraph hands fprobe_return() each block of the frame,
 * the last reserved first, and it runs that block's exit.
 *
 * The header names the fprobe by id, not by pointer. Ids come from an
 * allocating xarray, cyclically, and are removed from it at unregister, so
 * an exit that is still pending on some task when its fprobe goes away
 * (the task sleeps in the function, say) finds no fprobe and is dropped.
 * A pointer could instead match a new fprobe that happens to be allocated
 * at the same address. Such exits are counted at unregister: each fprobe
 * keeps a per-CPU count of the headers written minus the exits that found
 * it, and unregister_fprobe() adds what is left to its nmissed_other.
 *
 * The exit side trusts a block only if its header is that of a
 * registered fprobe, whose entry data size it gives. On 32-bit, where
 * fgraph can hand over a block that an earlier owner of its slot
 * reserved, the block must also be exactly that header and data.
 *
 * A module going away takes its functions out of every fprobe's filter
 * (see fprobe_module_notify()), so that none outlives them.
 *
 * Locking: fprobe_mutex serializes registration, unregistration and module
 * removal: the filters, the id space, the registration of fprobe's
 * fgraph_ops, and the test of fp->id that tells whether an fprobe is
 * registered. An fprobe's id is published before its ftrace_ops, so that
 * no header is ever written without one.
 * The handlers run with preemption off (under
 * ftrace_test_recursion_trylock() or in fgraph's return), which is an RCU
 * read-side section: unregister_fprobe() waits for them with
 * synchronize_rcu() before it frees anything. The exit reads only the id
 * cache, the xarray and the header kept in the fprobe, which
 * unregister_fprobe() clears before that wait. That wait covers only handlers that run where RCU
 * is watching. fgraph enters its owners only there, and reports a call
 * where RCU is not watching to fprobe_missed(), which counts it in
 * nmissed_other, as the ftrace_ops of an fprobe without exit handler does.
 * A call may also return where RCU is not watching: such an exit stays
 * pending, to be counted in nmissed_other at unregister.
 */
#define pr_fmt(fmt) "fprobe: " fmt

#include <linux/bitfield.h>
#include <linux/err.h>
#include <linux/fprobe.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/xarray.h>

#include "trace.h"

#define FPROBE_HDR_ID		GENMASK_ULL(31, 0)
#define FPROBE_HDR_SIZE		GENMASK_ULL(39, 32)
#define FPROBE_HDR_WORDS	(sizeof(u64) / sizeof(long))
#define FPROBE_DATA_WORDS_MAX	(FPROBE_DATA_SIZE_MAX / sizeof(long))
#define FPROBE_RESERVE_WORDS	(FGRAPH_MAX_DATA_SIZE / sizeof(long))

static_assert(FPROBE_DATA_WORDS_MAX <= (FPROBE_HDR_SIZE >> 32));
static_assert(FPROBE_HDR_WORDS + FPROBE_DATA_WORDS_MAX <= FPROBE_RESERVE_WORDS);

static DEFINE_MUTEX(fprobe_mutex);
static DEFINE_XARRAY_ALLOC1(fprobe_ids);

/*
 * Every exit looks its fprobes up by id. In front of the xarray walk sits
 * a direct-mapped cache: slot id % FPROBE_ID_CACHE holds the last fprobe
 * registered with such an id. A reader checks that the fprobe it finds
 * there has the header it holds, id and entry data size in one compare, so
 * a slot that a newer fprobe took only sends it on to the xarray. Slots and
 * headers are cleared before unregister_fprobe() waits for RCU readers.
 */
#define FPROBE_ID_CACHE		64
static struct fprobe __rcu *fprobe_id_cache[FPROBE_ID_CACHE];

static u32 fprobe_next_id;
/* the registered fprobes with an exit handler, which use fprobe_graph_ops */
static unsigned long fprobe_nr_exit;

static int fprobe_entry(struct ftrace_graph_ent *trace, struct fgraph_ops *gops,
			struct ftrace_ops *op, struct ftrace_regs *fregs, void *data);
static void fprobe_return(struct ftrace_graph_ret *trace, struct fgraph_ops *gops,
			  struct ftrace_regs *fregs, void *data, int size);
static void fprobe_missed(unsigned long func, struct fgraph_ops *gops,
			  struct ftrace_ops *op, enum fgraph_miss why);

/*
 * Tasks get their shadow stack on their first probed call: the tasks that
 * never run a probed function need none, and a call that finds no stack
 * left is counted in nmissed_stack like one that finds it full.
 */
static struct fgraph_ops fprobe_graph_ops = {
	.ops_entryfunc	= fprobe_entry,
	.ops_retfunc	= fprobe_return,
	.missfunc	= fprobe_missed,
	.lazy_stacks	= true,
	.no_timestamps	= true,
};

static __always_inline int fprobe_data_words(struct fprobe *fp)
{
	return DIV_ROUND_UP(fp->entry_data_size, sizeof(long));
}

/* The words of @fp's block in a frame: the header and the entry data */
static int fprobe_block_words(struct fprobe *fp)
{
	return FPROBE_HDR_WORDS + fprobe_data_words(fp);
}

/*
 * Run an entry handler shared with kprobes: it must not run while a kprobe
 * runs, and must look like one to them (see fprobe.rst).
 */
static noinline int fprobe_call_entry_kprobes(struct fprobe *fp, unsigned long ip,
					      unsigned long ret_ip,
					      struct ftrace_regs *fregs, void *data)
{
	int ret;

	if (unlikely(kprobe_running())) {
		atomic_long_inc(&fp->nmissed_recursion);
		return 1;
	}
	kprobe_busy_begin();
	ret = fp->entry_handler(fp, ip, ret_ip, fregs, data);
	kprobe_busy_end();
	return ret;
}

NOKPROBE_SYMBOL(fprobe_call_entry_kprobes);

/*
 * Run an entry handler; out of line if shared with kprobes, so that the
 * others' path keeps fewer registers.
 */
static __always_inline int fprobe_call_entry(struct fprobe *fp, unsigned long ip,
					     unsigned long ret_ip,
					     struct ftrace_regs *fregs, void *data)
{
	if (!fprobe_shared_with_kprobes(fp))
		return fp->entry_handler(fp, ip, ret_ip, fregs, data);
	return fprobe_call_entry_kprobes(fp, ip, ret_ip, fregs, data);
}

/* The ftrace_ops callback of an fprobe without exit handler. */
static void fprobe_ftrace_entry(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct fprobe *fp = container_of(ops, struct fprobe, hook.ops);
	int bit;

	if (unlikely(fprobe_disabled(fp)))
		return;
	/* synchronize_rcu() in unregister_fprobe() does not wait for us */
	if (unlikely(!ftrace_rcu_is_watching())) {
		atomic_long_inc(&fp->nmissed_other);
		return;
	}
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		atomic_long_inc(&fp->nmissed_recursion);
		return;
	}
	fprobe_call_entry(fp, ip, parent_ip, fregs, NULL);
	ftrace_test_recursion_unlock(bit);
}

NOKPROBE_SYMBOL(fprobe_ftrace_entry);

/* fprobe_entry_ret_ip() from the frames: out of line, as it is rare */
static noinline unsigned long fprobe_frame_ret_ip(void)
{
	struct ftrace_ret_stack *frame;
	int i = 0;

	/* a frame pushed over a hooked return keeps return_to_handler */
	do {
		frame = ftrace_graph_get_ret_stack(current, i++);
	} while (frame && frame->ret == (unsigned long)return_to_handler);
	return frame ? frame->ret : 0;
}

NOKPROBE_SYMBOL(fprobe_frame_ret_ip);

/*
 * The return address of the call fgraph is hooking: still in place while
 * the entry callbacks of the hook that pushed the call's frame run, and in
 * that frame, where the callbacks of a later hook that joined it find it.
 */
static __always_inline unsigned long fprobe_entry_ret_ip(struct ftrace_regs *fregs)
{
#ifdef ftrace_regs_get_return_address
	unsigned long ret = ftrace_regs_get_return_address(fregs);

	if (likely(ret != (unsigned long)return_to_handler))
		return ret;
#endif
	return fprobe_frame_ret_ip();
}

/*
 * fprobe_entry() for an fprobe with an entry handler, whose header it
 * wrote: run the handler with the block's entry data. Out of line, so that
 * the entry of an fprobe without entry handler saves no registers; it
 * takes fprobe_entry()'s arguments, which that passes on as they are.
 */
static noinline int fprobe_entry_handler(struct ftrace_graph_ent *trace, struct fgraph_ops *gops,
					 struct ftrace_ops *op, struct ftrace_regs *fregs,
					 void *data)
{
	struct fprobe *fp = container_of(op, struct fprobe, hook.ops);
	unsigned long *block = data;

	/* the size not from the header: on 32-bit its read may tear at unregister */
	if (fprobe_call_entry(fp, trace->func, fprobe_entry_ret_ip(fregs), fregs,
			      fp->entry_data_size ? block + FPROBE_HDR_WORDS : NULL))
		return 0;
	local_inc(this_cpu_ptr(fp->pending));
	return 1;
}

NOKPROBE_SYMBOL(fprobe_entry_handler);

/*
 * The entry of a call that @op, the ftrace_ops of an fprobe with an exit
 * handler, hooked: write the header of @data, the fprobe's block, and run
 * the entry handler with the block's entry data. If the handler refuses
 * the exit, fgraph drops the block. fgraph calls it where RCU is
 * watching, with preemption off and under ftrace's recursion protection.
 */
static int fprobe_entry(struct ftrace_graph_ent *trace, struct fgraph_ops *gops,
			struct ftrace_ops *op, struct ftrace_regs *fregs, void *data)
{
	struct fprobe *fp = container_of(op, struct fprobe, hook.ops);
	/* 0 once unregistering: its exit would not find it */
	u64 hdr = READ_ONCE(fp->hdr);

	if (unlikely(fprobe_disabled(fp) || !hdr))
		return 0;
	*(u64 *)data = hdr;
	if (fp->entry_handler)
		return fprobe_entry_handler(trace, gops, op, fregs, data);
	local_inc(this_cpu_ptr(fp->pending));
	return 1;
}

NOKPROBE_SYMBOL(fprobe_entry);

/*
 * Run the exit handler of @fp, whose handler does not guard itself, under
 * ftrace's recursion protection: whatever it calls that is probed too is
 * then refused (and counted) at entry, and cannot bring it back here.
 */
static noinline void fprobe_exit_protected(struct fprobe *fp, void *data, unsigned long ip,
					   unsigned long ret_ip, struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, ret_ip);

	if (bit < 0) {
		atomic_long_inc(&fp->nmissed_recursion);
		return;
	}
	fp->exit_handler(fp, ip, ret_ip, fregs, data);
	ftrace_test_recursion_unlock(bit);
}

NOKPROBE_SYMBOL(fprobe_exit_protected);

/*
 * Run the exit of @fp, whose entry reserved @block, with @words words of
 * entry data after its header: an entry that ran gets its exit, even if
 * @fp was disabled since. A handler that guards itself against recursion
 * (FPROBE_FL_EXIT_OWN_RECURSION) is called straight, as a tail call.
 */
static __always_inline void fprobe_run_exit(struct fprobe *fp, unsigned long *block,
					    int words, unsigned long ip,
					    struct ftrace_regs *fregs)
{
	unsigned long ret_ip = ftrace_regs_get_instruction_pointer(fregs);
	void *data = words ? block + FPROBE_HDR_WORDS : NULL;

	local_dec(this_cpu_ptr(fp->pending));
	if (likely(fp->flags & FPROBE_FL_EXIT_OWN_RECURSION))
		fp->exit_handler(fp, ip, ret_ip, fregs, data);
	else
		fprobe_exit_protected(fp, data, ip, ret_ip, fregs);
}

/*
 * fprobe_return() for a header that missed the id cache. lib/xarray.c is
 * traceable: xa_load() runs under ftrace's recursion protection, which
 * lets a probe on what it calls fire once more at most (its transition
 * level), so that the exit of such a probe that misses the cache as well
 * looks itself up no further. If the protection refuses, every probe that
 * xa_load() reaches is refused too.
 */
static noinline void fprobe_exit_lookup(unsigned long *block, u64 hdr, unsigned long ip,
					struct ftrace_regs *fregs)
{
	struct fprobe *fp;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, ftrace_regs_get_instruction_pointer(fregs));
	fp = xa_load(&fprobe_ids, FIELD_GET(FPROBE_HDR_ID, hdr));
	if (bit >= 0)
		ftrace_test_recursion_unlock(bit);
	if (fp && READ_ONCE(fp->hdr) == hdr)
		fprobe_run_exit(fp, block, FIELD_GET(FPROBE_HDR_SIZE, hdr), ip, fregs);
}

NOKPROBE_SYMBOL(fprobe_exit_lookup);

/*
 * The return of a call that an fprobe hooked: fgraph gives each block, of
 * @size bytes, that the ftrace_ops of an fprobe left in the call's frame.
 * The block's exit runs if its header is that of a registered fprobe: not
 * if it was unregistered since (and counted then), nor if the block is not
 * what its entry stores, a header and entry data of the size it gives.
 * fgraph gives a return only to an owner of the slot that entered the
 * call, except on 32-bit, where it keeps no epoch: there a block that an
 * earlier owner reserved can come here; its size tells.
 */
static void fprobe_return(struct ftrace_graph_ret *trace, struct fgraph_ops *gops,
			  struct ftrace_regs *fregs, void *data, int size)
{
	unsigned long *block = data;
	struct fprobe *fp;
	int words;
	u64 hdr;

	if (WARN_ON_ONCE(!fregs))
		return;
	/*
	 * synchronize_rcu() in unregister_fprobe() does not wait for us, so
	 * no fprobe can be looked up: the header stays pending
	 */
	if (unlikely(!ftrace_rcu_is_watching()))
		return;
	/*
	 * A block of an earlier owner of the slot, which comes here only on
	 * 32-bit, is not a header and the data of the size it gives. On
	 * 64-bit, the block is one that fprobe_entry() wrote, and the lookup
	 * below finds an fprobe only for its header, size included.
	 */
	if (!IS_ENABLED(CONFIG_64BIT) && unlikely(size < sizeof(hdr)))
		return;
	hdr = *(u64 *)block;
	words = FIELD_GET(FPROBE_HDR_SIZE, hdr);
	if (!IS_ENABLED(CONFIG_64BIT) &&
	    unlikely(size != (FPROBE_HDR_WORDS + words) * sizeof(long)))
		return;
	/*
	 * No lockdep check: rcu_read_lock_sched_held() is traceable, and with
	 * FPROBE_FL_EXIT_OWN_RECURSION nothing guards this return against a
	 * probe on it
	 */
	fp = rcu_dereference_raw_check(fprobe_id_cache[FIELD_GET(FPROBE_HDR_ID, hdr) %
						       FPROBE_ID_CACHE]);
	if (unlikely(!fp || READ_ONCE(fp->hdr) != hdr)) {
		fprobe_exit_lookup(block, hdr, trace->func, fregs);
		return;
	}
	fprobe_run_exit(fp, block, words, trace->func, fregs);
}

NOKPROBE_SYMBOL(fprobe_return);

/* @op, the ftrace_ops of an fprobe, could not hook a call to @func. */
static void fprobe_missed(unsigned long func, struct fgraph_ops *gops,
			  struct ftrace_ops *op, enum fgraph_miss why)
{
	struct fprobe *fp;

	/* fprobe hooks calls from its own ftrace_ops only */
	if (WARN_ON_ONCE(!op))
		return;
	fp = container_of(op, struct fprobe, hook.ops);
	/* as fprobe_entry(): not when disabled, nor once unregistering */
	if (fprobe_disabled(fp) || !READ_ONCE(fp->id))
		return;
	switch (why) {
	case FGRAPH_MISS_STACK:
		atomic_long_inc(&fp->nmissed_stack);
		break;
	case FGRAPH_MISS_RECURSION:
		atomic_long_inc(&fp->nmissed_recursion);
		break;
	default:	/* FGRAPH_MISS_NO_RCU */
		atomic_long_inc(&fp->nmissed_other);
	}
}

NOKPROBE_SYMBOL(fprobe_missed);

static int symbols_cmp(const void *a, const void *b)
{
	const char **str_a = (const char **)a;
	const char **str_b = (const char **)b;

	return strcmp(*str_a, *str_b);
}

/* Convert ftrace location address from symbols */
static unsigned long *get_ftrace_locations(const char **syms, int num)
{
	unsigned long *addrs;

	/* Convert symbols to symbol address */
	addrs = kcalloc(num, sizeof(*addrs), GFP_KERNEL);
	if (!addrs)
		return ERR_PTR(-ENOMEM);

	/* ftrace_lookup_symbols expects sorted symbols */
	sort(syms, num, sizeof(*syms), symbols_cmp, NULL);

	if (!ftrace_lookup_symbols(syms, num, addrs))
		return addrs;

	kfree(addrs);
	return ERR_PTR(-ENOENT);
}

static int fprobe_check(struct fprobe *fp)
{
	if (!fp || (!fp->entry_handler && !fp->exit_handler))
		return -EINVAL;
	if (fp->entry_data_size > FPROBE_DATA_SIZE_MAX)
		return -E2BIG;
	return 0;
}

/*
 * No function of a module that is going away may be added: the module
 * notifier, which drops them from every fprobe, may have run already.
 */
static int fprobe_check_module(unsigned long addr)
{
#ifdef CONFIG_MODULES
	struct module *mod;
	int ret = 0;

	lockdep_assert_held(&fprobe_mutex);
	preempt_disable();
	mod = __module_text_address(addr);
	if (mod && mod->state == MODULE_STATE_GOING)
		ret = -ENOENT;
	preempt_enable();
	return ret;
#else
	return 0;
#endif
}

/* fprobe_graph_ops is registered while an fprobe with exit handler is. */
static int fprobe_graph_get(void)
{
	int ret;

	lockdep_assert_held(&fprobe_mutex);
	if (fprobe_nr_exit++)
		return 0;
	ret = register_ftrace_graph(&fprobe_graph_ops);
	if (ret)
		fprobe_nr_exit--;
	return ret;
}

static void fprobe_graph_put(void)
{
	lockdep_assert_held(&fprobe_mutex);
	if (!--fprobe_nr_exit)
		unregister_ftrace_graph(&fprobe_graph_ops);
}

static int fprobe_add_ops(struct fprobe *fp, unsigned long *addrs, int num)
{
	int i, ret;

	/*
	 * An address that is no ftrace location gets -EINVAL from
	 * ftrace_set_filter_ips() below: looking each up here as well cost
	 * as much again, a kallsyms lookup for an address at a symbol.
	 */
	for (i = 0; i < num; i++) {
		ret = fprobe_check_module(addrs[i]);
		if (ret)
			return ret;
	}
	/* a new registration, or one after unregister_fprobe() */
	memset(&fp->hook, 0, sizeof(fp->hook));
	if (fp->exit_handler) {
		ret = fgraph_init_owner_ops(&fp->hook, &fprobe_graph_ops,
					    fprobe_block_words(fp) * sizeof(long));
		if (ret)
			return ret;
	} else {
		fp->hook.ops.func = fprobe_ftrace_entry;
		fp->hook.ops.flags = FTRACE_OPS_FL_SAVE_ARGS;
	}
	ret = ftrace_set_filter_ips(&fp->hook.ops, addrs, num, 0, 0);
	if (!ret && fp->exit_handler)
		ret = fprobe_graph_get();
	if (!ret) {
		ret = register_ftrace_function(&fp->hook.ops);
		if (ret && fp->exit_handler)
			fprobe_graph_put();
	}
	if (ret)
		ftrace_free_filter(&fp->hook.ops);
	return ret;
}

static void fprobe_remove_ops(struct fprobe *fp)
{
	/* not if the modules of all its functions went away */
	if (fp->hook.ops.flags & FTRACE_OPS_FL_ENABLED)
		unregister_ftrace_function(&fp->hook.ops);
	ftrace_free_filter(&fp->hook.ops);
	if (fp->exit_handler)
		fprobe_graph_put();
}

/* Give @fp an id, published before its ftrace_ops can write it into a header. */
static int fprobe_publish_id(struct fprobe *fp)
{
	u32 id;
	int ret;

	lockdep_assert_held(&fprobe_mutex);
	ret = xa_alloc_cyclic(&fprobe_ids, &id, fp, xa_limit_32b, &fprobe_next_id,
			      GFP_KERNEL);
	if (ret < 0)
		return ret;
	WRITE_ONCE(fp->id, id);
	if (fp->exit_handler) {
		WRITE_ONCE(fp->hdr, FIELD_PREP(FPROBE_HDR_ID, id) |
				    FIELD_PREP(FPROBE_HDR_SIZE, fprobe_data_words(fp)));
		rcu_assign_pointer(fprobe_id_cache[id % FPROBE_ID_CACHE], fp);
	}
	return 0;
}

/* Take @fp's id back: its pending exits then find no fprobe. */
static void fprobe_withdraw_id(struct fprobe *fp)
{
	lockdep_assert_held(&fprobe_mutex);
	xa_erase(&fprobe_ids, fp->id);
	if (rcu_access_pointer(fprobe_id_cache[fp->id % FPROBE_ID_CACHE]) == fp)
		RCU_INIT_POINTER(fprobe_id_cache[fp->id % FPROBE_ID_CACHE], NULL);
	WRITE_ONCE(fp->hdr, 0);
	WRITE_ONCE(fp->id, 0);
}

/*
 * Once no handler runs with @fp in hand any more (after synchronize_rcu()),
 * count as missed the exits that were still to come: they will find no
 * fprobe.
 */
static void fprobe_count_pending(struct fprobe *fp)
{
	long n = 0;
	int cpu;

	lockdep_assert_held(&fprobe_mutex);
	for_each_possible_cpu(cpu)
		n += local_read(per_cpu_ptr(fp->pending, cpu));
	/* never below 0, whatever a stale frame did */
	if (n > 0)
		atomic_long_add(n, &fp->nmissed_other);
	free_percpu(fp->pending);
	fp->pending = NULL;
}

/*
 * The id goes first: an entry through the new ftrace_ops writes the id into
 * its header, and an exit drops a header whose id names no fprobe.
 */
static int fprobe_register_locked(struct fprobe *fp, unsigned long *addrs, int num)
{
	int ret;

	lockdep_assert_held(&fprobe_mutex);
	/* registered, or its unregister_fprobe() has not returned yet */
	if (fp->id || fp->pending)
		return -EBUSY;
	/* only the fprobes with an exit handler go through fgraph */
	if (fp->exit_handler) {
		fp->pending = alloc_percpu(local_t);
		if (!fp->pending)
			return -ENOMEM;
	}
	atomic_long_set(&fp->nmissed_stack, 0);
	atomic_long_set(&fp->nmissed_recursion, 0);
	atomic_long_set(&fp->nmissed_other, 0);

	ret = fprobe_publish_id(fp);
	if (!ret) {
		ret = fprobe_add_ops(fp, addrs, num);
		if (ret)
			fprobe_withdraw_id(fp);
	}
	if (ret && fp->pending) {
		free_percpu(fp->pending);
		fp->pending = NULL;
	}
	return ret;
}

/**
 * register_fprobe_ips() - Register fprobe to ftrace by address.
 * @fp: A fprobe data structure to be registered.
 * @addrs: An array of target ftrace location addresses.
 * @num: The number of entries of @addrs.
 *
 * Register @fp to ftrace for enabling the probe on the address given by @addrs.
 * The @addrs must be the addresses of ftrace location address, which may be
 * the symbol address + arch-dependent offset.
 * If you unsure what this mean, please use other registration functions.
 *
 * Return: 0 if @fp is registered successfully; -EINVAL for bad arguments or
 * an address that is not an ftrace location, -E2BIG if entry_data_size is
 * over FPROBE_DATA_SIZE_MAX, -EBUSY if @fp is registered, or its
 * unregister_fprobe() has not returned yet, -ENOENT for a function of a
 * module that is being unloaded, -ENOMEM.
 */
int register_fprobe_ips(struct fprobe *fp, unsigned long *addrs, int num)
{
	int ret;

	if (!addrs || num <= 0)
		return -EINVAL;
	ret = fprobe_check(fp);
	if (ret)
		return ret;

	mutex_lock(&fprobe_mutex);
	ret = fprobe_register_locked(fp, addrs, num);
	mutex_unlock(&fprobe_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(register_fprobe_ips);

/**
 * register_fprobe_syms() - Register fprobe to ftrace by symbols.
 * @fp: A fprobe data structure to be registered.
 * @syms: An array of target symbols.
 * @num: The number of entries of @syms.
 *
 * Register @fp to the symbols given by @syms array. This will be useful if
 * you are sure the symbols exist in the kernel.
 *
 * Return: 0 if @fp is registered successfully, -ENOENT if a symbol is not
 * an ftrace location, or an error of register_fprobe_ips().
 */
int register_fprobe_syms(struct fprobe *fp, const char **syms, int num)
{
	unsigned long *addrs;
	int ret;

	if (!fp || !syms || num <= 0)
		return -EINVAL;

	addrs = get_ftrace_locations(syms, num);
	if (IS_ERR(addrs))
		return PTR_ERR(addrs);

	ret = register_fprobe_ips(fp, addrs, num);

	kfree(addrs);

	return ret;
}
EXPORT_SYMBOL_GPL(register_fprobe_syms);

/*
 * The ftrace locations that @filter matches and @notfilter does not, with
 * ftrace's own glob and ":mod:" syntax: parse them into the hashes of a
 * scratch ftrace_ops that is never registered.
 */
static unsigned long *fprobe_match_filter(const char *filter, const char *notfilter,
					  int *num)
{
	struct ftrace_hash *hash, *nohash;
	struct ftrace_func_entry *entry;
	struct ftrace_ops ops = {};
	unsigned long *addrs = NULL;
	int i, n = 0, ret;

	ret = ftrace_set_filter(&ops, (unsigned char *)filter, strlen(filter), 0);
	if (!ret && notfilter)
		ret = ftrace_set_notrace(&ops, (unsigned char *)notfilter,
					 strlen(notfilter), 0);
	if (ret)
		goto out;
	hash = rcu_dereference_protected(ops.local_hash.filter_hash, true);
	nohash = rcu_dereference_protected(ops.local_hash.notrace_hash, true);
	ret = -ENOENT;
	if (!hash || !hash->count)
		goto out;
	addrs = kcalloc(hash->count, sizeof(*addrs), GFP_KERNEL);
	ret = -ENOMEM;
	if (!addrs)
		goto out;
	for (i = 0; i < 1 << hash->size_bits; i++) {
		hlist_for_each_entry(entry, &hash->buckets[i], hlist)
			if (!nohash || !ftrace_lookup_ip(nohash, entry->ip))
				addrs[n++] = entry->ip;
	}
	ret = n ? 0 : -ENOENT;
out:
	ftrace_free_filter(&ops);
	if (ret) {
		kfree(addrs);
		return ERR_PTR(ret);
	}
	*num = n;
	return addrs;
}

/**
 * register_fprobe() - Register fprobe to ftrace by pattern.
 * @fp: A fprobe data structure to be registered.
 * @filter: A wildcard pattern of probed symbols.
 * @notfilter: A wildcard pattern of NOT probed symbols.
 *
 * Register @fp to ftrace for enabling the probe on the symbols matched to @filter.
 * If @notfilter is not NULL, the symbols matched the @notfilter are not probed.
 *
 * Return: 0 if @fp is registered successfully, -ENOENT if no function
 * matches, or an error of register_fprobe_ips().
 */
int register_fprobe(struct fprobe *fp, const char *filter, const char *notfilter)
{
	unsigned long *addrs;
	int ret, num;

	if (!fp || !filter)
		return -EINVAL;

	addrs = fprobe_match_filter(filter, notfilter, &num);
	if (IS_ERR(addrs))
		return PTR_ERR(addrs);
	ret = register_fprobe_ips(fp, addrs, num);
	kfree(addrs);
	return ret;
}
EXPORT_SYMBOL_GPL(register_fprobe);

bool fprobe_is_registered(struct fprobe *fp)
{
	return fp && READ_ONCE(fp->id);
}

/**
 * unregister_fprobe() - Unregister fprobe from ftrace
 * @fp: A fprobe data structure to be unregistered.
 *
 * Unregister fprobe (and remove ftrace hooks from the function entries).
 * When it returns, no handler of @fp runs or will run, even for calls
 * that entered a probed function before and return after.
 *
 * Return 0 if @fp is unregistered successfully, -errno if not.
 */
int unregister_fprobe(struct fprobe *fp)
{
	if (!fp)
		return -EINVAL;

	mutex_lock(&fprobe_mutex);
	/* checked under the mutex: a second caller must not undo twice */
	if (!fp->id) {
		mutex_unlock(&fprobe_mutex);
		return -EINVAL;
	}
	fprobe_withdraw_id(fp);
	fprobe_remove_ops(fp);
	mutex_unlock(&fprobe_mutex);

	/* handlers still running with @fp in hand */
	synchronize_rcu();
	if (fp->pending) {
		/* until then, registering @fp again gets -EBUSY */
		mutex_lock(&fprobe_mutex);
		fprobe_count_pending(fp);
		mutex_unlock(&fprobe_mutex);
	}
	return 0;
}
EXPORT_SYMBOL_GPL(unregister_fprobe);

#ifdef CONFIG_MODULES
typedef bool (*fprobe_in_module_t)(unsigned long addr, const struct module *mod);

/*
 * Drop the functions of @mod that @in selects from the filter of @ops.
 * ftrace has no call for that, so walk the filter under its regex_lock.
 * Return how many functions the filter keeps (0: the caller stops @ops
 * rather than leave it an empty filter, which means all functions), or
 * -errno if it could not be changed.
 */
static int fprobe_filter_drop_module(struct ftrace_ops *ops, struct module *mod,
				     fprobe_in_module_t in)
{
	struct ftrace_func_entry *entry;
	struct ftrace_hash *hash;
	unsigned long *ips;
	int i, n = 0, left;

	lockdep_assert_held(&fprobe_mutex);
	mutex_lock(&ops->func_hash->regex_lock);
	hash = rcu_dereference_protected(ops->func_hash->filter_hash,
					 lockdep_is_held(&ops->func_hash->regex_lock));
	left = hash->count;
	ips = kvcalloc(left, sizeof(*ips), GFP_KERNEL);
	for (i = 0; ips && i < 1 << hash->size_bits; i++) {
		hlist_for_each_entry(entry, &hash->buckets[i], hlist) {
			if (in(entry->ip, mod))
				ips[n++] = entry->ip;
		}
	}
	mutex_unlock(&ops->func_hash->regex_lock);
	if (!ips)
		return -ENOMEM;
	left -= n;
	if (n && left) {
		i = ftrace_set_filter_ips(ops, ips, n, 1, 0);
		if (i)
			left = i;
	}
	kvfree(ips);
	return left;
}

/* If its filter cannot be changed, @fp stops rather than probe a stale address. */
static void fprobe_drop_module_ops(struct fprobe *fp, struct module *mod,
				   fprobe_in_module_t in)
{
	int left;

	lockdep_assert_held(&fprobe_mutex);
	if (!(fp->hook.ops.flags & FTRACE_OPS_FL_ENABLED))
		return;
	left = fprobe_filter_drop_module(&fp->hook.ops, mod, in);
	if (left > 0)
		return;
	if (left < 0)
		pr_warn("fprobe on module %s stopped: its filter could not change (%d)\n",
			mod->name, left);
	unregister_ftrace_function(&fp->hook.ops);
}

static void fprobe_drop_module(struct module *mod, fprobe_in_module_t in)
{
	struct fprobe *fp;
	unsigned long id;

	lockdep_assert_held(&fprobe_mutex);
	xa_for_each(&fprobe_ids, id, fp)
		fprobe_drop_module_ops(fp, mod, in);
}

/*
 * A module's functions leave every fprobe when they go away: its init
 * functions once it is live (before ftrace forgets them), all of them when
 * it is unloaded. Nothing of them stays in an ftrace filter, where a
 * module loaded later at the same address would be
 * probed by handlers that never asked for it. The fprobes stay registered
 * on their other functions. (BPF links hold a reference on the modules
 * they probe.)
 */
static int fprobe_module_notify(struct notifier_block *nb, unsigned long val,
				void *data)
{
	struct module *mod = data;

	if (val != MODULE_STATE_GOING &&
	    (val != MODULE_STATE_LIVE || !mod->mem[MOD_INIT_TEXT].size))
		return NOTIFY_DONE;
	mutex_lock(&fprobe_mutex);
	fprobe_drop_module(mod, val == MODULE_STATE_LIVE ? within_module_init :
							   within_module);
	mutex_unlock(&fprobe_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block fprobe_module_nb = {
	.notifier_call = fprobe_module_notify,
};

static int __init fprobe_module_init(void)
{
	return register_module_notifier(&fprobe_module_nb);
}
#else
static inline int fprobe_module_init(void)
{
	return 0;
}
#endif

static int __init fprobe_init(void)
{
	return fprobe_module_init();
}
core_initcall(fprobe_init);
