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
 * them may sleep (before the fix: 130 of 200).  The same with each
 * call inside a read-side critical section of the caller's own
 * (liburcu's idiom): the wake-up waits for that section's end; and
 * the same again through a private worker (liburcu's per-CPU and
 * per-thread call_rcu data). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
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

/* Callbacks one per ms, each queued inside a section of ours if
 * @nested; how many of the grace periods that followed slept. */
static unsigned long long run(struct rcb_head *heads, int n, bool nested)
{
	struct rcb_gp_stats before, after;
	unsigned long long slept, gps;

	rcb_stats(&before);
	for (int i = 0; i < n; i++) {
		if (nested)
			rcb_read_lock();
		CHECK(rcb_call(&heads[i], count) == 0);
		if (nested)
			rcb_read_unlock();
		usleep(1000);
	}
	CHECK(rcb_barrier() == 0);
	rcb_stats(&after);
	slept = after.futex_waits - before.futex_waits;
	gps = after.grace_periods - before.grace_periods;
	printf("%d callbacks one per ms from CPU 0 to the %s worker%s: %llu grace periods, "
	       "%llu of them slept\n", n,
	       rcb_worker_current() == rcb_worker_default() ? "default" : "private",
	       nested ? ", each inside a section" : "", gps, slept);
	CHECK(gps > 0);
	return slept;
}

int main(void)
{
	static struct rcb_head heads[3 * CALLS + 1];
	struct rcb_worker *w;
	cpu_set_t one;
	int bad = 0;

	/* The library's threads take the initial thread's CPUs. */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0);
	CHECK(rcb_init(NULL) == 0);
	CHECK(rcb_register_thread() == 0);
	/* Start the callback thread and let it go to sleep. */
	CHECK(rcb_call(&heads[3 * CALLS], count) == 0);
	CHECK(rcb_barrier() == 0);
	usleep(10 * 1000);
	if (run(heads, CALLS, false) > CALLS / 4)
		bad = 1;
	if (run(heads + CALLS, CALLS, true) > CALLS / 4)
		bad = 1;
	CHECK(rcb_worker_create(NULL, &w) == 0);
	CHECK(rcb_worker_set_thread(w) == 0);
	usleep(10 * 1000);
	if (run(heads + 2 * CALLS, CALLS, true) > CALLS / 4)
		bad = 1;
	CHECK(rcb_worker_set_thread(NULL) == 0);
	CHECK(rcb_worker_destroy(w) == 0);
	CHECK(atomic_load(&invoked) == 3 * CALLS + 1);
	CHECK(rcb_unregister_thread() == 0);
	if (bad)
		fprintf(stderr, "more than %d grace periods slept: the callback thread "
				"waited for the caller it had preempted\n", CALLS / 4);
	return bad;
}
