/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-bench: measure rcuboost against liburcu (urcu-memb, the main
 * peer, plus urcu-mb and urcu-qsbr) and Concurrency Kit's ck_epoch in the
 * same run, and report each figure with the ratio rcuboost/peer.
 *
 * Hygiene: before the timed rounds every side runs once, shortened, as a
 * warm-up; then each round measures every side, in forward order on even
 * rounds and reverse order on odd ones, so that drift (frequency, other
 * load) spreads over all sides; the figure is each side's median over
 * the rounds, and the spread (max - min) / median is reported with it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define DEF_ROUNDS 5
#define DEF_DURATION_MS 300
#define DEF_CALLS 1000000ul
#define QUICK_ROUNDS 3
#define QUICK_DURATION_MS 40
#define QUICK_CALLS 50000ul

#define BENCH_LIST_SCENARIO(n) &bench_scenario_##n,
static const struct bench_scenario *const scenarios[] = {
	BENCH_SCENARIOS(BENCH_LIST_SCENARIO)
};
#undef BENCH_LIST_SCENARIO
#define NSCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

static const struct tool_peer *const sides[] = {
	&tool_peer_rcuboost,
	&tool_peer_urcu_memb,
	&tool_peer_urcu_mb,
	&tool_peer_urcu_qsbr,
	&tool_peer_ck_epoch,
};
/*
 * In --help order.  They run from the second on, the first last:
 * fifo64, follow, boosters and pi fork, best before any library thread
 * runs (liburcu's call_rcu thread would not exist in the child; fifo64
 * and follow need rcuboost not yet initialised).
 */
enum { X_INVERSION, X_FIFO64, X_FOLLOW, X_BOOSTERS, X_PI, X_PRESSURE, X_ESCALATE, X_EXPEDITED };
static const struct bench_xscenario *const xscenarios[] = {
	[X_INVERSION] = &bench_x_inversion,
	[X_FIFO64] = &bench_x_fifo64,
	[X_FOLLOW] = &bench_x_follow,
	[X_BOOSTERS] = &bench_x_boosters,
	[X_PI] = &bench_x_pi,
	[X_PRESSURE] = &bench_x_pressure,
	[X_ESCALATE] = &bench_x_escalate,
	[X_EXPEDITED] = &bench_x_expedited,
};
#define NXSCENARIOS (sizeof(xscenarios) / sizeof(xscenarios[0]))

#define NSIDES (sizeof(sides) / sizeof(sides[0]))
_Static_assert(NSIDES <= BENCH_MAX_SIDES, "raise BENCH_MAX_SIDES");

