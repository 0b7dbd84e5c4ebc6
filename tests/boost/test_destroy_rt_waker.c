/*
 * A real-time rcb_worker_destroy() must not starve the late waker it
 * waits for.  A call nested in a section of the caller's own leaves the
 * worker's start or wake-up to the outermost unlock (callback.c
 * invariants 4 and 9), and the destroy frees the worker only once that
 * is done (late_wakers, callback_worker.c W4).  Here, in a forked child
 * (whose workers have no thread, so the late waker has to take the
 * worker lock), the caller T (SCHED_OTHER) and the destroyer D
 * (SCHED_FIFO 10) share CPU 0: T's outermost unlock first wakes D's
 * grace period, so D preempts T before T's late start and comes to the
 * wait for it.  D used to spin there with sched_yield(), which never lets
 * a SCHED_OTHER thread run: the destroy took as long as real-time
 * throttling kept T off the CPU (0.95 s per second by default, for ever
 * without throttling).  Now D sleeps on the count and the last waker
 * wakes it; the destroy must end within 0.5 s of T's unlock (a
 * millisecond or less expected).  Boosting is off: only the two threads
 * matter.  D's spin, were it back, is bounded by throttling and the
 * watchdog; the test skips when throttling is off (sched_rt_runtime_us
 * -1), and under ThreadSanitizer (fork).
 */
#define _GNU_SOURCE
#include "tests/boost/rt.h"

#include <stdbool.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#include "rcuboost.h"

#define D_PRIO 10
#define BOUND_S 0.5

static struct rcb_worker *w;
static atomic_int ran, t_in_section, d_destroying;
static double t_unlock_at, d_done_at;
static struct rcb_head head;

static void cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&ran, 1);
}

static void wait_for(atomic_int *f)
{
	double end = rt_now() + 10;

	while (!atomic_load(f)) {
		CHECK(rt_now() < end);
		usleep(1000);
	}
}

static void *caller(void *arg)
{
	(void)arg;
	rt_pin(0);
	CHECK_EQ(rcb_worker_set_thread(w), 0);
	rcb_read_lock();
	rcb_read_lock();
	CHECK_EQ(rcb_call(&head, cb), 0); /* start left to the unlock */
	rcb_read_unlock();
	atomic_store(&t_in_section, 1);
	wait_for(&d_destroying);
	usleep(100000); /* D sleeps in the destroy's grace period */
	t_unlock_at = rt_now();
	rcb_read_unlock();
	CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

static void *destroyer(void *arg)
{
	struct rt_attr before, after;

	(void)arg;
	rt_pin(0);
	CHECK(rt_get(0, &before) == 0);
	CHECK(rt_set(0, SCHED_FIFO, D_PRIO, 0) == 0);
	wait_for(&t_in_section);
	atomic_store(&d_destroying, 1);
	CHECK_EQ(rcb_worker_destroy(w), 0);
	d_done_at = rt_now();
	CHECK(rt_set(0, before.policy, (int)before.prio, before.nice) == 0);
	CHECK(rt_get(0, &after) == 0);
	CHECK(rt_same(&before, &after));
	return NULL;
}

static int child(void)
{
	pthread_t t, d;
	double took;

	rt_watchdog(30);
	CHECK_EQ(pthread_create(&t, NULL, caller, NULL), 0);
	CHECK_EQ(pthread_create(&d, NULL, destroyer, NULL), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(pthread_join(d, NULL), 0);
	CHECK_EQ(rcb_barrier(), 0);
	took = d_done_at - t_unlock_at;
	printf("SCHED_FIFO destroy ended %.1f ms after the SCHED_OTHER late waker's unlock on its CPU (bound %.0f ms); callbacks run: %d\n",
	       took * 1e3, BOUND_S * 1e3, atomic_load(&ran));
	fflush(stdout);
	CHECK_EQ(atomic_load(&ran), 1);
	CHECK(took < BOUND_S);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}

int main(void)
{
	struct rcb_config cfg = { .size = sizeof(cfg), .boost = -1 };
	struct rcb_worker_attr a = { .size = sizeof(a), .flags = RCB_WORKER_PIN,
				     .cpu = 1 };
	FILE *f;
	long rt_runtime = 0;
	pid_t pid;
	int st;
	cpu_set_t allowed;

#if defined(__SANITIZE_THREAD__)
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	rt_require();
	CPU_ZERO(&allowed);
	CHECK_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	if (get_nprocs() < 2 || !CPU_ISSET(0, &allowed) ||
	    !CPU_ISSET(1, &allowed)) {
		fprintf(stderr, "skip: needs CPUs 0 and 1\n");
		return 77;
	}
	f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
	if (f) {
		if (fscanf(f, "%ld", &rt_runtime) != 1)
			rt_runtime = 0;
		fclose(f);
	}
	if (rt_runtime < 0) {
		fprintf(stderr, "skip: real-time throttling is off (sched_rt_runtime_us -1)\n");
		return 77;
	}
	rt_watchdog(60);
	CHECK_EQ(rcb_init(&cfg), 0);
	CHECK_EQ(rcb_worker_create(&a, &w), 0);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(child());
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	CHECK_EQ(rcb_worker_destroy(w), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
