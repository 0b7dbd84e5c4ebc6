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
 *  3. The other domains (src/core/domain.c) have a request word each,
 *     dom_req[d], written by that domain's leader: invariant 1 holds
 *     with the domain's own test of holding (rcb__dom_holds_ctr()).  A
 *     memb-kind domain's gp has its low RCB__NEST_BITS bits clear, as
 *     the default domain's; a qsbr domain's is a small odd counter,
 *     packed above DOM_LEVEL_BITS.
 */
#include "boost/boost.h"

/* gp | level, 0: no request.  Written by the leader (rcb__gp_lock
 * held), read by the boosters. */
static _Atomic unsigned long exp_req;
static _Atomic unsigned long dom_req[RCB__DOM_MAX];
_Atomic long rcb__exp_requests, rcb__exp_lends;

#define DOM_LEVEL_BITS 8

/* Domain @d's request word for (gp, level) (invariant 3). */
static unsigned long dom_pack(int d, unsigned long gp, int level)
{
	return rcb__doms[d].kind == RCB__DOM_KIND_QSBR ?
		       gp << DOM_LEVEL_BITS | (unsigned long)level :
		       gp | (unsigned long)level;
}

static unsigned long dom_gp_of(int d, unsigned long req)
{
	return rcb__doms[d].kind == RCB__DOM_KIND_QSBR ? req >> DOM_LEVEL_BITS :
							 req & ~RCB__NEST_MASK;
}

static int dom_level_of(int d, unsigned long req)
{
	return (int)(rcb__doms[d].kind == RCB__DOM_KIND_QSBR ?
			     req & ((1ul << DOM_LEVEL_BITS) - 1) :
			     req & RCB__NEST_MASK);
}

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

void rcb__dom_expedite_request(int d, unsigned long gp, int level)
{
	rcb__booster_kick();
	rcb_store_relaxed(&dom_req[d], dom_pack(d, gp, level));
	rcb_add_relaxed(&rcb__exp_requests, 1);
	/* [BST-KW] as in rcb__expedite_request(). */
	rcb__boosters_wake();
}

void rcb__dom_expedite_end(int d)
{
	rcb_store_relaxed(&dom_req[d], 0);
}

/* Does @t hold the grace period of request word @req of domain @dom
 * (-1: the default domain), and is @req still the request? */
static bool holds_req(const struct rcb__thread *t, int dom, unsigned long req)
{
	struct rcb__dom_reader *r;

	if (dom < 0)
		return rcb_load_relaxed(&exp_req) == req &&
		       rcb__holds_gp(rcb_load_relaxed(&t->rd->ctr),
				     req & ~RCB__NEST_MASK);
	r = rcb_load_relaxed(&t->dom[dom]);
	return rcb_load_relaxed(&dom_req[dom]) == req && r &&
	       rcb__dom_holds_ctr(rcb__doms[dom].kind,
				  rcb_load_relaxed(&r->ctr),
				  dom_gp_of(dom, req));
}

/* Lend @level to the readers queued on @rbdp that hold the grace period
 * of request @req of domain @dom (-1: the default domain) (invariants 1
 * and 3).  Context: booster, lock not held. */
static void lend_list(struct rcu_boost_dat *rbdp, int dom, unsigned long req,
		      int level)
{
	struct rcb__list list;
	struct rcb__thread *t;
	uint64_t t0 = 0;

	rcb__walk_begin(rbdp, &list);
	while ((t = rcb__walk_next(rbdp, &list, &t0))) {
		int state = rcb__bstate_relaxed(t->rd);
		bool boosted = state == RCU_BOOSTED;

		if ((state == RCU_BOOST_BLOCKED || boosted) &&
		    holds_req(t, dom, req) &&
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

/* Lend for request @req of domain @dom (-1: default) on @b's CPUs. */
static void lend_all(struct rcb__booster *b, int prio, int dom,
		     unsigned long req, int level)
{
	int cpu;

	rcb__for_each_booster_cpu(b, cpu) {
		for (int i = 0; i < rcb__boost_nelem; i++) {
			if (rcb__machine8())
				rcb__machine()->one_reader_list(
					rcb__rbd(cpu, i),
					rcb__boost_first_level(prio));
			else
				lend_list(rcb__rbd(cpu, i), dom, req, level);
		}
	}
}

void rcb__expedite_pass(struct rcb__booster *b, int prio, uint64_t now)
{
	unsigned long req = rcb_load_relaxed(&exp_req);
	bool queued = false;
	int n;

	if (RCB_PERTASK)
		return;
	if (req) {
		rcb__booster_enqueue_now(b, now);
		queued = true;
		lend_all(b, prio, -1, req, (int)(req & RCB__NEST_MASK));
	}
	n = rcb__doms_to_scan();
	for (int d = 0; d < n; d++) {
		unsigned long r = rcb_load_relaxed(&dom_req[d]);

		if (!r)
			continue;
		if (!queued)
			rcb__booster_enqueue_now(b, now);
		queued = true;
		lend_all(b, prio, d, r, dom_level_of(d, r));
	}
}
