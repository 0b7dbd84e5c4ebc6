/* SPDX-License-Identifier: MIT */
/*
 * Scenario "fifo64", run only when named: 64 SCHED_OTHER readers
 * (unpinned, oversubscribing the two CPUs) read a shared object while a
 * SCHED_FIFO updater pinned to CPU 0 replaces it (publish, synchronize,
 * poison, free) until a deadline, its hard time bound.  rcuboost through
 * its native API and through <rcuboost/urcu.h>, each with main() calling
 * the init function first (rcb_init(NULL), rcu_init()) and without it
 * (the library initialises lazily in the updater's first synchronize),
 * and urcu-memb beside.  Each configuration runs in its own child process
 * (an initialised library cannot be un-initialised), --rounds times,
 * alternating the order; figures are medians.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "rcuboost.h"

#define NREADERS 64
#define UPD_PRIO 10
#define UPD_CPU 0
#define CHILD_TIMEOUT_S 30

enum { C_NAT_INIT, C_NAT_LAZY, C_URCU_INIT, C_URCU_LAZY, C_MEMB, NCONF };

static const char *const conf_name[NCONF] = {
	"native+init", "native", "urcu.h+init", "urcu.h", "urcu-memb",
};

struct f64_res {
	int ran[BENCH_MAX_ROUNDS];
	double reads[BENCH_MAX_ROUNDS], updates[BENCH_MAX_ROUNDS], sync_max[BENCH_MAX_ROUNDS];
	/* rcuboost only (NaN for urcu-memb), counted over the child's run:
	 * boosts, grace periods, and the updaters' sleeps in them. */
	double boosts[BENCH_MAX_ROUNDS], gps[BENCH_MAX_ROUNDS], futex_waits[BENCH_MAX_ROUNDS];
	char error[256];
};

struct f64_priv {
	struct f64_res *res; /* [NCONF], shared with the children */
	unsigned int rounds, duration_ms;
	unsigned int round; /* set before each fork: the child's round */
	/* reads/s, updates/s, worst synchronize (ms), boosts, grace periods,
	 * updater futex waits (medians); reads/s spread (max - min over the
	 * median, %) */
	double med[NCONF][7];
	/* Kruskal-Wallis p-value of the four rcuboost runs' reads/s */
	double kw_p;
};

struct f64_updater {
	const struct tool_peer *f;
	struct peer_shared *s;
	struct tool_gate *gate;
	uint64_t deadline_ns, n, ns, worst_ns;
	int err;
};

static void *updater_thread(void *arg)
{
	struct f64_updater *u = arg;
	uint64_t t0;

	u->f->synchronize(); /* the lazy initialisation, if any, is here */
	tool_gate_wait(u->gate);
	t0 = tool_now_ns();
	/* Hard time bound: the deadline, checked after every grace period. */
	while (tool_now_ns() < u->deadline_ns) {
		struct peer_obj *p = tool_xmalloc(sizeof(*p)), *old;
		uint64_t t1, d;

		memset(p, 0, sizeof(*p));
		p->seq = ++u->n;
		old = __atomic_exchange_n(&u->s->ptr, p, __ATOMIC_SEQ_CST);
		t1 = tool_now_ns();
		u->f->synchronize();
		d = tool_now_ns() - t1;
		u->worst_ns = d > u->worst_ns ? d : u->worst_ns;
		old->seq = PEER_POISON;
		free(old);
	}
	u->ns = tool_now_ns() - t0;
	atomic_store(&u->s->stop, 1);
	return NULL;
}

struct f64_reader {
	_Alignas(PEER_CACHELINE) const struct tool_peer *f;
	struct peer_shared *s;
	struct tool_gate *gate;
	uint64_t ops, ns;
};

