/* SPDX-License-Identifier: MIT */
/*
 * Deferred reclamation with bounded memory: rcb_defer() and its barriers
 * (liburcu's defer_rcu() semantics).
 *
 * Algorithm.  Each thread that defers owns a queue: a ring of
 * RCB_DEFER_QUEUE_LEN (fct, p) entries with two 64-bit counters, qhead
 * (entries published, written by the owner only) and qtail (entries
 * taken, written by a drainer under the queue's lock).  The owner writes
 * an entry and publishes it with a release store of qhead.  A drainer
 * reads qhead (the "snapshot"), waits for a grace period that started
 * after that read, then takes and runs the entries up to the snapshot.
 * Three kinds of drainer share the lock:
 *   - the callback thread: the first entry that finds no drain pending
 *     queues the queue's own rcb_head with rcb_call(), snapshot taken
 *     before the rcb_call(); its callback runs after the grace period
 *     rcb_call() promises (no grace period of our own);
 *   - the owner when its queue is full: it waits for a grace period and
 *     runs its queue (the throttle that bounds memory), and at
 *     rcb_defer_barrier_thread() and unregistration;
 *   - rcb_defer_barrier(), for every queue.
 *
 * Invariants.
 *  1. An entry runs only after a grace period that started after its
 *     publication: every drainer's snapshot precedes its grace period
 *     (rcb_synchronize() after the read; or the rcb_call() after the
 *     read, whose callback follows a grace period started after the
 *     enqueue), and it drains no further than its snapshot.
 *  2. qhead - qtail <= RCB_DEFER_QUEUE_LEN: the owner writes slot
 *     qhead % LEN only when qhead - qtail < LEN, read with acquire after
 *     the drainer's release of qtail, which follows its copy of the slot.
 *  3. Drainers hold the queue's lock while they take entries, so each
 *     entry is taken once; qtail only grows and a drainer takes entries
 *     while qtail < its snapshot, so overlapping snapshots are harmless.
 *  4. cb_pending is true from the rcb_call() of the queue's rcb_head
 *     until its callback clears it: the head is never queued twice.  The
 *     callback clears it before it looks at the queue, and an owner
 *     checks it after publishing ([DF-W]/[DF-K]): either the callback
 *     sees the new entry and re-arms, or the owner sees the flag clear
 *     and arms.  No published entry is left without a drain to come:
 *     where no drain callback can be queued (after rcb_shutdown(), or
 *     no callback thread could start), the owner's rcb_defer() drains
 *     its queue itself, after a grace period.  Left for a full queue, a
 *     barrier or unregistration: an entry queued after shutdown by a
 *     function that this queue's drain is running (its snapshot was
 *     taken before).
 *  5. Queues are never freed: an unregistered (or exited) thread's queue
 *     is flushed and marked free for the next thread to register, so the
 *     callback of a pending rcb_head always finds its queue.
 *
 * fork().  The child keeps every queued entry, its own thread's and
 * those of the parent's other threads, and runs them after a grace
 * period of its own: at its first rcb_defer() (which arms a drain for
 * every inherited queue, and starts the callback threads if a drain
 * was queued at the fork: rcb__cb_start_inherited()), at
 * rcb_defer_barrier(), or through its own thread's queue as usual.  A
 * drainer takes an entry (advances qtail, fence [DF-C]) before it runs
 * it, so an entry whose function was running in another thread at the
 * fork is not run again in the child (as callbacks, src/callback/callback.c
 * invariant 12).  The locks are re-created
 * in the child (their owners may not exist there).  A queue whose
 * cb_pending was set at the fork with its head in none of the child's
 * workers (a drain callback that had begun but not yet cleared it, or
 * an arm() between its compare-and-swap and its rcb_call()) gets it
 * cleared in the child (rcb__defer_after_fork_child()), so that the
 * first rcb_defer() arms a drain for it.  Left as it was: a fork()
 * from a signal handler that interrupted the forking thread's own arm()
 * (rcb__defer_arming), whose interrupted call queues the head.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "callback/callback.h"
#include "core/internal.h"
#include "callback/defer.h"

/* Every queue ever allocated, newest first (prepend only). */
struct defer_queue *_Atomic rcb__defer_queues;
__thread struct defer_queue *rcb__defer_mine;
static pthread_key_t defer_key;
/* Deferred functions this thread is running (nested: one that flushes
 * another queue).  A barrier called from one would wait for itself. */
static __thread unsigned defer_running;
/* This thread won a queue's cb_pending and has not yet queued its head
 * (arm()): a fork() from a signal handler here leaves the child to
 * queue it. */
