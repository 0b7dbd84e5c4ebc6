/* SPDX-License-Identifier: MIT */
/*
 * Scenario "escalate", run only when named: successive boosting (article:
 * "Possible Future Enhancements", 2).  The inversion scenario with a hog
 * ABOVE the first boost level: reader SCHED_FIFO 10, first boost 20
 * (boost_reader_prio), hog SCHED_FIFO 40, ceiling 45, booster 50.  Runs
 * per hog duration: plain boosting (first boost 20, no escalation: the
 * reader stays under the hog until the hog ends), escalation by one
 * level every period, and liburcu urcu-memb; at the longest hog one more
 * run without escalation raises the booster's priority to 75 at run time
 * (rcb_booster_set_prio), which moves the first level to 45, above the
 * hog: the reader must finish at the next reboost.
 */
#include <math.h>
#include <string.h>

#include "bench.h"

enum { R_PLAIN, R_ESC, R_MEMB, NRUNS };

#define BOOSTER_PRIO 50
#define FIRST_PRIO 20
#define CEILING_PRIO 45
#define RAISED_PRIO 75
#define RAISE_AT_MS 150

struct es_priv {
	struct bench_ir ir;
	int raise_ran, raise_err;
	struct inv_result raise;
	struct rcb_config raise_cfg;
	struct inv_flavor_ops raise_ops;
	double bound_held_ms, bound_raise_ms;
};

static const struct bench_scenario sc = {
	.name = "escalate",
	.help = "escalate: needs real-time priority; about 10 s (--quick: 4 s).  Reader\n"
		"  SCHED_FIFO 10 preempted by a hog at 40, ABOVE the first boost level 20\n"
		"  (ceiling 45, booster 50), hogs of 500 and 1000 ms (--quick: 400): plain\n"
		"  boosting, escalation by one level per period, urcu-memb, and a run that\n"
		"  raises the booster to 75 after 150 ms.  Figures: reader held time, longest\n"
		"  grace period, escalation steps, periods to finish, raise-to-unlock time.",
};

static double held(const struct es_priv *pv, unsigned int h, int r)
{
	return bench_ir_val(&pv->ir, h, (unsigned int)r, IR_HELD);
}

static double raise_delay(const struct es_priv *pv)
{
	if (!pv->raise_ran || !pv->raise.hook_ran_ms)
		return NAN;
	return pv->raise.reader_held_ms - pv->raise.hook_ran_ms;
}

static void print_detail(FILE *out, const struct bench_xres *x)
{
	static const enum bench_ir_row rows[] = {
		IRC_HELD, IRC_GP_MAX, IRC_STEPS, IRC_PERIODS, IRC_BOOSTS, IRC_RESULT,
	};
	const struct es_priv *pv = x->priv;
	const struct bench_ir *ir = &pv->ir;

	fprintf(out, "\nescalate: a SCHED_FIFO %d reader preempted in its section by a SCHED_FIFO\n"
		     "%d hog on CPU %d; rcuboost boosts first to %d (boost_reader_prio), escalates\n"
		     "to at most %d (boost_ceiling) below its booster at %d; escalate_periods=1,\n"
		     "booster period %u ms, %u elements.\n",
		ir->prm.reader_prio, ir->prm.hog_prio, INV_RT_CPU, FIRST_PRIO, CEILING_PRIO,
		BOOSTER_PRIO, ir->period_ms, ir->elements);
	if (x->status) {
		fprintf(out, "escalate: n/a: %s\n", x->why);
		return;
	}
	bench_ir_print(out, ir, 12, rows, sizeof(rows) / sizeof(rows[0]), NULL);
	fprintf(out, "\nRun-time raise (hog %d ms, no escalation, first boost %d): the booster\n"
		     "raised from %d to %d by rcb_booster_set_prio() %.1f ms after the hog started\n"
		     "(first level %d -> %d, above the hog): reader held %.1f ms, i.e. %.1f ms after\n"
		     "the raise (the next reboost comes within %u periods); booster at %d at the\n"
		     "end; %s%s%s.\n",
		ir->prm.hog_ms, FIRST_PRIO, BOOSTER_PRIO, RAISED_PRIO, pv->raise.hook_ran_ms,
		FIRST_PRIO, FIRST_PRIO + RAISED_PRIO - BOOSTER_PRIO, pv->raise.reader_held_ms,
		raise_delay(pv), ir->elements, pv->raise.bs.booster_prio,
		!pv->raise_ran ? "not run" : pv->raise.ok ? "OK" : "FAIL: ",
		pv->raise_ran && !pv->raise.ok ? pv->raise.error : "",
		pv->raise_err ? " (rcb_booster_set_prio failed)" : "");
	fprintf(out, "Goals: escalation ends the inversion within (elements + steps + 2) periods =\n"
		     "(%u + %d + 2) x %u ms = %.0f ms whatever the hog (steps = hog - first + 1);\n"
		     "after a raise the reader runs within (elements + 1) periods = %.0f ms.\n",
		ir->elements, ir->prm.hog_prio - FIRST_PRIO + 1, ir->period_ms,
		pv->bound_held_ms, pv->bound_raise_ms);
}

