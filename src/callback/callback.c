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
 *     other reader's unlock woke it again: on the 2-CPU VM, 5-6
 *     membarrier() and futex calls per callback instead of one, and a
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
 *     add to rcb__cb_invoked after the invocations.  backlog_now() sums
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
 *     (next_of(), the fork child's chain_take()), and stores NULL in a
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
 * Files.  This file: the queue, rcb_call(), the worker threads,
 * rcb_barrier(), shutdown and the backlog.  callback_worker.c: the
 * worker API.  callback_fork.c: the fork handlers (invariants 11 to 14).
 * callback_local.c: local mode.  callback_debug.c: the debug set.
 * callback.h: the state they share.
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
static _Atomic int barrier_seq;
/* Markers rcb_barrier() queued on the default worker itself, not handed
 * over to local mode: counted after each enqueue (queued_marker_since()). */
static _Atomic unsigned long default_markers;

_Atomic unsigned long long rcb__cb_queued_gone, rcb__cb_queued_gone_bytes;
_Atomic unsigned long long rcb__cb_invoked, rcb__cb_invoked_bytes;
static _Atomic unsigned long long peak, peak_bytes;
/* The backlog as rcb_call*() sees it while the pressure kick is armed
 * (invariant 5); its own cache line, as every rcb_call*() writes it then. */
static _Atomic long long kick_count __attribute__((aligned(64)));
static _Atomic long long kick_bytes;
/* The last backlog_now() (a caller that cannot take the registry lock
 * gets it). */
static _Atomic unsigned long long last_backlog, last_backlog_bytes;

/* ---- queue -------------------------------------------------------- */

bool rcb__cb_queue_empty(struct rcb_worker *w)
{
	/* [CB-E] seq_cst: the consumer's side of [CB-S]/[CB-Q]. */
	return rcb_load_seq_cst(&w->q.tail) == &w->q.stub;
}

/*
 * kick_bytes += @bytes; returns the new value.  Written with an empty
 * asm between the fetch-add and the addition: GCC 12.2 (Debian 12)
 * compiles "if (b) x = fetch_add(p, b) + b" (and __atomic_add_fetch) at
 * every -O level into "lock xadd %r, p; add %r, %r", twice the old
 * value, since xadd overwrites the register that held b
 * (tests/regression/pressure_bytes_kick.c).
 */
static long long add_return_bytes(long long bytes)
{
	long long old = rcb_add_relaxed(&kick_bytes, bytes);

	__asm__("" : "+r"(old));
	return old + bytes;
}

/*
 * The backlog now (invariant 5).  Context: any thread but one holding the
 * registry lock (that one, a signal handler interrupting it, gets the
 * previous result).
 */
static void backlog_now(unsigned long long *n, unsigned long long *bytes)
{
	/* [CB-IA] Invocations first: pairs with [CB-I] in
	 * account_invoked(), which follows the splice that read every
	 * counted node's enqueue, itself after its caller's count. */
	unsigned long long inv = rcb_load_acquire(&rcb__cb_invoked);
	unsigned long long inv_bytes = rcb_load_acquire(&rcb__cb_invoked_bytes); /* [CB-IA] */
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
	rcb_add_relaxed(&rcb__cb_queued_gone, rcb_xchg_relaxed(&t->cb_queued, 0));
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
	rcb_store_relaxed(&rcb__cb_queued_gone, n + rcb_load_relaxed(&rcb__cb_invoked));
	rcb_store_relaxed(&rcb__cb_queued_gone_bytes,
			  bytes + rcb_load_relaxed(&rcb__cb_invoked_bytes));
	rcb_store_relaxed(&kick_count, (long long)n);
	rcb_store_relaxed(&kick_bytes, (long long)bytes);
}

/* Callers that run between the backlog's sum and the thresholds' store
 * are not counted: the kick may come a few callbacks late once. */
void rcb__cb_kick_rebase(void)
{
	unsigned long long n, bytes;

	backlog_now(&n, &bytes);
	rcb_store_relaxed(&kick_count, (long long)n);
	rcb_store_relaxed(&kick_bytes, (long long)bytes);
}

static bool kick_armed(void)
{
	return rcb_load_relaxed(&rcb__pressure_kick_at) ||
	       rcb_load_relaxed(&rcb__pressure_kick_bytes);
}

/* Append @first..@last (linked, @last's next unset) to @w's queue. */
static void enqueue_chain(struct rcb_worker *w, struct rcb_head *first,
			  struct rcb_head *last)
{
	struct rcb_head *prev;

	rcb_store_relaxed(&last->next, rcb__cb_end(last)); /* invariant 15 */
	/* [CB-Q] The exchange orders the nodes' initialisation (func,
	 * next) before their publication, and is sequentially
	 * consistent for the handshake with the sleeping consumer:
	 * pairs with [CB-S] in wait_for_work(). */
	prev = rcb_xchg_seq_cst(&w->q.tail, last);
	/* [CB-L] Link after publishing the tail; pairs with [CB-N] in
	 * next_of(), which waits for this store. */
	rcb_store_release(&prev->next, first);
}

static void enqueue(struct rcb_worker *w, struct rcb_head *h)
{
	enqueue_chain(w, h, h);
}

/* Successor of @n in a batch; waits for a producer that exchanged the
 * tail but has not linked yet (it is between two stores): @n's next is
 * still its end mark, or NULL (the stub; a forked child's last node). */
static struct rcb_head *next_of(struct rcb_head *n)
{
	struct rcb_head *next;
	int spins = 0;

	/* [CB-N] pairs with [CB-L] in enqueue_chain(). */
	while (rcb__cb_unlinked(n, next = rcb_load_acquire(&n->next))) {
		if (++spins < 100)
			rcb_cpu_relax();
		else
			sched_yield();
	}
	return next;
}

/* Take everything queued: *first..*last.  False if empty.  Consumer. */
bool rcb__cb_splice(struct rcb_worker *w, struct rcb_head **first,
		    struct rcb_head **last)
{
	if (rcb__cb_queue_empty(w))
		return false;
	*first = next_of(&w->q.stub);
	/* No producer writes stub.next until the tail points at the stub
	 * again, which only our exchange below does. */
	rcb_store_relaxed(&w->q.stub.next, NULL);
	/* [CB-X] pairs with [CB-Q]: every node up to *last is ours. */
	*last = rcb_xchg_acq_rel(&w->q.tail, &w->q.stub);
	return true;
}

static void wake_thread(struct rcb_worker *w)
{
	int expect = -1;

	/* A hint, before the exchange: a thread whose sleep the exchange
	 * cut short (its futex wait finds 0) reads this waker's CPU. */
	rcb_store_relaxed(&w->waker_cpu, sched_getcpu());
	if (rcb_cmpxchg_relaxed(&w->futex, &expect, 0))
		rcb__futex_wake(&w->futex, 1);
}

static int start_listed(struct rcb_worker *w);

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
	if (RCB_UNLIKELY(!rcb_load_relaxed(&w->started)) && !rcb__self()->in_callback)
		(void)start_listed(w);
	wake_thread(w);
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
	enqueue_chain(w, first, last);
	if (rcb_load_seq_cst(&w->futex) == -1) /* [CB-F] */
		wake_thread(w);
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
	rcb_add_release(&barrier_seq, 1);
	rcb__futex_wake(&barrier_seq, INT_MAX);
}

/* ---- the worker threads ------------------------------------------- */

