/* The inversion shape shared by the enhancement tests: a SCHED_FIFO 10
 * reader on CPU 0 is preempted inside its critical section by a FIFO
 * @hog_prio hog on CPU 0 for @hog_s seconds; on CPU 1 an updater queues
 * callbacks every @cb_period_us and the test times one synchronize.  The
 * library runs with @cfg.  The hog is armed (asleep on CPU 0) before the
 * reader starts, and the reader fires it from inside its section: the
 * reader must never wait in its section for a hog still on its way to
 * CPU 0, since a grace period that waits for the reader meanwhile may
 * get it boosted above the hog (at once in pressure mode), and then the
 * hog never runs and the reader waits forever.  Real-time safety: rt.h's
 * hog has a hard time bound, armed or spinning; the reader leaves
 * real-time before it exits. */
#ifndef RCB_TEST_INVERSION_RUN_H
#define RCB_TEST_INVERSION_RUN_H

#include "tests/boost/rt.h"
#include "rcuboost.h"

/* What one run measured.  The checks that hold at any speed compare the
 * run with itself: the reader went on before the hog ended (resumed_ms <
 * hog_ms), the grace period ended before the hog did (hog_left_ms > 0),
 * the backlog against what the updater queued meanwhile (queued_gp,
 * queued_hog), never against a rate the machine must reach. */
struct inv_test_run {
	double gp_ms;             /* the timed grace period */
	/* How long the hog still had to spin when rcb_synchronize()
	 * returned: above 0, the grace period ended before the hog did. */
	double hog_left_ms;
	/* When the reader went on inside its section, from the start of
	 * the hog's spin: under hog_ms, something lifted it above the hog
	 * (both times are taken by real-time threads on the hog's CPU). */
	double resumed_ms, hog_ms;
	/* callbacks the updater really queued per ms */
	double rate_per_ms;
	/* Callbacks queued while the timed grace period ran, and while the
	 * hog spun. */
	long queued_gp, queued_hog;
	unsigned long long peak, peak_bytes;
	long pressure_entries, pressure_kicks; /* in this run */
	struct rcb_boost_stats bs; /* at the end of the run (cumulative) */
	int restored;             /* reader back at FIFO 10 after its unlock */
};

static atomic_int itr_in_cs, itr_stop_updater, itr_restored, itr_gp_on;
static atomic_long itr_queued, itr_queued_gp, itr_queued_hog;
static _Atomic double itr_resumed_at;
static struct rt_hog itr_hog;
static int itr_cb_period_us, itr_cb_bytes;

static void *itr_reader(void *arg)
{
	struct rt_attr after;

	(void)arg;
	rt_pin(0);
	CHECK(rt_set(0, SCHED_FIFO, 10, 0) == 0);
	CHECK(rcb_register_thread() == 0);
	rcb_read_lock();
	atomic_store(&itr_in_cs, 1);
	/* The hog preempts us right here; we go on once it ended or a
	 * boost lifted us above it.  If we were boosted above it already
	 * (the window is a few instructions), we go on at once. */
	rt_hog_fire(&itr_hog);
	atomic_store(&itr_resumed_at, rt_now());
	rcb_read_unlock();
	CHECK(rt_get(0, &after) == 0);
	atomic_store(&itr_restored,
		     after.policy == SCHED_FIFO && after.prio == 10);
	CHECK(rcb_unregister_thread() == 0);
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	return NULL;
}

static void itr_free(struct rcb_head *h)
{
	free(h);
}

static void *itr_updater(void *arg)
{
	(void)arg;
	rt_pin(1);
	while (!atomic_load(&itr_stop_updater)) {
		struct rcb_head_sized *h = malloc(sizeof(*h));

		CHECK(h &&
		      rcb_call_sized(h, itr_free, (size_t)itr_cb_bytes) == 0);
		atomic_fetch_add(&itr_queued, 1);
		if (atomic_load(&itr_gp_on))
			atomic_fetch_add(&itr_queued_gp, 1);
		/* A hog of an earlier run has end_at in the past. */
		if (atomic_load(&itr_hog.started) &&
		    rt_now() < atomic_load(&itr_hog.end_at))
			atomic_fetch_add(&itr_queued_hog, 1);
		usleep((useconds_t)itr_cb_period_us);
	}
	return NULL;
}

