/* SPDX-License-Identifier: MIT */
/*
 * Callbacks: rcb_call(), the callback thread, rcb_barrier(), the backlog,
 * and what becomes of all of them at rcb_shutdown() and fork().
 *
 * Algorithm.  rcb_call() appends to one intrusive multi-producer,
 * single-consumer queue with a stub node: a producer exchanges the tail
 * and then links the previous tail to its node (wait-free: no loop).  The
 * callback thread sleeps on rcb__cb_futex while the queue is empty,
 * splices everything queued into a batch, waits for one grace period
 * (rcb_synchronize()), then invokes the batch in queue order.
 * rcb_barrier() queues a marker and waits until the thread reaches it.
 * rcb_shutdown() stops the thread after it has drained the queue.  The
 * batch lives in static variables (not in the thread's locals) so
 * that a forked child, which has no callback thread, can find it.
 *
 * Invariants.
 *  1. Only the callback thread (or, when it is not running, a caller
 *     holding rcb__cb_lock) removes nodes; producers only append.
 *  2. A node is invoked only after a grace period that started after it
 *     was queued: the splice that takes it precedes rcb_synchronize().
 *  3. Queue order is invocation order, so a barrier marker is reached only
 *     after every node queued before it has been invoked.
 *  4. rcb__cb_futex is -1 only while the callback thread may sleep on an
 *     empty queue; a producer that sees -1 after its enqueue wakes it.
 *  5. rcb__cb_pending/rcb__cb_pending_bytes count every user callback from
 *     rcb_call*() until its invocation returns; barrier markers are not
 *     counted.
 *  6. rcb_call() runs its check of rcb__running and its enqueue inside a
 *     read-side critical section, so rcb_shutdown()'s grace period
 *     separates every accepted enqueue from the stop of the thread.
 *
 * Shutdown and barriers.
 *  7. rcb__cb_started and rcb__cb_stop change only under rcb__cb_lock, and
 *     rcb__cb_lock is held from the store of rcb__cb_stop until the thread
 *     is joined and rcb__cb_started is false again: under rcb__cb_lock,
 *     rcb__cb_started implies that the thread has not been told to stop.
 *  8. The thread exits only when it has read rcb__cb_stop as true and
 *     then, after that read, found the queue empty.  Hence a marker that
 *     rcb_barrier() enqueues under rcb__cb_lock while rcb__cb_started is
 *     true is taken by the thread: the enqueue precedes the store of
 *     rcb__cb_stop (rcb__cb_lock orders them), which precedes the thread's
 *     final look at the queue ([CB-SA]).  A barrier that finds
 *     rcb__cb_started false under rcb__cb_lock has nothing to wait for:
 *     the last stop drained the queue, or the queue holds callbacks
 *     inherited across fork(), which it runs first.
 *  9. The thread is started only under rcb__cb_lock, and, except to drain
 *     the queue for rcb_shutdown() or a barrier after it, only while
 *     rcb__running, read under rcb__cb_lock: rcb_shutdown() clears
 *     rcb__running before it takes rcb__cb_lock to stop the thread, so a
 *     start that comes after the stop sees it cleared and starts nothing.
 * 10. After rcb__cb_barrier_reached() sets the marker's done word, neither
 *     it nor anything else touches the marker, which lives in the waiter's
 *     stack frame: the waiter may return at once.  The wake-up goes to the
 *     static word barrier_seq, advanced after done ([CB-BS]).
 *
 * fork().  The child has only the forking thread and a copy of memory.
 * 11. The batch is the nodes from rcb__cb_batch.todo (the next node to
 *     invoke) to rcb__cb_batch.last, linked by their next fields.  The
 *     splice and the publication of a new batch happen under
 *     rcb__cb_splice_lock, which the fork handlers hold across fork(): the
 *     child never sees nodes that are in neither the queue nor the batch.
 *     The thread moves rcb__cb_batch.todo past a node before it invokes
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
 *     rcb__cb_pending/rcb__cb_pending_bytes are then recounted from the
 *     nodes: the backlog is exactly what the child will run.  The child
 *     starts its callback thread at its next rcb_call(), rcb_barrier() or
 *     rcb_shutdown().
 * 14. A callback that calls fork() makes its child's callback thread the
 *     forking thread itself, which finishes its batch there: the child
 *     keeps rcb__cb_started, trims the batch in place (same rules as 13),
 *     and counts the callbacks that thread has invoked and not yet
 *     accounted.
 *
 * Debug builds (RCB_DEBUG) also keep the set of queued heads, to report a
 * head queued again before its callback ran as misuse (it would link the
 * queue into a cycle); release builds have no such code.
 *
 * Files.  This file: the queue, rcb_call(), the callback thread,
 * rcb_barrier(), shutdown and the backlog.  callback_fork.c: the fork
 * handlers (invariants 11 to 14).  callback_debug.c: the debug set.
 * callback.h: the state they share.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "callback.h"
#include "internal.h"

struct rcb__cb_queue rcb__cb_q RCB__HOT_ALIGN = { .tail = &rcb__cb_q.stub };

_Atomic int rcb__cb_futex;
/* Callback thread created and not joined. */
_Atomic bool rcb__cb_started;
_Atomic bool rcb__cb_stop;
static pthread_t cb_thread;
pthread_mutex_t rcb__cb_lock = PTHREAD_MUTEX_INITIALIZER;
/* Held across a splice and its batch's publication, and across fork(). */
pthread_mutex_t rcb__cb_splice_lock = PTHREAD_MUTEX_INITIALIZER;

