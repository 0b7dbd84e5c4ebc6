/* SPDX-License-Identifier: MIT */
/*
 * Scenario "pi": the pi backend against sched and urcu-memb, each in a
 * child process pinned to CPU 1 (the backend is per process): the
 * inversion; the unlock of boosted sections and a plain pair; a chain: a
 * SCHED_OTHER holder on CPU 0 keeps a PI mutex a reader waits for in its
 * section while a FIFO 40 hog (stopping by itself) starves the holder.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>

#include "bench.h"

enum { C_PI, C_SCHED, C_MEMB, NCONF };
enum { F_GP, F_HELD, F_BACKLOG, F_CALLS, F_UNLOCK, F_PAIR, F_CHAIN, F_PRIO };

#define BLOCK_MS 60      /* a boosted section blocks this long */
#define MAX_UNLOCKS 15
#define PAIR_BATCHES 5

static struct inv_params prm;
static int hog_ms, unlocks, reps;
static unsigned long pairs;
static const struct inv_flavor_ops *ops;
static pthread_mutex_t mutex;
static _Atomic int u_stop, locked, release, reader_in, reader_err, hog_stop;
static _Atomic int holder_prio, hog_on;

/* A grace period waits throughout, so blocked readers get boosted. */
static void *u_syncer(void *arg UNUSED)
{
	while (!atomic_load(&u_stop))
		rcb_synchronize();
	return NULL;
}

static double c_pairs(const struct tool_peer *f)
{
	double v[PAIR_BATCHES];

	f->thread_register();
	f->read_pairs(pairs / 4); /* warm-up */
	for (int b = 0; b < PAIR_BATCHES; b++) {
		uint64_t t0 = tool_now_ns();

		f->read_pairs(pairs);
		v[b] = (double)(tool_now_ns() - t0) / (double)pairs;
	}
	f->thread_unregister();
	return tool_median(v, PAIR_BATCHES);
}

/* The median outermost unlock of the sections boosted (only this
 * thread's sections unboost here), and a plain pair. */
static void c_unlock(const struct rcb_config *cfg, struct bench_cres *r)
{
	struct rcb_boost_stats s0 = { .size = sizeof(s0) }, s1 = s0;
	double ns[MAX_UNLOCKS];
	int n = 0;
	uint64_t t0;
	pthread_t ts;

	if (rcb_init(cfg) || rcb_register_thread()) {
		BENCH_FAIL(r, "unlock: rcb_init failed");
		return;
	}
	atomic_store(&u_stop, 0);
	tool_thread_start(&ts, -1, u_syncer, NULL);
	for (int i = 0; i < unlocks; i++) {
		rcb_boost_stats(&s0);
		rcb_read_lock();
		rcb_note_block();
		tool_sleep_ns((uint64_t)BLOCK_MS * 1000000);
		t0 = tool_now_ns();
		rcb_read_unlock();
		t0 = tool_now_ns() - t0;
		rcb_boost_stats(&s1);
		if (s1.unboosted > s0.unboosted)
			ns[n++] = (double)t0;
	}
	atomic_store(&u_stop, 1);
	tool_thread_join(ts);
	rcb_unregister_thread();
	r->v[F_UNLOCK][0] = n ? tool_median(ns, (size_t)n) : NAN;
	if (!n)
		BENCH_FAIL(r, "unlock: no section blocked %d ms was boosted",
			   BLOCK_MS);
	r->v[F_PAIR][0] = c_pairs(&tool_peer_rcuboost);
	rcb_shutdown();
}

static void wake(_Atomic int *w)
{
	atomic_store(w, 1);
	syscall(SYS_futex, (int *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL,
		0);
}

static void *holder(void *arg UNUSED)
{
	uint64_t end = tool_now_ns() + (hog_ms + 3000ull) * 1000000;
	char path[64], buf[512], *p;
	int prio = 0;
	FILE *f;

	if (pthread_mutex_lock(&mutex) != 0)
		return NULL;
	atomic_store(&locked, 1);
	/* Asleep until told; then runnable on CPU 0 under the hog. */
	while (!atomic_load(&release) && tool_now_ns() < end)
		bench_futex_wait(&release, 0, 10);
	/* Still holding the mutex: real-time above the hog if a boost
	 * reached it through the chain, else whatever let it run.  Field 18
	 * of /proc's stat: -1 - rtprio (inherited included), or 20 + nice. */
	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat",
		 (long)syscall(SYS_gettid));
	f = fopen(path, "r");
	if (f && fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 2, "%*c%*d%*d%*d%*d%*d%*u%*u%*u%*u%*u%*u%*u%*d%*d%d",
		       &prio);
	if (f)
		fclose(f);
	atomic_store(&holder_prio, prio < 0 ? -1 - prio : 0);
	pthread_mutex_unlock(&mutex);
	return NULL;
}

