/* Proves boosting ends the priority inversion: a SCHED_FIFO 10 reader
 * preempted inside a critical section by a FIFO 40 hog on its CPU holds
 * a grace period for the whole hog without boosting, and for well under
 * a second with it; and the reader gets its own attributes back. */
#include "tests/boost/rt.h"
#include "rcuboost.h"

static atomic_int in_cs, reader_tid;
static struct rt_hog hog;

static void *reader(void *arg)
{
	struct rt_attr after;

	(void)arg;
	rt_pin(0);
	CHECK(rt_set(0, SCHED_FIFO, 10, 0) == 0);
	CHECK(rcb_register_thread() == 0);
	atomic_store(&reader_tid, (int)gettid());
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

/* Grace-period latency in ms with a reader preempted for @hog_s. */
static double run(int boost, double hog_s)
{
	struct rcb_config cfg = { .boost = boost ? 1 : -1 };
	pthread_t r;
	double t0, ms;

	CHECK(rcb_init(&cfg) == 0);
	atomic_store(&in_cs, 0);
	hog.started = 0;
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&in_cs))
		usleep(100);
	rt_hog_start(&hog, 0, 40, hog_s);
	usleep(5000);
	t0 = rt_now();
	CHECK(rcb_synchronize() == 0);
	ms = (rt_now() - t0) * 1e3;
	rt_hog_join(&hog);
	pthread_join(r, NULL);
	CHECK(rcb_shutdown() == 0);
	return ms;
}

int main(void)
{
	struct rcb_boost_stats s;
	char buf[1024];
	double off, on;

	rt_require();
	rt_watchdog(60);
	rt_pin(1);
	off = run(0, 2.0);
	on = run(1, 2.0);
	rcb_boost_stats(&s);
	rcb_boost_stats_format(&s, buf, sizeof(buf), 0);
	printf("grace period with a reader preempted by a 2 s hog: "
	       "unboosted %.1f ms, boosted %.1f ms\n%s", off, on, buf);
	/* Generous bounds: the hog runs 2000 ms; boosting needs ~50 ms. */
	CHECK(off > 1500);
	CHECK(on < 1000);
	CHECK(s.boost >= 1);
	CHECK(s.unboosted >= 1);
	CHECK(s.preempt_enqueued >= 1);
	return 0;
}
