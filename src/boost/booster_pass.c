/* SPDX-License-Identifier: MIT */
/*
 * One pass of a booster.  article: "Sequencing Through Lists of Tasks"
 * (rcu_booster) and "Boosting The Priority of a List of Tasks"
 * (rcu_boost_one_reader_list).
 *
 * Each period a booster advances its rcu_boost_idx, boosts the targets
 * on each of its CPUs' most-aged element, then queues on their behalf
 * the readers that have held up the current grace period for a period
 * (preempted readers cannot queue themselves; see queue.c).  A reader
 * queued at index k is boosted when the index reaches k - 1 (mod
 * elements), that is after elements - 1 more periods: 30 ms at the
 * defaults.  Sections shorter than that are never boosted.
 *
 * Multiple boosters (article: "Possible Future Enhancements", 3).  One
 * booster per group of CPUs, each with its own index, walking only its
 * CPUs' arrays.  The article's warning (RCU_UNBOOST_BLOCKED: a thread
 * requeues "on a different list" than the one a booster is working on)
 * is a problem of its 8-state machine, where a booster acts on a thread
 * outside the element lock; in the 3-state machine a booster touches a
 * thread only under the lock of the element the thread is queued on
 * (queue.c invariant 4), and every element belongs to exactly one
 * booster, so two boosters never act on one thread at a time, whatever
 * element it moves to.  Nor does an index need to be shared: the index
 * only ages one CPU group's elements, and a thread's element is chosen
 * by the CPU it blocks on.  models/boost3.pml -DBOOSTERS=2 checks this
 * (a reader migrating between two boosters' elements).  The multiple
 * boosters need the 3-state machine (init.c refuses the 8-state one).
 *
 * Escalation (enhancement 2).  A boosted reader still holding up the
 * current grace period escalate_periods passes after its last raise is
 * raised one priority, up to the ceiling (rcb__boost_ceiling_level()).
 *
 * Invariants.
 *  1. Only booster b advances rcb__boosters[b].idx, and only booster b
 *     walks the elements of the CPUs mapped to it.
 *  2. The booster holds an element's lock whenever it changes a queued
 *     thread's priority or state (queue.c invariant 4) and drops it,
 *     yielding, between targets so real-time threads are not delayed.
 *  3. The booster's on-behalf queueing happens while it holds the
 *     registry lock, so a thread it queues cannot unregister or exit
 *     until the queueing is verified or reverted; and the booster does
 *     not boost anything between queueing and verifying.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "boost/boost.h"

/* article: rcu_rbd_boosting().  The most-aged element of @cpu. */
static struct rcu_boost_dat *rcu_rbd_boosting(struct rcb__booster *b, int cpu)
{
	int idx = (rcb_load_relaxed(&b->idx) + 1) & (rcb__boost_nelem - 1);

	return rcb__rbd(cpu, idx);
}

/*
 * Escalation: raise by one level every boosted reader of @rbdp that
 * still holds up the current grace period escalate_periods passes after
 * its last raise, up to @ceiling.  Like the machines' one_reader_list(), at
 * most one target's system calls per lock hold, yielding between
 * (invariant 2).  Context: booster, lock not held.
 */
static void escalate_list(struct rcu_boost_dat *rbdp, long pass, int ceiling)
{
	unsigned long gp = rcb_load_relaxed(&rcb__gp.ctr);
	struct rcb__list list;
	struct rcb__thread *t;
	uint64_t t0 = 0;

	rcb__list_init(&list);
	rcb__boost_lock(rbdp);
	rcb__list_splice_tail_init(&rbdp->rbs_boosted, &list);
	while (!rcb__list_empty(&list)) {
		t = rcb__container_of(list.next, struct rcb__thread,
				      boost.rcub_entry);
		rcb__list_del_init(&t->boost.rcub_entry);
		rcb__list_add_tail(&t->boost.rcub_entry, &rbdp->rbs_boosted);
		if (rcb__bstate_relaxed(t->rd) != RCU_BOOSTED ||
		    !rcb__thread_holds(t, gp))
			continue;
		if (!t->boost.esc_pass) {
			t->boost.esc_pass = pass; /* boosted since last look */
			continue;
		}
		if (pass - t->boost.esc_pass <
			    (long)rcb__settings.escalate_periods ||
		    t->boost.level >= ceiling || t->boost.level < 1)
			continue;
		rcb__hold_begin(&t0);
		rcb__boost_prio(t, rbdp, t->boost.level + 1);
		t->boost.esc_pass = pass;
		rcb_add_relaxed(&rcb__escalations, 1);
		rcb__hold_end(&t0);
		/* Let real-time work waiting for this element in. */
		rcb__boost_unlock(rbdp);
		sched_yield();
		rcb__boost_lock(rbdp);
	}
	rcb__boost_unlock(rbdp);
}

