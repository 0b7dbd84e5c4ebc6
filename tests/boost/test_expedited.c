/* Expedited grace periods and priority inheritance from waiters (issue
 * 13 items 1 and 2), as an application sees them: rcb_init(NULL) with
 * settings from the environment (the backend: CTest runs this binary
 * with RCUBOOST_BACKEND=sched and =pi).  A SCHED_FIFO 10 reader on CPU 0
 * is preempted inside its section by a hog pinned to CPU 0 for HOG_S; the
 * updater runs on CPU 1.
 *   1. hog FIFO 40, booster period 100 ms, rcb_synchronize_expedited():
 *      the grace period ends before the hog, and the reader goes on
 *      before aging could boost it (goal 2 ms; checked < 200 ms after
 *      the wait began, aging takes 300).
 *   2. RCUBOOST_INHERIT=1, hog FIFO 60, updater FIFO 80: the first boost
 *      level (49) is below the hog, so only the updater's loan ends the
 *      grace period before the hog: for rcb_synchronize(),
 *      rcb_synchronize_expedited(), and an rcb_barrier() after an
 *      rcb_call() (the waiter lends to the readers of the callback
 *      thread's grace period); within 200 ms in the plain build.
 *   3. The same without inheritance: rcb_synchronize() waits for the
 *      hog: the loan, not something else, ended case 2 early.
 * The reader's times are taken by real-time threads; the waits' own
 * times (a normal thread wakes in case 1, the callback thread works in
 * the barrier's) are held to 200 ms in the plain build only.
 * Every time the reader gets back exactly FIFO 10 after its unlock and
 * the updater keeps FIFO 80.  Contracts: rcb_synchronize_expedited()
 * inside a read-side section is refused with -EDEADLK; with boosting
 * off it is a plain grace period (0). */
#include "tests/boost/rt.h"
#include "rcuboost.h"

/* The hog's run: 0.5 s, well past the plain build's 200 ms bounds and
 * the 300 ms aging takes.  A sanitizer build holds the waits to no bound
 * but the hog's end, so it keeps 1 s: a normal thread's wake-up there
 * must not have to beat a shorter hog. */
#define HOG_S (RCB_TEST_SANITIZED ? 1.0 : 0.5)

static struct rt_hog hog;
static atomic_int in_cs, restored;
static _Atomic double resumed_at; /* the reader went on in its section */

/* One inversion: how long the wait took, when the reader went on after
 * the wait began (the reader and the booster are real-time: a figure a
 * loaded machine does not change), how long the hog still had to spin
 * when the wait ended. */
struct run {
	double ms, resumed_ms, hog_left_ms;
	/* the hog's time left when the reader went on */
	double resumed_left_ms;
};

static void *reader(void *arg)
{
	struct rt_attr after;

	(void)arg;
	rt_pin(0);
	CHECK(rt_set(0, SCHED_FIFO, 10, 0) == 0);
	CHECK(rcb_register_thread() == 0);
	rcb_read_lock();
	atomic_store(&in_cs, 1);
	rt_hog_fire(&hog); /* preempted here (see inversion_run.h) */
	atomic_store(&resumed_at, rt_now());
	rcb_read_unlock();
	CHECK(rt_get(0, &after) == 0);
	atomic_store(&restored, after.policy == SCHED_FIFO && after.prio == 10);
	CHECK(rcb_unregister_thread() == 0);
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	return NULL;
}

static void cb_free(struct rcb_head *h)
{
	free(h);
}

/* One inversion (struct run).  @expedited 2: time an rcb_barrier() after
 * an rcb_call() instead (the callback thread's grace period waits for the
 * reader). */
static struct run run(int hog_prio, int updater_prio, int expedited)
{
	struct rt_attr self;
	struct run res;
	pthread_t r;
	double t0, t1;

