/* SPDX-License-Identifier: MIT */
/*
 * Scenario "pi", run only when named: the pi boost backend (doc/pi-backend.md,
 * src/boost_pi.c) against the sched backend and liburcu urcu-memb.
 *
 * The backend is fixed for the life of a process, so each configuration
 * runs in a child process of its own (pi, sched, urcu-memb), forked before
 * any library is initialised; results come back in shared memory and the
 * parent kills a child that outlives its deadline.  In each child, pinned
 * to CPU 1 before anything starts (so the library's threads are too):
 *
 *  1. inversion (tools/common/inversion.h): a SCHED_FIFO 10 reader
 *     preempted in its section by a SCHED_FIFO 40 hog on CPU 0 for hog_ms;
 *     longest grace period, reader held time, peak backlog and, from the
 *     same run's boost statistics, system calls per boost;
 *  2. unlock cost: the outermost rcb_read_unlock() of sections that block
 *     BLOCK_MS after rcb_note_block() while a grace period waits (so they
 *     are boosted; sections the statistics show unboosted are left out),
 *     median; and the cost of a plain lock/unlock pair, timed in batches;
 *  3. chain: a SCHED_OTHER holder L on CPU 0 holds an application
 *     PTHREAD_PRIO_INHERIT mutex M; a SCHED_OTHER reader R on CPU 1 blocks
 *     on M inside its section (rcb_mutex_lock) while a SCHED_FIFO 40 hog
 *     on CPU 0 keeps L off the CPU; the grace period, started as R enters
 *     its section, is timed.  A boost of R reaches L
 *     only through the kernel's priority-inheritance chain; L reads its
 *     own effective priority (/proc) just before it releases M.
 *
 * Real-time safety: every real-time thread started here (the chain's hog)
 * stops by itself within hog_ms, is pinned to CPU 0 and drops to
 * SCHED_OTHER before it exits; everything else runs on CPU 1, except the
 * SCHED_OTHER holder L, which must share CPU 0 with the hog.  Each child
 * has a watchdog (inv_watchdog); the inversion engine bounds its own.
 */
#define _GNU_SOURCE /* CPU_SET, pthread_attr_setaffinity_np, sched_setaffinity */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sc_pi.h"

static const struct bench_scenario sc = {
	.name = "pi",
	.help = "pi: needs real-time priority; about 12 s (--quick: 4 s).  The pi boost\n"
		"  backend (proxy PI futex) against the sched backend and urcu-memb, each in\n"
		"  its own child process.  Figures: the inversion with a 1000 ms hog\n"
		"  (--quick: 300; --hog-ms: the longest of its list): longest grace period,\n"
		"  reader held time, peak backlog, system calls per boost; the outermost\n"
		"  unlock of a boosted section and a plain lock/unlock pair (ns); and a chain:\n"
		"  a reader blocked on an application PI mutex whose SCHED_OTHER holder a\n"
		"  FIFO 40 hog preempts (grace period).",
};

/* ---- the child: common ------------------------------------------------- */

#define C_FAIL(r, ...) \
	((r)->error[0] ? (void)0 : (void)snprintf((r)->error, sizeof((r)->error), __VA_ARGS__))

static const struct inv_flavor_ops *c_ops;
static int c_rcuboost;

