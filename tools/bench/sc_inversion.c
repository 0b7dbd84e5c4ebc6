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
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "inversion.h"

#define NRUNS 3
enum { RUN_OFF, RUN_ON, RUN_MEMB };

static const struct inv_flavor_ops *const run_ops[NRUNS] = {
	[RUN_OFF] = &inv_flavor_rcuboost_off,
	[RUN_ON] = &inv_flavor_rcuboost_on,
	[RUN_MEMB] = &inv_flavor_urcu_memb,
};

/* The library's defaults for RCUBOOST_PERIOD_MS and RCUBOOST_ELEMENTS. */
#define DEF_BOOST_PERIOD_MS 10
#define DEF_BOOST_ELEMENTS 4

enum inv_what { W_GP_MAX, W_GP_P99, W_BACKLOG, W_BYTES, W_COUNT };

static const struct {
	const char *name, *unit;
} what_info[W_COUNT] = {
	[W_GP_MAX] = { "gp_max", "ms" },
	[W_GP_P99] = { "gp_p99", "ms" },
	[W_BACKLOG] = { "backlog", "callbacks" },
	[W_BYTES] = { "backlog_bytes", "bytes" },
};

#define MAX_FIGS (W_COUNT * BENCH_INV_MAX_HOGS + 1)
#define MAX_PEERS 3
#define GOAL_PEER BENCH_X_GOAL

struct inv_peer {
	const char *name; /* "urcu-memb", "boost-off" or GOAL_PEER */
	double value;     /* NaN: n/a */
};

struct inv_fig {
	char name[48];
	const char *unit;
	double value;     /* boosting on; NaN: n/a */
	unsigned int npeers;
	struct inv_peer peer[MAX_PEERS];
	double goal;      /* bound on value (lower is better); 0: none */
};

struct bench_inv {
	int status;       /* 0 ran; -EPERM, -ENODEV: n/a; else could not run */
	char why[512];
	struct inv_params prm;
	unsigned int nhogs;
	int hog_ms[BENCH_INV_MAX_HOGS];
	int ran[BENCH_INV_MAX_HOGS][NRUNS]; /* inv_run() returned 0 */
	struct inv_result res[BENCH_INV_MAX_HOGS][NRUNS];
	unsigned int period_ms, elements;
	double gp_goal_ms, growth_goal;
	double elapsed_s;
	unsigned int nfigs;
	struct inv_fig figs[MAX_FIGS];
};

const struct bench_scenario bench_scenario_inversion = {
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
	.ntests = 0,
	.tests = NULL,
};

unsigned int bench_inv_parse_hogs(const char *arg, int *hog_ms)
{
	const char *s = arg;
	unsigned int n = 0;

	for (;;) {
		char *end;
		long v;
		unsigned int i;

		if (n == BENCH_INV_MAX_HOGS || *s < '0' || *s > '9')
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
		"to %d, comma-separated, got '%s'\n", BENCH_INV_MAX_HOGS, INV_HOG_MS_MAX, arg);
	return 0;
}

/* @name's value if it is a plain number, else @def (the library refuses
 * a bad value itself, naming it). */
static unsigned int env_uint(const char *name, unsigned int def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long u;

	if (!v || *v < '0' || *v > '9')
		return def;
	errno = 0;
	u = strtoul(v, &end, 10);
	return errno || *end || u == 0 || u > 100000 ? def : (unsigned int)u;
}

/*
 * Give every thread of the process @mask again.  The runs leave one
 * behind on CPU 1: liburcu's call_rcu thread, which the urcu-memb runs'
 * updater started there, and which the other scenarios share.
 */
static void threads_set_affinity(const cpu_set_t *mask)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid > 0)
			sched_setaffinity(tid, sizeof(*mask), mask);
	}
	closedir(d);
}

static double run_value(const struct bench_inv *iv, unsigned int h, int run,
			enum inv_what w)
{
	const struct inv_result *r = &iv->res[h][run];

	if (iv->status || !iv->ran[h][run])
		return NAN;
	switch (w) {
	case W_GP_MAX:
		return r->gp_count ? r->gp_max_ms : NAN;
	case W_GP_P99:
		return r->gp_count ? r->gp_p99_ms : NAN;
	case W_BACKLOG:
		return (double)r->peak_backlog;
	case W_BYTES:
		return (double)r->peak_backlog_bytes;
	case W_COUNT:
		break;
	}
	return NAN;
}

static double growth(const struct bench_inv *iv, int run)
{
	return bench_x_ratio(run_value(iv, iv->nhogs - 1, run, W_BACKLOG),
			run_value(iv, 0, run, W_BACKLOG));
}

