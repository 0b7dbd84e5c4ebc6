/* Proves the voluntary-blocking path: a SCHED_OTHER reader that blocks
 * inside a critical section through each rcb_* wrapper is boosted while
 * blocked (seen from outside as SCHED_FIFO at booster priority - 1) and
 * back to SCHED_OTHER after its unlock; a short block is never boosted. */
#define _GNU_SOURCE
#include <poll.h>

#include "tests/boost/rt.h"
#include "rcuboost.h"

enum how { SLEEP, MUTEX, COND, POLL, FUTEX, SHORT };
static const char *const names[] = { "rcb_nanosleep", "rcb_mutex_lock",
				      "rcb_condvar_wait", "rcb_fd_poll",
				      "rcb_futex_wait", "short sleep" };

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static atomic_int tid, in_cs, done, wake;
static uint32_t futex_word;
static enum how how;

static void *reader(void *arg)
{
	struct timespec ts = { 0, 200 * 1000000L }, brief = { 0, 5 * 1000000L };
	struct rt_attr a;

	(void)arg;
	atomic_store(&tid, (int)gettid());
	rcb_read_lock();
	atomic_store(&in_cs, 1);
	switch (how) {
	case SLEEP:
		rcb_nanosleep(&ts, NULL);
		break;
	case MUTEX:
		CHECK(rcb_mutex_lock(&mtx) == 0);
		pthread_mutex_unlock(&mtx);
		break;
	case COND:
		pthread_mutex_lock(&mtx);
		while (!atomic_load(&wake))
			rcb_condvar_wait(&cond, &mtx);
		pthread_mutex_unlock(&mtx);
		break;
	case POLL:
		rcb_fd_poll(NULL, 0, 200);
		break;
	case FUTEX:
		rcb_futex_wait(&futex_word, 0, &ts);
		break;
	case SHORT:
		for (int i = 0; i < 20; i++)
			rcb_nanosleep(&brief, NULL), rcb_read_unlock(),
				rcb_read_lock();
		break;
	}
	rcb_read_unlock();
	CHECK(rt_get(0, &a) == 0);
	CHECK(a.policy == SCHED_OTHER);
	atomic_store(&done, 1);
	return NULL;
}

int main(void)
{
	struct rcb_config cfg = { .boost = 1, .boost_prio = 30 };

	rt_require();
	rt_watchdog(60);
	CHECK(rcb_init(&cfg) == 0);
	for (how = SLEEP; how <= SHORT; how++) {
		pthread_t r;
		int boosted = 0;
		double t0;

		atomic_store(&in_cs, 0);
		atomic_store(&done, 0);
		atomic_store(&wake, 0);
		if (how == MUTEX)
			pthread_mutex_lock(&mtx);
		CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
		while (!atomic_load(&in_cs))
			usleep(100);
		t0 = rt_now();
		while (!atomic_load(&done) && rt_now() - t0 < 10) {
			struct rt_attr a;

			if (rt_get(atomic_load(&tid), &a) == 0 &&
			    a.policy == SCHED_FIFO && a.prio == 29)
				boosted = 1;
			if (rt_now() - t0 > 0.2 && !atomic_load(&wake)) {
				if (how == MUTEX)
					pthread_mutex_unlock(&mtx);
				pthread_mutex_lock(&mtx);
				atomic_store(&wake, 1);
				pthread_cond_signal(&cond);
				pthread_mutex_unlock(&mtx);
			}
			usleep(1000);
		}
		pthread_join(r, NULL);
		printf("%-16s boosted while blocked: %s\n", names[how],
		       boosted ? "yes" : "no");
		CHECK(boosted == (how != SHORT));
	}
	CHECK(rcb_shutdown() == 0);
	return 0;
}
