/* Bug: rcb_barrier() racing rcb_shutdown() hung: the callback thread, told to
 * stop, found its queue empty and exited; a barrier that had seen the thread
 * running queued its marker after that check and waited forever. Rounds of
 * init, call, then barrier in one thread against shutdown in another; a
 * watchdog turns a hang into a failure. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#ifndef ROUNDS
#define ROUNDS 3000
#endif

static atomic_int round_go, called, shutdown_done, barrier_done, invoked;
static volatile sig_atomic_t round_now;
static struct rcb_head head;

static void on_alarm(int sig)
{
	char msg[128];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg),
		     "FAIL: hang in round %d: rcb_barrier() racing rcb_shutdown() never returned\n",
		     (int)round_now);
	if (write(2, msg, (size_t)n) < 0)
		_exit(3);
	_exit(2);
}

static void count_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&invoked, 1);
}

static void wait_for(atomic_int *v, int want)
{
	while (atomic_load(v) != want)
		sched_yield();
}

/*
 * Each round: queue one callback while the library runs, let the main
 * thread start rcb_shutdown(), and call rcb_barrier() after a delay that
 * adapts so that the barrier lands near the end of the shutdown, where
 * the callback thread exits (the race): longer when the barrier returned
 * before the shutdown did, shorter when the shutdown had already returned.
 */
static void *barrier_thread(void *arg)
{
	unsigned int seed = 1, delay = 0;

	(void)arg;
	for (int r = 1; r <= ROUNDS; r++) {
		unsigned int spin;

		wait_for(&round_go, r);
		CHECK(rcb_call(&head, count_cb) == 0);
		atomic_store(&called, r);
		spin = delay / 2 + rand_r(&seed) % (delay + 1);
		for (volatile unsigned int i = spin; i; i--)
			;
		if (atomic_load(&shutdown_done) == r) {
			delay -= delay / 8;
		} else {
			CHECK(rcb_barrier() == 0);
			if (atomic_load(&shutdown_done) != r)
				delay += delay / 8 + 64;
		}
		/* Both calls wait for the callback queued before them. */
		wait_for(&shutdown_done, r);
		CHECK(atomic_load(&invoked) == r);
		atomic_store(&barrier_done, r);
	}
	return NULL;
}

int main(void)
{
	/* No boosting: the rounds exercise the callback thread only. */
	struct rcb_config cfg = { .boost = -1 };
	struct sigaction sa;
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
	CHECK(pthread_create(&t, NULL, barrier_thread, NULL) == 0);
	for (int r = 1; r <= ROUNDS; r++) {
		round_now = r;
		alarm(10); /* a round takes a millisecond or less */
		CHECK(rcb_init(&cfg) == 0);
		atomic_store(&round_go, r);
		wait_for(&called, r);
		CHECK(rcb_shutdown() == 0);
		CHECK(atomic_load(&invoked) == r);
		atomic_store(&shutdown_done, r);
		wait_for(&barrier_done, r);
	}
	alarm(0);
	CHECK(pthread_join(t, NULL) == 0);
	printf("%d rounds of rcb_barrier() against rcb_shutdown(): no hang\n", ROUNDS);
	return 0;
}
