/*
 * A private callback worker whose thread is inside a callback for a
 * while: a thread that destroys it then holds the library's worker lock
 * for that long (rcb_worker_destroy() joins the thread).  Shared by the
 * regression tests of that lock.
 */
#ifndef RCB_TEST_BUSY_WORKER_H
#define RCB_TEST_BUSY_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

struct busy_worker {
	struct rcb_worker *w;
	struct rcb_head head;
	useconds_t busy_us;
	atomic_int started, done;
};

static void busy_worker_cb(struct rcb_head *h)
{
	struct busy_worker *b = (struct busy_worker *)(void *)
		((char *)h - offsetof(struct busy_worker, head));

	atomic_store(&b->started, 1);
	usleep(b->busy_us);
	atomic_store(&b->done, 1);
}

/* Queues the callback from a thread of its own that chose the worker. */
static void *busy_worker_producer(void *arg)
{
	struct busy_worker *b = arg;

	CHECK_EQ(rcb_worker_set_thread(b->w), 0);
	CHECK_EQ(rcb_call(&b->head, busy_worker_cb), 0);
	CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

/* Create @b's worker and return once its thread runs the callback,
 * which lasts @busy_us. */
static inline void busy_worker_start(struct busy_worker *b, useconds_t busy_us)
{
	pthread_t p;

	b->busy_us = busy_us;
	CHECK_EQ(rcb_worker_create(NULL, &b->w), 0);
	CHECK_EQ(pthread_create(&p, NULL, busy_worker_producer, b), 0);
	CHECK_EQ(pthread_join(p, NULL), 0);
	while (!atomic_load(&b->started))
		usleep(1000);
}

/*
 * Wait until the library's worker lock is held (by a thread destroying
 * @b's worker, which holds it while it joins the worker's thread): a
 * probe thread calls rcb_callback_tids(), which takes the lock, and is
 * still waiting 50 ms later.  The probe is left waiting; join it with
 * busy_worker_probe_join() once the lock is free.  Returns false if the
 * lock was not held within about a second (the test should then skip:
 * its precondition did not hold).
 */
struct busy_probe {
	pthread_t thread;
	atomic_int done;
};

static void *busy_probe_fn(void *arg)
{
	struct busy_probe *p = arg;

	(void)rcb_callback_tids(NULL, 0);
	atomic_store(&p->done, 1);
	return NULL;
}

static inline bool busy_worker_lock_held(struct busy_probe *p)
{
	for (int i = 0; i < 20; i++) {
		atomic_store(&p->done, 0);
		CHECK_EQ(pthread_create(&p->thread, NULL, busy_probe_fn, p), 0);
		usleep(50000);
		if (!atomic_load(&p->done))
			return true;
		CHECK_EQ(pthread_join(p->thread, NULL), 0);
	}
	return false;
}

static inline void busy_worker_probe_join(struct busy_probe *p)
{
	CHECK_EQ(pthread_join(p->thread, NULL), 0);
}

#endif
