/* SPDX-License-Identifier: MIT */
/*
 * Scenario "follow", run only when named: retire.paced's shape (one
 * reader pinned to the first CPU in short sections, an unpinned updater
 * replacing the object and retiring the old one with call_rcu at 2 M/s,
 * the clock spun) with rcuboost's callback thread following its producer
 * (the default) and not (RCUBOOST_CALLBACK_FOLLOW=0), and urcu-memb
 * beside.  Each run in its own child process, which initialises the
 * library lazily in the first thread to register: the pinned reader, as
 * in a program whose worker threads make the first RCU call.  The
 * library's threads then start beside the reader, and where the callback
 * thread runs is what following changes (retire.paced runs in the
 * bench's own process, whose threads main() started).  Figures: the reader's
 * reads/s, its share of the wall time on CPU (what the other threads
 * left it), and the CPU time of the library's own threads.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "rcuboost.h"

#define CHILD_TIMEOUT_S 30

enum { C_FOLLOW, C_NOFOLLOW, C_MEMB, NCONF };

static const char *const conf_name[NCONF] = { "follow", "no follow", "urcu-memb" };

struct fo_res {
	int ran[BENCH_MAX_ROUNDS];
	double reads[BENCH_MAX_ROUNDS], share[BENCH_MAX_ROUNDS], lib[BENCH_MAX_ROUNDS];
	char error[256];
};

struct fo_priv {
	struct fo_res *res; /* [NCONF], shared with the children */
	struct bench_params bp;
	unsigned int round; /* set before each fork: the child's round */
	double med[NCONF][3]; /* reads/s, reader's CPU share (%), lib ms/s */
};

static void child(void *arg)
{
	const struct bench_child *c = arg;
	const struct fo_priv *pv = c->pv;
	struct fo_res *r = &pv->res[c->conf];
	double v[6];

	/* No rcb_init(): the library starts in the first thread that
	 * registers (the pinned reader, which starts first), as in a
	 * program whose worker threads make the first RCU call, and its
	 * threads start on that thread's CPU.  Following is set the only
	 * way left then, in the (child's) environment. */
	if (c->conf != C_MEMB &&
	    setenv("RCUBOOST_CALLBACK_FOLLOW", c->conf == C_FOLLOW ? "1" : "0", 1) != 0) {
		snprintf(r->error, sizeof(r->error), "setenv: %s", strerror(errno));
		return;
	}
	bench_readers_run(c->conf == C_MEMB ? &tool_peer_urcu_memb : &tool_peer_rcuboost,
			  &pv->bp, 1, UPD_RETIRE_RATE, v);
	r->reads[pv->round] = v[0];
	r->share[pv->round] = v[4] > 0 ? 100.0 * v[0] / v[4] : NAN;
	r->lib[pv->round] = v[5];
	r->ran[pv->round] = 1;
}

static void cell(FILE *out, int w, unsigned int row, unsigned int col, const void *arg)
{
	const struct fo_priv *pv = arg;
	char buf[32];

	fprintf(out, " %*s", w, bench_x_num_str(pv->med[col][row], buf, sizeof(buf)));
}

static void print_detail(FILE *out, const struct bench_xres *x)
{
	const struct fo_priv *pv = x->priv;
	static const char *const rows[] = { "reads/s", "reader on CPU (%)",
					    "library threads (ms/s)" };
	int ran[NCONF];
	struct bench_xtable t = { "", conf_name, ran, NCONF, 11, rows, 3, 24, cell, pv,
				  { NULL } };

	fprintf(out, "\nfollow: retire.paced's shape for %u ms per run (one reader pinned to\n"
		     "CPU %d, an unpinned updater doing replace + call_rcu at 2 M/s), each run\n"
		     "in its own child process; medians of %u rounds.\n",
		pv->bp.duration_ms, pv->bp.cpu_a, pv->bp.rounds);
	if (x->status || !pv->res) {
		fprintf(out, "follow: n/a: %s\n", x->why);
		return;
	}
	for (int c = 0; c < NCONF; c++) {
		ran[c] = !isnan(pv->med[c][0]);
		t.errors[c] = pv->res[c].error;
	}
	bench_x_print_runs(out, &t);
}

static void json_detail(FILE *f, const struct bench_xres *x)
{
	const struct fo_priv *pv = x->priv;
	static const char *const keys[] = { "reads_per_s", "reader_cpu_pct",
					    "library_ms_per_s" };
	const char *errors[NCONF];

	fprintf(f, "    \"params\": {\"duration_ms\": %u, \"rounds\": %u},\n    ",
		pv->bp.duration_ms, pv->bp.rounds);
	for (int c = 0; c < NCONF; c++)
		errors[c] = pv->res ? pv->res[c].error : "";
	bench_x_json_runs(f, pv->res && !x->status ? NCONF : 0, conf_name, keys, 3,
			  &pv->med[0][0], 3, errors);
}

static void add_fig(struct bench_xres *x, const struct fo_priv *pv, unsigned int k,
		    const char *unit, const char *name)
{
	struct bench_xfig *g = bench_x_fig(x, unit, pv->med[C_FOLLOW][k], "%s", name);

	for (int c = C_NOFOLLOW; c < NCONF; c++)
		bench_x_peer(g, conf_name[c], pv->med[c][k]);
}

static struct bench_xres *run(const struct bench_params *bp)
{
	struct bench_xres *x = bench_x_new("follow", sizeof(struct fo_priv), print_detail,
					   json_detail);
	struct fo_priv *pv = x->priv;

	pv->bp = *bp;
	pv->res = bench_x_shared(x, NCONF * sizeof(*pv->res));
	if (!pv->res)
		return x;
	x->failed |= bench_x_conf_rounds("follow", child, pv, &pv->round, bp->rounds, NCONF,
					 conf_name, CHILD_TIMEOUT_S, pv->res[0].error,
					 sizeof(pv->res[0]), sizeof(pv->res[0].error));
	for (int c = 0; c < NCONF; c++) {
		const struct fo_res *rs = &pv->res[c];

		pv->med[c][0] = bench_x_median(rs->ran, rs->reads, bp->rounds);
		pv->med[c][1] = bench_x_median(rs->ran, rs->share, bp->rounds);
		pv->med[c][2] = bench_x_median(rs->ran, rs->lib, bp->rounds);
		x->failed |= rs->error[0] != 0;
	}
	add_fig(x, pv, 0, "reads/s", "follow.reads");
	add_fig(x, pv, 1, "%", "follow.reader_cpu");
	add_fig(x, pv, 2, "ms/s", "follow.lib");
	return x;
}

static const struct bench_scenario sc = {
	.name = "follow",
	.help = "follow: retire.paced's shape (one reader pinned to the first CPU, an\n"
		"  unpinned updater doing replace + call_rcu at 2 M/s) with rcuboost's\n"
		"  callback thread following its producer (the default) and not\n"
		"  (RCUBOOST_CALLBACK_FOLLOW=0), and urcu-memb; each run in its own child\n"
		"  process, the library started by the reader's registration (its\n"
		"  threads start beside the reader).  Figures: the\n"
		"  reader's reads/s, its share of the wall time on CPU (%), the CPU time\n"
		"  of the library's own threads (ms per second).  No goal.",
};

const struct bench_xscenario bench_x_follow = { &sc, run };