static struct bench_result results[BENCH_MAX_RESULTS];

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: rcuboost-bench [OPTION]... [SCENARIO]...\n"
		"Measure rcuboost against liburcu in the same run: urcu-memb (the main peer;\n"
		"goals apply to it), urcu-mb and urcu-qsbr, all through their inline read-side\n"
		"fast paths.  Every figure is printed with the ratio rcuboost/peer and, for\n"
		"urcu-memb, whether the goal is met.  Goals are informational: the exit status\n"
		"does not depend on them.\n"
		"\n"
		"Options:\n"
		"  --json FILE        also write the results to FILE as JSON\n"
		"  --quick            short run for smoke tests: %u rounds of %u ms, %lu calls\n"
		"  --rounds N         timed rounds per side (default %u, at most %u)\n"
		"  --duration-ms N    length of each timed measurement (default %u)\n"
		"  --calls N          callbacks per thread in the call throughput tests\n"
		"                     (default %lu)\n"
		"  --hog-ms LIST      inversion: hog durations in ms, comma-separated\n"
		"                     (default %s); pi: the longest of LIST\n"
		"  --plot-dir DIR     pressure, escalate, boosters, pi: where their gnuplot\n"
		"                     scripts, data and PNG plots go (default %s)\n"
		"  --help             show this help and exit\n"
		"\n"
		"Method: each side is first run once, shortened, as a warm-up; then every round\n"
		"measures every side, alternating the order between rounds.  A figure is the\n"
		"median over the rounds; \"+-\" is the spread (max - min) / median.  Worker\n"
		"threads are pinned to the first two CPUs the process may use; at most two\n"
		"threads are busy at a time, except where a scenario says otherwise.\n"
		"\n"
		"Scenarios (default: all but those run only when named, in this order):\n",
		QUICK_ROUNDS, QUICK_DURATION_MS, QUICK_CALLS, DEF_ROUNDS,
		BENCH_MAX_ROUNDS, DEF_DURATION_MS, DEF_CALLS, BENCH_INV_DEFAULT_HOGS,
		RCB_BENCH_PLOT_DIR);
	for (size_t i = 0; i < NSCENARIOS; i++)
		fprintf(out, "  %s\n", scenarios[i]->help);
	fprintf(out, "\nRun only when named (not by default, not by \"all\"), before the others,\n"
		     "with its own tables after theirs:\n");
	for (size_t i = 0; i < NXSCENARIOS; i++)
		fprintf(out, "  %s\n", xscenarios[i]->sc->help);
	fprintf(out,
		"\n"
		"Output: the first line of stdout is a one-line summary,\n"
		"  rcuboost-bench: read=1.01x ... goals=N/M (ratios rcuboost/urcu-memb)\n"
		"with one key per figure that has a goal (call=1.20x@ck-epoch: a goal against\n"
		"another peer); then a table of every figure with the best other library and\n"
		"the ratio to it.  The JSON file has one entry per figure and peer: name,\n"
		"scenario, unit, better, rcuboost (median), rcuboost_spread, rcuboost_rounds,\n"
		"peer, peer_value, peer_spread, peer_rounds, ratio, goal (e.g. \"<=1.05\" on\n"
		"the goal's peer, null for the other peers and informational figures) and\n"
		"goal_met (true, false or null).\n"
		"Progress goes to stderr.  With \"inversion\", the summary line also has its\n"
		"figures with a goal, as values with boosting on (inversion.gp_max.1000ms=41ms),\n"
		"and the JSON file its entries (peers urcu-memb, boost-off, and \"goal\" for a\n"
		"goal: peer_value is the bound, ratio = figure / bound, goal \"<=1.00\") and an\n"
		"\"inversion\" object with every run and its boost statistics.\n"
		"\n"
		"Exit status: 0 when the run completed, 1 on a run-time error (an inversion\n"
		"run that failed its checks included), 2 on bad usage.\n");
}

static const struct bench_scenario *find_scenario(const char *name)
{
	for (size_t i = 0; i < NSCENARIOS; i++)
		if (!strcmp(scenarios[i]->name, name))
			return scenarios[i];
	return NULL;
}

/* Measure every side of @t once per round; fill @res (t->nfig slots). */
static void run_test(const struct bench_test *t, const char *scenario,
		     struct bench_params *p, struct bench_result *res,
		     unsigned int idx, unsigned int total)
{
	double out[BENCH_MAX_VALUES];
	int ok[NSIDES];
	struct bench_params warm = *p;
	uint64_t t0 = tool_now_ns();

	for (unsigned int k = 0; k < t->nfig; k++) {
		memset(&res[k], 0, sizeof(res[k]));
		res[k].scenario = scenario;
		res[k].fig = &t->fig[k];
		res[k].nrounds = p->rounds;
	}
	tool_progress("rcuboost-bench: [%u/%u] %s: warm-up", idx, total, t->name);
	warm.warmup = 1;
	warm.duration_ms = p->duration_ms / 4 ? p->duration_ms / 4 : 1;
	for (unsigned int s = 0; s < NSIDES; s++)
		ok[s] = t->measure(sides[s], &warm, out) == 0;
	for (unsigned int r = 0; r < p->rounds; r++) {
		tool_progress(", %u", r + 1);
		for (unsigned int i = 0; i < NSIDES; i++) {
			unsigned int s = r % 2 ? NSIDES - 1 - i : i;

			if (!ok[s])
				continue;
			if (t->measure(sides[s], p, out) != 0) {
				ok[s] = 0;
				continue;
			}
			for (unsigned int k = 0; k < t->nfig; k++)
				res[k].round[s][r] = out[k];
		}
	}
	for (unsigned int k = 0; k < t->nfig; k++) {
		for (unsigned int s = 0; s < NSIDES; s++) {
			double lo, hi;

			res[k].have[s] = ok[s];
			if (!ok[s])
				continue;
			res[k].median[s] = tool_median(res[k].round[s], p->rounds);
			lo = hi = res[k].round[s][0];
			for (unsigned int r = 1; r < p->rounds; r++) {
				if (res[k].round[s][r] < lo)
					lo = res[k].round[s][r];
				if (res[k].round[s][r] > hi)
					hi = res[k].round[s][r];
			}
			res[k].spread[s] = res[k].median[s] > 0 ?
						   (hi - lo) / res[k].median[s] : 0;
		}
	}
	tool_progress(" (%.1f s)\n", (double)(tool_now_ns() - t0) / 1e9);
}

