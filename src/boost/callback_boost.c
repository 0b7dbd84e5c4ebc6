/* SPDX-License-Identifier: MIT */
/*
 * Boosted callback invocation, booster mode: a callback
 * worker that runs at normal attributes and has work, but has been kept
 * off its CPU for about a booster period, is raised by booster 0 to the
 * level readers get (rcb__boost_first_level()), and lowers itself back
 * when its queue is drained.  Under a real-time hog on the worker's CPU
 * the backlog then stays bounded by what arrives in about two booster
 * periods, instead of growing for as long as the hog runs.
 *
 * Why default-on when boosting is on: a worker at SCHED_OTHER (the
 * default, RCUBOOST_CALLBACK_PRIO unset) is starved by any real-time
 * thread on its CPU, and its backlog is memory that the application
 * retired and cannot get back; readers are boosted for the same reason.
 * A worker that runs at a real-time policy (RCUBOOST_CALLBACK_PRIO, or
 * its own struct rcb_worker_attr) or polls (RCB_WORKER_RT) has been
 * placed by the application and is left alone.
 *
 * What counts as held up.  Booster 0 samples every started worker once
 * per loop (at most one sample per half period is kept): the worker has
 * work (its queue is not empty, or a batch is in progress), its thread
 * is runnable ('R' in /proc/self/task/<tid>/stat), and since the last
 * sample, at least half a period ago, it has had less than half of the
 * elapsed time on a CPU (its thread CPU clock).  A worker that sleeps (in
 * rcb_synchronize() for a reader: the reader is boosted instead; in a
 * callback; in its coalescing wait) is not 'R'; a worker that runs its
 * callbacks gets its CPU time.  So only a preempted worker is raised,
 * within about one to two periods of the start of its preemption.
 *
 * Invariants.
 *  B1. bstate is NONE, BUSY (one party is changing or undoing the boost
 *      and owns borig and bset) or BOOSTED (borig/bset hold what to
 *      restore and what was set).  Only a compare-and-exchange from
 *      NONE (the booster) or from BOOSTED (the booster or the worker)
 *      enters BUSY, so exactly one party restores a boost.
 *  B2. A restore puts borig back only if the thread still runs at bset:
 *      an application's change made meanwhile wins (as for readers).
 *  B3. No residual boost: the worker calls rcb__cb_unboost_self() after
 *      announcing its sleep on an empty queue (futex = -1, [CB-S]) and
 *      when its thread ends.  A boost that the booster applies while the
 *      worker goes to sleep is caught by one of the two: store-buffering
 *      between the booster's "bstate = BOOSTED; load futex" and the
 *      worker's "futex = -1; load bstate" ([CBB-B]/[CBB-S]): either the
 *      worker sees BOOSTED and restores, or the booster sees -1 and
 *      restores at once.  A thread that has ended has no attributes.
 *  B4. The booster walks the worker list only under rcb__cb_lock, taken
 *      with trylock: a stopper holds it while it joins a worker whose
 *      grace period may need the booster, so the booster never waits
 *      for it (it looks again in a period).  Under the lock a listed,
 *      started worker's thread exists (callback.c invariant 7).
 *  B5. Waking an idle booster.  Booster 0 sleeps without timeout only
 *      when no worker had work at its last look, and then at most once
 *      per period (otherwise it sleeps one period): a producer whose
 *      enqueue finds it so (rcb__cb_hot.boost_idle) wakes it.  Store-
 *      buffering between the producer's seq_cst exchange of the queue
 *      tail then load of rcb__cb_hot.boost_idle ([CBB-K]) and the booster's
 *      "rcb__cb_hot.boost_idle = 1; fence ([BST-IDL]); look at the queues"
 *      ([CBB-I]): either the booster sees the node, or the producer sees
 *      the flag and wakes it.  At most one such wake-up per period.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boost/boost.h"
#include "callback/callback.h"
#include "core/procfs.h"

enum { CBB_NONE, CBB_BUSY, CBB_BOOSTED };

_Atomic long rcb__cb_boosts, rcb__cb_unboosts, rcb__cb_sched_syscalls;

/* The scheduling calls made for workers, counted apart from the readers'
 * (boost_stats.c): sched_syscalls counts both, and a figure per reader
 * boost needs the readers' share alone. */