/* The batch the callback thread works on (callback.h, invariant 11). */
struct rcb__cb_batch rcb__cb_batch;

/* Advanced after each barrier marker is reached; barrier waiters sleep on
 * it (invariant 10). */
static _Atomic int barrier_seq;

_Atomic unsigned long long rcb__cb_pending, rcb__cb_pending_bytes;
static _Atomic unsigned long long peak, peak_bytes, invoked;

/* ---- queue -------------------------------------------------------- */

static bool queue_empty(void)
{
	/* [CB-E] seq_cst: the consumer's side of [CB-S]/[CB-Q]. */
	return rcb_load_seq_cst(&rcb__cb_q.tail) == &rcb__cb_q.stub;
}

/*
 * rcb__cb_pending_bytes += @bytes; returns the new value.  Written with
 * an empty asm between the fetch-add and the addition: GCC 12.2 (Debian
 * 12) compiles "if (b) x = fetch_add(p, b) + b" (and __atomic_add_fetch) at
 * every -O level into "lock xadd %r, p; add %r, %r", twice the old
 * value, since xadd overwrites the register that held b
 * (tests/regression/pressure_bytes_kick.c).
 */
static unsigned long long add_return_bytes(unsigned long long bytes)
{
	unsigned long long old = rcb_add_relaxed(&rcb__cb_pending_bytes, bytes);

	__asm__("" : "+r"(old));
	return old + bytes;
}

static void enqueue(struct rcb_head *h)
{
	struct rcb_head *prev;

	rcb_store_relaxed(&h->next, NULL);
	/* [CB-Q] The exchange orders the node's initialisation (func,
	 * bytes, next) before its publication, and is sequentially
	 * consistent for the handshake with the sleeping consumer:
	 * pairs with [CB-S] in wait_for_work(). */
	prev = rcb_xchg_seq_cst(&rcb__cb_q.tail, h);
	/* [CB-L] Link after publishing the tail; pairs with [CB-N] in
	 * next_of(), which waits for this store. */
	rcb_store_release(&prev->next, h);
}

/* Successor of @n in a batch; waits for a producer that exchanged the
 * tail but has not linked yet (it is between two stores). */
static struct rcb_head *next_of(struct rcb_head *n)
{
	struct rcb_head *next;
	int spins = 0;

