/* SPDX-License-Identifier: MIT */
/*
 * The exit-safe 8-state compare-and-exchange boost machine.  article:
 * "RCU Priority Boosting With Minimal Scheduler-Path Overhead".  Chosen
 * with rcb_config.boost_machine = 8 (RCUBOOST_MACHINE=8); the default is
 * the recommended 3-state machine (machine3.c).
 *
 * Compared with the 3-state machine, the booster changes a thread's
 * priority OUTSIDE the element lock, so it never holds the lock across
 * sched_setattr(2).  The price is five more states and compare-and-
 * exchange on the states both sides may leave ("double-walled"):
 *
 *   state            queued on        left by          priority changed by
 *   IDLE             -                thread, booster* -
 *   BLOCKED          rbs_toboost      thread, booster  -
 *   BOOSTING         rbs_boosted      thread, booster  booster (boost)
 *   BOOSTED          rbs_boosted      thread           thread (unboost)
 *   UNBOOST_IDLE     -                thread, booster  booster (unboost)
 *   UNBOOST_BLOCKED  rbs_toboost      thread, booster  booster (unboost)
 *   UNBOOST_EXITING  -                booster          booster (unboost)
 *   EXIT_OK          -                (final)          -
 *   (* the booster's on-behalf queueing of preempted readers, queue.c)
 *
 * Transitions (actor): IDLE->BLOCKED (thread blocks, or booster queues
 * on its behalf); BLOCKED->IDLE (thread unlocks); BLOCKED->BOOSTING
 * (booster starts); BOOSTING->BOOSTED (booster done); BOOSTING->
 * UNBOOST_IDLE (thread unlocks mid-boost); BOOSTED->IDLE (thread unlocks,
 * unboosts itself); UNBOOST_IDLE->IDLE (booster backed out);
 * UNBOOST_IDLE->UNBOOST_BLOCKED (thread blocks again); UNBOOST_BLOCKED->
 * BLOCKED (booster backed out); UNBOOST_BLOCKED->UNBOOST_IDLE (thread
 * unlocks again); UNBOOST_IDLE->UNBOOST_EXITING (thread exits);
 * UNBOOST_EXITING->EXIT_OK (booster backed out; wakes the thread);
 * IDLE->EXIT_OK (thread exits).  A BOOSTED thread found again by the
 * booster is not reboosted (BOOSTED is the thread's alone).
 *
 * Invariants.
 *  1. Double-walled states change only by compare-and-exchange; a state
 *     only one side may leave is stored plainly by that side.
 *  2. Thread-side list changes and the thread's BLOCKED->IDLE happen
 *     under the lock of *rcub_rbdp; the booster's BLOCKED->BOOSTING too.
 *     So a thread-side change can fail its compare-and-exchange only
 *     against the booster's lock-free steps (BOOSTING->BOOSTED,
 *     UNBOOST_BLOCKED->BLOCKED, UNBOOST_IDLE->IDLE), each of which ends
 *     in a state the thread then leaves without a race: at most one
 *     consecutive failure (article: "limits ... to one"), recorded in
 *     rcb__boost_max_task_fail.
 *  3. The booster uses a thread's id outside the lock only between
 *     BLOCKED->BOOSTING and its final transition out of the BOOSTING /
 *     UNBOOST_* states; a thread that exits meanwhile waits in
 *     UNBOOST_EXITING until the booster sets EXIT_OK, so the id cannot be
 *     reused while the booster may still use it.
 *  4. The exit wait uses the element's rbs_exit_seq, not memory of the
 *     exiting thread, so the booster's wake-up never touches freed TLS.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>
#include <time.h>

#include "boost/boost.h"
#include "core/probes.h"

static bool cas_state(struct rcb__thread *t, int *old, int new)
{
	/* [BST8-C] Every double-walled transition: acq_rel, so what a
	 * side did before leaving a state (list changes, priority
	 * changes) is visible to the side that next acts on it. */
	return rcb__bstate_cas(t->rd, old, new);
}

/*
 * article: __rcu_preempt_boost() for this machine.  The thread blocks
 * inside a critical section: queue it from IDLE, or from UNBOOST_IDLE
 * (a new section blocks while the booster still backs out the old
 * boost).  Returns false if the thread was already queued (the caller
 * adopts the queueing).  Context: the thread itself, @rbdp's lock not
 * held.
 */
bool rcb__boost8_note_block(struct rcb__thread *self,
			    struct rcu_boost_dat *rbdp)
{
	bool queued = false;
	long fails = 0;
	int s;

