/* Bug: when the callback thread could not be created (RLIMIT_NPROC, a cgroup's
 * pids limit), liburcu's call_rcu() over rcuboost dropped every callback (1,000
 * of 1,000 objects leaked, a message for each), and rcb_call()'s -EAGAIN was
 * undocumented. Now rcb_call() returns the error with nothing queued and says
 * so (at the 1st, 2nd, 4th... failure), and call_rcu() waits for a grace period
 * and runs the callback itself, as liburcu's defer_rcu() does when its queue is
 * full: nothing lost. The thread creation fails here by fault injection
 * (tests/fault_inject.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>

#include "rcuboost/urcu.h"
#include "tests/check.h"
#include "tests/fault_inject.h"

static atomic_int native_ran, urcu_ran;
static struct rcb_head native_head;
static struct rcu_head urcu_heads[3];

static void native_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&native_ran, 1);
}

static void urcu_cb(struct rcu_head *h)
{
	(void)h;
	atomic_fetch_add(&urcu_ran, 1);
}

int main(void)
{
	const char *what = NULL;

	/* boosters started; no callback thread yet */
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_callback_tids(NULL, 0), 0);

	/* Native: the error, nothing queued, the head still the caller's. */
	fi_arm(1, FI_THREAD);
	CHECK_EQ(rcb_call(&native_head, native_cb), -EAGAIN);
	CHECK(fi_disarm(&what));
	CHECK_EQ(rcb_callback_tids(NULL, 0), 0);

	/* liburcu: the callback runs before call_rcu() returns, after a
	 * grace period; every one of them. */
	for (int i = 0; i < 2; i++) {
		fi_arm(1, FI_THREAD);
		call_rcu(&urcu_heads[i], urcu_cb);
		CHECK(fi_disarm(&what));
		CHECK_EQ(atomic_load(&urcu_ran), i + 1);
	}

	/* Threads can start again: both ways work as usual. */
	CHECK_EQ(rcb_call(&native_head, native_cb), 0);
	call_rcu(&urcu_heads[2], urcu_cb);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&native_ran), 1);
	CHECK_EQ(atomic_load(&urcu_ran), 3);
	CHECK_EQ(rcb_callback_tids(NULL, 0), 1);
	CHECK_EQ(rcb_shutdown(), 0);
	printf("callback thread creation failed 3 times: rcb_call() -EAGAIN, call_rcu() ran its callbacks itself\n");
	return 0;
}
