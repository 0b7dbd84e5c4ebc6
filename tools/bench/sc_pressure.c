/* SPDX-License-Identifier: MIT */
/*
 * Scenario "pressure", run only when named: boosting upon memory pressure
 * (article: "Possible Future Enhancements", 1).  The inversion scenario
 * (tools/common/inversion.h) with a fast updater, one 4 KiB object every
 * 150 us, for each hog duration, four runs: rcuboost with plain boosting,
 * with a callback-count threshold (64 callbacks), with a byte threshold
 * (64 objects' bytes), and liburcu urcu-memb.
 *
 * Goal of the threshold: the peak backlog stays at most the threshold
 * plus one booster period's worth of callbacks (what the updater queues
 * while the booster reacts), whatever the hog's duration.  Plain boosting
 * bounds it too, but by the aging delay (elements - 1 periods), and
 * liburcu not at all.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "inversion.h"

enum { R_PLAIN, R_CB, R_BYTES, R_MEMB, NRUNS };
static const char *const run_name[NRUNS] = { "plain", "pressure-cb", "pressure-bytes",
					     "urcu-memb" };

#define MAX_HOGS 3
#define THR_CALLBACKS 64

struct pr_priv {
	struct inv_params prm;
	unsigned int nhogs;
	int hog_ms[MAX_HOGS];
	int ran[MAX_HOGS][NRUNS];
	struct inv_result res[MAX_HOGS][NRUNS];
	struct rcb_config cfg[NRUNS];
	struct inv_flavor_ops ops[NRUNS];
	unsigned int period_ms;
	double per_period;   /* callbacks the updater queues per booster period */
	double bound_cb, bound_bytes;
	unsigned long thr_bytes;
	int goal_met;
};

static const struct bench_scenario sc = {
	.name = "pressure",
	.help = "pressure: needs real-time priority; about 20 s (--quick: 6 s).  The\n"
		"  inversion with one 4 KiB object retired every 150 us, hogs of 500 and\n"
		"  2000 ms (--quick: 200, 400): plain boosting, boosting with a memory-pressure\n"
		"  threshold of 64 callbacks, with one of 64 objects' bytes, and urcu-memb.\n"
		"  Figures: peak backlog (callbacks, bytes), longest grace period.  Goal:\n"
		"  peak backlog <= threshold + one booster period's callbacks at every hog.",
};

static double val(const struct pr_priv *pv, unsigned int h, int r, int what)
{
	const struct inv_result *res = &pv->res[h][r];

	if (!pv->ran[h][r])
		return NAN;
	switch (what) {
	case 0:
		return (double)res->peak_backlog;
	case 1:
		return (double)res->peak_backlog_bytes;
	default:
		return res->gp_count ? res->gp_max_ms : NAN;
	}
}

struct pr_cells {
	const struct pr_priv *pv;
	unsigned int h;
};

static void cell(FILE *out, int w, unsigned int i, unsigned int r, const void *arg)
{
	const struct pr_cells *c = arg;
	const struct inv_result *res = &c->pv->res[c->h][r];
	int st = res->have_boost_stats;

	switch (i) {
	case 0: fprintf(out, " %*.1f", w, res->reader_held_ms); break;
	case 1: fprintf(out, " %*.1f", w, res->gp_max_ms); break;
	case 2: fprintf(out, " %*ld", w, res->peak_backlog); break;
	case 3: fprintf(out, " %*ld", w, res->peak_backlog_bytes); break;
	case 4: bench_x_cell_long(out, w, st, res->bs.pressure_entries); break;
	case 5: bench_x_cell_long(out, w, st, res->bs.pressure_kicks); break;
	case 6: bench_x_cell_long(out, w, st, res->bs.boost); break;
	default: fprintf(out, " %*s", w, res->ok ? "OK" : "FAIL"); break;
	}
}

