/* SPDX-License-Identifier: MIT */
/*
 * Scenario "pi" (sc_pi.c): the results its children write into shared
 * memory, and its report (sc_pi_report.c: tables, JSON, plot).
 */
#ifndef RCB_BENCH_SC_PI_H
#define RCB_BENCH_SC_PI_H

#include "bench.h"
#include "inversion.h"

enum { C_PI, C_SCHED, C_MEMB, NCONF };
extern const char *const pi_conf_name[NCONF];

#define DEF_HOG_MS 1000
#define QUICK_HOG_MS 300
#define BLOCK_MS 60          /* a boosted section blocks this long */
#define HOG_PRIO 40
#define MAX_UNLOCKS 15
#define PAIR_BATCHES 5
#define MAX_CHAIN 3
#define CHAIN_GAP_MS 500     /* between two chain reps */
#define HOLD_EXTRA_MS 3000   /* the holder releases M by hog_ms + this */
#define RT_CHECK_PRIO 50     /* the booster's default priority */

struct pi_res {
	int ran, ok, na;
	char error[256];
	int backend;               /* from the statistics; 0: urcu-memb */
	/* 1. inversion (series dropped: not in shared memory). */
	int inv_ran;
	struct inv_result inv;
	double per_boost;          /* system calls per boost; NaN: none */
	/* 2. unlock cost. */
	int unlocks, unlocks_boosted;
	double unlock_boosted_ns;  /* median of the boosted ones */
	double pair_ns;            /* median of PAIR_BATCHES batches */
	/* 3. chain. */
	int chain_runs;
	double chain_gp_ms[MAX_CHAIN];
	double chain_gp_median_ms, chain_gp_max_ms;
	double chain_hog_ms;       /* how long the last rep's hog ran */
	int holder_rtprio[MAX_CHAIN]; /* L's real-time priority as it released
				    * M (inherited); 0: not real-time */
	int holder_rtprio_min;     /* the lowest over the reps */
	long chain_boosts;         /* boosts (sched) or proxy locks (pi) */
};

struct pi_shared {
	struct pi_res res[NCONF];
};

struct pi_priv {
	struct pi_shared *sh;
	struct inv_params prm;
	int hog_ms, unlocks, chain_reps;
	unsigned long pairs; /* per batch */
	unsigned int period_ms, elements;
};

/* The value of a figure: NaN unless the configuration ran and passed. */
double pi_v_of(const struct pi_res *r, double v);
/* Inversion figures of @r: 0 longest grace period, 1 reader held time,
 * 2 peak backlog; NaN when not measured. */
double pi_inv_v(const struct pi_res *r, int which);
void pi_print_detail(FILE *out, const struct bench_xres *x);
void pi_json_detail(FILE *f, const struct bench_xres *x);
/* Write pi_gp.dat, pi_unlock.dat, pi.gp and run gnuplot for pi.png. */
void pi_plot(struct bench_xres *x, const struct pi_priv *pv);

#endif