static uint64_t wait_for_work(struct rcb_worker *w)
{
	uint64_t asleep_at = 0;

	if (w->flags & RCB_WORKER_RT) {
		/* Invariant 4: poll, no futex. */
		struct timespec ms = { .tv_nsec = 1000000 };

		while (rcb__cb_queue_empty(w) &&
		       !rcb_load_seq_cst(&w->stop)) /* [CB-S] */
			nanosleep(&ms, NULL);
		return 0;
	}
	while (rcb__cb_queue_empty(w) && !rcb_load_seq_cst(&w->stop)) { /* [CB-S] */
		/* [CB-S] Announce the sleep before re-checking the queue and
		 * the stop flag: store-buffering with the producer's exchange
		 * and its load of the futex, and with the stopper's two
		 * stores.  Pairs with [CB-Q], [CB-F] and [CB-STOP]. */
		rcb_store_seq_cst(&w->futex, -1);
		if (!rcb__cb_queue_empty(w) || rcb_load_seq_cst(&w->stop)) { /* [CB-S] */
			rcb_store_relaxed(&w->futex, 0);
			break;
		}
		/* Booster mode: no boost outlives the work (callback_boost.c
		 * B3; [CBB-S] follows the seq_cst store of -1 above). */
		rcb__cb_unboost_self(w);
		if (!asleep_at)
			asleep_at = rcb__now_ns();
		rcb__futex_wait(&w->futex, -1, 0);
		rcb_store_relaxed(&w->futex, 0);
	}
	return asleep_at ? rcb__now_ns() - asleep_at + 1 : 0;
}

/* A producer that wakes the thread this soon after it fell asleep, on
 * its CPU, made one call after it got the CPU back and woke the thread
 * again (3-5 us apart on the 2-CPU VM).  A paced producer does that
 * too, once, when the preemption made it late; one calling at full
 * speed does it every time.  So the policy is told only of the second
 * such wake-up in a row: a producer paced 20 us apart on the thread's
 * CPU, which the rule caught once in a while on the first, and which
 * then went on catching up, kept a median latency of 2.7 us with two
 * (2.6 without the rule) and 57-77 us with one.  Worst case: a producer
 * whose period is about a grace period plus its invocation wakes the
 * thread quickly every time, and counts as one at full speed. */
#define RCB__CB_BESIDE_NS (10ull * 1000)
#define RCB__CB_BESIDE_ROW 2

/*
 * Was the thread, asleep for @slept_ns (0: it did not sleep), woken
 * quickly by a producer on its own CPU?  Two in a row say the producer
 * calls at full speed (worker_thread(); gp_policy.c, "beside its
 * producer").  Not when the thread runs at a real-time policy (the
 * application's choice, RCUBOOST_CALLBACK_PRIO or its own later
 * change; booster mode's raise is undone before every sleep): its
 * wake-ups are meant to preempt.  The waker's CPU is a hint read
 * without order: a wrong one costs one short wait, or one grace period
 * for a small batch.  A system call (the policy) only when the rest
 * holds.
 */
static bool woke_beside_producer(const struct rcb_worker *w, uint64_t slept_ns)
{
	int cpu, policy;

	if (!slept_ns || slept_ns >= RCB__CB_BESIDE_NS)
		return false;
	cpu = sched_getcpu();
	if (cpu < 0 || rcb_load_relaxed(&w->waker_cpu) != cpu)
		return false;
	policy = sched_getscheduler(0);
	return policy == SCHED_OTHER || policy == SCHED_BATCH ||
	       policy == SCHED_IDLE;
}

/*
 * Subtract the callbacks invoked since the last call from the backlog
 * (invariant 5).  The backlog only grows between two of these calls, so
 * its high-water mark is the larger of the marks seen here and the
 * current backlog (rcb_backlog()): producers need not maintain it.
 */
static void account_invoked(struct rcb_worker *w)
{
	unsigned long long n = rcb_load_relaxed(&w->batch.n);
	unsigned long long bytes = rcb_load_relaxed(&w->batch.bytes);
	unsigned long long now_n, now_bytes;

	if (n) {
		backlog_now(&now_n, &now_bytes);
		rcb_max_relaxed(&peak, now_n);
		rcb_max_relaxed(&peak_bytes, now_bytes);
	}
	if (kick_armed()) {
		rcb_sub_relaxed(&kick_count, (long long)n);
		rcb_sub_relaxed(&kick_bytes, (long long)bytes);
	}
	/* [CB-I] After the invocations; pairs with [CB-IA]. */
	rcb_add_release(&rcb__cb_invoked_bytes, bytes);
	rcb_add_release(&rcb__cb_invoked, n); /* [CB-I] */
	rcb_add_relaxed(&w->invoked, n);
	rcb_store_relaxed(&w->batch.n, 0);
	rcb_store_relaxed(&w->batch.bytes, 0);
}

/* Splice the queue into a new batch (invariant 11).  False if empty. */
static bool take_batch(struct rcb_worker *w)
{
	struct rcb_head *first, *last;
	bool got;

	pthread_mutex_lock(&rcb__cb_splice_lock);
	got = rcb__cb_splice(w, &first, &last);
	if (got) {
		rcb_store_relaxed(&w->batch.last, last);
		rcb_store_relaxed(&w->batch.todo, first);
	}
	pthread_mutex_unlock(&rcb__cb_splice_lock);
	return got;
}

/* Set by invoke_batch(), and by the wrappers it calls (sized heads,
 * liburcu's larger heads, deferred functions) to the function they
 * call in turn. */
__thread const void *rcb__cb_current;

/*
 * Invoke the batch in order.  The loop reads batch.todo and batch.last
 * anew for each node: a fork() from inside a callback may have trimmed
 * them (invariant 14).
 */
static void invoke_batch(struct rcb_worker *w)
{
	void (*func)(struct rcb_head *);
	struct rcb_head *h, *next;

	while ((h = rcb_load_relaxed(&w->batch.todo))) {
		/* Read before invoking: the callback frees the node. */
		if (h == rcb_load_relaxed(&w->batch.last)) {
			next = NULL;
			/* Invariant 15: the batch's last node may hold its
			 * end mark, which would refuse a legitimate
			 * rcb_call*() of the head from its own callback or
			 * after it (and a marker's stack memory, reused). */
			rcb_store_relaxed(&h->next, NULL);
		} else {
			next = next_of(h);
		}
		rcb_store_relaxed(&w->batch.todo, next);
		if (h->func == rcb__cb_barrier_reached) {
			/* The waiter sees the backlog without what it
			 * waited for. */
			account_invoked(w);
			rcb__cb_barrier_reached(h);
			continue;
		}
		rcb_store_relaxed(&w->batch.n, rcb_load_relaxed(&w->batch.n) + 1);
		rcb_store_relaxed(&w->batch.bytes,
				  rcb_load_relaxed(&w->batch.bytes) +
					  rcb__cb_bytes(h));
		rcb__cb_dbg_untrack(h);
		/* [CB-C] The node leaves the batch before any store of its
		 * invocation: store-store order for fork()'s copy of memory,
		 * which a forked child reads in
		 * rcb__callbacks_after_fork_child() (invariant 11).  A
		 * compiler barrier on x86; under ThreadSanitizer, which has
		 * no stand-alone fences (and runs no fork tests), too. */
#if defined(__SANITIZE_THREAD__)
		rcb_compiler_barrier(); /* [CB-C] */
#else
		atomic_thread_fence(memory_order_release); /* [CB-C] */
#endif
		func = h->func;
		rcb__cb_current = (const void *)(uintptr_t)func;
		func(h);
		/* Its section left open would hold every grace period
		 * (hence, from here on, every callback) forever. */
		if (RCB_UNLIKELY(rcb_read_ongoing()))
			rcb__end_leaked_section("callback", (const void *)(uintptr_t)func);
	}
	account_invoked(w);
}