static void print_detail(FILE *out, const struct bench_xres *x)
{
	static const char *const rows[] = {
		"reader held its section (ms)", "grace period max (ms)",
		"peak backlog (callbacks)", "peak backlog (bytes)",
		"pressure entries", "pressure kicks (rcb_call)", "boosts", "result",
	};
	const struct pr_priv *pv = x->priv;
	const struct inv_params *p = &pv->prm;
	char head[32];

	fprintf(out, "\npressure: the inversion (reader SCHED_FIFO %d preempted in its section by\n"
		     "a SCHED_FIFO %d hog on CPU %d) with an updater retiring one %d-byte object\n"
		     "every %d us on CPU %d.  Runs: plain boosting; pressure_callbacks=%d;\n"
		     "pressure_bytes=%lu; liburcu urcu-memb.\n",
		p->reader_prio, p->hog_prio, INV_RT_CPU, p->obj_bytes, p->cb_period_us,
		INV_OTHER_CPU, THR_CALLBACKS, pv->thr_bytes);
	if (x->status) {
		fprintf(out, "pressure: n/a: %s\n", x->why);
		return;
	}
	for (unsigned int h = 0; h < pv->nhogs; h++) {
		struct pr_cells c = { pv, h };
		struct bench_xtable t = { head, run_name, pv->ran[h], NRUNS, 14,
					  rows, sizeof(rows) / sizeof(rows[0]), 32, cell, &c };

		snprintf(head, sizeof(head), "hog %-5d ms", pv->hog_ms[h]);
		bench_x_print_runs(out, &t);
		for (int r = 0; r < NRUNS; r++)
			if (pv->ran[h][r] && !pv->res[h][r].ok)
				fprintf(out, "  %s: %s\n", run_name[r], pv->res[h][r].error);
	}
	fprintf(out, "\nGoal: peak backlog <= threshold + one booster period's callbacks =\n"
		     "%d + %u ms / %d us = %.0f callbacks (bytes: %lu + %.0f x %d = %.0f), at\n"
		     "every hog duration, so independent of it: met %s.\n",
		THR_CALLBACKS, pv->period_ms, p->cb_period_us, pv->bound_cb, pv->thr_bytes,
		pv->per_period, p->obj_bytes, pv->bound_bytes, pv->goal_met ? "yes" : "no");
}

static void json_detail(FILE *f, const struct bench_xres *x)
{
	const struct pr_priv *pv = x->priv;
	int first = 1;

	fprintf(f, "    \"params\": {\"cb_period_us\": %d, \"obj_bytes\": %d, "
		   "\"threshold_callbacks\": %d, \"threshold_bytes\": %lu, "
		   "\"boost_period_ms\": %u, \"bound_callbacks\": ",
		pv->prm.cb_period_us, pv->prm.obj_bytes, THR_CALLBACKS, pv->thr_bytes,
		pv->period_ms);
	tool_json_num(f, pv->bound_cb);
	fprintf(f, ", \"bound_bytes\": ");
	tool_json_num(f, pv->bound_bytes);
	fprintf(f, "},\n    \"goal_met\": %s,\n    \"runs\": [",
		x->status ? "null" : pv->goal_met ? "true" : "false");
	for (unsigned int h = 0; !x->status && h < pv->nhogs; h++) {
		for (int r = 0; r < NRUNS; r++) {
			const struct inv_result *res = &pv->res[h][r];

			fprintf(f, "%s\n      {\"hog_ms\": %d, \"name\": \"%s\", \"ran\": %s, "
				   "\"ok\": %s", first ? "" : ",", pv->hog_ms[h], run_name[r],
				pv->ran[h][r] ? "true" : "false",
				pv->ran[h][r] && res->ok ? "true" : "false");
			first = 0;
			if (!pv->ran[h][r]) {
				fprintf(f, "}");
				continue;
			}
			fprintf(f, ", \"reader_held_ms\": %.3f, \"gp_max_ms\": %.3f, "
				   "\"peak_backlog\": %ld, \"peak_backlog_bytes\": %ld",
				res->reader_held_ms, res->gp_max_ms, res->peak_backlog,
				res->peak_backlog_bytes);
			if (res->have_boost_stats)
				fprintf(f, ", \"pressure_entries\": %ld, \"pressure_kicks\": %ld, "
					   "\"boost\": %ld",
					res->bs.pressure_entries, res->bs.pressure_kicks,
					res->bs.boost);
			fprintf(f, "}");
		}
	}
	fprintf(f, "%s]", first ? "" : "\n    ");
}

