// SPDX-License-Identifier: GPL-2.0
/*
 * Classic kretprobes on the function graph tracer's shadow stack
 *
 * A kretprobe on a function's ftrace site enters through kprobes' ftrace_ops
 * like any such kprobe. Its pre-handler, pre_handler_kretprobe_fgraph(),
 * does not take a rethook instance: it hooks the call's return on the
 * fgraph shadow stack, for kretprobe_graph_ops, the one fgraph owner of
 * all kretprobes: with fgraph_hook_return() in one step, or, for a
 * kretprobe with an entry handler, which may refuse the return, with
 * fgraph_hook_enter() and fgraph_hook_commit() around it. It joins the frame that another
 * hook of the call pushed (the function graph tracer, an fprobe), or
 * pushes one, which they then join: a call is hooked once. Its instance
 * lives in its block in that frame:
 *
 *   block in the frame (struct kretprobe_fgraph_block), at most 256 bytes
 *   +------------------------------------+ <- lowest address
 *   | header: id | block words          |
 *   | the kretprobe                      |
 *   | struct kretprobe_instance          |   node.rethook is NULL
 *   |   data[data_size]                  |
 *   +------------------------------------+
 *
 *   header bits  0..31  KRETPROBE_HDR_ID     the kretprobe's id, never 0
 *   header bits 32..39  KRETPROBE_HDR_WORDS  the block's size in words
 *
 * So there is no pool, and no maxactive limit: a return is lost only when
 * the task's shadow stack is full (nmissed_stack), when its handler would
 * run while a kprobe runs (nmissed_recursion), or otherwise
 * (nmissed_other): RCU was not watching at the entry or at the return,
 * graph tracing was paused, or the kretprobe was unregistered while the
 * call was in progress. Each lost return is also counted in nmissed.
 *
 * At the return, fgraph gives kretprobe_fgraph_return() the block, with the
 * ftrace_regs of its return_to_handler; the return handler gets a pt_regs
 * made of them in place (arch_ftrace_return_regs_begin()), and runs as
 * the current kprobe, as it does on rethook; the return value it leaves
 * there is the call's, and the instruction pointer, the return address,
 * is what the other return callbacks of the frame get after it
 * (arch_ftrace_return_regs_end()).
 *
 * The header names the kretprobe by id, which comes from an allocating
 * xarray, cyclically: a return still pending when its kretprobe goes away
 * finds no kretprobe, not a new one at the same address. The return checks
 * that the block's kretprobe is the one the id names. A direct-mapped
 * cache of the ids spares most returns the xarray walk, which is
 * traceable. Each kretprobe counts per CPU the returns hooked minus the
 * returns that found it, and unregister adds what is left to nmissed_other.
 *
 * The kretprobes that stay on rethook (see kretprobe_fgraph_init()) are
 * those on an address without ftrace site (int3 kprobes), those whose data
 * does not fit the block (data_size over KRETPROBE_FGRAPH_DATA_MAX), those
 * registered while fgraph has no slot for kretprobe_graph_ops (or memory
 * is short), and all of them on architectures without
 * CONFIG_HAVE_KRETPROBE_FGRAPH.
 *
 * Locking: kretprobe_graph_mutex serializes the id space and the
 * registration of kretprobe_graph_ops. An id is published before
 * register_kprobe() arms the kretprobe, and withdrawn (unpublished) after
 * unregister disarms it and before it waits with synchronize_rcu(). The
 * pre-handler and the return run with preemption off, an RCU read-side
 * section; a return where RCU is not watching does not read the
 * kretprobe, and stays pending. So after that wait no handler holds the
 * kretprobe, and kretprobe_fgraph_release() can count and free.
 */
#include <linux/bitfield.h>
#include <linux/err.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/xarray.h>

#include "trace.h"

#define KRETPROBE_HDR_ID	GENMASK_ULL(31, 0)
#define KRETPROBE_HDR_WORDS	GENMASK_ULL(39, 32)

/* The largest data pouch that fits the block */
#define KRETPROBE_FGRAPH_DATA_MAX	\
	(FGRAPH_MAX_DATA_SIZE - sizeof(struct kretprobe_fgraph_block))

