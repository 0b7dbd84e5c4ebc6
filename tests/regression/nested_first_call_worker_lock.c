/* Bug: the first rcb_call() to a worker with no thread yet (the default worker
 * before its first use), made inside a section of the caller's own, took the
 * worker lock to start the thread from inside that section. A worker's stopper
 * (rcb_worker_destroy(), rcb_shutdown()) holds that lock while it joins a
 * worker, and a worker in a grace period waits for the section: a hang. Now
 * such a call queues at once and the thread starts at the outermost unlock.
 * Here the lock is held by rcb_worker_destroy() joining a worker whose callback
 * sleeps 2.5 s (checked: a probe thread waits for the lock); the nested call
 * must return before that callback ends, and its callback must run after the
 * unlock. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/regression/busy_worker.h"

static atomic_int nested_ran;
static struct rcb_head nested_head;
static struct busy_worker busy;

static void nested_cb(struct rcb_head *h)
{
	(void)h;
	atomic_store(&nested_ran, 1);
}

static void *destroyer(void *arg)
{
	(void)arg;
	/* Holds the worker lock while it joins the busy worker's thread,
	 * in its callback for 2 s. */
	CHECK_EQ(rcb_worker_destroy(busy.w), 0);
	return NULL;
}

int main(void)
{
	struct busy_probe probe;
	pthread_t d;
	int done_at_return;

	alarm(30);
	CHECK_EQ(rcb_init(NULL), 0);
	/* the default worker starts lazily */
	CHECK_EQ(rcb_callback_tids(NULL, 0), 0);
	busy_worker_start(&busy, 2500000);
	CHECK_EQ(pthread_create(&d, NULL, destroyer, NULL), 0);
	if (!busy_worker_lock_held(&probe)) {
		fprintf(stderr, "skip: the destroyer did not hold the worker lock within 1 s\n");
		return 77;
	}
	CHECK_EQ(rcb_register_thread(), 0);
	rcb_read_lock();
	rcb_read_lock();
	CHECK_EQ(rcb_call(&nested_head, nested_cb), 0);
	done_at_return = atomic_load(&busy.done);
	rcb_read_unlock();
	rcb_read_unlock(); /* starts the default worker */
	CHECK_EQ(pthread_join(d, NULL), 0);
	busy_worker_probe_join(&probe);
	CHECK_EQ(rcb_barrier(), 0);
	printf("nested first rcb_call() returned %s the stopper's join ended; its callback ran: %d\n",
	       done_at_return ? "after" : "before", atomic_load(&nested_ran));
	CHECK_EQ(done_at_return, 0);
	CHECK_EQ(atomic_load(&nested_ran), 1);
	CHECK_EQ(rcb_unregister_thread(), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
