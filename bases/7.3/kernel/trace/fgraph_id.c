// SPDX-License-Identifier: GPL-2.0
/*
 * fgraph ids: keys that name, in a call's frame, who entered the call
 *
 * A user of fgraph that shares one fgraph_ops among many objects of its
 * own, as fprobe does among the fprobes, writes in a call's frame which of
 * them took the call, so that its return reaches the same one. A pointer
 * serves only while the object lives and stays registered: an object
 * unregistered while a task sleeps in the function, then registered
 * again, or freed and another allocated at its address, would be given
 * the return of a call it never entered, with entry data it never wrote.
 * So the frame holds a key: a 56-bit id, which no other registration has
 * while this one lasts, nor has had since long before (a frame of a call
 * that never returns normally keeps its key for good), and 8 bits that the
 * user chooses (an entry data size, say), so that one compare checks both.
 *
 * fgraph_id_alloc() gives a registration its key and publishes it,
 * fgraph_id_find() finds the registration of a key at a return, and
 * fgraph_id_withdraw() makes the key unknown, so that the returns still to
 * come find nothing. Ids are given in turn, skipping those whose low 32
 * bits are 0 (a 32-bit user may end a list of keys with a 0 word) and
 * those in use, and the registered keys sit in an RCU hash table of 256
 * buckets indexed by the id's low bits, which a lookup walks inline,
 * calling nothing: registrations made in a row land in buckets of their
 * own.
 *
 * A registration counts, per CPU, the frames given its key less the
 * returns that found it (fgraph_id_enter(), fgraph_id_exit()). A grace
 * period after the withdrawal, the rest is the number of returns it will
 * never see: calls still running when it went, calls that never returned
 * normally, returns where RCU was not watching or that ftrace's recursion
 * protection refused. fgraph_id_free() gives that number to the user to
 * count as missed. The counts are local_t: cheap where an interrupt or NMI
 * cannot come between the read and the write of an increment, and atomic
 * elsewhere, but for a hard NMI on powerpc64 Book3S, whose local_t only
 * masks soft interrupts, which may lose a count.
 *
 * Locking: fgraph_id_lock serializes allocation and withdrawal, the
 * writers of the table. Readers run with preemption disabled (an RCU
 * read-side section) and take nothing. A key never changes, so that a
 * 32-bit reader cannot read it torn; a withdrawn one leaves the table at
 * once, and its memory stays until a grace period after the withdrawal:
 * fgraph_id_free() is called
 * after the user waited for one, fgraph_id_free_rcu() waits with
 * call_rcu(). The user must not free the owner before the readers that
 * may have found it are done either: a grace period after the withdrawal.
 */
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "fgraph_id.h"

struct hlist_head fgraph_id_table[1 << FGRAPH_ID_HASH_BITS];

static DEFINE_MUTEX(fgraph_id_lock);
static u64 fgraph_id_last;

static struct hlist_head *fgraph_id_bucket(u64 id)
{
	return &fgraph_id_table[id & ((1 << FGRAPH_ID_HASH_BITS) - 1)];
}

static bool fgraph_id_in_use(u64 id)
{
	struct fgraph_id *fid;

	hlist_for_each_entry(fid, fgraph_id_bucket(id), hlist) {
		if ((fid->key & FGRAPH_ID_MASK) == id)
			return true;
	}
	return false;
}

/**
 * fgraph_id_alloc() - Give a registration its key and publish it
 * @owner: The user's object, which fgraph_id_find() leads to.
 * @user_bits: Bits 56-63 of the key.
 *
 * Publish the key before the first frame can be given it, so that no
 * return of the registration misses it.
 *
 * Return: the registration's key, or ERR_PTR(-ENOMEM).
 */
struct fgraph_id *fgraph_id_alloc(void *owner, u8 user_bits)
{
	struct fgraph_id *fid;
	u64 id;

	fid = kzalloc_obj(*fid);
	if (!fid)
		return ERR_PTR(-ENOMEM);
	fid->pending = alloc_percpu(local_t);
	if (!fid->pending) {
		kfree(fid);
		return ERR_PTR(-ENOMEM);
	}
	fid->owner = owner;

	guard(mutex)(&fgraph_id_lock);
	/* Fewer keys are registered than there are ids: this ends */
	do {
		id = ++fgraph_id_last & FGRAPH_ID_MASK;
	} while (!lower_32_bits(id) || fgraph_id_in_use(id));
	fid->key = ((u64)user_bits << FGRAPH_ID_USER_SHIFT) | id;
	hlist_add_head_rcu(&fid->hlist, fgraph_id_bucket(id));
	return fid;
}

/**
 * fgraph_id_withdraw() - Make a registration's key unknown
 * @fid: The registration.
 *
 * The returns that look its key up from now on find nothing. Those that
 * found it already may still run until a grace period has passed.
 */
void fgraph_id_withdraw(struct fgraph_id *fid)
{
	guard(mutex)(&fgraph_id_lock);
	hlist_del_rcu(&fid->hlist);
}

static void fgraph_id_release(struct fgraph_id *fid)
{
	free_percpu(fid->pending);
	kfree(fid);
}

/**
 * fgraph_id_free() - Free a withdrawn key, and count the returns it missed
 * @fid: The registration, withdrawn a grace period ago or more.
 *
 * Return: the frames given the key whose return did not find it.
 */
unsigned long fgraph_id_free(struct fgraph_id *fid)
{
	long pending = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		pending += local_read(per_cpu_ptr(fid->pending, cpu));
	fgraph_id_release(fid);
	/* Below 0 only if an increment was lost (see above) */
	return pending > 0 ? pending : 0;
}

static void fgraph_id_free_cb(struct rcu_head *rcu)
{
	fgraph_id_release(container_of(rcu, struct fgraph_id, rcu));
}

/**
 * fgraph_id_free_rcu() - Free a withdrawn key after a grace period
 * @fid: The registration, withdrawn.
 *
 * For a user that cannot wait: the returns it missed are not counted.
 */
void fgraph_id_free_rcu(struct fgraph_id *fid)
{
	call_rcu(&fid->rcu, fgraph_id_free_cb);
}
