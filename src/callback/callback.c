/* SPDX-License-Identifier: MIT */
/*
 * Callbacks: rcb_call(), the callback worker threads, rcb_barrier(), the
 * backlog, and what becomes of all of them at rcb_shutdown() and fork().
 *
 * Every callback worker (struct rcb_worker, callback.h) runs the protocol
 * below on its own queue and thread; "the callback thread" and "the
 * queue" are those of one worker, and the invariants hold per worker.
 * The default worker is the library's own, started at the first
 * rcb_call(); callback_worker.c creates, chooses and destroys the others
 * (its invariants W1-W5).  rcb__cb_lock and rcb__cb_splice_lock are one
 * each for all workers; the backlog counts all workers.
 *
 * Algorithm.  rcb_call() appends to one intrusive multi-producer,
 * single-consumer queue with a stub node: a producer exchanges the tail
 * and then links the previous tail to its node (wait-free: no loop).  The
 * callback thread sleeps on the futex while the queue is empty,
 * splices everything queued into a batch, waits for one grace period
 * (rcb_synchronize()), then invokes the batch in queue order.  The
 * default worker has a second mode for fast streams, local mode
 * (callback_local.c, invariants L1-L8): registered threads append to
 * lists of their own, which the thread takes after a grace period;
 * invariants 1-3 and 8 below then hold with "queued" read as "queued or
 * appended" (L2-L6), and the thread does not sleep on its queue (L7).
 * rcb_barrier() queues a marker and waits until the thread reaches it.
 * rcb_shutdown() stops the thread after it has drained the queue.  The
 * batch lives in the worker (not in the thread's locals) so that a
 * forked child, which has no callback thread, can find it.
 *
 * Invariants.
 *  1. Only the callback thread (or, when it is not running, a caller
 *     holding rcb__cb_lock) removes nodes; producers only append.
 *  2. A node is invoked only after a grace period that started after it
 *     was queued: the splice that takes it precedes rcb_synchronize().
 *  3. Queue order is invocation order, so a barrier marker is reached only
 *     after every node queued before it has been invoked.
 *  4. The worker's futex is -1 only while its thread may sleep on an
 *     empty queue; a producer that sees -1 after its enqueue wakes it.
 *     An RCB_WORKER_RT worker never sleeps on it: it polls every
 *     millisecond, and its producers make no system call.  rcb_call*()
 *     wakes the default worker (and kicks booster mode) only after its
 *     read-side critical section has ended: the woken thread may preempt
 *     the caller on its CPU and at once start a grace period, which a
 *     caller preempted inside its section would hold.  The thread then
 *     spun on the registry, set its futex to -1 and slept, and every
 *     other reader's unlock woke it again: 5-6 membarrier() and
 *     futex calls per callback instead of one, and a
 *     futex wake-up by the readers thousands of times a second
 *     (scripts/cyclictest.sh's busy load; a per-CPU worker, pinned
 *     beside its producers, met it on every wake-up).  The decision is
 *     taken inside the section ([CB-F], [CBB-K]); only the system call
 *     moves.  A call nested in a section of the caller's own (liburcu's
 *     idiom: rcu_read_lock(); cds_lfht_del(); call_rcu();
 *     rcu_read_unlock()) leaves the wake-up to the outermost unlock,
 *     through RCB__READER_WAKE_CB in the thread's special word and
 *     its cb_wake_later (rcb__read_unlock_special(), registry.c): the
 *     callback's grace period waits for that section anyway, so the
 *     wake-up loses nothing by waiting for it (one worker per thread
 *     at a time; another is woken at the end of the call's own
 *     section: wake_decided()).  A private
 *     worker's memory outlives the section only because the caller
 *     counts itself in late_wakers inside it ([CB-LW]) and leaves
 *     after the wake-up ([CB-LWR]): rcb_worker_destroy() frees it once
 *     its grace period has ended and the count is back to 0
 *     (callback_worker.c, W4).
 *  5. The backlog counts every user callback from rcb_call*() until its
 *     invocation returns; barrier markers are not counted.  It is
 *     queued - invoked: a registered thread counts what it queues in its
 *     own record (cb_queued, cb_queued_bytes: one plain increment, no
 *     shared cache line), which leave_registry() folds into
 *     rcb__cb_queued_gone under the registry lock; an unregistered
 *     caller adds to rcb__cb_queued_gone itself; the callback threads
 *     add to rcb__cb_invoked after the invocations.  rcb__cb_backlog_now() sums
 *     under the registry lock, reading invoked first ([CB-IA]), so it
 *     never counts an invocation without its rcb_call().  The pressure
 *     kick (pressure.c) needs a running count in rcb_call*(): kick_count
 *     is kept, by rcb_call*() and the callback threads, only while the
 *     kick thresholds are armed, and restarts from the backlog when
 *     they are (rcb__cb_kick_rebase()).
 *  6. rcb_call() runs its check of rcb__running and its enqueue inside a
 *     read-side critical section, so rcb_shutdown()'s grace period
 *     separates every accepted enqueue from the stop of the thread.
 *
 * Shutdown and barriers.
 *  7. started and stop change only under rcb__cb_lock, and
 *     rcb__cb_lock is held from the store of stop until the thread
 *     is joined and started is false again: under rcb__cb_lock,
 *     started implies that the thread has not been told to stop.
 *  8. The thread exits only when it has read stop as true and
 *     then, after that read, found the queue empty.  Hence a marker that
 *     rcb_barrier() enqueues under rcb__cb_lock while started is
 *     true is taken by the thread: the enqueue precedes the store of
 *     stop (rcb__cb_lock orders them), which precedes the thread's
 *     final look at the queue ([CB-SA]).  A barrier that finds
 *     started false under rcb__cb_lock has nothing to wait for:
 *     the last stop drained the queue, or the queue holds callbacks
 *     that wait for a start (inherited across fork(), or queued by a
 *     nested call whose start at the unlock failed), which it starts
 *     the thread for first (barrier_one()).
 *  9. The thread is started only under rcb__cb_lock, and, except to drain
 *     the queue for rcb_shutdown() or a barrier after it, only while
 *     rcb__running, read under rcb__cb_lock: rcb_shutdown() clears
 *     rcb__running before it takes rcb__cb_lock to stop the thread, so a
 *     start that comes after the stop sees it cleared and starts nothing.
 *     A callback never takes rcb__cb_lock (a stopper holds it while it
 *     joins the callback's thread): one that queues to a worker whose
 *     thread does not run, or queues anything while rcb_shutdown()
 *     drains, queues to its own worker, which runs until its queue is
 *     empty.  Nor does a call nested in a section of the caller's own
 *     (its stopper may be joining a worker whose grace period waits for
 *     the section): it queues to the worker with no thread and leaves
 *     the start to the outermost unlock, as a wake-up (invariant 4,
 *     rcb__cb_wake_late()); a start that fails there leaves the
 *     callback queued until the worker's next use, with the message of
 *     rcb__cb_start_locked().  A second such worker in the same section
 *     (the thread's worker follows its CPU, rcb_worker_assign_cpu()) is
 *     marked start_later and started by rcb__cb_start_later() at the
 *     same unlock, found on the list under the lock: no pointer to it
 *     outlives the section.
 * 10. After rcb__cb_barrier_reached() sets the marker's done word, neither
 *     it nor anything else touches the marker, which lives in the waiter's
 *     stack frame: the waiter may return at once.  The wake-up goes to the
 *     static word barrier_seq, advanced after done ([CB-BS]).
 *
 * fork().  The child has only the forking thread and a copy of memory.
 * 11. The batch is the nodes from batch.todo (the next node to
 *     invoke) to batch.last, linked by their next fields.  The
 *     splice and the publication of a new batch happen under
 *     rcb__cb_splice_lock, which the fork handlers hold across fork(): the
 *     child never sees nodes that are in neither the queue nor the batch.
 *     The thread moves batch.todo past a node before it invokes
 *     the node, with a fence ([CB-C]) between: in the child's copy, a node
 *     whose invocation left any trace is not in the batch any more.
 * 12. The callback being invoked at the instant of fork() is not invoked
 *     in the child: its invocation was work in progress of a thread the
 *     child does not have, like any other thread's.  The child neither
 *     runs it again nor counts it.
 * 13. In the child, the rest of the batch is put back at the head of the
 *     queue (in order, before what was queued) and waits for a grace
 *     period of the child's own; barrier markers are dropped (their
 *     waiters do not exist in the child, and their stacks may be reused);
 *     a producer that was between its exchange and its link cuts the chain
 *     there (the nodes after the missing link are lost in the child).
 *     The backlog is then recounted from the nodes (rcb__cb_recount()):
 *     it is exactly what the child will run.  The child
 *     starts its callback thread at its next rcb_call(), rcb_barrier() or
 *     rcb_shutdown().
 * 14. A callback that calls fork() makes its child's callback thread the
 *     forking thread itself, which finishes its batch there: the child
 *     keeps started, trims the batch in place (same rules as 13),
 *     and counts the callbacks that thread has invoked and not yet
 *     accounted.
 *
 * A head queued twice.  rcb_call*() of a head still queued linked the
 * queue into a cycle (the head queued last: the thread then invoked it
 * forever), or cut the queue after it and queued it a second time
 * (callbacks lost, the head invoked twice).  Its content before the
 * first rcb_call*() is the application's (liburcu asks no
 * initialisation), so no value there can tell "queued" from "fresh" in
 * general; one can for the head queued last:
 * 15. From its enqueue until a successor is linked to it, a node's next
 *     holds its end mark, rcb__cb_end(node) (callback.h), not NULL: in
 *     the queue (enqueue_chain()) and in a local list (L1).  The
 *     consumer treats the mark as "not linked yet", as NULL
 *     (rcb__cb_next_of(), the fork child's chain_take()), and stores NULL in a
 *     batch's last node before invoking it, so the mark never outlives
 *     the node's time in the library.  rcb_call*() refuses a head whose
 *     next holds its mark (-EBUSY, reported as misuse, nothing written):
 *     one load, of the line its stores write next (about one cycle of
 *     a call in local mode, nothing measurable on the queue: the
 *     figures and the command are in CHANGELOG.md).  No false report: the mark
 *     is no canonical address and is tied to the head's own address
 *     (a fresh head, or a copy of a queued one elsewhere, never holds
 *     it; a forked child's dropped barrier markers lose theirs).  Heads
 *     queued twice with other callbacks queued between are found only
 *     by debug builds (RCB_DEBUG), which also keep the set of queued
 *     heads (callback_debug.c).
 *
 * Sized heads.  rcb_call_sized() puts the trampoline
 * rcb__cb_sized_invoke() in head.func and the caller's function and size
 * beside the head (struct rcb_head_sized): the queue moves two-word heads
 * only, and the invocation tells a sized head by one compare
 * (rcb__cb_bytes()).
 *
 * Files.  This file: the protocol, the queue, the backlog's counters,
 * sized heads and barrier markers.  callback_call.c: rcb_call(),
 * rcb_barrier(), shutdown and the backlog.  callback_thread.c: the
 * worker threads.  callback_start.c: their start and stop.
 * callback_worker.c: the worker API.  callback_fork.c: the fork
 * handlers (invariants 11 to 14).  callback_local.c: local mode.
 * callback_debug.c: the debug set.  hooks.c: the table core calls
 * (core/hooks.h).  callback.h: the state they share.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "callback/callback.h"
#include "core/internal.h"

/* RCB__HOT_ALIGN: the default queue's tail, exchanged by every
 * rcb_call(), must not share rcb__gp's cache line, which every reader
 * reads (doc/design.md, "Grace-period cost"). */
