/*
 * rcuboost-boostcost: what each boost state machine costs the threads it
 * serves and the booster, side by side (RCUBOOST_MACHINE=3 and =8, one
 * process each).  Figures: read lock/unlock pair (fast path), a pair
 * whose thread notes a block (queue + dequeue), register + unregister
 * (the exit path), boost latency of a blocked reader, the boosted
 * reader's outermost unlock (dequeue + unboost), and the booster's
 * element-lock hold per target.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tool.h"

struct result {
	int machine;
	double fast_pair_ns, blocked_pair_ns, register_pair_ns;
	double boost_lat_ms_med, boost_lat_ms_max;
	double boosted_unlock_us_med;
	double hold_us_max, hold_us_mean;
	int rt;
};

static double now_s(void)
{
	return (double)tool_now_ns() * 1e-9;
}

/* ns per iteration of @what, best of 5 runs of @n. */
static double time_loop(int what, long n)
{
	double best = 1e30;

	for (int r = 0; r < 5; r++) {
		double t0 = now_s();

		for (long i = 0; i < n; i++) {
			switch (what) {
			case 0:
				rcb_read_lock();
				rcb_read_unlock();
				break;
			case 1:
				rcb_read_lock();
				rcb_note_block();
				rcb_read_unlock();
				break;
			default:
				rcb_unregister_thread();
				rcb_register_thread();
				break;
			}
		}
		double t = (now_s() - t0) * 1e9 / (double)n;

		if (t < best)
			best = t;
	}
	return best;
}

static atomic_int reader_tid, reader_go, reader_blocked, reader_done;
static double block_start, unlock_us;

static void *blocked_reader(void *arg)
{
	struct timespec ts = { 0, 150 * 1000000L };
	double t0;

	(void)arg;
	rcb_register_thread();
	atomic_store(&reader_tid, (int)gettid());
	while (!atomic_load(&reader_go))
		usleep(100);
	rcb_read_lock();
	block_start = now_s();
	atomic_store(&reader_blocked, 1);
	rcb_nanosleep(&ts, NULL);
	t0 = now_s();
	rcb_read_unlock();
	unlock_us = (now_s() - t0) * 1e6;
	rcb_unregister_thread();
	atomic_store(&reader_done, 1);
	return NULL;
}

/* Boost latency of a reader blocked in its section, seen from outside. */
static int boost_latency(struct result *r, int rounds)
{
	double lat[64], unl[64];
	int n = 0;

	for (int i = 0; i < rounds && i < 64; i++) {
		pthread_t t;
		double seen = 0;

		atomic_store(&reader_go, 0);
		atomic_store(&reader_blocked, 0);
		atomic_store(&reader_done, 0);
		pthread_create(&t, NULL, blocked_reader, NULL);
		while (!atomic_load(&reader_tid))
			usleep(100);
		atomic_store(&reader_go, 1);
		while (!atomic_load(&reader_blocked))
			usleep(50);
		while (!atomic_load(&reader_done)) {
			struct tool_sattr a;

			if (!seen &&
			    tool_sattr_get(atomic_load(&reader_tid), &a) == 0 &&
			    a.policy == SCHED_FIFO)
				seen = now_s();
			usleep(100);
		}
		pthread_join(t, NULL);
		atomic_store(&reader_tid, 0);
		if (!seen)
			continue;
		lat[n] = (seen - block_start) * 1e3;
		unl[n] = unlock_us;
		n++;
	}
	if (!n)
		return -1;
	r->boost_lat_ms_max = 0;
	for (int i = 0; i < n; i++)
		if (lat[i] > r->boost_lat_ms_max)
			r->boost_lat_ms_max = lat[i];
	r->boost_lat_ms_med = tool_quantile(lat, (size_t)n, 0.5);
	r->boosted_unlock_us_med = tool_quantile(unl, (size_t)n, 0.5);
	return 0;
}