/* Local mode (callback_local.c) pays off when the queue's exchange is a
 * real share of the caller's time: entered, and kept, while callbacks
 * arrive at this many per millisecond or more (a million per second: 1%
 * of a CPU in exchanges).  Slower streams keep the queue, whose
 * callbacks wait one grace period, not two. */
#ifndef RCB_SIM
#define RCB__CB_LOCAL_RATE 1000
/* ... and a batch of this many at least (a few callbacks close
 * together are no stream). */
#define RCB__CB_LOCAL_BATCH 64
#else
/* The simulator (tools/sim) runs a call in microseconds of virtual
 * time: it enters local mode at any stream, so that its burst workload
 * explores the mode's interleavings, not the rate policy. */
#define RCB__CB_LOCAL_RATE 1
#define RCB__CB_LOCAL_BATCH 2
#endif
#if defined(__SANITIZE_THREAD__) && !defined(RCB_SIM)
/* ThreadSanitizer builds: a call takes about 2 us there, so a stream at
 * full speed sat at the normal rate's edge and local mode came on in
 * some runs only (unit_callback_local failed once for it); at a tenth
 * of it, TSan sees the mode in every run. */
#undef RCB__CB_LOCAL_RATE
#define RCB__CB_LOCAL_RATE 100
#endif

static _Atomic bool rcb__cb_urcu_timing;

void rcb__cb_urcu_timing_on(void)
{
	/* Relaxed, and stored once: a callback thread reads it after it
	 * took a batch holding the caller's callback, which the queue's
	 * exchanges order after this store (see fixed_wait_us()). */
	if (RCB_UNLIKELY(!rcb_load_relaxed(&rcb__cb_urcu_timing)))
		rcb_store_relaxed(&rcb__cb_urcu_timing, true);
}

/*
 * The fixed wait before each batch, in microseconds, or 0 for the
 * grace-period start policy (gp_policy.c): RCUBOOST_CALLBACK_BATCH_US
 * when set, else liburcu's timing once the process used liburcu's
 * call_rcu().
 *
 * liburcu's timing.  liburcu's call_rcu thread sleeps 10 ms after it is
 * woken and after each batch, so a callback of liburcu's that arrives
 * while the thread is idle waits 10 ms, where rcuboost's runs within
 * microseconds (one queued near the end of a sleep runs sooner, with
 * either library: the wait is per batch, not per callback).  Programs
 * written and tested against liburcu can depend on that without
 * knowing it: netsniff-ng 0.6.9's flowtop walks its flow list outside
 * any read-side section while the same loop's netlink queries retire
 * entries with call_rcu(), and with rcuboost's timing it used freed
 * entries under load (a hostile-user run, 2026-12-06).  So the liburcu
 * API keeps liburcu's timing by default (RCUBOOST_URCU_CALLBACK_DELAY_US,
 * 10 ms; 0 turns it off), for every callback thread of the process once
 * it is on: a process that mixes both APIs gets liburcu's timing for
 * both (local mode ends, and its last batches wait too: local_cycle()).
 * The native API alone is not delayed.  rcb_barrier() and a stop cut
 * the wait short (gp_policy.c, rcb__gp_policy_wait_fixed()), as they cut
 * the policy's own: a barrier over N workers would otherwise wait N
 * fixed waits, one after the other (liburcu's queues to all, then waits
 * once), and rcb_worker_destroy() as long, holding rcb__cb_lock.
 */
static unsigned int fixed_wait_us(void)
{
	if (rcb__settings.callback_batch_us)
		return rcb__settings.callback_batch_us;
	return rcb_load_relaxed(&rcb__cb_urcu_timing) ? rcb__settings.urcu_callback_delay_us
						       : 0;
}

/* May @w's thread enter local mode?  The default worker only (threads
 * append only when they picked it); not while told to stop; not when
 * turned off (RCUBOOST_CALLBACK_LOCAL=0), nor with a fixed wait
 * (RCUBOOST_CALLBACK_BATCH_US, liburcu's timing), which fixes the
 * batching. */
static bool local_capable(struct rcb_worker *w)
{
	return w == &rcb__cb_default && !rcb_load_relaxed(&w->stop) &&
	       rcb__settings.callback_local && !fixed_wait_us();
}

/*
 * Local mode: did rcb_barrier() queue a marker on the default worker
 * directly since the last look?  Called by its thread just before each
 * of its splices (the normal loop's only to start afresh at local
 * mode's entry), so that the batch formed knows it may hold one
 * (callback_local.c, L6): a cycle waits (the coalescing wait, or the
 * fixed wait of liburcu's timing) before it invokes the batch formed by
 * the cycle before, and the marker's bump may have cut the wait before
 * that earlier batch, leaving the marker's own batch to wait in full
 * (1 s of RCUBOOST_URCU_CALLBACK_DELAY_US per barrier).
 * A marker in this splice whose count the look misses: its bump, made
 * after the count, was seen by no wait (nor rcb__gp_policy_taking())
 * before the look, as one that saw it would make the look see the
 * count, and so cuts the next wait, the one before this batch.  A
 * count seen whose marker an earlier splice took costs one wait
 * skipped.
 */
static bool queued_marker_since(void)
{
	static unsigned long seen; /* the default worker's thread alone */
	/* [CB-DMA] pairs with [CB-DM] in barrier_one(): the marker
	 * counted is in this splice or an earlier one. */
	unsigned long n = rcb_load_acquire(&default_markers);
	bool since = n != seen;

	seen = n;
	return since;
}

/*
 * Local mode: form the batch the next cycle invokes (callback_local.c,
 * L5, L6): the lists taken, the queue, the markers due.  Under
 * rcb__cb_splice_lock, like take_batch() (invariant 11).  False if
 * empty.  *@markers: the batch may hold a barrier's marker.
 */
static bool form_local_batch(struct rcb_worker *w, bool *markers,
			     unsigned long *taken, struct rcb__cb_lead *lead)
{
	struct rcb_head *first = NULL, *last = NULL, *f, *l, *mf, *ml;
	bool queued_marker = queued_marker_since();

	pthread_mutex_lock(&rcb__cb_splice_lock);
	*taken = rcb__cb_local_steal(&f, &l, &mf, &ml, lead);
	rcb__cb_chain_append(&first, &last, f, l);
	if (rcb__cb_splice(w, &f, &l))
		rcb__cb_chain_append(&first, &last, f, l);
	rcb__cb_chain_append(&first, &last, mf, ml);
	*markers = mf != NULL || queued_marker;
	if (first) {
		rcb_store_relaxed(&w->batch.last, last);
		rcb_store_relaxed(&w->batch.todo, first);
	}
	pthread_mutex_unlock(&rcb__cb_splice_lock);
	return first != NULL;
}

/* Callbacks per millisecond: @n since @*since_ns, which becomes now. */
static unsigned long long rate_since(uint64_t *since_ns, unsigned long long n)
{
	uint64_t now = rcb__now_ns();
	unsigned long long rate = *since_ns ? n * 1000000ull / (now - *since_ns + 1) : 0;

	*since_ns = now;
	return rate;
}

