/*
 * Boosted callback invocation (configured priority): a callback worker
 * pinned to CPU 0 keeps invoking callbacks while a SCHED_FIFO 40 hog
 * spins on CPU 0 for 1 s, because the library runs it at
 * RCUBOOST_CALLBACK_PRIO / struct rcb_config.callback_prio 45.  An
 * updater on CPU 1 queues one callback per millisecond to it; the peak
 * backlog must stay far below what a starved worker accumulates (all
 * that is queued during the hog, ~1000).
 * With --unprioritized (callback_prio -1) and RCUBOOST_BOOST=0 the same
 * check fails: the worker runs at normal priority and the hog starves it
 * (with boosting on, booster mode raises it: test_callback_boost).  Every
 * real-time thread here is bounded (the hog 1 s, the watchdog 20 s).
 */
#define _GNU_SOURCE
#include "tests/boost/rt.h"

#include <stdbool.h>

#include "rcuboost.h"

#define HOG_PRIO 40
#define CB_PRIO 45
#define PEAK_BOUND 200

static atomic_int stop_updater, queued, queued_hog;
static struct rt_hog hog;

static void free_cb(struct rcb_head *h)
{
	free(h);
}

static void *updater(void *arg)
{
	struct rcb_worker *w = arg;

	rt_pin(1);
	CHECK_EQ(rcb_worker_set_thread(w), 0);
	while (!atomic_load(&stop_updater)) {
		struct rcb_head *h = malloc(sizeof(*h));

		CHECK(h && rcb_call(h, free_cb) == 0);
		atomic_fetch_add(&queued, 1);
		if (atomic_load(&hog.started) &&
		    rt_now() < atomic_load(&hog.end_at))
			atomic_fetch_add(&queued_hog, 1);
		usleep(1000);
	}
	CHECK_EQ(rcb_worker_set_thread(NULL), 0);
	return NULL;
}

int main(int argc, char **argv)
{
	bool unprio = argc > 1 && strcmp(argv[1], "--unprioritized") == 0;
	struct rcb_config cfg = { .size = sizeof(cfg),
				  .callback_prio = unprio ? -1 : CB_PRIO };
	struct rcb_worker_attr a = { .size = sizeof(a), .flags = RCB_WORKER_PIN,
				     .cpu = 0 };
	struct rcb_worker *w;
	struct rcb_backlog bl;
	struct rt_attr at;
	pthread_t u;

	rt_require();
	rt_watchdog(20);
	CHECK_EQ(rcb_init(&cfg), 0);
	CHECK_EQ(rcb_worker_create(&a, &w), 0);
	CHECK(rt_get(rcb_worker_tid(w), &at) == 0);
	CHECK_EQ(at.policy, unprio ? SCHED_OTHER : SCHED_FIFO);
	if (!unprio)
		CHECK_EQ(at.prio, CB_PRIO);
	CHECK_EQ(pthread_create(&u, NULL, updater, w), 0);
	usleep(100000);
	rcb_backlog_reset_peak();
	rt_hog_start(&hog, 0, HOG_PRIO, 1.0);
	rt_hog_join(&hog);
	rcb_backlog(&bl);
	atomic_store(&stop_updater, 1);
	CHECK_EQ(pthread_join(u, NULL), 0);
	CHECK_EQ(rcb_barrier(), 0);
	printf("callback worker %s, FIFO %d hog on its CPU for 1 s, %d callbacks queued (%d during the hog): peak backlog %llu\n",
	       unprio ? "at normal priority" : "at FIFO 45", HOG_PRIO,
	       atomic_load(&queued), atomic_load(&queued_hog),
	       (unsigned long long)bl.peak_callbacks);
	/* A starved worker holds every callback queued during the hog:
	 * this one held less than half of them (and 20 for the counters'
	 * relaxed reads); at most PEAK_BOUND in the plain build, where
	 * the updater's pace is about what it asks for. */
	CHECK(bl.peak_callbacks * 2 <=
	      (unsigned long long)atomic_load(&queued_hog) + 20);
	CHECK_PLAIN(bl.peak_callbacks < PEAK_BOUND);
	CHECK_EQ(rcb_worker_destroy(w), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