static void json_detail(FILE *f, const struct bench_xres *x)
{
	const struct es_priv *pv = x->priv;
	const struct bench_ir *ir = &pv->ir;
	int n;

	fprintf(f, "    \"params\": {\"reader_prio\": %d, \"hog_prio\": %d, \"booster_prio\": %d, "
		   "\"first_boost\": %d, \"ceiling\": %d, \"escalate_periods\": 1, "
		   "\"raised_prio\": %d, \"raise_at_ms\": %d, \"boost_period_ms\": %u, "
		   "\"boost_elements\": %u},\n",
		ir->prm.reader_prio, ir->prm.hog_prio, BOOSTER_PRIO, FIRST_PRIO, CEILING_PRIO,
		RAISED_PRIO, RAISE_AT_MS, ir->period_ms, ir->elements);
	n = bench_ir_json_runs(f, x, ir);
	if (!x->status)
		bench_ir_json_run(f, ir->prm.hog_ms, "raise", pv->raise_ran, &pv->raise, !n++);
	bench_ir_json_end(f, n);
}

static void plot(struct bench_xres *x, const struct es_priv *pv)
{
	char dat[400];
	FILE *f = bench_x_plot_file(x, "escalate.dat", dat, sizeof(dat));

	if (!f)
		return;
	fprintf(f, "# hog_ms plain escalate urcu-memb (reader held, ms)\n");
	for (unsigned int h = 0; h < pv->ir.nhogs; h++)
		fprintf(f, "%d %.3f %.3f %.3f\n", pv->ir.hog_ms[h], held(pv, h, R_PLAIN),
			held(pv, h, R_ESC), held(pv, h, R_MEMB));
	fclose(f);
	bench_x_gnuplot(x, "escalate", 900, 540,
			"set title 'Reader held in its section vs hog duration (hog above the first boost)'\n"
			"set xlabel 'hog duration (ms)'\nset ylabel 'reader held (ms)'\n"
			"set key top left\nset grid\nset xrange [0:*]\nset yrange [0:*]\n"
			"set offsets graph 0.05, graph 0.05, graph 0.05, 0\n"
			"plot '%s' using 1:2 with linespoints lw 2 pt 7 title 'plain (first boost %d)', \\\n"
			"     '' using 1:3 with linespoints lw 2 pt 5 title 'escalation (1 level/period)', \\\n"
			"     '' using 1:4 with linespoints lw 2 pt 9 dt 2 title 'liburcu urcu-memb', \\\n"
			"     '-' using 1:2 with points pt 13 ps 2 title 'booster raised to %d at %d ms'\n"
			"%d %.3f\ne\n",
			dat, FIRST_PRIO, RAISED_PRIO, RAISE_AT_MS, pv->ir.prm.hog_ms,
			pv->raise_ran ? pv->raise.reader_held_ms : 0.0);
}

static void raise_booster(void *arg)
{
	struct es_priv *pv = arg;

	pv->raise_err = rcb_booster_set_prio(RAISED_PRIO);
}

