/* SPDX-License-Identifier: MIT */
/*
 * The callback API (callback.c, invariants 4, 5, 9, 10 and 15):
 * rcb_call() and rcb_call_sized(), the library's own calls,
 * rcb_barrier(), the callbacks' part of rcb_shutdown(), and the
 * backlog.
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
	if (self->registered && (rcb_load_relaxed(&rcb__reader.ctr) &
				 RCB__NEST_MASK) != RCB__NEST_ONE) {
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
		atomic_fetch_or_explicit(&rcb__reader.special,
					 RCB__READER_WAKE_CB,
					 memory_order_relaxed);
	return r;
}

/*
 * rcb__cb_kick_bytes += @bytes; returns the new value.  Written with an empty
 * asm between the fetch-add and the addition: GCC 12.2 (Debian 12)
 * compiles "if (b) x = fetch_add(p, b) + b" (and __atomic_add_fetch) at
 * every -O level into "lock xadd %r, p; add %r, %r", twice the old
 * value, since xadd overwrites the register that held b
 * (tests/regression/pressure_bytes_kick.c).
 */
static long long add_return_bytes(long long bytes)
{
	long long old = rcb_add_relaxed(&rcb__cb_kick_bytes, bytes);

	__asm__("" : "+r"(old));
	return old + bytes;
}

/*
 * One rcb_call*() on its way: what call()'s steps decide inside the
 * section and act on after it.
 */
struct call_ctx {
	struct rcb__thread *self;
	struct rcb_worker *w;  /* the worker the call queues to */
	bool start_late;       /* @w has no thread: started after (inv. 9) */
	/* Invariant 4: wake-ups decided inside the section, made after. */
	struct rcb_worker *wake;
	bool kick_boosters;    /* booster mode's booster 0 sleeps */
	/* Memory pressure: the thresholds read, and the counts reached. */
	unsigned long long kick_at;
	long long n, nbytes;
};

/* The caller's section is its outermost one (not nested in its own). */
static inline bool call_outermost(const struct rcb__thread *self)
{
	return self->registered &&
	       (rcb_load_relaxed(&rcb__reader.ctr) & RCB__NEST_MASK) ==
		       RCB__NEST_ONE;
}

/*
 * Enter the call's read-side critical section with c->w, the worker
 * to queue to, chosen: a running one, the callback's own while
 * rcb_shutdown() drains, or one to start after the section
 * (c->start_late).  0 inside the section, else an error outside it.
 */