/*
 * Cleanup handler around invoke_batch(): a callback ended the thread
 * invoking it (pthread_exit(), or a cancellation it enabled).  The
 * worker would keep its queue with no thread to run it, and every
 * rcb_barrier() would wait forever: said, naming the callback, and the
 * process stopped, as for a fatal error.
 */
static void callback_thread_killed(void *arg)
{
	(void)arg;
	rcb__fn_ended_thread("callback", "the callback thread",
			     "; the callbacks queued after it could never run");
}

/* Wait for a grace period, then invoke @w's batch, in_callback set
 * meanwhile; tell the grace-period policy what both cost.  @lead: who
 * queued most of a local-mode batch, NULL otherwise.  Returns the
 * callbacks invoked. */
static unsigned long long synchronize_and_invoke(struct rcb_worker *w,
						 struct rcb__thread *self,
						 const struct rcb__cb_lead *lead)
{
	unsigned long long n0;
	uint64_t t0 = rcb__now_ns();

	rcb_synchronize();
	t0 = rcb__now_ns() - t0;
	/* After the grace period: a reader's unlock that woke this thread
	 * from it brought the thread to the reader's CPU. */
	if (lead)
		rcb__cb_local_follow(lead);
	n0 = rcb_load_relaxed(&w->invoked);
	self->in_callback = true;
	pthread_cleanup_push(callback_thread_killed, w);
	invoke_batch(w);
	pthread_cleanup_pop(0);
	self->in_callback = false;
	n0 = rcb_load_relaxed(&w->invoked) - n0;
	rcb__gp_policy_done(&w->gpp, t0, n0);
	return n0;
}

/*
 * One cycle of local mode (callback_local.c): flip, grace period, invoke
 * the batch formed last cycle, form the next.  *@rate: callbacks per
 * millisecond appended to the lists of the last on mode taken, over the
 * time that mode was current (from its flip to the next); the entry
 * cycle, @entry, takes an off mode's lists and keeps the rate that
 * brought local mode on.  *@since_ns: when this cycle ends.  *@lead: who
 * queued most of the batch formed (following).  False once
 * local mode is off and nothing is left to invoke.
 */
static bool local_cycle(struct rcb_worker *w, struct rcb__thread *self,
			bool entry, uint64_t *since_ns, unsigned long long *rate,
			struct rcb__cb_lead *lead)
{
	/* This thread's alone: the batch to invoke may hold a marker
	 * (handed over or queued); the last flip's mode and time, and the
	 * time of the one before. */
	static bool markers_held, last_on;
	static uint64_t flip_ns, prev_flip_ns;
	bool on = *rate >= RCB__CB_LOCAL_RATE && local_capable(w);
	bool formed, took_on = !entry && last_on;
	unsigned long taken;
	unsigned int fixed;

	/* Entry: what was queued is taken before the flip, and waits for
	 * this cycle's grace period only (L5 holds: the lists taken below
	 * are those of the off mode before the flip, empty).  A marker
	 * counted since the last look (the normal loop's last take) is in
	 * it. */
	if (entry) {
		markers_held = queued_marker_since();
		(void)take_batch(w);
		lead->cpu = -1;
	}
	rcb__cb_local_flip(on);
	last_on = on;
	prev_flip_ns = flip_ns;
	flip_ns = rcb__now_ns();
	/* The coalescing wait (gp_policy.c), after the flip: threads
	 * append meanwhile.  None while a barrier waits. */
	if (on && !markers_held && !rcb__cb_local_markers_pending())
		rcb__gp_policy_wait(&w->gpp, true, false);
	/* Off because liburcu's timing came on (fixed_wait_us()): the
	 * batch formed last may hold call_rcu() callbacks.  Not while a
	 * barrier's marker is in it, nor once the thread is stopping, as
	 * in the normal loop: a bump cuts one wait short, and the cycles
	 * that drain local mode would each wait again (a review). */
	if (!on && !markers_held && !rcb_load_relaxed(&w->stop) &&
	    (fixed = fixed_wait_us()) != 0)
		rcb__gp_policy_wait_fixed(&w->gpp, fixed);
	(void)synchronize_and_invoke(w, self, lead);
	formed = form_local_batch(w, &markers_held, &taken, lead);
	/* The lists taken were current from the flip before this cycle's
	 * to this cycle's.  Those of an off mode are empty: only an on
	 * mode's measure the stream (else local mode would turn off every
	 * other cycle). */
	if (took_on)
		*rate = taken * 1000000ull / (flip_ns - prev_flip_ns + 1);
	*since_ns = rcb__now_ns();
	return formed || on;
}

static void *worker_thread(void *arg)
{
	struct rcb_worker *w = arg;
	struct rcb__thread *self = rcb__self();
	bool first = true, local = false, entry = false;
	unsigned long long rate = 0; /* callbacks per ms, last batch or cycle */
	unsigned long long last_n = 0; /* callbacks of the last normal batch */
	uint64_t since_ns = 0;
	/* Wake-ups in a row beside a producer (woke_beside_producer()). */
	unsigned int beside = 0;
	/* Who queued most of the local batch formed last (following). */
	struct rcb__cb_lead lead = { .cpu = -1 };

	/* Nobody may cancel a callback thread (rcb_worker_thread() hands
	 * out its pthread_t): it would leave its queue with no thread. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	prctl(PR_SET_NAME, w == &rcb__cb_default ? "rcuboost-cb" : "rcuboost-cbw",
	      0, 0, 0);
	self->cb_running = w;
	/* Its CPUs as the library gave them: before the thread ID is
	 * known, and with it a way to change them. */
	if (w == &rcb__cb_default)
		rcb__cb_local_follow_start();
	/* [CB-TID] pairs with [CB-TIDW] in start_locked(). */
	rcb_store_relaxed(&w->tid, gettid());
	rcb_store_release(&w->tid_ready, 1);
	rcb__futex_wake(&w->tid_ready, 1);
	/* Not registered: a registered callback thread would keep every
	 * rcb_synchronize() of an otherwise single-threaded process off
	 * the no-other-reader path (gp.c invariant 7).  A callback that
	 * reads registers the thread by its first rcb_read_lock(). */
	rcb_store_relaxed(&w->waker_cpu, -1); /* none yet */
	for (;;) {
		/* Work queued while the previous batch was in progress. */
		bool stop, back_to_back = !first && !rcb__cb_queue_empty(w);
		unsigned int waited_us = 0;
		uint64_t slept_ns;

		if (local) {
			local = local_cycle(w, self, entry, &since_ns, &rate, &lead);
			entry = false;
			continue;
		}
		first = false;
		slept_ns = wait_for_work(w);
		if (!woke_beside_producer(w, slept_ns))
			beside = 0;
		else if (beside < RCB__CB_BESIDE_ROW)
			beside++;
		/* A fast stream of callbacks: local mode (callback_local.c). */
		if ((back_to_back || w->gpp.stream) && last_n >= RCB__CB_LOCAL_BATCH &&
		    rate >= RCB__CB_LOCAL_RATE && local_capable(w)) {
			local = entry = true;
			beside = 0; /* a row of wake-ups, not of modes */
			continue;
		}
		/* Not while told to stop: a stopper waits for the drain
		 * (rcb_shutdown()) or the abandon (rcb_worker_destroy(),
		 * holding rcb__cb_lock). */
		waited_us = rcb_load_relaxed(&w->stop) ? 0 : fixed_wait_us();
		if (waited_us && !rcb__cb_queue_empty(w)) {
			rcb__gp_policy_wait_fixed(&w->gpp, waited_us);
		} else {
			/* No fixed wait made: the check after the splice
			 * below makes it if one applies now. */
			waited_us = 0;
			/* When to start the grace period (gp_policy.c):
			 * at once, unless callbacks arrived while the
			 * previous batch was in progress. */
			if (!rcb_load_relaxed(&w->stop))
				rcb__gp_policy_wait(&w->gpp, back_to_back,
						    beside >= RCB__CB_BESIDE_ROW);
		}
		/* [CB-SA] The stop flag before the queue (invariant 8):
		 * pairs with [CB-STOP], whose store follows, under rcb__cb_lock,
		 * every marker enqueued while the thread was running. */
		stop = rcb_load_acquire(&w->stop);
		/* Invariant W4: a destroyed worker leaves its queue. */
		if (stop && rcb_load_relaxed(&w->abandon))
			break;
		rcb__gp_policy_taking(&w->gpp);
		/* Markers queued so far are in this take or an earlier
		 * one, none in local mode's next (its entry). */
		if (w == &rcb__cb_default)
			(void)queued_marker_since();
		if (!take_batch(w)) {
			if (stop)
				break;
			continue;
		}
		/* The batch holding a process's first call_rcu() through
		 * the liburcu API may have been taken by a thread that did
		 * not see liburcu's timing on before its wait; it sees it
		 * now (the store precedes the caller's enqueue, which our
		 * splice read): the wait comes after the splice, once. */
		if (!waited_us && !rcb_load_relaxed(&w->stop) &&
		    (waited_us = fixed_wait_us()) != 0)
			rcb__gp_policy_wait_fixed(&w->gpp, waited_us);
		last_n = synchronize_and_invoke(w, self, NULL);
		rate = rate_since(&since_ns, last_n);
	}
	(void)rcb_unregister_thread(); /* -ENOENT unless a callback read */
	rcb__cb_unboost_self(w); /* callback_boost.c B3 */
	self->cb_running = NULL;
	return NULL;
}

