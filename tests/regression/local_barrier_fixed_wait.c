/* SPDX-License-Identifier: MIT */
/*
 * A barrier in local mode waited a whole fixed wait (issue 31, finding
 * 4).  Once liburcu's timing comes on, the default worker's local mode
 * flips to off, and while a stream keeps its batches non-empty it runs
 * off cycles, each with the fixed wait before its grace period.  A
 * barrier then (after the take that ends the lists' life) queues its
 * marker directly; its bump cut the wait of the cycle that invoked the
 * batch before, and the cycle that invoked the marker's batch, which
 * did not know it held a marker, waited in full: 5 of 6 barriers took
 * 1,000 ms with RCUBOOST_URCU_CALLBACK_DELAY_US=1000000 (0.0 ms with
 * local mode off).
 *
 * Here: a full-speed rcb_call() stream until local mode is on (read
 * from the library's mode word: linked with the static debug build);
 * call_rcu() turns liburcu's timing on and the stream slows to a call
 * every 20 us, which keeps the off cycles going; once the mode is off
 * and the worker has flipped again (the take after the flip to off is
 * done), six rcb_barrier()s are timed.  The first comes while the
 * worker is in the fixed wait before the batch formed at that take, and
 * queues its marker: before the fix it always waited the whole second
 * (it took 1,000 ms in 5 runs of 5; so did most of the others, while
 * the off cycles lasted; local mode ends once a cycle finds no
 * callback, and a barrier then waits for the queue).  Each must return
 * within 500 ms, half the fixed wait: a bound that says the wait was
 * cut, not how fast the machine is.  Run with
 * RCUBOOST_URCU_CALLBACK_DELAY_US=1000000 (tests/regression/CMakeLists.txt).
 */
#define _GNU_SOURCE
#include <rcuboost/urcu.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/check.h"

/* The library's own word (src/callback/callback.h): flip count << 1 | on. */
extern _Atomic unsigned long rcb__cb_local_mode;

#define BARRIERS 6
#define BOUND_NS (500ull * 1000 * 1000)

static atomic_int slow, stop;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static unsigned long mode(void)
{
	return atomic_load_explicit(&rcb__cb_local_mode, memory_order_relaxed);
}

static void free_cb(struct rcb_head *h)
{
	free(h);
}

/* Full speed, then a call every 20 us once told; stops by itself after
 * 60 s. */
static void *streamer(void *arg)
{
	uint64_t end = now_ns() + 60000000000ull;

	(void)arg;
	CHECK_EQ(rcb_register_thread(), 0);
	while (!atomic_load(&stop) && now_ns() < end) {
		int n = atomic_load(&slow) ? 1 : 1024;

		for (int i = 0; i < n; i++) {
			struct rcb_head *h = malloc(sizeof(*h));

			CHECK(h != NULL);
			CHECK_EQ(rcb_call(h, free_cb), 0);
		}
		if (n == 1) {
			struct timespec ts = { 0, 20000 };

			nanosleep(&ts, NULL);
		}
	}
	CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

/* Wait up to 20 s for @done(@arg); false if it never held. */
static int wait_for(int (*done)(unsigned long), unsigned long arg)
{
	uint64_t end = now_ns() + 20000000000ull;

	while (!done(arg)) {
		struct timespec ts = { 0, 100000 };

		if (now_ns() > end)
			return 0;
		nanosleep(&ts, NULL);
	}
	return 1;
}

static int is_on(unsigned long unused)
{
	(void)unused;
	return mode() & 1;
}

static int is_off(unsigned long unused)
{
	(void)unused;
	return !(mode() & 1);
}

static int flipped_after(unsigned long count)
{
	return (mode() >> 1) > count;
}

static void urcu_cb(struct rcu_head *h)
{
	(void)h;
}

int main(void)
{
	const char *delay = getenv("RCUBOOST_URCU_CALLBACK_DELAY_US");
	uint64_t took[BARRIERS];
	struct rcu_head rh;
	pthread_t t;
	int bad = 0;

	CHECK(delay && strcmp(delay, "1000000") == 0);
	alarm(120);
	CHECK_EQ(pthread_create(&t, NULL, streamer, NULL), 0);
	if (!wait_for(is_on, 0)) {
		fprintf(stderr, "FAIL: local mode never came on under a full-speed stream\n");
		return 1;
	}
	rcu_register_thread();
	call_rcu(&rh, urcu_cb); /* liburcu's timing on: local mode flips off */
	rcu_unregister_thread();
	/* Small batches from here on: the first barrier's wait is the
	 * invocation of one of them. */
	atomic_store(&slow, 1);
	CHECK(wait_for(is_off, 0));
	/* The take after the flip to off (L6): barriers queue directly. */
	CHECK(wait_for(flipped_after, mode() >> 1));
	for (int i = 0; i < BARRIERS; i++) {
		uint64_t t0 = now_ns();

		CHECK_EQ(rcb_barrier(), 0);
		took[i] = now_ns() - t0;
		if (took[i] >= BOUND_NS)
			bad++;
	}
	atomic_store(&stop, 1);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(rcb_barrier(), 0);
	printf("barriers:");
	for (int i = 0; i < BARRIERS; i++)
		printf(" %.1f", (double)took[i] / 1e6);
	printf(" ms\n");
	if (bad) {
		fprintf(stderr,
			"FAIL: %d of %d barriers in local mode took 500 ms or more; "
			"the fixed wait is 1 s\n", bad, BARRIERS);
		return 1;
	}
	printf("ok\n");
	return 0;
}
