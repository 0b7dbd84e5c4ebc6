/* Boosting a reader of liburcu's bp, mb and signal flavors, each a
 * domain of its own: a SCHED_FIFO 10 reader inside a section of the
 * flavor, preempted by a FIFO 40 hog on its CPU, is boosted so that the
 * flavor's grace period ends while the hog still spins, and gets exactly
 * its own attributes back at its outermost unlock.  Every check compares
 * the run with itself (the hog's own end), never with a speed the machine
 * must reach; test_qsbr_inversion and test_boost_inversion show the
 * unboosted side, the whole hog. */
#include "tests/boost/rt.h"
#include "rcuboost/urcu_bp.h"
#include "rcuboost/urcu_mb.h"
#include "rcuboost/urcu_signal.h"

enum { BP, MB, SIG, NFLAV };
static const char *const flav_name[NFLAV] = { "bp", "mb", "signal" };

struct run {
	double gp_ms, hog_left_ms, resumed_ms, hog_ms;
	int restored, boosted_seen;
};

static struct rt_hog hog;
static atomic_int inside, restored, boosted_seen, flavor;
static _Atomic double resumed_at;

static void *reader(void *arg)
{
	struct rt_attr mid, after;
	int f = atomic_load(&flavor);

	(void)arg;
	rt_pin(0);
	CHECK(rt_set(0, SCHED_FIFO, 10, 0) == 0);
	if (f == BP)
		urcu_bp_read_lock(); /* registers the thread */
	else if (f == MB)
		urcu_mb_read_lock();
	else
		urcu_signal_read_lock();
	atomic_store(&inside, 1);
	/* Inside the section: preempted right here. */
	rt_hog_fire(&hog);
	atomic_store(&resumed_at, rt_now());
	CHECK(rt_get(0, &mid) == 0);
	atomic_store(&boosted_seen, mid.policy != SCHED_FIFO || mid.prio != 10);
	if (f == BP) /* the unboost */
		urcu_bp_read_unlock();
	else if (f == MB)
		urcu_mb_read_unlock();
	else
		urcu_signal_read_unlock();
	CHECK(rt_get(0, &after) == 0);
	atomic_store(&restored, after.policy == SCHED_FIFO && after.prio == 10);
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	return NULL;
}

static struct run run(int f, double hog_s)
{
	struct rcb_config cfg = { .boost = 1 };
	struct run res = { 0 };
	pthread_t r;
	double t0, t1;

	CHECK(rcb_init(&cfg) == 0);
	atomic_store(&flavor, f);
	atomic_store(&inside, 0);
	atomic_store(&restored, 0);
	atomic_store(&boosted_seen, 0);
	rt_hog_arm(&hog, 0, 40, hog_s);
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&hog.started) && !atomic_load(&hog.ended))
		usleep(100);
	CHECK(atomic_load(&inside) && atomic_load(&hog.started));
	usleep(5000);
	t0 = rt_now();
	if (f == BP)
		urcu_bp_synchronize_rcu();
	else if (f == MB)
		urcu_mb_synchronize_rcu();
	else
		urcu_signal_synchronize_rcu();
	t1 = rt_now();
	res.gp_ms = (t1 - t0) * 1e3;
	res.hog_left_ms = (atomic_load(&hog.end_at) - t1) * 1e3;
	rt_hog_join(&hog);
	pthread_join(r, NULL);
	res.hog_ms = hog_s * 1e3;
	res.resumed_ms =
		(atomic_load(&resumed_at) - atomic_load(&hog.start_at)) * 1e3;
	res.restored = atomic_load(&restored);
	res.boosted_seen = atomic_load(&boosted_seen);
	CHECK(rcb_shutdown() == 0);
	return res;
}

int main(void)
{
	rt_require();
	rt_watchdog(60);
	rt_pin(1);
	for (int f = 0; f < NFLAV; f++) {
		struct run on = run(f, 0.6);

		printf("%s reader preempted in its section by a FIFO 40 hog of "
		       "%.0f ms: grace period %.1f ms, reader on at %.1f ms, "
		       "%.1f ms of hog left, boosted %s, restored %s\n",
		       flav_name[f], on.hog_ms, on.gp_ms, on.resumed_ms,
		       on.hog_left_ms, on.boosted_seen ? "yes" : "no",
		       on.restored ? "yes" : "no");
		/* The reader went on, and the grace period ended, while
		 * the hog still spun; it ran boosted, and its unlock gave
		 * it back exactly SCHED_FIFO 10. */
		CHECK(on.resumed_ms < on.hog_ms && on.hog_left_ms > 0);
		CHECK(on.boosted_seen);
		CHECK(on.restored);
	}
	return 0;
}
