/* SPDX-License-Identifier: MIT */
/*
 * Expedited grace periods and priority inheritance from waiters: the
 * waiters' and the grace-period leader's side.  The boosters' side is
 * src/boost/expedite.c (src/boost/boost_off.c without boosting).
 *
 * Algorithm.  A thread that waits for a grace period (rcb_synchronize(),
 * rcb_synchronize_expedited(), rcb_barrier(), and any later waiter that
 * calls rcb__waiter_enter()) announces itself for the whole wait: in
 * exp_waiters if it asked for an expedited grace period, and, with
 * inheritance on, in inherit_waiters[P] if it runs at real-time priority
 * P (capped by inherit_ceiling).  It then wakes a sleeping leader.  The
 * leader of the grace period, whenever it looks at its readers, computes
 * the loan: the first boost level if an expedited waiter exists, raised
 * to the highest announced P (at once when expedited, after one booster
 * period otherwise); a loan higher than the one it asked for so far
 * becomes a request (gp, level) to the boosters, which boost the readers
 * that hold gp to level at once, with no aging (src/boost/expedite.c).  The
 * leader withdraws the request before it returns.
 *
 * The kernel's own priority inheritance does the rest: waiters that are
 * not the leader block on rcb__gp_lock, a PTHREAD_PRIO_INHERIT mutex, so
 * the leader runs at their priority while it waits; it lends the
 * announced priorities, not its own effective one, because that is what
 * sched_getattr(2) cannot tell.
 *
 * Invariants.
 *  1. exp_waiters and inherit_waiters[] count the threads between their
 *     rcb__waiter_enter() and rcb__waiter_leave(): a waiter's priority is
 *     lent only while it waits.
 *  2. A request (gp, level) exists only while the leader waits for the
 *     readers of gp (wait_for_readers() in src/core/gp.c), and level never
 *     exceeds the highest announced priority or, with an expedited
 *     waiter, the first boost level if that is higher.
 *  3. A booster lends only to a reader that holds gp when it checks,
 *     under the reader's element lock (src/boost/expedite.c invariant 1): its
 *     section began before gp, so gp's waiters still wait for it, and
 *     the loan ends with the reader's outermost unlock, which restores
 *     it under the same lock.  Hence no loan outlives the section nor,
 *     but for the instructions of that unlock, its waiter.
 *  4. A waiter that arrives while the leader sleeps is seen: [EXP-W]
 *     orders its announcement before its test of rcb__gp.futex, the
 *     leader's [GP-W] its futex store before its count.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>

#include "core/hooks.h"
#include "core/internal.h"

static _Atomic int exp_waiters;
static _Atomic int inherit_waiters[100];
static _Atomic bool no_boost_reported;

/* The calling thread's real-time priority, 0 if it is not real-time. */
static int own_rt_prio(void)
{
	struct sched_param sp;
	int policy = sched_getscheduler(0);

	if (policy < 0)
		return 0;
	policy &= ~SCHED_RESET_ON_FORK;
	if (policy != SCHED_FIFO && policy != SCHED_RR)
		return 0;
	if (sched_getparam(0, &sp) != 0)
		return 0;
	return sp.sched_priority;
}

/* The calling thread's waiter record while it waits, for the leader's
 * own announcement (rcb__loan_update()). */
static _Thread_local struct rcb__waiter *self_waiter;

/* Wake a sleeping leader to count a new waiter (invariant 4). */
static void waiter_wake_leader(void)
{
	/* [EXP-W] The announcement is ordered before the test of
	 * rcb__gp.futex in rcb__gp_wake(): store-buffering with the
	 * leader's "futex = -1; [GP-W]; read the counts".  Pairs with
	 * [GP-W] in wait_for_readers(): either the leader's loan counts
	 * us, or we see -1 and wake it to count us. */
	rcb_fence_seq_cst();
	rcb__gp_wake();
}

void rcb__waiter_enter(struct rcb__waiter *w, bool expedited)
{
	w->expedited = expedited;
	w->announced = false;
	w->prio = 0;
	w->outer = self_waiter;
	self_waiter = w;
	if (!expedited)
		return;
	rcb_add_relaxed(&exp_waiters, 1);
	waiter_wake_leader();
}

/*
 * The priority is read (a system call) only once the wait is known to
 * be long: a waiter about to block behind the leader, a leader that
 * found readers, a barrier.  A grace period that finds no reader costs
 * nothing more with inheritance on (measured: +1.1 us per uncontended
 * rcb_synchronize() when every call read it).
 */
void rcb__waiter_announce(struct rcb__waiter *w)
{
	int p;

	if (!rcb__settings.inherit || w->announced)
		return;
	w->announced = true;
	if ((p = own_rt_prio()) <= 0)
		return;
	if (p > rcb__settings.inherit_ceiling)
		p = rcb__settings.inherit_ceiling;
	w->prio = p;
	rcb_add_relaxed(&inherit_waiters[p], 1);
	waiter_wake_leader();
}

