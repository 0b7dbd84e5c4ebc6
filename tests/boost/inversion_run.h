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

struct inv_test_run {
	double gp_ms;             /* the timed grace period */
	double rate_per_ms;       /* callbacks the updater really queued per ms */
	unsigned long long peak, peak_bytes;
	struct rcb_boost_stats bs; /* at the end of the run */
	int restored;             /* reader back at FIFO 10 after its unlock */
};

static atomic_int itr_in_cs, itr_stop_updater, itr_restored;
static atomic_long itr_queued;
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
	rcb_read_unlock();
	CHECK(rt_get(0, &after) == 0);
	atomic_store(&itr_restored, after.policy == SCHED_FIFO && after.prio == 10);
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

		CHECK(h && rcb_call_sized(h, itr_free, (size_t)itr_cb_bytes) == 0);
		atomic_fetch_add(&itr_queued, 1);
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
	struct rcb_backlog bl;
	pthread_t r, u;
	double t0, u0;

	CHECK(rcb_init(cfg) == 0);
	itr_cb_period_us = cb_period_us;
	itr_cb_bytes = cb_bytes;
	atomic_store(&itr_in_cs, 0);
	atomic_store(&itr_stop_updater, 0);
	atomic_store(&itr_queued, 0);
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
	t0 = rt_now();
	CHECK(rcb_synchronize() == 0);
	res.gp_ms = (rt_now() - t0) * 1e3;
	rt_hog_join(&itr_hog);
	pthread_join(r, NULL);
	rcb_backlog(&bl);
	res.peak = bl.peak_callbacks;
	res.peak_bytes = bl.peak_bytes;
	atomic_store(&itr_stop_updater, 1);
	pthread_join(u, NULL);
	res.rate_per_ms = (double)atomic_load(&itr_queued) / ((rt_now() - u0) * 1e3);
	res.bs.size = sizeof(res.bs);
	rcb_boost_stats(&res.bs);
	res.restored = atomic_load(&itr_restored);
	CHECK(rcb_shutdown() == 0);
	return res;
}

#endif