static void c_futex_wake(_Atomic int *w)
{
	syscall(SYS_futex, (int *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static int c_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static int c_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- 1. the inversion -------------------------------------------------- */

static void c_inversion(int conf, const struct pi_priv *pv, const struct inv_flavor_ops *ops,
			struct pi_res *r)
{
	struct inv_result res;
	int err;

	memset(&res, 0, sizeof(res));
	err = inv_run(ops, &pv->prm, &res);
	r->inv = res;
	r->inv.series = NULL;
	r->inv.nseries = 0;
	inv_result_free(&res);
	r->per_boost = NAN;
	if (err) {
		C_FAIL(r, "inversion could not run: %.200s", r->inv.error);
		return;
	}
	r->inv_ran = 1;
	if (!r->inv.ok)
		C_FAIL(r, "inversion: %.200s", r->inv.error);
	if (conf == C_SCHED && r->inv.bs.boost)
		r->per_boost = (double)r->inv.bs.sched_syscalls / (double)r->inv.bs.boost;
	if (conf == C_PI && r->inv.bs.pi_boosts)
		r->per_boost = (double)r->inv.bs.pi_syscalls / (double)r->inv.bs.pi_boosts;
}

/* ---- 2. unlock cost ---------------------------------------------------- */

static _Atomic int u_stop;

/* A grace period waits throughout, so blocked readers get boosted. */
static void *u_syncer(void *arg)
{
	(void)arg;
	while (!atomic_load(&u_stop))
		rcb_synchronize();
	return NULL;
}

struct u_reader {
	int n, boosted;
	double ns[MAX_UNLOCKS];
};

static void *u_reader_main(void *arg)
{
	struct u_reader *u = arg;

	if (rcb_register_thread() != 0)
		return NULL;
	for (int i = 0; i < u->n; i++) {
		struct rcb_boost_stats s0 = { .size = sizeof(s0) }, s1 = { .size = sizeof(s1) };
		uint64_t t0, t1;

		rcb_boost_stats(&s0);
		rcb_read_lock();
		rcb_note_block();
		tool_sleep_ns((uint64_t)BLOCK_MS * 1000000);
		t0 = tool_now_ns();
		rcb_read_unlock();
		t1 = tool_now_ns();
		rcb_boost_stats(&s1);
		/* Only this thread's sections unboost here. */
		if (s1.unboosted > s0.unboosted)
			u->ns[u->boosted++] = (double)(t1 - t0);
	}
	rcb_unregister_thread();
	return NULL;
}

static double c_pairs(const struct tool_peer *f, unsigned long n)
{
	double v[PAIR_BATCHES];

	f->thread_register();
	f->read_pairs(n / 4); /* warm-up */
	for (int b = 0; b < PAIR_BATCHES; b++) {
		uint64_t t0 = tool_now_ns();

		f->read_pairs(n);
		v[b] = (double)(tool_now_ns() - t0) / (double)n;
	}
	f->thread_unregister();
	return tool_median(v, PAIR_BATCHES);
}

static void c_unlock(const struct pi_priv *pv, const struct rcb_config *cfg, struct pi_res *r)
{
	struct u_reader u = { .n = pv->unlocks };
	pthread_t ts, tr;
	int err = rcb_init(cfg);

	r->unlock_boosted_ns = NAN;
	r->unlocks = u.n;
	if (err) {
		C_FAIL(r, "unlock: rcb_init: %s", strerror(-err));
		return;
	}
	atomic_store(&u_stop, 0);
	tool_thread_start(&ts, -1, u_syncer, NULL);
	tool_thread_start(&tr, -1, u_reader_main, &u);
	tool_thread_join(tr);
	atomic_store(&u_stop, 1);
	tool_thread_join(ts);
	r->unlocks_boosted = u.boosted;
	if (u.boosted) {
		qsort(u.ns, (size_t)u.boosted, sizeof(u.ns[0]), c_cmp_double);
		r->unlock_boosted_ns = u.ns[u.boosted / 2];
	} else {
		C_FAIL(r, "unlock: none of %d sections blocked %d ms was boosted", u.n, BLOCK_MS);
	}
	r->pair_ns = c_pairs(&tool_peer_rcuboost, pv->pairs);
	err = rcb_shutdown();
	if (err)
		C_FAIL(r, "unlock: rcb_shutdown: %s", strerror(-err));
}

/* ---- 3. the chain through an application PI mutex ---------------------- */

static pthread_mutex_t ch_mutex;
static _Atomic int ch_locked, ch_release, ch_reader_in, ch_reader_err;
static _Atomic int ch_hog_stop, ch_hog_started, ch_holder_rtprio;
static int ch_hog_ms;
static double ch_hog_ran_ms;

/* From /proc/self/task/TID/stat: field 3 (state) into *@state, and
 * field 18, the priority: -1 - rtprio for a real-time priority (inherited
 * included), 20 + nice otherwise.  Returns the priority, INT_MIN if
 * unreadable. */
static int ch_stat(int tid, char *state)
{
	char path[64], buf[512], *p;
	int prio = INT_MIN, field = 2;
	FILE *f;

	*state = '?';
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return INT_MIN;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] == ' ') {
		*state = p[2];
		for (p++; *p && field < 18; p++)
			if (*p == ' ')
				field++;
		if (field == 18)
			prio = atoi(p);
	}
	fclose(f);
	return prio;
}

static void *ch_holder(void *arg)
{
	char state;
	int prio;
	uint64_t end = tool_now_ns() + (uint64_t)(ch_hog_ms + HOLD_EXTRA_MS) * 1000000;

	(void)arg;
	if (pthread_mutex_lock(&ch_mutex) != 0) {
		atomic_store(&ch_locked, -1);
		return NULL;
	}
	atomic_store(&ch_locked, 1);
	/* Asleep until told; then runnable on CPU 0 under the hog. */
	while (!atomic_load(&ch_release) && tool_now_ns() < end)
		bench_x_futex_wait(&ch_release, 0, 10);
	/* The priority it runs at now, still holding M: real-time above
	 * the hog if a boost reached it through the chain, else whatever
	 * let it run (the hog's end). */
	prio = ch_stat((int)syscall(SYS_gettid), &state);
	atomic_store(&ch_holder_rtprio, prio != INT_MIN && prio < 0 ? -1 - prio : 0);
	pthread_mutex_unlock(&ch_mutex);
	return NULL;
}

static void *ch_reader(void *arg)
{
	int err;

	(void)arg;
	if (c_ops->register_thread() != 0) {
		atomic_store(&ch_reader_err, EINVAL);
		atomic_store(&ch_reader_in, 1);
		return NULL;
	}
	c_ops->read_lock();
	atomic_store(&ch_reader_in, 1);
	err = c_rcuboost ? rcb_mutex_lock(&ch_mutex) : pthread_mutex_lock(&ch_mutex);
	if (!err)
		pthread_mutex_unlock(&ch_mutex);
	else
		atomic_store(&ch_reader_err, err);
	c_ops->read_unlock();
	c_ops->unregister_thread();
	return NULL;
}

static void *ch_hog(void *arg)
{
	uint64_t t0 = tool_now_ns(), end = t0 + (uint64_t)ch_hog_ms * 1000000;
	struct sched_param sp = { .sched_priority = 0 };

	(void)arg;
	atomic_store(&ch_hog_started, 1);
	while (!atomic_load_explicit(&ch_hog_stop, memory_order_relaxed) && tool_now_ns() < end)
		;
	ch_hog_ran_ms = (double)(tool_now_ns() - t0) / 1e6;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	return NULL;
}

static int ch_start(pthread_t *t, int cpu, int fifo_prio, void *(*fn)(void *))
{
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	pthread_attr_init(&attr);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (fifo_prio) {
		struct sched_param sp = { .sched_priority = fifo_prio };

		/* Created real-time, onto CPU 0 directly. */
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
	}
	err = pthread_create(t, &attr, fn, NULL);
	pthread_attr_destroy(&attr);
	return err;
}

/*
 * One repetition; the grace period in ms, or NaN with r->error set.  The
 * hog runs first and the holder is runnable under it; the grace period
 * starts as soon as the reader is in its section, so it covers the whole
 * of the reader's wait: rcb_mutex_lock() finds M held (the holder took it
 * first), notes the block and sleeps; the booster boosts the reader after
 * the aging delay, and the boost must reach the holder to end the wait.
 */
static double ch_once(struct pi_res *r)
{
	pthread_t th, tr, tg;
	int err, hog = 0, reader = 0;
	uint64_t t0, t1 = 0;

	atomic_store(&ch_locked, 0);
	atomic_store(&ch_release, 0);
	atomic_store(&ch_reader_in, 0);
	atomic_store(&ch_reader_err, 0);
	atomic_store(&ch_hog_stop, 0);
	atomic_store(&ch_hog_started, 0);
	atomic_store(&ch_holder_rtprio, -1);
	err = ch_start(&th, INV_RT_CPU, 0, ch_holder);
	if (err) {
		C_FAIL(r, "chain: cannot start the holder: %s", strerror(err));
		return NAN;
	}
	if (tool_wait_flag(&ch_locked, 1000) != 1) {
		C_FAIL(r, "chain: the holder did not take the mutex within 1 s");
		goto out;
	}
	err = ch_start(&tg, INV_RT_CPU, HOG_PRIO, ch_hog);
	if (err) {
		C_FAIL(r, "chain: cannot start the hog: %s", strerror(err));
		goto out;
	}
	hog = 1;
	tool_wait_flag(&ch_hog_started, 1000);
	/* Runnable from now on, but on CPU 0 under the hog. */
	atomic_store(&ch_release, 1);
	c_futex_wake(&ch_release);
	err = ch_start(&tr, INV_OTHER_CPU, 0, ch_reader);
	if (err) {
		C_FAIL(r, "chain: cannot start the reader: %s", strerror(err));
		goto out;
	}
	reader = 1;
	if (!tool_wait_flag(&ch_reader_in, 1000)) {
		C_FAIL(r, "chain: the reader did not enter its section within 1 s");
		goto out;
	}
	t0 = tool_now_ns();
	c_ops->synchronize();
	t1 = tool_now_ns() - t0;
out:
	if (hog) {
		atomic_store(&ch_hog_stop, 1);
		tool_thread_join(tg);
	}
	atomic_store(&ch_release, 1);
	c_futex_wake(&ch_release);
	if (reader)
		tool_thread_join(tr);
	tool_thread_join(th);
	if (atomic_load(&ch_reader_err))
		C_FAIL(r, "chain: the reader's lock failed: %s",
		       strerror(atomic_load(&ch_reader_err)));
	return r->error[0] ? NAN : (double)t1 / 1e6;
}

static void c_chain(const struct pi_priv *pv, const struct rcb_config *cfg, struct pi_res *r)
{
	struct rcb_boost_stats s0 = { .size = sizeof(s0) }, s1 = { .size = sizeof(s1) };
	pthread_mutexattr_t ma;
	double v[MAX_CHAIN];
	int err;

	r->chain_gp_median_ms = r->chain_gp_max_ms = NAN;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	err = pthread_mutex_init(&ch_mutex, &ma);
	pthread_mutexattr_destroy(&ma);
	if (err) {
		C_FAIL(r, "chain: PI mutex: %s", strerror(err));
		return;
	}
	err = cfg ? c_ops->init_cfg(cfg, bench_x_freed_nop) : c_ops->init(bench_x_freed_nop);
	if (err) {
		C_FAIL(r, "chain: initialisation failed: %s", strerror(-err));
		pthread_mutex_destroy(&ch_mutex);
		return;
	}
	ch_hog_ms = pv->hog_ms;
	r->holder_rtprio_min = -1;
	if (c_rcuboost)
		rcb_boost_stats(&s0);
	for (int i = 0; i < pv->chain_reps && !r->error[0]; i++) {
		/* A SCHED_OTHER thread starved by real-time ones gets the
		 * fair server's 50 ms per second after ~950 ms; just after
		 * it ran, the server runs the holder at once.  Let it go
		 * back to deferring, so that every rep starts alike. */
		if (i)
			tool_sleep_ns((uint64_t)CHAIN_GAP_MS * 1000000);
		v[i] = ch_once(r);
		if (isnan(v[i]))
			break;
		r->holder_rtprio[r->chain_runs] = atomic_load(&ch_holder_rtprio);
		if (r->holder_rtprio_min < 0 || r->holder_rtprio[r->chain_runs] < r->holder_rtprio_min)
			r->holder_rtprio_min = r->holder_rtprio[r->chain_runs];
		r->chain_gp_ms[r->chain_runs++] = v[i];
		r->chain_hog_ms = ch_hog_ran_ms;
	}
	if (c_rcuboost) {
		rcb_boost_stats(&s1);
		r->chain_boosts = r->backend == RCB_BACKEND_PI ? s1.pi_boosts - s0.pi_boosts :
								 s1.boost - s0.boost;
	}
	c_ops->fini();
	pthread_mutex_destroy(&ch_mutex);
	if (r->chain_runs) {
		memcpy(v, r->chain_gp_ms, sizeof(v));
		qsort(v, (size_t)r->chain_runs, sizeof(v[0]), c_cmp_double);
		r->chain_gp_median_ms = v[r->chain_runs / 2];
		r->chain_gp_max_ms = v[r->chain_runs - 1];
	}
}

/* ---- the child --------------------------------------------------------- */

static unsigned int c_child_timeout_s(const struct pi_priv *pv)
{
	unsigned int inv = (unsigned int)(pv->prm.warmup_ms + pv->hog_ms + pv->prm.tail_ms);
	unsigned int chain = (unsigned int)pv->chain_reps *
			     (unsigned int)(pv->hog_ms + CHAIN_GAP_MS + 1000);

	return (inv + chain + (unsigned int)pv->unlocks * (BLOCK_MS + 50)) / 1000 + 30;
}

static void child(void *arg)
{
	const struct bench_child *ch = arg;
	int conf = ch->conf;
	const struct pi_priv *pv = ch->pv;
	struct pi_res *r = ch->r;
	struct rcb_config cfg = { .boost = 1 };
	struct inv_flavor_ops rb_ops;
	struct rcb_boost_stats s = { .size = sizeof(s) };
	int err;

	inv_watchdog("rcuboost-bench pi (child)", c_child_timeout_s(pv) - 10);
	/* Everything started from here on inherits CPU 1. */
	err = c_pin(INV_OTHER_CPU);
	if (err) {
		C_FAIL(r, "cannot pin to CPU %d: %s", INV_OTHER_CPU, strerror(-err));
		return;
	}
	c_rcuboost = conf != C_MEMB;
	if (!c_rcuboost) {
		c_ops = &inv_flavor_urcu_memb;
	} else {
		cfg.boost_backend = conf == C_PI ? RCB_BACKEND_PI : RCB_BACKEND_SCHED;
		inv_flavor_rcuboost_cfg(&rb_ops, pi_conf_name[conf], &cfg);
		c_ops = &rb_ops;
		/* Is boosting available at all (and with which backend)? */
		err = rcb_init(&cfg);
		if (err) {
			C_FAIL(r, "rcb_init: %s", strerror(-err));
			return;
		}
		rcb_boost_stats(&s);
		r->backend = s.backend;
		rcb_shutdown();
		if (!s.enabled || s.no_permission) {
			r->na = 1;
			C_FAIL(r, "boosting unavailable (enabled %d, no_permission %d)", s.enabled,
			       s.no_permission);
			return;
		}
		if (s.backend != cfg.boost_backend) {
			C_FAIL(r, "backend %d in use, %d asked for", s.backend, cfg.boost_backend);
			return;
		}
	}
	r->ran = 1;
	tool_progress("inversion");
	c_inversion(conf, pv, c_ops, r);
	tool_progress(", unlock");
	if (c_rcuboost)
		c_unlock(pv, &cfg, r);
	else
		r->pair_ns = c_pairs(&tool_peer_urcu_memb, pv->pairs);
	tool_progress(", chain");
	c_chain(pv, c_rcuboost ? &cfg : NULL, r);
	inv_watchdog_off();
	r->ok = !r->error[0];
}

/* ---- the parent -------------------------------------------------------- */

static void run_child(int conf, const struct pi_priv *pv, struct pi_res *r)
{
	if (bench_x_conf_child(child, conf, pv, r, c_child_timeout_s(pv), r->error, sizeof(r->error)))
		r->ok = 0;
}

static void add_figs(struct bench_xres *x, const struct pi_priv *pv)
{
	const struct pi_res *p = &pv->sh->res[C_PI], *s = &pv->sh->res[C_SCHED],
			    *u = &pv->sh->res[C_MEMB];
	double bound = pv->hog_ms / 2.0;
	struct bench_xfig *g;

	g = bench_x_fig(x, "ms", pi_inv_v(p, 0), "pi.gp_max");
	bench_x_peer(g, "sched", pi_inv_v(s, 0));
	bench_x_peer(g, "urcu-memb", pi_inv_v(u, 0));
	bench_x_peer(g, BENCH_X_GOAL, bound);
	g = bench_x_fig(x, "ms", pi_inv_v(p, 1), "pi.reader_held");
	bench_x_peer(g, "sched", pi_inv_v(s, 1));
	bench_x_peer(g, "urcu-memb", pi_inv_v(u, 1));
	g = bench_x_fig(x, "callbacks", pi_inv_v(p, 2), "pi.peak_backlog");
	bench_x_peer(g, "sched", pi_inv_v(s, 2));
	bench_x_peer(g, "urcu-memb", pi_inv_v(u, 2));
	g = bench_x_fig(x, "calls", pi_v_of(p, p->per_boost), "pi.syscalls_per_boost");
	bench_x_peer(g, "sched", pi_v_of(s, s->per_boost));
	bench_x_peer(g, "urcu-memb", NAN);
	g = bench_x_fig(x, "ns", pi_v_of(p, p->unlock_boosted_ns), "pi.unlock_boosted");
	bench_x_peer(g, "sched", pi_v_of(s, s->unlock_boosted_ns));
	bench_x_peer(g, "urcu-memb", NAN);
	g = bench_x_fig(x, "ns", pi_v_of(p, p->pair_ns), "pi.read_pair");
	bench_x_peer(g, "sched", pi_v_of(s, s->pair_ns));
	bench_x_peer(g, "urcu-memb", pi_v_of(u, u->pair_ns));
	g = bench_x_fig(x, "ms", pi_v_of(p, p->chain_gp_median_ms), "pi.chain_gp");
	bench_x_peer(g, "sched", pi_v_of(s, s->chain_gp_median_ms));
	bench_x_peer(g, "urcu-memb", pi_v_of(u, u->chain_gp_median_ms));
	bench_x_peer(g, BENCH_X_GOAL, bound);
}

static struct bench_xres *run(const struct bench_params *bp)
{
	struct bench_xres *x = bench_x_new(sc.name, sizeof(struct pi_priv), pi_print_detail,
					   pi_json_detail);
	struct pi_priv *pv = x->priv;
	struct pi_res *rs;
	char a[32], b[32];

	pv->hog_ms = bp->hog_ms > 0 ? bp->hog_ms : bp->quick ? QUICK_HOG_MS : DEF_HOG_MS;
	pv->unlocks = bp->quick ? 5 : MAX_UNLOCKS;
	pv->chain_reps = bp->quick ? 1 : MAX_CHAIN;
	pv->pairs = bp->quick ? 1000000ul : 10000000ul;
	pv->period_ms = bench_x_env_num("RCUBOOST_PERIOD_MS", 10);
	pv->elements = bench_x_env_num("RCUBOOST_ELEMENTS", 4);
	inv_params_default(&pv->prm);
	pv->prm.hog_ms = pv->hog_ms;
	pv->prm.hog_prio = HOG_PRIO;
	pv->prm.warmup_ms = bp->quick ? 100 : 200;
	pv->prm.tail_ms = bp->quick ? 100 : 200;

	if (inv_params_check(&pv->prm, x->why, sizeof(x->why)) != 0) {
		x->status = -EINVAL;
		return x;
	}
	if (bench_x_rt_check(x, RT_CHECK_PRIO) != 0)
		return x;
	pv->sh = bench_x_shared(x, sizeof(*pv->sh));
	if (!pv->sh)
		return x;
	rs = pv->sh->res;
	for (int k = 0; k < NCONF; k++) {
		struct pi_res *r = &rs[k];

		tool_progress("rcuboost-bench: pi [%d/%d] %s, hog %d ms: ", k + 1, NCONF,
			       pi_conf_name[k], pv->hog_ms);
		run_child(k, pv, r);
		if (r->na) {
			x->status = -EPERM;
			snprintf(x->why, sizeof(x->why), "%s", r->error);
			tool_progress(": n/a: %s\n", r->error);
			break;
		}
		x->failed |= !r->ok;
		tool_progress(": GP max %.1f ms, chain GP %.1f ms%s%s\n", pi_inv_v(r, 0),
			       r->chain_gp_median_ms, r->ok ? "" : ", FAILED: ", r->error);
	}
	if (!x->status) {
		add_figs(x, pv);
		bench_ratio_str(bench_x_ratio(pi_v_of(&rs[C_PI], rs[C_PI].unlock_boosted_ns),
					      pi_v_of(&rs[C_SCHED], rs[C_SCHED].unlock_boosted_ns)),
				a, sizeof(a));
		bench_ratio_str(bench_x_ratio(pi_v_of(&rs[C_PI], rs[C_PI].chain_gp_median_ms),
					      pi_v_of(&rs[C_SCHED], rs[C_SCHED].chain_gp_median_ms)),
				b, sizeof(b));
		snprintf(x->why, sizeof(x->why), "pi/sched: boosted unlock %s, chain grace period %s.",
			 a, b);
		pi_plot(x, pv);
	}
	/* The shared results stay mapped: the report reads them. */
	return x;
}

const struct bench_xscenario bench_x_pi = { &sc, run };