static void *reader_thread(void *arg)
{
	struct f64_reader *r = arg;
	uint64_t t0;

	r->f->thread_register();
	tool_gate_wait(r->gate);
	t0 = tool_now_ns();
	r->ops = r->f->reader_loop(r->s, NULL);
	r->ns = tool_now_ns() - t0;
	r->f->thread_unregister();
	return NULL;
}

/* In the child: one run of configuration c->conf, round pv->round. */
static void child(void *arg)
{
	const struct bench_child *c = arg;
	const struct f64_priv *pv = c->pv;
	struct f64_res *r = &pv->res[c->conf];
	unsigned int round = pv->round;
	const struct tool_peer *f = c->conf == C_MEMB ? &tool_peer_urcu_memb :
				    c->conf <= C_NAT_LAZY ? &tool_peer_rcuboost :
							    &tool_peer_rcuboost_urcu;
	static struct peer_shared s;
	static struct f64_reader rd[NREADERS];
	pthread_t rt[NREADERS], ut;
	struct f64_updater u = { .f = f, .s = &s };
	struct tool_gate gate;
	pthread_attr_t attr;
	struct rcb_boost_stats bs0 = { .size = sizeof(bs0) }, bs1 = { .size = sizeof(bs1) };
	struct rcb_gp_stats gs0, gs1;
	double reads = 0;
	int err;

	/* Counters are per process: the child starts with the parent's. */
	rcb_boost_stats(&bs0);
	rcb_stats(&gs0);

	if (c->conf == C_NAT_INIT)
		err = rcb_init(NULL);
	else if (c->conf == C_URCU_INIT)
		err = peer_rcb_urcu_init();
	else if (c->conf == C_URCU_LAZY)
		err = peer_rcb_urcu_resolve(); /* no rcu_init() */
	else
		err = 0;
	if (err) {
		snprintf(r->error, sizeof(r->error), "init: %s", strerror(-err));
		return;
	}
	s.ptr = tool_xmalloc(sizeof(*s.ptr));
	memset(s.ptr, 0, sizeof(*s.ptr));
	tool_gate_init(&gate, NREADERS + 2);
	u.gate = &gate;
	pthread_attr_init(&attr);
	err = tool_attr_pin(&attr, UPD_CPU);
	if (!err)
		err = tool_attr_sched(&attr, SCHED_FIFO, UPD_PRIO);
	if (!err)
		err = pthread_create(&ut, &attr, updater_thread, &u);
	pthread_attr_destroy(&attr);
	if (err) {
		snprintf(r->error, sizeof(r->error), "SCHED_FIFO updater: %s", strerror(err));
		return;
	}
	for (int i = 0; i < NREADERS; i++) {
		rd[i] = (struct f64_reader){ .f = f, .s = &s, .gate = &gate };
		tool_thread_start(&rt[i], -1, reader_thread, &rd[i]);
	}
	/* Set before the gate opens; the updater reads it after (gate mutex). */
	u.deadline_ns = tool_now_ns() + (uint64_t)pv->duration_ms * 1000000ull;
	tool_gate_wait(&gate);
	tool_thread_join(ut);
	for (int i = 0; i < NREADERS; i++) {
		tool_thread_join(rt[i]);
		reads += (double)rd[i].ops * 1e9 / (double)(rd[i].ns ? rd[i].ns : 1);
	}
	if (atomic_load(&s.bad))
		snprintf(r->error, sizeof(r->error), "%lu reads saw a freed object",
			 atomic_load(&s.bad));
	r->reads[round] = reads;
	r->updates[round] = (double)u.n * 1e9 / (double)(u.ns ? u.ns : 1);
	r->sync_max[round] = (double)u.worst_ns / 1e6;
	rcb_boost_stats(&bs1);
	rcb_stats(&gs1);
	r->boosts[round] = c->conf == C_MEMB ? NAN : (double)(bs1.boost - bs0.boost);
	r->gps[round] = c->conf == C_MEMB ? NAN : (double)(gs1.grace_periods - gs0.grace_periods);
	r->futex_waits[round] = c->conf == C_MEMB ? NAN :
				(double)(gs1.futex_waits - gs0.futex_waits);
	r->ran[round] = 1;
}

