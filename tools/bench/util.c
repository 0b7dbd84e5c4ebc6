/* SPDX-License-Identifier: MIT */
/* rcuboost-bench: clocks, threads and pinning, statistics. */
#define _GNU_SOURCE /* CPU_SET, pthread_attr_setaffinity_np */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct timespec ns_to_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};

	return ts;
}

void bench_sleep_ns(uint64_t ns)
{
	struct timespec ts = ns_to_ts(ns);

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

void bench_sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = ns_to_ts(deadline_ns);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void bench_pick_cpus(int *a, int *b)
{
	cpu_set_t set;
	int found = 0;

	*a = *b = -1;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	for (int cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (found++ == 0)
			*a = cpu;
		else
			*b = cpu;
	}
	if (*b < 0)
		*b = *a;
}

void bench_thread_start(pthread_t *t, int cpu, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	pthread_attr_init(&attr);
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		err = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		if (err) {
			fprintf(stderr, "rcuboost-bench: cannot pin to CPU %d: %s\n",
				cpu, strerror(err));
			exit(1);
		}
	}
	err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (err) {
		fprintf(stderr, "rcuboost-bench: pthread_create: %s\n", strerror(err));
		exit(1);
	}
}

void bench_thread_join(pthread_t t)
{
	int err = pthread_join(t, NULL);

	if (err) {
		fprintf(stderr, "rcuboost-bench: pthread_join: %s\n", strerror(err));
		exit(1);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_quantile_u64(uint64_t *v, size_t n, double q)
{
	size_t i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	i = (size_t)(q * (double)(n - 1) + 0.5);
	if (i >= n)
		i = n - 1;
	return (double)v[i];
}

double bench_median(const double *v, unsigned int n)
{
	double tmp[BENCH_MAX_ROUNDS];

	if (!n)
		return 0;
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	if (n % 2)
		return tmp[n / 2];
	return (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

void *bench_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "rcuboost-bench: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

void bench_progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

void bench_gate_init(struct bench_gate *g, unsigned int parties)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->parties = parties;
	g->arrived = 0;
	g->open = 0;
}

void bench_gate_wait(struct bench_gate *g)
{
	pthread_mutex_lock(&g->lock);
	if (++g->arrived == g->parties) {
		g->open = 1;
		pthread_cond_broadcast(&g->cond);
	}
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

void bench_gate_destroy(struct bench_gate *g)
{
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}
