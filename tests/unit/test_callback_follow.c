/*
 * Following (src/callback/callback_local.c): in local mode the callback thread
 * moves, after each grace period, to the CPU of the thread that queued
 * most of the batch it is about to invoke.  The shape is the one that
 * needs it: a registered reader in read-side critical sections of 20 us
 * back to back, pinned to one CPU, whose unlocks wake the callback
 * thread from its grace periods (so it lands on the reader's CPU), and a
 * producer
 * pinned to the other CPU queueing about two callbacks per microsecond.
 *
 *  1. Normal producer.  Halfway, the test puts the callback thread on
 *     the reader's CPU (its mask narrowed until a callback ran there,
 *     then given back): most callbacks queued from then on must run on
 *     the producer's CPU.  Following moves it back (one move, printed;
 *     not asserted: the scheduler moved it back by itself once, under
 *     TSan).  Without following the thread stays: 0-14% there.
 *     RCUBOOST_CALLBACK_FOLLOW=0 and the argument "off" show where they
 *     run without it.
 *  2. SCHED_FIFO producer (root only; skipped with a message without
 *     permission): its CPU is its own, so following must not move the
 *     thread there (the scheduler, and booster mode raising the thread,
 *     may: the move count is checked, not where callbacks ran).  The
 *     producer stops by itself after DURATION_MS.
 * Before each phase the callback thread is put on the reader's CPU.
 * Run with RCUBOOST_BOOST=0 (CTest sets it): booster mode would raise
 * the callback thread to SCHED_FIFO, whose placement by the kernel
 * moves it as well.
 * After each phase the callback thread's CPU mask must be the one it
 * had: a move is undone at once.  The run fails if local mode was never
 * on (it would have tested the queue) in ATTEMPTS runs of a phase; a
 * phase whose outcome is wrong runs again too (phase_retried()), and
 * CTest runs the test alone (RUN_SERIAL).  Linked with the debug build
 * (rcuboost_debug) to read the mode word.
 *
 * Not in the TSan build (tests/sanitizers.cmake): under its slowdown,
 * local mode did not come on in the SCHED_FIFO phase of one CI run.
 *
 * Argument: "off" (RCUBOOST_CALLBACK_FOLLOW=0 expected in the
 * environment): only prints where callbacks ran.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

/* The library's own words (src/callback/callback.h), reachable in a static
 * build: the local mode, and the moves following made. */
extern _Atomic unsigned long rcb__cb_local_mode, rcb__cb_follow_moves;

#define DURATION_MS 300
#define INTERVAL_NS 500
#define SECTION_NS 20000
#define MAX_NODES (2 * DURATION_MS * 1000000 / INTERVAL_NS)

struct node {
	struct rcb_head head;
};

static struct node *nodes;
static int cpu_a, cpu_b; /* producer's, reader's */
static atomic_long on_a, on_other, local_seen;
static atomic_bool stop;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void cb(struct rcb_head *h)
{
	(void)h;
	if (sched_getcpu() == cpu_a)
		atomic_fetch_add_explicit(&on_a, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&on_other, 1, memory_order_relaxed);
}

static void pin_attr(pthread_attr_t *a, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	CHECK_EQ(pthread_attr_setaffinity_np(a, sizeof(set), &set), 0);
}

