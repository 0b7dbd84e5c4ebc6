/* Boosting a QSBR reader: a SCHED_FIFO 10 thread, online in the qsbr
 * domain and preempted by a FIFO 40 hog on its CPU before its next
 * quiescent state, holds every qsbr grace period for the whole hog
 * without boosting; with boosting the grace period ends while the hog
 * still spins, and the thread gets exactly its own attributes back at
 * its quiescent state.  Every check compares the run with itself (the
 * hog's own end), never with a speed the machine must reach. */
#include "tests/boost/rt.h"
#include <stdbool.h>

#include "rcuboost/qsbr.h"

struct run {
	double gp_ms, hog_left_ms, resumed_ms, hog_ms;
	int restored, boosted_seen;
};

static struct rt_hog hog;
static atomic_int online, restored, boosted_seen;
static _Atomic double resumed_at;

static void *qsbr_reader(void *arg)
{
	struct rt_attr mid, after;

	(void)arg;
	rt_pin(0);
	CHECK(rt_set(0, SCHED_FIFO, 10, 0) == 0);
	CHECK(rcb_qsbr_register_thread() == 0);
	atomic_store(&online, 1);
	/* Online, no quiescent state: preempted right here. */
	rt_hog_fire(&hog);
	atomic_store(&resumed_at, rt_now());
	CHECK(rt_get(0, &mid) == 0);
	atomic_store(&boosted_seen, mid.policy != SCHED_FIFO || mid.prio != 10);
	rcb_qsbr_quiescent_state(); /* the unboost */
	CHECK(rt_get(0, &after) == 0);
	atomic_store(&restored, after.policy == SCHED_FIFO && after.prio == 10);
	CHECK(rcb_qsbr_unregister_thread() == 0);
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	return NULL;
}

static struct run run(int boost, double hog_s, bool expedited)
{
	struct rcb_config cfg = { .boost = boost };
	struct run res = { 0 };
	pthread_t r;
	double t0, t1;

	CHECK(rcb_init(&cfg) == 0);
	atomic_store(&online, 0);
	atomic_store(&restored, 0);
	atomic_store(&boosted_seen, 0);
	rt_hog_arm(&hog, 0, 40, hog_s);
	CHECK(pthread_create(&r, NULL, qsbr_reader, NULL) == 0);
	while (!atomic_load(&hog.started) && !atomic_load(&hog.ended))
		usleep(100);
	CHECK(atomic_load(&online) && atomic_load(&hog.started));
	usleep(5000);
	t0 = rt_now();
	CHECK((expedited ? rcb_qsbr_synchronize_expedited() :
			   rcb_qsbr_synchronize()) == 0);
	t1 = rt_now();
	res.gp_ms = (t1 - t0) * 1e3;
	res.hog_left_ms = (atomic_load(&hog.end_at) - t1) * 1e3;
	rt_hog_join(&hog);
	pthread_join(r, NULL);
	res.hog_ms = hog_s * 1e3;
	res.resumed_ms = (atomic_load(&resumed_at) -
			  atomic_load(&hog.start_at)) * 1e3;
	res.restored = atomic_load(&restored);
	res.boosted_seen = atomic_load(&boosted_seen);
	CHECK(rcb_shutdown() == 0);
	return res;
}

int main(void)
{
	struct rcb_boost_stats s = { .size = sizeof(s) };
	struct run off, on, exp;

	rt_require();
	rt_watchdog(60);
	rt_pin(1);
	off = run(-1, 0.5, false);
	on = run(1, 1.5, false);
	exp = run(1, 0.5, true);
	CHECK(rcb_boost_stats(&s) == 0);
	printf("qsbr thread preempted online by a FIFO 40 hog:\n"
	       "  unboosted, 0.5 s hog: grace period %.1f ms\n"
	       "  boosted,   1.5 s hog: grace period %.1f ms, thread on at "
	       "%.1f ms, %.1f ms of hog left\n"
	       "  expedited, 0.5 s hog: grace period %.1f ms, %.1f ms of hog "
	       "left\n"
	       "  boosts %llu, unboosts %llu, on-behalf queueings %llu\n",
	       off.gp_ms, on.gp_ms, on.resumed_ms, on.hog_left_ms, exp.gp_ms,
	       exp.hog_left_ms,
	       (unsigned long long)s.boost, (unsigned long long)s.unboosted,
	       (unsigned long long)s.preempt_enqueued);
	/* Unboosted: the grace period waited for the whole hog. */
	CHECK(off.resumed_ms >= off.hog_ms && off.hog_left_ms <= 0);
	CHECK(!off.boosted_seen);
	/* Boosted: the thread went on, and the grace period ended, while
	 * the hog still spun; it ran boosted, and its quiescent state gave
	 * it back exactly SCHED_FIFO 10. */
	CHECK(on.resumed_ms < on.hog_ms && on.hog_left_ms > 0);
	CHECK(on.boosted_seen);
	CHECK(s.boost >= 1 && s.unboosted >= 1 && s.preempt_enqueued >= 1);
	CHECK(off.restored && on.restored);
	/* Expedited: boosted at once, without the boost delay the plain
	 * boosted grace period waited (the same run's own figure). */
	CHECK(exp.hog_left_ms > 0 && exp.boosted_seen && exp.restored);
	CHECK(exp.gp_ms < on.gp_ms);
	return 0;
}
