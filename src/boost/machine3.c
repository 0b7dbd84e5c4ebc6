/* SPDX-License-Identifier: MIT */
/*
 * The 3-state machine's own steps (the default; article: "RCU Explicit
 * Priority Boosting"): queue on block, boost the queued, dequeue and
 * unboost at the outermost unlock.  Its states (IDLE, BLOCKED, BOOSTED)
 * and invariants 1-5 are atop queue.c, with the arrays, queueing and
 * list walk that every machine shares.
 */
#include "boost/boost.h"

/* The 3-state machine's note_block: IDLE -> BLOCKED (invariant 1). */
bool rcb__boost3_note_block(struct rcb__thread *self,
			    struct rcu_boost_dat *rbdp)
{
	return rcb__boost_enqueue(self, rbdp, false, 0);
}

/*
 * The 3-state machine's unlock: dequeue, unboost if boosted, go IDLE.
 * Context: as rcb__read_unlock_unboost().
 */
void rcb__boost3_unlock(struct rcb__thread *self)
{
	struct rcu_boost_dat *rbdp;
	struct rcb__unboost u;
	struct rcb__pi_slot *slot = NULL;
	bool unboost = false;
	int state;

	/* [BST-Q] pairs with [BST-P]/[BST-R]: a non-IDLE state comes with
	 * its element pointer (rcb__boost_lock_own()). */
	rbdp = rcb__boost_lock_own(self);
	if (!rbdp)
		return;
	state = rcb__bstate_relaxed(self->rd);
	self->boost.on_behalf = false;
	rcb__list_del_init(&self->boost.rcub_entry);
	rbdp->rbs_unlock++;
	rcb_store_relaxed(&self->boost.rcub_rbdp, NULL);
	rcb__boost_stat(rbdp, RCU_BOOST_DAT_UNLOCK, state);
	if (state == RCU_BOOSTED) {
		rbdp->rbs_unboosted++;
		if (rcb__backend_pi())
			slot = rcb__pi_take(self);
		else
			unboost = rcb__unboost_take(self, &u);
	}
	self->boost.level = 0;
	/* [BST-U] pairs with [BST-E]. */
	rcb__bstate_store(self->rd, RCU_BOOST_IDLE);
	rcb__boost_unlock(rbdp);
	/*
	 * Unboost after releasing the lock (departure from the
	 * article, whose unboost runs with irqs off): lowering our
	 * priority first would let real-time work preempt us while
	 * we hold the element's lock.  Dequeued and IDLE, we are
	 * out of the booster's reach, and we cannot be queued again
	 * before this unlock returns.
	 */
	if (unboost)
		rcb__unboost_apply(self->tid, &u, rbdp);
	if (slot)
		rcb__pi_release(slot);
}

/* article: rcu_boost_one_reader_list(), the 3-state machine's.  @rcuprio:
 * the first boost level.  Context: the booster (booster_pass.c), lock
 * not held. */
void rcb__boost3_one_reader_list(struct rcu_boost_dat *rbdp, int rcuprio)
{
	struct rcb__list list;
	struct rcb__thread *t;
	uint64_t t0 = 0;
	int state;

	rcb__walk_begin(rbdp, &list);
	while ((t = rcb__walk_next(rbdp, &list, &t0))) {
		state = rcb__bstate_relaxed(t->rd);
		if (state != RCU_BOOST_BLOCKED && state != RCU_BOOSTED) {
			/* An IDLE thread on a list is a list error ('!'). */
			rcb__list_add_tail(&t->boost.rcub_entry,
					   &rbdp->rbs_toboost);
			rcb__boost_stat(rbdp, RCU_BOOST_DAT_BOOST, state);
			continue;
		}
		/* BOOSTED: reboost, so a raised booster priority takes
		 * effect (article: "reboosting"); it never lowers an
		 * escalated thread. */
		rcb__boost_prio(t, rbdp, rcuprio);
		rcb__bstate_store(t->rd, RCU_BOOSTED);
		rbdp->rbs_boost++;
		rcb__boost_stat(rbdp, RCU_BOOST_DAT_BOOST, state);
		rcb__list_add_tail(&t->boost.rcub_entry, &rbdp->rbs_boosted);
	}
	rcb__walk_end(rbdp, &t0);
}