/* Verify a batch of on-behalf queueings (enqueue_preempted_readers()
 * below says why): keep those whose reader still holds grace period
 * @gp, revert the others.  Returns the number kept.  Context: registry
 * lock held. */
#define RCB_ENQ_BATCH 64
static int verify_batch(struct rcb__thread **queued,
			struct rcu_boost_dat **queued_on, int n,
			unsigned long gp)
{
	int kept = 0;

	if (!n)
		return 0;
	rcb__membarrier(); /* [BST-M] see enqueue_preempted_readers() */
	for (int i = 0; i < n; i++) {
		if (rcb__thread_holds(queued[i], gp)) {
			pthread_mutex_lock(&queued_on[i]->rbs_mutex);
			queued_on[i]->rbs_preempt_enqueued++;
			pthread_mutex_unlock(&queued_on[i]->rbs_mutex);
			kept++;
			continue;
		}
		rcb__boost_revert(queued[i], queued_on[i]);
	}
	return kept;
}

/*
 * Queue, on their behalf, registered readers of booster @b's CPUs that
 * have held up the current grace period for at least @min_wait_ns: a
 * section of the default domain or of another domain, or an online
 * thread of the qsbr domain without a quiescent state (src/core/
 * domain.c), each domain by when its own grace period began to wait.
 * See
 * queue.c for why the queueing is verified: a reader that left its
 * section between our scan and our queueing may have tested its boost
 * state before we set it; the membarrier makes its ctr store visible to
 * the re-check in verify_batch() in that case ([BST-M] pairs with [RD-W] in
 * rcb_read_unlock(): store-buffering of "state = BLOCKED; ctr?" against
 * "ctr = 0; state?").  Returns the number queued and kept.
 */
/* Does @t hold up a grace period of a domain in @due (a bit per
 * domain)? */
static bool dom_due_holds(const struct rcb__thread *t, unsigned int due)
{
	for (int d = 0; due; d++, due >>= 1)
		if ((due & 1) && rcb__dom_thread_holds(t, d))
			return true;
	return false;
}

/* The level cap for @t, queued for the grace periods of the domains in
 * @due that it holds: the highest of their reader priorities, or 0 (the
 * library's levels) if one of them has none.  t->boost.level_cap is set
 * at every queueing (0 when the thread queues itself) and cleared when
 * the thread adopts the booster's; it is atomic because the 8-state
 * booster boosts without the element lock: a stale cap is one boost at
 * the domain's lower level, raised by the next pass. */
static int dom_due_cap(const struct rcb__thread *t, unsigned int due)
{
	int cap = 0;

	for (int d = 0; due; d++, due >>= 1) {
		int p;

		if (!(due & 1) || !rcb__dom_thread_holds(t, d))
			continue;
		p = rcb_load_relaxed(&rcb__doms[d].reader_prio);
		if (!p)
			return 0;
		if (p > cap)
			cap = p;
	}
	return cap;
}

