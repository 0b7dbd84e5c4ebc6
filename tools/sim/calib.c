/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-calib: measure, on this machine, the unit costs that the scale
 * model (scale.c) charges for each operation of the library's O(CPUs) and
 * O(threads) loops.  Prints "name value_ns" lines (medians) that
 * rcuboost-scale --calib FILE reads:
 *   membarrier   one MEMBARRIER_CMD_PRIVATE_EXPEDITED while no other CPU
 *                runs a thread of ours (no IPI: the syscall and the CPU walk)
 *   membarrier_ipi  the same while a thread of ours spins on the other CPU
 *                (one IPI and its acknowledgement)
 *   setattr      sched_setattr to SCHED_FIFO 49 and back (a boost and its
 *                restore: the sched backend's two setattr calls)
 *   getattr      one sched_getattr (taken before a boost)
 *   proc_cpu     open + read + close of /proc/self/task/TID/stat (the
 *                booster's "last CPU" of a preempted reader)
 *   futex_wake   FUTEX_WAKE with no waiter
 *   mutex        an uncontended pthread mutex lock + unlock pair
 * The registry scan's per-thread cost is not measured here: it is fitted
 * from rcuboost-bench scale (grace period against registered threads).
 * Real-time safety: the calling thread is SCHED_FIFO only between two
 * consecutive setattr calls (microseconds), a bounded number of times,
 * and ends at its original attributes.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define N 2001

struct attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t v[N];

static double median(void)
{
	qsort(v, N, sizeof(v[0]), cmp);
	return (double)v[N / 2];
}

static int futex_word;
static volatile int spin_stop;

/* Keeps a thread of ours on the other CPU (SCHED_OTHER), so that
 * membarrier must interrupt it; stops when told, bounded by the loop. */
static void *spinner(void *arg)
{
	(void)arg;
	while (!spin_stop)
		;
	return NULL;
}
static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv)
{
	char path[64], buf[512];
	struct attr old, rt;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	int i, ok;

	if (argc > 1) {
		printf("Usage: rcuboost-calib\nMeasure the scale model's unit costs "
		       "(ns, medians of %d): membarrier, setattr, getattr,\n"
		       "proc_cpu, futex_wake, mutex.  Needs root for setattr.\n", N);
		return strcmp(argv[1], "--help") ? 2 : 0;
	}
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
		    0, 0))
		perror("membarrier register");
	for (i = 0; i < N; i++) {
		uint64_t t0 = now();

		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
		v[i] = now() - t0;
	}
	printf("membarrier %.0f\n", median());
	{
		pthread_t th;
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (pthread_create(&th, NULL, spinner, NULL) == 0) {
			CPU_ZERO(&set);
			CPU_SET(1, &set);
			pthread_setaffinity_np(th, sizeof(set), &set);
			usleep(20000);
			for (i = 0; i < N; i++) {
				uint64_t t0 = now();

				syscall(SYS_membarrier,
					MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
				v[i] = now() - t0;
			}
			spin_stop = 1;
			pthread_join(th, NULL);
			printf("membarrier_ipi %.0f\n", median());
		}
	}

	memset(&old, 0, sizeof(old));
	for (i = 0; i < N; i++) {
		uint64_t t0 = now();

		syscall(SYS_sched_getattr, 0, &old, sizeof(old), 0);
		v[i] = now() - t0;
	}
	printf("getattr %.0f\n", median());
	rt = old;
	rt.sched_policy = SCHED_FIFO;
	rt.sched_priority = 49;
	rt.sched_nice = 0;
	ok = 1;
	for (i = 0; i < N && ok; i++) {
		uint64_t t0 = now();

		if (syscall(SYS_sched_setattr, 0, &rt, 0))
			ok = 0;
		syscall(SYS_sched_setattr, 0, &old, 0);
		v[i] = now() - t0;
	}
	if (ok)
		printf("setattr %.0f\n", median());
	else
		fprintf(stderr, "rcuboost-calib: sched_setattr refused (not root?): setattr not measured\n");

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	for (i = 0; i < N; i++) {
		uint64_t t0 = now();
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				perror("read");
			close(fd);
		}
		v[i] = now() - t0;
	}
	printf("proc_cpu %.0f\n", median());

	for (i = 0; i < N; i++) {
		uint64_t t0 = now();

		syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
		v[i] = now() - t0;
	}
	printf("futex_wake %.0f\n", median());

	for (i = 0; i < N; i++) {
		uint64_t t0 = now();

		for (int k = 0; k < 100; k++) {
			pthread_mutex_lock(&mx);
			pthread_mutex_unlock(&mx);
		}
		v[i] = (now() - t0) / 100;
	}
	printf("mutex %.0f\n", median());
	return 0;
}