	/* [CB-N] pairs with [CB-L] in enqueue(). */
	while (!(next = rcb_load_acquire(&n->next))) {
		if (++spins < 100)
			rcb_cpu_relax();
		else
			sched_yield();
	}
	return next;
}

/* Take everything queued: *first..*last.  False if empty.  Consumer. */
static bool splice(struct rcb_head **first, struct rcb_head **last)
{
	if (queue_empty())
		return false;
	*first = next_of(&rcb__cb_q.stub);
	/* No producer writes stub.next until the tail points at the stub
	 * again, which only our exchange below does. */
	rcb_store_relaxed(&rcb__cb_q.stub.next, NULL);
	/* [CB-X] pairs with [CB-Q]: every node up to *last is ours. */
	*last = rcb_xchg_acq_rel(&rcb__cb_q.tail, &rcb__cb_q.stub);
	return true;
}

/* ---- barrier markers ------------------------------------------------ */

struct barrier_marker {
	struct rcb_head head;
	_Atomic int done;
};

void rcb__cb_barrier_reached(struct rcb_head *h)
{
	struct barrier_marker *m = (struct barrier_marker *)h;

	/* [CB-B] pairs with [CB-W] in rcb_barrier(): callbacks before the
	 * marker are complete.  From here on the marker may be gone
	 * (invariant 10). */
	rcb_store_release(&m->done, 1);
	/* [CB-BS] After done: a waiter that reads the new value reads done
	 * set.  Pairs with [CB-WS] in rcb_barrier(). */
	rcb_add_release(&barrier_seq, 1);
	rcb__futex_wake(&barrier_seq, INT_MAX);
}

/* ---- the callback thread ------------------------------------------ */

static void wait_for_work(void)
{
	while (queue_empty() && !rcb_load_seq_cst(&rcb__cb_stop)) { /* [CB-S] */
		/* [CB-S] Announce the sleep before re-checking the queue and
		 * the stop flag: store-buffering with the producer's exchange
		 * and its load of rcb__cb_futex, and with the stopper's two
		 * stores.  Pairs with [CB-Q], [CB-F] and [CB-STOP]. */
		rcb_store_seq_cst(&rcb__cb_futex, -1);
		if (!queue_empty() || rcb_load_seq_cst(&rcb__cb_stop)) { /* [CB-S] */
			rcb_store_relaxed(&rcb__cb_futex, 0);
			break;
		}
		rcb__futex_wait(&rcb__cb_futex, -1, 0);
		rcb_store_relaxed(&rcb__cb_futex, 0);
	}
}

static void wake_thread(void)
{
	int expect = -1;

	if (rcb_cmpxchg_relaxed(&rcb__cb_futex, &expect, 0))
		rcb__futex_wake(&rcb__cb_futex, 1);
}

/*
 * Subtract the callbacks invoked since the last call from the backlog
 * (invariant 5).  The backlog only grows between two of these calls, so
 * its high-water mark is the larger of the marks seen here and the
 * current backlog (rcb_backlog()): producers need not maintain it.
 */
static void account_invoked(void)
{
	unsigned long long n = rcb_load_relaxed(&rcb__cb_batch.n);
	unsigned long long bytes = rcb_load_relaxed(&rcb__cb_batch.bytes);

	rcb_max_relaxed(&peak, rcb_load_relaxed(&rcb__cb_pending));
	rcb_max_relaxed(&peak_bytes, rcb_load_relaxed(&rcb__cb_pending_bytes));
	rcb_sub_relaxed(&rcb__cb_pending, n);
	rcb_sub_relaxed(&rcb__cb_pending_bytes, bytes);
	rcb_add_relaxed(&invoked, n);
	rcb_store_relaxed(&rcb__cb_batch.n, 0);
	rcb_store_relaxed(&rcb__cb_batch.bytes, 0);
}