static int enqueue_preempted_readers(struct rcb__booster *b, uint64_t now,
				     uint64_t min_wait_ns)
{
	unsigned long long start = rcb_load_relaxed(&rcb__gp_wait_start_ns);
	struct rcu_boost_dat *queued_on[RCB_ENQ_BATCH];
	struct rcb__thread *queued[RCB_ENQ_BATCH];
	struct rcb__thread *t;
	unsigned long gp;
	int n = 0, kept = 0, cpu;
	bool memb_due = start && now - start >= min_wait_ns;
	unsigned int doms_due = 0;

	for (int d = 0, nd = rcb__doms_to_scan(); d < nd; d++) {
		unsigned long long s =
			rcb_load_relaxed(&rcb__doms[d].wait_start_ns);
		/* A domain's own delay, but under pressure (@min_wait_ns
		 * 0), when every holder is queued at once. */
		uint64_t delay = rcb_load_relaxed(&rcb__doms[d].boost_delay_ns);
		uint64_t wait = min_wait_ns && delay > min_wait_ns ?
					delay :
					min_wait_ns;

		if (s && rcb__dom_boosts(d) && now - s >= wait)
			doms_due |= 1u << d;
	}
	if (!memb_due && !doms_due)
		return 0;
	gp = rcb_load_relaxed(&rcb__gp.ctr);
	pthread_mutex_lock(&rcb__registry_lock);
	rcb__for_each_thread(t) {
		struct rcu_boost_dat *rbdp;
		bool memb_holds;
		int cap;

		if (rcb__bstate_relaxed(t->rd) != RCU_BOOST_IDLE)
			continue;
		memb_holds = memb_due &&
			     rcb__holds_gp(rcb_load_relaxed(&t->rd->ctr), gp);
		if (!memb_holds && !dom_due_holds(t, doms_due))
			continue;
		/* Held only for domains with reader priorities: theirs. */
		cap = memb_holds ? 0 : dom_due_cap(t, doms_due);
		cpu = rcb__sched_last_cpu(t->tid);
		if (cpu < 0 || cpu >= rcb__boost_ncpus)
			cpu = 0;
		/* Another booster's reader: it queues it (invariant 1). */
		if (rcb__cpu_booster[cpu] != b->id)
			continue;
		rbdp = rcb__rbd(cpu, rcb_load_relaxed(&b->idx));
		if (rcb__boost_enqueue(t, rbdp, true, cap)) {
			queued_on[n] = rbdp;
			queued[n++] = t;
		}
		/* A full batch is verified before the scan goes on, so every
		 * stalled reader is found in one pass, not only the first
		 * RCB_ENQ_BATCH in registry order. */
		if (n == RCB_ENQ_BATCH) {
			kept += verify_batch(queued, queued_on, n, gp);
			n = 0;
		}
	}
	kept += verify_batch(queued, queued_on, n, gp);
	pthread_mutex_unlock(&rcb__registry_lock);
	return kept;
}

/* One pass of booster @b at priority @prio. */
void rcb__booster_pass(struct rcb__booster *b, int prio, uint64_t now,
		       uint64_t period_ns, long pass)
{
	const struct rcb__machine_ops *m = rcb__machine();
	int first = rcb__boost_first_level(prio);
	int cpu;
	bool aggressive = rcb__pressure_update(now);

	rcb_store_relaxed(&b->idx, (rcb_load_relaxed(&b->idx) + 1) &
					   (rcb__boost_nelem - 1));
	rcb__for_each_booster_cpu(b, cpu)
		m->one_reader_list(rcu_rbd_boosting(b, cpu), first);
	if (RCB_PERTASK) /* the article's variant has no on-behalf path */
		return;
	if (!aggressive) {
		enqueue_preempted_readers(b, now, period_ns);
	} else {
		/* Pressure: every queued reader now, aged or not, including
		 * preempted ones found as soon as a grace period waits (the
		 * aged element was walked above). */
		enqueue_preempted_readers(b, now, 0);
		rcb__for_each_booster_cpu(
			b, cpu) for (int i = 0; i < rcb__boost_nelem;
				     i++) if (rcb__rbd(cpu, i) !=
					      rcu_rbd_boosting(b, cpu))
			m->one_reader_list(rcb__rbd(cpu, i), first);
	}
	if (rcb__settings.escalate_periods) {
		int ceiling = rcb__boost_ceiling_level(prio);

		rcb__for_each_booster_cpu(b, cpu)
			for (int i = 0; i < rcb__boost_nelem; i++)
				escalate_list(rcb__rbd(cpu, i), pass, ceiling);
	}
}

/* Expedited grace periods (src/boost/expedite.c): queue, on their behalf, the
 * readers of booster @b's CPUs that hold up the current grace period,
 * however short their wait so far. */
int rcb__booster_enqueue_now(struct rcb__booster *b, uint64_t now)
{
	return enqueue_preempted_readers(b, now, 0);
}