static void *reader(void *arg UNUSED)
{
	int err = EINVAL;

	if (ops->register_thread() == 0) {
		ops->read_lock();
		atomic_store(&reader_in, 1);
		err = ops->boost_stats ? rcb_mutex_lock(&mutex) :
					 pthread_mutex_lock(&mutex);
		if (!err)
			pthread_mutex_unlock(&mutex);
		ops->read_unlock();
		ops->unregister_thread();
	}
	atomic_store(&reader_err, err);
	atomic_store(&reader_in, 1);
	return NULL;
}

static void *hog(void *arg UNUSED)
{
	uint64_t end = tool_now_ns() + (uint64_t)hog_ms * 1000000;
	struct sched_param sp = { .sched_priority = 0 };

	atomic_store(&hog_on, 1);
	while (!atomic_load_explicit(&hog_stop, memory_order_relaxed) &&
	       tool_now_ns() < end)
		;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	return NULL;
}

/* Start @fn pinned to @cpu, created real-time at @fifo_prio unless 0. */
static int start(pthread_t *t, int cpu, int fifo_prio, void *(*fn)(void *))
{
	pthread_attr_t attr;
	int err;

	pthread_attr_init(&attr);
	tool_attr_pin(&attr, cpu);
	if (fifo_prio)
		tool_attr_sched(&attr, SCHED_FIFO, fifo_prio);
	err = pthread_create(t, &attr, fn, NULL);
	pthread_attr_destroy(&attr);
	return err;
}

/* One repetition: the grace period in ms, or NaN with r->error set.  The
 * holder takes the mutex, the hog starts above it on CPU 0, the reader
 * enters its section and blocks on the mutex: the grace period covers
 * the whole of its wait. */
static double chain_once(struct bench_cres *r)
{
	pthread_t th, tr, tg;
	int h = 0, rd = 0;
	uint64_t t0 = 0;

	atomic_store(&locked, 0);
	atomic_store(&release, 0);
	atomic_store(&reader_in, 0);
	atomic_store(&reader_err, 0);
	atomic_store(&hog_stop, 0);
	atomic_store(&hog_on, 0);
	if (start(&th, INV_RT_CPU, 0, holder) ||
	    tool_wait_flag(&locked, 1000) != 1)
		BENCH_FAIL(r, "chain: the holder did not take the mutex");
	else if (!(h = !start(&tg, INV_RT_CPU, 40, hog)))
		BENCH_FAIL(r, "chain: cannot start the hog");
	if (h) {
		tool_wait_flag(&hog_on, 1000);
		wake(&release); /* runnable, but on CPU 0 under the hog */
		rd = !start(&tr, INV_OTHER_CPU, 0, reader);
		if (!rd || !tool_wait_flag(&reader_in, 1000))
			BENCH_FAIL(r, "chain: the reader did not start");
	}
	if (!r->error[0]) {
		t0 = tool_now_ns();
		ops->synchronize();
		t0 = tool_now_ns() - t0;
	}
	atomic_store(&hog_stop, 1);
	if (h)
		tool_thread_join(tg);
	wake(&release);
	if (rd)
		tool_thread_join(tr);
	tool_thread_join(th);
	if (atomic_load(&reader_err))
		BENCH_FAIL(r, "chain: the reader's lock failed: %s",
			   strerror(atomic_load(&reader_err)));
	return r->error[0] ? NAN : (double)t0 / 1e6;
}

static void c_chain(const struct rcb_config *cfg, struct bench_cres *r)
{
	pthread_mutexattr_t ma;
	double v[3];
	int err, n = 0, low = INT_MAX;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	err = pthread_mutex_init(&mutex, &ma);
	pthread_mutexattr_destroy(&ma);
	if (err || (cfg ? ops->init_cfg(cfg, bench_freed_nop) :
			  ops->init(bench_freed_nop))) {
		BENCH_FAIL(r, "chain: initialisation failed");
		return;
	}
	for (; n < reps && !r->error[0]; n++) {
		/* The kernel's fair server runs a starved SCHED_OTHER thread
		 * after ~950 ms, and at once for a while after it did: let it
		 * go back to deferring, so that every rep starts alike. */
		if (n)
			tool_sleep_ns(500000000);
		v[n] = chain_once(r);
		low = atomic_load(&holder_prio) < low ?
			      atomic_load(&holder_prio) : low;
	}
	ops->fini();
	pthread_mutex_destroy(&mutex);
	r->v[F_CHAIN][0] = r->error[0] ? NAN : tool_median(v, (size_t)n);
	r->v[F_PRIO][0] = r->error[0] ? NAN : low;
}

