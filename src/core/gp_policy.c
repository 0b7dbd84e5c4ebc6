/* SPDX-License-Identifier: MIT */
/*
 * When the callback thread starts a grace period: the grace-period start
 * policy.  Callbacks must not cost the readers more than
 * liburcu's call_rcu(), whose thread sleeps 10 ms after every batch
 * (about 100 grace periods per second, 5 ms median callback latency),
 * and yet a callback that arrives when nothing else is in flight should
 * run within a grace period or two, not 10 ms later.
 *
 * Policy.  The callback thread asks rcb__gp_policy_wait() before it takes
 * each batch; the answer depends on whether grace periods are running
 * back to back, which the thread sees for itself: callbacks were queued
 * while it worked on the previous batch (its grace period and the
 * invocations), or its callbacks arrived less than a grace period's
 * cost apart on average (a stream, even if in bursts).
 *  - Idle (the queue was empty when the previous batch was done): start
 *    at once.  A callback that arrives slower than grace periods
 *    complete waits for one grace period only (but see "beside its
 *    producer").
 *  - Back to back: wait before the next grace period so that more
 *    callbacks share it.  The wait starts at RCB_GPP_MIN_NS, or
 *    RCB_GPP_COST_RATIO times the recent cost of a grace period if that
 *    is more (a grace period that takes long to complete costs the
 *    readers more: membarrier IPIs, a sleeping updater they must wake),
 *    and doubles with every further back-to-back batch up to
 *    RCB_GPP_MAX_NS: a steady stream of callbacks gets at most about
 *    1 / RCB_GPP_MAX_NS grace periods per second (250), whatever its
 *    rate, each with two membarriers at most.  The first batch found
 *    idle resets it.
 *  - Beside its producer: a producer on the thread's own CPU woke it
 *    within microseconds of its falling asleep, twice in a row
 *    (callback.c, woke_beside_producer()).  Such a producer calls at
 *    full speed, and the wake-up preempts it: were the grace period
 *    started at once, the thread would take the one callback queued,
 *    run a grace period for it and sleep, and the producer's next call
 *    would wake it again, a grace period and two context switches per
 *    callback for as long as the scheduler lets the sleeper preempt
 *    (milliseconds).  The policy waits RCB_GPP_MIN_NS first, even
 *    when idle, and the producer has its CPU meanwhile.
 *  - Urgent: rcb_barrier() and the stop of the thread cut a wait short
 *    (rcb__gp_policy_urgent()), so that neither waits for coalescing.
 *  - RCUBOOST_CALLBACK_BATCH_US (a fixed wait before every batch) still
 *    overrides the policy when set, and so does liburcu's timing once
 *    the process used liburcu's call_rcu() (callback.c,
 *    fixed_wait_us()); rcb__gp_policy_wait_fixed() makes those waits,
 *    which rcb_barrier() and the stop cut short too (else a barrier
 *    would wait a whole fixed wait per worker, one worker after the
 *    other, and a destroyed worker's stopper as long, holding the
 *    worker lock).
 *
 * Worst cases.  A callback queued in a stream waits up to RCB_GPP_MAX_NS
 * plus one grace period plus the invocation of its batch (liburcu: 10 ms
 * plus the same).  A lone callback right after a back-to-back batch
 * waits the current wait once, then the policy is idle again.  A
 * callback whose call woke the thread beside its producer (the second
 * quick wake-up in a row, or a later one) waits RCB_GPP_MIN_NS more
 * than it would have, plus the thread's timer slack (50 us unless
 * changed), once per wake-up.  A grace period held up by a preempted
 * reader (the boosting case, tens of ms) raises the cost estimate, so
 * the next back-to-back wait is the maximum; it decays as cheap grace
 * periods follow.
 *
 * Invariants.
 *  1. Each callback worker has its own state (struct rcb__gp_policy in
 *     struct rcb_worker), and only that worker's thread calls _wait(),
 *     _wait_fixed(), _taking() and _done() on it: plain fields.  Its
 *     starter calls rcb__gp_policy_init() before creating the thread,
 *     under rcb__cb_lock.
 *     A forked child's worker threads start again, and so at idle.
 *  2. A wait never exceeds RCB_GPP_MAX_NS, and a wait does not begin,
 *     or ends, once rcb__gp_policy_urgent() has bumped the wake word
 *     since the callback thread last looked at it: the word is bumped
 *     after the caller's enqueue ([GPP-U]) and compared with the last
 *     value the thread saw, before and during the sleep ([GPP-UA]; the
 *     futex wait returns at once on a changed value).  A bump that
 *     arrives after the batch holding its marker was taken only makes
 *     the next wait end early: harmless.  Bumps seen just before a
 *     batch is taken (rcb__gp_policy_taking()) end no later wait:
 *     their markers are in that batch or an earlier one, and a stop
 *     they announce is seen by the caller's next look at its flag.
 *     Without that, a barrier long past would cut the next fixed wait
 *     (liburcu's timing) of every worker.  (A look after the splice
 *     instead could take in the bump of a marker enqueued after the
 *     splice, and that barrier then waited a whole fixed wait: 1 s in
 *     a sanitizer run of regression_urcu_callback_timing_barrier.)
 *  3. The policy only delays the start of a grace period; which
 *     callbacks a grace period covers is unchanged (callback.c
 *     invariant 2).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>

#include "core/internal.h"

/* Shortest and longest wait before a back-to-back grace period; the
 * shortest also beside the producer. */
