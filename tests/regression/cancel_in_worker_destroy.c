/* Bug: pthread_join() is a cancellation point, and rcb_worker_destroy() (like rcb_shutdown()) holds the worker lock across its join of the worker's thread.  A thread cancelled there left the lock held, and the next rcb_call() that had to start a thread hung on it forever.  Now the joins are not cancellation points: the destroy completes, the cancel acts later, and rcb_call() and rcb_barrier() work. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int slow_started, after_call_ran;
static struct rcb_head slow_head, after_head;
static struct rcb_worker *w;

static void slow_cb(struct rcb_head *h)
{
	(void)h;
	atomic_store(&slow_started, 1);
	usleep(500000);
}

static void after_cb(struct rcb_head *h)
{
	(void)h;
	atomic_store(&after_call_ran, 1);
}

static void *producer(void *arg)
{
	(void)arg;
	CHECK_EQ(rcb_worker_set_thread(w), 0);
	CHECK_EQ(rcb_call(&slow_head, slow_cb), 0);
	CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

static void *destroyer(void *arg)
{
	(void)arg;
	rcb_worker_destroy(w); /* joins w's thread, in slow_cb for 0.5 s */
	/* The cancel acts here at the latest. */
	for (;;)
		pause();
	return NULL;
}

int main(void)
{
	pthread_t p, d;
	void *ret;

	alarm(30);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_worker_create(NULL, &w), 0);
	CHECK_EQ(pthread_create(&p, NULL, producer, NULL), 0);
	CHECK_EQ(pthread_join(p, NULL), 0);
	while (!atomic_load(&slow_started))
		usleep(1000);
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