static void plot(struct bench_xres *x, struct pr_priv *pv)
{
	char csv[400];
	const struct inv_result *runs[NRUNS];
	unsigned int h = pv->nhogs - 1;
	FILE *f;

	for (int r = 0; r < NRUNS; r++) {
		runs[r] = &pv->res[h][r];
		pv->res[h][r].name[0] = 0;
		snprintf(pv->res[h][r].name, sizeof(pv->res[h][r].name), "%s", run_name[r]);
	}
	f = bench_x_plot_file(x, "pressure.csv", csv, sizeof(csv));
	if (!f)
		return;
	if (inv_write_csv(f, runs, NRUNS, pv->prm.sample_ms) != 0) {
		snprintf(x->plot, sizeof(x->plot), "none (cannot write %s: %s)", csv,
			 strerror(errno));
		fclose(f);
		return;
	}
	fclose(f);
	bench_x_gnuplot(x, "pressure", 1000, 560,
			"set datafile separator ','\nset key top left\n"
			"set title 'Callback backlog, hog of %d ms on CPU %d (starts at 0)'\n"
			"set xlabel 'time since the hog started (ms)'\n"
			"set ylabel 'callbacks retired, not yet freed'\nset logscale y\n"
			"set yrange [1:*]\nset grid\n"
			"plot '%s' using 1:2 with lines lw 2 title 'plain boosting', \\\n"
			"     '' using 1:3 with lines lw 2 title 'pressure, %d callbacks', \\\n"
			"     '' using 1:4 with lines lw 2 dt 2 title 'pressure, %lu bytes', \\\n"
			"     '' using 1:5 with lines lw 2 title 'liburcu urcu-memb', \\\n"
			"     %.0f with lines dt 3 lc rgb 'black' title 'goal: threshold + one period'\n",
			pv->hog_ms[h], INV_RT_CPU, csv, THR_CALLBACKS, pv->thr_bytes, pv->bound_cb);
}

static struct bench_xres *run(const struct bench_params *bp)
{
	struct bench_xres *x = bench_x_new(sc.name, sizeof(struct pr_priv), print_detail,
					   json_detail);
	struct pr_priv *pv = x->priv;
	static const int hogs[] = { 500, 2000 }, qhogs[] = { 200, 400 };
	uint64_t t0 = tool_now_ns();
	unsigned int k = 0, secs = 30;
	cpu_set_t mask;

	inv_params_default(&pv->prm);
	pv->prm.cb_period_us = 150;
	pv->prm.warmup_ms = bp->quick ? 100 : 300;
	pv->prm.tail_ms = bp->quick ? 200 : 500;
	pv->nhogs = 2;
	memcpy(pv->hog_ms, bp->quick ? qhogs : hogs, sizeof(hogs));
	pv->period_ms = bench_x_env_num("RCUBOOST_PERIOD_MS", 10);
	pv->per_period = ceil(pv->period_ms * 1000.0 / pv->prm.cb_period_us);
	pv->bound_cb = THR_CALLBACKS + pv->per_period;
	pv->thr_bytes = (unsigned long)THR_CALLBACKS * (unsigned long)pv->prm.obj_bytes;
	pv->bound_bytes = (double)pv->thr_bytes + pv->per_period * pv->prm.obj_bytes;

	pv->cfg[R_PLAIN].boost = 1;
	pv->cfg[R_CB].boost = 1;
	pv->cfg[R_CB].pressure_callbacks = THR_CALLBACKS;
	pv->cfg[R_BYTES].boost = 1;
	pv->cfg[R_BYTES].pressure_bytes = pv->thr_bytes;
	for (int r = 0; r < R_MEMB; r++)
		inv_flavor_rcuboost_cfg(&pv->ops[r], run_name[r], &pv->cfg[r]);
	pv->ops[R_MEMB] = inv_flavor_urcu_memb;

