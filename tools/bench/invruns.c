/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-bench: a matrix of runs of the inversion engine
 * (tools/common/inversion.h), each hog duration times each run (rcuboost
 * in some configuration, or liburcu urcu-memb), shared by the scenarios
 * inversion, pressure and escalate: running them in order with progress
 * and a watchdog, their values, figures against the other runs, the
 * per-hog table and the JSON of every run.
 */
#define _GNU_SOURCE /* sched_setaffinity, cpu_set_t */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Every thread's affinity before the runs. */
static cpu_set_t saved_mask;

void bench_ir_init(struct bench_ir *ir, const int *hog_ms, unsigned int nhogs)
{
	inv_params_default(&ir->prm);
	ir->nhogs = nhogs;
	memcpy(ir->hog_ms, hog_ms, nhogs * sizeof(*hog_ms));
	ir->prm.hog_ms = hog_ms[nhogs - 1];
	ir->period_ms = bench_x_env_num("RCUBOOST_PERIOD_MS", 10);
	ir->elements = bench_x_env_num("RCUBOOST_ELEMENTS", 4);
}

void bench_ir_add(struct bench_ir *ir, const char *name, const struct inv_flavor_ops *ops)
{
	unsigned int r = ir->nruns++;

	ir->name[r] = name;
	if (ops)
		ir->ops[r] = *ops;
	else
		inv_flavor_rcuboost_cfg(&ir->ops[r], name, &ir->cfg[r]);
}

int bench_ir_begin(struct bench_xres *x, struct bench_ir *ir, int prio, unsigned int extra)
{
	struct inv_params chk = ir->prm;
	unsigned int secs = 30;

	if (prio)
		chk.hog_prio = prio;
	x->status = inv_params_check(&ir->prm, x->why, sizeof(x->why));
	if (!x->status)
		x->status = inv_rt_check(&chk, x->why, sizeof(x->why));
	if (!x->status && sched_getaffinity(0, sizeof(saved_mask), &saved_mask) != 0) {
		x->status = -errno;
		snprintf(x->why, sizeof(x->why), "sched_getaffinity: %s", strerror(errno));
	}
	if (x->status) {
		tool_progress("rcuboost-bench: %s: n/a: %s\n", x->scenario, x->why);
		return x->status;
	}
	/* Generous: every run's length plus every internal timeout. */
	for (unsigned int h = 0; h < ir->nhogs; h++)
		secs += (ir->nruns + extra) * ((unsigned int)(ir->prm.warmup_ms + ir->hog_ms[h] +
							      ir->prm.tail_ms) / 1000 + 15);
	inv_watchdog("rcuboost-bench", secs);
	return 0;
}

int bench_ir_one(struct bench_xres *x, const struct inv_flavor_ops *ops,
		 const struct inv_params *p, struct inv_result *res, const char *label,
		 unsigned int k, unsigned int n)
{
	uint64_t t1 = tool_now_ns();
	int err;

	tool_progress("rcuboost-bench: %s [%u/%u] hog %d ms, %s (%s): ", x->scenario, k, n,
		      p->hog_ms, label, ops->library);
	err = inv_run(ops, p, res);
	if (err && !res->error[0])
		snprintf(res->error, sizeof(res->error), "%s", strerror(-err));
	if (err)
		tool_progress("could not run: %s", res->error);
	else
		tool_progress("reader held %.1f ms, gp_max %.1f ms, peak backlog %ld%s%s",
			      res->reader_held_ms, res->gp_max_ms, res->peak_backlog,
			      res->ok ? "" : ", FAILED: ", res->ok ? "" : res->error);
	tool_progress(" (%.1f s)\n", (double)(tool_now_ns() - t1) / 1e9);
	x->failed |= err || !res->ok;
	return !err;
}

void bench_ir_run_all(struct bench_xres *x, struct bench_ir *ir, unsigned int n)
{
	unsigned int k = 0;

	for (unsigned int h = 0; h < ir->nhogs; h++) {
		ir->prm.hog_ms = ir->hog_ms[h];
		for (unsigned int r = 0; r < ir->nruns; r++)
			ir->ran[h][r] = bench_ir_one(x, &ir->ops[r], &ir->prm, &ir->res[h][r],
						     ir->name[r], ++k, n);
	}
}

/*
 * Give every thread of the process its mask again.  The runs leave one
 * behind on CPU 1: liburcu's call_rcu thread, which the urcu-memb runs'
 * updater started there, and which the other scenarios share.
 */
void bench_ir_end(struct bench_ir *ir)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	(void)ir;
	inv_watchdog_off();
	if (!d)
		return;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid > 0)
			sched_setaffinity(tid, sizeof(saved_mask), &saved_mask);
	}
	closedir(d);
}

