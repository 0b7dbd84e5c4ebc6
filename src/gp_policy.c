/* SPDX-License-Identifier: MIT */
/*
 * When the callback thread starts a grace period: the grace-period start
 * policy (issue 12).  Callbacks must not cost the readers more than
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
 *    complete waits for one grace period only.
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
 *  - Urgent: rcb_barrier() and the stop of the thread cut a wait short
 *    (rcb__gp_policy_urgent()), so that neither waits for coalescing.
 *  - RCUBOOST_CALLBACK_BATCH_US (a fixed wait before every batch) still
 *    overrides the policy when set.
 *
 * Worst cases.  A callback queued in a stream waits up to RCB_GPP_MAX_NS
 * plus one grace period plus the invocation of its batch (liburcu: 10 ms
 * plus the same).  A lone callback right after a back-to-back batch
 * waits the current wait once, then the policy is idle again.  A grace
 * period held up by a preempted reader (the boosting case, tens of ms)
 * raises the cost estimate, so the next back-to-back wait is the
 * maximum; it decays as cheap grace periods follow.
 *
 * Invariants.
 *  1. Only the callback thread calls rcb__gp_policy_wait() and
 *     rcb__gp_policy_done(); the state below is that thread's alone
 *     (plain variables; a forked child starts over at idle).
 *  2. A wait never exceeds RCB_GPP_MAX_NS, and a wait does not begin,
 *     or ends, once rcb__gp_policy_urgent() has bumped the wake word
 *     since the callback thread last looked at it: the word is bumped
 *     after the caller's enqueue ([GPP-U]) and compared with the last
 *     value the thread saw, before and during the sleep ([GPP-UA]; the
 *     futex wait returns at once on a changed value).  A bump that
 *     arrives after the batch holding its marker was taken only makes
 *     the next wait end early: harmless.
 *  3. The policy only delays the start of a grace period; which
 *     callbacks a grace period covers is unchanged (callback.c
 *     invariant 2).
 */
#define _GNU_SOURCE
#include <stdint.h>

#include "internal.h"

/* Shortest and longest wait before a back-to-back grace period. */
#define RCB_GPP_MIN_NS (50ull * 1000)
#define RCB_GPP_MAX_NS (4ull * 1000 * 1000)
/* A back-to-back grace period is started no sooner than this many times
 * its recent cost after the previous one (at least 1/16 of the time
 * free of grace-period work). */
#define RCB_GPP_COST_RATIO 16

/* Futex word bumped by rcb__gp_policy_urgent(). */
static _Atomic int urgent_seq;

/* The callback thread's own state (invariant 1). */
static int urgent_seen;      /* urgent_seq when last looked at */
static uint64_t wait_ns;     /* current back-to-back wait, 0 when idle */
static uint64_t cost_ns;     /* moving average of a grace period's cost */
static bool stream;          /* the last batch was a stream's */
static uint64_t last_done_ns; /* when the previous batch was done */

_Atomic unsigned long long rcb__gp_policy_stat[2];

static uint64_t clamp_wait(uint64_t ns)
{
	if (ns < RCB_GPP_MIN_NS)
		return RCB_GPP_MIN_NS;
	if (ns > RCB_GPP_MAX_NS)
		return RCB_GPP_MAX_NS;
	return ns;
}

void rcb__gp_policy_wait(bool back_to_back)
{
	uint64_t deadline;
	int seq;

	if (!back_to_back && !stream) {
		wait_ns = 0;
		return;
	}
	if (!wait_ns)
		wait_ns = clamp_wait(RCB_GPP_COST_RATIO * cost_ns);
	else
		wait_ns = clamp_wait(2 * wait_ns);
	rcb_add_relaxed(&rcb__gp_policy_stat[RCB__GPP_WAITS], 1);
	deadline = rcb__now_ns() + wait_ns;
	for (;;) {
		uint64_t now;

		/* [GPP-UA] A bump since we last looked ends the wait
		 * (invariant 2); pairs with [GPP-U] in
		 * rcb__gp_policy_urgent(): the marker it follows is then
		 * visible to the splice. */
		seq = rcb_load_acquire(&urgent_seq);
		if (seq != urgent_seen) {
			urgent_seen = seq;
			rcb_add_relaxed(&rcb__gp_policy_stat[RCB__GPP_URGENT], 1);
			return;
		}
		now = rcb__now_ns();
		if (now >= deadline)
			return;
		rcb__futex_wait(&urgent_seq, seq, deadline - now);
	}
}

void rcb__gp_policy_done(uint64_t gp_ns, unsigned long long ncallbacks)
{
	uint64_t now = rcb__now_ns();

	/* Callbacks arrive faster than grace periods complete when the
	 * batch's callbacks arrived, on average, less than a grace period
	 * apart, over the time since the previous batch was done (bursts
	 * whose gaps happen to leave the queue empty included).  Measured
	 * as a rate, not a batch size, so that a coalescing wait, which
	 * makes batches larger, does not keep itself going. */
	stream = last_done_ns && ncallbacks > 1 &&
		 (now - last_done_ns) / ncallbacks < cost_ns;
	last_done_ns = now;
	/* Moving average over about 8 grace periods; a first sample is
	 * taken as it is. */
	cost_ns = cost_ns ? cost_ns - cost_ns / 8 + gp_ns / 8 : gp_ns;
}

void rcb__gp_policy_urgent(void)
{
	/* [GPP-U] After the caller's enqueue (its marker, or the stop
	 * flag); pairs with [GPP-UA] in rcb__gp_policy_wait(). */
	rcb_add_release(&urgent_seq, 1);
	rcb__futex_wake(&urgent_seq, 1);
}

void rcb__gp_policy_after_fork_child(void)
{
	urgent_seen = rcb_load_relaxed(&urgent_seq);
	wait_ns = 0;
	cost_ns = 0;
	stream = false;
	last_done_ns = 0;
}
