/* SPDX-License-Identifier: MIT */
/*
 * Callbacks across fork(): the handlers that hold the callback locks over
 * fork() and rebuild every worker's queue and the backlog in the child.
 *
 * Protocol (callback.c invariants 11 to 14).  The child has only the
 * forking thread and a copy of memory.  The prepare handler takes
 * rcb__cb_lock, then rcb__cb_splice_lock, so that the copy holds no
 * half-done splice or thread start/stop (invariant 11).  In the child:
 *  - the callback being invoked at the fork is neither run again nor
 *    counted (invariant 12);
 *  - per worker, the rest of the parent's batch goes back at the head of
 *    its queue,
 *    before what was queued, barrier markers dropped, a missing link
 *    cutting the chain, and the backlog recounted from the nodes kept
 *    (invariant 13);
 *  - if a callback forked, the forking thread is the child's thread of
 *    its worker and keeps its trimmed batch (invariant 14); the other
 *    workers have no thread until their next use.
 * Both locks are re-initialised in the child, which is single-threaded
 * here: every store below is relaxed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "callback/callback.h"

/*
 * A stopper (rcb_worker_destroy(), rcb_shutdown()) holds rcb__cb_lock
 * while it joins a worker (invariant 7), and the worker may be waiting
 * for a grace period.  fork() called inside a read-side critical section
 * then waits for a grace period that waits for the forking thread: a
 * deadlock, as liburcu's fork handlers meet one when another thread runs
 * synchronize_rcu().  So does a fork() from a signal handler that
 * interrupted a library call holding the lock (rcb_barrier(), say): the
 * thread waits for itself; and a fork() from a callback while a stopper
 * joins that callback's worker.  Not worth a lock that is dropped across
 * joins (every invariant of the stop would change); the wait is said on
 * stderr after a second, so that a hang is named.  The first try costs
 * the common case nothing.
 */
static void lock_for_fork(void)
{
	struct timespec until;

	if (pthread_mutex_trylock(&rcb__cb_lock) == 0)
		return;
#ifdef RCB_SIM
	/* The simulator (tools/sim) schedules lock and trylock, not
	 * timedlock. */
	pthread_mutex_lock(&rcb__cb_lock);
	return;
#endif
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	if (pthread_mutex_timedlock(&rcb__cb_lock, &until) == 0)
		return;
	if (rcb__self()->in_callback)
		fprintf(stderr,
			"rcuboost: fork() from a callback has waited 1 s for the callback workers' lock: "
			"if another thread's rcb_worker_destroy() or rcb_shutdown() is stopping this "
			"callback's worker, it waits for this callback, and fork() will never return\n");
	else if (rcb_read_ongoing())
		fprintf(stderr,
			"rcuboost: fork() inside a read-side critical section has waited 1 s for another "
			"thread's rcb_worker_destroy() or rcb_shutdown(), whose grace period may wait for "
			"this very section: fork outside the section\n");
	else
		fprintf(stderr,
			"rcuboost: fork() has waited 1 s for the callback workers' lock: another "
			"thread's rcb_worker_destroy() or rcb_shutdown() holds it until a grace period "
			"ends, or, if fork() was called from a signal handler that interrupted an "
			"rcuboost call, this very thread holds it and fork() will never return\n");
	pthread_mutex_lock(&rcb__cb_lock);
}

