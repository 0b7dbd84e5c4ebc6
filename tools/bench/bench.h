/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-bench: a scenario fills a struct bench_res with figures, each a
 * value and its peers' from the same run (medians of rounds), with a goal:
 * a ratio to a peer, or a bound.  bench_sides() measures a list of tests
 * on each library of the peer table; other scenarios run their own.
 */
#ifndef RCB_BENCH_H
#define RCB_BENCH_H

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inversion.h"
#include "peer.h"
#include "rcuboost.h"
#include "tool.h"

#define BENCH_MAX_ROUNDS 101
#define BENCH_MAX_VALS 7   /* a figure's value and its peers */
#define BENCH_MAX_FIGS 64  /* per scenario */
#define BENCH_MAX_VALUES 5 /* per test */
#define BENCH_MAX_HOGS 4
#define BENCH_MAX_READERS 256
#define BENCH_GOAL "goal" /* the peer that holds a figure's bound */
#define BENCH_MAIN_PEER "urcu-memb"
#define UNUSED __attribute__((unused))

struct bench_params {
	unsigned int rounds, duration_ms; /* per timed measurement */
	unsigned long calls; /* callbacks per thread in call tests */
	int quick, warmup;   /* warmup: during the discarded warm-up */
	int cpu_a, cpu_b;    /* the two CPUs workers are pinned to */
	unsigned int nhogs;  /* --hog-ms, ascending (0: the default) */
	int hogs[BENCH_MAX_HOGS];
};

struct bench_val {
	const char *name;
	double med, spread; /* NaN: absent */
	unsigned int n;     /* rounds in r */
	double r[BENCH_MAX_ROUNDS];
};

struct bench_fig {
	char name[56];
	const char *unit;
	int higher;            /* higher is better */
	double goal;           /* ratio value / goal peer to meet; 0: none */
	const char *goal_peer; /* NULL: BENCH_MAIN_PEER */
	unsigned int nval;     /* val[0] the value, then the peers */
	struct bench_val val[BENCH_MAX_VALS];
};

struct bench_res {
	const struct bench_scenario *sc;
	int status; /* 0 ran; -EPERM, -ENODEV: n/a; else error */
	int failed; /* a run failed its checks */
	char why[256];
	const char *vname; /* what val[0] is (NULL: "rcuboost") */
	double elapsed_s;
	unsigned int nfigs;
	struct bench_fig fig[BENCH_MAX_FIGS];
};

enum { BENCH_LOWER, BENCH_HIGHER };

/* measure(): @f once, a value per figure into @out; -1: cannot run it. */
struct bench_test {
	const char *name;
	int (*measure)(const struct tool_peer *f, const struct bench_params *p,
		       int arg, double *out);
	int arg;
	unsigned int nfig;
	struct {
		const char *name, *unit;
		int higher;
		double goal;
		const char *goal_peer;
	} fig[BENCH_MAX_VALUES];
};

struct bench_scenario {
	const char *name, *help;
	int named_only; /* not in the default set ("all") */
	void (*run)(struct bench_res *x, const struct bench_params *p);
	const struct bench_test *tests; /* for run = bench_sides */
	unsigned int ntests;
};

#define BENCH_TESTS(a) \
	.run = bench_sides, .tests = (a), .ntests = sizeof(a) / sizeof((a)[0])

/* In --help and run order: those that fork or run real-time first. */
#define BENCH_SCENARIOS(X)                                                  \
	X(read) X(readers) X(sync) X(call) X(call_rcu_data) X(defer) X(poll) \
	X(scale) X(fifo64) X(follow) X(boosters) X(pi) X(inversion)         \
	X(pressure) X(escalate) X(expedited)
#define BENCH_DECLARE(n) extern const struct bench_scenario bench_sc_##n;
BENCH_SCENARIOS(BENCH_DECLARE)

extern const struct tool_peer *const bench_sides_table[];
extern const unsigned int bench_nsides;
void bench_sides(struct bench_res *x, const struct bench_params *p);

