/* SPDX-License-Identifier: MIT */
/*
 * The booster thread.  article: "Sequencing Through Lists of Tasks"
 * (rcu_booster) and "Boosting The Priority of a List of Tasks"
 * (rcu_boost_one_reader_list).
 *
 * Each period the booster advances rcu_boost_idx, boosts the targets on
 * every CPU's most-aged element, then queues on their behalf the readers
 * that have held up the current grace period for a period (preempted
 * readers cannot queue themselves; see boost.c).  A reader queued at
 * index k is boosted when the index reaches k - 1 (mod elements), that
 * is after elements - 1 more periods: 30 ms at the defaults.  Sections
 * shorter than that are never boosted.
 *
 * Invariants.
 *  1. Only the booster advances rcu_boost_idx (single booster).
 *  2. The booster holds an element's lock whenever it changes a queued
 *     thread's priority or state (boost.c invariant 4) and drops it,
 *     yielding, between targets so real-time threads are not delayed.
 *  3. The booster's on-behalf queueing happens while it holds the
 *     registry lock, so a thread it queues cannot unregister or exit
 *     until the queueing is verified or reverted; and the booster does
 *     not boost anything between queueing and verifying.
 *  4. The booster runs SCHED_RR at rcb__settings.boost_prio (or what an
 *     administrator set with chrt since: read back every pass); without
 *     permission for that it does not run and nothing is boosted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "boost.h"

static pthread_mutex_t booster_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t booster_thread;
static _Atomic bool booster_started; /* created, not joined */
static _Atomic int booster_stop;     /* futex word: 1 = stop */
static _Atomic int booster_ready;    /* futex word: 0 starting, 1 up/failed */
static _Atomic int booster_cur_prio;
static _Atomic bool no_permission;
static _Atomic long passes;
static bool no_permission_reported;

bool rcb__booster_running(void)
{
	return rcb_load_relaxed(&booster_started) &&
	       rcb_load_relaxed(&rcu_boost_idx) >= 0;
}

int rcb__booster_prio(void)
{
	return rcb_load_relaxed(&booster_cur_prio);
}

bool rcb__booster_no_permission(void)
{
	return rcb_load_relaxed(&no_permission);
}

long rcb__booster_passes(void)
{
	return rcb_load_relaxed(&passes);
}

/* article: rcu_rbd_boosting().  The most-aged element of @cpu. */
static struct rcu_boost_dat *rcu_rbd_boosting(int cpu)
{
	int idx = (rcb_load_relaxed(&rcu_boost_idx) + 1) &
		  (rcb__boost_nelem - 1);

	return rcb__rbd(cpu, idx);
}

/* article: rcu_boost_one_reader_list(). */
static void rcu_boost_one_reader_list(struct rcu_boost_dat *rbdp, int prio)
{
	struct rcb__list list;
	struct rcb__thread *t;
	uint64_t t0 = 0;
	int state;

	rcb__list_init(&list);
	pthread_mutex_lock(&rbdp->rbs_mutex);
	rcb__list_splice_tail_init(&rbdp->rbs_toboost, &list);
	rcb__list_splice_tail_init(&rbdp->rbs_boosted, &list);
	while (!rcb__list_empty(&list)) {
		rcb__hold_end(&t0);
		pthread_mutex_unlock(&rbdp->rbs_mutex);
		sched_yield();
		pthread_mutex_lock(&rbdp->rbs_mutex);
		rcb__hold_begin(&t0);
		/* Targets that ended their sections meanwhile removed
		 * themselves from our local list. */
		if (rcb__list_empty(&list))
			break;
		t = rcb__container_of(list.next, struct rcb__thread,
				      boost.rcub_entry);
		rcb__list_del_init(&t->boost.rcub_entry);
		rbdp->rbs_boost_attempt++;
		state = rcb__bstate_relaxed(t->rd);
		if (state != RCU_BOOST_BLOCKED && state != RCU_BOOSTED) {
			/* An IDLE thread on a list is a list error ('!'). */
			rcb__list_add_tail(&t->boost.rcub_entry,
					   &rbdp->rbs_toboost);
			rcb__boost_stat(rbdp, RCU_BOOST_DAT_BOOST, state);
			continue;
		}
		/* BOOSTED: reboost, so a raised booster priority takes
		 * effect (article: "reboosting"). */
		rcb__boost_prio(t, rbdp, prio);
		rcb__bstate_store(t->rd, RCU_BOOSTED);
		rbdp->rbs_boost++;
		rcb__boost_stat(rbdp, RCU_BOOST_DAT_BOOST, state);
		rcb__list_add_tail(&t->boost.rcub_entry, &rbdp->rbs_boosted);
	}
	rcb__hold_end(&t0);
	pthread_mutex_unlock(&rbdp->rbs_mutex);
}