static_assert(FGRAPH_MAX_DATA_SIZE / sizeof(long) <= (KRETPROBE_HDR_WORDS >> 32));

static DEFINE_MUTEX(kretprobe_graph_mutex);
static DEFINE_XARRAY_ALLOC1(kretprobe_ids);
static u32 kretprobe_next_id;
/* the kretprobes on the shadow stack, which use kretprobe_graph_ops */
static unsigned long kretprobe_nr_fgraph;

/*
 * Slot id % KRETPROBE_ID_CACHE holds the last kretprobe registered with
 * such an id; a return checks that it is the block's, with the header.
 */
#define KRETPROBE_ID_CACHE	64
static struct kretprobe __rcu *kretprobe_id_cache[KRETPROBE_ID_CACHE];

/* Count a lost return of @rp in its @cause, and in nmissed as rethook does */
static __always_inline void kretprobe_fgraph_missed(struct kretprobe *rp,
						    atomic_long_t *cause)
{
	atomic_long_inc(cause);
	/* an int, racy as on rethook: the causes are the exact counts */
	data_race(rp->nmissed++);
}

/*
 * kretprobe_graph_ops hooks calls from the kretprobes' pre-handlers
 * (fgraph_hook_return(), fgraph_hook_enter()), and no ftrace_ops hands it
 * calls; it has an entry callback because an owner that hooks calls
 * itself has both.
 */
static int kretprobe_fgraph_entry(struct ftrace_graph_ent *trace, struct fgraph_ops *gops,
				  struct ftrace_ops *op, struct ftrace_regs *fregs,
				  void *data)
{
	WARN_ON_ONCE(1);
	return 0;
}

static void kretprobe_fgraph_return(struct ftrace_graph_ret *trace, struct fgraph_ops *gops,
				    struct ftrace_regs *fregs, void *data, int size);

/* Tasks get their shadow stack on their first probed call */
static struct fgraph_ops kretprobe_graph_ops = {
	.ops_entryfunc	= kretprobe_fgraph_entry,
	.ops_retfunc	= kretprobe_fgraph_return,
	.lazy_stacks	= true,
	.no_timestamps	= true,
};

/* The words of @rp's block: the header, the kretprobe, the instance */
static unsigned int kretprobe_fgraph_words(struct kretprobe *rp)
{
	return DIV_ROUND_UP(sizeof(struct kretprobe_fgraph_block) + rp->data_size,
			    sizeof(long));
}

/*
 * Fill @blk, @rp's block for a call whose return address is at @retp. The
 * instance's ret_addr is set at the return, before its handler runs.
 */
static __always_inline void kretprobe_fgraph_fill(struct kretprobe_fgraph_block *blk,
						  struct kretprobe *rp, u64 hdr,
						  unsigned long *retp)
{
	blk->hdr = hdr;
	blk->rp = rp;
	blk->ri.node.rethook = NULL;
	blk->ri.node.frame = (unsigned long)retp;
}

/* Count a return of @rp that fgraph did not hook, for the error @err */
static __always_inline void kretprobe_fgraph_refused(struct kretprobe *rp, long err)
{
	kretprobe_fgraph_missed(rp, err == -ENOSPC ? &rp->fgraph.nmissed_stack :
						     &rp->fgraph.nmissed_other);
}

/*
 * Hook the return for @rp, which has an entry handler, with blocks of
 * header @hdr: the handler sees its instance, filled, in its block, and
 * may refuse the return. Out of line: the others hook in one call.
 */
static noinline void kretprobe_fgraph_hook_entry(struct kretprobe *rp, struct pt_regs *regs,
						 u64 hdr, unsigned long *retp)
{
	struct kretprobe_fgraph_block *blk;
	/* fgraph_hook_enter() fills it in */
	struct fgraph_hook hook __uninitialized;
	bool keep;

	blk = fgraph_hook_enter(&kretprobe_graph_ops, &hook, (unsigned long)rp->kp.addr, retp,
				0, &rp->fgraph.size);
	if (IS_ERR(blk)) {
		kretprobe_fgraph_refused(rp, PTR_ERR(blk));
		return;
	}
	kretprobe_fgraph_fill(blk, rp, hdr, retp);
	blk->ri.node.ret_addr = hook.ret;
	keep = !rp->entry_handler(&blk->ri, regs);
	fgraph_hook_commit(&kretprobe_graph_ops, &hook, keep);
	if (keep)
		this_cpu_inc(*rp->fgraph.pending);
}

