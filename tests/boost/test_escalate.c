/* Successive boosting (issue 6, part 2).  A FIFO 40 hog preempts a FIFO
 * 10 reader for 1.5 s.  The first boost level is 20 (below the hog), the
 * ceiling 45 (above it), the booster at 50:
 *   - without escalation the grace period waits for the whole hog;
 *   - with escalation (one step per period) it ends within a bounded
 *     number of periods (about 21 steps + aging: ~250 ms);
 *   - raising the booster's priority at run time to 75, by the API or as
 *     chrt does (sched_setscheduler on its thread), lifts the first level
 *     to 45 at the next reboost, so the grace period ends without
 *     escalation;
 * and each time the reader gets back exactly FIFO 10. */
#include "tests/boost/inversion_run.h"

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
	p = inv_test_run(&plain, 40, 1.5, 1000, 0, NULL);
	e = inv_test_run(&esc, 40, 1.5, 1000, 0, NULL);
	a = inv_test_run(&plain, 40, 1.5, 1000, 0, raise_by_api);
	c = inv_test_run(&plain, 40, 1.5, 1000, 0, raise_like_chrt);
	printf("first boost 20, hog 40, ceiling 45, booster 50:\n"
	       "  no escalation:        grace period %.1f ms\n"
	       "  escalation 1 period:  grace period %.1f ms, %ld escalations\n"
	       "  booster raised to 75 (rcb_booster_set_prio): grace period %.1f ms\n"
	       "  booster raised to 75 (sched_setscheduler, as chrt): grace period %.1f ms\n",
	       p.gp_ms, e.gp_ms, e.bs.escalations, a.gp_ms, c.gp_ms);
	CHECK(p.gp_ms > 1200);      /* the hog's 1.5 s, minus the 50 ms head start */
	CHECK(p.bs.escalations == 0);
	CHECK(e.gp_ms < 1000);      /* ~250 ms */
	CHECK(e.bs.escalations >= 15); /* 20 -> 41 is 21 steps */
	CHECK(a.gp_ms < 1000 && c.gp_ms < 1000);
	CHECK(p.restored && e.restored && a.restored && c.restored);
	return 0;
}
