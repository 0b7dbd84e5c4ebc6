/* SPDX-License-Identifier: MIT */
/*
 * Raising and restoring a queued reader's priority.  article:
 * rcu_boost_prio(), rcu_unboost_prio().  The boost levels follow the
 * booster's own priority; the scheduling backend (backend_sched.c) or the
 * proxy-lock backend (backend_pi.c) does the system calls.
 *
 * Invariants.
 *  1. All boosting is done by a booster, all unboosting by the thread
 *     itself or, in the 8-state machine, by the booster that owns the
 *     thread in an RCU_UNBOOST_* state (queue.c invariant 3, machine8.c).
 *  2. b->applied is true iff the attributes b->set were set by us and
 *     not yet restored; b->orig is what to restore.  An application
 *     change (the thread's attributes differ from b->set) wins: seen at
 *     a reboost it becomes the attributes to restore, seen at unboost it
 *     is left in place.
 *  3. A boost never lowers a thread: one already at or above the level
 *     (not through us) is left alone.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "boost/boost.h"
#include "core/probes.h"

_Atomic long rcb__boost_lat_count, rcb__boost_lat_max_ns,
	rcb__boost_lat_total_ns;

static int clamp_level(int level, int booster_prio)
{
	int top = booster_prio > 1 ? booster_prio - 1 : 1;

	return level < 1 ? 1 : level > top ? top : level;
}

/* Levels keep their distance to the booster's priority: an
 * administrator who raises the booster (chrt) raises them alike. */
int rcb__boost_first_level(int booster_prio)
{
	return clamp_level(rcb__settings.boost_reader_prio +
				   (booster_prio - rcb__settings.boost_prio),
			   booster_prio);
}

int rcb__boost_ceiling_level(int booster_prio)
{
	return clamp_level(rcb__settings.boost_ceiling +
				   (booster_prio - rcb__settings.boost_prio),
			   booster_prio);
}

/*
 * article: rcu_boost_prio().  Raise @t to one notch below the booster's
 * priority @booster_prio, never lowering a thread that runs at or above
 * it.  Remembers the attributes to restore; if the application changed
 * them since our last boost, its attributes become the ones to restore.
 * Context: the booster; 3-state machine: holding the lock of @t's
 * element @rbdp; 8-state machine: @t in RCU_BOOSTING, lock not held.
 */
static void note_boost_latency(struct rcb__thread *t, int level)
{
	uint64_t now;
	long d, cur;

	/* For the stall report (src/diag/stall.c): to what, since when. */
	rcb_store_relaxed(&t->boost.stall_boost_level, level);
	if (!t->boost.queued_ns)
		return;
	now = rcb__now_ns();
	rcb_store_relaxed(&t->boost.stall_boost_ns, now);
	d = (long)(now - t->boost.queued_ns);
	t->boost.queued_ns = 0;
	rcb_add_relaxed(&rcb__boost_lat_count, 1);
	rcb_add_relaxed(&rcb__boost_lat_total_ns, d);
	cur = rcb_load_relaxed(&rcb__boost_lat_max_ns);
	while (d > cur && !rcb_cmpxchg_relaxed(&rcb__boost_lat_max_ns, &cur, d))
		;
}

void rcb__boost_prio(struct rcb__thread *t, struct rcu_boost_dat *rbdp,
		     int rcuprio)
{
	struct rcb__boost_thread *b = &t->boost;
	/* A domain's reader priority (rcb_domain_attr.reader_prio). */
	int cap = rcb_load_relaxed(&b->level_cap);
	struct rcb__sched_attr cur, want;
	int err;

	if (cap && rcuprio > cap)
		rcuprio = cap;
	if (rcb__backend_pi()) {
		if (rcb__pi_boost(t, rbdp, rcuprio)) {
			note_boost_latency(t, rcuprio);
			if (rcuprio > b->level)
				b->level = rcuprio;
		}
		return;
	}

	if (rcb__sched_get(t->tid, &cur) != 0) {
		rcb_add_relaxed(&rbdp->rbs_boost_failed, 1);
		return;
	}
	if (b->applied && rcb__sched_same(&cur, &b->set)) {
		/* Ours: reboost only raises (article: a raised booster
		 * priority takes effect). */
		if ((int)b->set.sched_priority >= rcuprio)
			return;
		rcb_add_relaxed(&rcb__reraises, 1);
	} else {
		b->orig = cur;
		b->applied = false;
	}
	if (rcb__sched_at_least(&cur, rcuprio) && !b->applied) {
		rcb_add_relaxed(&rbdp->rbs_boost_skipped_higher, 1);
		return;
	}
	want = cur;
	want.sched_policy = SCHED_FIFO;
	want.sched_priority = (uint32_t)rcuprio;
	want.sched_nice = 0;
	want.sched_flags &= 0x01; /* keep SCHED_FLAG_RESET_ON_FORK only */
	err = rcb__sched_set(t->tid, &want);
	if (err) {
		rcb_add_relaxed(&rbdp->rbs_boost_failed, 1);
		return;
	}
	/* What we set, not a read-back: a thread that sees itself boosted
	 * may change its attributes at once, and a read-back taken after
	 * that would make its change look like ours, to be undone at
	 * unboost (torture's boost_app_lost check caught it). */
	b->set = want;
	b->applied = true;
	b->level = rcuprio;
	note_boost_latency(t, rcuprio);
	DTRACE_PROBE2(rcuboost, boost, t->tid, rcuprio);
}

/*
 * article: rcu_unboost_prio().  Restore the attributes thread @t had,
 * unless the application changed them while it was boosted: then the
 * application's change wins.  In one go, for the 8-state booster in the
 * RCU_UNBOOST_* states (it owns @t's boost fields there); a thread
 * unboosting itself claims the boost under its element lock
 * (rcb__unboost_take()) and makes the system calls after releasing it
 * (rcb__unboost_apply()).
 */
void rcb__unboost_prio(struct rcb__thread *t, struct rcu_boost_dat *rbdp)
{
	struct rcb__unboost u;

	if (rcb__unboost_take(t, &u))
		rcb__unboost_apply(t->tid, &u, rbdp);
}

/*
 * First half of an unboost: claim the boost this library applied to @t,
 * if any.  Done where @t's boost fields are protected (under the element
 * lock, or in a state only the caller may leave), so that the booster's
 * next boost of @t sees applied == false.  Returns false if nothing to
 * undo.
 */
bool rcb__unboost_take(struct rcb__thread *t, struct rcb__unboost *u)
{
	struct rcb__boost_thread *b = &t->boost;

	if (!b->applied)
		return false;
	b->applied = false;
	u->orig = b->orig;
	u->set = b->set;
	return true;
}

/* Second half: the system calls, touching only @u (no lock needed). */
void rcb__unboost_apply(pid_t tid, const struct rcb__unboost *u,
			struct rcu_boost_dat *rbdp)
{
	struct rcb__sched_attr cur;
	int err;

	if (rcb__sched_get(tid, &cur) == 0 && !rcb__sched_same(&cur, &u->set)) {
		rcb_add_relaxed(&rbdp->rbs_restore_kept_app, 1);
		return;
	}
	err = rcb__sched_set(tid, &u->orig);
	if (err)
		fprintf(stderr,
			"rcuboost: cannot restore the scheduling attributes of thread %d after boosting: %s\n",
			(int)tid, strerror(-err));
	DTRACE_PROBE2(rcuboost, unboost, tid, (int)u->orig.sched_priority);
}
