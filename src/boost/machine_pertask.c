/* SPDX-License-Identifier: MIT */
/*
 * The per-task-lock boost variant.  article: "RCU Priority Boosting With
 * Per-Task Lock", which "simply does not work reliably in all cases".
 *
 * Compiled only into the test-only static library rcuboost_pertask
 * (RCB_PERTASK_LOCK; tests/boost/), never into librcuboost: it exists so
 * that tests/boost/test_pertask_hang.c and models/pertask.pml can show
 * the article's failure on real threads and in the model.
 *
 * A thread that blocks inside a critical section takes its own
 * PTHREAD_PRIO_INHERIT mutex and holds it while blocked.  The booster
 * boosts a BLOCKED thread by changing its state to BOOSTING and then
 * locking that mutex: sleeping on a PI mutex lends the owner the
 * booster's priority.  The thread ends its section (END_BOOST_IDLE) and
 * releases its mutex; the booster, now owning it, moves the thread back
 * to IDLE and releases it.
 *
 * The flaw: if the thread blocks in its next critical section while the
 * booster still owns the thread's mutex (END_BOOST_IDLE), it sleeps on
 * its own mutex.  When the booster releases it, the thread owns it but,
 * being low priority, never runs while real-time work occupies its CPU;
 * it is on no list and owns nothing the booster could block on, so no
 * one can boost it, and every grace period waits for it.  There is no
 * on-behalf queueing in this variant (the article's scheduler hook would
 * run in the same place, and hit the same mutex).
 *
 * RCUBOOST_PERTASK_HOLD_US (test hook) makes the booster hold the
 * thread's mutex that long before releasing it, to widen the window.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "boost/boost.h"

#ifdef RCB_PERTASK_LOCK

/* Per-thread mutex: lives in the thread's private record. */
static __thread pthread_mutex_t pt_lock;
static __thread bool pt_lock_ready;
static __thread bool pt_lock_held;

static pthread_mutex_t *own_lock(void)
{
	if (!pt_lock_ready) {
		if (rcb__pi_mutex_init(&pt_lock) != 0)
			RCB_DIE("per-task PI mutex", EINVAL);
		pt_lock_ready = true;
	}
	return &pt_lock;
}

static bool cas_state(struct rcb__thread *t, int *old, int new)
{
	/* [BSTPT-C] pairs with itself on the other side. */
	return rcb__bstate_cas(t->rd, old, new);
}

/* article: rcu_preempt_boost() for this variant. */
bool rcb__boost_pt_note_block(struct rcb__thread *self,
			      struct rcu_boost_dat *rbdp)
{
	int s;

	if (!pt_lock_held) {
		/* SELFWAIT: with the booster owning it, this sleeps. */
		pthread_mutex_lock(own_lock());
		pt_lock_held = true;
		self->boost.pt_lock = &pt_lock;
	}
	rcb__boost_lock(rbdp);
	rbdp->rbs_blocked++;
	s = rcb__bstate_acquire(self->rd); /* [BSTPT-C] */
	rcb__boost_stat(rbdp, RCU_BOOST_DAT_BLOCK, s);
	if (s == RCU_PT_IDLE || s == RCU_END_BOOST_IDLE) {
		int next = s == RCU_PT_IDLE ? RCU_PT_BLOCKED :
					      RCU_END_BOOST_BLOCKED;

		if (cas_state(self, &s, next)) {
			rcb__list_add_tail(&self->boost.rcub_entry,
					   &rbdp->rbs_toboost);
			/* [BST-P] pairs with [BST-Q]. */
			rcb_store_release(&self->boost.rcub_rbdp, rbdp);
		}
	}
	rcb__boost_unlock(rbdp);
	return true;
}

