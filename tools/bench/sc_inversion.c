/* SPDX-License-Identifier: MIT */
/*
 * Scenario "inversion", run only when named: the priority inversion of
 * tools/common/inversion.h (a SCHED_FIFO reader preempted inside its
 * read-side critical section by a SCHED_FIFO CPU hog) for each hog
 * duration of --hog-ms, three ways: rcuboost with boosting off, with
 * boosting on, and liburcu urcu-memb.  One run each: a run lasts
 * warm-up + hog + tail, and its figures are set by the hog, not by noise.
 *
 * Figures ("rcuboost" is the boosted run; peers urcu-memb and boost-off):
 *   inversion.gp_max.<H>ms         longest synchronize during the run;
 *                                  goal: at most (elements + 1) booster
 *                                  periods, 50 ms at the library defaults
 *   inversion.gp_p99.<H>ms, inversion.backlog.<H>ms (peak callbacks),
 *   inversion.backlog_bytes.<H>ms  informational
 *   inversion.backlog.growth       peak backlog at the longest hog divided
 *                                  by that at the shortest: 1 when the
 *                                  backlog does not depend on the hog, the
 *                                  hogs' ratio when it grows with it; goal:
 *                                  at most the geometric middle, the square
 *                                  root of the hogs' ratio
 * A goal is written as one more JSON entry whose peer is "goal": its
 * peer_value is the bound, its ratio figure / bound, its goal "<=1.00".
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { RUN_OFF, RUN_ON, RUN_MEMB, NRUNS };

struct iv_priv {
	struct bench_ir ir; /* first: see bench_ir_new() */
	double gp_goal_ms, growth_goal;
};

static const struct bench_scenario sc = {
	.name = "inversion",
	.help = "inversion: needs real-time priority; about 20 s.  A SCHED_FIFO reader\n"
		"  preempted in its read-side critical section by a SCHED_FIFO hog, for each\n"
		"  --hog-ms duration, run once with boosting off, once with boosting on and\n"
		"  once with urcu-memb.  Figures: longest and 99th percentile grace period,\n"
		"  peak callback backlog (callbacks, bytes).  Goals (boosting on):\n"
		"  inversion.gp_max <= (elements + 1) booster periods (50 ms by default);\n"
		"  inversion.backlog.growth, the peak backlog at the longest hog / at the\n"
		"  shortest, <= the square root of the hogs' ratio (nearer independent, 1,\n"
		"  than linear).  Without real-time permission: n/a, exit status unchanged.",
};

unsigned int bench_inv_parse_hogs(const char *arg, int *hog_ms)
{
	const char *s = arg;
	unsigned int n = 0;

	for (;;) {
		char *end;
		long v;
		unsigned int i;

		if (n == BENCH_IR_MAX_HOGS || *s < '0' || *s > '9')
			goto bad;
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || v < 1 || v > INV_HOG_MS_MAX || (*end && *end != ','))
			goto bad;
		for (i = n; i > 0 && hog_ms[i - 1] > v; i--)
			hog_ms[i] = hog_ms[i - 1];
		if (i > 0 && hog_ms[i - 1] == v)
			goto bad;
		hog_ms[i] = (int)v;
		n++;
		if (!*end)
			return n;
		s = end + 1;
	}
bad:
	fprintf(stderr,
		"rcuboost-bench: --hog-ms: expected 1 to %d distinct durations in ms from 1 "
		"to %d, comma-separated, got '%s'\n", BENCH_IR_MAX_HOGS, INV_HOG_MS_MAX, arg);
	return 0;
}

static const char *na_reason(int status)
{
	return status == -EPERM ? "needs real-time priority" :
	       status == -ENODEV ? "needs CPUs 0 and 1" : "could not run";
}