struct rcb_worker rcb__cb_default RCB__HOT_ALIGN = {
	.q = { .tail = &rcb__cb_default.q.stub },
	.cpu = -1,
};
struct rcb_worker *rcb__cb_workers = &rcb__cb_default;
pthread_mutex_t rcb__cb_lock = PTHREAD_MUTEX_INITIALIZER;
/* Held across a splice and its batch's publication, and across fork(). */
pthread_mutex_t rcb__cb_splice_lock = PTHREAD_MUTEX_INITIALIZER;

/* Advanced after each barrier marker is reached; barrier waiters sleep on
 * it (invariant 10). */
_Atomic int rcb__cb_barrier_seq;
/* Markers rcb_barrier() queued on the default worker itself, not handed
 * over to local mode: counted after each enqueue (queued_marker_since()). */
_Atomic unsigned long rcb__cb_default_markers;

_Atomic unsigned long long rcb__cb_queued_gone, rcb__cb_queued_gone_bytes;
_Atomic unsigned long long rcb__cb_invoked, rcb__cb_invoked_bytes;

/* Read by every rcb_call*(), written almost never (callback.h). */
struct rcb__cb_hot rcb__cb_hot RCB__HOT_ALIGN;
_Atomic unsigned long long rcb__cb_peak, rcb__cb_peak_bytes;
/* The backlog as rcb_call*() sees it while the pressure kick is armed
 * (invariant 5); its own cache line, as every rcb_call*() writes it then. */
