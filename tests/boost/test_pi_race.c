/* Races of the pi backend: boosts against outermost unlocks, thread
 * exits and escalation.  Waves of short-lived threads (half SCHED_OTHER,
 * half SCHED_FIFO 5) run short critical sections that block
 * (rcb_note_block, then a 0-3 ms sleep) while an updater keeps grace
 * periods waiting, with a 1 ms booster period and two elements, so
 * helpers lock slots while their readers unlock and exit.  After every
 * outermost unlock the thread's effective kernel priority (/proc stat)
 * must be its own again, and its attributes unchanged; nothing may
 * hang (watchdog); the counters must agree. */
#include "tests/boost/pi.h"
#include "rcuboost.h"

#define WAVES 12
#define THREADS 6
#define ITERS 60

static atomic_int stop_updater;
static atomic_long residual, sections;

static void *worker(void *arg)
{
	long id = (long)arg;
	int fifo = id & 1;
	unsigned int seed = (unsigned int)id * 7919u + 1;
	struct rt_attr orig, cur;
	int want = fifo ? pi_prio_of_rt(5) : 20;

	if (fifo)
		CHECK(rt_set(0, SCHED_FIFO, 5, 0) == 0);
	CHECK(rt_get(0, &orig) == 0);
	CHECK(rcb_register_thread() == 0);
	for (int i = 0; i < ITERS; i++) {
		struct timespec ts = { 0,
				       (long)(rand_r(&seed) % 3000) * 1000L };

		if ((rand_r(&seed) & 15) == 0)
			ts.tv_nsec = 12000000; /* long enough to escalate */

		rcb_read_lock();
		if (rand_r(&seed) & 1)
			/* nested: only the outermost unboosts */
			rcb_read_lock();
		rcb_note_block();
		nanosleep(&ts, NULL);
		if (rcb_read_ongoing() && (rand_r(&seed) & 3) == 0)
			rcb_read_unlock();
		while (rcb_read_ongoing())
			rcb_read_unlock();
		atomic_fetch_add(&sections, 1);
		if (pi_kernel_prio(gettid()) != want) {
			fprintf(stderr, "thread %d still boosted after its unlock: prio %d\n",
				(int)gettid(), pi_kernel_prio(gettid()));
			atomic_fetch_add(&residual, 1);
		}
		CHECK(rt_get(0, &cur) == 0 && rt_same(&cur, &orig));
	}
	/* Exit right after a possibly boosted section (no unregister:
	 * the exit path cleans up). */
	rcb_read_lock();
	rcb_note_block();
	usleep(2000);
	rcb_read_unlock();
	return NULL;
}

static void *updater(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_updater))
		CHECK(rcb_synchronize() == 0);
	return NULL;
}

int main(void)
{
	struct rcb_config cfg = { .boost = 1,
				  .boost_backend = RCB_BACKEND_PI,
				  .boost_period_ms = 1,
				  .boost_elements = 2,
				  .escalate_periods = 2,
				  .boost_reader_prio = 20,
				  .pi_helpers = 2 };
	struct rcb_boost_stats s = { .size = sizeof(s) };
	pthread_t u, t[THREADS];
	char buf[1024];

	rt_require();
	rt_watchdog(100);
	CHECK(rcb_init(&cfg) == 0);
	CHECK(pthread_create(&u, NULL, updater, NULL) == 0);
	for (int w = 0; w < WAVES; w++) {
		for (long i = 0; i < THREADS; i++)
			CHECK(pthread_create(&t[i], NULL, worker,
					     (void *)(w * THREADS + i)) == 0);
		for (int i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
	}
	atomic_store(&stop_updater, 1);
	pthread_join(u, NULL);
	CHECK(rcb_boost_stats(&s) == 0);
	rcb_boost_stats_format(&s, buf, sizeof(buf), 0);
	printf("%ld sections: pi_boosts %ld pi_handoffs %ld pi_syscalls %ld "
	       "escalations %ld boost %ld unboosted %ld, still boosted after unlock: %ld\n%s",
	       atomic_load(&sections), s.pi_boosts, s.pi_handoffs,
	       s.pi_syscalls, s.escalations, s.boost, s.unboosted,
	       atomic_load(&residual), buf);
	CHECK(atomic_load(&residual) == 0);
	CHECK(s.pi_boosts >= 10);
	CHECK(s.pi_handoffs <= s.pi_boosts);
	CHECK(s.pi_syscalls >= s.pi_boosts);
	CHECK(s.sched_syscalls == 0);
	CHECK(s.escalations >= 1);
	/* Shutdown joins the helpers: none may be stuck on a slot. */
	CHECK(rcb_shutdown() == 0);
	CHECK(s.blocked >= s.unlock);
	return 0;
}