static inline int call_enter(struct call_ctx *c, const char *call_name,
			     bool quiet)
{
	int err;

	for (;;) {
		rcb_read_lock();
		c->self = rcb__self();
		/* A callback may queue more work while rcb_shutdown()
		 * drains the queue: its own worker runs until its queue is
		 * empty (invariant 9). */
		if (RCB_UNLIKELY(!rcb_load_relaxed(&rcb__running))) {
			if (!c->self->in_callback) {
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
			c->w = c->self->cb_running;
			return 0;
		}
		c->w = rcb__cb_pick();
		/* [CB-T] pairs with [CB-TR] in rcb__cb_start_locked(). */
		if (RCB_LIKELY(rcb_load_acquire(&c->w->started)))
			return 0;
		if (c->self->in_callback) {
			/* Invariant 9: no lock in a callback. */
			c->w = c->self->cb_running;
			return 0;
		}
		/* Nested in a section of the caller's own: the lock that
		 * starts the thread may be held by a stopper joining a
		 * worker whose grace period waits for that section
		 * (invariant 7).  Queue now, start at the outermost unlock
		 * (wake_decided(), rcb__cb_wake_late()): the callback's
		 * grace period waits for that section anyway. */
		if (c->self->registered && !call_outermost(c->self)) {
			c->start_late = true;
			return 0;
		}
		rcb_read_unlock();
		if ((err = rcb__cb_start_listed(c->w)) != 0)
			return err;
	}
}

/* Invariant 15: a head queued last still holds its end mark (one load
 * of the line the stores after it write anyway); the debug set finds
 * the others.  Context: inside the call's section. */
static inline bool call_queued_already(struct rcb_head *h)
{
	return RCB_UNLIKELY(rcb_load_relaxed(&h->next) == rcb__cb_end(h)) ||
	       RCB_UNLIKELY(rcb__cb_dbg_track(h));
}

/* Write the head: a sized head's function behind the trampoline. */
static inline void call_set_func(struct rcb_head *h,
				 void (*func)(struct rcb_head *h),
				 struct rcb_head_sized *s, size_t bytes)
{
	if (s) {
		s->func = func;
		s->bytes = bytes;
		h->func = rcb__cb_sized_invoke;
	} else {
		/* Two words only (struct rcb_head): a 16-byte liburcu
		 * head is written nowhere past its end. */
		h->func = func;
	}
}

/*
 * Invariant 5: counted before the enqueue ([CB-Q] orders it).  The
 * thread's own counters take a plain load and store, so only an
 * outermost call() updates them: a signal handler's rcb_call*() that
 * interrupts this one between its load and store runs nested (depth 2
 * or more) and counts in the global atomic instead, as does a call
 * from inside the caller's own critical section.
 */
static inline void call_count(struct rcb__thread *self, size_t bytes)
{
	if (RCB_LIKELY(call_outermost(self))) {
		rcb_store_relaxed(&self->cb_queued,
				  rcb_load_relaxed(&self->cb_queued) + 1);
		if (bytes)
			rcb_store_relaxed(
				&self->cb_queued_bytes,
				rcb_load_relaxed(&self->cb_queued_bytes) +
					bytes);
	} else {
		/* Nested, or a signal handler's section on an
		 * unregistered thread. */
		rcb_add_relaxed(&rcb__cb_queued_gone, 1);
		rcb_add_relaxed(&rcb__cb_queued_gone_bytes, bytes);
	}
}

/* Memory pressure: count toward the boosters' kick thresholds, if
 * any is armed. */
static inline void call_pressure_count(struct call_ctx *c, size_t bytes)
{
	c->kick_at = rcb_load_relaxed(&rcb__cb_hot.kick_at);
	if (RCB_UNLIKELY(c->kick_at ||
			 rcb_load_relaxed(&rcb__cb_hot.kick_bytes))) {
		c->n = rcb_add_relaxed(&rcb__cb_kick_count, 1) + 1;
		if (bytes)
			c->nbytes = add_return_bytes((long long)bytes);
	}
}

/* Queue @h: on the caller's own local list, or on c->w's queue,
 * deciding the wake-ups to make after the section.  Context: inside
 * the call's section. */
static inline void call_queue(struct call_ctx *c, struct rcb_head *h)
{
	struct rcb_worker *w = c->w;

	/* Local mode (callback_local.c, L1): plain stores to our own list;
	 * the worker's thread runs cycles and takes it (L7: no wake-up). */
	if (w == &rcb__cb_default && c->self->registered &&
	    !c->self->in_callback && rcb__cb_local_append(c->self, h))
		return;
	rcb__cb_push(w, h, h);
	/* [CB-F] Load after the seq_cst exchange in enqueue(): pairs with
	 * [CB-S]: either the consumer's re-check sees our node, or we see
	 * its -1 and wake it (invariant 4: after our section, or after the
	 * caller's). */
	if (RCB_UNLIKELY(rcb_load_seq_cst(&w->futex) == -1 || c->start_late))
		c->wake = wake_decided(c->self, w, c->start_late);
	/* [CBB-K] Booster mode: booster 0 sleeps without timeout; load
	 * after the seq_cst exchange in enqueue(), pairs with [BST-IDL]
	 * (callback_boost.c B5). */
	c->kick_boosters =
		RCB_UNLIKELY(rcb_load_seq_cst(&rcb__cb_hot.boost_idle)) &&
		rcb_load_relaxed(&w->cbboost);
}

/* After the section: the wake-ups and kicks decided inside it. */
static inline void call_after(const struct call_ctx *c)
{
	unsigned long long kick_at;

	if (RCB_UNLIKELY(c->wake != NULL))
		rcb__cb_wake_late(c->wake);
	if (RCB_UNLIKELY(c->kick_boosters))
		rcb__boost_hooks.cb_boost_kick();
	/* Memory pressure: the boosters learn of it now, not a period
	 * later (booster.c). */
	if (RCB_UNLIKELY(c->kick_at && c->n >= (long long)c->kick_at))
		rcb__boost_hooks.pressure_kick();
	if (c->nbytes) {
		kick_at = rcb_load_relaxed(&rcb__cb_hot.kick_bytes);
		if (RCB_UNLIKELY(kick_at && c->nbytes >= (long long)kick_at))
			rcb__boost_hooks.pressure_kick();
	}
}

/*
 * rcb_call*() of @func(@h); @s: @h's sized head (NULL for a plain one)
 * counting @bytes; @quiet: the library's own call, a shutdown is not
 * reported.  Nothing is written to the head before every check passed:
 * a refused call leaves the caller's object as it was.
 */
static int call(struct rcb_head *h, void (*func)(struct rcb_head *h),
		struct rcb_head_sized *s, size_t bytes, bool quiet)
{
	const char *call_name = s ? "rcb_call_sized" : "rcb_call";
	struct call_ctx c = { .start_late = false };
	int err;

	if ((err = call_enter(&c, call_name, quiet)) != 0)
		return err;
	if (call_queued_already(h)) {
		rcb_read_unlock();
		rcb__misuse(call_name,
			    "rcb_head %p is already queued (its callback has not run yet); nothing queued",
			    (void *)h);
		return -EBUSY;
	}
	call_set_func(h, func, s, bytes);
	call_count(c.self, bytes);
	call_pressure_count(&c, bytes);
	call_queue(&c, h);
	rcb_read_unlock();
	call_after(&c);
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
		rcb__cb_push(w, &m.head, &m.head);
		/* [CB-DM] After the enqueue, before the bump below: pairs
		 * with [CB-DMA] in queued_marker_since(). */
		if (w == &rcb__cb_default)
			rcb_add_release(&rcb__cb_default_markers, 1);
		if (rcb_load_seq_cst(&w->futex) == -1) /* [CB-F] */
			rcb__cb_wake_thread(w);
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
		int seq = rcb_load_acquire(&rcb__cb_barrier_seq);

		/* [CB-W] pairs with [CB-B]. */
		if (rcb_load_acquire(&m.done))
			break;
		rcb__futex_wait(&rcb__cb_barrier_seq, seq, 0);
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
	rcb__cb_backlog_now(&n, &bytes);
	out->callbacks = n;
	out->bytes = bytes;
	out->peak_callbacks = rcb_load_relaxed(&rcb__cb_peak);
	out->peak_bytes = rcb_load_relaxed(&rcb__cb_peak_bytes);
	if (out->callbacks > out->peak_callbacks)
		out->peak_callbacks = out->callbacks;
	if (out->bytes > out->peak_bytes)
		out->peak_bytes = out->bytes;
	out->invoked = rcb_load_relaxed(&rcb__cb_invoked);
}

RCB_API void rcb_backlog_reset_peak(void)
{
	unsigned long long n, bytes;

	rcb__cb_backlog_now(&n, &bytes);
	rcb_store_relaxed(&rcb__cb_peak, n);
	rcb_store_relaxed(&rcb__cb_peak_bytes, bytes);
}