static int cb_sched_get(pid_t tid, struct rcb__sched_attr *a)
{
	rcb_add_relaxed(&rcb__cb_sched_syscalls, 1);
	return rcb__sched_get(tid, a);
}

static int cb_sched_set(pid_t tid, const struct rcb__sched_attr *a)
{
	rcb_add_relaxed(&rcb__cb_sched_syscalls, 1);
	return rcb__sched_set(tid, a);
}

/* Booster mode applies: boosting on; a worker decides for itself below. */
static bool enabled(void)
{
	return rcb__settings.boost > 0;
}

/* The worker has work: queued callbacks, or a batch in progress. */
static bool has_work(struct rcb_worker *w)
{
	/* Local mode: threads append without a wake-up (callback_local.c,
	 * L7). */
	return !rcb__cb_queue_empty(w) || rcb_load_relaxed(&w->batch.todo) ||
	       (w == &rcb__cb_default && rcb__cb_local_on());
}

/* Undo a boost whose owner we are (bstate BUSY, B1, B2).  @tid: 0 for
 * the calling thread. */
static void restore(struct rcb_worker *w, pid_t tid)
{
	struct rcb__sched_attr cur;

	if (cb_sched_get(tid, &cur) == 0 && rcb__sched_same(&cur, &w->bset))
		(void)cb_sched_set(tid, &w->borig);
	rcb_add_relaxed(&rcb__cb_unboosts, 1);
	/* [CBB-R] pairs with [CBB-T]: the next owner sees borig/bset as we
	 * left them. */
	rcb_store_release(&w->bstate, CBB_NONE);
}

/* Raise @w's thread to the first boost level.  Context: booster 0,
 * rcb__cb_lock held. */
static void boost(struct rcb_worker *w, int booster_prio)
{
	int level = rcb__boost_first_level(booster_prio);
	pid_t tid = rcb_load_relaxed(&w->tid);
	struct rcb__sched_attr cur, want;
	int expect = CBB_NONE;

	/* [CBB-T] pairs with [CBB-R]: B1. */
	if (!rcb_cmpxchg_acq_rel(&w->bstate, &expect, CBB_BUSY))
		return;
	/* A real-time worker has been placed by the application. */
	if (cb_sched_get(tid, &cur) != 0 || cur.sched_policy == SCHED_FIFO ||
	    cur.sched_policy == SCHED_RR || rcb__sched_at_least(&cur, 1)) {
		rcb_store_release(&w->bstate, CBB_NONE); /* [CBB-R] */
		return;
	}
	want = cur;
	want.sched_policy = SCHED_FIFO;
	want.sched_priority = (uint32_t)level;
	want.sched_nice = 0;
	want.sched_flags &= 0x01; /* keep SCHED_FLAG_RESET_ON_FORK only */
	w->borig = cur;
	w->bset = want;
	if (cb_sched_set(tid, &want) != 0) {
		rcb_store_release(&w->bstate, CBB_NONE); /* [CBB-R] */
		return;
	}
	rcb_add_relaxed(&rcb__cb_boosts, 1);
	/* [CBB-B] BOOSTED, then the worker's sleep announcement: store-
	 * buffering with [CBB-S] in rcb__cb_unboost_self() (B3). */
	rcb_store_seq_cst(&w->bstate, CBB_BOOSTED);
	if (rcb_load_seq_cst(&w->futex) == -1) { /* [CBB-B] */
		expect = CBB_BOOSTED;
		/* [CBB-T] */
		if (rcb_cmpxchg_acq_rel(&w->bstate, &expect, CBB_BUSY))
			restore(w, tid);
	}
}