static void add_peer(struct inv_fig *g, const char *name, double value)
{
	g->peer[g->npeers].name = name;
	g->peer[g->npeers].value = value;
	g->npeers++;
}

static void compute_figures(struct bench_inv *iv)
{
	struct inv_fig *g;

	iv->nfigs = 0;
	for (unsigned int h = 0; h < iv->nhogs; h++) {
		for (int w = 0; w < W_COUNT; w++) {
			g = &iv->figs[iv->nfigs++];
			memset(g, 0, sizeof(*g));
			snprintf(g->name, sizeof(g->name), "inversion.%s.%dms",
				 what_info[w].name, iv->hog_ms[h]);
			g->unit = what_info[w].unit;
			g->value = run_value(iv, h, RUN_ON, (enum inv_what)w);
			add_peer(g, "urcu-memb", run_value(iv, h, RUN_MEMB, (enum inv_what)w));
			add_peer(g, "boost-off", run_value(iv, h, RUN_OFF, (enum inv_what)w));
			if (w == W_GP_MAX) {
				g->goal = iv->gp_goal_ms;
				add_peer(g, GOAL_PEER, g->goal);
			}
		}
	}
	if (iv->nhogs < 2)
		return;
	g = &iv->figs[iv->nfigs++];
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "inversion.backlog.growth");
	g->unit = "x";
	g->value = growth(iv, RUN_ON);
	add_peer(g, "urcu-memb", growth(iv, RUN_MEMB));
	add_peer(g, "boost-off", growth(iv, RUN_OFF));
	g->goal = iv->growth_goal;
	add_peer(g, GOAL_PEER, g->goal);
}

/* 1 met, 0 missed, -1 no goal or no value. */
static int fig_met(const struct inv_fig *g)
{
	if (!g->goal || isnan(g->value))
		return -1;
	return g->value <= g->goal;
}

static const char *na_reason(int status)
{
	return status == -EPERM ? "needs real-time priority" :
	       status == -ENODEV ? "needs CPUs 0 and 1" : "could not run";
}

struct bench_inv *bench_inv_run(const int *hog_ms, unsigned int nhogs)
{
	struct bench_inv *iv = tool_xmalloc(sizeof(*iv));
	unsigned int secs = 30, k = 0;
	uint64_t t0 = tool_now_ns();
	cpu_set_t mask;

	memset(iv, 0, sizeof(*iv));
	iv->nhogs = nhogs;
	memcpy(iv->hog_ms, hog_ms, nhogs * sizeof(*hog_ms));
	iv->period_ms = env_uint("RCUBOOST_PERIOD_MS", DEF_BOOST_PERIOD_MS);
	iv->elements = env_uint("RCUBOOST_ELEMENTS", DEF_BOOST_ELEMENTS);
	iv->gp_goal_ms = (double)(iv->elements + 1) * iv->period_ms;
	iv->growth_goal = sqrt((double)hog_ms[nhogs - 1] / hog_ms[0]);
	inv_params_default(&iv->prm);
	iv->prm.hog_ms = hog_ms[nhogs - 1];
	iv->status = inv_params_check(&iv->prm, iv->why, sizeof(iv->why));
	if (!iv->status)
		iv->status = inv_rt_check(&iv->prm, iv->why, sizeof(iv->why));
	if (iv->status || sched_getaffinity(0, sizeof(mask), &mask) != 0) {
		if (!iv->status) {
			iv->status = -errno;
			snprintf(iv->why, sizeof(iv->why), "sched_getaffinity: %s",
				 strerror(errno));
		}
		tool_progress("rcuboost-bench: inversion: n/a (%s): %s\n",
			       na_reason(iv->status), iv->why);
		compute_figures(iv);
		iv->elapsed_s = (double)(tool_now_ns() - t0) / 1e9;
		return iv;
	}

