/* Proves boosting ends the priority inversion: a SCHED_FIFO 10 reader
 * preempted inside a critical section by a FIFO 40 hog on its CPU holds
 * a grace period, and lets the callback backlog grow, for the whole hog
 * without boosting; with boosting the grace period ends well under a
 * second and the peak backlog stays small whatever the hog's length; and
 * the reader gets its own attributes back.  Bounds are generous: the
 * figures themselves are rcuboost-bench inversion's. */
#include "tests/boost/inversion_run.h"

int main(void)
{
	struct rcb_config off_cfg = { .boost = -1 }, on_cfg = { .boost = 1 };
	struct inv_test_run off, on1, on2;
	struct rcb_boost_stats s = { .size = sizeof(s) };
	char buf[2048];

	rt_require();
	rt_watchdog(90);
	rt_pin(1);
	/* One callback per millisecond on CPU 1, as an updater would. */
	off = inv_test_run(&off_cfg, 40, 2.0, 1000, 0, NULL);
	on1 = inv_test_run(&on_cfg, 40, 1.0, 1000, 0, NULL);
	on2 = inv_test_run(&on_cfg, 40, 2.0, 1000, 0, NULL);
	s = on2.bs; /* counters since the first initialisation */
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
	/* The reader got its own attributes back every time. */
	CHECK(off.restored && on1.restored && on2.restored);
	return 0;
}