static int measure(struct result *r, int rounds)
{
	struct rcb_boost_stats s = { .size = sizeof(s) };
	struct tool_sattr a = { .policy = SCHED_FIFO, .prio = 1 };

	if (rcb_init(NULL) != 0)
		return -1;
	rcb_register_thread();
	rcb_boost_stats(&s);
	r->machine = s.machine;
	r->fast_pair_ns = time_loop(0, 2000000);
	r->blocked_pair_ns = time_loop(1, 200000);
	r->register_pair_ns = time_loop(2, 200000);
	r->rt = tool_sattr_set(&a) == 0;
	if (r->rt) {
		a.policy = SCHED_OTHER;
		a.prio = 0;
		tool_sattr_set(&a);
		if (boost_latency(r, rounds) != 0)
			r->rt = 0;
		rcb_boost_stats(&s);
		if (s.lock_holds) {
			r->hold_us_max = (double)s.lock_hold_ns_max / 1e3;
			r->hold_us_mean = (double)s.lock_hold_ns_total /
					  (double)s.lock_holds / 1e3;
		}
	}
	rcb_shutdown();
	return 0;
}

static void print_line(FILE *f, const struct result *r)
{
	fprintf(f,
		"machine=%d fast_pair_ns=%.2f blocked_pair_ns=%.1f register_pair_ns=%.1f "
		"boost_latency_ms_med=%.1f boost_latency_ms_max=%.1f boosted_unlock_us_med=%.1f "
		"lock_hold_us_max=%.2f lock_hold_us_mean=%.2f rt=%d\n",
		r->machine, r->fast_pair_ns, r->blocked_pair_ns,
		r->register_pair_ns, r->boost_lat_ms_med, r->boost_lat_ms_max,
		r->boosted_unlock_us_med, r->hold_us_max, r->hold_us_mean,
		r->rt);
}

static int parse_line(const char *l, struct result *r)
{
	return sscanf(l,
		      "machine=%d fast_pair_ns=%lf blocked_pair_ns=%lf register_pair_ns=%lf "
		      "boost_latency_ms_med=%lf boost_latency_ms_max=%lf boosted_unlock_us_med=%lf "
		      "lock_hold_us_max=%lf lock_hold_us_mean=%lf rt=%d",
		      &r->machine, &r->fast_pair_ns, &r->blocked_pair_ns,
		      &r->register_pair_ns, &r->boost_lat_ms_med,
		      &r->boost_lat_ms_max, &r->boosted_unlock_us_med,
		      &r->hold_us_max, &r->hold_us_mean, &r->rt) == 10 ? 0 : -1;
}

/* Run this program for @machine in a child with RCUBOOST_MACHINE set. */
static int run_child(const char *self, int machine, int rounds,
		     struct result *r)
{
	char cmd[4200], line[1024];
	FILE *p;
	int ok = -1;

	snprintf(cmd, sizeof(cmd), "RCUBOOST_MACHINE=%d '%s' --one --rounds %d",
		 machine, self, rounds);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (parse_line(line, r) == 0)
			ok = 0;
	if (pclose(p) != 0)
		ok = -1;
	return ok;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rcuboost-boostcost [--rounds N] [--json FILE] [--one] [--help]\n"
		"Measure the 3-state and 8-state boost machines side by side (one\n"
		"process each, RCUBOOST_MACHINE=3 and 8): read pair (fast path), a pair\n"
		"whose thread notes a block (queue + dequeue), unregister + register (the\n"
		"exit path), boost latency of a reader blocked in its section (seen with\n"
		"sched_getattr from another thread; needs real-time permission), the boosted\n"
		"reader's outermost unlock, and the booster's element-lock hold per target.\n"
		"  --rounds N   blocked readers per machine for the latency (default 10)\n"
		"  --json FILE  also write the figures as JSON\n"
		"  --one        measure the machine RCUBOOST_MACHINE selects, print one line\n");
}