_Atomic long long rcb__cb_kick_count __attribute__((aligned(64)));
_Atomic long long rcb__cb_kick_bytes;
/* The last rcb__cb_backlog_now() (a caller that cannot take the registry lock
 * gets it). */
static _Atomic unsigned long long last_backlog, last_backlog_bytes;

/* ---- queue -------------------------------------------------------- */

bool rcb__cb_queue_empty(struct rcb_worker *w)
{
	/* [CB-E] seq_cst: the consumer's side of [CB-S]/[CB-Q]. */
	return rcb_load_seq_cst(&w->q.tail) == &w->q.stub;
}

/*
 * The backlog now (invariant 5).  Context: any thread but one holding the
 * registry lock (that one, a signal handler interrupting it, gets the
 * previous result).
 */
void rcb__cb_backlog_now(unsigned long long *n, unsigned long long *bytes)
{
	/* [CB-IA] Invocations first: pairs with [CB-I] in
	 * account_invoked(), which follows the splice that read every
	 * counted node's enqueue, itself after its caller's count. */
	unsigned long long inv = rcb_load_acquire(&rcb__cb_invoked);
	/* [CB-IA] */
	unsigned long long inv_bytes = rcb_load_acquire(&rcb__cb_invoked_bytes);
	unsigned long long q, qb;
	struct rcb__thread *t;

	if (pthread_mutex_lock(&rcb__registry_lock) != 0) {
		*n = rcb_load_relaxed(&last_backlog);
		*bytes = rcb_load_relaxed(&last_backlog_bytes);
		return;
	}
	q = rcb_load_relaxed(&rcb__cb_queued_gone);
	qb = rcb_load_relaxed(&rcb__cb_queued_gone_bytes);
	rcb__for_each_thread(t) {
		q += rcb_load_relaxed(&t->cb_queued);
		qb += rcb_load_relaxed(&t->cb_queued_bytes);
	}
	pthread_mutex_unlock(&rcb__registry_lock);
	*n = q > inv ? q - inv : 0;
	*bytes = qb > inv_bytes ? qb - inv_bytes : 0;
	rcb_store_relaxed(&last_backlog, *n);
	rcb_store_relaxed(&last_backlog_bytes, *bytes);
}