static void cell(FILE *out, int w, unsigned int row, unsigned int col, const void *arg)
{
	const struct f64_priv *pv = arg;
	char buf[32];

	fprintf(out, " %*s", w, bench_x_num_str(pv->med[col][row], buf, sizeof(buf)));
}

static void print_detail(FILE *out, const struct bench_xres *x)
{
	const struct f64_priv *pv = x->priv;
	static const char *const rows[] = { "reads/s", "updates/s", "worst synchronize (ms)",
					    "boosts", "grace periods", "updater futex waits",
					    "reads/s spread (%)" };
	int ran[NCONF];
	struct bench_xtable t = { "", conf_name, ran, NCONF, 11, rows, 7, 24, cell, pv,
				  { NULL } };

	fprintf(out, "\nfifo64: %d SCHED_OTHER readers, unpinned, and a SCHED_FIFO %d updater\n"
		     "pinned to CPU %d for %u ms; +init: main() calls rcb_init(NULL) or\n"
		     "rcu_init() first, else the library initialises in the updater's first\n"
		     "synchronize.  Each run in its own child process; medians of %u rounds.\n",
		NREADERS, UPD_PRIO, UPD_CPU, pv->duration_ms, pv->rounds);
	if (x->status || !pv->res) {
		fprintf(out, "fifo64: n/a: %s\n", x->why);
		return;
	}
	for (int c = 0; c < NCONF; c++) {
		ran[c] = !isnan(pv->med[c][0]);
		t.errors[c] = pv->res[c].error;
	}
	bench_x_print_runs(out, &t);
	fprintf(out, "Do the four rcuboost runs differ by more than their rounds vary?  Kruskal-\n"
		     "Wallis test on every round's reads/s: p = %.3g (below 0.05: they do; above\n"
		     "it, the gaps between their medians are within the spread of %u rounds).\n",
		pv->kw_p, pv->rounds);
}

static void json_detail(FILE *f, const struct bench_xres *x)
{
	const struct f64_priv *pv = x->priv;
	static const char *const keys[] = { "reads_per_s", "updates_per_s", "sync_max_ms",
					    "boosts", "grace_periods", "updater_futex_waits",
					    "reads_spread_pct" };
	const char *errors[NCONF];

	fprintf(f, "    \"params\": {\"readers\": %d, \"updater_prio\": %d, \"duration_ms\": %u, "
		   "\"rounds\": %u},\n    ",
		NREADERS, UPD_PRIO, pv->duration_ms, pv->rounds);
	for (int c = 0; c < NCONF; c++)
		errors[c] = pv->res ? pv->res[c].error : "";
	bench_x_json_runs(f, pv->res && !x->status ? NCONF : 0, conf_name, keys, 7,
			  &pv->med[0][0], 7, errors);
	fprintf(f, ",\n    \"reads_kruskal_wallis_p\": ");
	tool_json_num(f, pv->kw_p);
}

static void add_fig(struct bench_xres *x, const struct f64_priv *pv, unsigned int k,
		    const char *unit, const char *name)
{
	struct bench_xfig *g = bench_x_fig(x, unit, pv->med[C_NAT_INIT][k], "%s", name);

	for (int c = C_NAT_LAZY; c < NCONF; c++)
		bench_x_peer(g, conf_name[c], pv->med[c][k]);
}

static struct bench_xres *run(const struct bench_params *bp)
{
	struct bench_xres *x = bench_x_new("fifo64", sizeof(struct f64_priv), print_detail,
					   json_detail);
	struct f64_priv *pv = x->priv;
	double lo = INFINITY, hi = 0;
	double all[C_MEMB * BENCH_MAX_ROUNDS];
	int group[C_MEMB * BENCH_MAX_ROUNDS];
	size_t nall = 0;
	struct bench_xfig *g;