/* Splice the queue into a new batch (invariant 11).  False if empty. */
static bool take_batch(void)
{
	struct rcb_head *first, *last;
	bool got;

	pthread_mutex_lock(&rcb__cb_splice_lock);
	got = splice(&first, &last);
	if (got) {
		rcb_store_relaxed(&rcb__cb_batch.last, last);
		rcb_store_relaxed(&rcb__cb_batch.todo, first);
	}
	pthread_mutex_unlock(&rcb__cb_splice_lock);
	return got;
}

/*
 * Invoke the batch in order.  The loop reads rcb__cb_batch.todo and
 * rcb__cb_batch.last anew for each node: a fork() from inside a callback
 * may have trimmed them (invariant 14).
 */
static void invoke_batch(void)
{
	struct rcb_head *h, *next;

	while ((h = rcb_load_relaxed(&rcb__cb_batch.todo))) {
		/* Read before invoking: the callback frees the node. */
		next = h == rcb_load_relaxed(&rcb__cb_batch.last) ? NULL : next_of(h);
		rcb_store_relaxed(&rcb__cb_batch.todo, next);
		if (h->func == rcb__cb_barrier_reached) {
			/* The waiter sees the backlog without what it
			 * waited for. */
			account_invoked();
			rcb__cb_barrier_reached(h);
			continue;
		}
		rcb_store_relaxed(&rcb__cb_batch.n,
				  rcb_load_relaxed(&rcb__cb_batch.n) + 1);
		rcb_store_relaxed(&rcb__cb_batch.bytes,
				  rcb_load_relaxed(&rcb__cb_batch.bytes) + h->bytes);
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
		h->func(h);
	}
	account_invoked();
}

static void *callback_thread(void *arg)
{
	struct rcb__thread *self = rcb__self();
	bool first = true;

	(void)arg;
	prctl(PR_SET_NAME, "rcuboost-cb", 0, 0, 0);
	rcb_register_thread();
	for (;;) {
		/* Work queued while the previous batch was in progress. */
		bool stop, back_to_back = !first && !queue_empty();
		unsigned long long n0;
		uint64_t t0;

		first = false;
		wait_for_work();
		if (rcb__settings.callback_batch_us && !queue_empty()) {
			struct timespec ts = {
				.tv_sec = rcb__settings.callback_batch_us / 1000000,
				.tv_nsec = (long)(rcb__settings.callback_batch_us %
						  1000000) * 1000,
			};
			nanosleep(&ts, NULL);
		} else if (!rcb_load_relaxed(&rcb__cb_stop)) {
			/* When to start the grace period (gp_policy.c):
			 * at once, unless callbacks arrived while the
			 * previous batch was in progress. */
			rcb__gp_policy_wait(back_to_back);
		}
		/* [CB-SA] The stop flag before the queue (invariant 8):
		 * pairs with [CB-STOP], whose store follows, under rcb__cb_lock,
		 * every marker enqueued while the thread was running. */
		stop = rcb_load_acquire(&rcb__cb_stop);
		if (!take_batch()) {
			if (stop)
				break;
			continue;
		}
		t0 = rcb__now_ns();
		rcb_synchronize();
		t0 = rcb__now_ns() - t0;
		n0 = rcb_load_relaxed(&invoked);
		self->in_callback = true;
		invoke_batch();
		self->in_callback = false;
		rcb__gp_policy_done(t0, rcb_load_relaxed(&invoked) - n0);
	}
	rcb_unregister_thread();
	return NULL;
}

/*
 * Start the callback thread unless it runs.  Without @drain, only while
 * the library runs (invariant 9).  Context: rcb__cb_lock held, not a callback.
 */
static int start_thread_locked(bool drain)
{
	int err;

	if (rcb_load_relaxed(&rcb__cb_started))
		return 0;
	if (!drain && !rcb_load_relaxed(&rcb__running))
		return 0;
	rcb_store_relaxed(&rcb__cb_stop, false);
	err = pthread_create(&cb_thread, NULL, callback_thread, NULL);
	if (err) {
		fprintf(stderr, "rcuboost: cannot start the callback thread: %s\n",
			strerror(err));
		return -err;
	}
	/* [CB-TR] pairs with [CB-T] */
	rcb_store_release(&rcb__cb_started, true);
	return 0;
}

