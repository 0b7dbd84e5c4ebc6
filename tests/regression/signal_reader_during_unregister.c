/* Bug: rcb_unregister_thread() unlinked the thread from the registry and only
 * then cleared its fast-path bit, so a signal handler's read-side section in
 * between took the fast path on a thread no grace period scans: a grace period
 * ended, and its object was freed, under the handler's section. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define RUN_NS (4ull * 1000 * 1000 * 1000)
#define BOUND_NS (10ull * 1000 * 1000 * 1000)
#define LIVE 1
#define DEAD 2

struct obj {
	_Atomic int state;
	struct obj *older; /* kept, poisoned, until the end: no reuse */
};

static struct obj *published;
static atomic_uint handled, bad;
static atomic_int stop;
static atomic_uint finished;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull +
	       (unsigned long long)ts.tv_nsec;
}

/* A section long enough (about 100 us) for grace periods to complete
 * inside it if they do not wait for it. */
static void on_signal(int sig)
{
	struct obj *p;

	(void)sig;
	rcb_read_lock();
	p = rcb_dereference(published);
	for (int i = 0; i < 50000; i++)
		if (atomic_load_explicit(&p->state, memory_order_relaxed) !=
		    LIVE) {
			atomic_fetch_add(&bad, 1);
			break;
		}
	rcb_read_unlock();
	atomic_fetch_add(&handled, 1);
}

/* Leaves and rejoins the registry as fast as it can. */
static void *churn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		CHECK(rcb_register_thread() == 0);
		CHECK(rcb_unregister_thread() == 0);
	}
	atomic_fetch_add(&finished, 1);
	return NULL;
}

/* Replaces the object, waits for a grace period, poisons the old one. */
static void *updater(void *arg)
{
	struct obj *old = NULL;

	(void)arg;
	while (!atomic_load(&stop)) {
		struct obj *n = calloc(1, sizeof(*n));

		CHECK(n);
		atomic_store(&n->state, LIVE);
		old = rcb_xchg_pointer(&published, n);
		n->older = old; /* readers never look at it */
		CHECK(rcb_synchronize() == 0);
		atomic_store_explicit(&old->state, DEAD, memory_order_relaxed);
	}
	atomic_fetch_add(&finished, 1);
	return NULL;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long long start, t0;
	unsigned int round = 0;
	pthread_t c, u;
	struct obj *o;

	CHECK(rcb_init(NULL) == 0);
	o = calloc(1, sizeof(*o));
	CHECK(o);
	atomic_store(&o->state, LIVE);
	published = o;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	CHECK(pthread_create(&c, NULL, churn, NULL) == 0);
	CHECK(pthread_create(&u, NULL, updater, NULL) == 0);
	start = now_ns();
	while (now_ns() - start < RUN_NS && !atomic_load(&bad)) {
		CHECK(pthread_kill(c, SIGUSR1) == 0);
		/* Sleep, not yield: leave both CPUs to the two threads. */
		for (t0 = now_ns(); atomic_load(&handled) == round; usleep(20))
			if (now_ns() - t0 > BOUND_NS) {
				fprintf(stderr, "FAIL: the handler did not return in 10 s (round %u)\n", round);
				_exit(1);
			}
		round++;
	}
	atomic_store(&stop, 1);
	for (t0 = now_ns(); atomic_load(&finished) < 2; sched_yield())
		if (now_ns() - t0 > BOUND_NS) {
			fprintf(stderr, "FAIL: the threads did not stop in 10 s\n");
			_exit(1);
		}
	CHECK(pthread_join(c, NULL) == 0);
	CHECK(pthread_join(u, NULL) == 0);
	if (atomic_load(&bad)) {
		fprintf(stderr, "FAIL: %u handler sections saw their object poisoned by a grace period that ended under them (%u signals)\n",
			atomic_load(&bad), round);
		return 1;
	}
	printf("ok: %u signals, no grace period ended under a handler's section\n", round);
	for (o = rcb_xchg_pointer(&published, NULL); o;) {
		struct obj *older = o->older;

		free(o);
		o = older;
	}
	return 0;
}
