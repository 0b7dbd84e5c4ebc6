/* SPDX-License-Identifier: MIT */
/*
 * The load beside which scripts/cyclictest.sh measures cyclictest on
 * CPU 0.  usage: cyclictest_load rcuboost|urcu|none idle|busy|inversion SECONDS
 *  none:      the same threads and loops without any RCU call: the
 *             baseline of a busy CPU 0 (its updater frees at once)
 *  idle:      the library initialised (rcuboost: boosters started), nothing else
 *  busy:      a SCHED_OTHER reader on CPU 0 in back-to-back critical
 *             sections, an updater on CPU 1 with a grace period and a
 *             callback every millisecond
 *  inversion: busy, and every 200 ms a SCHED_FIFO 10 reader on CPU 0 is
 *             preempted inside its section by a SCHED_FIFO 40 hog for
 *             at most 100 ms (hog and reader end by themselves)
 * Every real-time thread here has a hard time bound; the process ends
 * after SECONDS (at most 60).  Not part of the build: the script
 * compiles it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#define _LGPL_SOURCE
#include <urcu/urcu-memb.h>

static int use_urcu, use_none;
static atomic_int stop_all;
static atomic_long read_sections, grace_periods;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static void set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	pthread_setschedparam(pthread_self(), prio ? SCHED_FIFO : SCHED_OTHER, &sp);
}

static void reg(void)
{
	if (use_none)
		return;
	if (use_urcu)
		urcu_memb_register_thread();
	else
		rcb_register_thread();
}

static void unreg(void)
{
	if (use_none)
		return;
	if (use_urcu)
		urcu_memb_unregister_thread();
	else
		rcb_unregister_thread();
}

static void rlock(void)
{
	if (use_none) {
		atomic_signal_fence(memory_order_seq_cst);
		return;
	}
	if (use_urcu)
		urcu_memb_read_lock();
	else
		rcb_read_lock();
}

static void runlock(void)
{
	if (use_none) {
		atomic_signal_fence(memory_order_seq_cst);
		return;
	}
	if (use_urcu)
		urcu_memb_read_unlock();
	else
		rcb_read_unlock();
}

static void *reader(void *arg)
{
	(void)arg;
	pin(0);
	reg();
	while (!atomic_load(&stop_all)) {
		for (int i = 0; i < 1000; i++) {
			rlock();
			runlock();
		}
		atomic_fetch_add(&read_sections, 1000);
	}
	unreg();
	return NULL;
}

struct cb {
	struct rcb_head h;
	struct rcu_head u;
};

static void free_rcb(struct rcb_head *h)
{
	free((char *)h - offsetof(struct cb, h));
}

static void free_urcu(struct rcu_head *h)
{
	free((char *)h - offsetof(struct cb, u));
}

static void *updater(void *arg)
{
	(void)arg;
	pin(1);
	reg();
	while (!atomic_load(&stop_all)) {
		struct cb *c = malloc(sizeof(*c));

		if (use_none) {
			free(c);
		} else if (use_urcu) {
			urcu_memb_synchronize_rcu();
			urcu_memb_call_rcu(&c->u, free_urcu);
		} else {
			rcb_synchronize();
			rcb_call(&c->h, free_rcb);
		}
		atomic_fetch_add(&grace_periods, 1);
		usleep(1000);
	}
	unreg();
	return NULL;
}

static atomic_int hog_go;

static void *hog(void *arg)
{
	double end;

	(void)arg;
	set_fifo(40);
	pin(0);
	while (!atomic_load(&hog_go))
		usleep(100); /* the reader fires it from inside its section */
	end = now() + 0.1;
	while (now() < end)
		;
	set_fifo(0);
	return NULL;
}

/* One inversion: bounded by the hog's 100 ms. */
static void *rt_reader(void *arg)
{
	pthread_t h;

	(void)arg;
	pin(0);
	set_fifo(10);
	reg();
	atomic_store(&hog_go, 0);
	pthread_create(&h, NULL, hog, NULL);
	usleep(2000); /* the hog is asleep on CPU 0, FIFO 40 */
	rlock();
	atomic_store(&hog_go, 1);
	sched_yield();
	runlock();
	unreg();
	set_fifo(0);
	pthread_join(h, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t r, u;
	double end;
	int busy, inversion, secs;

	if (argc != 4 || (strcmp(argv[1], "rcuboost") && strcmp(argv[1], "urcu") &&
			  strcmp(argv[1], "none"))) {
		fprintf(stderr, "usage: %s rcuboost|urcu|none idle|busy|inversion SECONDS\n",
			argv[0]);
		return 2;
	}
	use_urcu = strcmp(argv[1], "urcu") == 0;
	use_none = strcmp(argv[1], "none") == 0;
	busy = strcmp(argv[2], "idle") != 0;
	inversion = strcmp(argv[2], "inversion") == 0;
	secs = atoi(argv[3]);
	if (secs < 1 || secs > 60)
		return 2;
	if (use_none && strcmp(argv[2], "busy") != 0)
		return 2; /* no RCU: no inversion to show */
	if (!use_urcu && !use_none && rcb_init(NULL) != 0)
		return 1;
	end = now() + secs;
	if (busy) {
		pthread_create(&r, NULL, reader, NULL);
		pthread_create(&u, NULL, updater, NULL);
	}
	while (now() < end) {
		if (inversion) {
			pthread_t rt;

			pthread_create(&rt, NULL, rt_reader, NULL);
			pthread_join(rt, NULL);
		}
		usleep(200 * 1000);
	}
	atomic_store(&stop_all, 1);
	if (busy) {
		pthread_join(r, NULL);
		pthread_join(u, NULL);
	}
	fprintf(stderr, "load %s %s: %ld read sections, %ld grace periods\n",
		argv[1], argv[2], atomic_load(&read_sections),
		atomic_load(&grace_periods));
	return 0;
}
