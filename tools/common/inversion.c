/* SPDX-License-Identifier: MIT */
/*
 * The priority-inversion scenario (see inversion.h).
 *
 * Timeline of one run, all times on CLOCK_MONOTONIC:
 *
 *   0              the updater, the synchronize timer and the sampler
 *                  start on CPU 1 (SCHED_OTHER)
 *   warmup_ms      the hog starts on CPU 0, becomes SCHED_FIFO hog_prio
 *                  and sleeps on a futex ("armed"); the reader starts on
 *                  CPU 0, becomes SCHED_FIFO reader_prio, enters its
 *                  critical section and wakes the hog, which preempts it
 *                  at once; the reader then spins in the section until
 *                  it sees the hog started (that is: until the hog ends,
 *                  or until boosting raises the reader above the hog)
 *   + hog_ms       the hog stops by itself and restores its attributes
 *   + tail_ms      after the reader has left: the workload stops
 *
 * The reader wakes the hog itself, from inside its critical section, so
 * that no grace period can wait for it long enough to be boosted before
 * the hog runs: a reader boosted above the hog before the hog started
 * would keep the hog from ever starting.
 *
 * Hard time bounds of the real-time threads: the hog sleeps at most
 * ARM_TIMEOUT_MS for the reader, then spins at most hog_ms; the reader
 * spins at most READER_SPIN_MS waiting for a hog that is not there,
 * otherwise it runs only when the hog has ended or it is boosted.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "inversion.h"
#include "tool.h"

#define OBJ_LIVE 0x6c697665u /* "live" */
#define OBJ_DEAD 0xdeadu
#define ARM_TIMEOUT_MS 5000
#define READER_SPIN_MS 2000
#define START_TIMEOUT_MS 3000

struct inv_obj {
	_Atomic uint32_t magic;
	uint64_t seq;
	unsigned char data[];
};


/* ---------------------------------------------------------------- */
/* State of the one run in progress (inv_run() is not reentrant).     */
/* ---------------------------------------------------------------- */

static const struct inv_flavor_ops *ops;
static const struct inv_params *prm;

static _Atomic long n_queued, n_invoked, b_queued, b_freed;
static _Atomic long peak_n, peak_b;
static _Atomic long call_errors, violations;
static _Atomic bool stop;
/* The object readers see; replaced by the updater. */
static struct inv_obj *_Atomic current;

struct gp_timer {
	pthread_t thread;
	uint64_t *ns;
	size_t n, cap;
	bool oom;
	bool noprio;    /* could not become SCHED_FIFO sync_prio */
};

struct sampler {
	pthread_t thread;
	uint64_t *t_ns;
	long *n, *b, *lib;
	size_t count, cap;
};

struct hog {
	pthread_t thread;
	_Atomic int armed;   /* 1 armed, -errno: could not become real-time */
	_Atomic int go;      /* futex: set by the reader in its section */
	_Atomic int started;
	_Atomic int done;
	uint64_t t_start, t_end;
	bool restored;
};

struct reader {
	pthread_t thread;
	_Atomic int state;   /* 0 starting, 1 in section, 2 done, -errno */
	uint64_t t_enter, t_unlock; /* last instant in the section */
	bool saw_hog;
	bool restored;       /* attributes after unlock == before the section */
	bool back;           /* attributes at exit == at start */
};

static struct hog hog;
static struct reader rd;

/* ---------------------------------------------------------------- */

static int sattr_fifo(int prio)
{
	struct tool_sattr a = { .policy = SCHED_FIFO, .prio = (uint32_t)prio };

	return tool_sattr_set(&a);
}

/* Restore @orig and check it took. */
static bool sattr_restore(const struct tool_sattr *orig)
{
	struct tool_sattr now;

	return tool_sattr_set(orig) == 0 && tool_sattr_get(0, &now) == 0 &&
	       tool_sattr_same(orig, &now);
}

static void futex_wake_all(_Atomic int *uaddr)
{
	syscall(SYS_futex, (int *)uaddr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL,
		NULL, 0);
}

