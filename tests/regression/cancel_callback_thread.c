/* A code review (2026-12-06): callback threads could be cancelled.
 * rcb_worker_thread() hands out a worker's pthread_t so that the
 * application can set its attributes; a pthread_cancel() on it ended the
 * thread at its next cancellation point (the nanosleep of
 * RCUBOOST_CALLBACK_BATCH_US, set by CTest), and the worker's queue was
 * left with no thread: the next rcb_barrier() waited forever with nothing
 * said.  Callback threads now disable cancellation.
 *
 * The default worker's thread is cancelled; then a callback and a
 * barrier must complete (30 s alarm).  Public API only. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int ran;

static void count_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&ran, 1);
}

int main(void)
{
	static struct rcb_head h[2];
	pthread_t t;

	CHECK(getenv("RCUBOOST_CALLBACK_BATCH_US") != NULL);
	alarm(30);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_call(&h[0], count_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(rcb_worker_thread(rcb_worker_default(), &t), 0);
	CHECK_EQ(pthread_cancel(t), 0);
	usleep(100000); /* past several of its batch sleeps */
	CHECK_EQ(rcb_call(&h[1], count_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	printf("after pthread_cancel() of the callback thread: %d callbacks ran\n",
	       atomic_load(&ran));
	CHECK_EQ(atomic_load(&ran), 2);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