	rcb__boost_lock(rbdp);
	rbdp->rbs_blocked++;
	s = rcb__bstate_acquire(self->rd); /* [BST8-C] */
	rcb__boost_stat(rbdp, RCU_BOOST_DAT_BLOCK, s);
	for (;;) {
		int next;

		if (s == RCU_BOOST8_IDLE)
			next = RCU_BOOST8_BLOCKED;
		else if (s == RCU_UNBOOST_IDLE)
			next = RCU_UNBOOST_BLOCKED;
		else
			break; /* already queued */
		if (cas_state(self, &s, next)) {
			rcb__list_add_tail(&self->boost.rcub_entry,
					   &rbdp->rbs_toboost);
			self->boost.on_behalf = false;
			/* Its own block: the library's levels. */
			rcb_store_relaxed(&self->boost.level_cap, 0);
			queued = true;
			/* [BST-P] pairs with [BST-Q]. */
			rcb_store_release(&self->boost.rcub_rbdp, rbdp);
			DTRACE_PROBE2(rcuboost, block, self->tid,
				      (int)(rbdp - rcb__boost_dat));
			break;
		}
		fails++;
	}
	rcb__boost_note_task_fail(fails);
	rcb__boost_unlock(rbdp);
	return queued;
}

/*
 * article: __rcu_read_unlock_unboost() for this machine.  The outermost
 * unlock found a non-IDLE state.  Context: the thread itself.
 */
void rcb__boost8_unlock(struct rcb__thread *self)
{
	struct rcu_boost_dat *rbdp;
	long fails = 0;
	int s;

	/* Not queued: nothing of ours to undo (an UNBOOST_IDLE thread's
	 * booster finishes the backing out). */
	rbdp = rcb__boost_lock_own(self);
	if (!rbdp)
		return;
	rcb__list_del_init(&self->boost.rcub_entry);
	self->boost.on_behalf = false;
	rcb_store_relaxed(&self->boost.rcub_rbdp, NULL);
	rbdp->rbs_unlock++;
	s = rcb__bstate_acquire(self->rd); /* [BST8-C] */
	rcb__boost_stat(rbdp, RCU_BOOST_DAT_UNLOCK, s);
	for (;;) {
		if (s == RCU_BOOST8_BOOSTED) {
			/* Only the thread leaves BOOSTED: it unboosts, after
			 * releasing the lock (see queue.c). */
			struct rcb__unboost u;
			bool unboost = rcb__unboost_take(self, &u);

			rbdp->rbs_unboosted++;
			/* [BST-U] pairs with [BST-E]. */
			rcb__bstate_store(self->rd, RCU_BOOST8_IDLE);
			rcb__boost_note_task_fail(fails);
			rcb__boost_unlock(rbdp);
			if (unboost)
				rcb__unboost_apply(self->tid, &u, rbdp);
			return;
		}
		if ((s == RCU_BOOST8_BLOCKED &&
		     cas_state(self, &s, RCU_BOOST8_IDLE)) ||
		    (s == RCU_BOOSTING &&
		     cas_state(self, &s, RCU_UNBOOST_IDLE)) ||
		    (s == RCU_UNBOOST_BLOCKED &&
		     cas_state(self, &s, RCU_UNBOOST_IDLE)))
			break;
		if (s != RCU_BOOST8_BLOCKED && s != RCU_BOOSTING &&
		    s != RCU_UNBOOST_BLOCKED && s != RCU_BOOST8_BOOSTED)
			RCB_DIE("8-state unlock: impossible boost state", EINVAL);
		fails++;
	}
	rcb__boost_note_task_fail(fails);
	rcb__boost_unlock(rbdp);
}

/*
 * The thread leaves the library (unregistration or thread exit), outside
 * any critical section: IDLE -> EXIT_OK, or, while the booster still
 * backs out a boost, UNBOOST_IDLE -> UNBOOST_EXITING and wait for the
 * booster's EXIT_OK.  Context: the thread itself, holding the registry
 * lock (so no on-behalf queueing races with it).
 */
void rcb__boost8_exit(struct rcb__thread *self)
{
	long fails = 0;
	int s = rcb__bstate_acquire(self->rd); /* [BST8-C] */

	for (;;) {
		if (s == RCU_BOOST8_IDLE && cas_state(self, &s, RCU_EXIT_OK))
			break;
		if (s == RCU_UNBOOST_IDLE &&
		    cas_state(self, &s, RCU_UNBOOST_EXITING)) {
			/* [BST8-C] set by the booster before BOOSTING. */
			struct rcu_boost_dat *wq =
				rcb_load_acquire(&self->boost.rcub_rbdp_wq);

			for (;;) {
				/* [BST8-X] Acquire, before the state load: a
				 * sequence bumped by [BST8-W] comes with
				 * EXIT_OK; an older one makes the futex wait
				 * return at once (value changed) or sleep
				 * until [BST8-W]'s wake-up.  Pairs with
				 * [BST8-W] in back_out(). */
				int seq = rcb_load_acquire(&wq->rbs_exit_seq);

				/* [BST8-X] */
				if (rcb__bstate_acquire(self->rd) ==
				    RCU_EXIT_OK)
					break;
				rcb__futex_wait(&wq->rbs_exit_seq, seq, 0);
			}
			break;
		}
		if (s == RCU_EXIT_OK)
			break;
		if (s != RCU_BOOST8_IDLE && s != RCU_UNBOOST_IDLE)
			RCB_DIE("8-state exit: thread still queued", EINVAL);
		fails++;
	}
	rcb__boost_note_task_fail(fails);
}