	/* Generous: every run's length plus every internal timeout. */
	for (unsigned int h = 0; h < nhogs; h++)
		secs += NRUNS * ((unsigned int)(iv->prm.warmup_ms + hog_ms[h] +
						iv->prm.tail_ms) / 1000 + 15);
	inv_watchdog("rcuboost-bench", secs);
	for (unsigned int h = 0; h < nhogs; h++) {
		for (int r = 0; r < NRUNS; r++) {
			struct inv_result *res = &iv->res[h][r];
			uint64_t t1 = tool_now_ns();
			int err;

			tool_progress("rcuboost-bench: inversion [%u/%u] hog %d ms, %s (%s): ",
				       ++k, nhogs * NRUNS, hog_ms[h], run_ops[r]->name,
				       run_ops[r]->library);
			iv->prm.hog_ms = hog_ms[h];
			err = inv_run(run_ops[r], &iv->prm, res);
			iv->ran[h][r] = err == 0;
			if (err && !res->error[0])
				snprintf(res->error, sizeof(res->error), "%s", strerror(-err));
			if (err)
				tool_progress("could not run: %s", res->error);
			else
				tool_progress("gp_max %.1f ms, peak backlog %ld%s%s",
					       res->gp_max_ms, res->peak_backlog,
					       res->ok ? "" : ", FAILED: ", res->ok ? "" : res->error);
			tool_progress(" (%.1f s)\n", (double)(tool_now_ns() - t1) / 1e9);
		}
	}
	inv_watchdog_off();
	threads_set_affinity(&mask);
	compute_figures(iv);
	iv->elapsed_s = (double)(tool_now_ns() - t0) / 1e9;
	return iv;
}

int bench_inv_failed(const struct bench_inv *iv)
{
	if (iv->status)
		return iv->status != -EPERM && iv->status != -ENODEV;
	for (unsigned int h = 0; h < iv->nhogs; h++)
		for (int r = 0; r < NRUNS; r++)
			if (!iv->ran[h][r] || !iv->res[h][r].ok)
				return 1;
	return 0;
}

void bench_inv_free(struct bench_inv *iv)
{
	if (!iv)
		return;
	for (unsigned int h = 0; h < iv->nhogs; h++)
		for (int r = 0; r < NRUNS; r++)
			inv_result_free(&iv->res[h][r]);
	free(iv);
}

/* ---- text ------------------------------------------------------------ */

void bench_inv_print_summary(FILE *out, const struct bench_inv *iv,
			     unsigned int *met, unsigned int *goals)
{
	char buf[32];

	for (unsigned int i = 0; i < iv->nfigs; i++) {
		const struct inv_fig *g = &iv->figs[i];

		if (!g->goal)
			continue;
		fprintf(out, " %s=%s%s", g->name, bench_num_str(g->value, buf, sizeof(buf)),
			isnan(g->value) ? "" : g->unit);
		(*goals)++;
		*met += fig_met(g) == 1;
	}
}

static void print_run_row(FILE *out, const char *label, const char *const *cell)
{
	fprintf(out, "  %-32s", label);
	for (int r = 0; r < NRUNS; r++)
		fprintf(out, " %13s", cell[r]);
	fprintf(out, "\n");
}

/* The per-run rows: label, decimals, value. */
static const struct {
	const char *label;
	int decimals;
} run_rows[] = {
	{ "reader held its section (ms)", 1 },
	{ "grace period max (ms)", 1 },
	{ "grace period p99 (ms)", 3 },
	{ "grace period median (ms)", 3 },
	{ "grace periods timed", 0 },
	{ "peak backlog (callbacks)", 0 },
	{ "peak backlog (bytes)", 0 },
};

static double run_row_value(const struct inv_result *res, unsigned int row)
{
	switch (row) {
	case 0:
		return res->reader_held_ms;
	case 1:
		return res->gp_max_ms;
	case 2:
		return res->gp_p99_ms;
	case 3:
		return res->gp_median_ms;
	case 4:
		return (double)res->gp_count;
	case 5:
		return (double)res->peak_backlog;
	default:
		return (double)res->peak_backlog_bytes;
	}
}