static void add_figs(struct bench_xres *x, const struct es_priv *pv)
{
	static const int runs[] = { R_ESC, R_PLAIN, R_MEMB, -1 };
	const struct bench_ir *ir = &pv->ir;
	unsigned int l = ir->nhogs - 1;
	struct bench_xfig *g;

	for (unsigned int h = 0; h < ir->nhogs; h++) {
		g = bench_ir_fig(x, ir, "ms", h, IR_HELD, runs, "escalate.reader_held.%dms",
				 ir->hog_ms[h]);
		bench_x_peer(g, BENCH_X_GOAL, pv->bound_held_ms);
		bench_ir_fig(x, ir, "ms", h, IR_GP_MAX, runs, "escalate.gp_max.%dms",
			     ir->hog_ms[h]);
		g = bench_ir_fig(x, ir, "steps", h, IR_STEPS, runs, "escalate.steps.%dms",
				 ir->hog_ms[h]);
		g = bench_x_fig(x, "periods", held(pv, h, R_ESC) / ir->period_ms,
				"escalate.periods.%dms", ir->hog_ms[h]);
		bench_x_peer(g, "plain", held(pv, h, R_PLAIN) / ir->period_ms);
		bench_x_peer(g, "urcu-memb", held(pv, h, R_MEMB) / ir->period_ms);
	}
	g = bench_x_fig(x, "ms", raise_delay(pv), "escalate.raise_to_unlock.%dms", ir->prm.hog_ms);
	/* Without the raise the reader waits out the rest of the hog. */
	bench_x_peer(g, "plain", held(pv, l, R_PLAIN) - pv->raise.hook_ran_ms);
	bench_x_peer(g, "urcu-memb", held(pv, l, R_MEMB) - pv->raise.hook_ran_ms);
	bench_x_peer(g, BENCH_X_GOAL, pv->bound_raise_ms);
}

static void free_priv(void *priv)
{
	struct es_priv *pv = priv;

	bench_ir_free(&pv->ir);
	inv_result_free(&pv->raise);
}

static struct bench_xres *run(const struct bench_params *bp)
{
	struct bench_xres *x = bench_x_new(sc.name, sizeof(struct es_priv), print_detail,
					   json_detail);
	struct es_priv *pv = x->priv;
	struct bench_ir *ir = &pv->ir;
	static const int hogs[] = { 500, 1000 }, qhogs[] = { 400 };
	unsigned int n;

	x->free_priv = free_priv;
	bench_ir_init(ir, bp->quick ? qhogs : hogs, bp->quick ? 1 : 2);
	ir->prm.warmup_ms = bp->quick ? 100 : 300;
	ir->prm.tail_ms = bp->quick ? 200 : 300;
	pv->bound_held_ms = (double)(ir->elements +
				     (unsigned int)(ir->prm.hog_prio - FIRST_PRIO + 1) + 2) *
			    ir->period_ms;
	pv->bound_raise_ms = (double)(ir->elements + 1) * ir->period_ms;
	for (int r = 0; r < R_MEMB; r++) {
		ir->cfg[r].boost = 1;
		ir->cfg[r].boost_prio = BOOSTER_PRIO;
		ir->cfg[r].boost_reader_prio = FIRST_PRIO;
		ir->cfg[r].boost_ceiling = CEILING_PRIO;
	}
	ir->cfg[R_ESC].escalate_periods = 1;
	bench_ir_add(ir, "plain", NULL);
	bench_ir_add(ir, "escalate", NULL);
	bench_ir_add(ir, "urcu-memb", &inv_flavor_urcu_memb);
	pv->raise_cfg = ir->cfg[R_PLAIN];
	inv_flavor_rcuboost_cfg(&pv->raise_ops, "raise", &pv->raise_cfg);

	if (bench_ir_begin(x, ir, RAISED_PRIO, 1) != 0)
		return x;
	n = ir->nhogs * NRUNS + 1;
	bench_ir_run_all(x, ir, n);
	ir->prm.hook = raise_booster;
	ir->prm.hook_arg = pv;
	ir->prm.hook_ms = RAISE_AT_MS;
	pv->raise_ran = bench_ir_one(x, &pv->raise_ops, &ir->prm, &pv->raise,
				     "raise booster to 75", n, n);
	ir->prm.hook = NULL;
	if (pv->raise_err)
		x->failed = 1;
	bench_ir_end(ir);
	add_figs(x, pv);
	plot(x, pv);
	return x;
}

const struct bench_xscenario bench_x_escalate = { &sc, run };