NOKPROBE_SYMBOL(kretprobe_fgraph_hook_entry);

/**
 * pre_handler_kretprobe_fgraph - the entry of a kretprobe on the shadow stack
 * @p: the kretprobe's kprobe
 * @regs: the registers at the entry
 *
 * Hooks the call's return on the shadow stack, with the instance in the
 * kretprobe's block there, and runs the entry handler, which may refuse
 * the return. Runs as a kprobe handler: current_kprobe is set, and
 * preemption is off.
 *
 * Return: 0, as kprobes expect of a handler that leaves the ip alone.
 */
int pre_handler_kretprobe_fgraph(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	unsigned long *retp = (unsigned long *)kernel_stack_pointer(regs);
	/* 0 once unregistering: its return would not find it */
	u64 hdr = READ_ONCE(rp->fgraph.hdr);
	struct kretprobe_fgraph_block *blk;

	if (unlikely(!hdr))
		return 0;
	/* no architecture with HAVE_KRETPROBE_FGRAPH tests the frame pointer */
	if (rp->entry_handler) {
		kretprobe_fgraph_hook_entry(rp, regs, hdr, retp);
		return 0;
	}
	blk = fgraph_hook_return(&kretprobe_graph_ops, (unsigned long)p->addr, retp, 0,
				 &rp->fgraph.size);
	if (IS_ERR(blk)) {
		kretprobe_fgraph_refused(rp, PTR_ERR(blk));
		return 0;
	}
	kretprobe_fgraph_fill(blk, rp, hdr, retp);
	this_cpu_inc(*rp->fgraph.pending);
	return 0;
}

NOKPROBE_SYMBOL(pre_handler_kretprobe_fgraph);

/*
 * The return address under a kretprobe on rethook that hooked the call
 * before this one's hook (their kprobes share the address, and its
 * pre-handler ran first): rethook's, which still holds the call.
 */
static noinline void kretprobe_fgraph_rethook_ip(struct pt_regs *regs,
						 struct kretprobe_fgraph_block *blk)
{
	struct llist_node *cur = NULL;
	unsigned long ip;

	ip = rethook_find_ret_addr(current, blk->ri.node.frame, &cur);
	if (ip)
		instruction_pointer_set(regs, ip);
}

NOKPROBE_SYMBOL(kretprobe_fgraph_rethook_ip);

/*
 * Run @rp's return handler for the instance in @blk, with the registers of
 * the return, as the current kprobe: not while a kprobe runs on this CPU.
 */
static __always_inline void kretprobe_fgraph_run(struct kretprobe *rp,
						 struct kretprobe_fgraph_block *blk,
						 struct ftrace_regs *fregs)
{
	struct pt_regs *regs;
	unsigned long ip;

	this_cpu_dec(*rp->fgraph.pending);
	if (unlikely(kprobe_running())) {
		kretprobe_fgraph_missed(rp, &rp->fgraph.nmissed_recursion);
		return;
	}
	if (!rp->handler)
		return;
	regs = arch_ftrace_return_regs_begin(fregs);
	if (unlikely(is_rethook_trampoline(instruction_pointer(regs))))
		kretprobe_fgraph_rethook_ip(regs, blk);
	/* the caller's address, also where the entry pushed over another hook's */
	ip = instruction_pointer(regs);
	blk->ri.node.ret_addr = ip;
	__this_cpu_write(current_kprobe, &rp->kp);
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
	/* as on rethook, the handler may change the return value */
	rp->handler(&blk->ri, regs);
	__this_cpu_write(current_kprobe, NULL);
	arch_ftrace_return_regs_end(fregs, ip);
}

/*
 * The kretprobe that the header @hdr names, if it is @want, from the
 * xarray: for a header whose id the cache does not hold. Under ftrace's
 * recursion protection, which lets a probe on what xa_load() calls fire
 * once more at most (its transition level): the return of a kretprobe
 * there comes back here, and its lookup no further.
 */
