/* SPDX-License-Identifier: MIT */
/*
 * Scenario "boosters", run only when named: multiple boosters (article:
 * "Possible Future Enhancements", 3).  Many registered threads (1000,
 * --quick 200; 64 KiB stacks, SCHED_OTHER, half pinned to each of the
 * first two CPUs) each enter a read-side critical section, call
 * rcb_note_block() and sleep on a futex.  When all are blocked a grace
 * period starts (rcb_synchronize() on another thread); we poll the boost
 * statistics until every reader was boosted, hold at least hold_ms, then
 * release the readers and time the grace period's end.  Configurations:
 * one booster for all CPUs (booster_cpus=-1), one booster per CPU
 * (booster_cpus=1), and liburcu urcu-memb (no boosting: its grace-period
 * figures only).
 *
 * Each configuration runs in a child process of its own: the library
 * maps CPUs to boosters once per process (rcb__boost_early_init() keeps
 * the first mapping across rcb_shutdown()/rcb_init()), and 1000 threads'
 * registrations are best left behind.  Results come back in shared
 * memory; the parent kills a child that outlives its deadline.
 */
#define _GNU_SOURCE /* CPU_SET, pthread_attr_setaffinity_np */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "inversion.h"

enum { C_SINGLE, C_MULTI, C_MEMB, NCONF };
static const char *const conf_name[NCONF] = { "single", "per-cpu", "urcu-memb" };

#define STACK_BYTES (64 * 1024)
#define BLOCK_TIMEOUT_MS 10000  /* all readers blocked by then */
#define BOOST_TIMEOUT_MS 5000   /* all readers boosted by then */
#define READER_MAX_MS 30000     /* a reader leaves by itself after this */
#define CHILD_TIMEOUT_S 90

struct bo_res {
	int ran, ok, na;
	char error[256];
	int nreaders, boosters;
	double create_ms;       /* creating the readers until all blocked */
	double all_boosted_ms;  /* last reader blocked -> every one boosted;
				 * NaN: not */
	double lat_max_ms, lat_mean_ms;
	long lat_count, boosts, unboosted, passes, sched_syscalls;
	double booster_cpu_ms;  /* during the boosting phase */
	double gp_ms;           /* the grace period: start -> end */
	double release_to_gp_ms;
};

struct bo_shared {
	struct bo_res res[NCONF];
};

struct bo_priv {
	struct bo_shared *sh;
	int nreaders, hold_ms;
	unsigned int period_ms, elements;
};

static const struct bench_scenario sc = {
	.name = "boosters",
	.help = "boosters: needs real-time priority; about 5 s.  1000 registered threads\n"
		"  (--quick: 200), half on each CPU, block inside read-side critical sections\n"
		"  (rcb_note_block + futex) while a grace period waits: one booster for all\n"
		"  CPUs against one per CPU, and urcu-memb.  Figures: time until every reader\n"
		"  is boosted, boost latency max/mean, booster CPU time, passes, and the\n"
		"  grace period's end after the readers are released.",
};

/* ---- the child --------------------------------------------------------- */

static const struct inv_flavor_ops *c_ops;
static int c_rcuboost;
static _Atomic int c_blocked, c_left, c_release;
static _Atomic int c_register_err;

static void *c_reader(void *arg)
{
	uint64_t deadline = tool_now_ns() + (uint64_t)READER_MAX_MS * 1000000;

	(void)arg;
	if (c_ops->register_thread() != 0) {
		atomic_fetch_add(&c_register_err, 1);
		atomic_fetch_add(&c_left, 1);
		return NULL;
	}
	c_ops->read_lock();
	if (c_rcuboost)
		rcb_note_block();
	atomic_fetch_add(&c_blocked, 1);
	while (!atomic_load(&c_release) && tool_now_ns() < deadline)
		bench_x_futex_wait(&c_release, 0, 1000);
	c_ops->read_unlock();
	c_ops->unregister_thread();
	atomic_fetch_add(&c_left, 1);
	return NULL;
}

struct c_sync {
	pthread_t t;
	uint64_t t0, t1;
	_Atomic int done;
};