/*
 * Queue, on their behalf, registered readers that have held up the
 * current grace period for at least a period.  See boost.c for why the
 * queueing is verified: a reader that left its section between our scan
 * and our queueing may have tested its boost state before we set it; the
 * membarrier makes its ctr store visible to the re-check below in that
 * case ([BST-M] pairs with [RD-W] in rcb_read_unlock(): store-buffering
 * of "state = BLOCKED; ctr?" against "ctr = 0; state?").
 */
static void enqueue_preempted_readers(uint64_t now, uint64_t period_ns)
{
	unsigned long long start = rcb_load_relaxed(&rcb__gp_wait_start_ns);
	struct rcb__thread *t;
	struct rcu_boost_dat *queued_on[64];
	struct rcb__thread *queued[64];
	unsigned long gp;
	int n = 0, cpu;

	if (!start || now - start < period_ns)
		return;
	gp = rcb_load_relaxed(&rcb__gp.ctr);
	pthread_mutex_lock(&rcb__registry_lock);
	rcb__for_each_thread(t) {
		struct rcu_boost_dat *rbdp;

		if (n == 64)
			break;
		if (!rcb__holds_gp(rcb_load_relaxed(&t->rd->ctr), gp) ||
		    rcb__bstate_relaxed(t->rd) != RCU_BOOST_IDLE)
			continue;
		cpu = rcb__sched_last_cpu(t->tid);
		if (cpu < 0 || cpu >= rcb__boost_ncpus)
			cpu = 0;
		rbdp = rcb__rbd(cpu, rcb_load_relaxed(&rcu_boost_idx));
		if (rcb__boost_enqueue(t, rbdp, true)) {
			queued_on[n] = rbdp;
			queued[n++] = t;
		}
	}
	if (n) {
		rcb__membarrier(); /* [BST-M] see above */
		for (int i = 0; i < n; i++) {
			t = queued[i];
			if (rcb__holds_gp(rcb_load_relaxed(&t->rd->ctr), gp)) {
				pthread_mutex_lock(&queued_on[i]->rbs_mutex);
				queued_on[i]->rbs_preempt_enqueued++;
				pthread_mutex_unlock(&queued_on[i]->rbs_mutex);
				continue;
			}
			rcb__boost_revert(t, queued_on[i]);
		}
	}
	pthread_mutex_unlock(&rcb__registry_lock);
}

static int own_prio(void)
{
	struct sched_param sp;

	if (sched_getparam(0, &sp) != 0 || sp.sched_priority < 1)
		return rcb__settings.boost_prio;
	return sp.sched_priority;
}

static void report_no_permission(int err)
{
	if (no_permission_reported)
		return;
	no_permission_reported = true;
	fprintf(stderr,
		"rcuboost: priority boosting disabled: no permission for real-time priority "
		"(sched_setattr SCHED_RR %d: %s; needs CAP_SYS_NICE or RLIMIT_RTPRIO >= %d, "
		"and a cgroup that allows real-time tasks). RCU keeps working unboosted.\n",
		rcb__settings.boost_prio, strerror(err), rcb__settings.boost_prio);
}

static void *rcu_booster(void *arg)
{
	struct sched_param sp = { .sched_priority = rcb__settings.boost_prio };
	uint64_t period_ns = (uint64_t)rcb__settings.boost_period_ms * 1000000ull;
	uint64_t last_print = rcb__now_ns();
	int err;

	(void)arg;
	prctl(PR_SET_NAME, "rcuboost-boost", 0, 0, 0);
	err = pthread_setschedparam(pthread_self(), SCHED_RR, &sp);
	if (err) {
		rcb_store_relaxed(&no_permission, true);
		report_no_permission(err);
	} else {
		rcb_store_relaxed(&booster_cur_prio, sp.sched_priority);
		/* [BST-I] The arrays (rcb__boost_early_init) are
		 * initialised before the index reads non-negative.  Pairs
		 * with [BST-N] in rcu_rbd_new(). */
		rcb_store_release(&rcu_boost_idx, 0);
	}
	/* [BST-W] pairs with [BST-WA] in rcb__booster_start(). */
	rcb_store_release(&booster_ready, 1);
	rcb__futex_wake(&booster_ready, 1);
	if (err)
		return NULL;
	while (!rcb_load_acquire(&booster_stop)) { /* [BST-S] pairs with [BST-T] */
		int prio = own_prio();
		uint64_t now;

		rcb_store_relaxed(&booster_cur_prio, prio);
		rcb_store_relaxed(&rcu_boost_idx,
				  (rcb_load_relaxed(&rcu_boost_idx) + 1) &
					  (rcb__boost_nelem - 1));
		for (int cpu = 0; cpu < rcb__boost_ncpus; cpu++) {
#ifdef RCB_PERTASK_LOCK
			rcb__boost_pt_one_reader_list(rcu_rbd_boosting(cpu), prio);
			continue;
#endif
			if (rcb__machine8())
				rcb__boost8_one_reader_list(rcu_rbd_boosting(cpu),
							    prio);
			else
				rcu_boost_one_reader_list(rcu_rbd_boosting(cpu),
							  prio);
		}
		now = rcb__now_ns();
		if (!RCB_PERTASK) /* the article's variant has no on-behalf path */
			enqueue_preempted_readers(now, period_ns);
		rcb_add_relaxed(&passes, 1);
		if (rcb__settings.stats_interval_s &&
		    now - last_print >= rcb__settings.stats_interval_s * 1000000000ull) {
			struct rcb_boost_stats s;
			char buf[1024];

			rcb_boost_stats(&s);
			rcb_boost_stats_format(&s, buf, sizeof(buf), 0);
			fputs(buf, stderr);
			last_print = now;
		}
		/* [BST-S] pairs with [BST-T] in rcb__booster_stop(). */
		rcb__futex_wait(&booster_stop, 0, period_ns);
	}
	return NULL;
}