static void parse_hogs(const char *arg, void *var)
{
	struct bench_params *p = var;

	p->nhogs = bench_inv_parse_hogs(arg, p->hogs);
	if (!p->nhogs)
		exit(2);
}

/* The scenarios named on the command line. */
struct selection {
	const struct bench_scenario *sc[NSCENARIOS]; /* measured per side */
	unsigned int nsel;
	int x[NXSCENARIOS]; /* run only when named */
	unsigned int nx;
};

static void unknown_scenario(const char *name)
{
	fprintf(stderr, "rcuboost-bench: unknown scenario '%s'; known:", name);
	for (size_t k = 0; k < NSCENARIOS; k++)
		fprintf(stderr, " %s", scenarios[k]->name);
	for (size_t k = 0; k < NXSCENARIOS; k++)
		fprintf(stderr, " %s", xscenarios[k]->sc->name);
	fprintf(stderr, "\n");
	exit(2);
}

/* The operands argv[first..argc): scenario names or "all".  None: all
 * the per-side scenarios. */
static void select_scenarios(int first, int argc, char **argv, struct selection *s)
{
	for (int i = first; i < argc; i++) {
		const struct bench_scenario *sc = find_scenario(argv[i]);
		unsigned int j;

		if (!strcmp(argv[i], "all")) {
			s->nsel = 0;
			for (size_t k = 0; k < NSCENARIOS; k++)
				if (!scenarios[k]->named_only)
					s->sc[s->nsel++] = scenarios[k];
			continue;
		}
		for (j = 0; j < NXSCENARIOS && strcmp(argv[i], xscenarios[j]->sc->name); j++)
			;
		if (j < NXSCENARIOS) {
			s->nx += !s->x[j];
			s->x[j] = 1;
			continue;
		}
		if (!sc)
			unknown_scenario(argv[i]);
		for (j = 0; j < s->nsel && s->sc[j] != sc; j++)
			;
		if (j == s->nsel)
			s->sc[s->nsel++] = sc;
	}
	if (!s->nsel && !s->nx)
		for (size_t k = 0; k < NSCENARIOS; k++)
			if (!scenarios[k]->named_only)
				s->sc[s->nsel++] = scenarios[k];
}

/*
 * The scenarios run only when named, before any side: no thread of the
 * process may run on their real-time CPU but their own.  Their results
 * into @xres; returns non-zero if one failed (n/a is not a failure).
 */
static int run_named(const struct bench_params *p, const struct selection *s,
		     struct bench_xres **xres, unsigned int *nx)
{
	int failed = 0;

	for (size_t i = 1; i <= NXSCENARIOS; i++) {
		size_t k = i % NXSCENARIOS;
		uint64_t t1 = tool_now_ns();
		struct bench_xres *x;

		if (!s->x[k])
			continue;
		x = xres[(*nx)++] = xscenarios[k]->run(p);
		x->elapsed_s = (double)(tool_now_ns() - t1) / 1e9;
		failed |= x->failed || (x->status && x->status != -EPERM && x->status != -ENODEV);
	}
	return failed;
}

/* Set up the sides and measure every test of the selected scenarios;
 * returns the number of results, or -1 (message on stderr). */
