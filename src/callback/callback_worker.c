/* SPDX-License-Identifier: MIT */
/*
 * Callback workers: creating, choosing and destroying them (liburcu's
 * call_rcu_data).  Each worker runs callback.c's protocol on its own
 * queue and thread; the default worker, static, is the library's own.
 *
 * Choice.  rcb_call*() queues to the calling thread's worker (struct
 * rcb__thread.cb_worker, rcb_worker_set_thread()), else to the worker of
 * the CPU it runs on (cpu_table, rcb_worker_assign_cpu()), else to the
 * default worker: rcb__cb_pick(), two loads on the common path.
 *
 * Invariants.
 *  W1. A worker is on the list rcb__cb_workers from its creation until
 *      rcb_worker_destroy() has stopped its thread and moved its queue;
 *      both change under rcb__cb_lock.  Only a listed worker is started,
 *      waited for by rcb_barrier(), stopped by rcb_shutdown(), rebuilt
 *      in a forked child.  A pointer is checked against the list under
 *      rcb__cb_lock before it is dereferenced by any call that takes a
 *      worker from the application (a freed worker is -ENOENT and a
 *      misuse report, never a use after free).
 *  W2. rcb_call*() picks its worker and enqueues inside one read-side
 *      critical section.  So once a worker is no longer published (not
 *      in cpu_table, no thread's cb_worker), one grace period later no
 *      rcb_call*() will enqueue to it.
 *  W3. A thread's cb_worker is set by the thread itself under
 *      rcb__cb_lock, after it registered, and cleared by
 *      rcb_worker_destroy() under the registry lock for every registered
 *      thread, and by the thread when it unregisters (registry.c): a
 *      destroyed worker is chosen by no thread afterwards.
 *  W4. rcb_worker_destroy() marks the worker dying (set_thread/set_cpu
 *      refuse it), withdraws it (W3, cpu_table), waits a grace period
 *      (W2), then, under rcb__cb_lock: tells its thread to stop after
 *      its current batch (abandon), joins it, appends what is left of
 *      its queue, barrier markers included and in order, to the default
 *      worker's queue, and unlists it; it frees it once the calls that
 *      chose it have made their late wake-ups (callback.c invariant
 *      4).  A barrier marker is then reached on one worker or the
 *      other; rcb_barrier() visits the default worker last, so a
 *      destroy that unlisted a worker before rcb_barrier() looked for
 *      it moved its callbacks before the default worker's marker.
 *  W5. The calls that take rcb__cb_lock refuse to run in a callback
 *      (-EDEADLK): rcb_shutdown() and rcb_worker_destroy() hold it while
 *      they join a worker's thread (callback.c invariants 7 and 9).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "callback/callback.h"
#include "core/internal.h"

/* Per-CPU workers: ncpus entries, allocated at the first
 * rcb_worker_assign_cpu() and kept for the life of the process. */
_Atomic(struct rcb_worker *_Atomic *) rcb__cb_cpu_table;
#define cpu_table rcb__cb_cpu_table
static int ncpus;
static unsigned long next_id;

/* Set by rcb_worker_destroy() under rcb__cb_lock (W4). */
static bool dying(const struct rcb_worker *w)
{
	return w->dying;
}

struct rcb_worker *rcb__cb_pick_cpu(struct rcb_worker *_Atomic *t)
{
	struct rcb_worker *w;
	int cpu = sched_getcpu();

	/* [CBW-PA] pairs with [CBW-PR] in rcb_worker_assign_cpu(): the
	 * worker is initialised. */
	if (cpu >= 0 && cpu < ncpus && (w = rcb_load_acquire(&t[cpu])))
		return w;
	return &rcb__cb_default;
}

bool rcb__cb_listed(struct rcb_worker *w)
{
	for (struct rcb_worker *x = rcb__cb_workers; x; x = x->next)
		if (x == w)
			return true;
	return false;
}

/* Is the calling thread a callback (W5), or running a deferred function
 * (defer.c)?  Reports it. */
static bool in_callback_or_deferred(const char *call)
{
	if (rcb__defer_refuses(call))
		return true;
	if (!rcb__self()->in_callback)
		return false;
	rcb__misuse(call,
		    "called from an RCU callback; a worker being stopped would wait for it");
	return true;
}

/* Calls that take rcb__cb_lock: its holder may be joining a worker
 * whose grace period waits for the caller's section (callback.c,
 * invariant 7), or the caller's own thread (a callback). */
static bool refused_here(const char *call)
{
	if (rcb_read_ongoing()) {
		rcb__misuse(call,
			    "called inside a read-side critical section; a worker being stopped "
			    "holds a lock this call takes while its grace period waits for the section");
		return true;
	}
	return in_callback_or_deferred(call);
}

