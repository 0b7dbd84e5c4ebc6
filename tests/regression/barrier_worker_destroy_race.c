/* Bug: rcb_barrier() read the next worker's creation number after it had
 * dropped the worker-list lock; a concurrent rcb_worker_destroy() could
 * free that worker first (a heap use after free), and a worker created
 * in its memory gave a number past the workers not yet waited for, so the
 * barrier skipped them and returned before a callback queued before it
 * had run.  The test places the destroy in that window by construction:
 * it interposes pthread_mutex_unlock(), and the barrier thread's first
 * unlock inside rcb_barrier() (the walk's) waits until the main thread
 * has destroyed the older worker and created a new one.  The barrier
 * thread's own worker, newer than the destroyed one, holds a callback
 * that takes 100 ms: a barrier that returns before it ran is the bug.
 * ASan and TSan builds also see the freed read itself. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rcuboost.h"
#include "tests/check.h"

#ifndef ROUNDS
#define ROUNDS 30
#endif

/* Exported (the tree builds with hidden visibility) so that the
 * library's calls resolve to it; see tests/fault_inject.h. */
#define EXPORT __attribute__((visibility("default")))

static int (*real_unlock)(pthread_mutex_t *);
static _Thread_local int hook_armed;
/* 1: the barrier thread asks for the destroy; 2: done. */
static atomic_int destroy_step;
static atomic_int round_go, round_done, slow_done, reused;
static struct rcb_head slow_head;

EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	int ret = real_unlock(m);

	if (hook_armed) {
		hook_armed = 0;
		atomic_store(&destroy_step, 1);
		while (atomic_load(&destroy_step) != 2)
			sched_yield();
	}
	return ret;
}

static void slow_cb(struct rcb_head *h)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	(void)h;
	nanosleep(&ts, NULL);
	atomic_store(&slow_done, 1);
}

static void wait_for(atomic_int *v, int want)
{
	while (atomic_load(v) != want)
		sched_yield();
}

/* Each round: its own worker (the newest), a slow callback on it, then a
 * barrier whose walk is interrupted as described above. */
static void *barrier_thread(void *arg)
{
	(void)arg;
	for (int r = 1; r <= ROUNDS; r++) {
		struct rcb_worker *mine;

		wait_for(&round_go, r);
		CHECK(rcb_worker_create(NULL, &mine) == 0);
		CHECK(rcb_worker_set_thread(mine) == 0);
		atomic_store(&slow_done, 0);
		CHECK(rcb_call(&slow_head, slow_cb) == 0);
		hook_armed = 1;
		CHECK(rcb_barrier() == 0);
		if (!atomic_load(&slow_done)) {
			fprintf(stderr,
				"FAIL: round %d: rcb_barrier() returned before a callback queued "
				"before it had run (a worker destroyed during its walk)\n",
				r);
			exit(1);
		}
		/* the walk took the lock at least once */
		CHECK(hook_armed == 0);
		CHECK(rcb_worker_set_thread(NULL) == 0);
		CHECK(rcb_worker_destroy(mine) == 0);
		atomic_store(&round_done, r);
	}
	return NULL;
}

int main(void)
{
	struct rcb_config cfg = { .boost = -1 };
	pthread_t t;

	real_unlock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_unlock");
	CHECK(real_unlock != NULL);
	CHECK(rcb_init(&cfg) == 0);
	CHECK(pthread_create(&t, NULL, barrier_thread, NULL) == 0);
	for (int r = 1; r <= ROUNDS; r++) {
		struct rcb_worker *older, *newer;

		/* Older than the barrier thread's worker, so visited first. */
		CHECK(rcb_worker_create(NULL, &older) == 0);
		atomic_store(&destroy_step, 0);
		atomic_store(&round_go, r);
		wait_for(&destroy_step, 1);
		CHECK(rcb_worker_destroy(older) == 0);
		/* Its memory, if the allocator hands it out again, now holds
		 * a worker numbered past the barrier thread's. */
		CHECK(rcb_worker_create(NULL, &newer) == 0);
		if (newer == older)
			atomic_fetch_add(&reused, 1);
		atomic_store(&destroy_step, 2);
		wait_for(&round_done, r);
		CHECK(rcb_worker_destroy(newer) == 0);
	}
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(rcb_shutdown() == 0);
	printf("%d rounds of rcb_barrier() against rcb_worker_destroy() in its walk "
	       "(%d with the memory reused): every barrier waited\n",
	       ROUNDS, atomic_load(&reused));
	return 0;
}
