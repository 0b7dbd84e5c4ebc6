/* A grace period that starts after a long idle still gets its reader
 * boosted within the usual bound (booster.c invariant 3): the booster
 * sleeps with no wake-up while nothing waits (0.5 s here), then the standard
 * inversion (a SCHED_FIFO 10 reader preempted inside its section by a
 * FIFO 40 hog on CPU 0 for 0.5 s) must end before the hog does, well
 * before in the plain build.
 * Backend from the environment (RCUBOOST_BACKEND). */
#include "tests/boost/inversion_run.h"
#include "tests/boost/libthreads.h"

int main(void)
{
	struct rcb_config cfg = { .size = sizeof(cfg), .boost = 1 };
	struct rcb_boost_stats s = { .size = sizeof(s) };
	struct inv_test_run run;
	pid_t tids[LT_MAX];
	long ctxt0;

	rt_require();
	rt_watchdog(30);
	/* The grace period's leader off the hog's CPU: unpinned, a loaded
	 * machine can move it onto CPU 0, where it waits for the hog
	 * whatever the reader does. */
	rt_pin(1);
	CHECK(rcb_init(&cfg) == 0);
	CHECK(rcb_booster_tids(tids, 1) == 1);
	usleep(50 * 1000);
	ctxt0 = lt_ctxt(tids[0]);
	usleep(500 * 1000);
	CHECK(rcb_boost_stats(&s) == 0);
	printf("idle: booster woke %ld times in 0.5 s, %ld passes\n",
	       lt_ctxt(tids[0]) - ctxt0, (long)s.passes);
	CHECK(lt_ctxt(tids[0]) == ctxt0);
	/* Same settings: inv_test_run()'s rcb_init() finds them in force.
	 * The updater's callbacks are rare (every 100 ms). */
	run = inv_test_run(&cfg, 40, 0.5, 100000, 0, NULL);
	printf("after idle: grace period %.1f ms (hog 500 ms), reader on at "
	       "%.1f ms into the hog, boosts %ld, boost latency max %.1f ms\n",
	       run.gp_ms, run.resumed_ms, (long)run.bs.boost,
	       (double)run.bs.boost_latency_ns_max / 1e6);
	/* Boosted before the hog ended, the grace period over too; within
	 * the usual bound (~50 ms) in the plain build. */
	CHECK(run.resumed_ms < run.hog_ms && run.hog_left_ms > 0);
	CHECK_PLAIN(run.resumed_ms < 300);
	CHECK(run.bs.boost >= 1);
	CHECK(run.restored);
	return 0;
}
