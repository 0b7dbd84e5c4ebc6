/* SPDX-License-Identifier: MIT */
/*
 * Scenario "expedited", run only when named: expedited grace periods and
 * priority inheritance from waiters (issue 13).  A SCHED_FIFO 10 reader
 * on CPU 0 is preempted inside its section by a hog pinned to CPU 0; the
 * updater, on CPU 1, times one grace period.  Runs:
 *   hog 40, updater SCHED_OTHER: rcb_synchronize(), rcb_synchronize_expedited(),
 *     liburcu urcu-memb's synchronize_rcu();
 *   hog 60, updater SCHED_FIFO 80: rcb_synchronize() without and with
 *     inheritance, rcb_synchronize_expedited() with inheritance, urcu-memb.
 * The backend is the process's (RCUBOOST_BACKEND).  Each run checks that
 * the reader and the updater are back at their own attributes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

enum { R_PLAIN40, R_EXP40, R_MEMB40, R_PLAIN60, R_INH60, R_INHEXP60, R_MEMB60, NRUNS };

static const struct ex_def {
	const char *name;
	int hog_prio, updater_prio, expedited, inherit, memb;
} defs[NRUNS] = {
	[R_PLAIN40] = { "hog40.synchronize", 40, 0, 0, 0, 0 },
	[R_EXP40] = { "hog40.expedited", 40, 0, 1, 0, 0 },
	[R_MEMB40] = { "hog40.urcu-memb", 40, 0, 0, 0, 1 },
	[R_PLAIN60] = { "upd80.hog60.synchronize", 60, 80, 0, 0, 0 },
	[R_INH60] = { "upd80.hog60.inherit", 60, 80, 0, 1, 0 },
	[R_INHEXP60] = { "upd80.hog60.inherit.expedited", 60, 80, 1, 1, 0 },
	[R_MEMB60] = { "upd80.hog60.urcu-memb", 60, 80, 0, 0, 1 },
};

struct ex_run {
	int ran, ok;
	double gp_ms;
	char error[128];
};

struct ex_priv {
	int hog_ms;
	unsigned int period_ms;
	struct ex_run run[NRUNS];
};

static const struct bench_scenario sc = {
	.name = "expedited",
	.help = "expedited: needs real-time priority; about 8 s (--quick: 3 s).  Reader\n"
		"  SCHED_FIFO 10 preempted by a hog (1000 ms; --quick: 300) at 40, then at 60\n"
		"  with a SCHED_FIFO 80 updater: rcb_synchronize(), rcb_synchronize_expedited(),\n"
		"  inheritance (RCUBOOST_INHERIT) and urcu-memb.  Figures: grace period (ms).",
};

/* ---- the run ------------------------------------------------------- */

struct ex_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t prio;
	uint64_t runtime, deadline, period;
};

static int ex_set(uint32_t policy, int prio)
{
	struct ex_attr a = { .size = sizeof(a), .policy = policy, .prio = (uint32_t)prio };

	return (int)syscall(SYS_sched_setattr, 0, &a, 0);
}

static int ex_get(struct ex_attr *a)
{
	memset(a, 0, sizeof(*a));
	return (int)syscall(SYS_sched_getattr, 0, a, sizeof(*a), 0);
}

static void ex_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static double ex_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static struct {
	const struct inv_flavor_ops *memb; /* NULL: rcuboost */
	int hog_prio, hog_ms;
	atomic_int armed, go, started, in_cs, restored, failed;
} ex;

/* The hog: real-time and asleep on CPU 0 until fired (at most 5 s),
 * then spins hog_ms; always back to SCHED_OTHER. */
