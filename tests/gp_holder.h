/* SPDX-License-Identifier: MIT */
/*
 * A thread that holds up every grace period: it registers, enters a
 * read-side critical section and stays there until released, so that
 * nothing queued meanwhile is invoked (backlog tests).  Header-only, for
 * tests built against the public API.
 */
#ifndef RCB_TESTS_GP_HOLDER_H
#define RCB_TESTS_GP_HOLDER_H

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

struct gp_holder {
	pthread_t thread;
	atomic_int in_cs, release;
};

static inline void *gp_holder_main(void *arg)
{
	struct gp_holder *g = arg;

	CHECK(rcb_register_thread() == 0);
	rcb_read_lock();
	atomic_store(&g->in_cs, 1);
	while (!atomic_load(&g->release))
		usleep(100);
	rcb_read_unlock();
	CHECK(rcb_unregister_thread() == 0);
	return NULL;
}

/* Start @g's thread; returns once it is inside its critical section. */
static inline void gp_holder_start(struct gp_holder *g)
{
	atomic_store(&g->in_cs, 0);
	atomic_store(&g->release, 0);
	CHECK(pthread_create(&g->thread, NULL, gp_holder_main, g) == 0);
	while (!atomic_load(&g->in_cs))
		usleep(100);
}

/* End @g's critical section and join its thread. */
static inline void gp_holder_release(struct gp_holder *g)
{
	atomic_store(&g->release, 1);
	CHECK(pthread_join(g->thread, NULL) == 0);
}

#endif