/*
 * @t leaves the registry; it is the calling thread, already marked
 * unregistered (a signal handler's rcb_call*() from here on counts in
 * the global count).  One exchange per counter: a handler that ran
 * before it left its count in @t's record, which the exchange takes.
 */
void rcb__cb_fold_thread(struct rcb__thread *t)
{
	rcb__cb_local_leave(t); /* callback_local.c, L3 */
	rcb_add_relaxed(&rcb__cb_queued_gone,
			rcb_xchg_relaxed(&t->cb_queued, 0));
	rcb_add_relaxed(&rcb__cb_queued_gone_bytes,
			rcb_xchg_relaxed(&t->cb_queued_bytes, 0));
}

/* fork() child (callback_fork.c): the backlog is @n callbacks and
 * @bytes bytes, with only the calling thread registered. */
void rcb__cb_recount(unsigned long long n, unsigned long long bytes)
{
	struct rcb__thread *self = rcb__self();

	rcb_store_relaxed(&self->cb_queued, 0);
	rcb_store_relaxed(&self->cb_queued_bytes, 0);
	rcb_store_relaxed(&rcb__cb_queued_gone,
			  n + rcb_load_relaxed(&rcb__cb_invoked));
	rcb_store_relaxed(&rcb__cb_queued_gone_bytes,
			  bytes + rcb_load_relaxed(&rcb__cb_invoked_bytes));
	rcb_store_relaxed(&rcb__cb_kick_count, (long long)n);
	rcb_store_relaxed(&rcb__cb_kick_bytes, (long long)bytes);
}

/* Callers that run between the backlog's sum and the thresholds' store
 * are not counted: the kick may come a few callbacks late once. */
void rcb__cb_kick_rebase(void)
{
	unsigned long long n, bytes;

	rcb__cb_backlog_now(&n, &bytes);
	rcb_store_relaxed(&rcb__cb_kick_count, (long long)n);
	rcb_store_relaxed(&rcb__cb_kick_bytes, (long long)bytes);
}

/* Take everything queued: *first..*last.  False if empty.  Consumer. */
bool rcb__cb_splice(struct rcb_worker *w, struct rcb_head **first,
		    struct rcb_head **last)
{
	if (rcb__cb_queue_empty(w))
		return false;
	*first = rcb__cb_next_of(&w->q.stub);
	/* No producer writes stub.next until the tail points at the stub
	 * again, which only our exchange below does. */
	rcb_store_relaxed(&w->q.stub.next, NULL);
	/* [CB-X] pairs with [CB-Q]: every node up to *last is ours. */
	*last = rcb_xchg_acq_rel(&w->q.tail, &w->q.stub);
	return true;
}

void rcb__cb_wake_thread(struct rcb_worker *w)
{
	int expect = -1;

	/* A hint, before the exchange: a thread whose sleep the exchange
	 * cut short (its futex wait finds 0) reads this waker's CPU. */
	rcb_store_relaxed(&w->waker_cpu, sched_getcpu());
	if (rcb_cmpxchg_relaxed(&w->futex, &expect, 0))
		rcb__futex_wake(&w->futex, 1);
}