static void *c_synchronizer(void *arg)
{
	struct c_sync *s = arg;

	c_ops->register_thread();
	s->t0 = tool_now_ns();
	c_ops->synchronize();
	s->t1 = tool_now_ns();
	c_ops->unregister_thread();
	atomic_store(&s->done, 1);
	return NULL;
}

static double ms_since(uint64_t t0, uint64_t t1)
{
	return (double)(t1 - t0) / 1e6;
}

#define C_FAIL(r, ...) snprintf((r)->error, sizeof((r)->error), __VA_ARGS__)

/* Start the library of configuration @conf; 0, or -1 with the reason in
 * @r (n/a: r->na). */
static int c_init(int conf, struct bo_res *r, struct inv_flavor_ops *rb_ops,
		  struct rcb_config *cfg, struct rcb_boost_stats *s0)
{
	int err;

	c_rcuboost = conf != C_MEMB;
	if (conf == C_MEMB) {
		c_ops = &inv_flavor_urcu_memb;
		err = c_ops->init(bench_x_freed_nop);
	} else {
		cfg->booster_cpus = conf == C_SINGLE ? -1 : 1;
		inv_flavor_rcuboost_cfg(rb_ops, conf_name[conf], cfg);
		c_ops = rb_ops;
		err = rb_ops->init_cfg(cfg, bench_x_freed_nop);
	}
	if (err) {
		C_FAIL(r, "initialisation failed: %s", strerror(-err));
		return -1;
	}
	if (c_rcuboost) {
		rcb_boost_stats(s0);
		if (!s0->enabled || s0->no_permission || !s0->booster_running) {
			r->na = 1;
			C_FAIL(r, "boosting unavailable (enabled %d, no_permission %d, running %d)",
			       s0->enabled, s0->no_permission, s0->booster_running);
			c_ops->fini();
			return -1;
		}
		r->boosters = s0->boosters;
	}
	r->ran = 1;
	return 0;
}

/* Create the readers, half pinned to each CPU, and wait until they are
 * all blocked (at *@t_all); returns how many were created. */
static int c_create_readers(const struct bo_priv *pv, struct bo_res *r, pthread_t *th,
			    uint64_t t_create, uint64_t *t_all)
{
	pthread_attr_t attr;
	uint64_t deadline;
	int made, err;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_BYTES);
	for (made = 0; made < pv->nreaders; made++) {
		tool_attr_pin(&attr, made % 2);
		err = pthread_create(&th[made], &attr, c_reader, NULL);
		if (err) {
			C_FAIL(r, "pthread_create of reader %d: %s", made, strerror(err));
			break;
		}
	}
	pthread_attr_destroy(&attr);
	if (made < pv->nreaders)
		return made;
	deadline = tool_now_ns() + (uint64_t)BLOCK_TIMEOUT_MS * 1000000;
	while (atomic_load(&c_blocked) + atomic_load(&c_register_err) < made &&
	       tool_now_ns() < deadline)
		tool_sleep_ns(200000);
	*t_all = tool_now_ns();
	r->create_ms = ms_since(t_create, *t_all);
	if (atomic_load(&c_blocked) < made)
		C_FAIL(r, "only %d of %d readers blocked (%d could not register)",
		       atomic_load(&c_blocked), made, atomic_load(&c_register_err));
	return made;
}

/* Hold the @made blocked readers for --hold and until all are boosted
 * (rcuboost, at most BOOST_TIMEOUT_MS after @t_create), while @sy's grace
 * period waits; the boost statistics against the baseline @s0. */