static int start_thread(void)
{
	int err;

	/* [CB-T] pairs with [CB-TR] in start_thread_locked(). */
	if (rcb_load_acquire(&rcb__cb_started))
		return 0;
	pthread_mutex_lock(&rcb__cb_lock);
	err = start_thread_locked(false);
	pthread_mutex_unlock(&rcb__cb_lock);
	return err;
}

/*
 * Drain the queue and stop the callback thread: start it first if
 * callbacks inherited across fork() have no thread.  Context: rcb__cb_lock
 * held (invariant 7), not a callback.
 */
static int stop_locked(void)
{
	int err;

	if (!rcb_load_relaxed(&rcb__cb_started) && !queue_empty() &&
	    (err = start_thread_locked(true)) != 0)
		return err;
	if (!rcb_load_relaxed(&rcb__cb_started))
		return 0;
	/* [CB-STOP] Stop flag, then an unconditional wake-up, both
	 * sequentially consistent: pairs with [CB-S] and [CB-SA].  Either
	 * the thread's re-check sees the flag, or our futex store comes
	 * after its -1 and its futex_wait() returns at once. */
	rcb_store_seq_cst(&rcb__cb_stop, true);
	rcb_store_seq_cst(&rcb__cb_futex, 0); /* [CB-STOP] */
	rcb__futex_wake(&rcb__cb_futex, 1);
	rcb__gp_policy_urgent(); /* no coalescing wait (gp_policy.c) */
	if ((err = pthread_join(cb_thread, NULL)) != 0)
		RCB_DIE("pthread_join(callback thread)", err);
	rcb_store_relaxed(&rcb__cb_started, false);
	return 0;
}

/* ---- API ---------------------------------------------------------- */

RCB_API int rcb_call_sized(struct rcb_head *head,
			   void (*func)(struct rcb_head *head), size_t bytes)
{
	int err;

	if (RCB_UNLIKELY(!head || !func)) {
		rcb__misuse("rcb_call", "%s is NULL; nothing queued",
			    head ? "the callback function" : "the rcb_head");
		return -EINVAL;
	}
	if (RCB_UNLIKELY(!rcb_load_acquire(&rcb__cb_started))) { /* [CB-T] */
		if ((err = rcb__ensure_init()) != 0)
			return err;
		if (rcb__self()->in_callback) {
			/* Cannot happen: a callback runs on the started
			 * thread. */
			return -EDEADLK;
		}
		if (rcb_load_relaxed(&rcb__running) && (err = start_thread()))
			return err;
	}
	rcb_read_lock();
	/* A callback may queue more work while rcb_shutdown() drains the
	 * queue: the callback thread runs until the queue is empty. */
	if (RCB_UNLIKELY(!rcb_load_relaxed(&rcb__running) &&
			 !rcb__self()->in_callback)) {
		rcb_read_unlock();
		rcb__misuse("rcb_call",
			    "called after rcb_shutdown(); nothing queued, the caller keeps the object");
		return -ESHUTDOWN;
	}
	if (RCB_UNLIKELY(rcb__cb_dbg_track(head))) {
		rcb_read_unlock();
		rcb__misuse("rcb_call",
			    "rcb_head %p is already queued (its callback has not run yet); nothing queued",
			    (void *)head);
		return -EBUSY;
	}
	unsigned long long n, nbytes = 0, kick_at;

	head->func = func;
	head->bytes = bytes;
	n = rcb_add_relaxed(&rcb__cb_pending, 1) + 1;
	if (bytes)
		nbytes = add_return_bytes(bytes);
	enqueue(head);
	/* [CB-F] Load after the seq_cst exchange in enqueue(): pairs with
	 * [CB-S]: either the consumer's re-check sees our node, or we see
	 * its -1 and wake it. */
	if (RCB_UNLIKELY(rcb_load_seq_cst(&rcb__cb_futex) == -1))
		wake_thread();
	rcb_read_unlock();
	/* Memory pressure: the boosters learn of it now, not a period
	 * later (booster.c). */
	kick_at = rcb_load_relaxed(&rcb__pressure_kick_at);
	if (RCB_UNLIKELY(kick_at && n >= kick_at))
		rcb__pressure_kick();
	if (nbytes) {
		kick_at = rcb_load_relaxed(&rcb__pressure_kick_bytes);
		if (RCB_UNLIKELY(kick_at && nbytes >= kick_at))
			rcb__pressure_kick();
	}
	return 0;
}