void rcb__cb_wake_late(struct rcb_worker *w)
{
	/* Queued to a worker with no thread yet by a call nested in a
	 * section of the caller's (call(): start_late); a thread started
	 * meanwhile is woken below.  Never from a callback (invariant 9):
	 * a stopper may hold rcb__cb_lock while it joins this thread, and
	 * a callback's call never needs the start (it is never start_late;
	 * a worker found stopped here was stopped after that call's
	 * section, so rcb_shutdown() drained the node, or
	 * rcb_worker_destroy() moved it to the default worker). */
	if (RCB_UNLIKELY(!rcb_load_relaxed(&w->started)) &&
	    !rcb__self()->in_callback)
		(void)rcb__cb_start_listed(w);
	rcb__cb_wake_thread(w);
	/* [CB-LWR] The caller's last access to a private worker: pairs
	 * with [CB-LWA] in rcb_worker_destroy(), which may free @w as soon
	 * as the count reaches 0.  The destroyer sleeps on the count (a
	 * real-time destroyer that spun would keep this thread off a
	 * shared CPU), so the last waker wakes it, after the decrement,
	 * as glibc's mutex unlock does: FUTEX_WAKE_PRIVATE only hashes
	 * the address and reads nothing there, and a stray wake-up of
	 * memory reused meanwhile is a spurious wake-up, which every
	 * futex waiter rechecks. */
	if (w != &rcb__cb_default &&
	    rcb_add_release(&w->late_wakers, -1) == 1)
		rcb__futex_wake(&w->late_wakers, 1);
}

void rcb__cb_start_later(void)
{
	pthread_mutex_lock(&rcb__cb_lock);
	for (struct rcb_worker *w = rcb__cb_workers; w; w = w->next) {
		/* [CB-SLA] pairs with [CB-SL]: the marking call's node
		 * is enqueued before the exchange below.  Another thread's
		 * unlock may clear the mark and so take over the wake-up. */
		if (!rcb_load_acquire(&w->start_later))
			continue;
		rcb_store_relaxed(&w->start_later, false);
		/* A failed start says so (rcb__cb_start_locked()) and
		 * leaves the callbacks queued until the worker's next
		 * use, as in rcb__cb_wake_late(). */
		if (!rcb_load_relaxed(&w->started))
			(void)rcb__cb_start_locked(w, false);
		/* Started by someone else after the call looked, and
		 * maybe asleep since.  [CB-SLW] seq_cst, as the [CB-F]
		 * load the marking call made for itself: either the
		 * thread's re-check ([CB-S]) sees the node, or this
		 * exchange sees its -1. */
		else if (rcb_xchg_seq_cst(&w->futex, 0) == -1)
			rcb__futex_wake(&w->futex, 1);
	}
	pthread_mutex_unlock(&rcb__cb_lock);
	/* A poll request inherited across fork(), met inside a section. */
	rcb__cb_start_inherited();
}

void rcb__cb_enqueue_chain(struct rcb_worker *w, struct rcb_head *first,
			   struct rcb_head *last)
{
	rcb__cb_push(w, first, last);
	if (rcb_load_seq_cst(&w->futex) == -1) /* [CB-F] */
		rcb__cb_wake_thread(w);
}

/* ---- sized heads --------------------------------------------------- */

void rcb__cb_sized_invoke(struct rcb_head *h)
{
	struct rcb_head_sized *s = (struct rcb_head_sized *)h;
	void (*func)(struct rcb_head *) = s->func;

	rcb__cb_current = (const void *)(uintptr_t)func;
	func(h);
	/* Named here: invoke_batch() sees only this function. */
	if (RCB_UNLIKELY(rcb_read_ongoing()))
		rcb__end_leaked_section("callback", (const void *)(uintptr_t)func);
}

/* ---- barrier markers ------------------------------------------------ */

void rcb__cb_barrier_reached(struct rcb_head *h)
{
	struct rcb__cb_marker *m = (struct rcb__cb_marker *)h;

	/* [CB-B] pairs with [CB-W] in rcb_barrier(): callbacks before the
	 * marker are complete.  From here on the marker may be gone
	 * (invariant 10). */
	rcb_store_release(&m->done, 1);
	/* [CB-BS] After done: a waiter that reads the new value reads done
	 * set.  Pairs with [CB-WS] in rcb_barrier(). */
	rcb_add_release(&rcb__cb_barrier_seq, 1);
	rcb__futex_wake(&rcb__cb_barrier_seq, INT_MAX);
}