/* @w is not a live worker (destroyed already, or never made by
 * rcb_worker_create()): reported as misuse, -ENOENT.  Only the pointer
 * is printed; @w may be freed memory. */
static int not_live(const char *call, const struct rcb_worker *w)
{
	rcb__misuse(call,
		    "worker %p is not a live worker (destroyed already, or not made by "
		    "rcb_worker_create()); nothing done",
		    (const void *)w);
	return -ENOENT;
}

/* A NULL pointer argument @what: reported as misuse, -EINVAL. */
static int null_arg(const char *call, const char *what)
{
	rcb__misuse(call, "%s is NULL; nothing done", what);
	return -EINVAL;
}

/* -EINVAL, naming the field of struct rcb_worker_attr that is wrong. */
static int attr_error(const char *field, long value, const char *expected)
{
	fprintf(stderr,
		"rcuboost: rcb_worker_create: attr.%s %ld is invalid: expected %s\n",
		field, value, expected);
	return -EINVAL;
}

static int check_attr(const struct rcb_worker_attr *a)
{
	if (a->flags & ~(RCB_WORKER_RT | RCB_WORKER_PIN))
		return attr_error("flags", (long)a->flags,
				  "RCB_WORKER_RT and RCB_WORKER_PIN only");
	if ((a->flags & RCB_WORKER_PIN) &&
	    (a->cpu < 0 || a->cpu >= CPU_SETSIZE ||
	     a->cpu >= get_nprocs_conf()))
		return attr_error("cpu", a->cpu,
				  "a configured CPU, with RCB_WORKER_PIN");
	if (a->policy == SCHED_OTHER)
		return a->prio == 0 ? 0 : attr_error("prio", a->prio,
						     "0 with SCHED_OTHER");
	if (a->policy != SCHED_FIFO && a->policy != SCHED_RR)
		return attr_error("policy", a->policy,
				  "SCHED_OTHER, SCHED_FIFO or SCHED_RR");
	return a->prio >= 1 && a->prio <= 99 ? 0 :
	       attr_error("prio", a->prio, "1 to 99 with SCHED_FIFO or SCHED_RR");
}

_Static_assert(sizeof(struct rcb_worker_attr) == RCB_WORKER_ATTR_SIZE_V1,
	       "RCB_WORKER_ATTR_SIZE_V1 is the first layout's size");

RCB_API int rcb_worker_create(const struct rcb_worker_attr *attr,
			      struct rcb_worker **out)
{
	struct rcb_worker_attr a = { 0 };
	struct rcb_worker *w;
	int err;

