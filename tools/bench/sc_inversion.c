/* SPDX-License-Identifier: MIT */
/*
 * Scenarios on the inversion engine (tools/common/inversion.h): a run per
 * hog duration and configuration of a SCHED_FIFO reader preempted in its
 * section by a SCHED_FIFO hog while an updater retires objects.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>

#include "bench.h"

#define RUNS 4
enum what { HELD, GP_MAX, GP_P99, BACKLOG, BYTES, STEPS };

struct ir {
	struct inv_params prm;
	unsigned int nhogs, nruns;
	int hog_ms[BENCH_MAX_HOGS];
	const char *name[RUNS];
	struct rcb_config cfg[RUNS]; /* of an rcuboost run */
	struct inv_flavor_ops ops[RUNS];
	void (*hook[RUNS])(void *arg); /* a run's prm.hook */
	int ran[BENCH_MAX_HOGS][RUNS];
	struct inv_result res[BENCH_MAX_HOGS][RUNS];
	unsigned int period_ms, elements; /* the booster's */
};

/* Every thread of the process to @m. */
static void set_all(const cpu_set_t *m)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (atoi(e->d_name) > 0)
			sched_setaffinity(atoi(e->d_name), sizeof(*m), m);
	if (d)
		closedir(d);
}

static void ir_init(struct ir *ir, const int *hog_ms, unsigned int nhogs)
{
	memset(ir, 0, sizeof(*ir));
	inv_params_default(&ir->prm);
	ir->nhogs = nhogs;
	memcpy(ir->hog_ms, hog_ms, nhogs * sizeof(*hog_ms));
	/* The library's defaults unless set (rcuboost(3)). */
	ir->period_ms = getenv("RCUBOOST_PERIOD_MS") ?
				atoi(getenv("RCUBOOST_PERIOD_MS")) : 10;
	ir->elements = getenv("RCUBOOST_ELEMENTS") ?
			       atoi(getenv("RCUBOOST_ELEMENTS")) : 4;
}

/* A run: @ops, or (NULL) rcuboost with ir->cfg[its index]. */
static void ir_add(struct ir *ir, const char *name,
		   const struct inv_flavor_ops *ops)
{
	unsigned int r = ir->nruns++;

	ir->name[r] = name;
	ir->cfg[r].size = sizeof(ir->cfg[r]);
	if (ops)
		ir->ops[r] = *ops;
	else
		inv_flavor_rcuboost_cfg(&ir->ops[r], name, &ir->cfg[r]);
}

/* Every run at every hog under a watchdog, the process's other threads
 * (liburcu's call_rcu thread from an earlier run...) kept off the
 * real-time CPU.  @prio: the highest priority used.  0 or x->status. */
static int ir_run(struct bench_res *x, struct ir *ir, int prio)
{
	struct inv_params chk = ir->prm;
	cpu_set_t saved, rt_off;
	unsigned int secs = 30;

	chk.hog_prio = prio;
	x->status = inv_params_check(&ir->prm, x->why, sizeof(x->why));
	if (!x->status)
		x->status = inv_rt_check(&chk, x->why, sizeof(x->why));
	if (!x->status && sched_getaffinity(0, sizeof(saved), &saved))
		x->status = -errno;
	if (x->status) {
		tool_progress("rcuboost-bench: %s: n/a: %s\n", x->sc->name,
			      x->why);
		return x->status;
	}
	rt_off = saved;
	CPU_CLR(INV_RT_CPU, &rt_off);
	set_all(&rt_off);
	/* Generous: every run's length plus every internal timeout. */
	for (unsigned int h = 0; h < ir->nhogs; h++)
		secs += ir->nruns *
			((unsigned int)(ir->prm.warmup_ms + ir->hog_ms[h] +
					ir->prm.tail_ms) /
				 1000 +
			 15);
	inv_watchdog("rcuboost-bench", secs);
	for (unsigned int h = 0; h < ir->nhogs; h++) {
		for (unsigned int r = 0; r < ir->nruns; r++) {
			struct inv_result *res = &ir->res[h][r];

			ir->prm.hog_ms = ir->hog_ms[h];
			ir->prm.hook = ir->hook[r];
			tool_progress("rcuboost-bench: %s: hog %d ms, %s: ",
				      x->sc->name, ir->hog_ms[h], ir->name[r]);
			ir->ran[h][r] = !inv_run(&ir->ops[r], &ir->prm, res);
			x->failed |= !ir->ran[h][r] || !res->ok;
			tool_progress("reader held %.1f ms, gp_max %.1f ms, "
				      "peak backlog %ld %s%s\n",
				      res->reader_held_ms, res->gp_max_ms,
				      res->peak_backlog,
				      res->ok ? "" : "FAILED: ", res->error);
		}
	}
	inv_watchdog_off();
	set_all(&saved);
	return 0;
}

