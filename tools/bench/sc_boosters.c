/* SPDX-License-Identifier: MIT */
/*
 * Scenario "boosters": SCHED_OTHER readers, half pinned to each CPU,
 * block in critical sections; a grace period starts once all are; we wait
 * until all are boosted, release them and time the grace period's end.
 * A child process per configuration: the CPU mapping is per process.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "bench.h"

enum { C_MULTI, C_SINGLE, C_MEMB, NCONF };
enum { F_ALL, F_LMAX, F_LMEAN, F_CPU, F_PASSES, F_RELEASE, F_GP, NFIG };

#define BLOCK_TIMEOUT_MS 10000 /* all readers blocked by then */
#define BOOST_TIMEOUT_MS 5000  /* all readers boosted by then */

static int nreaders, hold_ms;
static const struct inv_flavor_ops *c_ops;
static int c_rcb;
static _Atomic int c_blocked, c_left, c_release, c_done;
static uint64_t c_t0, c_t1;

static void *c_reader(void *arg UNUSED)
{
	/* It leaves by itself after 30 s at most. */
	uint64_t end = tool_now_ns() + 30000000000ull;

	if (c_ops->register_thread() == 0) {
		c_ops->read_lock();
		if (c_rcb)
			rcb_note_block();
		atomic_fetch_add(&c_blocked, 1);
		while (!atomic_load(&c_release) && tool_now_ns() < end)
			bench_futex_wait(&c_release, 0, 1000);
		c_ops->read_unlock();
		c_ops->unregister_thread();
	}
	atomic_fetch_add(&c_left, 1);
	return NULL;
}

static void *c_synchronizer(void *arg UNUSED)
{
	c_ops->register_thread();
	c_t0 = tool_now_ns();
	c_ops->synchronize();
	c_t1 = tool_now_ns();
	c_ops->unregister_thread();
	atomic_store(&c_done, 1);
	return NULL;
}

static double ms(uint64_t t0, uint64_t t1)
{
	return t1 > t0 ? (double)(t1 - t0) / 1e6 : 0;
}

/* Hold the blocked readers hold_ms and until all are boosted (at most
 * BOOST_TIMEOUT_MS after @t_create); the figures against @s0. */
static void c_hold(struct bench_cres *r, int made,
		   uint64_t t_create, uint64_t t_all,
		   const struct rcb_boost_stats *s0)
{
	uint64_t end = t_all + (uint64_t)hold_ms * 1000000, now;
	uint64_t limit = t_create + (uint64_t)BOOST_TIMEOUT_MS * 1000000;
	struct rcb_boost_stats s1 = { .size = sizeof(s1) };
	long n;

	do {
		tool_sleep_ns(500000);
		now = tool_now_ns();
		rcb_boost_stats(&s1);
		n = s1.boost_latency_count - s0->boost_latency_count;
		if (isnan(r->v[F_ALL][0]) && n >= made)
			r->v[F_ALL][0] = ms(t_all, now);
	} while (now < end || (isnan(r->v[F_ALL][0]) && now < limit));
	r->v[F_LMAX][0] = (double)s1.boost_latency_ns_max / 1e6;
	r->v[F_LMEAN][0] = (double)(s1.boost_latency_ns_total -
			      s0->boost_latency_ns_total) / (double)n / 1e6;
	r->v[F_PASSES][0] = (double)(s1.passes - s0->passes);
	r->v[F_CPU][0] = (double)(s1.booster_cpu_ns - s0->booster_cpu_ns) / 1e6;
	if (isnan(r->v[F_ALL][0]))
		BENCH_FAIL(r, "only %ld of %d readers boosted within %d ms", n,
		       made, BOOST_TIMEOUT_MS);
}

