/* Bug (issue 12's "rcb_init(NULL) anomaly"): the library's threads were created
 * with default pthread attributes, so they copied the CPU affinity, policy and
 * priority of whichever application thread started the library. The first
 * rcb_synchronize() of a SCHED_FIFO thread pinned to one CPU pinned every
 * booster to that CPU and made the callback thread a SCHED_FIFO thread there;
 * the same program ran at different speeds depending on whether main() called
 * rcb_init(NULL) first. Started that way, the boosters and the callback thread
 * must still run on the process's CPUs, and the callback thread at SCHED_OTHER.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define MAXT 64

static struct rcb_head head;
static _Atomic int invoked;

static void cb(struct rcb_head *h)
{
	(void)h;
	invoked = 1;
}

static _Atomic int in_section;

/* Holds a read-side section for 100 ms, so that the starter's grace
 * period waits on it and starts the boosters (they start lazily, when a
 * grace period first waits for a reader). */
static void *reader(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	(void)arg;
	CHECK(rcb_register_thread() == 0);
	rcb_read_lock();
	in_section = 1;
	nanosleep(&ts, NULL);
	rcb_read_unlock();
	CHECK(rcb_unregister_thread() == 0);
	return NULL;
}

/* SCHED_FIFO, pinned: starts the library lazily.  Bounded: it only
 * waits (blocking calls and 1 ms sleeps, at most 30 s by alarm()). */
static void *starter(void *arg)
{
	struct timespec ms = { 0, 1000 * 1000 };
	int *err = arg;

	while (!in_section)
		nanosleep(&ms, NULL);
	if ((*err = rcb_synchronize()) == 0 &&
	    (*err = rcb_call(&head, cb)) == 0)
		*err = rcb_barrier();
	return NULL;
}

static void check_thread(const char *what, pid_t tid, const cpu_set_t *want,
			 int want_policy)
{
	cpu_set_t got;
	int policy;

	CHECK(sched_getaffinity(tid, sizeof(got), &got) == 0);
	if (!CPU_EQUAL(&got, want)) {
		fprintf(stderr, "FAIL: %s (tid %d) runs on %d CPU(s), the process's initial thread on %d: it copied the affinity of the thread that started the library\n",
			what, (int)tid, CPU_COUNT(&got), CPU_COUNT(want));
		exit(1);
	}
	policy = sched_getscheduler(tid);
	if (want_policy >= 0 && policy != want_policy) {
		fprintf(stderr, "FAIL: %s (tid %d) has policy %d, want %d: it copied the policy of the thread that started the library\n",
			what, (int)tid, policy, want_policy);
		exit(1);
	}
}

int main(void)
{
	struct sched_param sp = { .sched_priority = 10 };
	cpu_set_t proc, one;
	pthread_attr_t a;
	struct rcb_boost_stats bs = { .size = sizeof(bs) };
	pthread_t t, rt;
	pid_t tids[MAXT];
	int err, started_err = -1, last = -1, n;

	alarm(30);
	CHECK(sched_getaffinity(0, sizeof(proc), &proc) == 0);
	if (CPU_COUNT(&proc) < 2) {
		fprintf(stderr, "skip: the process may run on one CPU only\n");
		return 77;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &proc))
			last = c;
	CPU_ZERO(&one);
	CPU_SET(last, &one);
	CHECK(pthread_create(&rt, NULL, reader, NULL) == 0);
	CHECK(pthread_attr_init(&a) == 0);
	CHECK(pthread_attr_setaffinity_np(&a, sizeof(one), &one) == 0);
	CHECK(pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED) == 0);
	CHECK(pthread_attr_setschedpolicy(&a, SCHED_FIFO) == 0);
	CHECK(pthread_attr_setschedparam(&a, &sp) == 0);
	err = pthread_create(&t, &a, starter, &started_err);
	pthread_attr_destroy(&a);
	if (err == EPERM) {
		fprintf(stderr, "skip: no permission for SCHED_FIFO\n");
		return 77;
	}
	CHECK_EQ(err, 0);
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(pthread_join(rt, NULL) == 0);
	CHECK_EQ(started_err, 0);
	CHECK(invoked);

	n = rcb_callback_tids(tids, MAXT);
	CHECK(n >= 1);
	check_thread("the callback thread", tids[0], &proc, SCHED_OTHER);
	n = rcb_booster_tids(tids, MAXT);
	CHECK(rcb_boost_stats(&bs) == 0);
	if (n == 0 && !bs.enabled) {
		fprintf(stderr, "skip: boosting is off in this build or configuration\n");
		return 77;
	}
	if (n <= 0) {
		fprintf(stderr, "FAIL: no booster started although a grace period waited 100 ms for a reader\n");
		return 1;
	}
	/* A booster sets its own real-time policy; its CPUs are checked. */
	for (int i = 0; i < n && i < MAXT; i++)
		check_thread("a booster", tids[i], &proc, -1);
	CHECK(rcb_shutdown() == 0);
	printf("started from a pinned SCHED_FIFO thread: the callback thread and %d booster(s) on all %d CPUs\n",
	       n, CPU_COUNT(&proc));
	return 0;
}