static void futex_wait_ns(_Atomic int *uaddr, int val, uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};

	syscall(SYS_futex, (int *)uaddr, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

__attribute__((format(printf, 1, 2))) static void progress(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!prm->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	prm->progress(prm->progress_arg, msg);
}

/*
 * Start @fn on @cpu only, as SCHED_OTHER whatever the caller runs at:
 * a thread never runs anywhere else, not even before it could pin
 * itself.
 */
static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg, int cpu)
{
	pthread_attr_t attr;
	int err;

	pthread_attr_init(&attr);
	err = tool_attr_pin(&attr, cpu);
	if (!err)
		err = tool_attr_sched(&attr, SCHED_OTHER, 0);
	if (!err)
		err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return -err;
}

/* ---------------------------------------------------------------- */
/* The workload on CPU 1.                                             */
/* ---------------------------------------------------------------- */

/* Called by the flavor on its callback thread, after a grace period. */
static void obj_freed(void *payload, size_t bytes)
{
	struct inv_obj *o = payload;

	atomic_store_explicit(&o->magic, OBJ_DEAD, memory_order_relaxed);
	atomic_fetch_add_explicit(&b_freed, (long)bytes, memory_order_relaxed);
	atomic_fetch_add_explicit(&n_invoked, 1, memory_order_relaxed);
}

static struct inv_obj *obj_make(uint64_t seq)
{
	size_t bytes = (size_t)prm->obj_bytes;
	struct inv_obj *o = ops->obj_new(bytes);

	if (!o)
		return NULL;
	o->seq = seq;
	memset(o->data, (int)(seq & 0xff),
	       bytes - INV_OBJ_OVERHEAD - sizeof(*o));
	atomic_store_explicit(&o->magic, OBJ_LIVE, memory_order_relaxed);
	return o;
}

static void retire(struct inv_obj *old)
{
	long n, b;

	/* Count first: the callback may run before obj_retire returns. */
	atomic_fetch_add_explicit(&b_queued, prm->obj_bytes,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&n_queued, 1, memory_order_relaxed);
	if (ops->obj_retire(old) != 0) {
		/* A reader may still hold it: leak it rather than free it. */
		atomic_fetch_sub_explicit(&n_queued, 1, memory_order_relaxed);
		atomic_fetch_sub_explicit(&b_queued, prm->obj_bytes,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&call_errors, 1,
					  memory_order_relaxed);
		return;
	}
	n = atomic_load_explicit(&n_queued, memory_order_relaxed) -
	    atomic_load_explicit(&n_invoked, memory_order_relaxed);
	b = atomic_load_explicit(&b_queued, memory_order_relaxed) -
	    atomic_load_explicit(&b_freed, memory_order_relaxed);
	if (n > atomic_load_explicit(&peak_n, memory_order_relaxed))
		atomic_store_explicit(&peak_n, n, memory_order_relaxed);
	if (b > atomic_load_explicit(&peak_b, memory_order_relaxed))
		atomic_store_explicit(&peak_b, b, memory_order_relaxed);
}

/* Replace the object every cb_period_us; retire the old one. */
static void *updater_main(void *arg)
{
	uint64_t next = tool_now_ns(), seq = 1;
	struct inv_obj *o;

	(void)arg;
	ops->register_thread();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		o = obj_make(++seq);
		if (o) {
			/* Publish (release: the object's contents are visible
			 * to a reader that loads it), take the old one. */
			o = atomic_exchange_explicit(&current, o,
						     memory_order_acq_rel);
			if (o)
				retire(o);
		} else {
			atomic_fetch_add_explicit(&call_errors, 1,
						  memory_order_relaxed);
		}
		next += (uint64_t)prm->cb_period_us * 1000;
		tool_sleep_until(next);
	}
	o = atomic_exchange_explicit(&current, NULL, memory_order_acq_rel);
	if (o)
		retire(o);
	ops->unregister_thread();
	return NULL;
}

/* Time the flavor's synchronize in a loop. */
static void *gp_timer_main(void *arg)
{
	struct gp_timer *g = arg;
	struct tool_sattr other = { .policy = SCHED_OTHER };

	/* Real-time only while the run lasts: it sleeps between calls. */
	g->noprio = prm->sync_prio && sattr_fifo(prm->sync_prio) != 0;
	while (!g->noprio &&
	       !atomic_load_explicit(&stop, memory_order_relaxed)) {
		uint64_t t0 = tool_now_ns();

		ops->synchronize();
		if (g->n == g->cap) {
			size_t cap = g->cap ? 2 * g->cap : 4096;
			uint64_t *ns = realloc(g->ns, cap * sizeof(*ns));

			if (!ns) {
				g->oom = true;
				break;
			}
			g->ns = ns;
			g->cap = cap;
		}
		g->ns[g->n++] = tool_now_ns() - t0;
		if (prm->sync_pause_us)
			tool_sleep_ns((uint64_t)prm->sync_pause_us * 1000);
	}
	tool_sattr_set(&other);
	return NULL;
}

