/* Successive boosting (issue 6, part 2).  A FIFO 40 hog preempts a FIFO
 * 10 reader for HOG_S.  The first boost level is 20 (below the hog), the
 * ceiling 45 (above it), the booster at 50:
 *   - without escalation the grace period waits for the whole hog;
 *   - with escalation (one step per period) it ends within a bounded
 *     number of periods (about 21 steps + aging: ~250 ms);
 *   - raising the booster's priority at run time to 75, by the API or as
 *     chrt does (sched_setscheduler on its thread), lifts the first level
 *     to 45 at the next reboost, so the grace period ends without
 *     escalation;
 * and each time the reader gets back exactly FIFO 10.  Each verdict is
 * taken against the hog's own end (tests/boost/inversion_run.h); the
 * escalation's ~250 ms is held to a bound in the plain build only. */
#include "tests/boost/inversion_run.h"

/* 1 s: four times the escalation's ~250 ms, and the plain build's bound
 * on it (1000 ms) is the hog's end already.  A sanitizer build holds the
 * escalated reader to the hog's end only, and its booster and grace
 * periods run slower: it keeps 1.5 s. */
#define HOG_S (RCB_TEST_SANITIZED ? 1.5 : 1.0)

static void raise_by_api(void)
{
	CHECK(rcb_booster_set_prio(75) == 0);
}

static void raise_like_chrt(void)
{
	struct sched_param sp = { .sched_priority = 75 };
	pid_t tids[8];
	int n = rcb_booster_tids(tids, 8);

	CHECK(n >= 1 && n <= 8);
	for (int i = 0; i < n; i++)
		CHECK(sched_setscheduler(tids[i], SCHED_RR, &sp) == 0);
}

int main(void)
{
	struct rcb_config plain = { .boost = 1, .boost_reader_prio = 20,
				    .boost_ceiling = 45 };
	struct rcb_config esc = plain;
	struct inv_test_run p, e, a, c;

	esc.escalate_periods = 1;
	rt_require();
	rt_watchdog(90);
	rt_pin(1);
	p = inv_test_run(&plain, 40, HOG_S, 1000, 0, NULL);
	e = inv_test_run(&esc, 40, HOG_S, 1000, 0, NULL);
	a = inv_test_run(&plain, 40, HOG_S, 1000, 0, raise_by_api);
	c = inv_test_run(&plain, 40, HOG_S, 1000, 0, raise_like_chrt);
	printf("first boost 20, hog 40, ceiling 45, booster 50:\n"
	       "  no escalation:        grace period %.1f ms\n"
	       "  escalation 1 period:  grace period %.1f ms, reader on at %.1f ms "
	       "into the hog, %ld escalations\n"
	       "  booster raised to 75 (rcb_booster_set_prio): grace period %.1f ms\n"
	       "  booster raised to 75 (sched_setscheduler, as chrt): grace period %.1f ms\n",
	       p.gp_ms, e.gp_ms, e.resumed_ms, e.bs.escalations, a.gp_ms,
	       c.gp_ms);
	/* Below the hog, unescalated: the reader waited for the whole hog,
	 * the grace period for the reader. */
	/* Where the reader ran is the scheduler's outcome: a sanitizer
	 * build's slowdown lets RT throttling's gap run it early. */
	if (!RCB_TEST_SANITIZED)
		CHECK(p.resumed_ms >= p.hog_ms && p.hog_left_ms <= 0);
	CHECK(p.bs.escalations == 0);
	/* Escalated, or raised with the booster: the reader went on and
	 * the grace period ended while the hog still spun. */
	CHECK(e.resumed_ms < e.hog_ms && e.hog_left_ms > 0);
	CHECK(e.bs.escalations >= 15); /* 20 -> 41 is 21 steps */
	/* ~250 ms: the booster and the reader are real-time, but the
	 * grace period starts from threads that are not. */
	CHECK_PLAIN(e.resumed_ms < 1000);
	CHECK(a.resumed_ms < a.hog_ms && a.hog_left_ms > 0);
	CHECK(c.resumed_ms < c.hog_ms && c.hog_left_ms > 0);
	CHECK(p.restored && e.restored && a.restored && c.restored);
	return 0;
}
