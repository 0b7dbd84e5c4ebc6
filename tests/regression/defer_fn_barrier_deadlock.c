/* Bug: a deferred function, run by its owner in rcb_defer_barrier_thread()
 * while holding its queue's lock, called rcb_barrier(), which waited for the
 * callback thread; the callback thread was running a callback that called
 * rcb_defer_barrier(), which waited for that queue's lock: both hung. Now
 * rcb_barrier(), rcb_shutdown() and the worker calls refuse to run in a
 * deferred function (-EDEADLK, reported as misuse), the deferred function
 * returns, and the callback's rcb_defer_barrier() completes. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static struct rcb_head head;
static atomic_int cb_started, cb_ret = 1, fn_done;
static int barrier_ret = 1, shutdown_ret = 1, tids_ret = 1;
static pid_t fn_tid;

static void cb_defer_barrier(struct rcb_head *h)
{
	(void)h;
	atomic_store(&cb_started, 1);
	atomic_store(&cb_ret, rcb_defer_barrier());
}

static void deferred(void *p)
{
	(void)p;
	fn_tid = gettid();
	CHECK_EQ(rcb_call(&head, cb_defer_barrier), 0);
	/* Let the callback reach the queue's lock first (a slow machine
	 * or a sanitizer may take seconds to start the callback thread). */
	for (int i = 0; i < 10000 && !atomic_load(&cb_started); i++)
		usleep(1000);
	barrier_ret = rcb_barrier();
	shutdown_ret = rcb_shutdown();
	tids_ret = rcb_callback_tids(NULL, 0);
	atomic_store(&fn_done, 1);
}

int main(void)
{
	alarm(30);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_defer(deferred, NULL), 0);
	CHECK_EQ(rcb_defer_barrier_thread(), 0);
	CHECK(atomic_load(&fn_done));
	/* The owner ran it, under its queue's lock (the callback thread's
	 * drain waits RCUBOOST_CALLBACK_BATCH_US first: see CMakeLists). */
	CHECK_EQ(fn_tid, gettid());
	CHECK_EQ(barrier_ret, -EDEADLK);
	CHECK_EQ(shutdown_ret, -EDEADLK);
	CHECK_EQ(tids_ret, -EDEADLK);
	CHECK_EQ(rcb_barrier(), 0); /* the callback has finished */
	CHECK(atomic_load(&cb_started));
	CHECK_EQ(atomic_load(&cb_ret), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	printf("a deferred function's rcb_barrier(), rcb_shutdown() and rcb_callback_tids() were refused; no hang\n");
	return 0;
}