static void print_runs(FILE *out, const struct bench_inv *iv, unsigned int h)
{
	const struct inv_result *on = &iv->res[h][RUN_ON];
	char cell[NRUNS][32];
	const char *cells[NRUNS];

	fprintf(out, "\nhog %d ms%*s", iv->hog_ms[h], 27 - snprintf(NULL, 0, "%d", iv->hog_ms[h]),
		"");
	for (int r = 0; r < NRUNS; r++)
		fprintf(out, " %13s", run_ops[r]->name);
	fprintf(out, "\n");
	for (unsigned int i = 0; i < sizeof(run_rows) / sizeof(run_rows[0]); i++) {
		for (int r = 0; r < NRUNS; r++) {
			if (iv->ran[h][r])
				snprintf(cell[r], sizeof(cell[r]), "%.*f", run_rows[i].decimals,
					 run_row_value(&iv->res[h][r], i));
			else
				snprintf(cell[r], sizeof(cell[r]), "-");
			cells[r] = cell[r];
		}
		print_run_row(out, run_rows[i].label, cells);
	}
	for (int r = 0; r < NRUNS; r++)
		cells[r] = !iv->ran[h][r] ? "not run" : iv->res[h][r].ok ? "OK" : "FAIL";
	print_run_row(out, "result", cells);
	for (int r = 0; r < NRUNS; r++)
		if (!iv->ran[h][r] || !iv->res[h][r].ok)
			fprintf(out, "  %s: %s\n", run_ops[r]->name, iv->res[h][r].error);
	if (!iv->ran[h][RUN_ON])
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

static void print_figures(FILE *out, const struct bench_inv *iv)
{
	char a[32], b[32], c[32], d[32], e[32], g[32];

	fprintf(out, "\n%-31s %-9s %9s %9s %7s %9s %7s %7s %4s\n", "figure", "unit",
		"rcuboost", "urcu-memb", "ratio", "boost-off", "ratio", "goal", "met");
	for (unsigned int i = 0; i < iv->nfigs; i++) {
		const struct inv_fig *f = &iv->figs[i];
		int m = fig_met(f);

		if (f->goal)
			snprintf(g, sizeof(g), "<=%.*f", f->goal >= 10 ? 0 : 2, f->goal);
		else
			snprintf(g, sizeof(g), "-");
		fprintf(out, "%-31s %-9s %9s %9s %7s %9s %7s %7s %4s\n", f->name, f->unit,
			bench_x_num_str(f->value, a, sizeof(a)),
			bench_x_num_str(f->peer[0].value, b, sizeof(b)),
			bench_ratio_str(bench_x_ratio(f->value, f->peer[0].value), c, sizeof(c)),
			bench_x_num_str(f->peer[1].value, d, sizeof(d)),
			bench_ratio_str(bench_x_ratio(f->value, f->peer[1].value), e, sizeof(e)),
			g, m < 0 ? "-" : m ? "yes" : "no");
	}
}

/* Print @s word-wrapped at @width columns, each line indented. */
static void print_wrapped(FILE *out, const char *s, int indent, int width)
{
	while (*s) {
		int n = (int)strlen(s), cut = n;

		if (n > width - indent) {
			cut = width - indent;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = width - indent;
		}
		fprintf(out, "%*s%.*s\n", indent, "", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
}

void bench_inv_print_table(FILE *out, const struct bench_inv *iv)
{
	const struct inv_params *p = &iv->prm;

	fprintf(out, "\ninversion: a SCHED_FIFO %d reader on CPU %d preempted inside its\n"
		     "read-side critical section by a SCHED_FIFO %d hog on CPU %d; on CPU %d an\n"
		     "updater retires one %d-byte object every %d us (call_rcu) and another\n"
		     "thread times synchronize in a loop.\n",
		p->reader_prio, INV_RT_CPU, p->hog_prio, INV_RT_CPU, INV_OTHER_CPU,
		p->obj_bytes, p->cb_period_us);
	if (iv->status) {
		fprintf(out, "inversion: n/a (%s):\n", na_reason(iv->status));
		print_wrapped(out, iv->why, 2, 78);
		return;
	}
	fprintf(out, "Each run once: %d ms warm-up, the hog, %d ms tail.  Backlog = objects\n"
		     "retired and not yet freed, counted the same way for every run.\n",
		p->warmup_ms, p->tail_ms);
	for (unsigned int h = 0; h < iv->nhogs; h++)
		print_runs(out, iv, h);
	print_figures(out, iv);
	fprintf(out, "\nrcuboost = rcuboost with boosting on; ratio = rcuboost / peer.\n"
		     "gp_max goal: (elements + 1) x booster period = (%u + 1) x %u ms.\n",
		iv->elements, iv->period_ms);
	if (iv->nhogs >= 2)
		fprintf(out, "backlog.growth = peak backlog at the %d ms hog / at the %d ms hog:\n"
			     "1 if independent of the hog's duration, %.2f if linear in it;\n"
			     "goal: <= sqrt(%.2f) = %.2f.\n",
			iv->hog_ms[iv->nhogs - 1], iv->hog_ms[0],
			(double)iv->hog_ms[iv->nhogs - 1] / iv->hog_ms[0],
			(double)iv->hog_ms[iv->nhogs - 1] / iv->hog_ms[0], iv->growth_goal);
	fprintf(out, "%.1f s for the inversion runs.\n", iv->elapsed_s);
}

/* ---- JSON ------------------------------------------------------------ */

unsigned int bench_inv_json_count(const struct bench_inv *iv)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < iv->nfigs; i++)
		n += iv->figs[i].npeers;
	return n;
}

void bench_inv_write_entries(FILE *f, const struct bench_inv *iv)
{
	unsigned int n = 0, total = bench_inv_json_count(iv);

	for (unsigned int i = 0; i < iv->nfigs; i++)
		for (unsigned int k = 0; k < iv->figs[i].npeers; k++)
			bench_x_json_entry(f, "inversion", iv->figs[i].name, iv->figs[i].unit,
					   iv->figs[i].value, iv->figs[i].peer[k].name,
					   iv->figs[i].peer[k].value, fig_met(&iv->figs[i]),
					   ++n == total);
}

static void json_run(FILE *f, const struct bench_inv *iv, unsigned int h, int r)
{
	const struct inv_result *res = &iv->res[h][r];
	char bs[2048];

	fprintf(f, "      {\"hog_ms\": %d, \"name\": ", iv->hog_ms[h]);
	tool_json_str(f, run_ops[r]->name);
	fprintf(f, ", \"library\": ");
	tool_json_str(f, run_ops[r]->library);
	fprintf(f, ", \"ran\": %s, \"ok\": %s, \"error\": ", iv->ran[h][r] ? "true" : "false",
		iv->ran[h][r] && res->ok ? "true" : "false");
	tool_json_str(f, res->error);
	if (!iv->ran[h][r]) {
		fprintf(f, "}");
		return;
	}
	fprintf(f, ",\n       \"hog_ran_ms\": %.3f, \"reader_held_ms\": %.3f, "
		   "\"gp_max_ms\": %.3f, \"gp_p99_ms\": %.3f, \"gp_median_ms\": %.3f, "
		   "\"gp_count\": %ld,\n       \"queued\": %ld, \"invoked\": %ld, "
		   "\"peak_backlog\": %ld, \"peak_backlog_bytes\": %ld,\n",
		res->hog_ms, res->reader_held_ms, res->gp_max_ms, res->gp_p99_ms,
		res->gp_median_ms, res->gp_count, res->queued, res->invoked,
		res->peak_backlog, res->peak_backlog_bytes);
	if (res->have_lib_backlog)
		fprintf(f, "       \"lib_backlog\": {\"peak_callbacks\": %llu, "
			   "\"peak_bytes\": %llu},\n",
			(unsigned long long)res->lib.peak_callbacks,
			(unsigned long long)res->lib.peak_bytes);
	else
		fprintf(f, "       \"lib_backlog\": null,\n");
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

void bench_inv_write_detail(FILE *f, const struct bench_inv *iv)
{
	const struct inv_params *p = &iv->prm;
	int first = 1;

	fprintf(f, "{\n    \"status\": \"%s\", \"reason\": ",
		!iv->status ? "ran" : bench_inv_failed(iv) ? "error" : "n/a");
	if (iv->status)
		tool_json_str(f, na_reason(iv->status));
	else
		fprintf(f, "null");
	fprintf(f, ", \"detail\": ");
	tool_json_str(f, iv->why);
	fprintf(f, ",\n    \"params\": {\"hog_ms\": [");
	for (unsigned int h = 0; h < iv->nhogs; h++)
		fprintf(f, "%s%d", h ? ", " : "", iv->hog_ms[h]);
	fprintf(f, "], \"hog_prio\": %d, \"reader_prio\": %d, \"rt_cpu\": %d, "
		   "\"other_cpu\": %d,\n      \"cb_period_us\": %d, \"obj_bytes\": %d, "
		   "\"sync_pause_us\": %d, \"warmup_ms\": %d, \"tail_ms\": %d, "
		   "\"sample_ms\": %d,\n      \"boost_period_ms\": %u, "
		   "\"boost_elements\": %u, \"gp_goal_ms\": ",
		p->hog_prio, p->reader_prio, INV_RT_CPU, INV_OTHER_CPU, p->cb_period_us,
		p->obj_bytes, p->sync_pause_us, p->warmup_ms, p->tail_ms, p->sample_ms,
		iv->period_ms, iv->elements);
	tool_json_num(f, iv->gp_goal_ms);
	fprintf(f, ", \"growth_goal\": ");
	tool_json_num(f, iv->nhogs >= 2 ? iv->growth_goal : NAN);
	fprintf(f, "},\n    \"elapsed_s\": ");
	tool_json_num(f, iv->elapsed_s);
	fprintf(f, ",\n    \"runs\": [");
	for (unsigned int h = 0; !iv->status && h < iv->nhogs; h++) {
		for (int r = 0; r < NRUNS; r++) {
			fprintf(f, "%s\n", first ? "" : ",");
			json_run(f, iv, h, r);
			first = 0;
		}
	}
	fprintf(f, "%s]\n  }", first ? "" : "\n    ");
}