/* Thread attributes of @w: CPU (@pin: its own, if pinned), and policy
 * and priority (its own, else the library's callback priority), never
 * the creating thread's (see rcb__lib_thread_attr()).  *@rt: a real-time
 * policy set. */
static int worker_attr(struct rcb_worker *w, pthread_attr_t *a, bool *rt,
		       bool pin)
{
	struct sched_param sp = { 0 };
	int policy = w->policy, prio = w->prio, err;

	*rt = false;
	if ((err = pthread_attr_init(a)) != 0)
		return err;
	if ((err = rcb__lib_thread_attr(a)))
		return err; /* SCHED_OTHER; RCUBOOST_CPUS or the process's CPUs */
	if (pin && (w->flags & RCB_WORKER_PIN)) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		if ((err = pthread_attr_setaffinity_np(a, sizeof(set), &set)))
			return err;
	}
	if (policy == SCHED_OTHER && rcb__settings.callback_prio > 0) {
		policy = SCHED_FIFO;
		prio = rcb__settings.callback_prio;
	}
	if (policy != SCHED_OTHER) {
		sp.sched_priority = prio;
		if ((err = pthread_attr_setschedpolicy(a, policy)) ||
		    (err = pthread_attr_setschedparam(a, &sp)))
			return err;
		*rt = true;
	}
	return 0;
}

static int start_locked(struct rcb_worker *w, bool drain);

/*
 * Start @w's thread on its pinned CPU; a worker that exists (not one
 * rcb_worker_create() is making, which returns the error) whose CPU the
 * process may no longer use (CPU hot-unplug, a cpuset change) starts
 * unpinned rather than not at all, as liburcu's per-CPU threads run on
 * when their CPU cannot be had: its callbacks, and the barriers and
 * polled cookies waiting for them, would wait forever.  Said once per
 * worker.
 */
static int start_pinned(struct rcb_worker *w, pthread_attr_t *a, bool *rt,
			bool creating)
{
	int err = pthread_create(&w->thread, a, worker_thread, w);

	if (err != EINVAL || creating)
		return err;
	if (!w->pin_lost)
		fprintf(stderr,
			"rcuboost: a callback worker pinned to CPU %d cannot start there (a "
			"cpuset change or CPU hot-unplug): it starts unpinned, where the "
			"library's threads run\n", w->cpu);
	w->pin_lost = true;
	pthread_attr_destroy(a);
	if ((err = worker_attr(w, a, rt, false)) == 0)
		err = rcb__lib_thread_spawn(&w->thread, a, worker_thread, w);
	return err;
}

/*
 * Start @w's thread unless it runs.  Without @drain, only while the
 * library runs (invariant 9).  Context: rcb__cb_lock held, not a callback.
 * Not a cancellation point: its messages (stdio is one) are printed with
 * rcb__cb_lock held, which a cancelled caller would never release, and it
 * is reached from rcb_read_unlock() (rcb__cb_wake_late(),
 * rcb__cb_start_later()).
 */
int rcb__cb_start_locked(struct rcb_worker *w, bool drain)
{
	int cancel, err;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	err = start_locked(w, drain);
	pthread_setcancelstate(cancel, NULL);
	return err;
}

static int start_locked(struct rcb_worker *w, bool drain)
{
	static bool told;
	pthread_attr_t a;
	bool rt;
	int err;

	if (rcb_load_relaxed(&w->started))
		return 0;
	if (!drain && !rcb_load_relaxed(&rcb__running))
		return 0;
	rcb_store_relaxed(&w->stop, false);
	rcb_store_relaxed(&w->abandon, false);
	rcb_store_relaxed(&w->tid_ready, 0);
	err = worker_attr(w, &a, &rt, true);
	/* Booster mode (callback_boost.c): not for a worker the
	 * application placed at real-time priority or that polls.  Set
	 * before the thread exists: its first callback may call rcb_call(),
	 * which reads it. */
	rcb_store_relaxed(&w->cbboost, !rt && !(w->flags & RCB_WORKER_RT));
	/* Here, not in the thread, which may run long after we return: a
	 * barrier's bump made meanwhile, under rcb__cb_lock after its
	 * marker, must still cut the thread's first wait (gp_policy.c
	 * invariant 2: a wait of the new thread ended 1 s late in a
	 * sanitizer run).  pthread_create() orders it for the thread. */
	rcb__gp_policy_init(&w->gpp);
	if (!err && (w->flags & RCB_WORKER_PIN))
		err = start_pinned(w, &a, &rt, w != &rcb__cb_default && !w->id);
	else if (!err)
		err = rcb__lib_thread_spawn(&w->thread, &a, worker_thread, w);
	if (err == EPERM && rt && w == &rcb__cb_default) {
		/* The library's own worker runs without the real-time
		 * priority it may not have, as the boosters do. */
		if (!told)
			fprintf(stderr, "rcuboost: no permission for the callback priority %d: the callback thread runs at normal priority\n",
				rcb__settings.callback_prio);
		told = true;
		pthread_attr_destroy(&a);
		pthread_attr_init(&a);
		err = rcb__lib_thread_attr(&a);
		rt = false;
		rcb_store_relaxed(&w->cbboost, !(w->flags & RCB_WORKER_RT));
		if (!err)
			err = rcb__lib_thread_spawn(&w->thread, &a, worker_thread, w);
	}
	if (err) {
		/* Said at the 1st, 2nd, 4th, 8th... failure: a caller that
		 * retries at every rcb_call() would flood stderr. */
		static unsigned long failures;
		/* A worker rcb_worker_create() is making has no id yet. */
		bool creating = w != &rcb__cb_default && !w->id;
		struct sched_param sp = { 0 };
		char at[64] = "";
		int policy = SCHED_OTHER, n = 0;

		/* EINVAL for a new pinned worker: its CPU is not one the
		 * process may use. */
		if (w->flags & RCB_WORKER_PIN)
			n = snprintf(at, sizeof(at), " on CPU %d", w->cpu);
		if (rt && !pthread_attr_getschedpolicy(&a, &policy) &&
		    !pthread_attr_getschedparam(&a, &sp))
			snprintf(at + n, sizeof(at) - (size_t)n,
				 " at %s priority %d",
				 policy == SCHED_RR ? "SCHED_RR" : "SCHED_FIFO",
				 sp.sched_priority);
		failures++;
		if (!(failures & (failures - 1)))
			fprintf(stderr,
				"rcuboost: cannot start %s%s: %s (%lu time(s)); %s\n",
				w == &rcb__cb_default ? "the callback thread"
						      : "a callback worker's thread",
				at, strerror(err), failures,
				creating ? "rcb_worker_create() returns that error and makes no worker"
					 : "until it can, rcb_call() returns that error with nothing "
					   "queued (a call nested in a section queues, and its callback "
					   "waits for the next start), rcb_barrier() returns it, and "
					   "rcb_start_poll() runs its grace period itself");
		pthread_attr_destroy(&a);
		return -err;
	}
	pthread_attr_destroy(&a);
	/* [CB-TIDW] pairs with [CB-TID] in worker_thread(): the worker's
	 * thread ID is known when it counts as started. */
	while (!rcb_load_acquire(&w->tid_ready))
		rcb__futex_wait(&w->tid_ready, 0, 0);
	/* [CB-TR] pairs with [CB-T] */
	rcb_store_release(&w->started, true);
	return 0;
}