	if (bench_x_rt_check(x, pv->prm.hog_prio) != 0)
		return x;
	if (sched_getaffinity(0, sizeof(mask), &mask) != 0) {
		x->status = -errno;
		snprintf(x->why, sizeof(x->why), "sched_getaffinity: %s", strerror(errno));
		tool_progress("rcuboost-bench: pressure: n/a: %s\n", x->why);
		return x;
	}
	for (unsigned int h = 0; h < pv->nhogs; h++)
		secs += NRUNS * ((unsigned int)(pv->prm.warmup_ms + pv->hog_ms[h] +
						pv->prm.tail_ms) / 1000 + 15);
	inv_watchdog("rcuboost-bench", secs);
	for (unsigned int h = 0; h < pv->nhogs; h++) {
		for (int r = 0; r < NRUNS; r++) {
			struct inv_result *res = &pv->res[h][r];
			int err;

			tool_progress("rcuboost-bench: pressure [%u/%u] hog %d ms, %s: ", ++k,
				       pv->nhogs * NRUNS, pv->hog_ms[h], run_name[r]);
			pv->prm.hog_ms = pv->hog_ms[h];
			err = inv_run(&pv->ops[r], &pv->prm, res);
			pv->ran[h][r] = err == 0;
			if (err) {
				tool_progress("could not run: %s\n", res->error);
				x->failed = 1;
				continue;
			}
			x->failed |= !res->ok;
			tool_progress("peak backlog %ld, gp_max %.1f ms%s%s\n", res->peak_backlog,
				       res->gp_max_ms, res->ok ? "" : ", FAILED: ",
				       res->ok ? "" : res->error);
		}
	}
	inv_watchdog_off();
	/* liburcu's call_rcu thread stays on CPU 1: give it every CPU back. */
	sched_setaffinity(0, sizeof(mask), &mask);

	pv->goal_met = 1;
	for (unsigned int h = 0; h < pv->nhogs; h++) {
		struct bench_xfig *g;

		g = bench_x_fig(x, "callbacks", val(pv, h, R_CB, 0), "pressure.backlog.%dms",
				pv->hog_ms[h]);
		bench_x_peer(g, "plain", val(pv, h, R_PLAIN, 0));
		bench_x_peer(g, "urcu-memb", val(pv, h, R_MEMB, 0));
		bench_x_peer(g, BENCH_X_GOAL, pv->bound_cb);
		pv->goal_met &= bench_x_met(g) == 1;
		g = bench_x_fig(x, "bytes", val(pv, h, R_CB, 1), "pressure.backlog_bytes.%dms",
				pv->hog_ms[h]);
		bench_x_peer(g, "plain", val(pv, h, R_PLAIN, 1));
		bench_x_peer(g, "urcu-memb", val(pv, h, R_MEMB, 1));
		g = bench_x_fig(x, "ms", val(pv, h, R_CB, 2), "pressure.gp_max.%dms",
				pv->hog_ms[h]);
		bench_x_peer(g, "plain", val(pv, h, R_PLAIN, 2));
		bench_x_peer(g, "urcu-memb", val(pv, h, R_MEMB, 2));
		g = bench_x_fig(x, "bytes", val(pv, h, R_BYTES, 1),
				"pressure.bthr.backlog_bytes.%dms", pv->hog_ms[h]);
		bench_x_peer(g, "plain", val(pv, h, R_PLAIN, 1));
		bench_x_peer(g, "urcu-memb", val(pv, h, R_MEMB, 1));
		bench_x_peer(g, BENCH_X_GOAL, pv->bound_bytes);
	}
	{
		unsigned int l = pv->nhogs - 1;
		struct bench_xfig *g = bench_x_fig(
			x, "x", bench_x_ratio(val(pv, l, R_CB, 0), val(pv, 0, R_CB, 0)),
			"pressure.backlog.growth");

		bench_x_peer(g, "plain",
			     bench_x_ratio(val(pv, l, R_PLAIN, 0), val(pv, 0, R_PLAIN, 0)));
		bench_x_peer(g, "urcu-memb",
			     bench_x_ratio(val(pv, l, R_MEMB, 0), val(pv, 0, R_MEMB, 0)));
	}
	plot(x, pv);
	x->elapsed_s = (double)(tool_now_ns() - t0) / 1e9;
	return x;
}

const struct bench_xscenario bench_x_pressure = { &sc, run };