static void c_hold(int conf, const struct bo_priv *pv, struct bo_res *r, int made,
		   uint64_t t_create, uint64_t t_all, const struct rcb_boost_stats *s0,
		   const struct c_sync *sy)
{
	uint64_t hold_end = t_all + (uint64_t)pv->hold_ms * 1000000;
	uint64_t deadline = t_create + (uint64_t)BOOST_TIMEOUT_MS * 1000000;
	struct rcb_boost_stats s1 = { .size = sizeof(s1) };

	for (;;) {
		uint64_t now = tool_now_ns();

		if (c_rcuboost && isnan(r->all_boosted_ms)) {
			rcb_boost_stats(&s1);
			if (s1.boost_latency_count - s0->boost_latency_count >= made)
				r->all_boosted_ms = now > t_all ? ms_since(t_all, now) : 0;
		}
		if (now >= hold_end &&
		    (!c_rcuboost || !isnan(r->all_boosted_ms) || now >= deadline))
			break;
		tool_sleep_ns(500000);
	}
	if (c_rcuboost) {
		rcb_boost_stats(&s1);
		r->lat_count = s1.boost_latency_count - s0->boost_latency_count;
		r->lat_max_ms = (double)s1.boost_latency_ns_max / 1e6;
		r->lat_mean_ms = r->lat_count ? (double)(s1.boost_latency_ns_total -
							 s0->boost_latency_ns_total) /
							r->lat_count / 1e6 : NAN;
		r->boosts = s1.boost - s0->boost;
		r->passes = s1.passes - s0->passes;
		r->sched_syscalls = s1.sched_syscalls - s0->sched_syscalls;
		r->booster_cpu_ms = (double)(s1.booster_cpu_ns - s0->booster_cpu_ns) / 1e6;
		if (isnan(r->all_boosted_ms)) {
			char buf[4096];

			C_FAIL(r, "only %ld of %d readers boosted within %d ms", r->lat_count,
			       made, BOOST_TIMEOUT_MS);
			/* For the report: the library's own view. */
			rcb_boost_stats_format(&s1, buf, sizeof(buf), 1);
			fprintf(stderr, "rcuboost-bench: boosters: %s: %s\n%s", conf_name[conf],
				r->error, buf);
		}
	}
	if (atomic_load(&sy->done))
		C_FAIL(r, "the grace period ended while the readers were blocked");
}