/*
 * Stop @w's thread: it drains the queue, or, with @abandon, stops after
 * its current batch.  Without @abandon, start it first if callbacks
 * inherited across fork() have no thread.  Context: rcb__cb_lock held
 * (invariant 7), not a callback of @w.
 */
int rcb__cb_stop_locked(struct rcb_worker *w, bool abandon)
{
	int err;

	if (!abandon && !rcb_load_relaxed(&w->started) &&
	    !rcb__cb_queue_empty(w) && (err = rcb__cb_start_locked(w, true)) != 0)
		return err;
	if (!rcb_load_relaxed(&w->started))
		return 0;
	rcb_store_relaxed(&w->abandon, abandon);
	/* [CB-STOP] Stop flag, then an unconditional wake-up, both
	 * sequentially consistent: pairs with [CB-S] and [CB-SA].  Either
	 * the thread's re-check sees the flag, or our futex store comes
	 * after its -1 and its futex_wait() returns at once. */
	rcb_store_seq_cst(&w->stop, true);
	rcb_store_seq_cst(&w->futex, 0); /* [CB-STOP] */
	rcb__futex_wake(&w->futex, 1);
	rcb__gp_policy_urgent(); /* no coalescing wait (gp_policy.c) */
	if ((err = rcb__lib_thread_join(w->thread)) != 0)
		RCB_DIE("pthread_join(callback thread)", err);
	rcb_store_relaxed(&w->started, false);
	rcb_store_relaxed(&w->tid, 0);
	return 0;
}

_Atomic bool rcb__cb_inherited;

/*
 * A forked child's workers keep the parent's callbacks but have no
 * thread until their next rcb_call*() or barrier (invariant 13).  The
 * library's own requests, the poll head (gp_poll.c) and the defer
 * queues' heads (defer.c), are queued once and then only looked at: a
 * child whose request was inherited queued would wait forever.  Such a
 * caller starts every worker that holds callbacks, as a first
 * rcb_call() would start one.  Inside a section of the caller's own
 * (rcb_start_poll() may be called there) it leaves that to the
 * section's outermost unlock, as a nested rcb_call*() leaves its start
 * (invariant 9).  Context: not a callback (invariant 9); it may block
 * once per child, on rcb__cb_lock and thread creation.
 */
void rcb__cb_start_inherited(void)
{
	struct rcb__thread *self;

	if (RCB_LIKELY(!rcb_load_relaxed(&rcb__cb_inherited)))
		return;
	self = rcb__self();
	if (self->in_callback)
		return;
	if (rcb_read_ongoing()) {
		if (self->registered) {
			rcb_store_relaxed(&self->cb_start_later, true);
			atomic_fetch_or_explicit(&rcb__reader.special,
						 RCB__READER_WAKE_CB,
						 memory_order_relaxed);
		}
		/* An unregistered thread's section (a signal handler's)
		 * has no unlock hook: the next call outside one starts
		 * them. */
		return;
	}
	pthread_mutex_lock(&rcb__cb_lock);
	if (rcb_load_relaxed(&rcb__cb_inherited) &&
	    rcb_load_relaxed(&rcb__running)) {
		int err = 0;

		/* Every worker, whatever an earlier one returned; the flag
		 * stays set, and the starts are tried again, while one
		 * fails. */
		for (struct rcb_worker *w = rcb__cb_workers; w; w = w->next)
			if (!rcb__cb_queue_empty(w) &&
			    rcb__cb_start_locked(w, false) != 0)
				err = 1;
		if (!err)
			rcb_store_relaxed(&rcb__cb_inherited, false);
	}
	pthread_mutex_unlock(&rcb__cb_lock);
}

/* Start @w if it is still a live worker.  Not a callback. */
static int start_listed(struct rcb_worker *w)
{
	int err = 0;

	pthread_mutex_lock(&rcb__cb_lock);
	if (rcb__cb_listed(w))
		err = rcb__cb_start_locked(w, false);
	pthread_mutex_unlock(&rcb__cb_lock);
	return err;
}

/* ---- API ---------------------------------------------------------- */

/*
 * @w's thread sleeps and the calling rcb_call*() queued to it: who wakes
 * it, and when (invariant 4).  Returns @w for a wake-up at the end of
 * the call's own section, or NULL when it is left to the outermost
 * unlock of a section of the caller's own that the call is nested in
 * (one worker per thread at a time: another one is woken at once).
 * Context: inside the call's read-side critical section.
 */
static struct rcb_worker *wake_decided(struct rcb__thread *self,
				       struct rcb_worker *w, bool start_late)
{
	struct rcb_worker *later = NULL, *r = w;

	/* Nested in a section of ours: left to its outermost unlock, by a
	 * compare-and-exchange (a signal handler's call may interrupt
	 * this one), unless that already holds this worker (counted then)
	 * or another one. */
	if (self->registered &&
	    (rcb_load_relaxed(&rcb__reader.ctr) & RCB__NEST_MASK) != RCB__NEST_ONE) {
		if (rcb_cmpxchg_relaxed(&self->cb_wake_later, &later, w))
			r = NULL;
		else if (later == w)
			return NULL;
		else if (start_late) {
			/* Another worker holds the slot, and this one has
			 * no thread to wake: it may not be started inside
			 * the section either (invariant 9).  Marked, and
			 * found on the list at the unlock.  [CB-SL] After
			 * the enqueue: pairs with [CB-SLA] in
			 * rcb__cb_start_later(), whose caller may be
			 * another thread's unlock. */
			rcb_store_release(&w->start_later, true);
			rcb_store_relaxed(&self->cb_start_later, true);
			atomic_fetch_or_explicit(&rcb__reader.special,
						 RCB__READER_WAKE_CB,
						 memory_order_relaxed);
			return NULL;
		}
	}
	/* [CB-LW] Inside the section: a destroy's grace period that
	 * follows it sees the count ([CB-LWA]). */
	if (w != &rcb__cb_default)
		rcb_add_relaxed(&w->late_wakers, 1);
	if (!r)
		atomic_fetch_or_explicit(&rcb__reader.special, RCB__READER_WAKE_CB,
					 memory_order_relaxed);
	return r;
}