static noinline struct kretprobe *kretprobe_fgraph_lookup(u64 hdr, struct kretprobe *want)
{
	struct kretprobe *rp;
	int bit;

	bit = ftrace_test_recursion_trylock(_THIS_IP_, _RET_IP_);
	rp = xa_load(&kretprobe_ids, FIELD_GET(KRETPROBE_HDR_ID, hdr));
	if (bit >= 0)
		ftrace_test_recursion_unlock(bit);
	if (!rp || rp != want || READ_ONCE(rp->fgraph.hdr) != hdr)
		return NULL;
	return rp;
}

NOKPROBE_SYMBOL(kretprobe_fgraph_lookup);

/*
 * The return of a call that a kretprobe hooked: fgraph gives each block, of
 * @size bytes, that a kretprobe left in the call's frame, the last first,
 * with preemption off, and the ftrace_regs of the return (never NULL with
 * HAVE_FUNCTION_GRAPH_FREGS), whose instruction pointer is the return
 * address. Where RCU is watching, the kretprobe is looked up, and its
 * handler run, if it is still registered.
 */
static void kretprobe_fgraph_return(struct ftrace_graph_ret *trace, struct fgraph_ops *gops,
				    struct ftrace_regs *fregs, void *data, int size)
{
	struct kretprobe_fgraph_block *blk = data;
	struct kretprobe *rp, *cached;
	u64 hdr = blk->hdr;

	/* synchronize_rcu() at unregister does not wait: it stays pending */
	if (unlikely(!ftrace_rcu_is_watching()))
		return;
	/*
	 * A block of an earlier owner of the slot, which comes here only on
	 * 32-bit, is not a header and the data of the size it gives. On
	 * 64-bit, the block is one that the pre-handler filled, and the
	 * kretprobe is found only for its header, size included.
	 */
	if (!IS_ENABLED(CONFIG_64BIT) &&
	    unlikely(size != FIELD_GET(KRETPROBE_HDR_WORDS, hdr) * sizeof(long)))
		return;
	/*
	 * No lockdep check: rcu_read_lock_sched_held() is traceable, and its
	 * return would come back here, nested, with nothing to stop it
	 */
	cached = rcu_dereference_raw_check(kretprobe_id_cache[FIELD_GET(KRETPROBE_HDR_ID, hdr) %
							      KRETPROBE_ID_CACHE]);
	/*
	 * The block's kretprobe is read only once the cache names it; on
	 * 32-bit, a block of another owner may name none, nor find one
	 */
	rp = blk->rp;
	if (unlikely((!IS_ENABLED(CONFIG_64BIT) && !cached) || rp != cached ||
		     READ_ONCE(rp->fgraph.hdr) != hdr)) {
		rp = kretprobe_fgraph_lookup(hdr, blk->rp);
		if (!rp)
			return;
	}
	kretprobe_fgraph_run(rp, blk, fregs);
}

NOKPROBE_SYMBOL(kretprobe_fgraph_return);

/* kretprobe_graph_ops is registered while a kretprobe on the shadow stack is */
static int kretprobe_graph_get(void)
{
	int ret;

	lockdep_assert_held(&kretprobe_graph_mutex);
	if (kretprobe_nr_fgraph++)
		return 0;
	ret = register_ftrace_graph(&kretprobe_graph_ops);
	if (ret)
		kretprobe_nr_fgraph--;
	return ret;
}

static void kretprobe_graph_put(void)
{
	lockdep_assert_held(&kretprobe_graph_mutex);
	if (!--kretprobe_nr_fgraph)
		unregister_ftrace_graph(&kretprobe_graph_ops);
}

/* Give @rp an id, and its header, before its kprobe is armed */
static int kretprobe_fgraph_publish(struct kretprobe *rp)
{
	u32 id;
	int ret;

	lockdep_assert_held(&kretprobe_graph_mutex);
	ret = xa_alloc_cyclic(&kretprobe_ids, &id, rp, xa_limit_32b, &kretprobe_next_id,
			      GFP_KERNEL);
	if (ret < 0)
		return ret;
	WRITE_ONCE(rp->fgraph.hdr, FIELD_PREP(KRETPROBE_HDR_ID, id) |
				   FIELD_PREP(KRETPROBE_HDR_WORDS, kretprobe_fgraph_words(rp)));
	rcu_assign_pointer(kretprobe_id_cache[id % KRETPROBE_ID_CACHE], rp);
	return 0;
}

