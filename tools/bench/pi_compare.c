/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-bench-pi: the sched and pi boost backends against liburcu
 * urcu-memb in one run.  Needs real-time priority; about 10 s.
 *
 *  - grace period under inversion (tools/common/inversion.h, hog 1 s):
 *    longest synchronize, and system calls per boost of each backend;
 *  - cost of the outermost rcb_read_unlock() of a boosted section
 *    (a reader that blocked 60 ms after rcb_note_block(), so it was
 *    boosted), median of 15, per backend; an unboosted blocked section
 *    for reference.
 * One line per figure on stdout, and --json FILE.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "inversion.h"
#include "rcuboost.h"

#define NUNLOCK 15

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct unlock_arg {
	int block_ms;
	double median_ns;
	long boosted;
};

static void *unlock_reader(void *p)
{
	struct unlock_arg *a = p;
	double d[NUNLOCK];
	struct rcb_boost_stats s0, s1;

	rcb_register_thread();
	rcb_boost_stats(&s0);
	for (int i = 0; i < NUNLOCK; i++) {
		struct timespec ts = { 0, a->block_ms * 1000000L };
		double t0;

		rcb_read_lock();
		rcb_note_block();
		nanosleep(&ts, NULL);
		t0 = now_ns();
		rcb_read_unlock();
		d[i] = now_ns() - t0;
	}
	rcb_boost_stats(&s1);
	a->boosted = s1.unboosted - s0.unboosted;
	qsort(d, NUNLOCK, sizeof(d[0]), cmp_d);
	a->median_ns = d[NUNLOCK / 2];
	rcb_unregister_thread();
	return NULL;
}

/* A grace period waits throughout, so blocked readers get boosted. */
static _Atomic int stop_sync;
static void *syncer(void *p)
{
	(void)p;
	while (!stop_sync)
		rcb_synchronize();
	return NULL;
}

static int unlock_cost(int backend, int block_ms, struct unlock_arg *a)
{
	struct rcb_config cfg = { .boost = 1, .boost_backend = backend };
	pthread_t r, s;
	int err = rcb_init(&cfg);

	if (err)
		return err;
	a->block_ms = block_ms;
	stop_sync = 0;
	pthread_create(&s, NULL, syncer, NULL);
	pthread_create(&r, NULL, unlock_reader, a);
	pthread_join(r, NULL);
	stop_sync = 1;
	pthread_join(s, NULL);
	return rcb_shutdown();
}

