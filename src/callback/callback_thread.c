/* SPDX-License-Identifier: MIT */
/*
 * The callback worker threads (callback.c, invariants 1-15): a worker's
 * loop, its waits for work and for a grace period, its batches and their
 * invocation, local mode's cycles, liburcu's fixed wait.
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
	/* [CB-S] */
	while (rcb__cb_queue_empty(w) && !rcb_load_seq_cst(&w->stop)) {
		/* [CB-S] Announce the sleep before re-checking the queue and
		 * the stop flag: store-buffering with the producer's exchange
		 * and its load of the futex, and with the stopper's two
		 * stores.  Pairs with [CB-Q], [CB-F] and [CB-STOP]. */
		rcb_store_seq_cst(&w->futex, -1);
		/* [CB-S] */
		if (!rcb__cb_queue_empty(w) || rcb_load_seq_cst(&w->stop)) {
			rcb_store_relaxed(&w->futex, 0);
			break;
		}
		/* Booster mode: no boost outlives the work (callback_boost.c
		 * B3; [CBB-S] follows the seq_cst store of -1 above). */
		rcb__boost_hooks.cb_unboost_self(w);
		if (!asleep_at)
			asleep_at = rcb__now_ns();
		rcb__futex_wait(&w->futex, -1, 0);
		rcb_store_relaxed(&w->futex, 0);
	}
	return asleep_at ? rcb__now_ns() - asleep_at + 1 : 0;
}

/* A producer that wakes the thread this soon after it fell asleep, on
 * its CPU, made one call after it got the CPU back and woke the thread
 * again, a few microseconds apart.  A paced producer does that
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
 * calls at full speed (rcb__cb_worker_thread(); gp_policy.c, "beside its
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
		rcb__cb_backlog_now(&now_n, &now_bytes);
		rcb_max_relaxed(&rcb__cb_peak, now_n);
		rcb_max_relaxed(&rcb__cb_peak_bytes, now_bytes);
	}
	if (rcb__cb_kick_armed()) {
		rcb_sub_relaxed(&rcb__cb_kick_count, (long long)n);
		rcb_sub_relaxed(&rcb__cb_kick_bytes, (long long)bytes);
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
			next = rcb__cb_next_of(h);
		}
		rcb_store_relaxed(&w->batch.todo, next);
		if (h->func == rcb__cb_barrier_reached) {
			/* The waiter sees the backlog without what it
			 * waited for. */
			account_invoked(w);
			rcb__cb_barrier_reached(h);
			continue;
		}
		rcb_store_relaxed(&w->batch.n,
				  rcb_load_relaxed(&w->batch.n) + 1);
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
			rcb__end_leaked_section("callback",
						(const void *)(uintptr_t)func);
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
	return rcb_load_relaxed(&rcb__cb_urcu_timing) ?
		       rcb__settings.urcu_callback_delay_us :
		       0;
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
	unsigned long n = rcb_load_acquire(&rcb__cb_default_markers);
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
	unsigned long long rate =
		*since_ns ? n * 1000000ull / (now - *since_ns + 1) : 0;

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
static unsigned long long
synchronize_and_invoke(struct rcb_worker *w, struct rcb__thread *self,
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
			bool entry, uint64_t *since_ns,
			unsigned long long *rate, struct rcb__cb_lead *lead)
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

void *rcb__cb_worker_thread(void *arg)
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
			local = local_cycle(w, self, entry, &since_ns, &rate,
					    &lead);
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
		if ((back_to_back || w->gpp.stream) &&
		    last_n >= RCB__CB_LOCAL_BATCH &&
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
						    beside >=
							    RCB__CB_BESIDE_ROW);
		}
		/* [CB-SA] The stop flag before the queue (invariant 8):
		 * pairs with [CB-STOP], whose store follows, under
		 * rcb__cb_lock,
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
	rcb__boost_hooks.cb_unboost_self(w); /* callback_boost.c B3 */
	self->cb_running = NULL;
	return NULL;
}
