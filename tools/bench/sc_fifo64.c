/* SPDX-License-Identifier: MIT */
/*
 * Scenarios whose configurations each run in a child process, --rounds
 * times (a library cannot be un-initialised): fifo64 (a SCHED_FIFO updater
 * beside 64 readers) and follow (the callback thread following or not).
 */
#define _GNU_SOURCE

#include "bench.h"

static const struct bench_params *rp;

enum { NAT_INIT, NAT_LAZY, URCU_INIT, URCU_LAZY, F_MEMB, F_NCONF };

static void f64_child(int conf, unsigned int round, struct bench_cres *r)
{
	const struct tool_peer *f = conf == F_MEMB ? &tool_peer_urcu_memb :
				    conf <= NAT_LAZY ? &tool_peer_rcuboost :
						       &tool_peer_rcuboost_urcu;
	double v[6];
	long bad;
	int err = 0;

	if (conf == NAT_INIT)
		err = rcb_init(NULL);
	else if (conf == URCU_INIT)
		err = peer_rcb_urcu_init();
	else if (conf == URCU_LAZY)
		err = peer_rcb_urcu_resolve(); /* no rcu_init() */
	bad = err ? 0 : bench_readers_run(f, rp, 64, UPD_FIFO, v);
	if (err || bad) {
		snprintf(r->error, sizeof(r->error), "%s%s",
			 err ? "init: " : bad < 0 ? "no SCHED_FIFO updater" :
						    "reads saw a freed object",
			 err ? strerror(-err) : "");
		return;
	}
	r->v[0][round] = v[0];
	r->v[1][round] = v[1];
	r->v[2][round] = v[2] / 1000;
}

static void run_fifo64(struct bench_res *x, const struct bench_params *bp)
{
	static const char *const names[] = { "native+init", "native",
					     "urcu.h+init", "urcu.h",
					     "urcu-memb" };
	static const struct bench_cfig figs[] = {
		{ "fifo64.reads", "reads/s", 1, 0 },
		{ "fifo64.updates", "updates/s", 1, 0 },
		{ "fifo64.sync_max", "ms", 0, 0 },
	};
	double v[(URCU_LAZY + 1) * BENCH_MAX_ROUNDS], lo = INFINITY, hi = 0;
	int group[(URCU_LAZY + 1) * BENCH_MAX_ROUNDS];
	struct bench_cres *res;
	size_t n = 0;

	rp = bp;
	if (bench_rt_check(x, 10) != 0 ||
	    !(res = bench_confs(x, f64_child, F_NCONF, names, figs, 3,
				bp->rounds, 30)))
		return;
	/* Do the four rcuboost runs differ by more than their rounds vary? */
	for (int c = 0; c <= URCU_LAZY; c++) {
		lo = fmin(lo, bench_median(res[c].v[0], bp->rounds));
		hi = fmax(hi, bench_median(res[c].v[0], bp->rounds));
		for (unsigned int r = 0; r < bp->rounds; r++) {
			if (!isnan(res[c].v[0][r])) {
				v[n] = res[c].v[0][r];
				group[n++] = c;
			}
		}
	}
	/* The goal: the four rcuboost runs within 5% of each other. */
	bench_bound(bench_fig(x, "x", hi > 0 ? hi / lo : NAN,
			      "fifo64.reads.max_over_min"), 1.05);
	bench_fig(x, "p", tool_kruskal_wallis_p(v, group, n, URCU_LAZY + 1),
		  "fifo64.reads.kruskal_wallis_p");
}

const struct bench_scenario bench_sc_fifo64 = { "fifo64",
	"64 readers, a SCHED_FIFO updater; native, urcu.h, init",
	1, run_fifo64, NULL, 0 };

static void follow_child(int conf, unsigned int round, struct bench_cres *r)
{
	double v[6];

	/* No rcb_init(): following is set the only way left then, in the
	 * (child's) environment. */
	if (conf < 2 && setenv("RCUBOOST_CALLBACK_FOLLOW", conf ? "0" : "1", 1))
		snprintf(r->error, sizeof(r->error), "setenv failed");
	bench_readers_run(conf == 2 ? &tool_peer_urcu_memb :
				      &tool_peer_rcuboost,
			  rp, 1, UPD_RETIRE_RATE, v);
	r->v[0][round] = v[0];
	r->v[1][round] = v[4] > 0 ? 100.0 * v[0] / v[4] : NAN;
	r->v[2][round] = v[5];
}

static void run_follow(struct bench_res *x, const struct bench_params *bp)
{
	static const char *const names[] = { "follow", "no follow",
					     "urcu-memb" };
	static const struct bench_cfig figs[] = {
		{ "follow.reads", "reads/s", 1, 0 },
		{ "follow.reader_cpu", "%", 1, 0 },
		{ "follow.lib", "ms/s", 0, 0 },
	};

	rp = bp;
	bench_confs(x, follow_child, 3, names, figs, 3, bp->rounds, 30);
}

const struct bench_scenario bench_sc_follow = { "follow",
	"retire.paced with the callback thread following or not",
	1, run_follow, NULL, 0 };