int main(int argc, char **argv)
{
	struct result res[2];
	const char *json = NULL;
	int one = 0, rounds = 10;
	const struct tool_opt opts[] = {
		TOOL_OPT_NUM("rounds", 0, rounds, 1, 64),
		TOOL_OPT_STR("json", 0, json),
		TOOL_OPT_FLAG("one", 0, one),
	};
	char self[4096];
	ssize_t n;

	tool_prog = "rcuboost-boostcost";
	tool_getopt(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), usage);
	if (one) {
		struct result r = { 0 };

		if (measure(&r, rounds) != 0)
			return 1;
		print_line(stdout, &r);
		return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return 1;
	self[n] = '\0';
	for (int i = 0; i < 2; i++) {
		fprintf(stderr, "rcuboost-boostcost: measuring machine %d...\n",
			i ? 8 : 3);
		if (run_child(self, i ? 8 : 3, rounds, &res[i]) != 0) {
			fprintf(stderr, "rcuboost-boostcost: machine %d failed\n",
				i ? 8 : 3);
			return 1;
		}
	}
	printf("rcuboost-boostcost: blocked_pair=%.0f/%.0fns register_pair=%.0f/%.0fns "
	       "boost_latency_max=%.1f/%.1fms lock_hold_max=%.1f/%.1fus (machine 3/8)\n\n",
	       res[0].blocked_pair_ns, res[1].blocked_pair_ns,
	       res[0].register_pair_ns, res[1].register_pair_ns,
	       res[0].boost_lat_ms_max, res[1].boost_lat_ms_max,
	       res[0].hold_us_max, res[1].hold_us_max);
	printf("%-38s %12s %12s\n", "figure", "3-state", "8-state");
#define ROW(label, field, fmt)                                               \
	printf("%-38s " fmt " " fmt "\n", label, res[0].field, res[1].field)
	ROW("read pair, fast path (ns)", fast_pair_ns, "%12.2f");
	ROW("pair with rcb_note_block() (ns)", blocked_pair_ns, "%12.1f");
	ROW("unregister + register (ns)", register_pair_ns, "%12.1f");
	ROW("boost latency, median (ms)", boost_lat_ms_med, "%12.1f");
	ROW("boost latency, max (ms)", boost_lat_ms_max, "%12.1f");
	ROW("boosted reader's unlock, median (us)", boosted_unlock_us_med, "%12.1f");
	ROW("booster lock hold per target, max (us)", hold_us_max, "%12.2f");
	ROW("booster lock hold per target, mean (us)", hold_us_mean, "%12.2f");
	if (!res[0].rt || !res[1].rt)
		printf("(latency and lock-hold figures need real-time permission: n/a)\n");
	if (json) {
		FILE *f = fopen(json, "w");

		if (!f) {
			perror(json);
			return 1;
		}
		fprintf(f, "{\"machines\":[");
		for (int i = 0; i < 2; i++)
			fprintf(f,
				"%s{\"machine\":%d,\"fast_pair_ns\":%.3f,\"blocked_pair_ns\":%.1f,"
				"\"register_pair_ns\":%.1f,\"boost_latency_ms_med\":%.2f,"
				"\"boost_latency_ms_max\":%.2f,\"boosted_unlock_us_med\":%.2f,"
				"\"lock_hold_us_max\":%.3f,\"lock_hold_us_mean\":%.3f,\"rt\":%s}",
				i ? "," : "", res[i].machine,
				res[i].fast_pair_ns, res[i].blocked_pair_ns,
				res[i].register_pair_ns,
				res[i].boost_lat_ms_med,
				res[i].boost_lat_ms_max,
				res[i].boosted_unlock_us_med,
				res[i].hold_us_max, res[i].hold_us_mean,
				res[i].rt ? "true" : "false");
		fprintf(f, "]}\n");
		fclose(f);
	}
	return 0;
}