static void boost_stats(FILE *out, const struct bench_ir *ir, unsigned int h)
{
	const struct inv_result *on = &ir->res[h][RUN_ON];

	if (!ir->ran[h][RUN_ON])
		return;
	if (!on->have_boost_stats) {
		fprintf(out, "  boost-on: no boost statistics (librcuboost built without "
			     "boosting: RCB_BOOST=OFF)\n");
		return;
	}
	fprintf(out, "  boost statistics of the boost-on run (this run's counters):\n");
	for (const char *s = on->boost_stats_text; *s;) {
		const char *nl = strchr(s, '\n');
		int n = nl ? (int)(nl - s) : (int)strlen(s);

		fprintf(out, "    %.*s\n", n, s);
		s += n + (nl ? 1 : 0);
	}
	if (!on->bs.enabled)
		fprintf(out, "    (boosting is not enabled: RCUBOOST_BOOST turned it off)\n");
	else if (on->bs.no_permission)
		fprintf(out, "    (the booster was refused real-time priority)\n");
}

static void print_detail(FILE *out, const struct bench_xres *x)
{
	static const enum bench_ir_row rows[] = {
		IRC_HELD, IRC_GP_MAX, IRC_GP_P99, IRC_GP_MEDIAN, IRC_GP_COUNT,
		IRC_BACKLOG, IRC_BYTES, IRC_RESULT,
	};
	const struct iv_priv *pv = x->priv;
	const struct bench_ir *ir = &pv->ir;
	const struct inv_params *p = &ir->prm;

	fprintf(out, "\ninversion: a SCHED_FIFO %d reader on CPU %d preempted inside its\n"
		     "read-side critical section by a SCHED_FIFO %d hog on CPU %d; on CPU %d an\n"
		     "updater retires one %d-byte object every %d us (call_rcu) and another\n"
		     "thread times synchronize in a loop.\n",
		p->reader_prio, INV_RT_CPU, p->hog_prio, INV_RT_CPU, INV_OTHER_CPU,
		p->obj_bytes, p->cb_period_us);
	if (x->status) {
		fprintf(out, "inversion: n/a (%s): %s\n", na_reason(x->status), x->why);
		return;
	}
	fprintf(out, "Each run once: %d ms warm-up, the hog, %d ms tail.  Backlog = objects\n"
		     "retired and not yet freed, counted the same way for every run.\n",
		p->warmup_ms, p->tail_ms);
	bench_ir_print(out, ir, 13, rows, sizeof(rows) / sizeof(rows[0]), boost_stats);
	fprintf(out, "\nvalue = rcuboost with boosting on.\n"
		     "gp_max goal: (elements + 1) x booster period = (%u + 1) x %u ms.\n",
		ir->elements, ir->period_ms);
	if (ir->nhogs >= 2)
		fprintf(out, "backlog.growth = peak backlog at the %d ms hog / at the %d ms hog:\n"
			     "1 if independent of the hog's duration, %.2f if linear in it;\n"
			     "goal: <= sqrt(%.2f) = %.2f.\n",
			ir->hog_ms[ir->nhogs - 1], ir->hog_ms[0],
			(double)ir->hog_ms[ir->nhogs - 1] / ir->hog_ms[0],
			(double)ir->hog_ms[ir->nhogs - 1] / ir->hog_ms[0], pv->growth_goal);
}

