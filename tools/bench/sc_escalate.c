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
#define _GNU_SOURCE /* sched_setaffinity */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "inversion.h"

enum { R_PLAIN, R_ESC, R_MEMB, NRUNS };
static const char *const run_name[NRUNS] = { "plain", "escalate", "urcu-memb" };

#define MAX_HOGS 3
#define BOOSTER_PRIO 50
#define FIRST_PRIO 20
#define CEILING_PRIO 45
#define RAISED_PRIO 75
#define RAISE_AT_MS 150

struct es_priv {
	struct inv_params prm;
	unsigned int nhogs;
	int hog_ms[MAX_HOGS];
	int ran[MAX_HOGS][NRUNS];
	struct inv_result res[MAX_HOGS][NRUNS];
	int raise_ran, raise_err;
	struct inv_result raise;
	struct rcb_config cfg[NRUNS], raise_cfg;
	struct inv_flavor_ops ops[NRUNS], raise_ops;
	unsigned int period_ms, elements;
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
	return pv->ran[h][r] ? pv->res[h][r].reader_held_ms : NAN;
}

static double gpmax(const struct es_priv *pv, unsigned int h, int r)
{
	return pv->ran[h][r] && pv->res[h][r].gp_count ? pv->res[h][r].gp_max_ms : NAN;
}

static double steps(const struct es_priv *pv, unsigned int h, int r)
{
	return pv->ran[h][r] && pv->res[h][r].have_boost_stats ?
		       (double)pv->res[h][r].bs.escalations : NAN;
}

static double raise_delay(const struct es_priv *pv)
{
	if (!pv->raise_ran || !pv->raise.hook_ran_ms)
		return NAN;
	return pv->raise.reader_held_ms - pv->raise.hook_ran_ms;
}

struct es_cells {
	const struct es_priv *pv;
	unsigned int h;
};

static void cell(FILE *out, int w, unsigned int i, unsigned int r, const void *arg)
{
	const struct es_cells *c = arg;
	const struct inv_result *res = &c->pv->res[c->h][r];
	int st = res->have_boost_stats;

	switch (i) {
	case 0: fprintf(out, " %*.1f", w, res->reader_held_ms); break;
	case 1: fprintf(out, " %*.1f", w, res->gp_max_ms); break;
	case 2: bench_x_cell_long(out, w, st, res->bs.escalations); break;
	case 3: fprintf(out, " %*.1f", w, res->reader_held_ms / c->pv->period_ms); break;
	case 4: bench_x_cell_long(out, w, st, res->bs.boost); break;
	default: fprintf(out, " %*s", w, res->ok ? "OK" : "FAIL"); break;
	}
}

