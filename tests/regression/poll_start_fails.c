/* A hostile-user probe (2026-12-06): rcb_start_poll() whose request had
 * to go to a callback thread that could not start (RLIMIT_NPROC) dropped
 * the request: its cookie never elapsed, even once threads could start
 * again, and the message named rcb_call(), which the program never
 * called.  Now the caller runs the grace period itself in that case.
 *
 * A reader holds a section for 100 ms (so the cold call cannot finish a
 * grace period on the spot and must ask the callback thread, which has
 * not started yet); the thread's start fails (fault injection,
 * tests/fault_inject.c).  The cookie must have elapsed when
 * rcb_start_poll() returns, or within 2 s at worst. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/fault_inject.h"

static atomic_int inside;

static void *reader(void *arg)
{
	(void)arg;
	rcb_read_lock();
	atomic_store(&inside, 1);
	usleep(100000);
	rcb_read_unlock();
	return NULL;
}

int main(void)
{
	const char *what = NULL;
	pthread_t r;
	uint64_t c;
	int waited_ms = 0;

	alarm(30);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_callback_tids(NULL, 0), 0); /* not started yet */
	CHECK_EQ(pthread_create(&r, NULL, reader, NULL), 0);
	while (!atomic_load(&inside))
		usleep(1000);
	fi_arm(1, FI_THREAD);
	c = rcb_start_poll();
	CHECK(fi_disarm(&what));
	printf("the callback thread's start failed (%s)\n", what);
	while (rcb_poll_state(c) != 1 && waited_ms < 2000) {
		usleep(1000);
		waited_ms++;
	}
	printf("cookie %llu elapsed: %s, %d ms after rcb_start_poll() returned\n",
	       (unsigned long long)c, rcb_poll_state(c) == 1 ? "yes" : "no",
	       waited_ms);
	CHECK_EQ(rcb_poll_state(c), 1);
	CHECK_EQ(pthread_join(r, NULL), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
