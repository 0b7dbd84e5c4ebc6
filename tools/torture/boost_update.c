/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-torture: the boost phase's updaters (see boost.c).  Each is
 * pinned to the CPU without the hog, keeps up to UPD_INFLIGHT rcb_call()
 * callbacks in flight and requires each to be invoked, and each of its
 * rcb_synchronize() calls to return, within --boost-bound-ms.  The
 * latency histogram and maxima go to the report.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "boost.h"

/* A callback an updater waits for. */
struct boost_cb {
	struct rcb_head rh;
	uint64_t queued_ns;
	unsigned long seq;
	_Atomic uint64_t invoked_ns;
	bool reported;
};

#define UPD_INFLIGHT 8

static const unsigned int lat_bound_ms[TORTURE_BOOST_LAT_BUCKETS - 1] = {
	10, 25, 50, 100, 250, 500, 1000, 2000,
};

static void max_store(_Atomic unsigned long *m, unsigned long v)
{
	unsigned long cur = atomic_load_explicit(m, memory_order_relaxed);

	while (cur < v &&
	       !atomic_compare_exchange_weak_explicit(m, &cur, v,
						      memory_order_relaxed,
						      memory_order_relaxed))
		;
}

static void boost_cb_fn(struct rcb_head *h)
{
	struct boost_cb *c = (struct boost_cb *)((char *)h -
						 offsetof(struct boost_cb, rh));

	/* [TBC-I] The updater frees @c once it sees this.  Pairs with
	 * [TBC-A] in cb_poll(). */
	atomic_store_explicit(&c->invoked_ns, tool_now_ns(),
			      memory_order_release);
}

static void cb_late(struct boost_cb *c, unsigned int idx, uint64_t age_ns,
		    bool invoked)
{
	struct rcb_gp_stats st;
	struct rcb_backlog bl;

	rcb_stats(&st);
	rcb_backlog(&bl);
	c->reported = true;
	torture_error(TORTURE_ERR_boost_late,
		      "updater %u: callback %lu %s after %.1f ms (bound %u ms); hog %s, %lu bursts, %llu grace periods, backlog %llu",
		      idx, c->seq, invoked ? "invoked" : "still not invoked",
		      (double)age_ns / 1e6, tstate.opt.boost_bound_ms,
		      atomic_load(&tstate.boost.hog_on) ? "on" : "off",
		      torture_get(&tstate.boost.bursts),
		      (unsigned long long)st.grace_periods,
		      (unsigned long long)bl.callbacks);
}

/* Retire the invoked callbacks of @fl, report the overdue ones; returns
 * how many are still in flight. */
static unsigned int cb_poll(struct boost_cb **fl, unsigned int idx)
{
	uint64_t bound = tstate.opt.boost_bound_ms * NS_PER_MS;
	uint64_t now = tool_now_ns(), inv, lat;
	unsigned int left = 0, b;

	for (unsigned int i = 0; i < UPD_INFLIGHT; i++) {
		struct boost_cb *c = fl[i];

		if (!c)
			continue;
		/* [TBC-A] pairs with [TBC-I] in boost_cb_fn(). */
		inv = atomic_load_explicit(&c->invoked_ns,
					   memory_order_acquire);
		if (!inv) {
			if (!c->reported && now - c->queued_ns > bound)
				cb_late(c, idx, now - c->queued_ns, false);
			left++;
			continue;
		}
		lat = inv - c->queued_ns;
		for (b = 0; b < TORTURE_BOOST_LAT_BUCKETS - 1; b++)
			if (lat < lat_bound_ms[b] * NS_PER_MS)
				break;
		torture_add(&tstate.boost.cb_lat[b], 1);
		max_store(&tstate.boost.cb_max_us, (unsigned long)(lat / 1000));
		torture_add(&tstate.boost.cb_invoked, 1);
		if (!c->reported && lat > bound)
			cb_late(c, idx, lat, true);
		free(c);
		fl[i] = NULL;
	}
	return left;
}

/* Queue one callback if a slot of @fl is free. */
static void cb_queue(struct boost_cb **fl, unsigned long *seq)
{
	struct boost_cb *c;
	unsigned int i;
	int err;

	for (i = 0; i < UPD_INFLIGHT && fl[i]; i++)
		;
	if (i == UPD_INFLIGHT)
		return;
	c = calloc(1, sizeof(*c));
	if (!c)
		return;
	c->seq = (*seq)++;
	c->queued_ns = tool_now_ns();
	err = rcb_call(&c->rh, boost_cb_fn);
	if (err) {
		torture_error(TORTURE_ERR_api, "rcb_call returned %d", err);
		free(c);
		return;
	}
	torture_add(&tstate.boost.cb_queued, 1);
	fl[i] = c;
}

/* Wait for cookie @c by polling it, against twice the bound (a
 * request that never starts a grace period shows here), then check that
 * rcb_cond_synchronize() on it does not wait. */
