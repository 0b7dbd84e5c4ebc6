/* rcb_call() woke the callback thread from inside its own read-side
 * critical section.  On a CPU they share, the woken thread preempted
 * the caller there and started its grace period at once, which the
 * caller, preempted inside its section, held: the thread spun on the
 * registry, slept, and was woken again by the caller's unlock.  Every
 * callback cost a sleeping grace period (and, with other readers, a
 * futex wake-up from each of them; scripts/cyclictest.sh's busy load
 * made its reader issue thousands a second).  Here the caller and the
 * library's threads share CPU 0; callbacks come one per millisecond, so
 * the callback thread sleeps between them and each call wakes it.  Its
 * grace periods must not wait for the caller: at most a quarter of
 * them may sleep (before the fix: nearly all). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define CALLS 200

static atomic_int invoked;

static void count(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&invoked, 1);
}

int main(void)
{
	static struct rcb_head heads[CALLS];
	struct rcb_gp_stats before, after;
	unsigned long long slept, gps;
	cpu_set_t one;

	/* The library's threads take the initial thread's CPUs. */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0);
	CHECK(rcb_init(NULL) == 0);
	CHECK(rcb_register_thread() == 0);
	/* Start the callback thread and let it go to sleep. */
	CHECK(rcb_call(&heads[0], count) == 0);
	CHECK(rcb_barrier() == 0);
	usleep(10 * 1000);
	rcb_stats(&before);
	for (int i = 1; i < CALLS; i++) {
		CHECK(rcb_call(&heads[i], count) == 0);
		usleep(1000);
	}
	CHECK(rcb_barrier() == 0);
	rcb_stats(&after);
	CHECK(atomic_load(&invoked) == CALLS);
	slept = after.futex_waits - before.futex_waits;
	gps = after.grace_periods - before.grace_periods;
	printf("%d callbacks one per ms from CPU 0: %llu grace periods, %llu of them slept\n",
	       CALLS - 1, gps, slept);
	CHECK(gps > 0);
	CHECK(slept <= (CALLS - 1) / 4);
	CHECK(rcb_unregister_thread() == 0);
	return 0;
}
