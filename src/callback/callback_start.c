/* SPDX-License-Identifier: MIT */
/*
 * Starting and stopping the callback worker threads (callback.c,
 * invariants 7 and 9): a worker's thread attributes, its start (pinned,
 * real-time), its stop, and the start of the workers a forked child
 * inherited or a call nested in a section marked.
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
		/* SCHED_OTHER; RCUBOOST_CPUS or the process's CPUs */
		return err;
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
	int err = pthread_create(&w->thread, a, rcb__cb_worker_thread, w);

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
		err = rcb__lib_thread_spawn(&w->thread, a,
					    rcb__cb_worker_thread, w);
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
		err = rcb__lib_thread_spawn(&w->thread, &a,
					    rcb__cb_worker_thread, w);
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
			err = rcb__lib_thread_spawn(&w->thread, &a,
						    rcb__cb_worker_thread, w);
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
	/* [CB-TIDW] pairs with [CB-TID] in rcb__cb_worker_thread(): the
	 * worker's thread ID is known when it counts as started. */
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
	    !rcb__cb_queue_empty(w) &&
	    (err = rcb__cb_start_locked(w, true)) != 0)
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
int rcb__cb_start_listed(struct rcb_worker *w)
{
	int err = 0;

	pthread_mutex_lock(&rcb__cb_lock);
	if (rcb__cb_listed(w))
		err = rcb__cb_start_locked(w, false);
	pthread_mutex_unlock(&rcb__cb_lock);
	return err;
}
