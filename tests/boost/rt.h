/* Real-time helpers for the boost tests: pinning, policy changes, a CPU
 * hog with a hard time bound, and a watchdog.  Every RT thread these
 * helpers start stops by itself and restores its attributes. */
#ifndef RCB_TEST_RT_H
#define RCB_TEST_RT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tests/check.h"

struct rt_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t prio;
	uint64_t runtime, deadline, period;
};

static inline double rt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void rt_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	CHECK(pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0);
}

static inline int rt_get(pid_t tid, struct rt_attr *a)
{
	memset(a, 0, sizeof(*a));
	return (int)syscall(SYS_sched_getattr, tid, a, sizeof(*a), 0);
}

static inline int rt_set(pid_t tid, uint32_t policy, int prio, int nice)
{
	struct rt_attr a = { .size = sizeof(a), .policy = policy,
			     .prio = (uint32_t)prio, .nice = nice };

	return (int)syscall(SYS_sched_setattr, tid, &a, 0);
}

static inline int rt_same(const struct rt_attr *a, const struct rt_attr *b)
{
	if (a->policy != b->policy)
		return 0;
	if (a->policy == SCHED_FIFO || a->policy == SCHED_RR)
		return a->prio == b->prio;
	return a->nice == b->nice;
}

/* Busy-spin until rt_now() reaches @end; bounded whatever happens. */
static inline void rt_spin_until(double end)
{
	while (rt_now() < end)
		;
}

/* Busy-spin for @seconds; the clock check bounds it whatever happens. */
static inline void rt_spin(double seconds)
{
	rt_spin_until(rt_now() + seconds);
}

struct rt_hog {
	pthread_t thread;
	int cpu, prio;
	double seconds;
	/* rt_now() when the spin began and when it ends by the clock,
	 * written before started is set: checks relative to the hog ("the
	 * grace period ended before the hog did") need no guess of how
	 * late a thread of the test saw it start. */
	_Atomic double start_at, end_at;
	atomic_int started;
	/* rt_hog_arm()/rt_hog_fire() only: asleep on its CPU, woken by go;
	 * ended once it gave its CPU back (fired or not). */
	atomic_int armed, go, ended;
};

/* The hog's spin starts now: its window, then started (see rt_hog). */
static inline double rt_hog_mark_start(struct rt_hog *h)
{
	double now = rt_now();

	atomic_store(&h->start_at, now);
	atomic_store(&h->end_at, now + h->seconds);
	atomic_store(&h->started, 1);
	return now + h->seconds;
}

/* How long an armed hog waits to be fired before it gives up. */
#define RT_HOG_ARM_S 5.0

static void *rt_hog_main(void *arg)
{
	struct rt_hog *h = arg;

	/* Real-time first, then onto the CPU: as SCHED_OTHER it might not
	 * get onto a CPU where a real-time reader spins. */
	CHECK(rt_set(0, SCHED_FIFO, h->prio, 0) == 0);
	rt_pin(h->cpu);
	rt_spin_until(rt_hog_mark_start(h));
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	return NULL;
}

/* Start a SCHED_FIFO @prio hog pinned to @cpu for @seconds (< 10). */
static inline void rt_hog_start(struct rt_hog *h, int cpu, int prio,
				double seconds)
{
	CHECK(seconds > 0 && seconds < 10);
	h->cpu = cpu;
	h->prio = prio;
	h->seconds = seconds;
	atomic_store(&h->start_at, 0);
	atomic_store(&h->end_at, 0);
	atomic_store(&h->started, 0);
	CHECK(pthread_create(&h->thread, NULL, rt_hog_main, h) == 0);
	while (!atomic_load(&h->started))
		usleep(100);
}

static void *rt_hog_armed_main(void *arg)
{
	struct rt_hog *h = arg;
	double end;

	CHECK(rt_set(0, SCHED_FIFO, h->prio, 0) == 0);
	rt_pin(h->cpu);
	atomic_store(&h->armed, 1);
	/* Asleep, not spinning, until fired; bounded if never fired. */
	end = rt_now() + RT_HOG_ARM_S;
	while (!atomic_load(&h->go)) {
		double left = end - rt_now();
		struct timespec ts;

		if (left <= 0)
			break;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		syscall(SYS_futex, &h->go, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	}
	if (atomic_load(&h->go))
		rt_spin_until(rt_hog_mark_start(h));
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
	atomic_store(&h->ended, 1);
	return NULL;
}

/*
 * Arm a SCHED_FIFO @prio hog for @seconds (< 10) on @cpu: on return it
 * sleeps there, real-time already, until rt_hog_fire() (at most
 * RT_HOG_ARM_S), then spins like rt_hog_start()'s.  For a thread that
 * must be preempted at a precise point, e.g. inside a read-side critical
 * section: with rt_hog_start() the hog reaches the CPU some time after
 * the victim got there, and a victim boosted meanwhile above the hog
 * (the library's job) would keep it off the CPU for good.
 */
static inline void rt_hog_arm(struct rt_hog *h, int cpu, int prio,
			      double seconds)
{
	CHECK(seconds > 0 && seconds < 10);
	h->cpu = cpu;
	h->prio = prio;
	h->seconds = seconds;
	atomic_store(&h->start_at, 0);
	atomic_store(&h->end_at, 0);
	atomic_store(&h->started, 0);
	atomic_store(&h->armed, 0);
	atomic_store(&h->go, 0);
	atomic_store(&h->ended, 0);
	CHECK(pthread_create(&h->thread, NULL, rt_hog_armed_main, h) == 0);
	while (!atomic_load(&h->armed))
		usleep(100);
}

/*
 * Fire an armed hog.  Called on the hog's CPU by a thread below its
 * priority, the hog preempts the caller inside this call (wake-up
 * preemption) and the caller resumes when the hog ends or something
 * raises the caller above it; a caller already above the hog returns at
 * once and the hog runs once the caller lets it.
 */
static inline void rt_hog_fire(struct rt_hog *h)
{
	atomic_store(&h->go, 1);
	syscall(SYS_futex, &h->go, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static inline void rt_hog_join(struct rt_hog *h)
{
	pthread_join(h->thread, NULL);
}

/* A hang becomes a failure: SIGALRM kills the process, RT threads too. */
static inline void rt_watchdog(unsigned int seconds)
{
	signal(SIGALRM, SIG_DFL);
	alarm(seconds);
}

/* Real-time tests need root (or CAP_SYS_NICE); exit 77 (skip) without. */
static inline void rt_require(void)
{
	if (rt_set(0, SCHED_FIFO, 1, 0) != 0) {
		fprintf(stderr, "skip: no permission for SCHED_FIFO (%s)\n",
			strerror(errno));
		exit(77);
	}
	CHECK(rt_set(0, SCHED_OTHER, 0, 0) == 0);
}

#endif