static void *ex_hog(void *arg)
{
	double end;

	(void)arg;
	if (ex_set(SCHED_FIFO, ex.hog_prio) != 0)
		atomic_store(&ex.failed, 1);
	ex_pin(INV_RT_CPU);
	atomic_store(&ex.armed, 1);
	end = ex_now_ms() + 5000;
	while (!atomic_load(&ex.go) && ex_now_ms() < end) {
		struct timespec ts = { 0, 100000000 };

		syscall(SYS_futex, &ex.go, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	}
	if (atomic_load(&ex.go)) {
		atomic_store(&ex.started, 1);
		end = ex_now_ms() + ex.hog_ms;
		while (ex_now_ms() < end)
			;
	}
	ex_set(SCHED_OTHER, 0);
	return NULL;
}

static void *ex_reader(void *arg)
{
	struct ex_attr after;

	(void)arg;
	ex_pin(INV_RT_CPU);
	if (ex_set(SCHED_FIFO, 10) != 0)
		atomic_store(&ex.failed, 1);
	if (ex.memb) {
		ex.memb->register_thread();
		ex.memb->read_lock();
	} else {
		rcb_register_thread();
		rcb_read_lock();
	}
	atomic_store(&ex.in_cs, 1);
	/* Fire the hog from inside the section: it preempts us here. */
	atomic_store(&ex.go, 1);
	syscall(SYS_futex, &ex.go, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	if (ex.memb) {
		ex.memb->read_unlock();
	} else {
		rcb_read_unlock();
	}
	atomic_store(&ex.restored, ex_get(&after) == 0 && after.policy == SCHED_FIFO &&
					   after.prio == 10);
	if (ex.memb)
		ex.memb->unregister_thread();
	else
		rcb_unregister_thread();
	ex_set(SCHED_OTHER, 0);
	return NULL;
}

static void ex_freed(void *payload, size_t bytes)
{
	(void)payload;
	(void)bytes;
}

static void ex_one(const struct ex_def *d, int hog_ms, struct ex_run *r)
{
	struct rcb_config cfg = { .size = sizeof(cfg), .boost = 1,
				  .inherit = d->inherit ? 1 : -1, .expedited = -1 };
	struct ex_attr self;
	pthread_t h, rd;
	double t0;
	int err;

	memset(r, 0, sizeof(*r));
	memset(&ex, 0, sizeof(ex));
	ex.memb = d->memb ? &inv_flavor_urcu_memb : NULL;
	ex.hog_prio = d->hog_prio;
	ex.hog_ms = hog_ms;
	err = ex.memb ? ex.memb->init(ex_freed) : rcb_init(&cfg);
	if (err) {
		snprintf(r->error, sizeof(r->error), "init: %s", strerror(-err));
		return;
	}
	r->ran = 1;
	ex_pin(1);
	if (d->updater_prio && ex_set(SCHED_FIFO, d->updater_prio) != 0)
		atomic_store(&ex.failed, 1);
	pthread_create(&h, NULL, ex_hog, NULL);
	while (!atomic_load(&ex.armed))
		usleep(100);
	pthread_create(&rd, NULL, ex_reader, NULL);
	while (!atomic_load(&ex.started) && !atomic_load(&ex.failed))
		usleep(100);
	usleep(5000);
	t0 = ex_now_ms();
	if (ex.memb)
		err = ex.memb->synchronize();
	else
		err = d->expedited ? rcb_synchronize_expedited() : rcb_synchronize();
	r->gp_ms = ex_now_ms() - t0;
	pthread_join(h, NULL);
	pthread_join(rd, NULL);
	if (d->updater_prio) {
		if (ex_get(&self) != 0 || self.policy != SCHED_FIFO ||
		    (int)self.prio != d->updater_prio)
			snprintf(r->error, sizeof(r->error), "updater not at its own attributes");
		ex_set(SCHED_OTHER, 0);
	}
	if (ex.memb)
		ex.memb->fini();
	else
		rcb_shutdown();
	if (err)
		snprintf(r->error, sizeof(r->error), "synchronize: %s", strerror(-err));
	else if (atomic_load(&ex.failed))
		snprintf(r->error, sizeof(r->error), "sched_setattr failed");
	else if (!atomic_load(&ex.restored))
		snprintf(r->error, sizeof(r->error), "reader not back at SCHED_FIFO 10");
	r->ok = !r->error[0];
}

/* ---- report -------------------------------------------------------- */

static void print_detail(FILE *out, const struct bench_xres *x)
{
	const struct ex_priv *pv = x->priv;

	fprintf(out, "\nexpedited: a SCHED_FIFO 10 reader preempted in its section by a %d ms hog\n"
		     "on CPU %d; the updater on CPU 1 times one grace period; booster period %u ms.\n",
		pv->hog_ms, INV_RT_CPU, pv->period_ms);
	if (x->status) {
		fprintf(out, "expedited: n/a: %s\n", x->why);
		return;
	}
	for (int i = 0; i < NRUNS; i++)
		fprintf(out, "  %-32s %10.3f ms  %s%s\n", defs[i].name, pv->run[i].gp_ms,
			!pv->run[i].ran ? "not run" : pv->run[i].ok ? "OK" : "FAIL: ",
			pv->run[i].ran && !pv->run[i].ok ? pv->run[i].error : "");
	fprintf(out, "Goals: expedited <= 2 ms; inheritance <= 1 period + 2 ms = %u ms, with\n"
		     "expedited <= 2 ms; every thread back at its own attributes.\n",
		pv->period_ms + 2);
}

static void json_detail(FILE *f, const struct bench_xres *x)
{
	const struct ex_priv *pv = x->priv;

	fprintf(f, "    \"params\": {\"reader_prio\": 10, \"hog_ms\": %d, \"boost_period_ms\": %u},\n"
		   "    \"runs\": [",
		pv->hog_ms, pv->period_ms);
	for (int i = 0; i < NRUNS; i++)
		fprintf(f, "%s\n      {\"name\": \"%s\", \"hog_prio\": %d, \"updater_prio\": %d, "
			   "\"ran\": %s, \"ok\": %s, \"gp_ms\": %.3f}",
			i ? "," : "", defs[i].name, defs[i].hog_prio, defs[i].updater_prio,
			pv->run[i].ran ? "true" : "false", pv->run[i].ok ? "true" : "false",
			pv->run[i].gp_ms);
	fprintf(f, "\n    ]\n");
}

static double gp(const struct ex_priv *pv, int i)
{
	return pv->run[i].ran ? pv->run[i].gp_ms : NAN;
}

static struct bench_xres *run(const struct bench_params *bp)
{
	struct bench_xres *x = bench_x_new(sc.name, sizeof(struct ex_priv), print_detail,
					   json_detail);
	struct ex_priv *pv = x->priv;
	struct bench_xfig *g;
	const char *p = getenv("RCUBOOST_PERIOD_MS");

	pv->hog_ms = bp->quick ? 300 : 1000;
	pv->period_ms = p && atoi(p) > 0 ? (unsigned int)atoi(p) : 10;
	if (ex_set(SCHED_FIFO, 80) != 0) {
		x->status = -EPERM;
		snprintf(x->why, sizeof(x->why),
			 "no permission for SCHED_FIFO 80 (run as root or with CAP_SYS_NICE)");
		return x;
	}
	ex_set(SCHED_OTHER, 0);
	for (int i = 0; i < NRUNS; i++) {
		fprintf(stderr, "expedited: run %d/%d (%s)\n", i + 1, NRUNS, defs[i].name);
		ex_one(&defs[i], pv->hog_ms, &pv->run[i]);
		if (!pv->run[i].ok)
			x->failed = 1;
	}
	g = bench_x_fig(x, "ms", gp(pv, R_EXP40), "expedited.gp.hog40");
	bench_x_peer(g, "synchronize", gp(pv, R_PLAIN40));
	bench_x_peer(g, "urcu-memb", gp(pv, R_MEMB40));
	bench_x_peer(g, BENCH_X_GOAL, 2.0);
	g = bench_x_fig(x, "ms", gp(pv, R_INH60), "inherit.gp.upd80.hog60");
	bench_x_peer(g, "no inheritance", gp(pv, R_PLAIN60));
	bench_x_peer(g, "urcu-memb", gp(pv, R_MEMB60));
	bench_x_peer(g, BENCH_X_GOAL, pv->period_ms + 2.0);
	g = bench_x_fig(x, "ms", gp(pv, R_INHEXP60), "inherit.expedited.gp.upd80.hog60");
	bench_x_peer(g, "no inheritance", gp(pv, R_PLAIN60));
	bench_x_peer(g, "urcu-memb", gp(pv, R_MEMB60));
	bench_x_peer(g, BENCH_X_GOAL, 2.0);
	return x;
}

const struct bench_xscenario bench_x_expedited = { &sc, run };
