/* SPDX-License-Identifier: MIT */
/*
 * Two threads calling create_all_cpu_call_rcu_data() at once: one
 * returned -1 with errno EEXIST in 50 rounds of 50 (issue 31, finding
 * 5).  Both saw a CPU without a worker and created one; the second to
 * set it failed, and gave up.  liburcu frees its own worker and goes
 * on ("created by another thread"), returning 0.
 *
 * Here: 50 rounds; in each, two threads released together call it; both
 * must return 0, every CPU have one worker, and the callback threads
 * (named rcuboost-cbw) number the workers once the losers' have been
 * joined: none leaks.  free_all_cpu_call_rcu_data() ends the round.
 */
#define _GNU_SOURCE
#include <rcuboost/urcu.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>

#include "tests/check.h"

#define ROUNDS 50

static pthread_barrier_t go;
static int ret[2], err[2];

static void *creator(void *arg)
{
	int i = (int)(long)arg;

	pthread_barrier_wait(&go);
	errno = 0;
	ret[i] = create_all_cpu_call_rcu_data(0);
	err[i] = errno;
	return NULL;
}

/* Threads of this process named @name. */
static int threads_named(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	CHECK(d != NULL);
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if (!(f = fopen(path, "r")))
			continue; /* exited meanwhile */
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
		n += strcmp(comm, name) == 0;
	}
	closedir(d);
	return n;
}

/* Wait up to 10 s for @n callback threads (a joined thread may stay
 * listed a moment, a new one names itself as it starts). */
static void expect_workers(int n, int round)
{
	int seen = -1;

	for (int i = 0; i < 10000; i++) {
		struct timespec ts = { 0, 1000000 };

		if ((seen = threads_named("rcuboost-cbw")) == n)
			return;
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "FAIL: round %d: %d worker threads, %d expected\n", round, seen, n);
	exit(1);
}

int main(void)
{
	int ncpu = get_nprocs_conf();
	int raced = 0; /* rounds that left EEXIST in errno: a set lost */

	CHECK_EQ(pthread_barrier_init(&go, NULL, 2), 0);
	for (int r = 0; r < ROUNDS; r++) {
		pthread_t t[2];
		int workers = 0;

		for (long i = 0; i < 2; i++)
			CHECK_EQ(
				pthread_create(&t[i], NULL, creator, (void *)i),
				0);
		for (int i = 0; i < 2; i++)
			CHECK_EQ(pthread_join(t[i], NULL), 0);
		raced += err[0] == EEXIST || err[1] == EEXIST;
		for (int i = 0; i < 2; i++) {
			if (ret[i] != 0) {
				fprintf(stderr,
					"FAIL: round %d: a concurrent create_all_cpu_call_rcu_data(0) "
					"returned %d, errno %d (%s)\n", r, ret[i], err[i],
					strerror(err[i]));
				return 1;
			}
		}
		for (int cpu = 0; cpu < ncpu; cpu++) {
			struct call_rcu_data *c = get_cpu_call_rcu_data(cpu);

			if (!c)
				continue; /* offline */
			workers++;
			for (int o = 0; o < cpu; o++)
				CHECK(get_cpu_call_rcu_data(o) != c);
		}
		CHECK_EQ(workers, get_nprocs());
		expect_workers(workers, r);
		free_all_cpu_call_rcu_data();
		expect_workers(0, r);
	}
	CHECK_EQ(pthread_barrier_destroy(&go), 0);
	printf("ok: %d rounds, %d of them with a lost set\n", ROUNDS, raced);
	return 0;
}