/* article: __rcu_read_unlock_unboost() for this variant. */
void rcb__boost_pt_unlock(struct rcb__thread *self)
{
	/* [BST-Q] */
	struct rcu_boost_dat *rbdp = rcb_load_acquire(&self->boost.rcub_rbdp);
	int s;

	if (rbdp) {
		rcb__boost_lock(rbdp);
		rcb__list_del_init(&self->boost.rcub_entry);
		rcb_store_relaxed(&self->boost.rcub_rbdp, NULL);
		rbdp->rbs_unlock++;
		s = rcb__bstate_acquire(self->rd); /* [BSTPT-C] */
		rcb__boost_stat(rbdp, RCU_BOOST_DAT_UNLOCK, s);
		if (s == RCU_PT_BLOCKED) {
			cas_state(self, &s, RCU_PT_IDLE);
		} else if (s == RCU_PT_BOOSTING) {
			if (cas_state(self, &s, RCU_END_BOOST_IDLE))
				rbdp->rbs_unboosted++;
		} else if (s == RCU_END_BOOST_BLOCKED) {
			/* The booster leaves END_BOOST_* only owning our
			 * mutex, which we own: a plain store. */
			/* [BSTPT-C] */
			rcb__bstate_store(self->rd, RCU_END_BOOST_IDLE);
		}
		rcb__boost_unlock(rbdp);
	}
	if (pt_lock_held) {
		/* Ends an inherited boost; hands the mutex to a waiting
		 * booster. */
		pt_lock_held = false;
		pthread_mutex_unlock(&pt_lock);
	}
}

/* Thread exit, outside critical sections: IDLE -> EXIT_OK, or wait for
 * the booster that still owns our mutex (END_BOOST_IDLE). */
void rcb__boost_pt_exit(struct rcb__thread *self)
{
	int s = rcb__bstate_acquire(self->rd); /* [BSTPT-C] */

	for (;;) {
		if (s == RCU_PT_IDLE && cas_state(self, &s, RCU_PT_EXIT_OK))
			return;
		if (s == RCU_END_BOOST_IDLE &&
		    cas_state(self, &s, RCU_PT_UNBOOST_EXITING)) {
			while (rcb__bstate_acquire(self->rd) != /* [BSTPT-C] */
			       RCU_PT_EXIT_OK) {
				struct timespec ts = { 0, 100000 };

				nanosleep(&ts, NULL);
			}
			return;
		}
		if (s == RCU_PT_EXIT_OK)
			return;
	}
}

/* article: rcu_boost_one_reader_list() for this variant. */
void rcb__boost_pt_one_reader_list(struct rcu_boost_dat *rbdp, int prio)
{
	const char *hold = getenv("RCUBOOST_PERTASK_HOLD_US");
	struct rcb__list list;
	struct rcb__thread *t;
	int s;

	(void)prio; /* priority inheritance does the boosting */
	rcb__walk_begin(rbdp, &list);
	while ((t = rcb__walk_next(rbdp, &list, NULL))) {
		pthread_mutex_t *victim;

		s = rcb__bstate_acquire(t->rd); /* [BSTPT-C] */
		rcb__boost_stat(rbdp, RCU_BOOST_DAT_BOOST, s);
		if (s != RCU_PT_BLOCKED || !cas_state(t, &s, RCU_PT_BOOSTING)) {
			rcb__list_add_tail(&t->boost.rcub_entry,
					   &rbdp->rbs_toboost);
			continue;
		}
		rcb__list_add_tail(&t->boost.rcub_entry, &rbdp->rbs_boosted);
		victim = t->boost.pt_lock;
		rbdp->rbs_boost++;
		rcb__boost_unlock(rbdp);
		/* State first, then the thread's mutex: sleeping on it
		 * lends the thread our priority until it ends its
		 * section and releases it. */
		pthread_mutex_lock(victim);
		if (hold) {
			struct timespec ts = { 0, atol(hold) * 1000L };

			nanosleep(&ts, NULL);
		}
		s = RCU_END_BOOST_IDLE;
		if (!cas_state(t, &s, RCU_PT_IDLE) &&
		    s == RCU_PT_UNBOOST_EXITING)
			/* [BSTPT-C] */
			rcb__bstate_store(t->rd, RCU_PT_EXIT_OK);
		pthread_mutex_unlock(victim);
		rcb__boost_lock(rbdp);
	}
	rcb__walk_end(rbdp, NULL);
}

#endif /* RCB_PERTASK_LOCK */