static void *sampler_main(void *arg)
{
	struct sampler *s = arg;
	uint64_t next = tool_now_ns();

	while (!atomic_load_explicit(&stop, memory_order_relaxed) &&
	       s->count < s->cap) {
		size_t i = s->count;

		s->t_ns[i] = tool_now_ns();
		s->n[i] =
			atomic_load_explicit(&n_queued, memory_order_relaxed) -
			atomic_load_explicit(&n_invoked, memory_order_relaxed);
		s->b[i] =
			atomic_load_explicit(&b_queued, memory_order_relaxed) -
			atomic_load_explicit(&b_freed, memory_order_relaxed);
		s->lib[i] = -1;
		if (ops->lib_backlog) {
			struct inv_lib_backlog lb;

			ops->lib_backlog(&lb);
			s->lib[i] = (long)lb.callbacks;
		}
		s->count++;
		next += (uint64_t)prm->sample_ms * 1000000;
		tool_sleep_until(next);
	}
	return NULL;
}

/* ---------------------------------------------------------------- */
/* The real-time pair on CPU 0.                                       */
/* ---------------------------------------------------------------- */

static void *hog_main(void *arg)
{
	struct tool_sattr orig;
	uint64_t deadline, t;
	int err;

	(void)arg;
	err = tool_sattr_get(0, &orig);
	if (!err)
		err = sattr_fifo(prm->hog_prio);
	if (err) {
		atomic_store(&hog.armed, err);
		atomic_store(&hog.done, 1);
		return NULL;
	}
	atomic_store(&hog.armed, 1);
	/* Sleep (not spin) until the reader, in its section, wakes us. */
	deadline = tool_now_ns() + (uint64_t)ARM_TIMEOUT_MS * 1000000;
	while (!atomic_load(&hog.go) && (t = tool_now_ns()) < deadline)
		futex_wait_ns(&hog.go, 0, deadline - t);
	if (atomic_load(&hog.go)) {
		hog.t_start = tool_now_ns();
		atomic_store(&hog.started, 1);
		/* The hard bound: the clock, whatever else happens. */
		deadline = hog.t_start + (uint64_t)prm->hog_ms * 1000000;
		while ((t = tool_now_ns()) < deadline)
			;
		hog.t_end = t;
	}
	hog.restored = sattr_restore(&orig);
	atomic_store(&hog.done, 1);
	return NULL;
}

static void *reader_main(void *arg)
{
	struct tool_sattr orig, before, after;
	struct inv_obj *o;
	uint64_t deadline;
	int err;

	(void)arg;
	err = tool_sattr_get(0, &orig);
	if (!err)
		err = sattr_fifo(prm->reader_prio);
	if (!err)
		err = tool_sattr_get(0, &before);
	if (!err)
		err = ops->register_thread();
	if (err) {
		rd.back = sattr_restore(&orig);
		atomic_store(&rd.state, err);
		return NULL;
	}
	ops->read_lock();
	o = atomic_load_explicit(&current, memory_order_acquire);
	rd.t_enter = tool_now_ns();
	atomic_store(&rd.state, 1);
	/* Wake the hog: same CPU, higher priority, it preempts us here,
	 * inside the critical section. */
	atomic_store(&hog.go, 1);
	futex_wake_all(&hog.go);
	deadline = tool_now_ns() + (uint64_t)READER_SPIN_MS * 1000000;
	while (!atomic_load(&hog.started) && tool_now_ns() < deadline)
		;
	rd.saw_hog = atomic_load(&hog.started);
	/* Every object retired during the section must still be alive. */
	if (o &&
	    atomic_load_explicit(&o->magic, memory_order_relaxed) != OBJ_LIVE)
		atomic_fetch_add(&violations, 1);
	/* Time it before the unlock: an unlock that unboosts lets the hog
	 * preempt us again at once, until it ends. */
	rd.t_unlock = tool_now_ns();
	ops->read_unlock();
	rd.restored = tool_sattr_get(0, &after) == 0 &&
		      tool_sattr_same(&before, &after);
	ops->unregister_thread();
	rd.back = sattr_restore(&orig);
	atomic_store(&rd.state, 2);
	return NULL;
}