/*
 * rcb_call*() of @func(@h); @s: @h's sized head (NULL for a plain one)
 * counting @bytes.  Nothing is written to the head before every check
 * passed: a refused call leaves the caller's object as it was.
 */
static int call(struct rcb_head *h, void (*func)(struct rcb_head *h),
		struct rcb_head_sized *s, size_t bytes, bool quiet)
{
	const char *call_name = s ? "rcb_call_sized" : "rcb_call";
	struct rcb__thread *self;
	struct rcb_worker *w;
	bool start_late = false;
	int err;

	for (;;) {
		rcb_read_lock();
		self = rcb__self();
		/* A callback may queue more work while rcb_shutdown()
		 * drains the queue: its own worker runs until its queue is
		 * empty (invariant 9). */
		if (RCB_UNLIKELY(!rcb_load_relaxed(&rcb__running))) {
			if (!self->in_callback) {
				rcb_read_unlock();
				if ((err = rcb__ensure_init()) != 0)
					return err;
				if (rcb_load_relaxed(&rcb__running))
					continue;
				if (!quiet)
					rcb__misuse(call_name,
						    "called after rcb_shutdown(); nothing queued, the caller keeps the object");
				return -ESHUTDOWN;
			}
			w = self->cb_running;
			break;
		}
		w = rcb__cb_pick();
		/* [CB-T] pairs with [CB-TR] in rcb__cb_start_locked(). */
		if (RCB_LIKELY(rcb_load_acquire(&w->started)))
			break;
		if (self->in_callback) {
			/* Invariant 9: no lock in a callback. */
			w = self->cb_running;
			break;
		}
		/* Nested in a section of the caller's own: the lock that
		 * starts the thread may be held by a stopper joining a
		 * worker whose grace period waits for that section
		 * (invariant 7).  Queue now, start at the outermost unlock
		 * (wake_decided(), rcb__cb_wake_late()): the callback's
		 * grace period waits for that section anyway. */
		if (self->registered &&
		    (rcb_load_relaxed(&rcb__reader.ctr) & RCB__NEST_MASK) != RCB__NEST_ONE) {
			start_late = true;
			break;
		}
		rcb_read_unlock();
		if ((err = start_listed(w)) != 0)
			return err;
	}
	/* Invariant 15: a head queued last still holds its end mark (one
	 * load of the line the stores below write anyway); the debug set
	 * finds the others. */
	if (RCB_UNLIKELY(rcb_load_relaxed(&h->next) == rcb__cb_end(h)) ||
	    RCB_UNLIKELY(rcb__cb_dbg_track(h))) {
		rcb_read_unlock();
		rcb__misuse(call_name,
			    "rcb_head %p is already queued (its callback has not run yet); nothing queued",
			    (void *)h);
		return -EBUSY;
	}
	long long n = 0, nbytes = 0;
	unsigned long long kick_at;
	/* Invariant 4: wake-ups decided inside the section, made after. */
	struct rcb_worker *wake = NULL;
	bool kick_boosters = false;

	if (s) {
		s->func = func;
		s->bytes = bytes;
		h->func = rcb__cb_sized_invoke;
	} else {
		/* Two words only (struct rcb_head): a 16-byte liburcu
		 * head is written nowhere past its end. */
		h->func = func;
	}
	/* Invariant 5: counted before the enqueue ([CB-Q] orders it).  The
	 * thread's own counters take a plain load and store, so only an
	 * outermost call() updates them: a signal handler's rcb_call*()
	 * that interrupts this one between its load and store runs nested
	 * (depth 2 or more) and counts in the global atomic instead,
	 * as does a call from inside the caller's own critical section. */
	if (RCB_LIKELY(self->registered &&
		       (rcb_load_relaxed(&rcb__reader.ctr) & RCB__NEST_MASK) ==
			       RCB__NEST_ONE)) {
		rcb_store_relaxed(&self->cb_queued,
				  rcb_load_relaxed(&self->cb_queued) + 1);
		if (bytes)
			rcb_store_relaxed(&self->cb_queued_bytes,
					  rcb_load_relaxed(&self->cb_queued_bytes) +
						  bytes);
	} else {
		/* Nested, or a signal handler's section on an
		 * unregistered thread. */
		rcb_add_relaxed(&rcb__cb_queued_gone, 1);
		rcb_add_relaxed(&rcb__cb_queued_gone_bytes, bytes);
	}
	kick_at = rcb_load_relaxed(&rcb__pressure_kick_at);
	if (RCB_UNLIKELY(kick_at || rcb_load_relaxed(&rcb__pressure_kick_bytes))) {
		n = rcb_add_relaxed(&kick_count, 1) + 1;
		if (bytes)
			nbytes = add_return_bytes((long long)bytes);
	}
	/* Local mode (callback_local.c, L1): plain stores to our own list;
	 * the worker's thread runs cycles and takes it (L7: no wake-up). */
	if (!(w == &rcb__cb_default && self->registered &&
	      !self->in_callback && rcb__cb_local_append(self, h))) {
		enqueue(w, h);
		/* [CB-F] Load after the seq_cst exchange in enqueue():
		 * pairs with [CB-S]: either the consumer's re-check sees
		 * our node, or we see its -1 and wake it (invariant 4:
		 * after our section, or after the caller's). */
		if (RCB_UNLIKELY(rcb_load_seq_cst(&w->futex) == -1 || start_late))
			wake = wake_decided(self, w, start_late);
		/* [CBB-K] Booster mode: booster 0 sleeps without timeout;
		 * load after the seq_cst exchange in enqueue(), pairs with
		 * [BST-IDL] (callback_boost.c B5). */
		kick_boosters = RCB_UNLIKELY(rcb_load_seq_cst(&rcb__cb_boost_idle)) &&
				rcb_load_relaxed(&w->cbboost);
	}
	rcb_read_unlock();
	if (RCB_UNLIKELY(wake != NULL))
		rcb__cb_wake_late(wake);
	if (RCB_UNLIKELY(kick_boosters))
		rcb__cb_boost_kick();
	/* Memory pressure: the boosters learn of it now, not a period
	 * later (booster.c). */
	if (RCB_UNLIKELY(kick_at && n >= (long long)kick_at))
		rcb__pressure_kick();
	if (nbytes) {
		kick_at = rcb_load_relaxed(&rcb__pressure_kick_bytes);
		if (RCB_UNLIKELY(kick_at && nbytes >= (long long)kick_at))
			rcb__pressure_kick();
	}
	return 0;
}

RCB_API int rcb_call(struct rcb_head *head, void (*func)(struct rcb_head *head))
{
	if (RCB_UNLIKELY(!head || !func)) {
		rcb__misuse("rcb_call", "%s is NULL; nothing queued",
			    head ? "the callback function" : "the rcb_head");
		return -EINVAL;
	}
	return call(head, func, NULL, 0, false);
}