static double ir_val(const struct ir *ir, unsigned int h, unsigned int r,
		     enum what w)
{
	const struct inv_result *v = &ir->res[h][r];

	if (h >= ir->nhogs || r >= ir->nruns || !ir->ran[h][r])
		return NAN;
	switch (w) {
	case HELD: return v->reader_held_ms;
	case GP_MAX: return v->gp_count ? v->gp_max_ms : NAN;
	case GP_P99: return v->gp_count ? v->gp_p99_ms : NAN;
	case BACKLOG: return (double)v->peak_backlog;
	case BYTES: return (double)v->peak_backlog_bytes;
	default: return v->have_boost_stats ? (double)v->bs.escalations : NAN;
	}
}

/* Peak backlog of run @r at the longest hog / at the shortest. */
static double ir_growth(const struct ir *ir, unsigned int r)
{
	return bench_ratio(ir_val(ir, ir->nhogs - 1, r, BACKLOG),
			   ir_val(ir, 0, r, BACKLOG));
}

/* A figure PRE.WHAT.<hog>ms: @w of run 0 at hog @h against the others. */
static struct bench_fig *ir_fig(struct bench_res *x, const struct ir *ir,
				unsigned int h, enum what w, const char *pre)
{
	static const char *const name[] = { "reader_held", "gp_max",
		"gp_p99", "backlog", "backlog_bytes", "steps" };
	static const char *const unit[] = { "ms", "ms", "ms", "callbacks",
					    "bytes", "steps" };
	struct bench_fig *g = bench_fig(x, unit[w], ir_val(ir, h, 0, w),
					"%s.%s.%dms", pre, name[w],
					ir->hog_ms[h]);

	for (unsigned int r = 1; r < ir->nruns; r++)
		bench_peer(g, ir->name[r], ir_val(ir, h, r, w));
	return g;
}

static void ir_free(struct ir *ir)
{
	for (unsigned int h = 0; h < ir->nhogs; h++)
		for (unsigned int r = 0; r < ir->nruns; r++)
			inv_result_free(&ir->res[h][r]);
}

static struct ir cur;

static void run_inversion(struct bench_res *x, const struct bench_params *bp)
{
	static const int def[] = { 1000, 3000 };
	unsigned int n = bp->nhogs ? bp->nhogs : 2;
	struct bench_fig *g;

	ir_init(&cur, bp->nhogs ? bp->hogs : def, n);
	ir_add(&cur, "boost-on", &inv_flavor_rcuboost_on);
	ir_add(&cur, "urcu-memb", &inv_flavor_urcu_memb);
	ir_add(&cur, "boost-off", &inv_flavor_rcuboost_off);
	x->vname = "boost-on";
	if (ir_run(x, &cur, cur.prm.hog_prio))
		return;
	for (unsigned int h = 0; h < n; h++) {
		for (enum what w = GP_MAX; w <= BYTES; w++) {
			g = ir_fig(x, &cur, h, w, "inversion");
			/* Within (elements + 1) booster periods: 50 ms. */
			if (w == GP_MAX)
				bench_bound(g, (cur.elements + 1.0) *
						       cur.period_ms);
		}
	}
	if (n >= 2) {
		/* 1 if the backlog does not depend on the hog, the hogs'
		 * ratio if linear in it; the goal is the geometric middle. */
		g = bench_fig(x, "x", ir_growth(&cur, 0),
			      "inversion.backlog.growth");
		bench_peer(g, "urcu-memb", ir_growth(&cur, 1));
		bench_peer(g, "boost-off", ir_growth(&cur, 2));
		bench_bound(g, sqrt((double)cur.hog_ms[n - 1] / cur.hog_ms[0]));
	}
	ir_free(&cur);
}

