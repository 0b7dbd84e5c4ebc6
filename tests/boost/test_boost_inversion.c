/* Proves boosting ends the priority inversion: a SCHED_FIFO 10 reader
 * preempted inside a critical section by a FIFO 40 hog on its CPU holds
 * a grace period, and lets the callback backlog grow, for the whole hog
 * without boosting; with boosting the grace period ends well under a
 * second and the peak backlog stays small whatever the hog's length; and
 * the reader gets its own attributes back.  Bounds are generous: the
 * figures themselves are rcuboost-bench inversion's. */
#include "tests/boost/rt.h"
#include "rcuboost.h"

static atomic_int in_cs, stop_updater;
static struct rt_hog hog;

static void *reader(void *arg)
{
	struct rt_attr after;

	(void)arg;
	rt_pin(0);
	CHECK(rt_set(0, SCHED_FIFO, 10, 0) == 0);
	CHECK(rcb_register_thread() == 0);
	rcb_read_lock();
	atomic_store(&in_cs, 1);
	/* Spin until the hog has run: it preempts us right here. */
	while (!atomic_load(&hog.started))
		;
	rcb_read_unlock();
	CHECK(rt_get(0, &after) == 0);
	CHECK(after.policy == SCHED_FIFO && after.prio == 10);
	CHECK(rcb_unregister_thread() == 0);
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	return NULL;
}

static void free_head(struct rcb_head *h)
{
	free(h);
}

/* One callback per millisecond on CPU 1, as an updater would. */
static void *updater(void *arg)
{
	(void)arg;
	rt_pin(1);
	while (!atomic_load(&stop_updater)) {
		struct rcb_head *h = malloc(sizeof(*h));

		CHECK(h && rcb_call(h, free_head) == 0);
		usleep(1000);
	}
	return NULL;
}

struct run {
	double gp_ms;
	unsigned long long peak;
};

static struct run run(int boost, double hog_s)
{
	struct rcb_config cfg = { .boost = boost ? 1 : -1 };
	struct rcb_backlog bl;
	struct run res;
	pthread_t r, u;
	double t0;

	CHECK(rcb_init(&cfg) == 0);
	atomic_store(&in_cs, 0);
	atomic_store(&stop_updater, 0);
	hog.started = 0;
	CHECK(pthread_create(&u, NULL, updater, NULL) == 0);
	CHECK(rcb_barrier() == 0);
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&in_cs))
		usleep(100);
	rcb_backlog_reset_peak();
	rt_hog_start(&hog, 0, 40, hog_s);
	usleep(5000);
	t0 = rt_now();
	CHECK(rcb_synchronize() == 0);
	res.gp_ms = (rt_now() - t0) * 1e3;
	rt_hog_join(&hog);
	pthread_join(r, NULL);
	rcb_backlog(&bl);
	res.peak = bl.peak_callbacks;
	atomic_store(&stop_updater, 1);
	pthread_join(u, NULL);
	CHECK(rcb_shutdown() == 0);
	return res;
}

int main(void)
{
	struct rcb_boost_stats s;
	struct run off, on1, on2;
	char buf[1024];

	rt_require();
	rt_watchdog(90);
	rt_pin(1);
	off = run(0, 2.0);
	on1 = run(1, 1.0);
	on2 = run(1, 2.0);
	rcb_boost_stats(&s);
	rcb_boost_stats_format(&s, buf, sizeof(buf), 1);
	printf("reader preempted by a hog, one callback per ms:\n"
	       "  unboosted, 2 s hog: grace period %.1f ms, peak backlog %llu\n"
	       "  boosted,   1 s hog: grace period %.1f ms, peak backlog %llu\n"
	       "  boosted,   2 s hog: grace period %.1f ms, peak backlog %llu\n%s",
	       off.gp_ms, off.peak, on1.gp_ms, on1.peak, on2.gp_ms, on2.peak, buf);
	/* Generous bounds: the hog runs 1000-2000 ms, boosting needs ~50. */
	CHECK(off.gp_ms > 1500);
	CHECK(off.peak > 1000);     /* ~2000: grows with the hog */
	CHECK(on1.gp_ms < 1000);
	CHECK(on2.gp_ms < 1000);
	CHECK(on1.peak < 500);      /* ~50: independent of the hog */
	CHECK(on2.peak < 500);
	CHECK(s.boost >= 1);
	CHECK(s.unboosted >= 1);
	CHECK(s.preempt_enqueued >= 1);
	return 0;
}
