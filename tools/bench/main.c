/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-bench: rcuboost against liburcu and ck_epoch in the same run.
 * Each side first runs once, shortened; then each round measures every
 * side, the order alternating so that drift spreads over all sides.
 */
#define _GNU_SOURCE

#include "bench.h"

#define BENCH_LIST(n) &bench_sc_##n,
static const struct bench_scenario *const sc[] = {
	BENCH_SCENARIOS(BENCH_LIST)
};
#define NSC (sizeof(sc) / sizeof(sc[0]))

const struct tool_peer *const bench_sides_table[] = {
	&tool_peer_rcuboost, &tool_peer_urcu_memb, &tool_peer_urcu_mb,
	&tool_peer_urcu_qsbr, &tool_peer_ck_epoch, &tool_peer_rcuboost_qsbr,
	&tool_peer_rcuboost_owner,
};
#define NSIDES (sizeof(bench_sides_table) / sizeof(bench_sides_table[0]))
const unsigned int bench_nsides = NSIDES;
_Static_assert(NSIDES <= BENCH_MAX_VALS, "raise BENCH_MAX_VALS");

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: rcuboost-bench [OPTION]... [SCENARIO]...\n"
		"Measure rcuboost against liburcu (urcu-memb, the main peer;\n"
		"urcu-mb; urcu-qsbr) and ck-epoch in the same run.  Each\n"
		"figure is printed with the ratio rcuboost/peer and whether\n"
		"its goal is met; goals never change the exit status.\n\n"
		"Options:\n"
		"  --json FILE       also write the results to FILE as JSON\n"
		"  --quick           3 rounds of 40 ms, 50000 calls\n"
		"  --rounds N        timed rounds per side (default 5, <= %u)\n"
		"  --duration-ms N   each timed measurement (default 300)\n"
		"  --calls N         callbacks per thread (default 1000000)\n"
		"  --hog-ms LIST     inversion: hog durations in ms (default\n"
		"                    1000,3000); pi: the longest of LIST\n"
		"  --help            show this help and exit\n\n"
		"Each side first runs once, shortened; then every round\n"
		"measures every side, alternating the order.  A figure is\n"
		"the median of the rounds, \"+-\" its spread (max - min) /\n"
		"median.  "
		"Workers are pinned to the first two CPUs it may use.\n"
		"\nScenarios (default: \"all\", those not named only; "
		"rcuboost-bench(1)):\n",
		BENCH_MAX_ROUNDS);
	for (size_t i = 0; i < NSC; i++)
		fprintf(out, "  %-13s %s%s\n", sc[i]->name, sc[i]->help,
			sc[i]->named_only ? " (named only)" : "");
	fprintf(out, "\nOutput: a summary line (read=1.01x: a ratio to "
		     "urcu-memb; call=1.20x@ck-epoch:\nto another peer; "
		     "inversion.gp_max.1000ms=41ms: a value, a bound), then\n"
		     "a table per scenario; JSON: an entry per figure and peer."
		     "\nExit status: 0, 1 on a run-time error, 2 on bad usage."
		     "\n");
}

/* Measure every side of @t once per round into figures of @x. */
static void run_test(struct bench_res *x, const struct bench_test *t,
		     const struct bench_params *p)
{
	struct bench_fig *g = &x->fig[x->nfigs];
	struct bench_params warm = *p;
	double out[BENCH_MAX_VALUES];
	int ok[NSIDES];

	for (unsigned int k = 0; k < t->nfig; k++) {
		bench_fig(x, t->fig[k].unit, NAN, "%s", t->fig[k].name);
		g[k].higher = t->fig[k].higher;
		g[k].goal = t->fig[k].goal;
		g[k].goal_peer = t->fig[k].goal_peer;
		g[k].nval = NSIDES;
	}
	tool_progress("rcuboost-bench: %s: warm-up", t->name);
	warm.warmup = 1;
	warm.duration_ms = p->duration_ms / 4 + 1;
	for (unsigned int s = 0; s < NSIDES; s++)
		ok[s] = !t->measure(bench_sides_table[s], &warm, t->arg, out);
	for (unsigned int r = 0; r < p->rounds; r++) {
		tool_progress(", %u", r + 1);
		for (unsigned int i = 0; i < NSIDES; i++) {
			unsigned int s = r % 2 ? NSIDES - 1 - i : i;

			ok[s] = ok[s] && !t->measure(bench_sides_table[s], p,
						     t->arg, out);
			for (unsigned int k = 0; ok[s] && k < t->nfig; k++)
				g[k].val[s].r[r] = out[k];
		}
	}
	tool_progress("\n");
	for (unsigned int k = 0; k < t->nfig * NSIDES; k++) {
		struct bench_val *b = &g[k / NSIDES].val[k % NSIDES];
		double lo = INFINITY, hi = -INFINITY;

		b->name = bench_sides_table[k % NSIDES]->name;
		b->n = ok[k % NSIDES] ? p->rounds : 0;
		for (unsigned int r = 0; r < b->n; r++) {
			lo = fmin(lo, b->r[r]);
			hi = fmax(hi, b->r[r]);
		}
		b->med = b->n ? tool_median(b->r, b->n) : NAN;
		b->spread = !b->n ? NAN : b->med > 0 ? (hi - lo) / b->med : 0;
	}
}