static void run_pressure(struct bench_res *x, const struct bench_params *bp)
{
	static const int hogs[] = { 500, 2000 }, qhogs[] = { 200, 400 };
	double per_period, thr_bytes;
	struct bench_fig *g;

	ir_init(&cur, bp->quick ? qhogs : hogs, 2);
	cur.prm.cb_period_us = 150;
	cur.prm.warmup_ms = bp->quick ? 100 : 300;
	cur.prm.tail_ms = bp->quick ? 200 : 500;
	/* Goal: the threshold plus what the updater queues in a period. */
	per_period = ceil(cur.period_ms * 1000.0 / cur.prm.cb_period_us);
	thr_bytes = 64.0 * cur.prm.obj_bytes;
	cur.cfg[0].boost = cur.cfg[1].boost = cur.cfg[2].boost = 1;
	cur.cfg[0].pressure_callbacks = 64;
	cur.cfg[2].pressure_bytes = (unsigned long)thr_bytes;
	ir_add(&cur, "pressure-cb", NULL);
	ir_add(&cur, "plain", NULL);
	ir_add(&cur, "pressure-bytes", NULL);
	ir_add(&cur, "urcu-memb", &inv_flavor_urcu_memb);
	x->vname = "pressure-cb";
	if (ir_run(x, &cur, cur.prm.hog_prio))
		return;
	for (unsigned int h = 0; h < cur.nhogs; h++) {
		bench_bound(ir_fig(x, &cur, h, BACKLOG, "pressure"),
			    64 + per_period);
		ir_fig(x, &cur, h, BYTES, "pressure");
		ir_fig(x, &cur, h, GP_MAX, "pressure");
		/* The byte threshold's run against its own bound. */
		g = bench_fig(x, "bytes", ir_val(&cur, h, 2, BYTES),
			      "pressure.bthr.backlog_bytes.%dms",
			      cur.hog_ms[h]);
		bench_bound(g, thr_bytes + per_period * cur.prm.obj_bytes);
	}
	g = bench_fig(x, "x", ir_growth(&cur, 0), "pressure.backlog.growth");
	for (unsigned int r = 1; r < cur.nruns; r++)
		bench_peer(g, cur.name[r], ir_growth(&cur, r));
	ir_free(&cur);
}

#define FIRST_PRIO 20

static int raise_err;

static void raise_booster(void *arg UNUSED)
{
	raise_err |= rcb_booster_set_prio(75) != 0;
}

static void run_escalate(struct bench_res *x, const struct bench_params *bp)
{
	static const int hogs[] = { 500, 1000 }, qhogs[] = { 400 };
	struct bench_fig *g;
	unsigned int l;
	double p;

	ir_init(&cur, bp->quick ? qhogs : hogs, bp->quick ? 1 : 2);
	cur.prm.warmup_ms = bp->quick ? 100 : 300;
	cur.prm.tail_ms = bp->quick ? 200 : 300;
	cur.prm.hook_ms = 150;
	for (int r = 0; r < 3; r++) {
		/* Booster 50, first boost 20 (below the hog's 40), ceiling
		 * 45; escalation by one level per period in run 0. */
		cur.cfg[r] =
			(struct rcb_config){ .boost = 1,
					     .boost_prio = 50,
					     .boost_reader_prio = FIRST_PRIO,
					     .boost_ceiling = 45 };
	}
	cur.cfg[0].escalate_periods = 1;
	/* Run 2 raises the booster to 75 after 150 ms: first level 20 ->
	 * 45, above the hog; the reader must finish at the next reboost. */
	cur.hook[2] = raise_booster;
	ir_add(&cur, "escalate", NULL);
	ir_add(&cur, "plain", NULL);
	ir_add(&cur, "raise", NULL);
	ir_add(&cur, "urcu-memb", &inv_flavor_urcu_memb);
	x->vname = "escalate";
	if (ir_run(x, &cur, 75))
		return;
	x->failed |= raise_err;
	p = cur.period_ms;
	for (unsigned int h = 0; h < cur.nhogs; h++) {
		g = ir_fig(x, &cur, h, HELD, "escalate");
		/* (elements + steps + 2) periods, steps = hog - first + 1 */
		bench_bound(g, (cur.elements + cur.prm.hog_prio - FIRST_PRIO +
				3) * p);
		ir_fig(x, &cur, h, GP_MAX, "escalate");
		ir_fig(x, &cur, h, STEPS, "escalate");
		g = bench_fig(x, "periods", ir_val(&cur, h, 0, HELD) / p,
			      "escalate.periods.%dms", cur.hog_ms[h]);
		for (unsigned int r = 1; r < cur.nruns; r++)
			bench_peer(g, cur.name[r],
				   ir_val(&cur, h, r, HELD) / p);
	}
	/* At the longest hog: the raise against waiting out the hog. */
	l = cur.nhogs - 1;
	x->vname = "raise";
	g = bench_fig(x, "ms",
		      ir_val(&cur, l, 2, HELD) - cur.res[l][2].hook_ran_ms,
		      "escalate.raise_to_unlock.%dms", cur.hog_ms[l]);
	bench_peer(g, "plain",
		   ir_val(&cur, l, 1, HELD) - cur.res[l][2].hook_ran_ms);
	bench_peer(g, "urcu-memb",
		   ir_val(&cur, l, 3, HELD) - cur.res[l][2].hook_ran_ms);
	bench_bound(g, (cur.elements + 1) * p);
	ir_free(&cur);
}

