/* Bug: a reader that changed its own scheduling attributes right after the
 * booster raised it (as it may: it sees the boost at once) had them undone at
 * its outermost unlock, because the booster read the attributes back after
 * setting them and took the application's change for its own. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/boost/rt.h"
#include "rcuboost.h"

#define ROUNDS 300

static atomic_int lost, changed;

static void *reader(void *arg)
{
	struct rt_attr a;

	(void)arg;
	rt_pin(0);
	CHECK(rcb_register_thread() == 0);
	for (int i = 0; i < ROUNDS; i++) {
		double end = rt_now() + 0.1;
		int mine = 0;

		CHECK(rt_set(0, SCHED_FIFO, 2, 0) == 0);
		rcb_read_lock();
		rcb_note_block();
		/* Spin (bounded) until boosted, then change at once. */
		while (rt_now() < end) {
			CHECK(rt_get(0, &a) == 0);
			if (a.policy == SCHED_FIFO && a.prio > 2) {
				CHECK(rt_set(0, SCHED_FIFO, 9, 0) == 0);
				mine = 1;
				break;
			}
		}
		rcb_read_unlock();
		CHECK(rt_get(0, &a) == 0);
		if (mine) {
			atomic_fetch_add(&changed, 1);
			if (a.policy != SCHED_FIFO || a.prio != 9)
				atomic_fetch_add(&lost, 1);
		}
	}
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	CHECK(rcb_unregister_thread() == 0);
	return NULL;
}

int main(void)
{
	struct rcb_config cfg = { .boost = 1,
				  .boost_period_ms = 1,
				  .boost_elements = 2 };
	pthread_t r;

	rt_require();
	rt_watchdog(60);
	rt_pin(1);
	CHECK(rcb_init(&cfg) == 0);
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	pthread_join(r, NULL);
	printf("%d of %d sections changed their attributes right after being boosted; "
	       "%d of those changes were undone at unlock\n",
	       atomic_load(&changed), ROUNDS, atomic_load(&lost));
	CHECK(atomic_load(&changed) > ROUNDS / 2);
	CHECK(atomic_load(&lost) == 0);
	CHECK(rcb_shutdown() == 0);
	return 0;
}