/* ---------------------------------------------------------------- */

void inv_params_default(struct inv_params *p)
{
	memset(p, 0, sizeof(*p));
	p->hog_ms = 3000;
	p->hog_prio = 40;
	p->reader_prio = 10;
	p->cb_period_us = 1000;
	p->obj_bytes = 4096;
	p->sync_pause_us = 1000;
	p->warmup_ms = 500;
	p->tail_ms = 1000;
	p->sample_ms = 10;
}

int inv_params_check(const struct inv_params *p, char *why, size_t len)
{
	const char *bad = NULL;
	int pmax = sched_get_priority_max(SCHED_FIFO);

	if (p->hog_ms < 1 || p->hog_ms > INV_HOG_MS_MAX)
		bad = "hog_ms must be 1..10000";
	else if (p->reader_prio < 1 || p->hog_prio > pmax - 1)
		bad = "priorities must be 1..98";
	else if (p->reader_prio >= p->hog_prio)
		bad = "the reader's priority must be below the hog's";
	else if (p->cb_period_us < 10 || p->cb_period_us > 1000000)
		bad = "cb_period_us must be 10..1000000";
	else if (p->obj_bytes < 256 || p->obj_bytes > (1 << 24))
		bad = "obj_bytes must be 256..16777216";
	else if (p->sync_pause_us < 0 || p->sync_pause_us > 1000000)
		bad = "sync_pause_us must be 0..1000000";
	else if (p->warmup_ms < 0 || p->warmup_ms > 60000 || p->tail_ms < 0 ||
		 p->tail_ms > 60000)
		bad = "warmup_ms and tail_ms must be 0..60000";
	else if (p->sample_ms < 1 || p->sample_ms > 1000)
		bad = "sample_ms must be 1..1000";
	if (!bad)
		return 0;
	snprintf(why, len, "%s", bad);
	return -EINVAL;
}

struct rt_probe {
	int prio;
	int err;
};

static void *rt_probe_main(void *arg)
{
	struct rt_probe *pr = arg;
	struct tool_sattr orig;

	pr->err = tool_sattr_get(0, &orig);
	if (!pr->err)
		pr->err = sattr_fifo(pr->prio);
	if (!pr->err && !sattr_restore(&orig))
		pr->err = -EPERM;
	return NULL;
}

int inv_rt_check(const struct inv_params *p, char *why, size_t len)
{
	struct rt_probe pr = { .prio = p->hog_prio > p->reader_prio ?
				       p->hog_prio : p->reader_prio };
	cpu_set_t set;
	pthread_t t;
	int err;

	if (sched_getaffinity(0, sizeof(set), &set) != 0 ||
	    !CPU_ISSET(INV_RT_CPU, &set) || !CPU_ISSET(INV_OTHER_CPU, &set) ||
	    sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		snprintf(why, len,
			 "the scenario needs CPUs %d and %d (the reader and the hog on one, "
			 "everything else on the other); this process may use %d CPU(s).",
			 INV_RT_CPU, INV_OTHER_CPU, CPU_COUNT(&set));
		return -ENODEV;
	}
	err = start_thread(&t, rt_probe_main, &pr, INV_OTHER_CPU);
	if (err) {
		snprintf(why, len, "cannot start a thread: %s", strerror(-err));
		return err;
	}
	pthread_join(t, NULL);
	if (pr.err) {
		snprintf(why, len,
			 "no permission for SCHED_FIFO priority %d (%s). Run as root, or give the "
			 "program CAP_SYS_NICE (setcap cap_sys_nice+ep), or raise RLIMIT_RTPRIO "
			 "to at least 50, the booster's priority (ulimit -r 50; \"rtprio 50\" in "
			 "/etc/security/limits.conf), in a cgroup that grants real-time runtime.",
			 pr.prio, strerror(-pr.err));
		return -EPERM;
	}
	return 0;
}

