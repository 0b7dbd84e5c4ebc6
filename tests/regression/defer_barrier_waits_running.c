/*
 * Regression: rcb_defer_barrier() and rcb_defer_barrier_thread() returned
 * while a deferred function queued before them was still running.  A
 * drainer takes an entry (advances qtail) before it runs it, and the
 * barriers skipped every queue whose entries were all taken, without
 * waiting for the drainer that was running the last one.  A caller that
 * freed what the function used after the barrier could free it under the
 * function's feet.  Seen as unit_defer failing under TSan (the nested
 * function's result not yet stored when the barrier returned).
 *
 * Here the callback thread runs a deferred function that, once the
 * barrier has been called, sleeps 300 ms and then marks itself finished:
 * the barrier must not return before the mark.  The old code returned at
 * once.  A third case checks the fix's own hazard: a deferred function
 * that calls rcb_defer_barrier() while another thread's barrier waits for
 * it is refused (-EDEADLK), instead of the two barriers waiting for each
 * other.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int started, barrier_called, finished, inner_ret;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Waits (10 s at most) for the barrier to be called, then for 300 ms. */
static void slow_fn(void *p)
{
	int call_inner = p != NULL;

	atomic_store(&started, 1);
	for (int i = 0; i < 10000 && !atomic_load(&barrier_called); i++)
		sleep_ms(1);
	sleep_ms(300);
	if (call_inner)
		atomic_store(&inner_ret, rcb_defer_barrier());
	atomic_store(&finished, 1);
}

/* Queue slow_fn and wait (10 s at most) until the callback thread runs it. */
static void start_slow(int call_inner)
{
	atomic_store(&started, 0);
	atomic_store(&barrier_called, 0);
	atomic_store(&finished, 0);
	atomic_store(&inner_ret, 1);
	CHECK_EQ(rcb_defer(slow_fn, call_inner ? (void *)1 : NULL), 0);
	for (int i = 0; i < 10000 && !atomic_load(&started); i++)
		sleep_ms(1);
	CHECK(atomic_load(&started));
}

int main(void)
{
	CHECK_EQ(rcb_init(NULL), 0);

	start_slow(0);
	atomic_store(&barrier_called, 1);
	CHECK_EQ(rcb_defer_barrier(), 0);
	CHECK(atomic_load(&finished));

	start_slow(0);
	atomic_store(&barrier_called, 1);
	CHECK_EQ(rcb_defer_barrier_thread(), 0);
	CHECK(atomic_load(&finished));

	fprintf(stderr, "expect one misuse report below\n");
	start_slow(1);
	atomic_store(&barrier_called, 1);
	CHECK_EQ(rcb_defer_barrier(), 0);
	CHECK(atomic_load(&finished));
	CHECK_EQ(atomic_load(&inner_ret), -EDEADLK);

	CHECK_EQ(rcb_defer_unregister_thread(), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	printf("barriers waited for running deferred functions\n");
	return 0;
}