#define RCB_GPP_MIN_NS (50ull * 1000)
#define RCB_GPP_MAX_NS (4ull * 1000 * 1000)
/* A back-to-back grace period is started no sooner than this many times
 * its recent cost after the previous one (at least 1/16 of the time
 * free of grace-period work). */
#define RCB_GPP_COST_RATIO 16

/* Futex word bumped by rcb__gp_policy_urgent(). */
static _Atomic int urgent_seq;

_Atomic unsigned long long rcb__gp_policy_stat[2];

static uint64_t clamp_wait(uint64_t ns)
{
	if (ns < RCB_GPP_MIN_NS)
		return RCB_GPP_MIN_NS;
	if (ns > RCB_GPP_MAX_NS)
		return RCB_GPP_MAX_NS;
	return ns;
}

void rcb__gp_policy_init(struct rcb__gp_policy *p)
{
	*p = (struct rcb__gp_policy){ 0 };
	p->urgent_seen = rcb_load_relaxed(&urgent_seq);
}

/* Sleep until @deadline (CLOCK_MONOTONIC ns) or a bump of the wake word
 * since @p last looked (invariant 2). */
static void wait_until(struct rcb__gp_policy *p, uint64_t deadline)
{
	for (;;) {
		uint64_t now;
		int seq;

		/* [GPP-UA] A bump since we last looked ends the wait
		 * (invariant 2); pairs with [GPP-U] in
		 * rcb__gp_policy_urgent(): the marker it follows is then
		 * visible to the splice. */
		seq = rcb_load_acquire(&urgent_seq);
		if (seq != p->urgent_seen) {
			p->urgent_seen = seq;
			rcb_add_relaxed(&rcb__gp_policy_stat[RCB__GPP_URGENT],
					1);
			return;
		}
		now = rcb__now_ns();
		if (now >= deadline)
			return;
		rcb__futex_wait(&urgent_seq, seq, deadline - now);
	}
}

void rcb__gp_policy_taking(struct rcb__gp_policy *p)
{
	/* [GPP-T] Before the splice: a bump read here was made after its
	 * marker's enqueue (or its stop flag), which the splice (or the
	 * caller's next look at the flag) then sees.  Pairs with [GPP-U]
	 * in rcb__gp_policy_urgent(). */
	p->urgent_seen = rcb_load_acquire(&urgent_seq);
}

void rcb__gp_policy_wait_fixed(struct rcb__gp_policy *p, unsigned int us)
{
	wait_until(p, rcb__now_ns() + (uint64_t)us * 1000);
}

void rcb__gp_policy_wait(struct rcb__gp_policy *p, bool back_to_back,
			 bool beside_producer)
{
	uint64_t wait_ns;

	if (!back_to_back && !p->stream) {
		/* Idle; beside its producer, the shortest wait, once:
		 * the policy stays idle. */
		p->wait_ns = 0;
		if (!beside_producer)
			return;
		wait_ns = RCB_GPP_MIN_NS;
	} else {
		if (!p->wait_ns)
			p->wait_ns =
				clamp_wait(RCB_GPP_COST_RATIO * p->cost_ns);
		else
			p->wait_ns = clamp_wait(2 * p->wait_ns);
		wait_ns = p->wait_ns;
	}
	rcb_add_relaxed(&rcb__gp_policy_stat[RCB__GPP_WAITS], 1);
	wait_until(p, rcb__now_ns() + wait_ns);
}

void rcb__gp_policy_done(struct rcb__gp_policy *p, uint64_t gp_ns,
			 unsigned long long ncallbacks)
{
	uint64_t now = rcb__now_ns();

	/* Callbacks arrive faster than grace periods complete when the
	 * batch's callbacks arrived, on average, less than a grace period
	 * apart, over the time since the previous batch was done (bursts
	 * whose gaps happen to leave the queue empty included).  Measured
	 * as a rate, not a batch size, so that a coalescing wait, which
	 * makes batches larger, does not keep itself going. */
	p->stream = p->last_done_ns && ncallbacks > 1 &&
		 (now - p->last_done_ns) / ncallbacks < p->cost_ns;
	p->last_done_ns = now;
	/* Moving average over about 8 grace periods; a first sample is
	 * taken as it is. */
	p->cost_ns =
		p->cost_ns ? p->cost_ns - p->cost_ns / 8 + gp_ns / 8 : gp_ns;
}

void rcb__gp_policy_urgent(void)
{
	/* [GPP-U] After the caller's enqueue (its marker, or the stop
	 * flag); pairs with [GPP-UA] in rcb__gp_policy_wait(). */
	rcb_add_release(&urgent_seq, 1);
	rcb__futex_wake(&urgent_seq, INT_MAX); /* every worker waiting */
}