void rcb__cb_unboost_self(struct rcb_worker *w)
{
	int expect = CBB_BOOSTED;

	/* [CBB-S] After the caller's seq_cst store of futex = -1 (or at
	 * the thread's end): pairs with [CBB-B] in boost() (B3). */
	int s = rcb_load_seq_cst(&w->bstate);

	while (s == CBB_BUSY) {
		/* The booster (real-time) is in the middle of it. */
		sched_yield();
		s = rcb_load_seq_cst(&w->bstate); /* [CBB-S] */
	}
	if (s == CBB_BOOSTED &&
	    rcb_cmpxchg_acq_rel(&w->bstate, &expect, CBB_BUSY)) { /* [CBB-T] */
		struct rcb__sched_attr orig = w->borig, set = w->bset, cur;

		/* Give the boost up before lowering ourselves: once lowered,
		 * a hog may keep us off the CPU, and a BUSY left behind
		 * would stop the booster from raising us again.  A boost the
		 * booster applies meanwhile finds us at bset (a real-time
		 * policy: not raised) or, after our restore, our futex at
		 * -1 ([CBB-B]), or work queued: then it is due. */
		rcb_store_release(&w->bstate, CBB_NONE); /* [CBB-R] */
		rcb_add_relaxed(&rcb__cb_unboosts, 1);
		if (cb_sched_get(0, &cur) == 0 && rcb__sched_same(&cur, &set))
			(void)cb_sched_set(0, &orig);
	}
}

/* Sample @w and raise it if it is held up (see above).  Context:
 * booster 0, rcb__cb_lock held. */
static void watch(struct rcb_worker *w, int prio, uint64_t now,
		  uint64_t period_ns)
{
	long long run = rcb__thread_cpu_ns(w->thread);
	uint64_t dt = now - w->bs_ns;

	if (run < 0) {
		w->bs_work = false;
		return;
	}
	if (w->bs_work && dt < period_ns / 2)
		return; /* keep the older sample */
	if (w->bs_work && rcb_load_relaxed(&w->bstate) == CBB_NONE &&
	    (uint64_t)(run - w->bs_run_ns) < dt / 2 &&
	    rcb__proc_task_state(rcb_load_relaxed(&w->tid)) == 'R')
		boost(w, prio);
	w->bs_work = true;
	w->bs_ns = now;
	w->bs_run_ns = run;
}

bool rcb__cb_boost_pass(int prio, uint64_t now, uint64_t period_ns)
{
	bool work = false;

	if (!enabled())
		return false;
	/* B4: never wait for a stopper. */
	if (pthread_mutex_trylock(&rcb__cb_lock) != 0)
		return true;
	for (struct rcb_worker *w = rcb__cb_workers; w; w = w->next) {
		bool h;

		if (!rcb_load_relaxed(&w->started) ||
		    !rcb_load_relaxed(&w->cbboost)) {
			w->bs_work = false;
			continue;
		}
		/* [CBB-I] (the queue's seq_cst load): see B5. */
		h = has_work(w);
		work |= h;
		if (h && prio > 0)
			watch(w, prio, now, period_ns);
		else
			w->bs_work = false;
	}
	pthread_mutex_unlock(&rcb__cb_lock);
	return work;
}

bool rcb__cb_boost_any_work(void)
{
	bool work = false;

	if (!enabled())
		return false;
	if (pthread_mutex_trylock(&rcb__cb_lock) != 0)
		return true;
	for (struct rcb_worker *w = rcb__cb_workers; w && !work; w = w->next)
		work = rcb_load_relaxed(&w->started) &&
		       /* [CBB-I] */
		       rcb_load_relaxed(&w->cbboost) && has_work(w);
	pthread_mutex_unlock(&rcb__cb_lock);
	return work;
}

void rcb__cb_boost_kick(void)
{
	/* One wake-up per idle sleep (B5). */
	if (rcb_xchg_relaxed(&rcb__cb_hot.boost_idle, 0))
		rcb__boosters_wake();
}