static void child(int conf, unsigned int round UNUSED, struct bench_cres *r)
{
	struct rcb_config cfg = { .boost = 1,
				  .booster_cpus = conf == C_SINGLE ? -1 : 1 };
	struct inv_flavor_ops rb;
	struct rcb_boost_stats s0 = { .size = sizeof(s0) };
	pthread_t *th = calloc((size_t)nreaders, sizeof(*th)), sy;
	pthread_attr_t attr;
	uint64_t t_create, t_all, t_rel, end;
	int made = 0, err;

	inv_watchdog("rcuboost-bench boosters (child)", 80);
	c_rcb = conf != C_MEMB;
	inv_flavor_rcuboost_cfg(&rb, "rcuboost", &cfg);
	c_ops = c_rcb ? &rb : &inv_flavor_urcu_memb;
	err = c_rcb ? rb.init_cfg(&cfg, bench_freed_nop) :
		      c_ops->init(bench_freed_nop);
	if (err || !th) {
		BENCH_FAIL(r, "initialisation failed: %s",
		       strerror(err ? -err : ENOMEM));
		return;
	}
	rcb_boost_stats(&s0);
	if (c_rcb && (!s0.enabled || s0.no_permission || !s0.booster_running)) {
		r->na = 1;
		BENCH_FAIL(r, "boosting unavailable");
		c_ops->fini();
		return;
	}
	t_create = tool_now_ns();
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (; made < nreaders; made++) {
		tool_attr_pin(&attr, made % 2);
		if (pthread_create(&th[made], &attr, c_reader, NULL))
			break;
	}
	pthread_attr_destroy(&attr);
	end = tool_now_ns() + (uint64_t)BLOCK_TIMEOUT_MS * 1000000;
	while (atomic_load(&c_blocked) < made && tool_now_ns() < end)
		tool_sleep_ns(200000);
	t_all = tool_now_ns();
	if (atomic_load(&c_blocked) < nreaders)
		BENCH_FAIL(r, "only %d of %d readers blocked",
		       atomic_load(&c_blocked), nreaders);
	/* s0 stays the baseline from before the readers existed: creating
	 * 1000 can outlast the aging delay. */
	err = r->error[0] || pthread_create(&sy, NULL, c_synchronizer, NULL);
	if (!err && c_rcb)
		c_hold(r, made, t_create, t_all, &s0);
	else if (!err)
		tool_sleep_ns((uint64_t)hold_ms * 1000000);
	if (!err && atomic_load(&c_done))
		BENCH_FAIL(r, "the grace period ended with readers blocked");
	/* Release every reader, whatever happened, and join them all. */
	t_rel = tool_now_ns();
	atomic_store(&c_release, 1);
	syscall(SYS_futex, (int *)&c_release, FUTEX_WAKE_PRIVATE, INT_MAX,
		NULL, NULL, 0);
	if (!err) {
		pthread_join(sy, NULL);
		r->v[F_GP][0] = ms(c_t0, c_t1);
		r->v[F_RELEASE][0] = ms(t_rel, c_t1);
	}
	for (int i = 0; i < made; i++)
		pthread_join(th[i], NULL);
	free(th);
	c_ops->fini();
	inv_watchdog_off();
	if (atomic_load(&c_left) != made)
		BENCH_FAIL(r, "%d of %d readers left", c_left, made);
}

static void run(struct bench_res *x, const struct bench_params *bp)
{
	static const char *const names[] = { "per-cpu", "single", "urcu-memb" };
	static const struct bench_cfig figs[] = {
		{ "boosters.all_boosted", "ms", 0, 0 },
		{ "boosters.latency_max", "ms", 0, 0 },
		{ "boosters.latency_mean", "ms", 0, 0 },
		{ "boosters.booster_cpu", "ms", 0, 0 },
		{ "boosters.passes", "passes", 0, 0 },
		{ "boosters.release_to_gp", "ms", 0, 0 },
		{ "boosters.gp", "ms", 0, 0 },
	};
	struct rlimit rl;

	nreaders = bp->quick ? 200 : 1000;
	hold_ms = bp->quick ? 100 : 200;
	if (getrlimit(RLIMIT_NPROC, &rl) == 0 &&
	    rl.rlim_cur < (rlim_t)nreaders + 200)
		nreaders = rl.rlim_cur > 400 ? (int)rl.rlim_cur - 200 : 100;
	if (bench_rt_check(x, 50) == 0)
		bench_confs(x, child, NCONF, names, figs, NFIG, 1, 90);
}

const struct bench_scenario bench_sc_boosters = { "boosters",
	"1000 blocked readers: a booster per CPU or one for all",
	1, run, NULL, 0 };