__thread volatile bool rcb__defer_arming;
/* Serialises rcb_defer_barrier() (its snapshots live in the queues). */
pthread_mutex_t rcb__defer_barrier_lock;
/* Set in a forked child: inherited queues wait for an armed drain. */
_Atomic bool rcb__defer_fork_orphans;

static void defer_thread_exit(void *arg);

static pthread_once_t defer_once = PTHREAD_ONCE_INIT;

/* The key, lock and fork handler of the defer queues: once, from the
 * constructor or from the first rcb_defer_register_thread() or
 * rcb_defer_barrier(), whichever comes first (as rcb__construct()). */
static void defer_setup(void)
{
	int err = pthread_key_create(&defer_key, defer_thread_exit);

	if (err)
		RCB_DIE("pthread_key_create(defer)", err);
	err = rcb__pi_errorcheck_mutex_init(&rcb__defer_barrier_lock);
	if (err != 0)
		RCB_DIE("pthread_mutex_init(defer barrier)", -err);
	if ((err = pthread_atfork(NULL, NULL, rcb__defer_fork_child)) != 0)
		RCB_DIE("pthread_atfork(defer)", err);
}

static void defer_construct(void)
{
	(void)pthread_once(&defer_once, defer_setup);
}

__attribute__((constructor)) static void defer_ctor(void)
{
	defer_construct();
}

/*
 * A deferred function runs on this thread, holding its queue's lock: a
 * call that waits for the callback threads, or takes the lock of one who
 * does (@call), would wait for a callback that may itself wait for that
 * queue (rcb_defer_barrier() from a callback).  Reports the misuse and
 * returns true if so.
 */
bool rcb__defer_refuses(const char *call)
{
	if (RCB_LIKELY(!defer_running))
		return false;
	rcb__misuse(call,
		    "called from a deferred function; it would wait for the callback threads, "
		    "and a callback may be waiting for this function's defer queue");
	return true;
}

/*
 * A deferred function ended the thread running it (pthread_exit(), or a
 * cancellation with cancellation enabled by the function itself): the
 * thread dies holding its queue's lock, and the defer barrier's if it was
 * in rcb_defer_barrier(); every later barrier and the next owner of the
 * queue would wait forever on locks with no owner.  Said, naming the
 * function, and the process stopped, as for a callback that ends the
 * callback thread (callback.c).
 */
static void deferred_fn_ended_thread(void *arg)
{
	(void)arg;
	rcb__fn_ended_thread("deferred function", "its thread",
			     " while holding its defer queue's lock; every later "
			     "rcb_defer_barrier() and the queue's next owner would wait "
			     "forever");
}

/* drain_locked()'s loop. */
static void run_entries(struct defer_queue *q, uint64_t upto)
{
	uint64_t t = rcb_load_relaxed(&q->qtail);

	while (t < upto) {
		struct defer_entry e = q->e[t & DEFER_MASK];

		t++;
		/* [DF-T] The slot is copied before it is released to the
		 * owner.  Pairs with [DF-F] in rcb_defer(). */
		rcb_store_release(&q->qtail, t);
		/* [DF-C] The entry is taken before its function runs: a
		 * forked child whose copy shows any effect of the function
		 * shows the entry taken (fork section above).  Pairs with
		 * the fork() copy of memory, not with another access. */
		rcb_fence_seq_cst();
		defer_running++;
		rcb__cb_current = (const void *)(uintptr_t)e.fct;
		e.fct(e.p);
		defer_running--;
		/* Its section left open would hold every grace period. */
		if (RCB_UNLIKELY(rcb_read_ongoing()))
			rcb__end_leaked_section("deferred function",
						(const void *)(uintptr_t)e.fct);
	}
}

/* Take and run @q's entries up to @upto.  Context: @q->lock held, a grace
 * period elapsed since @upto was read from qhead (invariant 1).
 * Cancellation is held off meanwhile (a cancellation point inside a
 * function would end the thread with the lock held): a pending cancel
 * takes effect at the caller's next cancellation point. */
static void drain_locked(struct defer_queue *q, uint64_t upto)
{
	int cancel_state;

	if (rcb_load_relaxed(&q->qtail) >= upto)
		return;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	pthread_cleanup_push(deferred_fn_ended_thread, NULL);
	run_entries(q, upto);
	pthread_cleanup_pop(0);
	pthread_setcancelstate(cancel_state, NULL);
}