RCB_API int rcb_call(struct rcb_head *head, void (*func)(struct rcb_head *head))
{
	return rcb_call_sized(head, func, 0);
}

RCB_API int rcb_barrier(void)
{
	struct barrier_marker m = { .done = 0 };
	int err = 0;

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
	m.head.func = rcb__cb_barrier_reached;
	m.head.bytes = 0;
	/* Invariant 8: the marker is enqueued under rcb__cb_lock, while the
	 * thread runs and has not been told to stop. */
	pthread_mutex_lock(&rcb__cb_lock);
	if (!rcb_load_relaxed(&rcb__cb_started) && !queue_empty()) {
		/* Callbacks inherited across fork(): run them on a thread
		 * of our own, or, once the library is shut down, drain them
		 * as rcb_shutdown() would. */
		err = start_thread_locked(false);
		if (!err && !rcb_load_relaxed(&rcb__cb_started))
			err = stop_locked();
	}
	if (err || !rcb_load_relaxed(&rcb__cb_started)) {
		/* Nothing was queued since the thread last stopped, or the
		 * drain above ran it all. */
		pthread_mutex_unlock(&rcb__cb_lock);
		return err;
	}
	enqueue(&m.head);
	if (rcb_load_seq_cst(&rcb__cb_futex) == -1) /* [CB-F] */
		wake_thread();
	rcb__gp_policy_urgent(); /* no coalescing wait (gp_policy.c) */
	pthread_mutex_unlock(&rcb__cb_lock);
	for (;;) {
		/* [CB-WS] pairs with [CB-BS]: if the sequence read is the
		 * one after our marker's, done reads set below. */
		int seq = rcb_load_acquire(&barrier_seq);

		/* [CB-W] pairs with [CB-B]. */
		if (rcb_load_acquire(&m.done))
			break;
		rcb__futex_wait(&barrier_seq, seq, 0);
	}
	return 0;
}

/* Drain and stop the callback thread.  Context: rcb_shutdown(), after
 * rcb__running was cleared (invariant 9). */
int rcb__callbacks_stop(void)
{
	int err;

	pthread_mutex_lock(&rcb__cb_lock);
	err = stop_locked();
	pthread_mutex_unlock(&rcb__cb_lock);
	return err;
}

RCB_API void rcb_backlog(struct rcb_backlog *out)
{
	out->callbacks = rcb_load_relaxed(&rcb__cb_pending);
	out->bytes = rcb_load_relaxed(&rcb__cb_pending_bytes);
	out->peak_callbacks = rcb_load_relaxed(&peak);
	out->peak_bytes = rcb_load_relaxed(&peak_bytes);
	if (out->callbacks > out->peak_callbacks)
		out->peak_callbacks = out->callbacks;
	if (out->bytes > out->peak_bytes)
		out->peak_bytes = out->bytes;
	out->invoked = rcb_load_relaxed(&invoked);
}

RCB_API void rcb_backlog_reset_peak(void)
{
	rcb_store_relaxed(&peak, rcb_load_relaxed(&rcb__cb_pending));
	rcb_store_relaxed(&peak_bytes,
			  rcb_load_relaxed(&rcb__cb_pending_bytes));
}