static void json_detail(FILE *f, const struct bench_xres *x)
{
	const struct iv_priv *pv = x->priv;
	const struct bench_ir *ir = &pv->ir;
	const struct inv_params *p = &ir->prm;

	fprintf(f, "    \"reason\": ");
	tool_json_str(f, x->status ? na_reason(x->status) : NULL);
	fprintf(f, ",\n    \"params\": {\"hog_ms\": [");
	for (unsigned int h = 0; h < ir->nhogs; h++)
		fprintf(f, "%s%d", h ? ", " : "", ir->hog_ms[h]);
	fprintf(f, "], \"hog_prio\": %d, \"reader_prio\": %d, \"rt_cpu\": %d, "
		   "\"other_cpu\": %d,\n      \"cb_period_us\": %d, \"obj_bytes\": %d, "
		   "\"sync_pause_us\": %d, \"warmup_ms\": %d, \"tail_ms\": %d, "
		   "\"sample_ms\": %d,\n      \"boost_period_ms\": %u, "
		   "\"boost_elements\": %u, \"gp_goal_ms\": ",
		p->hog_prio, p->reader_prio, INV_RT_CPU, INV_OTHER_CPU, p->cb_period_us,
		p->obj_bytes, p->sync_pause_us, p->warmup_ms, p->tail_ms, p->sample_ms,
		ir->period_ms, ir->elements);
	tool_json_num(f, pv->gp_goal_ms);
	fprintf(f, ", \"growth_goal\": ");
	tool_json_num(f, ir->nhogs >= 2 ? pv->growth_goal : NAN);
	fprintf(f, "},\n");
	bench_ir_json_end(f, bench_ir_json_runs(f, x, ir));
}

static void add_figs(struct bench_xres *x, const struct iv_priv *pv)
{
	static const struct {
		const char *name, *unit;
	} what[] = {
		[IR_GP_MAX] = { "gp_max", "ms" },
		[IR_GP_P99] = { "gp_p99", "ms" },
		[IR_BACKLOG] = { "backlog", "callbacks" },
		[IR_BYTES] = { "backlog_bytes", "bytes" },
	};
	static const int runs[] = { RUN_ON, RUN_MEMB, RUN_OFF, -1 };
	const struct bench_ir *ir = &pv->ir;
	struct bench_xfig *g;

	for (unsigned int h = 0; h < ir->nhogs; h++) {
		for (int w = IR_GP_MAX; w <= IR_BYTES; w++) {
			g = bench_ir_fig(x, ir, what[w].unit, h, (enum bench_ir_what)w, runs,
					 "inversion.%s.%dms", what[w].name, ir->hog_ms[h]);
			if (w == IR_GP_MAX)
				bench_x_peer(g, BENCH_X_GOAL, pv->gp_goal_ms);
		}
	}
	if (ir->nhogs < 2)
		return;
	g = bench_x_fig(x, "x", bench_ir_growth(ir, RUN_ON), "inversion.backlog.growth");
	bench_x_peer(g, "urcu-memb", bench_ir_growth(ir, RUN_MEMB));
	bench_x_peer(g, "boost-off", bench_ir_growth(ir, RUN_OFF));
	bench_x_peer(g, BENCH_X_GOAL, pv->growth_goal);
}

static struct bench_xres *run(const struct bench_params *bp)
{
	struct bench_xres *x = bench_ir_new(sc.name, sizeof(struct iv_priv), print_detail,
					    json_detail);
	struct iv_priv *pv = x->priv;
	struct bench_ir *ir = &pv->ir;
	int hogs[BENCH_IR_MAX_HOGS];
	unsigned int nhogs = bp->nhogs;

	if (nhogs)
		memcpy(hogs, bp->hogs, sizeof(hogs));
	else
		nhogs = bench_inv_parse_hogs(BENCH_INV_DEFAULT_HOGS, hogs);
	bench_ir_init(ir, hogs, nhogs);
	bench_ir_add(ir, "boost-off", &inv_flavor_rcuboost_off);
	bench_ir_add(ir, "boost-on", &inv_flavor_rcuboost_on);
	bench_ir_add(ir, "urcu-memb", &inv_flavor_urcu_memb);
	pv->gp_goal_ms = (double)(ir->elements + 1) * ir->period_ms;
	pv->growth_goal = sqrt((double)hogs[nhogs - 1] / hogs[0]);
	if (bench_ir_begin(x, ir, 0, 0) == 0) {
		bench_ir_run_all(x, ir, ir->nhogs * NRUNS);
		bench_ir_end(ir);
	}
	add_figs(x, pv);
	return x;
}

const struct bench_xscenario bench_x_inversion = { &sc, run };