static void child(int conf, unsigned int round UNUSED, struct bench_cres *r)
{
	struct rcb_config cfg = { .boost = 1, .boost_backend = conf == C_PI ?
		RCB_BACKEND_PI : RCB_BACKEND_SCHED };
	struct rcb_boost_stats s = { .size = sizeof(s) };
	struct inv_flavor_ops rb;
	struct inv_result v = { 0 };
	int err;

	inv_watchdog("rcuboost-bench pi (child)", (unsigned)hog_ms / 200 + 40);
	/* Everything started from here on inherits CPU 1. */
	tool_pin_self(INV_OTHER_CPU);
	inv_flavor_rcuboost_cfg(&rb, "rcuboost", &cfg);
	ops = conf == C_MEMB ? &inv_flavor_urcu_memb : &rb;
	if (conf != C_MEMB) {
		/* Is boosting available at all, and with which backend? */
		if (rcb_init(&cfg) == 0) {
			rcb_boost_stats(&s);
			rcb_shutdown();
		}
		r->na = !s.enabled || s.no_permission;
		if (r->na || s.backend != cfg.boost_backend) {
			BENCH_FAIL(r, "boosting unavailable, or backend %d",
				   s.backend);
			return;
		}
	}
	err = inv_run(ops, &prm, &v);
	if (err || !v.ok)
		BENCH_FAIL(r, "inversion: %.200s", v.error);
	if (!err) {
		r->v[F_GP][0] = v.gp_count ? v.gp_max_ms : NAN;
		r->v[F_HELD][0] = v.reader_held_ms;
		r->v[F_BACKLOG][0] = (double)v.peak_backlog;
		/* The readers' calls only: the sched backend's count also
		 * has the callback worker's boosts, which the pi backend
		 * makes with sched_setattr(2) too. */
		r->v[F_CALLS][0] = bench_ratio(
			conf == C_PI ? v.bs.pi_syscalls :
				       v.bs.sched_syscalls -
					       v.bs.cb_sched_syscalls,
			conf == C_PI ? v.bs.pi_boosts : v.bs.boost);
	}
	inv_result_free(&v);
	if (conf != C_MEMB)
		c_unlock(&cfg, r);
	else
		r->v[F_PAIR][0] = c_pairs(&tool_peer_urcu_memb);
	c_chain(conf != C_MEMB ? &cfg : NULL, r);
	inv_watchdog_off();
}

static void run(struct bench_res *x, const struct bench_params *bp)
{
	static const char *const names[] = { "pi", "sched", "urcu-memb" };
	static struct bench_cfig figs[] = {
		{ "pi.gp_max", "ms", 0, 1 },
		{ "pi.reader_held", "ms", 0, 0 },
		{ "pi.peak_backlog", "callbacks", 0, 0 },
		{ "pi.syscalls_per_boost", "calls", 0, 0 },
		{ "pi.unlock_boosted", "ns", 0, 0 },
		{ "pi.read_pair", "ns", 0, 0 },
		{ "pi.chain_gp", "ms", 0, 1 },
		{ "pi.chain_holder_rtprio", "prio", 1, 0 },
	};

	hog_ms = bp->nhogs ? bp->hogs[bp->nhogs - 1] : bp->quick ? 300 : 1000;
	unlocks = bp->quick ? 5 : MAX_UNLOCKS;
	reps = bp->quick ? 1 : 3;
	pairs = bp->quick ? 1000000ul : 10000000ul;
	inv_params_default(&prm);
	prm.hog_ms = hog_ms;
	prm.warmup_ms = prm.tail_ms = bp->quick ? 100 : 200;
	/* The grace periods' bound: half the hog. */
	figs[F_GP].bound = figs[F_CHAIN].bound = hog_ms / 2.0;
	x->status = inv_params_check(&prm, x->why, sizeof(x->why));
	if (!x->status && bench_rt_check(x, 50) == 0)
		bench_confs(x, child, NCONF, names, figs, 8, 1,
			    (unsigned int)hog_ms / 150 + 60);
}

const struct bench_scenario bench_sc_pi = { "pi",
	"pi backend against sched: inversion, unlock, PI chain",
	1, run, NULL, 0 };
