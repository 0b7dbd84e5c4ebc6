/* A hostile-user probe and an expert review (2026-12-06): rcb_defer()
 * after rcb_shutdown(), or when the callback thread could not start,
 * returned 0 and left its entry queued with no drain to come: it ran
 * only once 4096 more entries filled the queue, or at a barrier, and
 * not after a re-initialisation either (2 s later: 0 of 2 run).  Now
 * rcb_defer() waits for a grace period and drains its queue itself
 * whenever no drain callback can be queued.
 *
 * 1. After rcb_shutdown(): 100 entries, each run within 2 s of its
 *    rcb_defer() (in practice before it returns); after rcb_init()
 *    again, one more runs within 5 s with nobody calling a barrier.
 * 2. The callback thread's start fails (fault injection,
 *    tests/fault_inject.c) at the first rcb_defer(): its entry too
 *    runs within 2 s. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/fault_inject.h"

static atomic_int ran;

static void count(void *p)
{
	(void)p;
	atomic_fetch_add(&ran, 1);
}

/* Waits up to @ms for ran >= @want; the ms waited. */
static int wait_ran(int want, int ms)
{
	int waited = 0;

	while (atomic_load(&ran) < want && waited < ms) {
		usleep(1000);
		waited++;
	}
	return waited;
}

int main(void)
{
	const char *what = NULL;
	int waited, worst = 0;

	alarm(30);
	/* 1. */
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	for (int i = 1; i <= 100; i++) {
		CHECK_EQ(rcb_defer(count, NULL), 0);
		waited = wait_ran(i, 2000);
		if (waited > worst)
			worst = waited;
		if (atomic_load(&ran) < i)
			break; /* not run within 2 s: the check below fails */
	}
	printf("after rcb_shutdown(): %d of 100 entries ran, the slowest %d ms after its rcb_defer()\n",
	       atomic_load(&ran), worst);
	CHECK_EQ(atomic_load(&ran), 100);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_defer(count, NULL), 0);
	waited = wait_ran(101, 5000);
	printf("after rcb_init() again: the next entry %s (%d ms)\n",
	       atomic_load(&ran) == 101 ? "ran" : "did not run", waited);
	CHECK_EQ(atomic_load(&ran), 101);
	CHECK_EQ(rcb_shutdown(), 0);

	/* 2. A fresh start: the callback thread starts at the first call
	 * that queues to it. */
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_callback_tids(NULL, 0), 0); /* not started yet */
	fi_arm_sticky(FI_THREAD);
	CHECK_EQ(rcb_defer(count, NULL), 0);
	CHECK(fi_disarm(&what));
	printf("the callback thread's start failed (%s)\n", what);
	waited = wait_ran(102, 2000);
	printf("its entry %s (%d ms after rcb_defer() returned)\n",
	       atomic_load(&ran) == 102 ? "ran" : "did not run", waited);
	CHECK_EQ(atomic_load(&ran), 102);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