/*
 * article: init_rcu_boost_late().  Start the booster unless it runs or
 * was refused real-time priority.  Returns 0 or a negative errno.
 */
int rcb__booster_start(void)
{
	int err = 0;

	if (!rcb__settings.boost || rcb_load_relaxed(&no_permission))
		return 0;
	if (rcb_load_acquire(&booster_started)) /* [BST-K] pairs with [BST-KR] */
		return 0;
	pthread_mutex_lock(&booster_lock);
	if (!rcb_load_relaxed(&booster_started) && rcb_load_relaxed(&rcb__running)) {
		err = -rcb__boost_early_init();
		if (!err) {
			rcb_store_relaxed(&booster_stop, 0);
			rcb_store_relaxed(&booster_ready, 0);
			err = pthread_create(&booster_thread, NULL, rcu_booster, NULL);
		}
		if (!err) {
			/* On return the booster runs (or has reported that
			 * it may not): blocks noted from now on are seen.
			 * [BST-WA] pairs with [BST-W]. */
			while (!rcb_load_acquire(&booster_ready))
				rcb__futex_wait(&booster_ready, 0, 0);
			rcb_store_release(&booster_started, true); /* [BST-KR] */
		} else
			fprintf(stderr, "rcuboost: cannot start the booster thread: %s\n",
				strerror(err));
	}
	pthread_mutex_unlock(&booster_lock);
	return -err;
}

/* A grace period waits for a blocked reader: make sure the booster runs.
 * Context: any thread but the booster. */
void rcb__booster_kick(void)
{
	if (RCB_LIKELY(rcb_load_relaxed(&booster_started)))
		return;
	rcb__booster_start();
}

void rcb__booster_stop(void)
{
	pthread_mutex_lock(&booster_lock);
	if (rcb_load_relaxed(&booster_started)) {
		/* [BST-T] pairs with [BST-S]. */
		rcb_store_release(&booster_stop, 1);
		rcb__futex_wake(&booster_stop, 1);
		pthread_join(booster_thread, NULL);
		rcb_store_relaxed(&booster_started, false);
		/* Queued readers stay queued and dequeue themselves; new
		 * blocks are "too early" until the booster runs again. */
		rcb_store_release(&rcu_boost_idx, -1); /* [BST-I] */
	}
	pthread_mutex_unlock(&booster_lock);
}

/*
 * fork(): the child has only the forking thread.  Forget the other
 * threads' queueing (their records are stale copies), re-create the
 * element locks (possibly held by vanished threads), and give back a
 * boost the forking thread inherited into the child.
 */
void rcb__boost_after_fork_child(void)
{
	struct rcb__thread *self = rcb__self();

	pthread_mutex_init(&booster_lock, NULL);
	rcb_store_relaxed(&booster_started, false);
	rcb_store_relaxed(&rcu_boost_idx, -1);
	if (rcb__boost_dat) {
		for (int i = 0; i < rcb__boost_ncpus * rcb__boost_nelem; i++) {
			struct rcu_boost_dat *rbdp = &rcb__boost_dat[i];

			rcb__pi_mutex_init(&rbdp->rbs_mutex);
			rcb__list_init(&rbdp->rbs_toboost);
			rcb__list_init(&rbdp->rbs_boosted);
		}
	}
	rcb__list_init(&self->boost.rcub_entry);
	rcb_store_relaxed(&self->boost.rcub_rbdp, NULL);
	rcb__bstate_store(self->rd, RCU_BOOST_IDLE);
	if (self->boost.applied) {
		struct rcb__sched_attr cur;

		self->boost.applied = false;
		if (rcb__sched_get(0, &cur) == 0 &&
		    rcb__sched_same(&cur, &self->boost.set))
			rcb__sched_set(0, &self->boost.orig);
	}
}
