/* Boosting a reader of liburcu's bp, mb and signal flavors, each a
 * domain of its own: a SCHED_FIFO 10 reader inside a section of the
 * flavor, preempted by a FIFO 40 hog on its CPU, is boosted so that the
 * flavor's grace period ends while the hog still spins, and gets exactly
 * its own attributes back at its outermost unlock.  Every check compares
 * the run with itself (the hog's own end), never with a speed the machine
 * must reach; test_qsbr_inversion and test_boost_inversion show the
 * unboosted side, the whole hog.  Then rcb_domain_create()'s per-domain
 * policy: a domain with boosting off waits for the whole hog while the
 * library boosts, one with a boost delay of its own is boosted no sooner
 * than that delay unless its callback backlog reaches its pressure
 * threshold, and one with a reader priority of its own boosts to exactly
 * that priority. */
#include "tests/boost/rt.h"
#include "rcuboost/urcu_bp.h"
#include "rcuboost/urcu_mb.h"
#include "rcuboost/urcu_signal.h"
#include "rcuboost/domain.h"

enum { BP, MB, SIG, NFLAV, CREATED = NFLAV };
static struct rcb_domain *created;
static const char *const flav_name[NFLAV] = { "bp", "mb", "signal" };

struct run {
	double gp_ms, hog_left_ms, resumed_ms, hog_ms;
	int restored, boosted_seen, mid_prio;
};

static struct rt_hog hog;
static atomic_int inside, restored, boosted_seen, flavor, mid_prio;
/* The hog's priority; callbacks queued on the created domain just
 * before its grace period. */
static int hog_prio = 40, queue_before;
static struct rcb_head heads[256];

static void noop(struct rcb_head *h)
{
	(void)h;
}
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
	else if (f == SIG)
		urcu_signal_read_lock();
	else
		rcb_domain_read_lock(created);
	atomic_store(&inside, 1);
	/* Inside the section: preempted right here. */
	rt_hog_fire(&hog);
	atomic_store(&resumed_at, rt_now());
	CHECK(rt_get(0, &mid) == 0);
	atomic_store(&boosted_seen, mid.policy != SCHED_FIFO || mid.prio != 10);
	atomic_store(&mid_prio, mid.policy == SCHED_FIFO ? (int)mid.prio : -1);
	if (f == BP) /* the unboost */
		urcu_bp_read_unlock();
	else if (f == MB)
		urcu_mb_read_unlock();
	else if (f == SIG)
		urcu_signal_read_unlock();
	else
		rcb_domain_read_unlock(created);
	CHECK(rt_get(0, &after) == 0);
	atomic_store(&restored, after.policy == SCHED_FIFO && after.prio == 10);
	if (f == CREATED) /* else the domain cannot be destroyed */
		CHECK(rcb_domain_unregister_thread(created) == 0);
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
	rt_hog_arm(&hog, 0, hog_prio, hog_s);
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&hog.started) && !atomic_load(&hog.ended))
		usleep(100);
	CHECK(atomic_load(&inside) && atomic_load(&hog.started));
	usleep(5000);
	t0 = rt_now();
	for (int i = 0; i < queue_before; i++)
		CHECK(rcb_domain_call(created, &heads[i], noop) == 0);
	if (f == BP)
		urcu_bp_synchronize_rcu();
	else if (f == MB)
		urcu_mb_synchronize_rcu();
	else if (f == SIG)
		urcu_signal_synchronize_rcu();
	else
		CHECK(rcb_domain_synchronize(created) == 0);
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
	res.mid_prio = atomic_load(&mid_prio);
	CHECK(rcb_shutdown() == 0);
	return res;
}

int main(void)
{
	rt_require();
	rt_watchdog(60);
	rt_pin(1);
	for (int f = 0; f < NFLAV; f++) {
		struct run on = run(f, 0.4);

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
	{
		/* Boosting off in this domain, on in the library. */
		struct rcb_domain_attr off = { .boost = -1 };
		struct run r;

		CHECK(rcb_domain_create(&created, &off) == 0);
		r = run(CREATED, 0.3);
		printf("domain with boosting off, hog of %.0f ms: grace period "
		       "%.1f ms, boosted %s\n",
		       r.hog_ms, r.gp_ms, r.boosted_seen ? "yes" : "no");
		CHECK(r.resumed_ms >= r.hog_ms && r.hog_left_ms <= 0);
		CHECK(!r.boosted_seen && r.restored);
		CHECK(rcb_domain_destroy(created) == 0);
	}
	{
		/* A boost delay of its own, longer than the library's. */
		struct rcb_domain_attr late = { .boost = 1,
						.boost_delay_ms = 250 };
		struct run r;

		CHECK(rcb_domain_create(&created, &late) == 0);
		r = run(CREATED, 0.6);
		printf("domain with a 250 ms boost delay, hog of %.0f ms: grace "
		       "period %.1f ms, %.1f ms of hog left, boosted %s\n",
		       r.hog_ms, r.gp_ms, r.hog_left_ms,
		       r.boosted_seen ? "yes" : "no");
		CHECK(r.gp_ms >= 250 && r.hog_left_ms > 0);
		CHECK(r.boosted_seen && r.restored);
		CHECK(rcb_domain_destroy(created) == 0);
	}
	{
		/* A boost delay longer than the hog, but a callback backlog
		 * over the domain's pressure threshold: boosted at once. */
		struct rcb_domain_attr pressed = { .boost = 1,
						   .boost_delay_ms = 1000,
						   .pressure_callbacks = 100 };
		struct run r;

		CHECK(rcb_domain_create(&created, &pressed) == 0);
		queue_before = 150;
		r = run(CREATED, 0.6);
		queue_before = 0;
		printf("domain with a 1000 ms boost delay and 150 callbacks "
		       "over a threshold of 100, hog of %.0f ms: grace period "
		       "%.1f ms, %.1f ms of hog left, boosted %s\n",
		       r.hog_ms, r.gp_ms, r.hog_left_ms,
		       r.boosted_seen ? "yes" : "no");
		CHECK(r.hog_left_ms > 0 && r.boosted_seen && r.restored);
		CHECK(rcb_domain_barrier(created) == 0);
		CHECK(rcb_domain_destroy(created) == 0);
	}
	{
		/* A reader priority of its own, below the library's level
		 * (one below the booster's): boosted to exactly it, which
		 * still beats a FIFO 15 hog. */
		struct rcb_domain_attr low = { .boost = 1, .reader_prio = 20 };
		struct run r;

		CHECK(rcb_domain_create(&created, &low) == 0);
		hog_prio = 15;
		r = run(CREATED, 0.6);
		hog_prio = 40;
		printf("domain with reader priority 20, FIFO 15 hog of %.0f ms: "
		       "grace period %.1f ms, %.1f ms of hog left, boosted to "
		       "FIFO %d\n",
		       r.hog_ms, r.gp_ms, r.hog_left_ms, r.mid_prio);
		CHECK(r.hog_left_ms > 0 && r.mid_prio == 20 && r.restored);
		CHECK(rcb_domain_destroy(created) == 0);
	}
	return 0;
}