/*
 * Lock @q for draining.  Returns 0, or -EDEADLK when the calling thread
 * already holds it: an entry's function that waits for its own queue.
 */
static int queue_lock(struct defer_queue *q)
{
	int err = pthread_mutex_lock(&q->lock);

	if (err == EDEADLK)
		return -EDEADLK;
	if (err)
		RCB_DIE("pthread_mutex_lock(defer queue)", err);
	return 0;
}

/*
 * Wait for a grace period and run @q's entries published before the
 * call; return when every one of them has finished, including those
 * another drainer took and is still running (drainers run entries under
 * the lock, so taking the lock waits for them).  Returns 0, an error of
 * rcb_synchronize(), or -EDEADLK when entries are pending and the caller
 * is running one of @q's functions.  Context: outside read-side critical
 * sections.
 */
static int flush_queue(struct defer_queue *q)
{
	/* [DF-H] The entries up to the snapshot are visible.  Pairs with
	 * [DF-P] in rcb_defer() (the owner's own entries need nothing). */
	uint64_t upto = rcb_load_acquire(&q->qhead);
	bool pending = upto != rcb_load_relaxed(&q->qtail);
	int err;

	if (pending && (err = rcb_synchronize()) != 0)
		return err;
	/* Nothing pending and the lock is ours: the only function still
	 * running is the caller's own, which cannot wait for itself. */
	if ((err = queue_lock(q)) != 0)
		return pending ? err : 0;
	drain_locked(q, upto);
	pthread_mutex_unlock(&q->lock);
	return 0;
}


/* Queue @q's drain callback unless one is pending (invariant 4).
 * False when no drain is to come: after rcb_shutdown() (no callback
 * thread), or when the callback thread could not start (said on
 * stderr); rcb_defer() then drains itself. */
static bool arm(struct defer_queue *q)
{
	bool idle = false;

	/* No callback thread after rcb_shutdown(): rcb_call() would
	 * refuse.  (A shutdown after this look makes rcb__call_own()
	 * refuse, unreported.) */
	if (!rcb_load_relaxed(&rcb__running))
		return false;
	rcb__defer_arming = true;
	/* [DF-A] Only the winner queues the head; acq_rel so that the
	 * winner sees the callback's last use of it.  Pairs with [DF-K]. */
	if (!rcb_cmpxchg_acq_rel(&q->cb_pending, &idle, true)) {
		rcb__defer_arming = false;
		/* queued in a forked child's parent */
		rcb__cb_start_inherited();
		return true;
	}
	/* [DF-H] as in flush_queue(): the entries up to the snapshot are
	 * visible to the callback through rcb_call()'s queue. */
	rcb_store_relaxed(&q->cb_snap, rcb_load_acquire(&q->qhead));
	if (rcb__call_own(&q->head, rcb__defer_drain_cb) != 0) {
		rcb_store_relaxed(&q->cb_pending, false);
		rcb__defer_arming = false;
		return false;
	}
	rcb__defer_arming = false;
	return true;
}

/* The drain callback: a grace period has elapsed since the snapshot
 * cb_snap was read (rcb_call()'s promise). */
void rcb__defer_drain_cb(struct rcb_head *head)
{
	struct defer_queue *q = (struct defer_queue *)(void *)
		((char *)head - offsetof(struct defer_queue, head));
	uint64_t upto = rcb_load_relaxed(&q->cb_snap);
	int err;

	/* [DF-K] The flag is cleared before the queue is read again below:
	 * store-buffering with the owner's "publish; load cb_pending".
	 * Pairs with [DF-W] in rcb_defer(). */
	rcb_store_seq_cst(&q->cb_pending, false);
	/* [DF-K] (the fence half: on architectures where a seq_cst store
	 * does not order a later load of another word). */
	rcb_fence_seq_cst();
	/* A lock held means another drainer is at work (an owner flushing,
	 * a barrier); never make the callback thread wait for it. */
	err = pthread_mutex_trylock(&q->lock);
	if (err == 0) {
		drain_locked(q, upto);
		pthread_mutex_unlock(&q->lock);
	} else if (err != EBUSY && err != EDEADLK) {
		RCB_DIE("pthread_mutex_trylock(defer queue)", err);
	}
	/* [DF-H] pairs with [DF-P]: more published since the snapshot. */
	if (rcb_load_acquire(&q->qhead) != rcb_load_relaxed(&q->qtail))
		arm(q);
}