static int run_sides(struct bench_params *p, const struct selection *s)
{
	unsigned int ntests = 0, idx = 0, nres = 0;

	/* Before any pinning: library threads inherit the creator's mask. */
	for (size_t k = 0; s->nsel && k < NSIDES; k++) {
		if (sides[k]->setup() != 0) {
			fprintf(stderr, "rcuboost-bench: cannot set up %s\n", sides[k]->name);
			return -1;
		}
	}
	tool_pick_cpus(&p->cpu_a, &p->cpu_b);
	for (unsigned int i = 0; i < s->nsel; i++) {
		ntests += s->sc[i]->ntests;
		for (unsigned int k = 0; k < s->sc[i]->ntests; k++)
			nres += s->sc[i]->tests[k].nfig;
	}
	if (nres > BENCH_MAX_RESULTS) {
		fprintf(stderr, "rcuboost-bench: too many figures; raise BENCH_MAX_RESULTS\n");
		return -1;
	}
	nres = 0;
	for (unsigned int i = 0; i < s->nsel; i++) {
		for (unsigned int k = 0; k < s->sc[i]->ntests; k++) {
			const struct bench_test *t = &s->sc[i]->tests[k];

			run_test(t, s->sc[i]->name, p, &results[nres], ++idx, ntests);
			nres += t->nfig;
		}
	}
	return (int)nres;
}

int main(int argc, char **argv)
{
	struct bench_params p = { 0 };
	struct bench_report rep = { 0 };
	struct selection sel = { 0 };
	const char *json = NULL;
	long rounds = -1, duration = -1, calls = -1;
	const struct tool_opt opts[] = {
		TOOL_OPT_STR("json", 0, json),
		TOOL_OPT_FLAG("quick", 0, p.quick),
		TOOL_OPT_NUM("rounds", 0, rounds, 1, BENCH_MAX_ROUNDS),
		TOOL_OPT_NUM("duration-ms", 0, duration, 1, 600000),
		TOOL_OPT_NUM("calls", 0, calls, 1, 100000000),
		TOOL_OPT_FN("hog-ms", 0, p, parse_hogs),
		TOOL_OPT_STR("plot-dir", 0, bench_plot_dir),
	};
	struct bench_xres *xres[NXSCENARIOS];
	uint64_t t0 = tool_now_ns();
	int nres, failed;

	tool_prog = "rcuboost-bench";
	/* Internal: one "defer" measurement in a fresh process (sc_defer.c). */
	if (argc == 5 && strcmp(argv[1], "--defer-child") == 0)
		return bench_defer_child_main(argv);
	select_scenarios(tool_getopt(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), usage),
			 argc, argv, &sel);
	p.rounds = rounds > 0 ? (unsigned int)rounds : p.quick ? QUICK_ROUNDS : DEF_ROUNDS;
	p.duration_ms = duration > 0 ? (unsigned int)duration :
			p.quick ? QUICK_DURATION_MS : DEF_DURATION_MS;
	p.calls = calls > 0 ? (unsigned long)calls : p.quick ? QUICK_CALLS : DEF_CALLS;
	if (p.nhogs && sel.x[X_PI])
		p.hog_ms = p.hogs[p.nhogs - 1]; /* sorted: the longest */
	if (p.nhogs && !sel.x[X_INVERSION] && !p.hog_ms)
		tool_usage_error("--hog-ms applies to the inversion and pi scenarios only");

	failed = run_named(&p, &sel, xres, &rep.nx);
	nres = run_sides(&p, &sel);
	if (nres < 0)
		return 1;
	rep.params = &p;
	/* The scenarios run only when named compare with urcu-memb only. */
	rep.nsides = sel.nsel ? NSIDES : 2;
	rep.sides = sides;
	rep.sides_set_up = sel.nsel > 0;
	rep.nresults = (unsigned int)nres;
	rep.results = results;
	rep.x = xres;
	rep.elapsed_s = (double)(tool_now_ns() - t0) / 1e9;
	bench_print_summary(stdout, &rep);
	bench_print_table(stdout, &rep);
	fflush(stdout);
	if (json && bench_write_json(json, &rep) != 0)
		failed = 1;
	for (unsigned int k = 0; k < rep.nx; k++)
		bench_x_free(xres[k]);
	return failed ? 1 : 0;
}