static void child(void *arg)
{
	const struct bench_child *ch = arg;
	const struct bo_priv *pv = ch->pv;
	struct bo_res *r = ch->r;
	struct inv_flavor_ops rb_ops;
	struct rcb_config cfg = { .boost = 1 };
	struct rcb_boost_stats s0 = { .size = sizeof(s0) }, s1 = { .size = sizeof(s1) };
	struct c_sync sy = { 0 };
	pthread_t *th = calloc((size_t)pv->nreaders, sizeof(*th));
	int made, sync_on = 0;
	uint64_t t_create, t_all = 0, t_rel;

	inv_watchdog("rcuboost-bench boosters (child)", CHILD_TIMEOUT_S - 10);
	r->nreaders = pv->nreaders;
	r->all_boosted_ms = NAN;
	if (!th) {
		C_FAIL(r, "initialisation failed: %s", strerror(ENOMEM));
		return;
	}
	if (c_init(ch->conf, r, &rb_ops, &cfg, &s0) != 0) {
		free(th);
		return;
	}
	t_create = tool_now_ns();
	made = c_create_readers(pv, r, th, t_create, &t_all);
	if (!r->error[0]) {
		/* s0 stays the baseline from before the readers existed:
		 * creating 1000 of them can outlast the aging delay, so the
		 * first ones are boosted before the last one blocks. */
		int err = pthread_create(&sy.t, NULL, c_synchronizer, &sy);

		if (err)
			C_FAIL(r, "cannot start the synchronizer: %s", strerror(err));
		sync_on = !err;
	}
	if (!r->error[0])
		c_hold(ch->conf, pv, r, made, t_create, t_all, &s0, &sy);
	/* Release every reader, whatever happened, and join them all. */
	t_rel = tool_now_ns();
	atomic_store(&c_release, 1);
	syscall(SYS_futex, (int *)&c_release, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	if (sync_on) {
		pthread_join(sy.t, NULL);
		r->gp_ms = ms_since(sy.t0, sy.t1);
		r->release_to_gp_ms = sy.t1 > t_rel ? ms_since(t_rel, sy.t1) : 0;
	}
	for (int i = 0; i < made; i++)
		pthread_join(th[i], NULL);
	free(th);
	if (c_rcuboost) {
		rcb_boost_stats(&s1);
		r->unboosted = s1.unboosted - s0.unboosted;
	}
	c_ops->fini();
	inv_watchdog_off();
	if (!r->error[0] && atomic_load(&c_left) != made)
		C_FAIL(r, "%d of %d readers left", atomic_load(&c_left), made);
	r->ok = !r->error[0];
}

/* ---- the parent -------------------------------------------------------- */

static void run_child(int conf, const struct bo_priv *pv, struct bo_res *r)
{
	if (bench_x_conf_child(child, conf, pv, r, CHILD_TIMEOUT_S, r->error, sizeof(r->error)))
		r->ok = 0;
}

static double v_of(const struct bo_res *r, double v)
{
	return r->ran && r->ok ? v : NAN;
}

static void cell(FILE *out, int w, unsigned int i, unsigned int c, const void *arg)
{
	const struct bo_res *r = (const struct bo_res *)arg + c;
	int boost = c != C_MEMB;

	if (!boost && i != 1 && i < 9) {
		fprintf(out, " %*s", w, "n/a");
		return;
	}
	switch (i) {
	case 0: fprintf(out, " %*d", w, r->boosters); break;
	case 1: fprintf(out, " %*.1f", w, r->create_ms); break;
	case 2: fprintf(out, " %*.2f", w, r->all_boosted_ms); break;
	case 3: fprintf(out, " %*.2f", w, r->lat_max_ms); break;
	case 4: fprintf(out, " %*.2f", w, r->lat_mean_ms); break;
	case 5: fprintf(out, " %*ld", w, r->boosts); break;
	case 6: fprintf(out, " %*.2f", w, r->booster_cpu_ms); break;
	case 7: fprintf(out, " %*ld", w, r->passes); break;
	case 8: fprintf(out, " %*ld", w, r->sched_syscalls); break;
	case 9: fprintf(out, " %*.1f", w, r->gp_ms); break;
	case 10: fprintf(out, " %*.2f", w, r->release_to_gp_ms); break;
	case 11: bench_x_cell_long(out, w, boost, r->unboosted); break;
	default: fprintf(out, " %*s", w, r->ok ? "OK" : "FAIL"); break;
	}
}

static void print_detail(FILE *out, const struct bench_xres *x)
{
	const struct bo_priv *pv = x->priv;
	const struct bo_res *rs = pv->sh ? pv->sh->res : NULL;
	static const char *const rows[] = {
		"boosters", "readers created+blocked (ms)", "all blocked -> all boosted (ms)",
		"boost latency max (ms)", "boost latency mean (ms)", "boosts",
		"booster CPU time (ms)", "booster passes", "sched syscalls",
		"grace period (ms)", "release -> GP end (ms)", "unboosted at unlock", "result",
	};
	int ran[NCONF];
	struct bench_xtable t = { "", conf_name, ran, NCONF, 11,
				  rows, sizeof(rows) / sizeof(rows[0]), 32, cell, rs, { NULL } };

	fprintf(out, "\nboosters: %d registered SCHED_OTHER readers (%d KiB stacks), half pinned\n"
		     "to CPU 0 and half to CPU 1, block in read-side critical sections\n"
		     "(rcb_note_block, futex); a grace period starts once all are blocked; held\n"
		     ">= %d ms and until all are boosted, then released.  Booster period %u ms,\n"
		     "%u elements.  Each configuration in its own child process.\n",
		pv->nreaders, STACK_BYTES / 1024, pv->hold_ms, pv->period_ms, pv->elements);
	if (x->status || !rs) {
		fprintf(out, "boosters: n/a: %s\n", x->why);
		return;
	}
	for (int c = 0; c < NCONF; c++) {
		ran[c] = rs[c].ran;
		t.errors[c] = rs[c].error;
	}
	bench_x_print_runs(out, &t);
	fprintf(out, "\nHow it scales: %s\n(below 1.00x: one booster per CPU does better than one for "
		     "all CPUs).\n", x->why);
}

static void print_scaling_fix(char *buf, size_t len, double a, double b)
{
	bench_ratio_str(bench_x_ratio(a, b), buf, len);
}

static void json_detail(FILE *f, const struct bench_xres *x)
{
	const struct bo_priv *pv = x->priv;

	fprintf(f, "    \"params\": {\"readers\": %d, \"stack_kib\": %d, \"hold_ms\": %d, "
		   "\"boost_period_ms\": %u, \"boost_elements\": %u},\n    \"runs\": [",
		pv->nreaders, STACK_BYTES / 1024, pv->hold_ms, pv->period_ms, pv->elements);
	for (int c = 0; pv->sh && !x->status && c < NCONF; c++) {
		const struct bo_res *r = &pv->sh->res[c];

		fprintf(f, "%s\n      {\"name\": \"%s\", \"ran\": %s, \"ok\": %s, \"error\": ",
			c ? "," : "", conf_name[c], r->ran ? "true" : "false",
			r->ok ? "true" : "false");
		tool_json_str(f, r->error);
		fprintf(f, ", \"boosters\": %d, \"create_ms\": ", r->boosters);
		tool_json_num(f, r->create_ms);
		fprintf(f, ", \"all_boosted_ms\": ");
		tool_json_num(f, c == C_MEMB ? NAN : r->all_boosted_ms);
		fprintf(f, ",\n       \"latency_max_ms\": ");
		tool_json_num(f, c == C_MEMB ? NAN : r->lat_max_ms);
		fprintf(f, ", \"latency_mean_ms\": ");
		tool_json_num(f, c == C_MEMB ? NAN : r->lat_mean_ms);
		fprintf(f, ", \"latency_count\": %ld, \"boosts\": %ld, \"passes\": %ld, "
			   "\"booster_cpu_ms\": ", r->lat_count, r->boosts, r->passes);
		tool_json_num(f, c == C_MEMB ? NAN : r->booster_cpu_ms);
		fprintf(f, ", \"gp_ms\": ");
		tool_json_num(f, r->gp_ms);
		fprintf(f, ", \"release_to_gp_ms\": ");
		tool_json_num(f, r->release_to_gp_ms);
		fprintf(f, ", \"unboosted\": %ld}", r->unboosted);
	}
	fprintf(f, "\n    ]");
}

static void plot(struct bench_xres *x, const struct bo_priv *pv)
{
	const struct bo_res *rs = pv->sh->res;
	char dat[400];
	FILE *f = bench_x_plot_file(x, "boosters.dat", dat, sizeof(dat));

	if (!f)
		return;
	fprintf(f, "figure single per-cpu\n");
	fprintf(f, "\"all boosted\" %.3f %.3f\n", rs[C_SINGLE].all_boosted_ms,
		rs[C_MULTI].all_boosted_ms);
	fprintf(f, "\"latency max\" %.3f %.3f\n", rs[C_SINGLE].lat_max_ms, rs[C_MULTI].lat_max_ms);
	fprintf(f, "\"latency mean\" %.3f %.3f\n", rs[C_SINGLE].lat_mean_ms,
		rs[C_MULTI].lat_mean_ms);
	fprintf(f, "\"booster CPU\" %.3f %.3f\n", rs[C_SINGLE].booster_cpu_ms,
		rs[C_MULTI].booster_cpu_ms);
	fclose(f);
	bench_x_gnuplot(x, "boosters", 900, 540,
			"set title '%d blocked readers on 2 CPUs: one booster vs one per CPU'\n"
			"set style data histograms\nset style histogram clustered gap 1\n"
			"set style fill solid 0.8 border -1\nset ylabel 'ms'\nset yrange [0:*]\n"
			"set key top right autotitle columnhead\nset grid ytics\n"
			"plot '%s' using 2:xtic(1), '' using 3\n",
			pv->nreaders, dat);
}

/* The figures: per-cpu against single and (if @memb) urcu-memb. */
static const struct bo_fig {
	const char *name, *unit;
	size_t off; /* of a double in struct bo_res; -1: passes */
	int memb;
} figs[] = {
	{ "boosters.all_boosted", "ms", offsetof(struct bo_res, all_boosted_ms), 0 },
	{ "boosters.latency_max", "ms", offsetof(struct bo_res, lat_max_ms), 0 },
	{ "boosters.latency_mean", "ms", offsetof(struct bo_res, lat_mean_ms), 0 },
	{ "boosters.booster_cpu", "ms", offsetof(struct bo_res, booster_cpu_ms), 0 },
	{ "boosters.passes", "passes", (size_t)-1, 0 },
	{ "boosters.release_to_gp", "ms", offsetof(struct bo_res, release_to_gp_ms), 1 },
	{ "boosters.gp", "ms", offsetof(struct bo_res, gp_ms), 1 },
};

static void add_fig(struct bench_xres *x, const struct bo_res *rs, const struct bo_fig *f)
{
	struct bench_xfig *g;
	double v[NCONF];

	for (int c = 0; c < NCONF; c++) {
		const void *p = f->off == (size_t)-1 ? NULL : (const char *)&rs[c] + f->off;

		v[c] = v_of(&rs[c], p ? *(const double *)p : (double)rs[c].passes);
	}
	g = bench_x_fig(x, f->unit, v[C_MULTI], "%s", f->name);
	bench_x_peer(g, "single", v[C_SINGLE]);
	bench_x_peer(g, "urcu-memb", f->memb ? v[C_MEMB] : NAN);
}

static struct bench_xres *run(const struct bench_params *bp)
{
	struct bench_xres *x = bench_x_new(sc.name, sizeof(struct bo_priv), print_detail,
					   json_detail);
	struct bo_priv *pv = x->priv;
	struct bo_res *rs;
	struct rlimit rl;
	char a[32], b[32], c[32], d[32];

	pv->nreaders = bp->quick ? 200 : 1000;
	pv->hold_ms = bp->quick ? 100 : 200;
	pv->period_ms = bench_x_env_num("RCUBOOST_PERIOD_MS", 10);
	pv->elements = bench_x_env_num("RCUBOOST_ELEMENTS", 4);
	if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)pv->nreaders + 200) {
		pv->nreaders = rl.rlim_cur > 400 ? (int)rl.rlim_cur - 200 : 100;
		tool_progress("rcuboost-bench: boosters: RLIMIT_NPROC %lu: %d readers\n",
			       (unsigned long)rl.rlim_cur, pv->nreaders);
	}
	if (bench_x_rt_check(x, 50) != 0)
		return x;
	pv->sh = bench_x_shared(x, sizeof(*pv->sh));
	if (!pv->sh)
		return x;
	rs = pv->sh->res;
	for (int k = 0; k < NCONF; k++) {
		tool_progress("rcuboost-bench: boosters [%d/%d] %s, %d readers: ", k + 1, NCONF,
			       conf_name[k], pv->nreaders);
		run_child(k, pv, &rs[k]);
		if (rs[k].na) {
			x->status = -EPERM;
			snprintf(x->why, sizeof(x->why), "%s", rs[k].error);
			tool_progress("n/a: %s\n", rs[k].error);
			return x;
		}
		x->failed |= !rs[k].ok;
		if (k == C_MEMB)
			tool_progress("GP %.1f ms, %.2f ms after the release%s%s\n", rs[k].gp_ms,
				       rs[k].release_to_gp_ms, rs[k].ok ? "" : ", FAILED: ",
				       rs[k].error);
		else
			tool_progress("all boosted after %.2f ms, %d booster(s)%s%s\n",
				       rs[k].all_boosted_ms, rs[k].boosters,
				       rs[k].ok ? "" : ", FAILED: ", rs[k].error);
	}

	{
		const struct bo_res *m = &rs[C_MULTI], *s = &rs[C_SINGLE];

		for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]); i++)
			add_fig(x, rs, &figs[i]);
		print_scaling_fix(a, sizeof(a), m->all_boosted_ms, s->all_boosted_ms);
		print_scaling_fix(b, sizeof(b), m->lat_max_ms, s->lat_max_ms);
		print_scaling_fix(c, sizeof(c), m->lat_mean_ms, s->lat_mean_ms);
		print_scaling_fix(d, sizeof(d), m->booster_cpu_ms, s->booster_cpu_ms);
		snprintf(x->why, sizeof(x->why),
			 "scaling per-cpu/single: all boosted %s, latency max %s, mean %s, "
			 "booster CPU %s", a, b, c, d);
	}
	plot(x, pv);
	return x;
}

const struct bench_xscenario bench_x_boosters = { &sc, run };