RCB_API int rcb_call_sized(struct rcb_head_sized *head,
			   void (*func)(struct rcb_head *head), size_t bytes)
{
	if (RCB_UNLIKELY(!head || !func)) {
		rcb__misuse("rcb_call_sized", "%s is NULL; nothing queued",
			    head ? "the callback function" : "the rcb_head_sized");
		return -EINVAL;
	}
	return call(&head->head, func, head, bytes, false);
}

/* rcb_call() for the library's own heads (defer.c, gp_poll.c), which
 * read rcb__running outside the section that call() reads it in: one
 * that loses a race with rcb_shutdown() gets -ESHUTDOWN, unreported (the
 * program did nothing wrong), and handles it as shutdown. */
int rcb__call_own(struct rcb_head *h, void (*func)(struct rcb_head *h))
{
	return call(h, func, NULL, 0, true);
}

/*
 * Wait for the callbacks queued on @w before the call.  0 or an error.
 * @id is the worker's creation number, read under rcb__cb_lock when @w
 * was found: @w may have been destroyed and freed since, and its memory
 * given to a newer worker, so @w is dereferenced only once it is found
 * listed with that same number (ids are never reused).
 * Context: not a callback, outside read-side critical sections.
 */
static int barrier_one(struct rcb_worker *w, unsigned long id)
{
	struct rcb__cb_marker m = { .done = 0 };
	struct rcb__waiter waiter;
	int err = 0;

	m.head.func = rcb__cb_barrier_reached;
	/* Invariant 8: the marker is enqueued under rcb__cb_lock, while the
	 * thread runs and has not been told to stop. */
	pthread_mutex_lock(&rcb__cb_lock);
	if (!rcb__cb_listed(w) || w->id != id) {
		/* Destroyed meanwhile: its callbacks went to the default
		 * worker, which rcb_barrier() waits for last. */
		pthread_mutex_unlock(&rcb__cb_lock);
		return 0;
	}
	if (!rcb_load_relaxed(&w->started) && !rcb__cb_queue_empty(w)) {
		/* Callbacks waiting for a start (inherited across fork(),
		 * or a nested call's failed start at its unlock): run them
		 * on a thread of our own, or, once the library is shut
		 * down, drain them as rcb_shutdown() would. */
		err = rcb__cb_start_locked(w, false);
		if (!err && !rcb_load_relaxed(&w->started))
			err = rcb__cb_stop_locked(w, false);
	}
	if (err || !rcb_load_relaxed(&w->started)) {
		/* Nothing was queued since the thread last stopped, or the
		 * drain above ran it all. */
		pthread_mutex_unlock(&rcb__cb_lock);
		return err;
	}
	/* Local mode: the worker places the marker after the lists that
	 * may hold earlier callbacks (callback_local.c, L6). */
	if (w != &rcb__cb_default || !rcb__cb_local_barrier(&m)) {
		enqueue(w, &m.head);
		/* [CB-DM] After the enqueue, before the bump below: pairs
		 * with [CB-DMA] in queued_marker_since(). */
		if (w == &rcb__cb_default)
			rcb_add_release(&default_markers, 1);
		if (rcb_load_seq_cst(&w->futex) == -1) /* [CB-F] */
			wake_thread(w);
	}
	rcb__gp_policy_urgent(); /* no coalescing wait (gp_policy.c) */
	pthread_mutex_unlock(&rcb__cb_lock);
	/* A real-time caller lends its priority to the readers that hold
	 * the callback thread's grace period (src/core/inherit.c). */
	rcb__waiter_enter(&waiter, false);
	rcb__waiter_announce(&waiter);
	for (;;) {
		/* [CB-WS] pairs with [CB-BS]: if the sequence read is the
		 * one after our marker's, done reads set below. */
		int seq = rcb_load_acquire(&barrier_seq);

		/* [CB-W] pairs with [CB-B]. */
		if (rcb_load_acquire(&m.done))
			break;
		rcb__futex_wait(&barrier_seq, seq, 0);
	}
	rcb__waiter_leave(&waiter);
	return 0;
}

RCB_API int rcb_barrier(void)
{
	unsigned long last = 0;
	int err = 0, e;

	if (rcb_read_ongoing()) {
		rcb__misuse("rcb_barrier",
			    "called inside a read-side critical section; it would wait for itself forever");
		return -EDEADLK;
	}
	if (rcb__self()->in_callback) {
		rcb__misuse("rcb_barrier",
			    "called from an RCU callback; the callback thread would wait for itself");
		return -EDEADLK;
	}
	if (rcb__defer_refuses("rcb_barrier"))
		return -EDEADLK;
	/* Every other worker in creation order, the default worker last:
	 * a worker destroyed before we reach it moved its callbacks to the
	 * default worker (invariant W4). */
	for (;;) {
		struct rcb_worker *w, *next = NULL;

		pthread_mutex_lock(&rcb__cb_lock);
		for (w = rcb__cb_workers; w; w = w->next)
			if (w->id > last && (!next || w->id < next->id))
				next = w;
		/* Read under the lock: once it is dropped, a concurrent
		 * rcb_worker_destroy() may free @next, and a number read
		 * from freed (or reused) memory would skip the workers
		 * after it, and the barrier return early. */
		if (next)
			last = next->id;
		pthread_mutex_unlock(&rcb__cb_lock);
		if (!next)
			break;
		/* Not dereferenced before barrier_one() finds it listed
		 * under the same number.  A worker whose thread cannot
		 * start does not stop the others from being waited for;
		 * its error is returned. */
		if ((e = barrier_one(next, last)) != 0 && !err)
			err = e;
	}
	if ((e = barrier_one(&rcb__cb_default, 0)) != 0 && !err)
		err = e;
	return err;
}

/* Drain and stop every worker's thread.  Context: rcb_shutdown(), after
 * rcb__running was cleared (invariant 9). */
int rcb__callbacks_stop(void)
{
	int err = 0, e;

	/* Every worker, whatever an earlier one returned: the first
	 * error is the result. */
	pthread_mutex_lock(&rcb__cb_lock);
	for (struct rcb_worker *w = rcb__cb_workers; w; w = w->next)
		if ((e = rcb__cb_stop_locked(w, false)) != 0 && !err)
			err = e;
	pthread_mutex_unlock(&rcb__cb_lock);
	return err;
}

RCB_API void rcb_backlog(struct rcb__backlog_v0 *out)
{
	unsigned long long n, bytes;

	if (RCB_UNLIKELY(!out)) {
		rcb__misuse("rcb_backlog", "called with NULL; nothing stored");
		return;
	}
	backlog_now(&n, &bytes);
	out->callbacks = n;
	out->bytes = bytes;
	out->peak_callbacks = rcb_load_relaxed(&peak);
	out->peak_bytes = rcb_load_relaxed(&peak_bytes);
	if (out->callbacks > out->peak_callbacks)
		out->peak_callbacks = out->callbacks;
	if (out->bytes > out->peak_bytes)
		out->peak_bytes = out->bytes;
	out->invoked = rcb_load_relaxed(&rcb__cb_invoked);
}

RCB_API void rcb_backlog_reset_peak(void)
{
	unsigned long long n, bytes;

	backlog_now(&n, &bytes);
	rcb_store_relaxed(&peak, n);
	rcb_store_relaxed(&peak_bytes, bytes);
}
