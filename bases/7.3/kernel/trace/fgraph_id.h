/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keys that name, in a call's fgraph frame, the registration that entered
 * the call. See fgraph_id.c for the design and its rules.
 */
#ifndef _KERNEL_TRACE_FGRAPH_ID_H
#define _KERNEL_TRACE_FGRAPH_ID_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/types.h>
#include <asm/local.h>

/*
 * Bits 0-55 of a key are its id, whose bits 0-31 are never all 0; bits
 * 56-63 are the user's.
 */
#define FGRAPH_ID_MASK		GENMASK_ULL(55, 0)
#define FGRAPH_ID_USER_SHIFT	56
#define FGRAPH_ID_HASH_BITS	8

/**
 * struct fgraph_id - One registration's key
 * @hlist: In fgraph_id_table, while the key is registered.
 * @key: The key that the registration's frames hold; it never changes.
 * @owner: The user's object, which the key names.
 * @pending: Per CPU, the frames given the key less the returns that found it.
 * @rcu: Frees the key a grace period after fgraph_id_free_rcu().
 */
struct fgraph_id {
	struct hlist_node	hlist;
	u64			key;
	void			*owner;
	local_t __percpu	*pending;
	struct rcu_head		rcu;
};

extern struct hlist_head fgraph_id_table[1 << FGRAPH_ID_HASH_BITS];

struct fgraph_id *fgraph_id_alloc(void *owner, u8 user_bits);
void fgraph_id_withdraw(struct fgraph_id *fid);
unsigned long fgraph_id_free(struct fgraph_id *fid);
void fgraph_id_free_rcu(struct fgraph_id *fid);

/**
 * fgraph_id_find() - The registration whose key a frame holds
 * @key: The key read from the frame.
 *
 * Call it with preemption disabled, where RCU is watching. It calls
 * nothing, so that probe paths can use it.
 *
 * Return: the registration, or NULL if @key is not a registered one.
 */
static __always_inline struct fgraph_id *fgraph_id_find(u64 key)
{
	struct hlist_head *head;
	struct fgraph_id *fid;

	/* Ids are given in turn: their low bits spread them evenly */
	head = &fgraph_id_table[key & ((1 << FGRAPH_ID_HASH_BITS) - 1)];
	hlist_for_each_entry_rcu_notrace(fid, head, hlist) {
		if (fid->key == key)
			return fid;
	}
	return NULL;
}

/* A frame was given @fid's key: its return is pending. */
static __always_inline void fgraph_id_enter(struct fgraph_id *fid)
{
	local_inc(this_cpu_ptr(fid->pending));
}

/* A return found @fid by its key: it is no longer pending. */
static __always_inline void fgraph_id_exit(struct fgraph_id *fid)
{
	local_dec(this_cpu_ptr(fid->pending));
}

#endif /* _KERNEL_TRACE_FGRAPH_ID_H */