	atomic_store(&in_cs, 0);
	atomic_store(&restored, 0);
	if (updater_prio)
		CHECK(rt_set(0, SCHED_FIFO, updater_prio, 0) == 0);
	rt_hog_arm(&hog, 0, hog_prio, HOG_S);
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&hog.started) && !atomic_load(&hog.ended))
		usleep(100);
	CHECK(atomic_load(&in_cs) && atomic_load(&hog.started));
	usleep(5000);
	t0 = rt_now();
	if (expedited == 2) {
		struct rcb_head *h = malloc(sizeof(*h));

		CHECK(h && rcb_call(h, cb_free) == 0);
		CHECK(rcb_barrier() == 0);
	} else {
		CHECK((expedited ? rcb_synchronize_expedited() :
				   rcb_synchronize()) == 0);
	}
	t1 = rt_now();
	res.ms = (t1 - t0) * 1e3;
	res.hog_left_ms = (atomic_load(&hog.end_at) - t1) * 1e3;
	rt_hog_join(&hog);
	pthread_join(r, NULL);
	res.resumed_ms = (atomic_load(&resumed_at) - t0) * 1e3;
	res.resumed_left_ms =
		(atomic_load(&hog.end_at) - atomic_load(&resumed_at)) * 1e3;
	CHECK(atomic_load(&restored));
	CHECK(rt_get(0, &self) == 0);
	if (updater_prio) {
		CHECK(self.policy == SCHED_FIFO &&
		      (int)self.prio == updater_prio);
		CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	} else {
		CHECK(self.policy == SCHED_OTHER);
	}
	return res;
}

int main(void)
{
	struct rcb_config off = { .size = sizeof(off), .boost = -1,
				  .misuse = RCB_MISUSE_WARN };
	struct run e, i, ie, n, b;

	rt_require();
	rt_watchdog(60);
	rt_pin(1);

	/* Contracts first: misuse, and boosting off. */
	CHECK(rcb_init(&off) == 0);
	CHECK(rcb_synchronize_expedited() == 0);
	rcb_read_lock();
	CHECK(rcb_synchronize_expedited() == -EDEADLK);
	rcb_read_unlock();
	CHECK(rcb_shutdown() == 0);

	CHECK(setenv("RCUBOOST_MISUSE", "warn", 1) == 0);
	CHECK(unsetenv("RCUBOOST_INHERIT") == 0);
	/* A 100 ms booster period: aging alone would take 300 ms or more,
	 * so an expedited grace period under 200 ms skipped it. */
	CHECK(setenv("RCUBOOST_PERIOD_MS", "100", 1) == 0);
	CHECK(rcb_init(NULL) == 0);
	rcb_read_lock();
	CHECK(rcb_synchronize_expedited() == -EDEADLK);
	rcb_read_unlock();
	e = run(40, 0, 1);
	n = run(60, 80, 0);
	CHECK(rcb_shutdown() == 0);

	CHECK(unsetenv("RCUBOOST_PERIOD_MS") == 0);
	CHECK(setenv("RCUBOOST_INHERIT", "1", 1) == 0);
	CHECK(rcb_init(NULL) == 0);
	i = run(60, 80, 0);
	ie = run(60, 80, 1);
	b = run(60, 80, 2);
	CHECK(rcb_shutdown() == 0);

	printf("expedited, hog 40: %.2f ms (reader on at %.2f ms)\n"
	       "updater 80, hog 60: no inheritance %.2f ms, inheritance %.2f ms "
	       "(reader on at %.2f ms), inheritance + expedited %.2f ms (%.2f ms), "
	       "rcb_barrier() with inheritance %.2f ms (%.2f ms)\n",
	       e.ms, e.resumed_ms, n.ms, i.ms, i.resumed_ms, ie.ms,
	       ie.resumed_ms, b.ms, b.resumed_ms);
	/* Case 1: aging would lift the reader 300 ms or more after the
	 * wait began; the expedited wait did it at once (the waiter,
	 * the booster and the reader are all that run in between). */
	CHECK(e.resumed_ms < 200 && e.hog_left_ms > 0);
	/* Case 2: nothing but the loan lifts the reader above a FIFO 60
	 * hog; it went on, and the wait ended, while the hog spun. */
	CHECK(i.resumed_left_ms > 0 && i.hog_left_ms > 0);
	CHECK(ie.resumed_left_ms > 0 && ie.hog_left_ms > 0);
	CHECK(b.resumed_left_ms > 0 && b.hog_left_ms > 0);
	/* Case 3: without the loan the reader waited for the whole hog. */
	CHECK(n.resumed_left_ms <= 0 && n.hog_left_ms <= 0);
	/* How soon, in the plain build: the waiter is a normal thread in
	 * case 1, the callback thread runs the barrier's grace period. */
	CHECK_PLAIN(e.ms < 200 && i.ms < 200 && ie.ms < 200 && b.ms < 200);
	CHECK_PLAIN(i.resumed_ms < 200 && ie.resumed_ms < 200 &&
		    b.resumed_ms < 200);
	return 0;
}