static void *reader(void *arg)
{
	uint64_t end = now_ns() + 10ull * DURATION_MS * 1000000ull;

	(void)arg;
	CHECK_EQ(rcb_register_thread(), 0);
	/* Hard bound: 10 x DURATION_MS, whatever the main thread does. */
	while (!atomic_load_explicit(&stop, memory_order_relaxed) &&
	       now_ns() < end) {
		/* Sections of 20 us: a grace period waits for one, and
		 * the unlock that ends it wakes the callback thread here. */
		uint64_t t = now_ns();

		rcb_read_lock();
		while (now_ns() - t < SECTION_NS)
			;
		rcb_read_unlock();
	}
	CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

/* Queue one callback per INTERVAL_NS (as fast as it can, if slower)
 * for DURATION_MS: its own time bound, also at SCHED_FIFO. */
static void *producer(void *arg)
{
	uint64_t next = now_ns(), end = next + DURATION_MS * 1000000ull;
	long n = 0;

	(void)arg;
	CHECK_EQ(rcb_register_thread(), 0);
	while (n < MAX_NODES) {
		uint64_t t = now_ns();

		if (t >= end)
			break;
		if (t < next)
			continue;
		next += INTERVAL_NS;
		CHECK_EQ(rcb_call(&nodes[n++].head, cb), 0);
		if (!(n & 1023) && (atomic_load_explicit(&rcb__cb_local_mode,
							 memory_order_relaxed) &
				    1))
			atomic_fetch_add(&local_seen, 1);
	}
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

static pid_t worker;
static cpu_set_t home;

static void noop(struct rcb_head *h)
{
	(void)h;
}

/* Put the sleeping callback thread on cpu_b: run a callback there with
 * its mask narrowed, then give the mask back (a mask equal to the one
 * the library gave it: following stays allowed). */
static void worker_to_b(void)
{
	static struct rcb_head h;
	cpu_set_t b;

	CPU_ZERO(&b);
	CPU_SET(cpu_b, &b);
	CHECK_EQ(sched_setaffinity(worker, sizeof(b), &b), 0);
	CHECK_EQ(rcb_call(&h, noop), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(sched_setaffinity(worker, sizeof(home), &home), 0);
}

/* One phase; returns the share of callbacks that ran on cpu_a, or -1 if
 * the producer's real-time policy was refused.  *@moves: the moves
 * following made. */
static double phase(bool fifo, unsigned long *moves)
{
	pthread_attr_t ra, pa;
	pthread_t rt, pt;
	struct sched_param sp = { .sched_priority = 1 };
	long a, o;
	int err;

	atomic_store(&on_a, 0);
	atomic_store(&on_other, 0);
	atomic_store(&local_seen, 0);
	atomic_store(&stop, false);
	CHECK_EQ(pthread_attr_init(&ra), 0);
	pin_attr(&ra, cpu_b);
	CHECK_EQ(pthread_attr_init(&pa), 0);
	pin_attr(&pa, cpu_a);
	if (fifo) {
		CHECK_EQ(pthread_attr_setinheritsched(&pa,
						      PTHREAD_EXPLICIT_SCHED),
			 0);
		CHECK_EQ(pthread_attr_setschedpolicy(&pa, SCHED_FIFO), 0);
		CHECK_EQ(pthread_attr_setschedparam(&pa, &sp), 0);
	}
	worker_to_b();
	*moves = atomic_load(&rcb__cb_follow_moves);
	CHECK_EQ(pthread_create(&rt, &ra, reader, NULL), 0);
	usleep(20000); /* the reader is in its loop */
	err = pthread_create(&pt, &pa, producer, NULL);
	if (err == EPERM) {
		atomic_store(&stop, true);
		CHECK_EQ(pthread_join(rt, NULL), 0);
		return -1;
	}
	CHECK_EQ(err, 0);
	if (!fifo) {
		/* Halfway, while local mode runs, put the thread on the
		 * reader's CPU as the scheduler might; count from then. */
		cpu_set_t b;

		usleep(DURATION_MS * 1000 / 2);
		CPU_ZERO(&b);
		CPU_SET(cpu_b, &b);
		CHECK_EQ(sched_setaffinity(worker, sizeof(b), &b), 0);
		/* Until a callback ran there: a sleeping thread moves only
		 * as it wakes (bounded: the producer stops by itself). */
		long o0 = atomic_load(&on_other);

		for (int i = 0; i < 100 && atomic_load(&on_other) == o0; i++)
			usleep(1000);
		CHECK_EQ(sched_setaffinity(worker, sizeof(home), &home), 0);
		*moves = atomic_load(&rcb__cb_follow_moves);
		atomic_store(&on_a, 0);
		atomic_store(&on_other, 0);
	}
	CHECK_EQ(pthread_join(pt, NULL), 0);
	atomic_store(&stop, true);
	CHECK_EQ(pthread_join(rt, NULL), 0);
	pthread_attr_destroy(&ra);
	pthread_attr_destroy(&pa);
	a = atomic_load(&on_a);
	o = atomic_load(&on_other);
	*moves = atomic_load(&rcb__cb_follow_moves) - *moves;
	printf("%s producer on CPU %d, reader on CPU %d%s: %ld callbacks on the "
	       "producer's CPU, %ld elsewhere; %lu moves; local mode seen %ld "
	       "times\n", fifo ? "SCHED_FIFO" : "normal", cpu_a, cpu_b,
	       fifo ? "" : " (second half)", a, o, *moves, atomic_load(&local_seen));
	CHECK(a + o > 0);
	if (!atomic_load(&local_seen)) {
		printf("local mode was never on: nothing was tested\n");
		return -2;
	}
	return (double)a / (double)(a + o);
}

/* A phase tests something only once local mode came on, and a loaded
 * machine may keep it off (the SCHED_FIFO phase of a make test beside
 * other builds: never on); nor is where the scheduler puts threads
 * meanwhile ours.  So a phase that did not come out right runs again,
 * up to ATTEMPTS times: what following is for fails every time without
 * it (0-14% on the producer's CPU, or moves toward a real-time
 * producer), a busy scheduler only now and then. */
#define ATTEMPTS 3

static double phase_retried(bool fifo, unsigned long *moves)
{
	double share = -2;

	for (int i = 0; i < ATTEMPTS; i++) {
		share = phase(fifo, moves);
		if (share == -1)
			return share;
		if (share >= 0 && (fifo ? *moves == 0 : share >= 0.75))
			break;
		if (i + 1 < ATTEMPTS)
			printf("again (attempt %d of %d)\n", i + 2, ATTEMPTS);
	}
	return share;
}

static void mask_of(pid_t tid, cpu_set_t *set)
{
	CHECK_EQ(sched_getaffinity(tid, sizeof(*set), set), 0);
}

int main(int argc, char **argv)
{
	bool off = argc > 1 && !strcmp(argv[1], "off");
	cpu_set_t mine, after;
	unsigned long moves;
	double share;
	int n = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK_EQ(sched_getaffinity(0, sizeof(mine), &mine), 0);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &mine))
			*(n++ ? &cpu_b : &cpu_a) = c;
	if (n < 2) {
		printf("SKIP: following needs two CPUs, this process has one\n");
		return 77;
	}
	nodes = calloc(MAX_NODES, sizeof(*nodes));
	CHECK(nodes);
	CHECK_EQ(rcb_init(NULL), 0);
	worker = rcb_worker_tid(rcb_worker_default());
	CHECK(worker > 0);
	mask_of(worker, &home);

	share = off ? phase(false, &moves) : phase_retried(false, &moves);
	mask_of(worker, &after);
	CHECK(CPU_EQUAL(&home, &after));
	if (off) {
		if (share < 0)
			printf("following off: local mode never came on\n");
		else
			printf("following off: %.0f%% on the producer's CPU\n", 100 * share);
		return 0;
	}
	if (share == -2) {
		fprintf(stderr, "local mode never came on in %d runs\n", ATTEMPTS);
		return 1;
	}
	if (share < 0.75) {
		fprintf(stderr, "%.0f%% of the callbacks ran on the producer's "
			"CPU after the thread was put on the reader's (want "
			"75%% or more; %lu moves)\n", 100 * share, moves);
		return 1;
	}

	share = phase_retried(true, &moves);
	if (share == -1) {
		printf("SCHED_FIFO producer: skipped, no permission for real-time "
		       "priority (run as root)\n");
		return 0;
	}
	if (share == -2) {
		fprintf(stderr, "local mode never came on in %d runs with a "
			"SCHED_FIFO producer\n", ATTEMPTS);
		return 1;
	}
	mask_of(worker, &after);
	CHECK(CPU_EQUAL(&home, &after));
	if (moves) {
		fprintf(stderr, "following moved the callback thread %lu times "
			"with a SCHED_FIFO producer (want none)\n", moves);
		return 1;
	}
	printf("ok\n");
	return 0;
}