struct row {
	const char *name, *unit;
	double v[3]; /* sched, pi, urcu-memb; NaN: n/a */
};

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *json = NULL;
	struct inv_params prm;
	struct inv_result res[3];
	struct row rows[8];
	char why[256];
	int n = 0, c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'j') {
			json = optarg;
		} else {
			printf("Usage: rcuboost-bench-pi [--json FILE]\n"
			       "Compare the sched and pi boost backends with liburcu urcu-memb:\n"
			       "grace period under inversion, system calls per boost, cost of a\n"
			       "boosted section's outermost unlock.  Needs real-time priority.\n");
			return c == 'h' ? 0 : 2;
		}
	}
	inv_watchdog("rcuboost-bench-pi", 120);
	inv_params_default(&prm);
	prm.hog_ms = 1000;
	prm.warmup_ms = 200;
	prm.tail_ms = 200;
	if (inv_rt_check(&prm, why, sizeof(why)) != 0) {
		fprintf(stderr, "rcuboost-bench-pi: n/a: %s\n", why);
		return 0;
	}
	/* The backend is fixed at a process's first rcb_init(): each side
	 * runs in its own child process, forked before any initialisation;
	 * figures come back through shared memory. */
	struct shared {
		double gp_max, per_boost, unlock_boosted, unlock_plain, boosted;
		int ok;
	} *sh = mmap(NULL, 3 * sizeof(*sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (sh == MAP_FAILED)
		return 1;
	for (int k = 0; k < 3; k++) {
		pid_t pid;
		int st;

		fprintf(stderr, "side %d/3 (%s) ...\n", k + 1,
			k == 0 ? "sched" : k == 1 ? "pi" : "urcu-memb");
		pid = fork();
		if (pid == 0) {
			const struct inv_flavor_ops *ops = k < 2 ? &inv_flavor_rcuboost_on :
								   &inv_flavor_urcu_memb;
			struct unlock_arg boosted = { 0 }, plain = { 0 };

			setenv("RCUBOOST_BACKEND", k == 1 ? "pi" : "sched", 1);
			if (inv_run(ops, &prm, &res[k]) != 0) {
				fprintf(stderr, "rcuboost-bench-pi: %s\n", res[k].error);
				_exit(1);
			}
			sh[k].gp_max = res[k].gp_max_ms;
			sh[k].per_boost = -1;
			if (k == 0 && res[k].bs.boost)
				sh[k].per_boost = (double)res[k].bs.sched_syscalls /
						  (double)res[k].bs.boost;
			if (k == 1 && res[k].bs.pi_boosts)
				sh[k].per_boost = (double)res[k].bs.pi_syscalls /
						  (double)res[k].bs.pi_boosts;
			sh[k].unlock_boosted = sh[k].unlock_plain = sh[k].boosted = -1;
			if (k < 2) {
				int be = k ? RCB_BACKEND_PI : RCB_BACKEND_SCHED;

				if (unlock_cost(be, 60, &boosted) ||
				    unlock_cost(be, 1, &plain))
					_exit(1);
				sh[k].unlock_boosted = boosted.median_ns;
				sh[k].unlock_plain = plain.median_ns;
				sh[k].boosted = (double)boosted.boosted;
			}
			sh[k].ok = 1;
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) || !sh[k].ok) {
			fprintf(stderr, "rcuboost-bench-pi: side %d failed\n", k + 1);
			return 1;
		}
	}
	rows[n++] = (struct row){ "pi.gp_max", "ms",
		{ sh[0].gp_max, sh[1].gp_max, sh[2].gp_max } };
	rows[n++] = (struct row){ "pi.syscalls_per_boost", "calls",
		{ sh[0].per_boost, sh[1].per_boost, -1 } };
	rows[n++] = (struct row){ "pi.unlock_boosted", "ns",
		{ sh[0].unlock_boosted, sh[1].unlock_boosted, -1 } };
	rows[n++] = (struct row){ "pi.unlock_blocked_unboosted", "ns",
		{ sh[0].unlock_plain, sh[1].unlock_plain, -1 } };
	rows[n++] = (struct row){ "pi.boosted_sections", "count",
		{ sh[0].boosted, sh[1].boosted, -1 } };
	printf("%-30s %12s %12s %12s  unit\n", "figure", "sched", "pi", "urcu-memb");
	for (int i = 0; i < n; i++) {
		printf("%-30s", rows[i].name);
		for (int k = 0; k < 3; k++)
			if (rows[i].v[k] < 0)
				printf(" %12s", "n/a");
			else
				printf(" %12.1f", rows[i].v[k]);
		printf("  %s\n", rows[i].unit);
	}
	if (json) {
		FILE *f = fopen(json, "w");
		static const char *const side[3] = { "sched", "pi", "urcu-memb" };

		if (!f)
			return 1;
		fprintf(f, "[");
		for (int i = 0, first = 1; i < n; i++)
			for (int k = 0; k < 3; k++) {
				if (rows[i].v[k] < 0)
					continue;
				fprintf(f, "%s\n {\"name\": \"%s\", \"side\": \"%s\", \"unit\": \"%s\", \"value\": %.3f}",
					first ? "" : ",", rows[i].name, side[k], rows[i].unit,
					rows[i].v[k]);
				first = 0;
			}
		fprintf(f, "\n]\n");
		fclose(f);
	}
	return 0;
}
