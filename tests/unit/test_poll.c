/* Unit test: polled grace periods (src/callback/gp_poll.c): each contract of
 * rcb_get_state(), rcb_start_poll(), rcb_poll_state() and
 * rcb_cond_synchronize(), forged cookies, a cold rcb_start_poll() that
 * completes the grace period itself and one racing with readers, a
 * pre-existing reader holding a cookie back, liburcu 0.14's names, and
 * calls from a SCHED_FIFO thread (time-bounded, pinned to CPU 0). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include <rcuboost.h>
#include <rcuboost/urcu_poll.h>

#include "tests/check.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

/* Poll @cookie until it elapses, at most 10 s. */
static int wait_elapsed(uint64_t cookie)
{
	for (int i = 0; i < 100000; i++) {
		int r = rcb_poll_state(cookie);

		if (r)
			return r;
		sleep_us(100);
	}
	return 0;
}

static void case_get_state(void)
{
	uint64_t c = rcb_get_state(), d;

	CHECK(c != 0);
	CHECK_EQ(rcb_poll_state(0), 1);
	/* No grace period started by get_state: nobody else runs one in
	 * this process now. */
	sleep_us(20000);
	CHECK_EQ(rcb_poll_state(c), 0);
	d = rcb_get_state();
	CHECK(d >= c);
	CHECK_EQ(rcb_synchronize(), 0);
	CHECK_EQ(rcb_poll_state(c), 1);
	CHECK_EQ(rcb_poll_state(d), 1);
	/* Cookies only grow, never wrap within a run. */
	CHECK(rcb_get_state() > c);
}

static void case_forged(void)
{
	uint64_t c = rcb_get_state();
	struct rcb_gp_stats st;
	unsigned long long misuse;
	uint64_t t0;

	rcb_stats(&st);
	misuse = st.misuse;
	CHECK_EQ(rcb_poll_state(c + 1), -EINVAL);
	CHECK_EQ(rcb_poll_state(UINT64_MAX), -EINVAL);
	t0 = now_ns();
	CHECK_EQ(rcb_cond_synchronize(c + 100), -EINVAL);
	CHECK(now_ns() - t0 < 1000000000u);
	/* Each reported as misuse (the messages name the cookie). */
	rcb_stats(&st);
	CHECK_EQ(st.misuse, misuse + 3);
	/* A valid one still works. */
	CHECK_EQ(rcb_cond_synchronize(c), 0);
	CHECK_EQ(rcb_poll_state(c), 1);
}

static void case_start_poll(void)
{
	/* No other updater: rcb_start_poll() or the callback thread must
	 * run the grace period on its own. */
	uint64_t c = rcb_start_poll();

	CHECK_EQ(wait_elapsed(c), 1);
	/* Many requests in a row: one grace period suffices for all. */
	for (int i = 0; i < 1000; i++)
		c = rcb_start_poll();
	CHECK_EQ(wait_elapsed(c), 1);
}

/* A registered thread that stays outside any section until told. */
static atomic_int idle_go;