	pv->rounds = bp->rounds;
	pv->duration_ms = bp->duration_ms;
	if (bench_x_rt_check(x, UPD_PRIO) != 0)
		return x;
	pv->res = bench_x_shared(x, NCONF * sizeof(*pv->res));
	if (!pv->res)
		return x;
	x->failed |= bench_x_conf_rounds("fifo64", child, pv, &pv->round, pv->rounds, NCONF,
					 conf_name, CHILD_TIMEOUT_S, pv->res[0].error,
					 sizeof(pv->res[0]), sizeof(pv->res[0].error));
	for (int c = 0; c < NCONF; c++) {
		const struct f64_res *rs = &pv->res[c];

		pv->med[c][0] = bench_x_median(rs->ran, rs->reads, pv->rounds);
		pv->med[c][1] = bench_x_median(rs->ran, rs->updates, pv->rounds);
		pv->med[c][2] = bench_x_median(rs->ran, rs->sync_max, pv->rounds);
		pv->med[c][3] = bench_x_median(rs->ran, rs->boosts, pv->rounds);
		pv->med[c][4] = bench_x_median(rs->ran, rs->gps, pv->rounds);
		pv->med[c][5] = bench_x_median(rs->ran, rs->futex_waits, pv->rounds);
		pv->med[c][6] = 100 * bench_x_spread(rs->ran, rs->reads, pv->rounds);
		for (unsigned int r = 0; c != C_MEMB && r < pv->rounds; r++) {
			if (rs->ran[r]) {
				all[nall] = rs->reads[r];
				group[nall++] = c;
			}
		}
		x->failed |= rs->error[0] != 0;
		if (c != C_MEMB && !isnan(pv->med[c][0])) {
			lo = pv->med[c][0] < lo ? pv->med[c][0] : lo;
			hi = pv->med[c][0] > hi ? pv->med[c][0] : hi;
		}
	}
	add_fig(x, pv, 0, "reads/s", "fifo64.reads");
	add_fig(x, pv, 1, "updates/s", "fifo64.updates");
	add_fig(x, pv, 2, "ms", "fifo64.sync_max");
	/* The goal: the four rcuboost runs within 5% of each other. */
	g = bench_x_fig(x, "x", hi > 0 ? hi / lo : NAN, "fifo64.reads.max_over_min");
	bench_x_peer(g, BENCH_X_GOAL, 1.05);
	pv->kw_p = tool_kruskal_wallis_p(all, group, nall, C_MEMB);
	bench_x_fig(x, "p", pv->kw_p, "fifo64.reads.kruskal_wallis_p");
	return x;
}

static const struct bench_scenario sc = {
	.name = "fifo64",
	.help = "fifo64: needs real-time priority; about 2 s per round (--quick: less).\n"
		"  64 SCHED_OTHER readers and a SCHED_FIFO updater pinned to CPU 0 (replace,\n"
		"  synchronize, free, until a deadline): rcuboost's native API and\n"
		"  <rcuboost/urcu.h>, each with and without an explicit rcb_init(NULL) /\n"
		"  rcu_init() in main(), and urcu-memb; each run in its own child process.\n"
		"  Figures: reads/s, updates/s, worst synchronize; goal: the four rcuboost\n"
		"  runs' reads/s within 5% (fifo64.reads.max_over_min <= 1.05).  The detail\n"
		"  table adds rcuboost's boosts, grace periods and updater futex waits per\n"
		"  run (medians), for the explicit-initialisation gap, each run's spread of\n"
		"  reads/s, and fifo64.reads.kruskal_wallis_p: whether the four rcuboost\n"
		"  runs differ by more than their rounds vary (p < 0.05).  Rounds of 300 ms\n"
		"  vary by a factor of two or more; --duration-ms 1000 narrows that.",
};

const struct bench_xscenario bench_x_fifo64 = { &sc, run };