RCB_API int rcb_defer_register_thread(void)
{
	struct defer_queue *q, *first;
	int err;

	if (rcb__defer_mine)
		return 0;
	defer_construct();
	/* [DF-R] Adopt a released queue: acquire, so its previous owner's
	 * flush is complete.  Pairs with [DF-U]. */
	for (q = rcb_load_acquire(&rcb__defer_queues); q; q = q->next) {
		bool used = false;

		/* [DF-R] as above: the claim is the acquire. */
		if (!rcb_load_relaxed(&q->in_use) &&
		    rcb_cmpxchg_acq_rel(&q->in_use, &used, true))
			goto found;
	}
	q = aligned_alloc(64, sizeof(*q));
	if (!q)
		return -ENOMEM;
	memset(q, 0, sizeof(*q));
	if ((err = rcb__pi_errorcheck_mutex_init(&q->lock)) != 0) {
		free(q);
		return err;
	}
	rcb_store_relaxed(&q->in_use, true);
	first = rcb_load_relaxed(&rcb__defer_queues);
	do {
		q->next = first;
		/* [DF-L] The queue is initialised before it is listed.
		 * Pairs with [DF-R] and the barrier's walk. */
	} while (!rcb_cmpxchg_acq_rel(&rcb__defer_queues, &first, q));
found:
	rcb__defer_mine = q;
	if ((err = pthread_setspecific(defer_key, q)) != 0)
		RCB_DIE("pthread_setspecific(defer)", err);
	return 0;
}

/* Release the calling thread's (flushed) queue for reuse. */
static void release_queue(struct defer_queue *q)
{
	rcb__defer_mine = NULL;
	(void)pthread_setspecific(defer_key, NULL);
	/* [DF-U] The flush is complete before another thread adopts the
	 * queue.  Pairs with [DF-R]. */
	rcb_store_release(&q->in_use, false);
}

static int own_flush(const char *call)
{
	int err;

	if (RCB_UNLIKELY(rcb_read_ongoing())) {
		rcb__misuse(call, "called inside a read-side critical section; it would wait for itself forever");
		return -EDEADLK;
	}
	if (!rcb__defer_mine)
		return 0;
	err = flush_queue(rcb__defer_mine);
	if (err == -EDEADLK)
		rcb__misuse(call, "called from a deferred function that runs this thread's queue");
	return err;
}

RCB_API int rcb_defer_unregister_thread(void)
{
	struct defer_queue *q = rcb__defer_mine;
	int err;

	if (!q && !rcb_read_ongoing())
		return -ENOENT;
	if ((err = own_flush("rcb_defer_unregister_thread")) != 0)
		return err;
	release_queue(q);
	return 0;
}

RCB_API int rcb_defer_barrier_thread(void)
{
	return own_flush("rcb_defer_barrier_thread");
}

/* pthread key destructor: the thread exits with its queue registered. */
static void defer_thread_exit(void *arg)
{
	struct defer_queue *q = arg;

	rcb__defer_mine = q;
	/* A thread exiting inside a critical section (or from a deferred
	 * function) keeps its queue listed: the entries wait for a
	 * barrier, the queue is never reused. */
	if (!rcb_read_ongoing() && flush_queue(q) == 0)
		release_queue(q);
	rcb__defer_mine = NULL;
}

/* In a forked child, give every inherited queue a drain to come. */
static void arm_orphans(void)
{
	bool was = true;

	if (!rcb_cmpxchg_relaxed(&rcb__defer_fork_orphans, &was, false))
		return;
	/* [DF-R] pairs with [DF-L]: the listed queues are initialised. */
	for (struct defer_queue *q = rcb_load_acquire(&rcb__defer_queues); q;
	     q = q->next) {
		/* [DF-H] pairs with [DF-P]. */
		if (rcb_load_acquire(&q->qhead) != rcb_load_relaxed(&q->qtail))
			arm(q);
	}
}

