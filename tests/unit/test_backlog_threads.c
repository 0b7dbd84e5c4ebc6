/* The backlog is counted per thread (src/callback/callback.c, invariant 5):
 * what a registered thread queues stays in its own record until it
 * unregisters or exits, then joins the global count.  While a reader
 * holds every grace period, rcb_backlog() must count exactly what was
 * queued, bytes too, whether the queueing threads still run, exited,
 * unregistered, or registered again; once the reader leaves and a
 * barrier ran, nothing and everything invoked. */
#define _DEFAULT_SOURCE /* usleep */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/gp_holder.h"

#define PER_THREAD 1000
#define BYTES 48

static atomic_int invoked;
static atomic_int queued_phase; /* threads that finished queueing */
static atomic_int let_go;

static void done(struct rcb_head *h)
{
	atomic_fetch_add(&invoked, 1);
	free(h);
}

static void queue_some(int n)
{
	for (int i = 0; i < n; i++) {
		struct rcb_head_sized *h = malloc(sizeof(*h));

		CHECK(h != NULL);
		CHECK_EQ(rcb_call_sized(h, done, BYTES), 0);
	}
}

/* mode 0: queue, stay registered until told; 1: queue, exit registered;
 * 2: queue, unregister, queue again (registers anew), unregister. */
static void *producer(void *arg)
{
	int mode = (int)(intptr_t)arg;

	queue_some(PER_THREAD);
	if (mode == 2) {
		CHECK_EQ(rcb_unregister_thread(), 0);
		queue_some(PER_THREAD);
		CHECK_EQ(rcb_unregister_thread(), 0);
	}
	atomic_fetch_add(&queued_phase, 1);
	if (mode == 0)
		while (!atomic_load(&let_go))
			usleep(200);
	return NULL;
}

static void expect_backlog(unsigned long long n)
{
	struct rcb_backlog bl;

	rcb_backlog(&bl);
	CHECK_EQ(bl.callbacks, n);
	CHECK_EQ(bl.bytes, n * BYTES);
	CHECK(bl.peak_callbacks >= n);
}

int main(void)
{
	struct gp_holder holder;
	pthread_t p[3];
	struct rcb_backlog bl;

	alarm(60);
	CHECK_EQ(rcb_init(NULL), 0);
	gp_holder_start(&holder);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(pthread_create(&p[i], NULL, producer,
					(void *)(intptr_t)i),
			 0);
	while (atomic_load(&queued_phase) < 3)
		usleep(100);
	/* 1000 (still registered) + 1000 (exited or exiting) + 2000. */
	CHECK_EQ(pthread_join(p[1], NULL), 0);
	CHECK_EQ(pthread_join(p[2], NULL), 0);
	expect_backlog(4 * PER_THREAD);
	/* The caller's own count, then the caller's unregistration. */
	queue_some(PER_THREAD);
	expect_backlog(5 * PER_THREAD);
	CHECK_EQ(rcb_unregister_thread(), 0);
	expect_backlog(5 * PER_THREAD);
	atomic_store(&let_go, 1);
	CHECK_EQ(pthread_join(p[0], NULL), 0);
	expect_backlog(5 * PER_THREAD);
	CHECK_EQ(atomic_load(&invoked), 0); /* the reader held them all */
	gp_holder_release(&holder);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&invoked), 5 * PER_THREAD);
	rcb_backlog(&bl);
	CHECK_EQ(bl.callbacks, 0);
	CHECK_EQ(bl.bytes, 0);
	CHECK_EQ(bl.invoked, 5 * PER_THREAD);
	CHECK_EQ(bl.peak_callbacks, 5 * PER_THREAD);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