/* Threads of this process, other than the caller, that may run on CPU 0. */
static int count_cpu0_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	pid_t self = (pid_t)syscall(SYS_gettid);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		cpu_set_t set;

		if (tid <= 0 || tid == self)
			continue;
		if (sched_getaffinity(tid, sizeof(set), &set) == 0 &&
		    CPU_ISSET(INV_RT_CPU, &set))
			n++;
	}
	closedir(d);
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* @b - @a for the counters (RCB_STAT_COUNT in include/rcuboost.h's
 * list); the rest (state, priority, index, maxima, the running boosters'
 * CPU time) from @b. */
#define INV_DELTA(type, name, kind) \
	if (kind == RCB_STAT_COUNT) \
		d->name -= a->name;
static void boost_delta(struct rcb_boost_stats *d,
			const struct rcb_boost_stats *a,
			const struct rcb_boost_stats *b)
{
	*d = *b;
	RCB_BOOST_STATS_ARTICLE(INV_DELTA)
	for (size_t e = 0; e < sizeof(d->stats) / sizeof(d->stats[0]); e++)
		for (size_t s = 0;
		     s < sizeof(d->stats[0]) / sizeof(d->stats[0][0]); s++)
			d->stats[e][s] -= a->stats[e][s];
	RCB_BOOST_STATS_MORE(INV_DELTA)
}
#undef INV_DELTA

#define FAIL(res, ...) snprintf((res)->error, sizeof((res)->error), __VA_ARGS__)

int inv_run(const struct inv_flavor_ops *fl, const struct inv_params *p,
	    struct inv_result *res)
{
	struct rcb_boost_stats bs0 = { .size = sizeof(bs0) },
			       bs1 = { .size = sizeof(bs1) };
	struct gp_timer gt = { 0 };
	struct sampler sm = { 0 };
	bool up_on = false, gt_on = false, sm_on = false, hog_on = false,
	     rd_on = false;
	pthread_t up;
	cpu_set_t caller, one;
	struct inv_obj *first;
	uint64_t t_hog = 0;
	int err;

	memset(res, 0, sizeof(*res));
	snprintf(res->name, sizeof(res->name), "%s", fl->name);
	snprintf(res->library, sizeof(res->library), "%s", fl->library);
	err = inv_params_check(p, res->error, sizeof(res->error));
	if (err)
		return err;
	ops = fl;
	prm = p;
	atomic_store(&n_queued, 0);
	atomic_store(&n_invoked, 0);
	atomic_store(&b_queued, 0);
	atomic_store(&b_freed, 0);
	atomic_store(&peak_n, 0);
	atomic_store(&peak_b, 0);
	atomic_store(&call_errors, 0);
	atomic_store(&violations, 0);
	atomic_store(&stop, false);
	atomic_store(&current, NULL);
	memset(&hog, 0, sizeof(hog));
	memset(&rd, 0, sizeof(rd));

	/* Everything this thread starts from now on, the library's own
	 * threads included, inherits CPU 1. */
	if (sched_getaffinity(0, sizeof(caller), &caller) != 0)
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(INV_OTHER_CPU, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0) {
		err = -errno;
		FAIL(res, "cannot run on CPU %d: %s", INV_OTHER_CPU, strerror(errno));
		return err;
	}
	err = fl->init_cfg && fl->config ? fl->init_cfg(fl->config, obj_freed) :
					   fl->init(obj_freed);
	if (err) {
		FAIL(res, "%s: initialisation failed: %s", fl->library, strerror(-err));
		sched_setaffinity(0, sizeof(caller), &caller);
		return err;
	}
	if (fl->lib_backlog_reset_peak)
		fl->lib_backlog_reset_peak();
	if (fl->boost_stats)
		res->have_boost_stats = fl->boost_stats(&bs0) == 0;

	sm.cap = (size_t)(p->warmup_ms + p->hog_ms + p->tail_ms + 10000) /
		 (size_t)p->sample_ms + 16;
	sm.t_ns = calloc(sm.cap, sizeof(*sm.t_ns));
	sm.n = calloc(sm.cap, sizeof(*sm.n));
	sm.b = calloc(sm.cap, sizeof(*sm.b));
	sm.lib = calloc(sm.cap, sizeof(*sm.lib));
	first = obj_make(1);
	if (!sm.t_ns || !sm.n || !sm.b || !sm.lib || !first) {
		err = -ENOMEM;
		FAIL(res, "out of memory");
		goto out;
	}
	atomic_store_explicit(&current, first, memory_order_release);

