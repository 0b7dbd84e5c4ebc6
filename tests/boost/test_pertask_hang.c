/* Demonstrates the article's warning about the per-task-lock variant
 * ("RCU Priority Boosting With Per-Task Lock ... simply does not work
 * reliably"), on real threads, under a watchdog: a SCHED_FIFO 10 reader
 * boosted through its own PI mutex ends its section while the booster
 * owns that mutex, blocks in its next section on its own mutex, and,
 * preempted by a FIFO 40 hog, is never boosted again: the grace period
 * waits for the whole hog.  The hang is the expected outcome; the test
 * fails only if the hang does NOT happen (the demonstration is lost) or
 * something else breaks.  Linked with the test-only rcuboost_pertask. */
#include "tests/boost/rt.h"
#include "rcuboost.h"

static atomic_int phase, reader_done;
static struct rt_hog hog;

static void *reader(void *arg)
{
	struct timespec blocked = { 0, 80 * 1000000L };

	(void)arg;
	rt_pin(0);
	CHECK(rt_set(0, SCHED_FIFO, 10, 0) == 0);
	CHECK(rcb_register_thread() == 0);
	/* Section 1: blocks long enough to be boosted through its mutex. */
	rcb_read_lock();
	rcb_nanosleep(&blocked, NULL);
	rcb_read_unlock();
	/* The booster now owns our mutex (it holds it for
	 * RCUBOOST_PERTASK_HOLD_US).  Section 2: the hog starts, and the
	 * scheduler hook (rcb_note_block) sleeps on our own mutex. */
	rcb_read_lock();
	atomic_store(&phase, 1);
	while (!atomic_load(&hog.started))
		;
	rcb_note_block();
	rcb_read_unlock();
	atomic_store(&reader_done, 1);
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	return NULL;
}

int main(void)
{
	struct rcb_boost_stats s = { .size = sizeof(s) };
	pthread_t r;
	double t0, ms;
	char buf[1024];

	rt_require();
	rt_watchdog(60);
	setenv("RCUBOOST_PERTASK_HOLD_US", "300000", 1);
	rt_pin(1);
	CHECK(rcb_init(NULL) == 0);
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&phase))
		usleep(100);
	rt_hog_start(&hog, 0, 40, 2.0);
	usleep(20 * 1000);
	t0 = rt_now();
	CHECK(rcb_synchronize() == 0);
	ms = (rt_now() - t0) * 1e3;
	rt_hog_join(&hog);
	pthread_join(r, NULL);
	rcb_boost_stats(&s);
	rcb_boost_stats_format(&s, buf, sizeof(buf), 0);
	printf("%s", buf);
	CHECK(s.boost >= 1); /* section 1 was boosted through the mutex */
	if (ms > 1000) {
		printf("EXPECTED HANG: the grace period waited %.0f ms for a "
		       "reader asleep on its own per-task lock while a 2000 ms "
		       "hog ran (article: the per-task-lock variant cannot "
		       "boost it)\n", ms);
		return 0;
	}
	printf("the per-task-lock hang did not happen (grace period %.0f ms)\n",
	       ms);
	return 1;
}
