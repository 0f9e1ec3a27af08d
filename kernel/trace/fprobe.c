// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe - probe function entries and exits on the function graph tracer
 *
 * The fprobes with an exit handler share one fgraph_ops. Its filter is the
 * union of their addresses, and an rhltable maps each address to the
 * fprobes on it. On entry, one block of the task's fgraph shadow stack is
 * reserved for all the fprobes of the function; each gets a header word
 * followed by its entry data:
 *
 *   fgraph_reserve_data() block, at most FPROBE_RESERVE_WORDS words
 *   +--------------------------------+ <- lowest address
 *   | header: id | data words        |  fprobe A
 *   | A's entry data (n words)       |
 *   +--------------------------------+
 *   | header: id | data words        |  fprobe B
 *   | B's entry data (m words)       |
 *   +--------------------------------+
 *   | 0 (end), if the block has room |
 *   +--------------------------------+
 *
 *   header bits  0..31  FPROBE_HDR_ID    the fprobe's id, never 0
 *   header bits 32..39  FPROBE_HDR_SIZE  entry data size in words
 *
 * An fprobe whose entry handler returns nonzero gets no header, so its exit
 * is skipped at no cost. The fprobes on a function never need more than
 * one reservation: one that would not fit is refused at registration.
 * When the task's stack has no room, each fprobe counts the call in its
 * nmissed_stack.
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
 * An fprobe with only an entry handler needs nothing on the shadow stack.
 * It gets an ftrace_ops of its own instead, whose callback ftrace calls
 * with the fprobe at hand: no fgraph frame and no table lookup per call.
 *
 * The exit side trusts a header only as far as its block goes: it stops at
 * a header whose data would run past the block, or whose size is not the
 * entry data size of the fprobe it names.
 *
 * A module going away takes its functions out of every fprobe (see
 * fprobe_module_notify()), so that no filter or table entry outlives them.
 *
 * Locking: fprobe_mutex serializes registration, unregistration and module
 * removal: the address table, the fgraph filter, the id space, and the
 * test of fp->id that tells whether an fprobe is registered. An fprobe's
 * id is published before its first node, so that no header is ever
 * written without one.
 * The handlers run with preemption off (under
 * ftrace_test_recursion_trylock() or in fgraph's return), which is an RCU
 * read-side section: unregister_fprobe() waits for them with
 * synchronize_rcu() before it frees anything. The entry takes
 * rcu_read_lock() as well, for rhashtable's checks; the exit, which reads
 * only the id cache and the xarray, does without. That wait covers only
 * handlers that run where RCU is watching. fgraph enters its owners only
 * there, but a call may return where RCU is not: such an exit stays
 * pending, to be counted in nmissed_other at unregister. The ftrace_ops of an
 * fprobe without exit handler returns at once where RCU is not watching,
 * counting the call in nmissed_other.
 */
#define pr_fmt(fmt) "fprobe: " fmt

#include <linux/bitfield.h>
#include <linux/err.h>
#include <linux/fprobe.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/xarray.h>

#include "trace.h"

#define FPROBE_HDR_ID		GENMASK_ULL(31, 0)
#define FPROBE_HDR_SIZE		GENMASK_ULL(39, 32)
#define FPROBE_HDR_WORDS	(sizeof(u64) / sizeof(long))
#define FPROBE_DATA_WORDS_MAX	(FPROBE_DATA_SIZE_MAX / sizeof(long))
/* fgraph_reserve_data() gives at most 32 words to a function */
#define FPROBE_RESERVE_WORDS	32

static_assert(FPROBE_DATA_WORDS_MAX <= (FPROBE_HDR_SIZE >> 32));
static_assert(FPROBE_HDR_WORDS + FPROBE_DATA_WORDS_MAX <= FPROBE_RESERVE_WORDS);

/*
 * One probed address of one fprobe. @fp is set once and stays valid for
 * the RCU readers of the table; @linked, read and written under
 * fprobe_mutex only, says whether the node is in the table (a repeated
 * address is not, nor is one whose module went away).
 */
struct fprobe_node {
	struct rhlist_head	head;
	unsigned long		addr;
	struct fprobe		*fp;
	bool			linked;
};

/*
 * Every probed call hashes its address: one multiplication does, where
 * rhashtable's default, jhash2, takes tens of instructions.
 */
static u32 fprobe_addr_hash(const void *data, u32 len, u32 seed)
{
	return hash_long(*(const unsigned long *)data ^ seed, 32);
}

/* and compares it inline, where rhashtable's default calls memcmp() */
static int fprobe_addr_cmp(struct rhashtable_compare_arg *arg, const void *obj)
{
	const struct fprobe_node *node = obj;

	return node->addr != *(const unsigned long *)arg->key;
}

static const struct rhashtable_params fprobe_rht_params = {
	.head_offset		= offsetof(struct fprobe_node, head),
	.key_offset		= offsetof(struct fprobe_node, addr),
	.key_len		= sizeof_field(struct fprobe_node, addr),
	.hashfn			= fprobe_addr_hash,
	.obj_cmpfn		= fprobe_addr_cmp,
	.automatic_shrinking	= true,
};

static DEFINE_MUTEX(fprobe_mutex);
static struct rhltable fprobe_ip_table;
static DEFINE_XARRAY_ALLOC1(fprobe_ids);

/*
 * Every exit looks its fprobes up by id. In front of the xarray walk sits
 * a direct-mapped cache: slot id % FPROBE_ID_CACHE holds the last fprobe
 * registered with such an id. A reader checks the id it finds there, so a
 * slot that a newer fprobe took only sends it on to the xarray. Slots are
 * cleared before unregister_fprobe() waits for RCU readers.
 */
#define FPROBE_ID_CACHE		64
static struct fprobe __rcu *fprobe_id_cache[FPROBE_ID_CACHE];

static __always_inline struct fprobe *fprobe_from_id(u32 id)
{
	struct fprobe *fp = rcu_dereference_sched(fprobe_id_cache[id % FPROBE_ID_CACHE]);

	if (likely(fp && READ_ONCE(fp->id) == id))
		return fp;
	return xa_load(&fprobe_ids, id);
}

static u32 fprobe_next_id;
/* the nodes in the table, and whether fprobe_graph_ops is registered */
static unsigned long fprobe_nr_linked;
static bool fprobe_graph_on;

static int fprobe_entry(struct ftrace_graph_ent *trace, struct fgraph_ops *gops,
			struct ftrace_regs *fregs);
static void fprobe_return(struct ftrace_graph_ret *trace, struct fgraph_ops *gops,
			  struct ftrace_regs *fregs);
static void fprobe_missed(unsigned long func, struct fgraph_ops *gops,
			  enum fgraph_miss why);

/*
 * Tasks get their shadow stack on their first probed call: the tasks that
 * never run a probed function need none, and a call that finds no stack
 * left is counted in nmissed_stack like one that finds it full.
 */
static struct fgraph_ops fprobe_graph_ops = {
	.entryfunc	= fprobe_entry,
	.retfunc	= fprobe_return,
	.missfunc	= fprobe_missed,
	.lazy_stacks	= true,
	.no_timestamps	= true,
};

static __always_inline int fprobe_data_words(struct fprobe *fp)
{
	return DIV_ROUND_UP(fp->entry_data_size, sizeof(long));
}

/*
 * Run an entry handler. A handler shared with kprobes must not run while a
 * kprobe runs, and must look like one to them (see fprobe.rst).
 */
static __always_inline int fprobe_call_entry(struct fprobe *fp, unsigned long ip,
					     unsigned long ret_ip,
					     struct ftrace_regs *fregs, void *data)
{
	int ret;

	if (!fprobe_shared_with_kprobes(fp))
		return fp->entry_handler(fp, ip, ret_ip, fregs, data);
	if (unlikely(kprobe_running())) {
		atomic_long_inc(&fp->nmissed_recursion);
		return 1;
	}
	kprobe_busy_begin();
	ret = fp->entry_handler(fp, ip, ret_ip, fregs, data);
	kprobe_busy_end();
	return ret;
}

/*
 * The room the exit side of this call may need on the shadow stack, in
 * words: never more than FPROBE_RESERVE_WORDS, see fprobe_add_nodes().
 * Disabled fprobes count too: one enabled before the walk that writes the
 * headers must find its room, or another fprobe would lose the call.
 */
static int fprobe_exit_words(struct rhlist_head *list)
{
	struct fprobe_node *node;
	struct rhlist_head *pos;
	int words = 0;

	rhl_for_each_entry_rcu(node, pos, list, head)
		words += FPROBE_HDR_WORDS + fprobe_data_words(node->fp);
	return min(words, FPROBE_RESERVE_WORDS);
}

/* The ftrace_ops callback of an fprobe without exit handler. */
static void fprobe_ftrace_entry(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct fprobe *fp = container_of(ops, struct fprobe, ops);
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

/*
 * The return address of the call fgraph is about to hook: still in place
 * while its entry callbacks run, and in the frame fgraph pushed for it.
 */
static __always_inline unsigned long fprobe_entry_ret_ip(struct ftrace_regs *fregs)
{
#ifdef ftrace_regs_get_return_address
	return ftrace_regs_get_return_address(fregs);
#else
	return ftrace_graph_get_ret_stack(current, 0)->ret;
#endif
}

static int fprobe_entry(struct ftrace_graph_ent *trace, struct fgraph_ops *gops,
			struct ftrace_regs *fregs)
{
	unsigned long ip = trace->func, ret_ip, *block = NULL;
	struct fprobe_node *node;
	struct rhlist_head *list, *pos;
	int used = 0, size = 0;

	/* FPROBE needs an architecture that hands fgraph its registers */
	if (WARN_ON_ONCE(!fregs))
		return 0;

	rcu_read_lock();
	list = rhltable_lookup(&fprobe_ip_table, &ip, fprobe_rht_params);
	if (!list)
		goto out;
	ret_ip = fprobe_entry_ret_ip(fregs);
	size = fprobe_exit_words(list);
	if (size) {
		block = fgraph_reserve_data(gops->idx, size * sizeof(long));
		if (!block)
			size = 0;
	}

	rhl_for_each_entry_rcu(node, pos, list, head) {
		struct fprobe *fp = node->fp;
		int words;
		u32 id;

		if (fprobe_disabled(fp))
			continue;
		/* unregistering: its exit would not find it */
		id = READ_ONCE(fp->id);
		if (unlikely(!id))
			continue;
		words = fprobe_data_words(fp);
		if (used + FPROBE_HDR_WORDS + words > size) {
			atomic_long_inc(&fp->nmissed_stack);
			continue;
		}
		if (fp->entry_handler &&
		    fprobe_call_entry(fp, ip, ret_ip, fregs,
				      words ? block + used + FPROBE_HDR_WORDS : NULL))
			continue;
		*(u64 *)(block + used) = FIELD_PREP(FPROBE_HDR_ID, id) |
					 FIELD_PREP(FPROBE_HDR_SIZE, words);
		local_inc(this_cpu_ptr(fp->pending));
		used += FPROBE_HDR_WORDS + words;
	}
	if (used && used + FPROBE_HDR_WORDS <= size)
		*(u64 *)(block + used) = 0;
out:
	rcu_read_unlock();
	return used != 0;
}

NOKPROBE_SYMBOL(fprobe_entry);

static void fprobe_return(struct ftrace_graph_ret *trace, struct fgraph_ops *gops,
			  struct ftrace_regs *fregs)
{
	unsigned long ip = trace->func, ret_ip, *block;
	int used = 0, size, bit;

	/*
	 * fgraph gives a return only to an owner of the slot that entered
	 * the call, except on 32-bit, where it keeps no epoch: there a frame
	 * that an earlier owner pushed can come here, and if it carries no
	 * data under this slot, there is nothing to call. On 64-bit, a frame
	 * of fprobe's always has its data.
	 */
	block = fgraph_retrieve_data(gops->idx, &size);
	if (!block) {
		WARN_ON_ONCE(IS_ENABLED(CONFIG_64BIT));
		return;
	}
	if (WARN_ON_ONCE(!fregs))
		return;
	/*
	 * synchronize_rcu() in unregister_fprobe() does not wait for us, so
	 * no fprobe can be looked up: the headers stay pending
	 */
	if (unlikely(!ftrace_rcu_is_watching()))
		return;
	size /= sizeof(long);
	ret_ip = ftrace_regs_get_instruction_pointer(fregs);

	bit = ftrace_test_recursion_trylock(ip, ret_ip);
	while (used + FPROBE_HDR_WORDS <= size) {
		u64 hdr = *(u64 *)(block + used);
		int words = FIELD_GET(FPROBE_HDR_SIZE, hdr);
		struct fprobe *fp;

		/* the end, or a header that its block cannot hold */
		if (!hdr || used + FPROBE_HDR_WORDS + words > size)
			break;
		fp = fprobe_from_id(FIELD_GET(FPROBE_HDR_ID, hdr));
		/* not the data that this fprobe's entry stores: not its frame */
		if (fp && (words != fprobe_data_words(fp) || !fp->exit_handler))
			break;
		used += FPROBE_HDR_WORDS + words;
		if (!fp)
			continue;
		local_dec(this_cpu_ptr(fp->pending));
		/* an entry that ran gets its exit, even if @fp was disabled since */
		if (bit < 0)
			atomic_long_inc(&fp->nmissed_recursion);
		else
			fp->exit_handler(fp, ip, ret_ip, fregs,
					 words ? block + used - words : NULL);
	}
	if (bit >= 0)
		ftrace_test_recursion_unlock(bit);
}

NOKPROBE_SYMBOL(fprobe_return);

/* fgraph could not hook a call to @func: every fprobe on it lost the call. */
static void fprobe_missed(unsigned long func, struct fgraph_ops *gops,
			  enum fgraph_miss why)
{
	struct fprobe_node *node;
	struct rhlist_head *list, *pos;

	if (unlikely(!rcu_is_watching()))
		return;
	rcu_read_lock();
	list = rhltable_lookup(&fprobe_ip_table, &func, fprobe_rht_params);
	rhl_for_each_entry_rcu(node, pos, list, head) {
		struct fprobe *fp = node->fp;

		/* as fprobe_entry(): not when disabled, nor once unregistering */
		if (fprobe_disabled(fp) || !READ_ONCE(fp->id))
			continue;
		switch (why) {
		case FGRAPH_MISS_STACK:
			atomic_long_inc(&fp->nmissed_stack);
			break;
		case FGRAPH_MISS_RECURSION:
			atomic_long_inc(&fp->nmissed_recursion);
			break;
		default:
			atomic_long_inc(&fp->nmissed_other);
		}
	}
	rcu_read_unlock();
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

static bool fprobe_addr_in_use(unsigned long addr)
{
	lockdep_assert_held(&fprobe_mutex);
	guard(rcu)();
	return rhltable_lookup(&fprobe_ip_table, &addr, fprobe_rht_params);
}

/*
 * The words that the fprobes on @addr reserve per call, or -1 if @fp is
 * one of them already (a repeated address).
 */
static int fprobe_addr_words(struct fprobe *fp, unsigned long addr)
{
	struct rhlist_head *list, *pos;
	struct fprobe_node *node;
	int words = 0;

	lockdep_assert_held(&fprobe_mutex);
	guard(rcu)();
	list = rhltable_lookup(&fprobe_ip_table, &addr, fprobe_rht_params);
	rhl_for_each_entry_rcu(node, pos, list, head) {
		if (node->fp == fp)
			return -1;
		words += FPROBE_HDR_WORDS + fprobe_data_words(node->fp);
	}
	return words;
}

/* Empty the filter of the (unregistered) fgraph_ops, ready for reuse. */
static void fprobe_clear_filter(void)
{
	ftrace_set_filter_ips(&fprobe_graph_ops.ops, NULL, 0, 0, 1);
}

static void fprobe_unlink_node(struct fprobe_node *node)
{
	lockdep_assert_held(&fprobe_mutex);
	if (!node->linked)
		return;
	rhltable_remove(&fprobe_ip_table, &node->head, fprobe_rht_params);
	node->linked = false;
	fprobe_nr_linked--;
}

static void fprobe_unlink_nodes(struct fprobe *fp, int nr)
{
	int i;

	lockdep_assert_held(&fprobe_mutex);
	for (i = 0; i < nr; i++)
		fprobe_unlink_node(&fp->nodes[i]);
}

/*
 * An empty filter means "all functions": once no node is left, stop the
 * fgraph_ops before its filter empties. True if it was stopped.
 */
static bool fprobe_stop_graph_if_unused(void)
{
	lockdep_assert_held(&fprobe_mutex);
	if (!fprobe_graph_on || fprobe_nr_linked)
		return false;
	unregister_ftrace_graph(&fprobe_graph_ops);
	fprobe_clear_filter();
	fprobe_graph_on = false;
	return true;
}

/* Unlink the nodes of @fp and drop from the filter the addresses now unused. */
static void fprobe_remove_nodes(struct fprobe *fp)
{
	unsigned long *unused;
	int i, n = 0;

	lockdep_assert_held(&fprobe_mutex);
	/* Without memory for the list, unused addresses stay in the filter:
	 * their calls find no fprobe and cost one lookup each.
	 */
	unused = kvcalloc(fp->nr_nodes, sizeof(*unused), GFP_KERNEL);
	for (i = 0; i < fp->nr_nodes; i++) {
		struct fprobe_node *node = &fp->nodes[i];

		if (!node->linked)
			continue;
		fprobe_unlink_node(node);
		if (unused && !fprobe_addr_in_use(node->addr))
			unused[n++] = node->addr;
	}
	if (!fprobe_stop_graph_if_unused() && n)
		ftrace_set_filter_ips(&fprobe_graph_ops.ops, unused, n, 1, 0);
	kvfree(unused);
}

/*
 * The fprobes on a function share one reservation of FPROBE_RESERVE_WORDS
 * per call. An fprobe that does not fit next to those already on one of
 * its functions is refused (-ENOSPC): they keep their room, and no call is
 * ever lost for want of it.
 */
static int fprobe_add_nodes(struct fprobe *fp, unsigned long *addrs, int num)
{
	int i, ret, words, need = FPROBE_HDR_WORDS + fprobe_data_words(fp);

	lockdep_assert_held(&fprobe_mutex);
	for (i = 0; i < num; i++) {
		struct fprobe_node *node = &fp->nodes[i];

		/* fgraph reports the ftrace location, which may follow an ENDBR */
		node->addr = ftrace_location(addrs[i]);
		ret = node->addr ? fprobe_check_module(node->addr) : -EINVAL;
		if (ret)
			goto out_unlink;
		words = fprobe_addr_words(fp, node->addr);
		/* a repeated address is probed once, as by an ftrace filter */
		if (words < 0)
			continue;
		ret = -ENOSPC;
		if (words + need > FPROBE_RESERVE_WORDS)
			goto out_unlink;
		node->fp = fp;
		ret = rhltable_insert(&fprobe_ip_table, &node->head, fprobe_rht_params);
		if (ret)
			goto out_unlink;
		node->linked = true;
		fprobe_nr_linked++;
	}
	ret = ftrace_set_filter_ips(&fprobe_graph_ops.ops, addrs, num, 0, 0);
	if (ret)
		goto out_unlink;
	if (!fprobe_graph_on) {
		ret = register_ftrace_graph(&fprobe_graph_ops);
		if (ret) {
			fprobe_clear_filter();
			goto out_unlink;
		}
		fprobe_graph_on = true;
	}
	return 0;

out_unlink:
	fprobe_unlink_nodes(fp, i);
	return ret;
}

static int fprobe_add_ops(struct fprobe *fp, unsigned long *addrs, int num)
{
	int i, ret;

	for (i = 0; i < num; i++) {
		if (!ftrace_location(addrs[i]))
			return -EINVAL;
		ret = fprobe_check_module(addrs[i]);
		if (ret)
			return ret;
	}
	/* a new registration, or one after unregister_fprobe() */
	memset(&fp->ops, 0, sizeof(fp->ops));
	fp->ops.func = fprobe_ftrace_entry;
	fp->ops.flags = FTRACE_OPS_FL_SAVE_ARGS;
	ret = ftrace_set_filter_ips(&fp->ops, addrs, num, 0, 0);
	if (!ret)
		ret = register_ftrace_function(&fp->ops);
	if (ret)
		ftrace_free_filter(&fp->ops);
	return ret;
}

static void fprobe_remove_ops(struct fprobe *fp)
{
	/* not if the modules of all its functions went away */
	if (fp->ops.flags & FTRACE_OPS_FL_ENABLED)
		unregister_ftrace_function(&fp->ops);
	ftrace_free_filter(&fp->ops);
}

/* Give @fp an id, published before any node can write it into a header. */
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
	if (fp->exit_handler)
		rcu_assign_pointer(fprobe_id_cache[id % FPROBE_ID_CACHE], fp);
	return 0;
}

/* Take @fp's id back: its pending exits then find no fprobe. */
static void fprobe_withdraw_id(struct fprobe *fp)
{
	lockdep_assert_held(&fprobe_mutex);
	xa_erase(&fprobe_ids, fp->id);
	if (rcu_access_pointer(fprobe_id_cache[fp->id % FPROBE_ID_CACHE]) == fp)
		RCU_INIT_POINTER(fprobe_id_cache[fp->id % FPROBE_ID_CACHE], NULL);
	WRITE_ONCE(fp->id, 0);
}

static void fprobe_free_nodes(struct fprobe *fp)
{
	kvfree(fp->nodes);
	fp->nodes = NULL;
	fp->nr_nodes = 0;
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
 * The id goes first: an entry that finds one of the new nodes writes the id
 * into its header, and the exit side stops at a zero header, so a node seen
 * before its id would cost every older fprobe on the function its exit.
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
		fp->nodes = kvcalloc(num, sizeof(*fp->nodes), GFP_KERNEL);
		fp->pending = alloc_percpu(local_t);
		ret = -ENOMEM;
		if (!fp->nodes || !fp->pending)
			goto out_free_nodes;
		fp->nr_nodes = num;
	}
	atomic_long_set(&fp->nmissed_stack, 0);
	atomic_long_set(&fp->nmissed_recursion, 0);
	atomic_long_set(&fp->nmissed_other, 0);

	ret = fprobe_publish_id(fp);
	if (ret)
		goto out_free_nodes;
	ret = fp->nodes ? fprobe_add_nodes(fp, addrs, num) : fprobe_add_ops(fp, addrs, num);
	if (ret) {
		fprobe_withdraw_id(fp);
		/* entries that found a node of @fp before it was unlinked */
		if (fp->nodes)
			synchronize_rcu();
		goto out_free_nodes;
	}
	return 0;

out_free_nodes:
	fprobe_free_nodes(fp);
	/* the exits of the entries that ran meanwhile are lost: count them */
	if (fp->pending)
		fprobe_count_pending(fp);
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
 * module that is being unloaded, -ENOSPC if
 * the entry data of @fp does not fit next to that of the fprobes already on
 * one of the functions (see "Entry data and limits" in fprobe.rst), -ENOMEM.
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
	struct fprobe_node *nodes;

	if (!fp)
		return -EINVAL;

	mutex_lock(&fprobe_mutex);
	/* checked under the mutex: a second caller must not undo twice */
	if (!fp->id) {
		mutex_unlock(&fprobe_mutex);
		return -EINVAL;
	}
	fprobe_withdraw_id(fp);
	if (fp->nodes)
		fprobe_remove_nodes(fp);
	else
		fprobe_remove_ops(fp);
	nodes = fp->nodes;
	fp->nodes = NULL;
	fp->nr_nodes = 0;
	mutex_unlock(&fprobe_mutex);

	/* handlers still running with @fp in hand */
	synchronize_rcu();
	kvfree(nodes);
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

static void fprobe_drop_module_nodes(struct fprobe *fp, struct module *mod,
				     fprobe_in_module_t in)
{
	int i;

	lockdep_assert_held(&fprobe_mutex);
	for (i = 0; i < fp->nr_nodes; i++) {
		if (in(fp->nodes[i].addr, mod))
			fprobe_unlink_node(&fp->nodes[i]);
	}
}

/* If its filter cannot be changed, @fp stops rather than probe a stale address. */
static void fprobe_drop_module_ops(struct fprobe *fp, struct module *mod,
				   fprobe_in_module_t in)
{
	int left;

	lockdep_assert_held(&fprobe_mutex);
	if (!(fp->ops.flags & FTRACE_OPS_FL_ENABLED))
		return;
	left = fprobe_filter_drop_module(&fp->ops, mod, in);
	if (left > 0)
		return;
	if (left < 0)
		pr_warn("fprobe on module %s stopped: its filter could not change (%d)\n",
			mod->name, left);
	unregister_ftrace_function(&fp->ops);
}

static void fprobe_drop_module(struct module *mod, fprobe_in_module_t in)
{
	struct fprobe *fp;
	unsigned long id;
	int left;

	lockdep_assert_held(&fprobe_mutex);
	xa_for_each(&fprobe_ids, id, fp) {
		if (fp->nodes)
			fprobe_drop_module_nodes(fp, mod, in);
		else
			fprobe_drop_module_ops(fp, mod, in);
	}
	if (fprobe_stop_graph_if_unused() || !fprobe_graph_on)
		return;
	left = fprobe_filter_drop_module(&fprobe_graph_ops.ops, mod, in);
	/* calls there cost a table lookup that finds nothing */
	if (left < 0)
		pr_warn("module %s: its functions stay in the fgraph filter (%d)\n",
			mod->name, left);
}

/*
 * A module's functions leave every fprobe when they go away: its init
 * functions once it is live (before ftrace forgets them), all of them when
 * it is unloaded. Nothing of them stays in the address table or in an
 * ftrace filter, where a module loaded later at the same address would be
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
	int ret = rhltable_init(&fprobe_ip_table, &fprobe_rht_params);

	return ret ?: fprobe_module_init();
}
core_initcall(fprobe_init);