/* A run of rcuboost with boosting, inheritance from waiters if
 * @inherit, its synchronize expedited if @exp. */
static void add_exp(const char *name, int inherit, int exp)
{
	unsigned int r = cur.nruns;

	cur.cfg[r].boost = 1;
	cur.cfg[r].inherit = inherit ? 1 : -1;
	cur.cfg[r].expedited = -1;
	ir_add(&cur, name, NULL);
	if (exp)
		cur.ops[r].synchronize = rcb_synchronize_expedited;
}

static void run_expedited(struct bench_res *x, const struct bench_params *bp)
{
	static const char *const names[] = {
		"expedited.gp.hog40", "inherit.gp.upd80.hog60",
		"inherit.expedited.gp.upd80.hog60"
	};
	int hog = bp->quick ? 300 : 1000;
	double gp[2][RUNS];

	/* A hog at 40, then at 60 with the synchronize loop at FIFO 80. */
	for (int k = 0; k < 2; k++) {
		ir_init(&cur, &hog, 1);
		cur.prm.warmup_ms = cur.prm.tail_ms = bp->quick ? 100 : 200;
		cur.prm.hog_prio = k ? 60 : 40;
		cur.prm.sync_prio = k ? 80 : 0;
		add_exp(k ? "no inheritance" : "synchronize", 0, 0);
		add_exp(k ? "inherit" : "expedited", k, !k);
		if (k)
			add_exp("inherit.expedited", 1, 1);
		ir_add(&cur, "urcu-memb", &inv_flavor_urcu_memb);
		if (ir_run(x, &cur, 80))
			return;
		for (unsigned int r = 0; r < cur.nruns; r++)
			gp[k][r] = ir_val(&cur, 0, r, GP_MAX);
		gp[k][3] = gp[k][cur.nruns - 1]; /* urcu-memb */
		ir_free(&cur);
	}
	x->vname = "value";
	for (int f = 0; f < 3; f++) {
		int k = f > 0;
		struct bench_fig *g = bench_fig(x, "ms", gp[k][f ? f : 1], "%s",
						names[f]);

		bench_peer(g, k ? "no inheritance" : "synchronize", gp[k][0]);
		bench_peer(g, "urcu-memb", gp[k][3]);
		/* Expedited: 2 ms; inheritance: one booster period more. */
		bench_bound(g, f == 1 ? cur.period_ms + 2.0 : 2.0);
	}
}

const struct bench_scenario bench_sc_inversion = { "inversion",
	"a FIFO reader preempted by a hog of each --hog-ms",
	1, run_inversion, NULL, 0 };

const struct bench_scenario bench_sc_pressure = { "pressure",
	"the inversion with fast retires: pressure thresholds",
	1, run_pressure, NULL, 0 };

const struct bench_scenario bench_sc_escalate = { "escalate",
	"a hog above the first boost level: escalation, raise",
	1, run_escalate, NULL, 0 };

const struct bench_scenario bench_sc_expedited = { "expedited",
	"expedited grace periods, inheritance from waiters",
	1, run_expedited, NULL, 0 };