void rcb__waiter_leave(struct rcb__waiter *w)
{
	if (w->expedited)
		rcb_add_relaxed(&exp_waiters, -1);
	if (w->prio)
		rcb_add_relaxed(&inherit_waiters[w->prio], -1);
	self_waiter = w->outer;
}

/* The highest priority announced by a waiter, 0 if none. */
static int inherit_level(void)
{
	for (int p = 99; p > 0; p--)
		if (rcb_load_relaxed(&inherit_waiters[p]) > 0)
			return p;
	return 0;
}

static uint64_t period_ns(void)
{
	return (uint64_t)rcb__settings.boost_period_ms * 1000000ull;
}

void rcb__loan_update(struct rcb__loan *l, unsigned long gp,
		      unsigned long long start)
{
	bool exp;
	int level = 0, inh;

	/* The leader is a waiter too: it lends its own priority from the
	 * moment it finds readers. */
	if (rcb__settings.inherit && self_waiter)
		rcb__waiter_announce(self_waiter);
	exp = rcb_load_relaxed(&exp_waiters) > 0;
	if (!exp && !rcb__settings.inherit)
		return;
	if (exp)
		level = rcb__boost_hooks.expedite_first_level();
	if (rcb__settings.inherit &&
	    (exp || rcb__now_ns() - start >= period_ns())) {
		inh = inherit_level();
		if (inh > level)
			level = inh;
	}
	if (level <= l->level)
		return;
	l->level = level;
	rcb__boost_hooks.expedite_request(gp, level);
}

/*
 * The level a leader of another domain's grace period (src/core/
 * domain.c) lends the threads holding it, waiting since @start: the
 * first boost level if it is @expedited, raised to its own real-time
 * priority with inheritance on (at once when expedited, after one
 * booster period otherwise).  Its other waiters block on the domain's
 * PRIO_INHERIT lock and lend the leader their priority, which the
 * kernel does not let it read back: only its own is lent.
 */
int rcb__dom_loan_level(bool expedited, unsigned long long start)
{
	int level = 0, p;

	if (expedited)
		level = rcb__boost_hooks.expedite_first_level();
	if (rcb__settings.inherit &&
	    (expedited || rcb__now_ns() - start >= period_ns()) &&
	    (p = own_rt_prio()) > 0) {
		if (p > rcb__settings.inherit_ceiling)
			p = rcb__settings.inherit_ceiling;
		if (p > level)
			level = p;
	}
	return level;
}

uint64_t rcb__loan_sleep_ns(const struct rcb__loan *l, unsigned long long start,
			    uint64_t dflt)
{
	uint64_t now, end;

	/* Only an inheriting waiter's loan waits for a deadline: one
	 * booster period after the grace period began waiting. */
	if (!rcb__settings.inherit || l->level || !inherit_level())
		return dflt;
	now = rcb__now_ns();
	end = start + period_ns();
	if (now >= end)
		return dflt;
	return end - now < dflt ? end - now : dflt;
}

void rcb__loan_end(struct rcb__loan *l)
{
	if (l->level)
		rcb__boost_hooks.expedite_end();
	l->level = 0;
}

/* Why an expedited grace period cannot boost, for its report. */
static const char *why_no_boost(void)
{
#if RCB_CONFIG_BOOST
	if (!rcb__settings.boost)
		return "off (RCUBOOST_BOOST=0, or rcb_config.boost -1)";
	if (rcb__boost_hooks.no_permission())
		return "not permitted (no CAP_SYS_NICE, and RLIMIT_RTPRIO below the "
		       "booster's priority)";
	return "unavailable (no booster runs; its start said why)";
#else
	return "compiled out (this library was built with RCB_BOOST=OFF)";
#endif
}

/* The expedited call cannot boost: said once per process, or, after
 * rcb_shutdown(), at the 1st, 2nd, 4th... such call. */
void rcb__expedite_report_plain(const char *call)
{
	bool expect = false;

	if (!rcb_load_relaxed(&rcb__running)) {
		/* Not once for good (a later rcb_init() starts the
		 * boosters again): the 1st, 2nd, 4th, 8th... time. */
		static _Atomic unsigned long down_calls;
		unsigned long n = rcb_add_relaxed(&down_calls, 1) + 1;

		if (!(n & (n - 1)))
			fprintf(stderr,
				"rcuboost: %s: the library is shut down (rcb_shutdown()), so no "
				"booster runs; waiting for readers as rcb_synchronize() does "
				"(%lu time(s))\n",
				call, n);
		return;
	}
	if (rcb_cmpxchg_relaxed(&no_boost_reported, &expect, true))
		fprintf(stderr,
			"rcuboost: %s: an expedited grace period (rcb_synchronize_expedited(), "
			"or every one with RCUBOOST_EXPEDITED=1) cannot boost its readers: "
			"boosting is %s; it waits for them unboosted, as rcb_synchronize() "
			"does (reported once)\n",
			call, why_no_boost());
}

void rcb__inherit_after_fork_child(void)
{
	/* Only the forking thread exists, and it waits for nothing. */
	rcb_store_relaxed(&exp_waiters, 0);
	for (int p = 0; p < 100; p++)
		rcb_store_relaxed(&inherit_waiters[p], 0);
}
