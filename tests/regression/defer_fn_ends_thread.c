/* An expert review (2026-12-06): a deferred function that called
 * pthread_exit(), or met a pending cancellation, ended the application
 * thread draining its queue inside rcb_defer_barrier(), with the queue's
 * lock and the defer barrier's lock held (PI mutexes whose owner is
 * dead): every later rcb_defer_barrier() waited forever, and the thread
 * that adopted the queue never saw its entries run, nothing said.  Now
 * cancellation is held off while deferred functions run (a pending
 * cancel takes effect after the drain), and pthread_exit() inside one
 * stops the process at once, naming the function.
 *
 * Part 1, in this process: a thread with a cancel pending runs a
 * deferred function that reaches a cancellation point; it must finish
 * the drain, and a later rcb_defer_barrier() must return.  Part 2, in a
 * child: a deferred function calls pthread_exit(); the parent expects
 * SIGABRT and the message within 20 s.  Public API only. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/child_stderr.h"

static atomic_int ran_after_point, ran_later;

static void cancel_point_fn(void *p)
{
	(void)p;
	/* A cancellation point, with a cancel pending on this thread. */
	usleep(1000);
	atomic_store(&ran_after_point, 1);
}

static void later_fn(void *p)
{
	(void)p;
	atomic_fetch_add(&ran_later, 1);
}

static void *cancelled_drainer(void *arg)
{
	(void)arg;
	if (rcb_defer(cancel_point_fn, NULL) != 0)
		return (void *)1;
	pthread_cancel(pthread_self()); /* pending: deferred cancellation */
	(void)rcb_defer_barrier();
	/* The cancel takes effect at the next cancellation point. */
	for (;;)
		pause();
	return NULL;
}

static void *barrier_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++)
		if (rcb_defer(later_fn, NULL) != 0)
			return (void *)1;
	return (void *)(intptr_t)rcb_defer_barrier();
}

/* Joins @t within 10 s; false if it is still running. */
static bool join_within(pthread_t t, void **ret)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	return pthread_timedjoin_np(t, ret, &until) == 0;
}

static void exiting_fn(void *p)
{
	(void)p;
	pthread_exit(NULL);
}

static void child(void)
{
	if (rcb_defer(exiting_fn, NULL) != 0)
		_exit(3);
	(void)rcb_defer_barrier();
	printf("child: rcb_defer_barrier() returned\n");
	fflush(stdout);
	_exit(4);
}

int main(void)
{
	char want[64];
	pthread_t t;
	void *ret;

	CHECK(pthread_create(&t, NULL, cancelled_drainer, NULL) == 0);
	CHECK(join_within(t, &ret));
	printf("cancelled drainer: ended %s, its deferred function %s\n",
	       ret == PTHREAD_CANCELED ? "by its cancel" : "otherwise",
	       atomic_load(&ran_after_point) ? "ran to its end" : "did not finish");
	CHECK(ret == PTHREAD_CANCELED);
	CHECK(atomic_load(&ran_after_point) == 1);
	CHECK(pthread_create(&t, NULL, barrier_thread, NULL) == 0);
	if (!join_within(t, &ret)) {
		printf("a later rcb_defer_barrier() still waits after 10 s\n");
		fflush(stdout);
		_exit(1); /* the thread cannot be joined */
	}
	printf("later barrier: returned %d, %d of 10 entries ran\n", (int)(intptr_t)ret,
	       atomic_load(&ran_later));
	CHECK(ret == NULL);
	CHECK(atomic_load(&ran_later) == 10);

#if defined(__SANITIZE_THREAD__)
	fprintf(stderr, "fork part skipped: fork tests do not run under ThreadSanitizer\n");
	return 0;
#endif
	snprintf(want, sizeof(want), "deferred function %p (", (void *)(uintptr_t)exiting_fn);
	rcbt_child_aborts(child, 20000, want, ") ended its thread");
	return 0;
}
