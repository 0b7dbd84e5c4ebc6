/* Bug: a head passed to rcb_call() again before its callback had run linked the
 * callback queue into a cycle, silently (the callback thread then looped on
 * it). Debug builds (RCB_DEBUG) report it as misuse and queue nothing;
 * re-queueing after the callback ran, or from inside it, is no misuse. Linked
 * with a test-only debug build of the library. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define MANY 40000

static atomic_int invoked, requeued, hold_in, hold_go;
static struct rcb_head h1, h2;

static void count_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&invoked, 1);
}

static void free_cb(struct rcb_head *h)
{
	free(h);
	atomic_fetch_add(&invoked, 1);
}

/* Queues its own head once more from inside the callback. */
static void requeue_cb(struct rcb_head *h)
{
	atomic_fetch_add(&invoked, 1);
	if (!atomic_exchange(&requeued, 1))
		CHECK(rcb_call(h, requeue_cb) == 0);
}

static void *holder(void *arg)
{
	(void)arg;
	rcb_read_lock();
	atomic_store(&hold_in, 1);
	while (!atomic_load(&hold_go))
		usleep(100);
	rcb_read_unlock();
	return NULL;
}

static unsigned long long misuse(void)
{
	struct rcb_gp_stats s;

	rcb_stats(&s);
	return s.misuse;
}

int main(void)
{
	struct rcb_config cfg = { .boost = -1, .misuse = RCB_MISUSE_WARN };
	unsigned long long m0;
	pthread_t t;
	int err;

	alarm(30);
	CHECK(rcb_init(&cfg) == 0);
	/* A reader holds up every grace period: nothing runs meanwhile. */
	CHECK(pthread_create(&t, NULL, holder, NULL) == 0);
	while (!atomic_load(&hold_in))
		usleep(100);
	m0 = misuse();
	CHECK(rcb_call(&h1, count_cb) == 0);
	err = rcb_call(&h1, count_cb);
	if (err != -EBUSY) {
		fprintf(stderr, "FAIL: rcb_call() of a head already queued returned %d, not -EBUSY\n",
			err);
		_exit(1);
	}
	CHECK_EQ(misuse(), m0 + 1);
	/* Many distinct heads, more than the debug set holds: no report. */
	for (int i = 0; i < MANY; i++) {
		struct rcb_head *h = malloc(sizeof(*h));

		CHECK(h && rcb_call(h, free_cb) == 0);
	}
	atomic_store(&hold_go, 1);
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(rcb_barrier() == 0);
	CHECK_EQ(atomic_load(&invoked), 1 + MANY);
	/* Queued again after its callback ran: no misuse. */
	CHECK(rcb_call(&h1, count_cb) == 0);
	CHECK(rcb_barrier() == 0);
	CHECK(rcb_call(&h2, requeue_cb) == 0);
	CHECK(rcb_barrier() == 0);
	CHECK(rcb_barrier() == 0);
	CHECK_EQ(atomic_load(&invoked), 1 + MANY + 1 + 2);
	CHECK_EQ(misuse(), m0 + 1);
	CHECK(rcb_shutdown() == 0);
	printf("a head queued twice was refused; re-queueing after or inside its callback was not\n");
	return 0;
}