	progress("%s: warm-up %d ms (updater and synchronize loop on CPU %d)",
		 fl->name, p->warmup_ms, INV_OTHER_CPU);
	if ((err = start_thread(&sm.thread, sampler_main, &sm,
				INV_OTHER_CPU)) == 0)
		sm_on = true;
	if (!err &&
	    (err = start_thread(&up, updater_main, NULL, INV_OTHER_CPU)) == 0)
		up_on = true;
	if (!err && (err = start_thread(&gt.thread, gp_timer_main, &gt,
					INV_OTHER_CPU)) == 0)
		gt_on = true;
	if (err) {
		FAIL(res, "cannot start a thread: %s", strerror(-err));
		goto out;
	}
	tool_sleep_ns((uint64_t)p->warmup_ms * 1000000);
	res->cpu0_threads = count_cpu0_threads();

	if ((err = start_thread(&hog.thread, hog_main, NULL, INV_RT_CPU)) !=
	    0) {
		FAIL(res, "cannot start the hog: %s", strerror(-err));
		goto out;
	}
	hog_on = true;
	err = tool_wait_flag(&hog.armed, START_TIMEOUT_MS);
	if (err != 1) {
		FAIL(res, "the hog could not become SCHED_FIFO %d: %s", p->hog_prio,
		     err ? strerror(-err) : "timed out");
		err = err ? err : -ETIMEDOUT;
		goto out;
	}
	if ((err = start_thread(&rd.thread, reader_main, NULL, INV_RT_CPU)) !=
	    0) {
		FAIL(res, "cannot start the reader: %s", strerror(-err));
		goto out;
	}
	rd_on = true;
	err = tool_wait_flag(&hog.started, START_TIMEOUT_MS);
	if (!err) {
		err = atomic_load(&rd.state);
		FAIL(res, "the reader did not start the hog: %s",
		     err < 0 ? strerror(-err) : "timed out");
		err = err < 0 ? err : -ETIMEDOUT;
		goto out;
	}
	t_hog = hog.t_start;
	progress("%s: reader (SCHED_FIFO %d) preempted in its critical section by the "
		 "hog (SCHED_FIFO %d) on CPU %d for %d ms",
		 fl->name, p->reader_prio, p->hog_prio, INV_RT_CPU, p->hog_ms);
	if (p->hook) {
		tool_sleep_until(t_hog + (uint64_t)p->hook_ms * 1000000);
		if (!atomic_load(&hog.done)) {
			p->hook(p->hook_arg);
			res->hook_ran_ms =
				((double)tool_now_ns() - (double)t_hog) / 1e6;
		}
	}
	/* Both end by themselves: the hog after hog_ms, the reader when
	 * it runs again. */
	pthread_join(hog.thread, NULL);
	hog_on = false;
	pthread_join(rd.thread, NULL);
	rd_on = false;
	progress("%s: reader left its section %.1f ms after the hog started; "
		 "tail %d ms", fl->name, ((double)rd.t_unlock - (double)t_hog) / 1e6,
		 p->tail_ms);
	tool_sleep_ns((uint64_t)p->tail_ms * 1000000);
	err = 0;
out:
	atomic_store(&stop, true);
	if (hog_on)
		pthread_join(hog.thread, NULL);
	if (rd_on)
		pthread_join(rd.thread, NULL);
	if (up_on)
		pthread_join(up, NULL);
	if (gt_on)
		pthread_join(gt.thread, NULL);
	if (sm_on)
		pthread_join(sm.thread, NULL);
	/* The updater retires the last object when it stops; without an
	 * updater, the first one is retired here (no reader ever saw it). */
	first = atomic_exchange(&current, NULL);
	if (first) {
		fl->register_thread();
		retire(first);
		fl->unregister_thread();
	}
	fl->barrier();
	if (fl->lib_backlog) {
		res->have_lib_backlog = 1;
		fl->lib_backlog(&res->lib);
	}
	if (res->have_boost_stats && fl->boost_stats(&bs1) == 0) {
		boost_delta(&res->bs, &bs0, &bs1);
		rcb_boost_stats_format(&res->bs, res->boost_stats_text,
				       sizeof(res->boost_stats_text), 0);
	} else {
		res->have_boost_stats = 0;
	}
	fl->fini();
	sched_setaffinity(0, sizeof(caller), &caller);