	if (!out)
		return null_arg("rcb_worker_create", "out");
	*out = NULL;
	if (attr) {
		size_t usize =
			rcb__sized_arg("rcb_worker_create", "attr", &attr->size,
				       RCB_WORKER_ATTR_SIZE_V1, sizeof(a));

		if (!usize)
			return -EINVAL;
		if (!rcb__sized_in(&a, sizeof(a), attr, usize)) {
			fprintf(stderr,
				"rcuboost: rcb_worker_create: attr.size %zu is larger than this "
				"library's struct rcb_worker_attr (%zu) and the extra bytes are "
				"not zero: a field this library does not know\n",
				attr->size, sizeof(a));
			return -E2BIG;
		}
	}
	if ((err = check_attr(&a)) != 0)
		return err;
	if (refused_here("rcb_worker_create"))
		return -EDEADLK;
	if ((err = rcb__ensure_init()) != 0)
		return err;
	/* sizeof is a multiple of the struct's alignment (C11 7.22.3.1). */
	w = aligned_alloc(_Alignof(struct rcb_worker), sizeof(*w));
	if (!w)
		return -ENOMEM;
	memset(w, 0, sizeof(*w));
	w->q.tail = &w->q.stub;
	w->flags = a.flags;
	w->cpu = a.flags & RCB_WORKER_PIN ? a.cpu : -1;
	w->policy = a.policy;
	w->prio = a.prio;
	pthread_mutex_lock(&rcb__cb_lock);
	if (!rcb_load_relaxed(&rcb__running)) {
		err = -ESHUTDOWN;
	} else if ((err = rcb__cb_start_locked(w, false)) == 0) {
		struct rcb_worker **p = &rcb__cb_workers;

		w->id = ++next_id;
		while (*p)
			p = &(*p)->next;
		*p = w;
	}
	pthread_mutex_unlock(&rcb__cb_lock);
	if (err) {
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

RCB_API int rcb_worker_destroy(struct rcb_worker *w)
{
	struct rcb__thread *t;
	struct rcb_worker *_Atomic *tab;
	struct rcb_head *first, *last;
	int err = 0;

	if (!w)
		return null_arg("rcb_worker_destroy", "the worker");
	if (w == &rcb__cb_default) {
		rcb__misuse("rcb_worker_destroy",
			    "the default worker (rcb_worker_default()) is the library's; "
			    "rcb_shutdown() stops it; nothing done");
		return -EINVAL;
	}
	if (rcb_read_ongoing()) {
		rcb__misuse("rcb_worker_destroy",
			    "called inside a read-side critical section; its grace period would wait for itself");
		return -EDEADLK;
	}
	if (rcb__self()->cb_running == w) {
		rcb__misuse("rcb_worker_destroy",
			    "called from the worker's own thread; it would join itself");
		return -EDEADLK;
	}
	if (in_callback_or_deferred("rcb_worker_destroy"))
		return -EDEADLK;
	/* W4, step 1: refuse it to new choosers, withdraw it from CPUs. */
	pthread_mutex_lock(&rcb__cb_lock);
	if (!rcb__cb_listed(w) || dying(w)) {
		pthread_mutex_unlock(&rcb__cb_lock);
		return not_live("rcb_worker_destroy", w);
	}
	w->dying = true;
	tab = rcb_load_relaxed(&cpu_table);
	for (int cpu = 0; tab && cpu < ncpus; cpu++)
		if (rcb_load_relaxed(&tab[cpu]) == w)
			rcb_store_relaxed(&tab[cpu], NULL);
	pthread_mutex_unlock(&rcb__cb_lock);
	/* W3: no registered thread chooses it any more. */
	pthread_mutex_lock(&rcb__registry_lock);
	rcb__for_each_thread(t)
		if (rcb_load_relaxed(&t->cb_worker) == w)
			rcb_store_relaxed(&t->cb_worker, NULL);
	pthread_mutex_unlock(&rcb__registry_lock);
	if (rcb_load_relaxed(&rcb__self()->cb_worker) == w)
		rcb_store_relaxed(&rcb__self()->cb_worker, NULL);
	/* W2: rcb_call*() calls that chose it have enqueued. */
	if (rcb_load_relaxed(&rcb__initialized))
		rcb_synchronize();
	/* W4, step 2: stop after the current batch, move the rest. */
	pthread_mutex_lock(&rcb__cb_lock);
	rcb__cb_stop_locked(w, true);
	if (rcb__cb_splice(w, &first, &last)) {
		rcb__cb_enqueue_chain(&rcb__cb_default, first, last);
		if (!rcb_load_relaxed(&rcb__cb_default.started))
			err = rcb__cb_start_locked(&rcb__cb_default, false);
	}
	for (struct rcb_worker **p = &rcb__cb_workers; *p; p = &(*p)->next) {
		if (*p == w) {
			*p = w->next;
			break;
		}
	}
	pthread_mutex_unlock(&rcb__cb_lock);
	/* W4: the rcb_call*() calls that chose it may still be waking its
	 * (joined) thread after their sections (callback.c invariant 4).
	 * [CB-LWA] pairs with [CB-LWR]; their count was made inside the
	 * sections the grace period above waited for ([CB-LW]).  A waker
	 * may still have to take rcb__cb_lock and start a thread
	 * (rcb__cb_wake_late()): sleep until the last one wakes us, never
	 * spin (a real-time destroyer would keep it off a shared CPU). */
	for (int n; (n = rcb_load_acquire(&w->late_wakers)) > 0;)
		(void)rcb__futex_wait(&w->late_wakers, n, 0);
	free(w);
	/* The callbacks moved wait in the default worker's queue even if
	 * its thread could not start; rcb_barrier() starts it again. */
	(void)err;
	return 0;
}

RCB_API int rcb_worker_set_thread(struct rcb_worker *w)
{
	int err;

	if (refused_here("rcb_worker_set_thread"))
		return -EDEADLK;
	if (w && (err = rcb_register_thread()) != 0 && err != -EEXIST)
		return err;
	pthread_mutex_lock(&rcb__cb_lock);
	if (w && (!rcb__cb_listed(w) || dying(w))) {
		pthread_mutex_unlock(&rcb__cb_lock);
		return not_live("rcb_worker_set_thread", w);
	}
	/* W3: set under rcb__cb_lock, after registration. */
	rcb_store_relaxed(&rcb__self()->cb_worker, w);
	pthread_mutex_unlock(&rcb__cb_lock);
	return 0;
}

RCB_API int rcb_worker_assign_cpu(struct rcb_worker *w, int cpu)
{
	struct rcb_worker *_Atomic *tab;
	int err = 0;

	if (cpu < 0 || cpu >= get_nprocs_conf()) {
		rcb__misuse("rcb_worker_assign_cpu",
			    "cpu %d is out of range: this machine has CPUs 0 to %d configured; "
			    "nothing done",
			    cpu, get_nprocs_conf() - 1);
		return -EINVAL;
	}
	if (refused_here("rcb_worker_assign_cpu"))
		return -EDEADLK;
	pthread_mutex_lock(&rcb__cb_lock);
	tab = rcb_load_relaxed(&cpu_table);
	if (w && (!rcb__cb_listed(w) || dying(w))) {
		err = -ENOENT;
	} else if (!tab && w) {
		int n = get_nprocs_conf();

		tab = calloc((size_t)n, sizeof(*tab));
		if (!tab) {
			err = -ENOMEM;
		} else {
			ncpus = n;
			/* [CBW-TR] pairs with [CBW-TA] in rcb__cb_pick(). */
			rcb_store_release(&cpu_table, tab);
		}
	}
	if (!err && tab && cpu < ncpus) {
		if (w && rcb_load_relaxed(&tab[cpu]))
			err = -EEXIST;
		else /* [CBW-PR] pairs with [CBW-PA] in rcb__cb_pick(). */
			rcb_store_release(&tab[cpu], w);
	}
	pthread_mutex_unlock(&rcb__cb_lock);
	/* -EEXIST is not reported: liburcu's create_all_cpu_call_rcu_data()
	 * meets it when another thread set the CPU first. */
	return err == -ENOENT ? not_live("rcb_worker_assign_cpu", w) : err;
}

RCB_API struct rcb_worker *rcb_worker_default(void)
{
	return rcb__ensure_init() == 0 ? &rcb__cb_default : NULL;
}

RCB_API struct rcb_worker *rcb_worker_of_cpu(int cpu)
{
	/* [CBW-TA] as in rcb__cb_pick(). */
	struct rcb_worker *_Atomic *t = rcb_load_acquire(&cpu_table);

	if (!t || cpu < 0 || cpu >= ncpus)
		return NULL;
	return rcb_load_acquire(&t[cpu]); /* [CBW-PA] */
}

RCB_API struct rcb_worker *rcb_worker_of_thread(void)
{
	return rcb_load_relaxed(&rcb__self()->cb_worker);
}

RCB_API struct rcb_worker *rcb_worker_current(void)
{
	if (rcb__ensure_init() != 0)
		return NULL;
	return rcb__cb_pick();
}

/* @w's thread and TID, starting it if need be (W1, W5); @call names
 * the API call. */
static int worker_thread_of(const char *call, struct rcb_worker *w,
			    pthread_t *th, pid_t *tid)
{
	struct rcb__thread *self = rcb__self();
	int err;

	if (!w)
		return null_arg(call, "the worker");
	if (self->cb_running == w) {
		/* A callback asking for its own worker: its own thread (the
		 * starter's pthread_create() may not have stored w->thread
		 * yet; POSIX does not say when it does). */
		*th = pthread_self();
		*tid = rcb_load_relaxed(&w->tid);
		return 0;
	}
	if (refused_here(call))
		return -EDEADLK;
	if ((err = rcb__ensure_init()) != 0)
		return err;
	pthread_mutex_lock(&rcb__cb_lock);
	if (!rcb__cb_listed(w) || dying(w))
		err = -ENOENT;
	else if ((err = rcb__cb_start_locked(w, false)) == 0 &&
		 !rcb_load_relaxed(&w->started))
		err = -ESHUTDOWN;
	if (!err) {
		*th = w->thread;
		*tid = rcb_load_relaxed(&w->tid);
	}
	pthread_mutex_unlock(&rcb__cb_lock);
	return err == -ENOENT ? not_live(call, w) : err;
}

RCB_API int rcb_worker_thread(struct rcb_worker *w, pthread_t *out)
{
	pid_t tid;

	if (!out)
		return null_arg("rcb_worker_thread", "out");
	return worker_thread_of("rcb_worker_thread", w, out, &tid);
}

RCB_API pid_t rcb_worker_tid(struct rcb_worker *w)
{
	pthread_t th;
	pid_t tid;
	int err = worker_thread_of("rcb_worker_tid", w, &th, &tid);

	return err ? err : tid;
}

RCB_API int rcb_callback_tids(pid_t *tids, size_t n)
{
	int count = 0;

	if (!tids && n)
		return null_arg("rcb_callback_tids", "tids (with n > 0)");
	if (refused_here("rcb_callback_tids"))
		return -EDEADLK;
	pthread_mutex_lock(&rcb__cb_lock);
	for (struct rcb_worker *w = rcb__cb_workers; w; w = w->next) {
		if (!rcb_load_relaxed(&w->started))
			continue;
		if ((size_t)count < n)
			tids[count] = rcb_load_relaxed(&w->tid);
		count++;
	}
	pthread_mutex_unlock(&rcb__cb_lock);
	return count;
}