static int poll_wait(unsigned int idx, uint64_t c)
{
	uint64_t end =
		tool_now_ns() + 2 * tstate.opt.boost_bound_ms * NS_PER_MS;
	int r;

	while ((r = rcb_poll_state(c)) == 0 && tool_now_ns() < end)
		tool_sleep_ns(NS_PER_MS / 4);
	if (r < 0) {
		torture_error(TORTURE_ERR_api, "rcb_poll_state returned %d", r);
		return r;
	}
	if (r == 0) {
		torture_error(TORTURE_ERR_boost_late,
			      "updater %u: the cookie of rcb_start_poll() not elapsed after %u ms",
			      idx, 2 * tstate.opt.boost_bound_ms);
		return 0;
	}
	return rcb_cond_synchronize(c);
}

/*
 * One grace-period wait, of the kind @mode (the updaters rotate through
 * them, issue 13): rcb_synchronize(), rcb_synchronize_expedited(),
 * rcb_start_poll() polled to completion, rcb_cond_synchronize() on a
 * fresh rcb_get_state().  With --boost-updater-prio and
 * RCUBOOST_INHERIT=1 the updater lends its priority in the three that
 * wait (the residual checks then cover the loans).
 */
static void timed_synchronize(unsigned int idx, unsigned int mode)
{
	static const char *const names[4] = {
		"rcb_synchronize", "rcb_synchronize_expedited",
		"rcb_start_poll/rcb_poll_state", "rcb_cond_synchronize",
	};
	uint64_t t0 = tool_now_ns(), dt;
	int err;

	mode %= 4;
	switch (mode) {
	case 0:
		err = rcb_synchronize();
		break;
	case 1:
		err = rcb_synchronize_expedited();
		break;
	case 2:
		err = poll_wait(idx, rcb_start_poll());
		break;
	default:
		err = rcb_cond_synchronize(rcb_get_state());
		break;
	}
	dt = tool_now_ns() - t0;
	if (err)
		torture_error(TORTURE_ERR_api, "%s returned %d", names[mode], err);
	torture_add(&tstate.boost.syncs, 1);
	torture_add(&tstate.boost.sync_modes[mode], 1);
	max_store(&tstate.boost.sync_max_us, (unsigned long)(dt / 1000));
	if (dt > tstate.opt.boost_bound_ms * NS_PER_MS)
		torture_error(
			TORTURE_ERR_boost_late,
			"updater %u: %s took %.1f ms (bound %u ms); hog %s",
			idx, names[mode], (double)dt / 1e6,
			tstate.opt.boost_bound_ms,
			atomic_load(&tstate.boost.hog_on) ? "on" : "off");
}

void *boost_updater_fn(void *arg)
{
	unsigned int idx = (unsigned int)(uintptr_t)arg;
	uint64_t rng = tstate.opt.seed ^ (0x900 + idx) * 0x9e3779b97f4a7c15ull;
	uint64_t drain_end;
	struct boost_cb *fl[UPD_INFLIGHT] = { NULL };
	unsigned long seq = 0;
	unsigned int mode = idx;
	struct tool_sattr rt = { .policy = SCHED_FIFO,
				 .prio = tstate.opt.boost_upd_prio };
	uint64_t r;
	int err;

	tool_name_thread("rcbt-bupd", (int)idx);
	if (!boost_pin_self(boost_upd_cpu))
		boost_rt_error("updater", idx, "cannot pin", -EINVAL);
	/* Real-time updater (bounded: it sleeps a millisecond a turn and
	 * stops with the phase), pinned to the CPU without the hog. */
	if (rt.prio && (err = boost_sched_set(SCHED_FIFO, (int)rt.prio, 0)))
		boost_rt_error("updater", idx, "sched_setattr", err);
	while (!boost_stopping()) {
		cb_poll(fl, idx);
		r = tool_rand(&rng);
		if (r % 4 == 0)
			cb_queue(fl, &seq);
		if (r % 64 == 1)
			timed_synchronize(idx, mode++);
		tool_sleep_ns(NS_PER_MS);
	}
	/* Wait for the rest, still against the bound, then make sure with
	 * rcb_barrier() (a callback never invoked hangs here: the watchdog
	 * then reports it). */
	drain_end = tool_now_ns() + 2 * tstate.opt.boost_bound_ms * NS_PER_MS;
	while (cb_poll(fl, idx) && tool_now_ns() < drain_end)
		tool_sleep_ns(NS_PER_MS);
	err = rcb_barrier();
	if (err)
		torture_error(TORTURE_ERR_api, "rcb_barrier returned %d", err);
	if (cb_poll(fl, idx))
		torture_error(TORTURE_ERR_barrier,
			      "updater %u: callbacks not invoked after rcb_barrier()",
			      idx);
	/* A waiter lends its priority; it never gets another. */
	if (rt.prio) {
		torture_boost_check_attrs(&rt, TORTURE_ERR_boost_residual, "updater",
					  idx, "after its last wait");
		if ((err = boost_sched_set(SCHED_OTHER, 0, 0)))
			boost_rt_error("updater", idx, "sched_setattr", err);
	}
	return NULL;
}