static void print_detail(FILE *out, const struct bench_xres *x)
{
	static const char *const rows[] = {
		"reader held its section (ms)", "grace period max (ms)",
		"escalation steps", "periods to finish", "boosts", "result",
	};
	const struct es_priv *pv = x->priv;
	char head[32];

	fprintf(out, "\nescalate: a SCHED_FIFO %d reader preempted in its section by a SCHED_FIFO\n"
		     "%d hog on CPU %d; rcuboost boosts first to %d (boost_reader_prio), escalates\n"
		     "to at most %d (boost_ceiling) below its booster at %d; escalate_periods=1,\n"
		     "booster period %u ms, %u elements.\n",
		pv->prm.reader_prio, pv->prm.hog_prio, INV_RT_CPU, FIRST_PRIO, CEILING_PRIO,
		BOOSTER_PRIO, pv->period_ms, pv->elements);
	if (x->status) {
		fprintf(out, "escalate: n/a: %s\n", x->why);
		return;
	}
	for (unsigned int h = 0; h < pv->nhogs; h++) {
		struct es_cells c = { pv, h };
		struct bench_xtable t = { head, run_name, pv->ran[h], NRUNS, 12,
					  rows, sizeof(rows) / sizeof(rows[0]), 32, cell, &c };

		snprintf(head, sizeof(head), "hog %-5d ms", pv->hog_ms[h]);
		bench_x_print_runs(out, &t);
		for (int r = 0; r < NRUNS; r++)
			if (pv->ran[h][r] && !pv->res[h][r].ok)
				fprintf(out, "  %s: %s\n", run_name[r], pv->res[h][r].error);
	}
	fprintf(out, "\nRun-time raise (hog %d ms, no escalation, first boost %d): the booster\n"
		     "raised from %d to %d by rcb_booster_set_prio() %.1f ms after the hog started\n"
		     "(first level %d -> %d, above the hog): reader held %.1f ms, i.e. %.1f ms after\n"
		     "the raise (the next reboost comes within %u periods); booster at %d at the\n"
		     "end; %s%s%s.\n",
		pv->prm.hog_ms, FIRST_PRIO, BOOSTER_PRIO, RAISED_PRIO, pv->raise.hook_ran_ms,
		FIRST_PRIO, FIRST_PRIO + RAISED_PRIO - BOOSTER_PRIO, pv->raise.reader_held_ms,
		raise_delay(pv), pv->elements, pv->raise.bs.booster_prio,
		!pv->raise_ran ? "not run" : pv->raise.ok ? "OK" : "FAIL: ",
		pv->raise_ran && !pv->raise.ok ? pv->raise.error : "",
		pv->raise_err ? " (rcb_booster_set_prio failed)" : "");
	fprintf(out, "Goals: escalation ends the inversion within (elements + steps + 2) periods =\n"
		     "(%u + %d + 2) x %u ms = %.0f ms whatever the hog (steps = hog - first + 1);\n"
		     "after a raise the reader runs within (elements + 1) periods = %.0f ms.\n",
		pv->elements, pv->prm.hog_prio - FIRST_PRIO + 1, pv->period_ms,
		pv->bound_held_ms, pv->bound_raise_ms);
}

static void json_detail(FILE *f, const struct bench_xres *x)
{
	const struct es_priv *pv = x->priv;
	int first = 1;

	fprintf(f, "    \"params\": {\"reader_prio\": %d, \"hog_prio\": %d, \"booster_prio\": %d, "
		   "\"first_boost\": %d, \"ceiling\": %d, \"escalate_periods\": 1, "
		   "\"raised_prio\": %d, \"raise_at_ms\": %d, \"boost_period_ms\": %u, "
		   "\"boost_elements\": %u},\n    \"runs\": [",
		pv->prm.reader_prio, pv->prm.hog_prio, BOOSTER_PRIO, FIRST_PRIO, CEILING_PRIO,
		RAISED_PRIO, RAISE_AT_MS, pv->period_ms, pv->elements);
	for (unsigned int h = 0; !x->status && h <= pv->nhogs; h++) {
		for (int r = 0; r < NRUNS; r++) {
			const struct inv_result *res = h < pv->nhogs ? &pv->res[h][r] : &pv->raise;
			int ran = h < pv->nhogs ? pv->ran[h][r] : pv->raise_ran;

			if (h == pv->nhogs && r)
				break;
			fprintf(f, "%s\n      {\"hog_ms\": %d, \"name\": \"%s\", \"ran\": %s, "
				   "\"ok\": %s", first ? "" : ",",
				h < pv->nhogs ? pv->hog_ms[h] : pv->prm.hog_ms,
				h < pv->nhogs ? run_name[r] : "raise", ran ? "true" : "false",
				ran && res->ok ? "true" : "false");
			first = 0;
			if (!ran) {
				fprintf(f, "}");
				continue;
			}
			fprintf(f, ", \"reader_held_ms\": %.3f, \"gp_max_ms\": %.3f, "
				   "\"hook_ran_ms\": %.3f",
				res->reader_held_ms, res->gp_max_ms, res->hook_ran_ms);
			if (res->have_boost_stats)
				fprintf(f, ", \"escalations\": %ld, \"boost\": %ld, "
					   "\"booster_prio_end\": %d",
					res->bs.escalations, res->bs.boost, res->bs.booster_prio);
			fprintf(f, "}");
		}
	}
	fprintf(f, "%s]", first ? "" : "\n    ");
}

