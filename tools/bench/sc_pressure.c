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
#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench.h"

enum { R_PLAIN, R_CB, R_BYTES, R_MEMB, NRUNS };

#define THR_CALLBACKS 64

struct pr_priv {
	struct bench_ir ir; /* first: see bench_ir_new() */
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

static void print_detail(FILE *out, const struct bench_xres *x)
{
	static const enum bench_ir_row rows[] = {
		IRC_HELD, IRC_GP_MAX, IRC_BACKLOG, IRC_BYTES, IRC_PR_ENTRIES, IRC_PR_KICKS,
		IRC_BOOSTS, IRC_RESULT,
	};
	const struct pr_priv *pv = x->priv;
	const struct inv_params *p = &pv->ir.prm;

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
	bench_ir_print(out, &pv->ir, 14, rows, sizeof(rows) / sizeof(rows[0]), NULL);
	fprintf(out, "\nGoal: peak backlog <= threshold + one booster period's callbacks =\n"
		     "%d + %u ms / %d us = %.0f callbacks (bytes: %lu + %.0f x %d = %.0f), at\n"
		     "every hog duration, so independent of it: met %s.\n",
		THR_CALLBACKS, pv->ir.period_ms, p->cb_period_us, pv->bound_cb, pv->thr_bytes,
		pv->per_period, p->obj_bytes, pv->bound_bytes, pv->goal_met ? "yes" : "no");
}

static void json_detail(FILE *f, const struct bench_xres *x)
{
	const struct pr_priv *pv = x->priv;

	fprintf(f, "    \"params\": {\"cb_period_us\": %d, \"obj_bytes\": %d, "
		   "\"threshold_callbacks\": %d, \"threshold_bytes\": %lu, "
		   "\"boost_period_ms\": %u, \"bound_callbacks\": ",
		pv->ir.prm.cb_period_us, pv->ir.prm.obj_bytes, THR_CALLBACKS, pv->thr_bytes,
		pv->ir.period_ms);
	tool_json_num(f, pv->bound_cb);
	fprintf(f, ", \"bound_bytes\": ");
	tool_json_num(f, pv->bound_bytes);
	fprintf(f, "},\n    \"goal_met\": %s,\n",
		x->status ? "null" : pv->goal_met ? "true" : "false");
	bench_ir_json_end(f, bench_ir_json_runs(f, x, &pv->ir));
}

static void plot(struct bench_xres *x, struct pr_priv *pv)
{
	char csv[400];
	struct bench_ir *ir = &pv->ir;
	const struct inv_result *runs[NRUNS];
	unsigned int h = ir->nhogs - 1;
	FILE *f;

	for (int r = 0; r < NRUNS; r++) {
		runs[r] = &ir->res[h][r];
		snprintf(ir->res[h][r].name, sizeof(ir->res[h][r].name), "%s", ir->name[r]);
	}
	f = bench_x_plot_file(x, "pressure.csv", csv, sizeof(csv));
	if (!f)
		return;
	if (inv_write_csv(f, runs, NRUNS, ir->prm.sample_ms) != 0) {
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
			ir->hog_ms[h], INV_RT_CPU, csv, THR_CALLBACKS, pv->thr_bytes, pv->bound_cb);
}

static void add_figs(struct bench_xres *x, struct pr_priv *pv)
{
	static const int cb[] = { R_CB, R_PLAIN, R_MEMB, -1 };
	static const int by[] = { R_BYTES, R_PLAIN, R_MEMB, -1 };
	const struct bench_ir *ir = &pv->ir;
	struct bench_xfig *g;

	pv->goal_met = 1;
	for (unsigned int h = 0; h < ir->nhogs; h++) {
		g = bench_ir_fig(x, ir, "callbacks", h, IR_BACKLOG, cb, "pressure.backlog.%dms",
				 ir->hog_ms[h]);
		bench_x_peer(g, BENCH_X_GOAL, pv->bound_cb);
		pv->goal_met &= bench_x_met(g) == 1;
		bench_ir_fig(x, ir, "bytes", h, IR_BYTES, cb, "pressure.backlog_bytes.%dms",
			     ir->hog_ms[h]);
		bench_ir_fig(x, ir, "ms", h, IR_GP_MAX, cb, "pressure.gp_max.%dms",
			     ir->hog_ms[h]);
		g = bench_ir_fig(x, ir, "bytes", h, IR_BYTES, by,
				 "pressure.bthr.backlog_bytes.%dms", ir->hog_ms[h]);
		bench_x_peer(g, BENCH_X_GOAL, pv->bound_bytes);
	}
	g = bench_x_fig(x, "x", bench_ir_growth(ir, R_CB), "pressure.backlog.growth");
	bench_x_peer(g, "plain", bench_ir_growth(ir, R_PLAIN));
	bench_x_peer(g, "urcu-memb", bench_ir_growth(ir, R_MEMB));
}

static struct bench_xres *run(const struct bench_params *bp)
{
	struct bench_xres *x = bench_ir_new(sc.name, sizeof(struct pr_priv), print_detail,
					    json_detail);
	struct pr_priv *pv = x->priv;
	struct bench_ir *ir = &pv->ir;
	static const int hogs[] = { 500, 2000 }, qhogs[] = { 200, 400 };

	bench_ir_init(ir, bp->quick ? qhogs : hogs, 2);
	ir->prm.cb_period_us = 150;
	ir->prm.warmup_ms = bp->quick ? 100 : 300;
	ir->prm.tail_ms = bp->quick ? 200 : 500;
	pv->per_period = ceil(ir->period_ms * 1000.0 / ir->prm.cb_period_us);
	pv->bound_cb = THR_CALLBACKS + pv->per_period;
	pv->thr_bytes = (unsigned long)THR_CALLBACKS * (unsigned long)ir->prm.obj_bytes;
	pv->bound_bytes = (double)pv->thr_bytes + pv->per_period * ir->prm.obj_bytes;
	for (int r = 0; r < R_MEMB; r++)
		ir->cfg[r].boost = 1;
	ir->cfg[R_CB].pressure_callbacks = THR_CALLBACKS;
	ir->cfg[R_BYTES].pressure_bytes = pv->thr_bytes;
	bench_ir_add(ir, "plain", NULL);
	bench_ir_add(ir, "pressure-cb", NULL);
	bench_ir_add(ir, "pressure-bytes", NULL);
	bench_ir_add(ir, "urcu-memb", &inv_flavor_urcu_memb);

	if (bench_ir_begin(x, ir, 0, 0) != 0)
		return x;
	bench_ir_run_all(x, ir, ir->nhogs * NRUNS);
	bench_ir_end(ir);
	add_figs(x, pv);
	plot(x, pv);
	return x;
}

const struct bench_xscenario bench_x_pressure = { &sc, run };