/**
 * kretprobe_fgraph_init - set up a kretprobe to take its returns on the shadow stack
 * @rp: the kretprobe, not yet registered
 * @addr: the address its kprobe will have
 *
 * Does so if @addr is a function's ftrace site, so that the kprobe enters
 * through ftrace, and the data pouch fits the block; and then sets the
 * kprobe's pre-handler. The kretprobe's causes of misses start at 0, and
 * until this succeeds, the kretprobe is not on the shadow stack.
 *
 * Return: 0; -EOPNOTSUPP if the kretprobe does not qualify; -ENOMEM, or an
 * error from fgraph's registration (-ENOSPC: no fgraph slot is free).
 * The kretprobe may use rethook instead in every case.
 */
int kretprobe_fgraph_init(struct kretprobe *rp, unsigned long addr)
{
	unsigned long __percpu *pending;
	int ret;

	/* whatever the struct held, from an earlier registration or a copy */
	rp->fgraph.pending = NULL;
	rp->fgraph.hdr = 0;
	atomic_long_set(&rp->fgraph.nmissed_stack, 0);
	atomic_long_set(&rp->fgraph.nmissed_recursion, 0);
	atomic_long_set(&rp->fgraph.nmissed_other, 0);
	if (rp->data_size > KRETPROBE_FGRAPH_DATA_MAX || ftrace_location(addr) != addr)
		return -EOPNOTSUPP;
	ret = fgraph_block_size_init(&rp->fgraph.size, kretprobe_fgraph_words(rp) * sizeof(long));
	if (WARN_ON_ONCE(ret))
		return ret;
	pending = alloc_percpu(unsigned long);
	if (!pending)
		return -ENOMEM;
	mutex_lock(&kretprobe_graph_mutex);
	ret = kretprobe_graph_get();
	if (!ret) {
		ret = kretprobe_fgraph_publish(rp);
		if (ret)
			kretprobe_graph_put();
	}
	mutex_unlock(&kretprobe_graph_mutex);
	if (ret) {
		free_percpu(pending);
		return ret;
	}
	WRITE_ONCE(rp->fgraph.pending, pending);
	rp->kp.pre_handler = pre_handler_kretprobe_fgraph;
	return 0;
}

/**
 * kretprobe_fgraph_unpublish - take back the id of a disarmed kretprobe
 * @rp: a kretprobe on the shadow stack, whose kprobe is disarmed
 *
 * Its pending returns then find no kretprobe, once the pre-handlers and
 * returns still running are done (after synchronize_rcu()).
 */
void kretprobe_fgraph_unpublish(struct kretprobe *rp)
{
	u32 id = FIELD_GET(KRETPROBE_HDR_ID, rp->fgraph.hdr);

	mutex_lock(&kretprobe_graph_mutex);
	xa_erase(&kretprobe_ids, id);
	if (rcu_access_pointer(kretprobe_id_cache[id % KRETPROBE_ID_CACHE]) == rp)
		RCU_INIT_POINTER(kretprobe_id_cache[id % KRETPROBE_ID_CACHE], NULL);
	WRITE_ONCE(rp->fgraph.hdr, 0);
	mutex_unlock(&kretprobe_graph_mutex);
}

/**
 * kretprobe_fgraph_release - count and free what an unregistered kretprobe kept
 * @rp: a kretprobe on the shadow stack, unpublished, with no handler running
 *
 * The returns still pending are counted as missed (nmissed_other).
 */
void kretprobe_fgraph_release(struct kretprobe *rp)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += *per_cpu_ptr(rp->fgraph.pending, cpu);
	if (n > 0) {
		atomic_long_add(n, &rp->fgraph.nmissed_other);
		rp->nmissed += n;
	}
	free_percpu(rp->fgraph.pending);
	WRITE_ONCE(rp->fgraph.pending, NULL);
	mutex_lock(&kretprobe_graph_mutex);
	kretprobe_graph_put();
	mutex_unlock(&kretprobe_graph_mutex);
}