RCB_API int rcb_defer(void (*fct)(void *p), void *p)
{
	struct defer_queue *q;
	uint64_t h;
	int err;

	if (RCB_UNLIKELY(!fct)) {
		rcb__misuse("rcb_defer", "called with a NULL function");
		return -EINVAL;
	}
	if (RCB_UNLIKELY(rcb_read_ongoing())) {
		rcb__misuse("rcb_defer",
			    "called inside a read-side critical section; it may wait for a grace period, which would wait for itself forever");
		return -EDEADLK;
	}
	if ((err = rcb__ensure_init()) != 0)
		return err;
	if (RCB_UNLIKELY(!rcb__defer_mine) &&
	    (err = rcb_defer_register_thread()) != 0)
		return err;
	if (RCB_UNLIKELY(rcb_load_relaxed(&rcb__defer_fork_orphans)))
		arm_orphans();
	q = rcb__defer_mine;
	h = rcb_load_relaxed(&q->qhead);
	/* [DF-F] The drainer's copy of the slot we reuse is complete.
	 * Pairs with [DF-T] in drain_locked(). */
	if (RCB_UNLIKELY(h - rcb_load_acquire(&q->qtail) >=
			 RCB_DEFER_QUEUE_LEN)) {
		/* Full: throttle.  Wait for a grace period and run the
		 * queue here (invariant 2 bounds the memory). */
		err = flush_queue(q);
		if (err == -EDEADLK) {
			/* Called from a function this thread is running out
			 * of its own full queue: do this one in place. */
			if ((err = rcb_synchronize()) != 0)
				return err;
			fct(p);
			if (RCB_UNLIKELY(rcb_read_ongoing()))
				rcb__end_leaked_section(
					"deferred function",
					(const void *)(uintptr_t)fct);
			return 0;
		}
		if (err)
			return err;
		/* [DF-F] as above, after our own drain. */
		if (h - rcb_load_acquire(&q->qtail) >= RCB_DEFER_QUEUE_LEN)
			RCB_DIE("defer queue still full after its flush", EOVERFLOW);
	}
	q->e[h & DEFER_MASK] = (struct defer_entry){ .fct = fct, .p = p };
	/* [DF-P] The entry is written before it is published.  Pairs with
	 * [DF-H] in every drainer. */
	rcb_store_release(&q->qhead, h + 1);
	/* [DF-W] The publication is ordered before the load of cb_pending:
	 * store-buffering with rcb__defer_drain_cb()'s "clear cb_pending;
	 * load qhead".  Pairs with [DF-K]. */
	rcb_fence_seq_cst();
	if (!rcb_load_relaxed(&q->cb_pending) && !arm(q)) {
		/* No drain to come (after rcb_shutdown(), or no callback
		 * thread could start): the entry would wait for a full
		 * queue or a barrier, and after a re-initialisation too.
		 * The grace period and the drain here instead, as for a
		 * full queue: the caller blocks, as rcb_defer() may.
		 * -EDEADLK: called from one of this queue's functions,
		 * whose drainer took its snapshot before this entry; it
		 * stays queued for the next drain of the queue. */
		(void)flush_queue(q);
	}
	return 0;
}

RCB_API int rcb_defer_barrier(void)
{
	struct defer_queue *q, *first;
	bool any = false;
	int err, ret = 0;

	if (RCB_UNLIKELY(rcb_read_ongoing())) {
		rcb__misuse("rcb_defer_barrier",
			    "called inside a read-side critical section; it would wait for itself forever");
		return -EDEADLK;
	}
	/* The barrier waits for every deferred function that has begun,
	 * the caller's own too; and a drainer that runs such a function
	 * holds its queue's lock, which the barrier waits for while it
	 * holds rcb__defer_barrier_lock: two barriers in two drainers would
	 * deadlock. */
	if (RCB_UNLIKELY(defer_running)) {
		rcb__misuse("rcb_defer_barrier",
			    "called from a deferred function; it would wait for that function to finish");
		return -EDEADLK;
	}
	defer_construct();
	if ((err = pthread_mutex_lock(&rcb__defer_barrier_lock)) != 0)
		RCB_DIE("pthread_mutex_lock(defer barrier)", err);
	/* [DF-R] pairs with [DF-L]: the listed queues are initialised. */
	first = rcb_load_acquire(&rcb__defer_queues);
	for (q = first; q; q = q->next) {
		/* [DF-H] pairs with [DF-P]. */
		q->bar_snap = rcb_load_acquire(&q->qhead);
		any |= q->bar_snap != rcb_load_relaxed(&q->qtail);
	}
	if (any && (ret = rcb_synchronize()) != 0)
		goto out;
	/* Every queue's lock is taken, pending entries or not: an entry
	 * another drainer took before the snapshot may still be running,
	 * and it runs under the lock.  The caller runs no deferred
	 * function, so it holds no queue's lock. */
	for (q = first; q; q = q->next) {
		if ((err = queue_lock(q)) != 0)
			RCB_DIE("defer barrier: a queue's lock held by its caller", -err);
		drain_locked(q, q->bar_snap);
		pthread_mutex_unlock(&q->lock);
	}
out:
	pthread_mutex_unlock(&rcb__defer_barrier_lock);
	return ret;
}