static void plot(struct bench_xres *x, const struct es_priv *pv)
{
	char dat[400];
	FILE *f = bench_x_plot_file(x, "escalate.dat", dat, sizeof(dat));

	if (!f)
		return;
	fprintf(f, "# hog_ms plain escalate urcu-memb (reader held, ms)\n");
	for (unsigned int h = 0; h < pv->nhogs; h++)
		fprintf(f, "%d %.3f %.3f %.3f\n", pv->hog_ms[h], held(pv, h, R_PLAIN),
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
			dat, FIRST_PRIO, RAISED_PRIO, RAISE_AT_MS, pv->prm.hog_ms,
			pv->raise_ran ? pv->raise.reader_held_ms : 0.0);
}

static void raise_booster(void *arg)
{
	struct es_priv *pv = arg;

	pv->raise_err = rcb_booster_set_prio(RAISED_PRIO);
}

static int run_one(struct bench_xres *x, const struct inv_flavor_ops *ops,
		   const struct inv_params *p, struct inv_result *res, const char *label,
		   unsigned int k, unsigned int n)
{
	int err;

	tool_progress("rcuboost-bench: escalate [%u/%u] hog %d ms, %s: ", k, n, p->hog_ms,
		       label);
	err = inv_run(ops, p, res);
	if (err) {
		tool_progress("could not run: %s\n", res->error);
		x->failed = 1;
		return 0;
	}
	x->failed |= !res->ok;
	tool_progress("reader held %.1f ms, gp_max %.1f ms%s%s\n", res->reader_held_ms,
		       res->gp_max_ms, res->ok ? "" : ", FAILED: ", res->ok ? "" : res->error);
	return 1;
}

static struct bench_xres *run(const struct bench_params *bp)
{
	struct bench_xres *x = bench_x_new(sc.name, sizeof(struct es_priv), print_detail,
					   json_detail);
	struct es_priv *pv = x->priv;
	static const int hogs[] = { 500, 1000 }, qhogs[] = { 400 };
	uint64_t t0 = tool_now_ns();
	unsigned int k = 0, n, secs = 30;
	cpu_set_t mask;

	inv_params_default(&pv->prm);
	pv->prm.warmup_ms = bp->quick ? 100 : 300;
	pv->prm.tail_ms = bp->quick ? 200 : 300;
	pv->nhogs = bp->quick ? 1 : 2;
	memcpy(pv->hog_ms, bp->quick ? qhogs : hogs, pv->nhogs * sizeof(int));
	pv->period_ms = bench_x_env_num("RCUBOOST_PERIOD_MS", 10);
	pv->elements = bench_x_env_num("RCUBOOST_ELEMENTS", 4);
	pv->bound_held_ms = (double)(pv->elements + (unsigned int)(pv->prm.hog_prio -
							       FIRST_PRIO + 1) + 2) *
			    pv->period_ms;
	pv->bound_raise_ms = (double)(pv->elements + 1) * pv->period_ms;
	for (int r = 0; r < R_MEMB; r++) {
		pv->cfg[r].boost = 1;
		pv->cfg[r].boost_prio = BOOSTER_PRIO;
		pv->cfg[r].boost_reader_prio = FIRST_PRIO;
		pv->cfg[r].boost_ceiling = CEILING_PRIO;
		inv_flavor_rcuboost_cfg(&pv->ops[r], run_name[r], &pv->cfg[r]);
	}
	pv->cfg[R_ESC].escalate_periods = 1;
	pv->ops[R_MEMB] = inv_flavor_urcu_memb;
	pv->raise_cfg = pv->cfg[R_PLAIN];
	inv_flavor_rcuboost_cfg(&pv->raise_ops, "raise", &pv->raise_cfg);

