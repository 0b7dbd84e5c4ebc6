/* Bug: pthread_join() is a cancellation point, and rcb_worker_destroy() (like
 * rcb_shutdown()) holds the worker lock across its join of the worker's thread.
 * A thread cancelled there left the lock held, and the next rcb_call() that had
 * to start a thread hung on it forever. Now the joins are not cancellation
 * points: the destroy completes, the cancel acts later, and rcb_call() and
 * rcb_barrier() work. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/regression/busy_worker.h"

static atomic_int after_call_ran;
static struct rcb_head after_head;
static struct busy_worker busy;

static void after_cb(struct rcb_head *h)
{
	(void)h;
	atomic_store(&after_call_ran, 1);
}

static void *destroyer(void *arg)
{
	(void)arg;
	rcb_worker_destroy(busy.w); /* joins its thread, busy for 0.5 s */
	/* The cancel acts here at the latest. */
	for (;;)
		pause();
	return NULL;
}

int main(void)
{
	pthread_t d;
	void *ret;

	alarm(30);
	CHECK_EQ(rcb_init(NULL), 0);
	busy_worker_start(&busy, 500000);
	CHECK_EQ(pthread_create(&d, NULL, destroyer, NULL), 0);
	usleep(200000); /* the destroyer is joining, holding the lock */
	CHECK_EQ(pthread_cancel(d), 0);
	CHECK_EQ(pthread_join(d, &ret), 0);
	CHECK(ret == PTHREAD_CANCELED);
	/* The default worker has no thread yet: this call starts it. */
	CHECK_EQ(rcb_call(&after_head, after_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&after_call_ran), 1);
	CHECK_EQ(rcb_shutdown(), 0);
	printf("a thread cancelled in rcb_worker_destroy() left no lock held\n");
	return 0;
}