/*
 * The booster backs out its boost of @t (states UNBOOST_*), then leaves
 * the state.  Returns when @t is in a state the booster is done with.
 * Context: the booster, no lock held, @t's id valid (invariant 3).
 */
static void back_out(struct rcb__thread *t, struct rcu_boost_dat *rbdp, int s)
{
	for (;;) {
		rcb__unboost_prio(t, rbdp);
		if (s == RCU_UNBOOST_EXITING) {
			/* Only the booster leaves UNBOOST_EXITING. */
			rcb__bstate_store(t->rd, RCU_EXIT_OK);
			/* [BST8-W] Release: a waiter that reads the new
			 * sequence also reads EXIT_OK (and the unboost before
			 * it).  A relaxed add let weakly ordered CPUs show
			 * the sequence first: the waiter read it with the old
			 * state, slept on the new value after this wake-up,
			 * and was never woken (holding the registry lock).
			 * Pairs with [BST8-X] in rcb__boost8_exit(). */
			rcb_add_release(&rbdp->rbs_exit_seq, 1);
			rcb__futex_wake(&rbdp->rbs_exit_seq, INT_MAX);
			return;
		}
		if (s == RCU_UNBOOST_IDLE && cas_state(t, &s, RCU_BOOST8_IDLE))
			return;
		if (s == RCU_UNBOOST_BLOCKED &&
		    cas_state(t, &s, RCU_BOOST8_BLOCKED))
			return;
		/* The thread moved between UNBOOST_* states: again. */
		rcb__boost_lock(rbdp);
		rbdp->rbs_boost_cmpxchgfail++;
		rcb__boost_unlock(rbdp);
	}
}

/*
 * article: rcu_boost_one_reader_list() for this machine.  Boost every
 * BLOCKED thread of the element, each outside the lock.  Context: the
 * booster.
 */
void rcb__boost8_one_reader_list(struct rcu_boost_dat *rbdp, int prio)
{
	struct rcb__list list;
	struct rcb__thread *t;
	uint64_t t0 = 0;
	int s;

	rcb__walk_begin(rbdp, &list);
	while ((t = rcb__walk_next(rbdp, &list, &t0))) {
		s = rcb__bstate_acquire(t->rd); /* [BST8-C] */
		rcb__boost_stat(rbdp, RCU_BOOST_DAT_BOOST, s);
		if (s == RCU_BOOST8_BOOSTED) {
			rcb__list_add_tail(&t->boost.rcub_entry,
					   &rbdp->rbs_boosted);
			continue;
		}
		if (s != RCU_BOOST8_BLOCKED) {
			/* UNBOOST_BLOCKED: queued by the thread while an
			 * earlier pass still backed out; only IDLE and the
			 * unqueued states would be list errors. */
			rbdp->rbs_boost_wrongstate++;
			rcb__list_add_tail(&t->boost.rcub_entry,
					   &rbdp->rbs_toboost);
			continue;
		}
		/* [BST8-C] Before BOOSTING, whose acq_rel compare-and-
		 * exchange publishes it to the thread's BOOSTING ->
		 * UNBOOST_IDLE (read in rcb__boost8_exit()); only read in
		 * UNBOOST_EXITING, so a failed exchange leaves it harmless. */
		rcb_store_release(&t->boost.rcub_rbdp_wq, rbdp);
		if (!cas_state(t, &s, RCU_BOOSTING)) {
			rbdp->rbs_boost_cmpxchgfail++;
			rcb__list_add_tail(&t->boost.rcub_entry,
					   &rbdp->rbs_toboost);
			continue;
		}
		rbdp->rbs_boost_start++;
		rcb__list_add_tail(&t->boost.rcub_entry, &rbdp->rbs_boosted);
		rcb__hold_end(&t0);
		rcb__boost_unlock(rbdp);

		/* Outside the lock: the thread cannot exit (invariant 3). */
		rcb__boost_prio(t, rbdp, prio);
		s = RCU_BOOSTING;
		if (cas_state(t, &s, RCU_BOOST8_BOOSTED)) {
			rcb__boost_lock(rbdp);
			rbdp->rbs_boost_end++;
			rbdp->rbs_boost++;
			continue;
		}
		/* The thread ended its section meanwhile (and maybe more). */
		back_out(t, rbdp, s);
		rcb__boost_lock(rbdp);
		rbdp->rbs_unboosted++;
	}
	rcb__walk_end(rbdp, &t0);
}