	if (bench_x_rt_check(x, RAISED_PRIO) != 0)
		return x;
	if (sched_getaffinity(0, sizeof(mask), &mask) != 0) {
		x->status = -errno;
		snprintf(x->why, sizeof(x->why), "sched_getaffinity: %s", strerror(errno));
		tool_progress("rcuboost-bench: escalate: n/a: %s\n", x->why);
		return x;
	}
	n = pv->nhogs * NRUNS + 1;
	for (unsigned int h = 0; h < pv->nhogs; h++)
		secs += (NRUNS + 1) * ((unsigned int)(pv->prm.warmup_ms + pv->hog_ms[h] +
						      pv->prm.tail_ms) / 1000 + 15);
	inv_watchdog("rcuboost-bench", secs);
	for (unsigned int h = 0; h < pv->nhogs; h++) {
		pv->prm.hog_ms = pv->hog_ms[h];
		for (int r = 0; r < NRUNS; r++)
			pv->ran[h][r] = run_one(x, &pv->ops[r], &pv->prm, &pv->res[h][r],
						run_name[r], ++k, n);
	}
	pv->prm.hook = raise_booster;
	pv->prm.hook_arg = pv;
	pv->prm.hook_ms = RAISE_AT_MS;
	pv->raise_ran = run_one(x, &pv->raise_ops, &pv->prm, &pv->raise,
				"raise booster to 75", ++k, n);
	pv->prm.hook = NULL;
	if (pv->raise_err)
		x->failed = 1;
	inv_watchdog_off();
	sched_setaffinity(0, sizeof(mask), &mask);

	for (unsigned int h = 0; h < pv->nhogs; h++) {
		struct bench_xfig *g;

		g = bench_x_fig(x, "ms", held(pv, h, R_ESC), "escalate.reader_held.%dms",
				pv->hog_ms[h]);
		bench_x_peer(g, "plain", held(pv, h, R_PLAIN));
		bench_x_peer(g, "urcu-memb", held(pv, h, R_MEMB));
		bench_x_peer(g, BENCH_X_GOAL, pv->bound_held_ms);
		g = bench_x_fig(x, "ms", gpmax(pv, h, R_ESC), "escalate.gp_max.%dms",
				pv->hog_ms[h]);
		bench_x_peer(g, "plain", gpmax(pv, h, R_PLAIN));
		bench_x_peer(g, "urcu-memb", gpmax(pv, h, R_MEMB));
		g = bench_x_fig(x, "steps", steps(pv, h, R_ESC), "escalate.steps.%dms",
				pv->hog_ms[h]);
		bench_x_peer(g, "plain", steps(pv, h, R_PLAIN));
		bench_x_peer(g, "urcu-memb", NAN);
		g = bench_x_fig(x, "periods", held(pv, h, R_ESC) / pv->period_ms,
				"escalate.periods.%dms", pv->hog_ms[h]);
		bench_x_peer(g, "plain", held(pv, h, R_PLAIN) / pv->period_ms);
		bench_x_peer(g, "urcu-memb", held(pv, h, R_MEMB) / pv->period_ms);
	}
	{
		struct bench_xfig *g = bench_x_fig(x, "ms", raise_delay(pv),
						   "escalate.raise_to_unlock.%dms", pv->prm.hog_ms);
		unsigned int l = pv->nhogs - 1;

		/* Without the raise the reader waits out the rest of the hog. */
		bench_x_peer(g, "plain", held(pv, l, R_PLAIN) - pv->raise.hook_ran_ms);
		bench_x_peer(g, "urcu-memb", held(pv, l, R_MEMB) - pv->raise.hook_ran_ms);
		bench_x_peer(g, BENCH_X_GOAL, pv->bound_raise_ms);
	}
	plot(x, pv);
	x->elapsed_s = (double)(tool_now_ns() - t0) / 1e9;
	return x;
}

const struct bench_xscenario bench_x_escalate = { &sc, run };
