/* RCUBOOST_CPUS and the application's own affinity changes after init
 * (sched_setaffinity() of every thread, as "taskset -a -p"): with
 * RCUBOOST_CPUS=1 and every thread, the library's included, moved to
 * CPU 0, callbacks queued through rcb_call() and call_rcu() all run, a
 * barrier waits for them, a polled cookie elapses; a new worker starts
 * on CPU 1 (the setting, which the cpuset still allows, not the
 * creator's mask); rcb_init() after rcb_shutdown() accepts the setting
 * although the calling thread may not run on CPU 1 (the check asks what
 * the process may use, not the caller); without the setting, threads
 * start on the initial thread's CPUs. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rcuboost.h"
#include "rcuboost/urcu.h"
#include "tests/check.h"

static atomic_int ran;
static struct rcu_head uheads[10];
static struct rcb_head heads[10];

static void ucb(struct rcu_head *h)
{
	(void)h;
	atomic_fetch_add(&ran, 1);
}

static void cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&ran, 1);
}

/* Every thread of the process onto @cpu; returns how many. */
static int move_all(int cpu)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	cpu_set_t set;
	int n = 0;

	CHECK(d != NULL);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		/* ESRCH: it exited meanwhile. */
		if (sched_setaffinity(atoi(e->d_name), sizeof(set), &set) == 0)
			n++;
		else
			CHECK_EQ(errno, ESRCH);
	}
	closedir(d);
	return n;
}

/* @w's thread may run on @cpu only. */
static void check_on(struct rcb_worker *w, int cpu)
{
	cpu_set_t set;
	pid_t tid = rcb_worker_tid(w);

	CHECK(tid > 0);
	CHECK(sched_getaffinity(tid, sizeof(set), &set) == 0);
	printf("worker thread %d: %d CPU(s), CPU %d %s\n", (int)tid,
	       CPU_COUNT(&set), cpu, CPU_ISSET(cpu, &set) ? "in" : "NOT in");
	CHECK(CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set));
}

/* Callbacks on @w and the default worker, a cookie, a barrier. */
static void round_trip(struct rcb_worker *w)
{
	uint64_t cookie;

	atomic_store(&ran, 0);
	CHECK_EQ(rcb_worker_set_thread(w), 0);
	for (int i = 0; i < 10; i++)
		CHECK_EQ(rcb_call(&heads[i], cb), 0);
	CHECK_EQ(rcb_worker_set_thread(NULL), 0);
	for (int i = 0; i < 10; i++)
		call_rcu(&uheads[i], ucb);
	cookie = rcb_start_poll();
	rcu_barrier();
	printf("after rcu_barrier(): %d of 20 ran, cookie %s\n", atomic_load(&ran),
	       rcb_poll_state(cookie) == 1 ? "elapsed" : "NOT elapsed");
	CHECK_EQ(atomic_load(&ran), 20);
	CHECK_EQ(rcb_poll_state(cookie), 1);
	CHECK_EQ(rcb_barrier(), 0);
}

int main(void)
{
	struct rcb_worker *w;
	cpu_set_t set;

	alarm(60);
	if (sched_getaffinity(0, sizeof(set), &set) != 0 ||
	    !CPU_ISSET(0, &set) || !CPU_ISSET(1, &set)) {
		printf("skip: this process may not run on CPUs 0 and 1\n");
		return 77;
	}
	setenv("RCUBOOST_CPUS", "1", 1);
	CHECK_EQ(rcb_init(NULL), 0);
	round_trip(rcb_worker_default());
	printf("threads moved to CPU 0: %d\n", move_all(0));

	CHECK_EQ(rcb_worker_create(NULL, &w), 0);
	check_on(w, 1);
	round_trip(w);
	CHECK_EQ(rcb_worker_destroy(w), 0);

	/* The library's threads start again from a thread that may not
	 * run on CPU 1. */
	CHECK_EQ(rcb_shutdown(), 0);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_worker_create(NULL, &w), 0);
	check_on(w, 1);
	round_trip(w);
	CHECK_EQ(rcb_worker_destroy(w), 0);
	CHECK_EQ(rcb_shutdown(), 0);

	/* Without the setting: the initial thread's CPUs. */
	unsetenv("RCUBOOST_CPUS");
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_worker_create(NULL, &w), 0);
	check_on(w, 0);
	round_trip(w);
	CHECK_EQ(rcb_worker_destroy(w), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
