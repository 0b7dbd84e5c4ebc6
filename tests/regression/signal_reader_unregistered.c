/* Bug: rcb_read_lock() in a signal handler on a thread that never registered
 * registered it, taking the registry lock that the code it interrupted
 * (rcb_synchronize()'s scan, rcb_stats(), registration) already held on the
 * same thread: the thread deadlocked, in under 300 signals. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define ROUNDS 3000
#define HANDLER_BOUND_NS (10ull * 1000 * 1000 * 1000)

static int value = 42;
static int *published = &value;
static atomic_uint handled, bad;
static atomic_int stop, started;
static atomic_uint finished;

static void on_signal(int sig)
{
	(void)sig;
	rcb_read_lock();
	if (*rcb_dereference(published) != 42)
		atomic_fetch_add(&bad, 1);
	rcb_read_lock();
	rcb_read_unlock();
	rcb_read_unlock();
	atomic_fetch_add(&handled, 1);
}

/* Never registers itself; every call below takes the registry lock. */
static void *updater(void *arg)
{
	struct rcb_gp_stats st;

	(void)arg;
	atomic_store(&started, 1);
	while (!atomic_load(&stop)) {
		CHECK(rcb_synchronize() == 0);
		rcb_stats(&st);
		/* The handler may have registered us: start unregistered. */
		rcb_unregister_thread();
		CHECK(rcb_register_thread() == 0);
		CHECK(rcb_unregister_thread() == 0);
	}
	atomic_store(&finished, 1);
	return NULL;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull +
	       (unsigned long long)ts.tv_nsec;
}

/* Wait for *flag != old for at most HANDLER_BOUND_NS, else fail without
 * the library's teardown (the updater may hold the registry lock). */
static void wait_change(atomic_uint *flag, unsigned int old, const char *what,
			unsigned int round)
{
	unsigned long long t0 = now_ns();

	while (atomic_load(flag) == old) {
		if (now_ns() - t0 > HANDLER_BOUND_NS) {
			fprintf(stderr, "FAIL: %s (round %u): no progress in 10 s (deadlock, or a registry list corrupted by a registration from a handler)\n",
				what, round);
			_exit(1);
		}
		sched_yield();
	}
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	pthread_t t;

	/* The handler's read side is async-signal-safe once initialised. */
	CHECK(rcb_init(NULL) == 0);
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	CHECK(pthread_create(&t, NULL, updater, NULL) == 0);
	while (!atomic_load(&started))
		sched_yield();
	for (unsigned int round = 0; round < ROUNDS; round++) {
		CHECK(pthread_kill(t, SIGUSR1) == 0);
		wait_change(&handled, round, "signal handler", round);
	}
	atomic_store(&stop, 1);
	wait_change(&finished, 0, "updater loop", ROUNDS);
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(atomic_load(&bad) == 0);
	printf("ok: %u signals handled, no deadlock\n", atomic_load(&handled));
	return 0;
}