double bench_ir_val(const struct bench_ir *ir, unsigned int h, unsigned int r,
		    enum bench_ir_what w)
{
	const struct inv_result *res;

	if (h >= ir->nhogs || r >= ir->nruns || !ir->ran[h][r])
		return NAN;
	res = &ir->res[h][r];
	switch (w) {
	case IR_HELD:
		return res->reader_held_ms;
	case IR_GP_MAX:
		return res->gp_count ? res->gp_max_ms : NAN;
	case IR_GP_P99:
		return res->gp_count ? res->gp_p99_ms : NAN;
	case IR_BACKLOG:
		return (double)res->peak_backlog;
	case IR_BYTES:
		return (double)res->peak_backlog_bytes;
	case IR_STEPS:
		return res->have_boost_stats ? (double)res->bs.escalations : NAN;
	}
	return NAN;
}

double bench_ir_growth(const struct bench_ir *ir, unsigned int r)
{
	return bench_x_ratio(bench_ir_val(ir, ir->nhogs - 1, r, IR_BACKLOG),
			     bench_ir_val(ir, 0, r, IR_BACKLOG));
}

struct bench_xfig *bench_ir_fig(struct bench_xres *x, const struct bench_ir *ir,
				const char *unit, unsigned int h, enum bench_ir_what w,
				const int *runs, const char *fmt, ...)
{
	struct bench_xfig *g;
	char name[sizeof(g->name)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	g = bench_x_fig(x, unit, bench_ir_val(ir, h, (unsigned int)runs[0], w), "%s", name);
	for (int i = 1; runs[i] >= 0; i++)
		bench_x_peer(g, ir->name[runs[i]], bench_ir_val(ir, h, (unsigned int)runs[i], w));
	return g;
}

void bench_ir_cell(FILE *out, int w, unsigned int row, unsigned int col, const void *arg)
{
	const struct bench_ir_cells *c = arg;
	const struct inv_result *res = &c->ir->res[c->h][col];
	int st = res->have_boost_stats;

	switch (c->rows[row]) {
	case IRC_HELD: fprintf(out, " %*.1f", w, res->reader_held_ms); break;
	case IRC_GP_MAX: fprintf(out, " %*.1f", w, res->gp_max_ms); break;
	case IRC_GP_P99: fprintf(out, " %*.3f", w, res->gp_p99_ms); break;
	case IRC_GP_MEDIAN: fprintf(out, " %*.3f", w, res->gp_median_ms); break;
	case IRC_GP_COUNT: fprintf(out, " %*ld", w, res->gp_count); break;
	case IRC_BACKLOG: fprintf(out, " %*ld", w, res->peak_backlog); break;
	case IRC_BYTES: fprintf(out, " %*ld", w, res->peak_backlog_bytes); break;
	case IRC_PR_ENTRIES: bench_x_cell_long(out, w, st, res->bs.pressure_entries); break;
	case IRC_PR_KICKS: bench_x_cell_long(out, w, st, res->bs.pressure_kicks); break;
	case IRC_STEPS: bench_x_cell_long(out, w, st, res->bs.escalations); break;
	case IRC_PERIODS:
		fprintf(out, " %*.1f", w, res->reader_held_ms / c->ir->period_ms);
		break;
	case IRC_BOOSTS: bench_x_cell_long(out, w, st, res->bs.boost); break;
	case IRC_RESULT: fprintf(out, " %*s", w, res->ok ? "OK" : "FAIL"); break;
	}
}

static const char *const row_label[] = {
	[IRC_HELD] = "reader held its section (ms)",
	[IRC_GP_MAX] = "grace period max (ms)",
	[IRC_GP_P99] = "grace period p99 (ms)",
	[IRC_GP_MEDIAN] = "grace period median (ms)",
	[IRC_GP_COUNT] = "grace periods timed",
	[IRC_BACKLOG] = "peak backlog (callbacks)",
	[IRC_BYTES] = "peak backlog (bytes)",
	[IRC_PR_ENTRIES] = "pressure entries",
	[IRC_PR_KICKS] = "pressure kicks (rcb_call)",
	[IRC_STEPS] = "escalation steps",
	[IRC_PERIODS] = "periods to finish",
	[IRC_BOOSTS] = "boosts",
	[IRC_RESULT] = "result",
};

void bench_ir_print(FILE *out, const struct bench_ir *ir, int width,
		    const enum bench_ir_row *rows, unsigned int nrows,
		    void (*after)(FILE *out, const struct bench_ir *ir, unsigned int h))
{
	const char *labels[IRC_RESULT + 1];
	char head[32];

	for (unsigned int i = 0; i < nrows; i++)
		labels[i] = row_label[rows[i]];
	for (unsigned int h = 0; h < ir->nhogs; h++) {
		struct bench_ir_cells c = { ir, h, rows };
		struct bench_xtable t = { head, ir->name, ir->ran[h], ir->nruns, width,
					  labels, nrows, 32, bench_ir_cell, &c, { NULL } };

		snprintf(head, sizeof(head), "hog %-5d ms", ir->hog_ms[h]);
		for (unsigned int r = 0; r < ir->nruns; r++)
			t.errors[r] = ir->res[h][r].error;
		bench_x_print_runs(out, &t);
		if (after)
			after(out, ir, h);
	}
}

void bench_ir_json_run(FILE *f, int hog_ms, const char *name, int ran,
		       const struct inv_result *res, int first)
{
	char bs[2048];

	fprintf(f, "%s\n      {\"hog_ms\": %d, \"name\": ", first ? "" : ",", hog_ms);
	tool_json_str(f, name);
	fprintf(f, ", \"library\": ");
	tool_json_str(f, res->library);
	fprintf(f, ", \"ran\": %s, \"ok\": %s, \"error\": ", ran ? "true" : "false",
		ran && res->ok ? "true" : "false");
	tool_json_str(f, res->error);
	if (!ran) {
		fprintf(f, "}");
		return;
	}
	fprintf(f, ",\n       \"hog_ran_ms\": %.3f, \"reader_held_ms\": %.3f, "
		   "\"hook_ran_ms\": %.3f, \"gp_max_ms\": %.3f, \"gp_p99_ms\": %.3f, "
		   "\"gp_median_ms\": %.3f, \"gp_count\": %ld,\n       \"queued\": %ld, "
		   "\"invoked\": %ld, \"peak_backlog\": %ld, \"peak_backlog_bytes\": %ld,\n",
		res->hog_ms, res->reader_held_ms, res->hook_ran_ms, res->gp_max_ms,
		res->gp_p99_ms, res->gp_median_ms, res->gp_count, res->queued, res->invoked,
		res->peak_backlog, res->peak_backlog_bytes);
	if (res->have_lib_backlog)
		fprintf(f, "       \"lib_backlog\": {\"peak_callbacks\": %llu, "
			   "\"peak_bytes\": %llu},\n",
			(unsigned long long)res->lib.peak_callbacks,
			(unsigned long long)res->lib.peak_bytes);
	else
		fprintf(f, "       \"lib_backlog\": null,\n");
	if (res->have_boost_stats)
		fprintf(f, "       \"pressure_entries\": %ld, \"pressure_kicks\": %ld, "
			   "\"escalations\": %ld, \"boost\": %ld, \"booster_prio_end\": %d,\n",
			res->bs.pressure_entries, res->bs.pressure_kicks, res->bs.escalations,
			res->bs.boost, res->bs.booster_prio);
	fprintf(f, "       \"boost_stats\": ");
	if (res->have_boost_stats) {
		int n = rcb_boost_stats_format(&res->bs, bs, sizeof(bs), 1);

		while (n > 0 && (size_t)n < sizeof(bs) && bs[n - 1] == '\n')
			bs[--n] = '\0';
		fprintf(f, "%s}", n > 0 && (size_t)n < sizeof(bs) && bs[0] == '{' ? bs : "null");
	} else {
		fprintf(f, "null}");
	}
}

int bench_ir_json_runs(FILE *f, const struct bench_xres *x, const struct bench_ir *ir)
{
	int n = 0;

	fprintf(f, "    \"runs\": [");
	for (unsigned int h = 0; !x->status && h < ir->nhogs; h++)
		for (unsigned int r = 0; r < ir->nruns; r++, n++)
			bench_ir_json_run(f, ir->hog_ms[h], ir->name[r], ir->ran[h][r],
					  &ir->res[h][r], !n);
	return n;
}

void bench_ir_json_end(FILE *f, int any)
{
	fprintf(f, "%s]", any ? "\n    " : "");
}

void bench_ir_free(struct bench_ir *ir)
{
	for (unsigned int h = 0; h < ir->nhogs; h++)
		for (unsigned int r = 0; r < ir->nruns; r++)
			inv_result_free(&ir->res[h][r]);
}

static void free_ir(void *priv)
{
	bench_ir_free(priv);
}

struct bench_xres *bench_ir_new(const char *scenario, size_t priv_size,
				void (*print_detail)(FILE *out, const struct bench_xres *x),
				void (*json_detail)(FILE *f, const struct bench_xres *x))
{
	struct bench_xres *x = bench_x_new(scenario, priv_size, print_detail, json_detail);

	x->free_priv = free_ir;
	return x;
}