/* Optional: called on the test thread while the hog runs, 50 ms in. */
typedef void (*itr_during_fn)(void);

static struct inv_test_run inv_test_run(const struct rcb_config *cfg,
					int hog_prio, double hog_s,
					int cb_period_us, int cb_bytes,
					itr_during_fn during)
{
	struct inv_test_run res = { 0 };
	struct rcb_boost_stats b0 = { .size = sizeof(b0) };
	struct rcb_backlog bl;
	pthread_t r, u;
	double t0, t1, u0, end;

	CHECK(rcb_init(cfg) == 0);
	CHECK(rcb_boost_stats(&b0) == 0);
	itr_cb_period_us = cb_period_us;
	itr_cb_bytes = cb_bytes;
	atomic_store(&itr_in_cs, 0);
	atomic_store(&itr_stop_updater, 0);
	atomic_store(&itr_queued, 0);
	atomic_store(&itr_queued_gp, 0);
	atomic_store(&itr_queued_hog, 0);
	atomic_store(&itr_resumed_at, 0);
	u0 = rt_now();
	CHECK(pthread_create(&u, NULL, itr_updater, NULL) == 0);
	CHECK(rcb_barrier() == 0);
	rt_hog_arm(&itr_hog, 0, hog_prio, hog_s);
	rcb_backlog_reset_peak();
	CHECK(pthread_create(&r, NULL, itr_reader, NULL) == 0);
	while (!atomic_load(&itr_hog.started) && !atomic_load(&itr_hog.ended))
		usleep(100);
	CHECK(atomic_load(&itr_in_cs) && atomic_load(&itr_hog.started));
	usleep(5000);
	if (during) {
		usleep(45000);
		during();
	}
	atomic_store(&itr_gp_on, 1);
	t0 = rt_now();
	CHECK(rcb_synchronize() == 0);
	t1 = rt_now();
	atomic_store(&itr_gp_on, 0);
	res.gp_ms = (t1 - t0) * 1e3;
	res.hog_left_ms = (atomic_load(&itr_hog.end_at) - t1) * 1e3;
	rt_hog_join(&itr_hog);
	pthread_join(r, NULL);
	res.hog_ms = hog_s * 1e3;
	res.resumed_ms = (atomic_load(&itr_resumed_at) -
			  atomic_load(&itr_hog.start_at)) * 1e3;
	rcb_backlog(&bl);
	res.peak = bl.peak_callbacks;
	res.peak_bytes = bl.peak_bytes;
	atomic_store(&itr_stop_updater, 1);
	pthread_join(u, NULL);
	res.rate_per_ms =
		(double)atomic_load(&itr_queued) / ((rt_now() - u0) * 1e3);
	res.queued_gp = atomic_load(&itr_queued_gp);
	res.queued_hog = atomic_load(&itr_queued_hog);
	/* The backlog drained, pressure mode (if on) ends at a booster
	 * pass below the low-water mark: a millisecond apart in pressure
	 * mode, so 2 s is a bound, not a guess. */
	CHECK(rcb_barrier() == 0);
	res.bs.size = sizeof(res.bs);
	end = rt_now() + 2.0;
	do {
		CHECK(rcb_boost_stats(&res.bs) == 0);
		if (!res.bs.pressure_active)
			break;
		usleep(1000);
	} while (rt_now() < end);
	res.pressure_entries = res.bs.pressure_entries - b0.pressure_entries;
	res.pressure_kicks = res.bs.pressure_kicks - b0.pressure_kicks;
	res.restored = atomic_load(&itr_restored);
	CHECK(rcb_shutdown() == 0);
	return res;
}

#endif
