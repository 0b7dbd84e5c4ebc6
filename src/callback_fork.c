/* SPDX-License-Identifier: MIT */
/*
 * Callbacks across fork(): the handlers that hold the callback locks over
 * fork() and rebuild the queue and the backlog in the child.
 *
 * Protocol (callback.c invariants 11 to 14).  The child has only the
 * forking thread and a copy of memory.  The prepare handler takes
 * rcb__cb_lock, then rcb__cb_splice_lock, so that the copy holds no
 * half-done splice or thread start/stop (invariant 11).  In the child:
 *  - the callback being invoked at the fork is neither run again nor
 *    counted (invariant 12);
 *  - the rest of the parent's batch goes back at the head of the queue,
 *    before what was queued, barrier markers dropped, a missing link
 *    cutting the chain, and the backlog recounted from the nodes kept
 *    (invariant 13);
 *  - if a callback forked, the forking thread is the child's callback
 *    thread and keeps its trimmed batch (invariant 14).
 * Both locks are re-initialised in the child, which is single-threaded
 * here: every store below is relaxed.
 */
#include <pthread.h>

#include "callback.h"

void rcb__callbacks_fork_prepare(void)
{
	pthread_mutex_lock(&rcb__cb_lock);
	pthread_mutex_lock(&rcb__cb_splice_lock);
}

void rcb__callbacks_fork_parent(void)
{
	pthread_mutex_unlock(&rcb__cb_splice_lock);
	pthread_mutex_unlock(&rcb__cb_lock);
}

/* A chain of nodes rebuilt in the child, with the callbacks it counts. */
struct chain {
	struct rcb_head *first, *last;
	unsigned long long n, bytes;
};

/*
 * Append to @c the nodes from @n to @end, following their links, without
 * barrier markers, and stopping at a missing link (invariant 13).
 * Context: the child of fork(), single-threaded.
 */
static void chain_take(struct chain *c, struct rcb_head *n,
		       struct rcb_head *end)
{
	while (n) {
		struct rcb_head *next = n == end ? NULL :
					rcb_load_relaxed(&n->next);

		if (n->func != rcb__cb_barrier_reached) {
			if (c->last)
				rcb_store_relaxed(&c->last->next, n);
			else
				c->first = n;
			c->last = n;
			c->n++;
			c->bytes += n->bytes;
		}
		n = next;
	}
	if (c->last)
		rcb_store_relaxed(&c->last->next, NULL);
}

/* Debug builds: the heads of @c are the queued ones. */
static void chain_track(const struct chain *c)
{
	for (struct rcb_head *n = c->first; n; n = rcb_load_relaxed(&n->next)) {
		rcb__cb_dbg_track(n);
		if (n == c->last)
			break;
	}
}

/*
 * The child has no callback thread (unless a callback forked: invariant
 * 14).  Rebuild the queue from what the parent's thread had not invoked
 * yet and what was queued (invariant 13), and recount the backlog.
 */
void rcb__callbacks_after_fork_child(void)
{
	struct rcb_head *tail = rcb_load_relaxed(&rcb__cb_q.tail);
	struct rcb_head *todo = rcb_load_relaxed(&rcb__cb_batch.todo);
	struct rcb_head *last = rcb_load_relaxed(&rcb__cb_batch.last);
	struct chain rest = { 0 }, queued = { 0 };
	bool forked_in_callback = rcb__self()->in_callback;
	unsigned long long n, bytes;

	if (tail != &rcb__cb_q.stub)
		chain_take(&queued, rcb_load_relaxed(&rcb__cb_q.stub.next), tail);
	if (todo)
		chain_take(&rest, todo, last);
	n = rest.n + queued.n;
	bytes = rest.bytes + queued.bytes;
	rcb__cb_dbg_forget_all();
	if (forked_in_callback) {
		/* The forking thread finishes the batch it is invoking,
		 * and subtracts the rcb__cb_batch.n callbacks it has invoked. */
		rcb_store_relaxed(&rcb__cb_batch.todo, rest.first);
		rcb_store_relaxed(&rcb__cb_batch.last, rest.last);
		n += rcb_load_relaxed(&rcb__cb_batch.n);
		bytes += rcb_load_relaxed(&rcb__cb_batch.bytes);
		chain_track(&rest);
	} else {
		/* The rest of the batch goes first, then the queue. */
		if (rest.first) {
			rcb_store_relaxed(&rest.last->next, queued.first);
			queued.first = rest.first;
			if (!queued.last)
				queued.last = rest.last;
		}
		rcb_store_relaxed(&rcb__cb_batch.todo, NULL);
		rcb_store_relaxed(&rcb__cb_batch.last, NULL);
		rcb_store_relaxed(&rcb__cb_batch.n, 0);
		rcb_store_relaxed(&rcb__cb_batch.bytes, 0);
		rcb_store_relaxed(&rcb__cb_started, false);
		rcb_store_relaxed(&rcb__cb_stop, false);
		rcb_store_relaxed(&rcb__cb_futex, 0);
	}
	rcb_store_relaxed(&rcb__cb_q.stub.next, queued.first);
	rcb_store_relaxed(&rcb__cb_q.tail,
			  queued.last ? queued.last : &rcb__cb_q.stub);
	chain_track(&queued);
	rcb_store_relaxed(&rcb__cb_pending, n);
	rcb_store_relaxed(&rcb__cb_pending_bytes, bytes);
	pthread_mutex_init(&rcb__cb_lock, NULL);
	pthread_mutex_init(&rcb__cb_splice_lock, NULL);
}
