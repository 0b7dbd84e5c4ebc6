/* SPDX-License-Identifier: MIT */
/*
 * Expedited grace periods and priority inheritance from waiters: the
 * boosters' side.  The waiters' and the leader's side, with the
 * algorithm, is src/core/inherit.c.
 *
 * The leader of grace period gp publishes a request (gp, level) in one
 * word, exp_req (gp has its low RCB__NEST_BITS bits clear, so the level
 * fits below them), and wakes the boosters.  Each booster, before its
 * normal pass, queues on their behalf the readers of its CPUs that hold
 * gp, however short their wait (booster_pass.c's on-behalf queueing,
 * with its verification), and walks every element of its CPUs, boosting
 * to level each queued reader that holds gp: no aging.  The boost goes
 * through rcb__boost_prio(), so both backends apply (sched_setattr with
 * exact restore, or the pi backend's proxy lock at level), a reader at
 * or above level is not lowered, and the reader's own outermost unlock
 * ends the boost as for any other.
 *
 * Invariants.
 *  1. A booster boosts for a request only a reader that, under the lock
 *     of the element it is queued on, is BLOCKED or BOOSTED, holds gp
 *     (rcb__holds_gp()), and while exp_req still names (gp, level):
 *     a stale request (the leader returned, or raised its level) lends
 *     nothing.  (The check and the boost are not atomic against the
 *     leader's return; see inherit.c invariant 3 for why that is
 *     harmless: the reader still holds the lock its unboost needs.)
 *  2. With the 8-state machine (expedited grace periods only; init
 *     refuses inheritance there) the booster boosts whole elements with
 *     the machine's own walk at the first level, as pressure mode does.
 */
#include "boost/boost.h"

/* gp | level, 0: no request.  Written by the leader (rcb__gp_lock
 * held), read by the boosters. */
static _Atomic unsigned long exp_req;
_Atomic long rcb__exp_requests, rcb__exp_lends;

int rcb__expedite_first_level(void)
{
	int prio;

	rcb__booster_kick();
	prio = rcb__booster_running() ? rcb__booster_prio() : 0;
	return prio ? rcb__boost_first_level(prio) : 0;
}

bool rcb__expedite_possible(void)
{
	if (!rcb__settings.boost)
		return false;
	rcb__booster_kick();
	return rcb__booster_running() && !rcb__booster_no_permission();
}

void rcb__expedite_request(unsigned long gp, int level)
{
	rcb__booster_kick();
	rcb_store_relaxed(&exp_req, gp | (unsigned long)level);
	rcb_add_relaxed(&rcb__exp_requests, 1);
	/* [BST-KW] in rcb__boosters_wake() orders the request before the
	 * wake-up the boosters see. */
	rcb__boosters_wake();
}

void rcb__expedite_end(void)
{
	rcb_store_relaxed(&exp_req, 0);
}

/* Lend @level to the readers queued on @rbdp that hold @gp (invariant
 * 1).  Context: booster, lock not held. */
static void lend_list(struct rcu_boost_dat *rbdp, unsigned long gp, int level)
{
	unsigned long req = gp | (unsigned long)level;
	struct rcb__list list;
	struct rcb__thread *t;
	uint64_t t0 = 0;

	rcb__walk_begin(rbdp, &list);
	while ((t = rcb__walk_next(rbdp, &list, &t0))) {
		int state = rcb__bstate_relaxed(t->rd);
		bool boosted = state == RCU_BOOSTED;

		if ((state == RCU_BOOST_BLOCKED || boosted) &&
		    rcb_load_relaxed(&exp_req) == req &&
		    rcb__holds_gp(rcb_load_relaxed(&t->rd->ctr), gp) &&
		    (!boosted || t->boost.level < level)) {
			rcb__boost_prio(t, rbdp, level);
			rcb__bstate_store(t->rd, RCU_BOOSTED);
			rbdp->rbs_boost++;
			rcb__boost_stat(rbdp, RCU_BOOST_DAT_BOOST, state);
			rcb_add_relaxed(&rcb__exp_lends, 1);
			boosted = true;
		}
		/* An IDLE thread on a list is a list error: keep it where
		 * the machine's own walk counts it. */
		rcb__list_add_tail(&t->boost.rcub_entry,
				   boosted ? &rbdp->rbs_boosted :
					     &rbdp->rbs_toboost);
	}
	rcb__walk_end(rbdp, &t0);
}

void rcb__expedite_pass(struct rcb__booster *b, int prio, uint64_t now)
{
	unsigned long req = rcb_load_relaxed(&exp_req);
	unsigned long gp = req & ~RCB__NEST_MASK;
	int level = (int)(req & RCB__NEST_MASK);
	int cpu;

	if (!req || RCB_PERTASK)
		return;
	rcb__booster_enqueue_now(b, now);
	rcb__for_each_booster_cpu(b, cpu) {
		for (int i = 0; i < rcb__boost_nelem; i++) {
			if (rcb__machine8())
				rcb__machine()->one_reader_list(
					rcb__rbd(cpu, i),
					rcb__boost_first_level(prio));
			else
				lend_list(rcb__rbd(cpu, i), gp, level);
		}
	}
}