static void *idle_reader(void *arg)
{
	(void)arg;
	CHECK_EQ(rcb_register_thread(), 0);
	rcb_read_lock(); /* one section: the thread is known to be a reader */
	rcb_read_unlock();
	atomic_store(&idle_go, 1);
	while (atomic_load(&idle_go) != 2)
		sleep_us(1000);
	CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

/* A cold rcb_start_poll() with no other thread inside a section and no
 * grace period running runs the grace period itself (gp.c invariant
 * 8): its cookie has elapsed when it returns.  Without another
 * registered thread, then with an idle one (the membarrier path). */
static void case_start_poll_inline(void)
{
	pthread_t t;
	uint64_t c;

	for (int round = 0; round < 2; round++) {
		if (round == 1) {
			CHECK_EQ(pthread_create(&t, NULL, idle_reader, NULL),
				 0);
			while (atomic_load(&idle_go) != 1)
				sleep_us(1000);
		}
		for (int i = 0; i < 10; i++) {
			/* Quiet: earlier requests done, the callback
			 * thread's grace period over. */
			CHECK_EQ(wait_elapsed(rcb_get_state() - 1), 1);
			sleep_us(5000);
			c = rcb_start_poll();
			CHECK_EQ(rcb_poll_state(c), 1);
		}
	}
	atomic_store(&idle_go, 2);
	CHECK_EQ(pthread_join(t, NULL), 0);
}

/* Readers entering and leaving long sections while cold calls race
 * with them: an attempt that finds one inside after numbering its grace
 * period leaves it to the callback thread, and every cookie elapses. */
static atomic_int churn_stop;

static void *churn_reader(void *arg)
{
	(void)arg;
	CHECK_EQ(rcb_register_thread(), 0);
	while (!atomic_load(&churn_stop)) {
		uint64_t t0 = now_ns();

		rcb_read_lock();
		while (now_ns() - t0 < 20000)
			;
		rcb_read_unlock();
		t0 = now_ns();
		while (now_ns() - t0 < 20000)
			;
	}
	CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

static void case_start_poll_churn(void)
{
	pthread_t t;
	uint64_t end = now_ns() + 300000000u;
	int n = 0, now = 0;

	CHECK_EQ(pthread_create(&t, NULL, churn_reader, NULL), 0);
	while (now_ns() < end) {
		uint64_t c = rcb_start_poll();

		now += rcb_poll_state(c) == 1;
		CHECK_EQ(wait_elapsed(c), 1);
		n++;
	}
	atomic_store(&churn_stop, 1);
	CHECK_EQ(pthread_join(t, NULL), 0);
	printf("churn: %d cookies elapsed, %d of them at once\n", n, now);
	CHECK(n > 0);
}

static void case_cond_synchronize(void)
{
	struct rcb_gp_stats a, b;
	uint64_t c = rcb_get_state();

	CHECK_EQ(rcb_synchronize(), 0);
	rcb_stats(&a);
	CHECK_EQ(rcb_cond_synchronize(c), 0); /* elapsed: no grace period */
	rcb_stats(&b);
	CHECK_EQ(b.grace_periods, a.grace_periods);
	c = rcb_get_state();
	CHECK_EQ(rcb_cond_synchronize(c), 0); /* not elapsed: waits */
	CHECK_EQ(rcb_poll_state(c), 1);
	rcb_read_lock();
	CHECK_EQ(rcb_cond_synchronize(0), -EDEADLK);
	/* The rest is allowed inside a critical section. */
	c = rcb_start_poll();
	CHECK(rcb_poll_state(c) == 0 || rcb_poll_state(c) == 1);
	rcb_read_unlock();
	CHECK_EQ(wait_elapsed(c), 1);
}

/* A reader inside its critical section when the cookie is taken holds
 * the cookie back until it leaves. */
static atomic_int reader_in, reader_go;

static void *reader(void *arg)
{
	(void)arg;
	rcb_read_lock();
	atomic_store(&reader_in, 1);
	while (!atomic_load(&reader_go))
		sleep_us(1000);
	rcb_read_unlock();
	return NULL;
}

static void case_reader_holds(void)
{
	pthread_t t;
	uint64_t c;

	CHECK_EQ(pthread_create(&t, NULL, reader, NULL), 0);
	while (!atomic_load(&reader_in))
		sleep_us(1000);
	c = rcb_start_poll();
	sleep_us(50000);
	CHECK_EQ(rcb_poll_state(c), 0);
	atomic_store(&reader_go, 1);
	CHECK_EQ(wait_elapsed(c), 1);
	CHECK_EQ(pthread_join(t, NULL), 0);
}

static void case_urcu_names(void)
{
	struct urcu_gp_poll_state s = urcu_memb_start_poll_synchronize_rcu();

	for (int i = 0; i < 100000 && !urcu_memb_poll_state_synchronize_rcu(s);
	     i++)
		sleep_us(100);
	CHECK(urcu_memb_poll_state_synchronize_rcu(s));
	s.grace_period_id += 1000;
	CHECK(!urcu_memb_poll_state_synchronize_rcu(s));
}

/* Concurrent pollers and updaters (TSan checks the edges). */
static atomic_int stop;

static void *poller(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		uint64_t c = (n++ % 2) ? rcb_start_poll() : rcb_get_state();

		CHECK(rcb_poll_state(c) >= 0);
	}
	return NULL;
}

static void case_concurrent(void)
{
	pthread_t t[2];
	uint64_t end = now_ns() + 300000000u, c = 0;

	atomic_store(&stop, 0);
	for (int i = 0; i < 2; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, poller, NULL), 0);
	while (now_ns() < end) {
		c = rcb_start_poll();
		CHECK_EQ(rcb_cond_synchronize(c), 0);
		CHECK_EQ(rcb_poll_state(c), 1);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		CHECK_EQ(pthread_join(t[i], NULL), 0);
}

/* From a SCHED_FIFO thread pinned to CPU 0: every call returns, the
 * cookies elapse.  Bounded: it stops by itself after 1 s at most and
 * sleeps between polls, so it never hogs the CPU. */
struct rt_res {
	int elapsed;
	uint64_t worst_start_ns, worst_poll_ns;
};

static void *rt_thread(void *arg)
{
	struct rt_res *r = arg;
	uint64_t end = now_ns() + 1000000000u;

	while (now_ns() < end && r->elapsed < 20) {
		uint64_t t0 = now_ns(), c = rcb_start_poll(), t1 = now_ns();
		int p;

		if (t1 - t0 > r->worst_start_ns)
			r->worst_start_ns = t1 - t0;
		do {
			sleep_us(200);
			t0 = now_ns();
			p = rcb_poll_state(c);
			t1 = now_ns();
			if (t1 - t0 > r->worst_poll_ns)
				r->worst_poll_ns = t1 - t0;
		} while (!p && now_ns() < end);
		r->elapsed += p == 1;
	}
	return NULL;
}

static void case_rt(void)
{
	struct rt_res r = { 0, 0, 0 };
	struct sched_param sp = { .sched_priority = 10 };
	pthread_attr_t a;
	cpu_set_t set;
	pthread_t t;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CHECK_EQ(pthread_attr_init(&a), 0);
	CHECK_EQ(pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED), 0);
	CHECK_EQ(pthread_attr_setschedpolicy(&a, SCHED_FIFO), 0);
	CHECK_EQ(pthread_attr_setschedparam(&a, &sp), 0);
	CHECK_EQ(pthread_attr_setaffinity_np(&a, sizeof(set), &set), 0);
	if (pthread_create(&t, &a, rt_thread, &r) != 0) {
		printf("SCHED_FIFO refused: real-time case skipped\n");
		pthread_attr_destroy(&a);
		return;
	}
	pthread_attr_destroy(&a);
	CHECK_EQ(pthread_join(t, NULL), 0);
	printf("rt: %d cookies elapsed, worst start_poll %llu ns, worst poll_state %llu ns\n",
	       r.elapsed, (unsigned long long)r.worst_start_ns,
	       (unsigned long long)r.worst_poll_ns);
	CHECK(r.elapsed >= 1);
	/* Generous bounds: "never blocks" means no wait for a grace
	 * period (milliseconds here), not a latency figure.  Plain build
	 * only: a sanitizer's runtime takes locks of its own (allocator,
	 * thread registry) that a normal thread may hold preempted. */
	CHECK_PLAIN(r.worst_poll_ns < 50000000u);
	CHECK_PLAIN(r.worst_start_ns < 50000000u);
}

int main(void)
{
	CHECK_EQ(rcb_init(NULL), 0);
	case_get_state();
	case_forged();
	case_start_poll();
	case_start_poll_inline();
	case_start_poll_churn();
	case_cond_synchronize();
	case_reader_holds();
	case_urcu_names();
	case_concurrent();
	case_rt();
	printf("ok\n");
	return 0;
}