	res->queued = atomic_load(&n_queued);
	res->invoked = atomic_load(&n_invoked);
	res->call_errors = atomic_load(&call_errors);
	res->peak_backlog = atomic_load(&peak_n);
	res->peak_backlog_bytes = atomic_load(&peak_b);
	res->rcu_violations = atomic_load(&violations);
	res->gp_count = (long)gt.n;
	if (gt.n) {
		qsort(gt.ns, gt.n, sizeof(gt.ns[0]), cmp_u64);
		res->gp_max_ms = (double)gt.ns[gt.n - 1] / 1e6;
		res->gp_p99_ms =
			(double)gt.ns[(gt.n * 99 + 99) / 100 - 1] / 1e6;
		res->gp_median_ms = (double)gt.ns[(gt.n - 1) / 2] / 1e6;
	}
	if (t_hog) {
		res->hog_ms = (double)(hog.t_end - hog.t_start) / 1e6;
		res->reader_held_ms =
			((double)rd.t_unlock - (double)t_hog) / 1e6;
		res->reader_restored = rd.restored;
		res->threads_restored = rd.back && hog.restored;
		res->series =
			calloc(sm.count ? sm.count : 1, sizeof(*res->series));
		if (res->series) {
			for (size_t i = 0; i < sm.count; i++) {
				res->series[i].t_ms =
					((double)sm.t_ns[i] - (double)t_hog) /
					1e6;
				res->series[i].backlog = sm.n[i];
				res->series[i].backlog_bytes = sm.b[i];
				res->series[i].lib_backlog = sm.lib[i];
			}
			res->nseries = sm.count;
		}
	}
	free(gt.ns);
	free(sm.t_ns);
	free(sm.n);
	free(sm.b);
	free(sm.lib);
	if (err)
		return err;

	if (gt.oom)
		FAIL(res, "out of memory for grace-period times");
	else if (gt.noprio)
		FAIL(res, "the synchronize loop could not become SCHED_FIFO %d",
		     p->sync_prio);
	else if (!res->series)
		FAIL(res, "out of memory for the backlog series");
	else if (!rd.saw_hog)
		FAIL(res, "the reader ran on in its section for %d ms without the hog "
			  "starting: the hog did not get CPU %d (was the reader boosted "
			  "early, another real-time task holding CPU %d?)",
		     READER_SPIN_MS, INV_RT_CPU, INV_RT_CPU);
	else if (!res->reader_restored)
		FAIL(res, "the reader's scheduling attributes after its critical section "
			  "differ from those before it (a boost was left behind)");
	else if (!res->threads_restored)
		FAIL(res, "a real-time thread could not restore its scheduling attributes");
	else if (res->rcu_violations)
		FAIL(res, "the reader's object was freed inside its critical section");
	else if (res->call_errors)
		FAIL(res, "%ld objects could not be allocated or retired", res->call_errors);
	else if (res->queued != res->invoked)
		FAIL(res, "%ld callbacks queued, %ld invoked after the barrier",
		     res->queued, res->invoked);
	else if (res->cpu0_threads)
		FAIL(res, "%d other thread(s) were allowed on CPU %d during the run",
		     res->cpu0_threads, INV_RT_CPU);
	else
		res->ok = 1;
	return 0;
}

void inv_result_free(struct inv_result *res)
{
	free(res->series);
	res->series = NULL;
	res->nseries = 0;
}

static const char *watchdog_prog = "rcuboost";

static void watchdog_fired(int sig)
{
	static const char msg[] =
		": watchdog: the inversion scenario hung; killing the process\n";
	ssize_t n = write(2, watchdog_prog, strlen(watchdog_prog));

	n = write(2, msg, sizeof(msg) - 1);
	(void)n;
	signal(sig, SIG_DFL);
	raise(sig);
}

void inv_watchdog(const char *prog, unsigned int seconds)
{
	struct sigaction sa;

	watchdog_prog = prog;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watchdog_fired;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm(seconds);
}

void inv_watchdog_off(void)
{
	alarm(0);
	signal(SIGALRM, SIG_DFL);
}
