/* An expert review (2026-12-06): rcb_init() while another thread's
 * rcb_shutdown() was between its clearing of the running flag and its
 * stops re-initialised the library there and returned 0; the shutdown
 * then stopped the boosters and callback workers of the library the
 * caller had just been told runs: running, with no booster.  Now an
 * explicit rcb_init() waits for a shutdown in progress.
 *
 * 1,000 rounds: a thread calls rcb_shutdown() while the main thread calls
 * rcb_init() 0-400 us later.  Either order is fine, but a library that
 * runs afterwards (rcb_call() accepted) must have its boosters.  Needs
 * permission for real-time priority (the boosters'). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static struct rcb_head heads[1000];
static atomic_int ran;

static void count(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&ran, 1);
}

static void *shutter(void *arg)
{
	(void)arg;
	return (void *)(long)rcb_shutdown();
}

int main(void)
{
	int running_rounds = 0, stopped_rounds = 0;

	alarm(60);
	CHECK_EQ(rcb_init(NULL), 0);
	if (rcb_booster_tids(NULL, 0) <= 0) {
		printf("skip: no booster (no permission for real-time priority, or boosting off)\n");
		return 77;
	}
	srand(1);
	for (int i = 0; i < 1000; i++) {
		pthread_t t;
		void *ret;
		int err;

		CHECK_EQ(pthread_create(&t, NULL, shutter, NULL), 0);
		usleep((useconds_t)(rand() % 400));
		CHECK_EQ(rcb_init(NULL), 0);
		CHECK_EQ(pthread_join(t, &ret), 0);
		CHECK((long)ret == 0 || (long)ret == -EALREADY);
		err = rcb_call(&heads[i], count);
		if (err == 0) {
			running_rounds++;
			if (rcb_booster_tids(NULL, 0) <= 0) {
				printf("round %d: rcb_init() returned 0 and the library runs "
				       "(rcb_call() accepted), with no booster\n", i);
				return 1;
			}
			CHECK_EQ(rcb_barrier(), 0);
		} else {
			/* init first, then shutdown */
			CHECK_EQ(err, -ESHUTDOWN);
			stopped_rounds++;
			CHECK_EQ(rcb_init(NULL), 0);
		}
	}
	printf("1000 rounds: %d ran on, %d stopped; every running library had its boosters\n",
	       running_rounds, stopped_rounds);
	CHECK_EQ(atomic_load(&ran), running_rounds);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