void rcb__callbacks_fork_prepare(void)
{
	lock_for_fork();
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

		if (rcb__cb_unlinked(n, next))
			next = NULL; /* a missing link (or @end) */
		if (n->func == rcb__cb_barrier_reached) {
			/* Dropped; its waiter's stack may be reused
			 * for a head (invariant 15). */
			rcb_store_relaxed(&n->next, NULL);
		} else {
			if (c->last)
				rcb_store_relaxed(&c->last->next, n);
			else
				c->first = n;
			c->last = n;
			c->n++;
			c->bytes += rcb__cb_bytes(n);
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
 * Rebuild worker @w in the child (invariant 13, or 14 for @forked_here,
 * the worker whose callback forked); returns the callbacks it keeps in
 * *@n, *@bytes.
 */
static void child_worker(struct rcb_worker *w, bool forked_here,
			 unsigned long long *n, unsigned long long *bytes)
{
	struct rcb_head *tail = rcb_load_relaxed(&w->q.tail);
	struct rcb_head *todo = rcb_load_relaxed(&w->batch.todo);
	struct rcb_head *last = rcb_load_relaxed(&w->batch.last);
	struct rcb_head *lf = NULL, *ll = NULL;
	struct chain rest = { 0 }, queued = { 0 };

	/* The local lists go after the batch, before the queue
	 * (callback_local.c, L5, L8). */
	if (w == &rcb__cb_default)
		rcb__cb_local_fork_take(&lf, &ll);
	if (lf)
		chain_take(&queued, lf, ll);
	if (tail != &w->q.stub)
		chain_take(&queued, rcb_load_relaxed(&w->q.stub.next), tail);
	if (todo)
		chain_take(&rest, todo, last);
	*n = rest.n + queued.n;
	*bytes = rest.bytes + queued.bytes;
	if (forked_here) {
		/* The forking thread finishes the batch it is invoking,
		 * and subtracts the batch.n callbacks it has invoked. */
		rcb_store_relaxed(&w->batch.todo, rest.first);
		rcb_store_relaxed(&w->batch.last, rest.last);
		*n += rcb_load_relaxed(&w->batch.n);
		*bytes += rcb_load_relaxed(&w->batch.bytes);
		chain_track(&rest);
	} else {
		/* The rest of the batch goes first, then the queue. */
		if (rest.first) {
			rcb_store_relaxed(&rest.last->next, queued.first);
			queued.first = rest.first;
			if (!queued.last)
				queued.last = rest.last;
		}
		rcb_store_relaxed(&w->batch.todo, NULL);
		rcb_store_relaxed(&w->batch.last, NULL);
		rcb_store_relaxed(&w->batch.n, 0);
		rcb_store_relaxed(&w->batch.bytes, 0);
		rcb_store_relaxed(&w->started, false);
		rcb_store_relaxed(&w->stop, false);
		rcb_store_relaxed(&w->abandon, false);
		rcb_store_relaxed(&w->futex, 0);
		rcb_store_relaxed(&w->tid, 0);
	}
	/* The other threads' late wake-ups (callback.c invariant 4) are not
	 * in the child.  Not supported: a fork() from a signal handler
	 * that interrupted the forking thread's own late wake-up; its
	 * uncount then leaves -1, which no destroy waits for (the wait is
	 * for a positive count), and a later wake-up could race a destroy
	 * in that child. */
	rcb_store_relaxed(&w->late_wakers, 0);
	/* A destroy the fork caught half-way (another thread's
	 * rcb_worker_destroy() waiting for its grace period) has no
	 * thread in the child to finish it: the worker is live again
	 * there, withdrawn from CPUs and threads, so that the child can
	 * use or destroy it (a review). */
	w->dying = false;
	rcb_store_relaxed(&w->q.stub.next, queued.first);
	rcb_store_relaxed(&w->q.tail, queued.last ? queued.last : &w->q.stub);
	chain_track(&queued);
}

/*
 * The child has no worker thread (unless a callback forked: invariant
 * 14).  Rebuild every worker's queue from what its thread had not
 * invoked yet and what was queued (invariant 13), and recount the
 * backlog.  Every worker, created ones included, stays with its
 * callbacks, its CPU and its threads' choice; its thread starts again
 * at its next rcb_call*(), rcb_barrier(), rcb_worker_thread() or
 * rcb_shutdown(), or, for every worker that kept callbacks, at an
 * rcb_start_poll() or rcb_defer() that finds its own request among
 * them (rcb__cb_inherited, rcb__cb_start_inherited()).  liburcu's
 * child handler instead merges the callbacks of every worker into the
 * default one and frees the others.
 */
void rcb__callbacks_after_fork_child(void)
{
	struct rcb__thread *self = rcb__self();
	unsigned long long n = 0, bytes = 0;

	rcb__cb_dbg_forget_all();
	/* Its count in late_wakers is gone with the counts below.  Like
	 * that wake-up, a start left to the forking thread's unlock is
	 * dropped: the child's workers start at their next use. */
	rcb_store_relaxed(&self->cb_wake_later, NULL);
	rcb_store_relaxed(&self->cb_start_later, false);
	for (struct rcb_worker *w = rcb__cb_workers; w; w = w->next) {
		unsigned long long wn, wbytes;

		rcb_store_relaxed(&w->start_later, false);

		child_worker(w, self->in_callback && self->cb_running == w,
			     &wn, &wbytes);
		n += wn;
		bytes += wbytes;
	}
	rcb__cb_recount(n, bytes);
	for (struct rcb_worker *w = rcb__cb_workers; w; w = w->next)
		if (!rcb_load_relaxed(&w->started) && !rcb__cb_queue_empty(w))
			rcb_store_relaxed(&rcb__cb_inherited, true);
	pthread_mutex_init(&rcb__cb_lock, NULL);
	pthread_mutex_init(&rcb__cb_splice_lock, NULL);
}

/* @fn on each head of the chain @first..@last (linked). */
static void each_in(struct rcb_head *first, struct rcb_head *last,
		    void (*fn)(struct rcb_head *h, void *arg), void *arg)
{
	for (struct rcb_head *n = first; n; n = rcb_load_relaxed(&n->next)) {
		bool end = n == last;

		fn(n, arg);
		if (end)
			break;
	}
}

void rcb__cb_child_each(void (*fn)(struct rcb_head *h, void *arg), void *arg)
{
	for (struct rcb_worker *w = rcb__cb_workers; w; w = w->next) {
		struct rcb_head *tail = rcb_load_relaxed(&w->q.tail);

		/* A worker whose callback forked keeps the rest of its
		 * batch (invariant 14). */
		each_in(rcb_load_relaxed(&w->batch.todo),
			rcb_load_relaxed(&w->batch.last), fn, arg);
		if (tail != &w->q.stub)
			each_in(rcb_load_relaxed(&w->q.stub.next), tail, fn,
				arg);
	}
}