struct bench_fig *bench_fig(struct bench_res *x, const char *unit, double v,
			    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void bench_peer(struct bench_fig *g, const char *name, double v);
void bench_bound(struct bench_fig *g, double bound); /* value <= bound */
double bench_ratio(double a, double b);
void bench_report(FILE *out, struct bench_res *const *x, unsigned int n,
		  const struct bench_params *p, double elapsed_s);
int bench_write_json(const char *path, struct bench_res *const *x,
		     unsigned int n, const struct bench_params *p,
		     double elapsed_s);

/* The median of the values of @v[0..n) not NaN; NaN if none. */
double bench_median(const double *v, unsigned int n);
/* kB of the "NAME:" line of /proc/self/status; NaN if absent. */
double bench_status_kb(const char *name);
int bench_rt_check(struct bench_res *x, int prio);
void bench_futex_wait(_Atomic int *w, int val, long ms);
void bench_freed_nop(void *payload, size_t bytes);
/* Parse --hog-ms into @hog_ms, sorted; the count, or 0 with a message. */
unsigned int bench_parse_hogs(const char *arg, int *hog_ms);

#define BENCH_CONF_FIGS 8
/* The first error of @r wins. */
#define BENCH_FAIL(r, ...)                                                \
	((r)->error[0] ? (void)0 :                                        \
			 (void)snprintf((r)->error, sizeof((r)->error), \
					__VA_ARGS__))
struct bench_cres {
	int na; /* boosting unavailable: the scenario is n/a */
	char error[256];
	double v[BENCH_CONF_FIGS][BENCH_MAX_ROUNDS]; /* NaN: none */
};

struct bench_cfig {
	const char *name, *unit;
	int higher;
	double bound; /* 0: none */
};

/* @child(conf, round, result of conf) in a child process for each conf <
 * @nconf, @rounds times, alternating the order, killed after @timeout_s;
 * then a figure per @figs[f], the median of v[f] of conf 0 against the
 * others.  The results (shared memory), or NULL with x->status set. */
struct bench_cres *bench_confs(struct bench_res *x,
			       void (*child)(int, unsigned int,
					     struct bench_cres *),
			       int nconf, const char *const *names,
			       const struct bench_cfig *figs, int nfig,
			       unsigned int rounds, unsigned int timeout_s);

enum bench_upd_mode {
	UPD_CALL_PACED,  /* replace and retire with call_rcu every 10 us */
	UPD_RETIRE_ALL,  /* --calls replace+retire back to back, barrier */
	UPD_RETIRE_RATE, /* replace+retire at 2 M/s, the clock spun */
	UPD_SYNC_FREE,   /* replace, synchronize, free */
	UPD_SYNC_WORST,  /* synchronize back to back, keep the worst */
	UPD_FIFO, /* the same replacing, SCHED_FIFO 10 on CPU 0 until the
		   * deadline; the readers unpinned */
};
/* @nreaders readers pinned alternately to the two CPUs and an unpinned
 * updater in @mode (sc_readers.c).  out[0] reads/s, [1] updates/s, [2]
 * median callback latency (us), total (ms, RETIRE_ALL) or worst
 * synchronize (us), [3] peak RSS growth (MiB, RETIRE_ALL), [4] reads per
 * CPU-second, [5] CPU time of the library's threads, ms/s ([4], [5]:
 * RETIRE_*).  Returns the reads that saw a freed object, or -1 if the
 * updater could not start. */
long bench_readers_run(const struct tool_peer *f, const struct bench_params *p,
		       unsigned int nreaders, enum bench_upd_mode mode,
		       double *out);
/* The tests of "sync" (sc_sync.c), and @arg > 3 idle registered threads
 * beside synchronize: median and p99 (us). */
int bench_sync_measure(const struct tool_peer *f, const struct bench_params *p,
		       int arg, double *out);
/* One "defer" measurement in a fresh process (--defer-child). */
int bench_defer_child_main(char **argv);

#endif /* RCB_BENCH_H */
