/* Bug: rcb_shutdown() holds the callback lock while it joins a worker that is
 * still draining, and the draining worker runs grace periods; a reader that
 * called rcb_callback_tids() (or rcb_worker_tid(), rcb_worker_set_thread(),
 * rcb_worker_assign_cpu()) inside its section waited for that lock, so the
 * grace period waited for the reader, the join for the grace period, and all
 * three hung. Now these calls refuse to run inside a section (-EDEADLK,
 * reported as misuse); the shutdown must finish, every requeued callback must
 * run, and each call must return -EDEADLK. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define REQUEUES 40

static atomic_int runs, draining, reader_done;
static struct rcb_head head;

/* Keeps the worker invoking, and so running grace periods, through
 * rcb_shutdown()'s drain: a callback may queue more work then. */
static void requeue(struct rcb_head *h)
{
	usleep(2000);
	if (atomic_fetch_add(&runs, 1) + 1 < REQUEUES)
		CHECK_EQ(rcb_call(h, requeue), 0);
}

static void *reader(void *arg)
{
	int which = *(int *)arg, ret = 0;
	struct rcb_worker *w = rcb_worker_default();
	pid_t tids[4];

	CHECK_EQ(rcb_register_thread(), 0);
	while (!atomic_load(&draining))
		usleep(100);
	usleep(10000); /* rcb_shutdown() is joining the draining worker */
	rcb_read_lock();
	switch (which) {
	case 0: ret = rcb_callback_tids(tids, 4); break;
	case 1: ret = rcb_worker_tid(w); break;
	case 2: ret = rcb_worker_set_thread(NULL); break;
	case 3: ret = rcb_worker_assign_cpu(NULL, 0); break;
	}
	rcb_read_unlock();
	CHECK_EQ(ret, -EDEADLK);
	CHECK_EQ(rcb_unregister_thread(), 0);
	atomic_store(&reader_done, 1);
	return NULL;
}

int main(void)
{
	alarm(60);
	for (int which = 0; which < 4; which++) {
		pthread_t t;

		atomic_store(&runs, 0);
		atomic_store(&draining, 0);
		atomic_store(&reader_done, 0);
		CHECK_EQ(rcb_init(NULL), 0);
		CHECK_EQ(pthread_create(&t, NULL, reader, &which), 0);
		CHECK_EQ(rcb_call(&head, requeue), 0);
		usleep(5000);
		atomic_store(&draining, 1);
		CHECK_EQ(rcb_shutdown(), 0);
		CHECK_EQ(pthread_join(t, NULL), 0);
		CHECK(atomic_load(&reader_done));
		CHECK_EQ(atomic_load(&runs), REQUEUES);
	}
	printf("rcb_shutdown() finished beside a reader's refused worker call, 4 calls\n");
	return 0;
}