void bench_sides(struct bench_res *x, const struct bench_params *p)
{
	for (unsigned int k = 0; k < x->sc->ntests; k++)
		run_test(x, &x->sc->tests[k], p);
}

static void parse_hogs(const char *arg, void *var)
{
	struct bench_params *p = var;

	p->nhogs = bench_parse_hogs(arg, p->hogs);
	if (!p->nhogs)
		exit(2);
}

int main(int argc, char **argv)
{
	struct bench_params p = { 0 };
	const char *json = NULL;
	long rounds = -1, duration = -1, calls = -1;
	const struct tool_opt opts[] = {
		TOOL_OPT_STR("json", 0, json),
		TOOL_OPT_FLAG("quick", 0, p.quick),
		TOOL_OPT_NUM("rounds", 0, rounds, 1, BENCH_MAX_ROUNDS),
		TOOL_OPT_NUM("duration-ms", 0, duration, 1, 600000),
		TOOL_OPT_NUM("calls", 0, calls, 1, 100000000),
		TOOL_OPT_FN("hog-ms", 0, p, parse_hogs),
	};
	struct bench_res *res[NSC];
	int sel[NSC] = { 0 }, failed = 0, set_up = 0, all = 1, hogs = 0;
	unsigned int n = 0;
	uint64_t t0 = tool_now_ns();
	double elapsed;

	tool_prog = "rcuboost-bench";
	/* Internal: one "defer" measurement in a fresh process. */
	if (argc == 5 && strcmp(argv[1], "--defer-child") == 0)
		return bench_defer_child_main(argv);
	for (int i = tool_getopt(argc, argv, opts, sizeof(opts) / sizeof(*opts),
				 usage); i < argc; i++) {
		size_t k = 0;

		while (k < NSC && strcmp(argv[i], sc[k]->name))
			k++;
		if (k == NSC && strcmp(argv[i], "all")) {
			fprintf(stderr, "rcuboost-bench: unknown scenario "
					"'%s'; known:", argv[i]);
			for (k = 0; k < NSC; k++)
				fprintf(stderr, " %s", sc[k]->name);
			fprintf(stderr, "\n");
			return 2;
		}
		all = 0;
		for (size_t j = 0; j < NSC; j++)
			sel[j] |= k < NSC ? j == k : !sc[j]->named_only;
	}
	for (size_t k = 0; k < NSC; k++) {
		sel[k] |= all && !sc[k]->named_only;
		hogs |= sel[k] && (sc[k] == &bench_sc_inversion ||
				   sc[k] == &bench_sc_pi);
	}
	if (p.nhogs && !hogs)
		tool_usage_error("--hog-ms applies to inversion and pi only");
	p.rounds = rounds > 0 ? (unsigned int)rounds : p.quick ? 3 : 5;
	p.duration_ms = duration > 0 ? (unsigned int)duration :
				       p.quick ? 40 : 300;
	p.calls = calls > 0 ? (unsigned long)calls : p.quick ? 50000 : 1000000;
	tool_pick_cpus(&p.cpu_a, &p.cpu_b);
	/* Scenarios of their own first (they fork, or need no library
	 * thread on their real-time CPU), then the peer table's. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t k = 0; k < NSC; k++) {
			struct bench_res *x;
			uint64_t t1 = tool_now_ns();

			if (!sel[k] || (sc[k]->run == bench_sides) != pass)
				continue;
			/* Before any pinning: library threads inherit the
			 * creator's mask. */
			for (unsigned int s = 0; pass && !set_up && s < NSIDES;
			     s++)
				if (bench_sides_table[s]->setup() != 0)
					return 1;
			set_up = pass;
			x = res[n++] = tool_xmalloc(sizeof(*x));
			memset(x, 0, sizeof(*x));
			x->sc = sc[k];
			sc[k]->run(x, &p);
			x->elapsed_s = (double)(tool_now_ns() - t1) / 1e9;
			failed |= x->failed ||
				  (x->status && x->status != -EPERM &&
				   x->status != -ENODEV);
		}
	}
	elapsed = (double)(tool_now_ns() - t0) / 1e9;
	bench_report(stdout, res, n, &p, elapsed);
	fflush(stdout);
	if (json && bench_write_json(json, res, n, &p, elapsed))
		failed = 1;
	return failed;
}
