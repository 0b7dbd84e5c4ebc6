/*
 * Soak: every public call at once, from many threads, for a bounded time.
 *
 * Each soak thread draws its operations from its own generator, seeded
 * from --seed and its index, so a seed reruns the same sequence of
 * operations in every thread (their interleaving is the scheduler's).
 * The main thread shuts the library down and initialises it again every
 * --reinit-ms while the soak threads wait between operations.
 *
 * What is checked, as it happens:
 *  - readers never see a retired object (replace-and-retire through
 *    rcb_call() and rcb_call_sized() on shared slots);
 *  - every callback and deferred function runs exactly once (a state
 *    word each; totals compared at each shutdown and at the end);
 *  - rcb_barrier() waits for the calling thread's callbacks queued
 *    before it, rcb_defer_barrier_thread() and rcb_defer_barrier() for
 *    the deferred functions queued before them;
 *  - rcb_shutdown() runs every queued callback;
 *  - every polled cookie elapses without the soak asking for a grace
 *    period, within a generous bound;
 *  - a soak thread outside its read-side critical sections runs with
 *    exactly the scheduling attributes it started with (no thread left
 *    boosted; some sections sleep so that the booster boosts them);
 *  - a forked child can queue a callback, wait for it and synchronize
 *    (forks from the soak threads, amid everything else; in an ASan build
 *    from the main thread's quiet phase only, after the barriers: gcc
 *    12's ASan allocator has no fork handler, and a child whose parent
 *    had another thread inside it deadlocks in the allocator at its
 *    first new thread, whatever the library does; none under TSan);
 *  - the qsbr domain beside it: soak threads are online in it and pass a
 *    quiescent state after every operation (offline while they wait
 *    between operations, and in their own offline periods); their qsbr
 *    readers never see an object retired through rcb_qsbr_call(), every
 *    qsbr callback runs exactly once, rcb_qsbr_barrier() waits for the
 *    calling thread's earlier ones;
 *  - no misuse report.
 * Exit 0 with a summary line, 1 on the first failure (naming the seed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "rcuboost/qsbr.h"

#define NSLOTS 8
#define MAX_THREADS 16
#define NCOOKIES 8
#define LIVE 0x4c495645u
#define DEAD 0xdeadbeefu
/* Generous bounds: sanitizer builds on a loaded 2-CPU machine. */
#define COOKIE_BOUND_S 20.0

enum { ST_LIVE = 1, ST_QUEUED, ST_RAN };

#define SOAK_OPS(X)                                                        \
	X(read, 400)                                                       \
	X(read_sleep, 6)                                                   \
	X(update_call, 120)                                                \
	X(update_sized, 40)                                                \
	X(barrier, 6)                                                      \
	X(synchronize, 20)                                                 \
	X(expedited, 10)                                                   \
	X(defer, 80)                                                       \
	X(defer_barrier_thread, 4)                                         \
	X(defer_barrier, 2)                                                \
	X(poll_start, 30)                                                  \
	X(poll_check, 30)                                                  \
	X(cond_synchronize, 10)                                            \
	X(worker, 4)                                                       \
	X(reregister, 4)                                                   \
	X(spawn, 2)                                                        \
	X(fork, 1)                                                         \
	X(qsbr_read, 200)                                                  \
	X(qsbr_update, 60)                                                 \
	X(qsbr_synchronize, 10)                                            \
	X(qsbr_barrier, 4)                                                 \
	X(qsbr_offline, 10)

#define OP_ENUM(name, w) OP_##name,
enum { SOAK_OPS(OP_ENUM) OP_N };
#define OP_NAME(name, w) #name,
static const char *const op_names[] = { SOAK_OPS(OP_NAME) };
#define OP_WEIGHT(name, w) w,
static const unsigned int op_weights[] = { SOAK_OPS(OP_WEIGHT) };

struct soak_thread {
	int idx;
	pthread_t th;
	uint64_t rng;
	pid_t tid;
	/* Queued by this thread; run by callbacks and deferred functions. */
	atomic_ullong calls_queued, calls_run, defers_queued, defers_run;
	atomic_ullong qcalls_queued, qcalls_run;
	struct rcb_worker *worker;
	bool worker_is_mine; /* set as this thread's worker */
	uint64_t cookie[NCOOKIES];
	double cookie_t[NCOOKIES];
	int ncookies;
	struct sched_param orig_param;
	int orig_policy, orig_nice;
	unsigned long long ops[OP_N];
};

struct obj {
	struct rcb_head_sized hs;
	atomic_int state;
	_Atomic unsigned int magic;
	struct soak_thread *owner;
	unsigned long payload[4];
};

struct dent {
	atomic_int state;
	struct soak_thread *owner;
};

static struct soak_thread threads[MAX_THREADS];
static int nthreads = 4;
static double seconds = 10.0;
static unsigned int reinit_ms = 1000;
static uint64_t seed;
static bool fork_on = true;
#if defined(__SANITIZE_ADDRESS__)
static const bool fork_quiet = true; /* see the top of the file */
#else
static const bool fork_quiet = false;
#endif
static struct rcb_config cfg;

static _Atomic(struct obj *) slots[NSLOTS];
static atomic_ullong calls_queued, calls_run, defers_queued, defers_run;
/* The qsbr domain's slots and counts. */
static _Atomic(struct obj *) qslots[NSLOTS];
static atomic_ullong qcalls_queued, qcalls_run;
static atomic_ullong reinits, forks;
static atomic_int stop;
static pthread_rwlock_t phase;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((format(printf, 1, 2))) static void fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	n = snprintf(msg, sizeof(msg), "soak: FAIL (seed %" PRIu64 "): ", seed);
	va_start(ap, fmt);
	n += vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(msg) - 2)
		n = (int)sizeof(msg) - 2;
	msg[n++] = '\n';
	if (write(2, msg, (size_t)n) < 0)
		_exit(1);
	_exit(1);
}

#define REQUIRE(expr)                                                      \
	do {                                                               \
		if (!(expr))                                               \
			fail("%s:%d: %s", __FILE__, __LINE__, #expr);      \
	} while (0)

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned int rnd(struct soak_thread *me, unsigned int n)
{
	return (unsigned int)(splitmix(&me->rng) % n);
}

/* ---- objects ---------------------------------------------------------- */

static struct obj *obj_new(void)
{
	struct obj *o = calloc(1, sizeof(*o));

	REQUIRE(o != NULL);
	atomic_store(&o->state, ST_LIVE);
	atomic_store(&o->magic, LIVE);
	return o;
}

static void obj_cb(struct rcb_head *h)
{
	struct obj *o =
		(struct obj *)((char *)h - offsetof(struct obj, hs.head));
	int st = atomic_exchange(&o->state, ST_RAN);

	if (st != ST_QUEUED)
		fail("a callback ran on an object in state %d (ran twice, or never queued)", st);
	atomic_store(&o->magic, DEAD);
	atomic_fetch_add(&o->owner->calls_run, 1);
	atomic_fetch_add(&calls_run, 1);
	free(o);
}

/* Queue @o (retired by the caller) with rcb_call() or rcb_call_sized(). */
static void retire(struct soak_thread *me, struct obj *o, bool sized)
{
	int st = atomic_exchange(&o->state, ST_QUEUED);

	if (st != ST_LIVE)
		fail("retiring an object in state %d", st);
	o->owner = me;
	if (sized)
		REQUIRE(rcb_call_sized(&o->hs, obj_cb, sizeof(*o)) == 0);
	else
		REQUIRE(rcb_call(&o->hs.head, obj_cb) == 0);
	atomic_fetch_add(&me->calls_queued, 1);
	atomic_fetch_add(&calls_queued, 1);
}

static void qobj_cb(struct rcb_head *h)
{
	struct obj *o =
		(struct obj *)((char *)h - offsetof(struct obj, hs.head));
	int st = atomic_exchange(&o->state, ST_RAN);

	if (st != ST_QUEUED)
		fail("a qsbr callback ran on an object in state %d (ran twice, or never queued)", st);
	atomic_store(&o->magic, DEAD);
	atomic_fetch_add(&o->owner->qcalls_run, 1);
	atomic_fetch_add(&qcalls_run, 1);
	free(o);
}

/* Queue @o (retired by the caller) with rcb_qsbr_call(). */
static void qretire(struct soak_thread *me, struct obj *o)
{
	int st = atomic_exchange(&o->state, ST_QUEUED);

	if (st != ST_LIVE)
		fail("retiring a qsbr object in state %d", st);
	o->owner = me;
	REQUIRE(rcb_qsbr_call(&o->hs.head, qobj_cb) == 0);
	atomic_fetch_add(&me->qcalls_queued, 1);
	atomic_fetch_add(&qcalls_queued, 1);
}

static void dent_fn(void *p)
{
	struct dent *d = p;
	int st = atomic_exchange(&d->state, ST_RAN);

	if (st != ST_QUEUED)
		fail("a deferred function ran on an entry in state %d (ran twice?)", st);
	atomic_fetch_add(&d->owner->defers_run, 1);
	atomic_fetch_add(&defers_run, 1);
	free(d);
}

/* ---- checks ----------------------------------------------------------- */

static void read_slots(struct soak_thread *me, bool nest)
{
	rcb_read_lock();
	for (int k = 0; k < 3; k++) {
		struct obj *o = atomic_load_explicit(&slots[rnd(me, NSLOTS)],
						     memory_order_acquire);
		unsigned int m =
			atomic_load_explicit(&o->magic, memory_order_relaxed);

		if (m != LIVE)
			fail("a reader saw a retired object (magic %#x)", m);
		if (nest && k == 1) {
			rcb_read_lock();
			m = atomic_load_explicit(&o->magic,
						 memory_order_relaxed);
			if (m != LIVE)
				fail("a nested reader saw a retired object (magic %#x)", m);
			rcb_read_unlock();
		}
	}
	rcb_read_unlock();
}

/* Online in the qsbr domain: its objects stay until our next quiescent
 * state. */
static void qread_slots(struct soak_thread *me)
{
	rcb_qsbr_read_lock();
	for (int k = 0; k < 3; k++) {
		struct obj *o = atomic_load_explicit(&qslots[rnd(me, NSLOTS)],
						     memory_order_acquire);
		unsigned int m =
			atomic_load_explicit(&o->magic, memory_order_relaxed);

		if (m != LIVE)
			fail("a qsbr reader saw a retired object (magic %#x)", m);
	}
	rcb_qsbr_read_unlock();
}

/* Outside its sections a thread runs with its own attributes. */
static void check_unboosted(struct soak_thread *me)
{
	struct sched_param p;
	int policy = sched_getscheduler(0);

	REQUIRE(sched_getparam(0, &p) == 0);
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);

	REQUIRE(errno == 0);
	if (policy != me->orig_policy ||
	    p.sched_priority != me->orig_param.sched_priority ||
	    nice != me->orig_nice)
		fail("thread %d left boosted: policy %d prio %d nice %d, started %d/%d/%d", me->idx,
		     policy, p.sched_priority, nice, me->orig_policy,
		     me->orig_param.sched_priority, me->orig_nice);
}

static void cookie_wait_oldest(struct soak_thread *me, bool block)
{
	double t0 = me->cookie_t[0];

	for (;;) {
		int r = rcb_poll_state(me->cookie[0]);

		REQUIRE(r >= 0);
		if (r == 1)
			break;
		if (now() - t0 > COOKIE_BOUND_S)
			fail("cookie %" PRIu64 " (thread %d) has not elapsed %.0f s after "
			     "rcb_start_poll()",
			     me->cookie[0], me->idx, COOKIE_BOUND_S);
		if (!block)
			return;
		usleep(1000);
	}
	me->ncookies--;
	memmove(me->cookie, me->cookie + 1,
		sizeof(me->cookie[0]) * (size_t)me->ncookies);
	memmove(me->cookie_t, me->cookie_t + 1,
		sizeof(me->cookie_t[0]) * (size_t)me->ncookies);
}

/* ---- operations ------------------------------------------------------- */

static void *spawned(void *arg)
{
	struct soak_thread *me = arg;
	struct obj *o = obj_new();

	read_slots(me, false);
	/* Not an update of a slot: its own object, retired at once. */
	retire(me, o, false);
	read_slots(me, true);
	return NULL; /* unregistered by its exit */
}

static void op_worker(struct soak_thread *me)
{
	if (!me->worker) {
		REQUIRE(rcb_worker_create(NULL, &me->worker) == 0);
		REQUIRE(rcb_worker_set_thread(me->worker) == 0);
		me->worker_is_mine = true;
		if (rnd(me, 2)) {
			int e = rcb_worker_assign_cpu(me->worker,
							(int)rnd(me, 2));

			REQUIRE(e == 0 || e == -EEXIST);
		}
	} else if (rnd(me, 2)) {
		if (me->worker_is_mine)
			REQUIRE(rcb_worker_set_thread(NULL) == 0);
		REQUIRE(rcb_worker_destroy(me->worker) == 0);
		me->worker = NULL;
		me->worker_is_mine = false;
	} else {
		REQUIRE(rcb_worker_set_thread(
				me->worker_is_mine ? NULL : me->worker) == 0);
		me->worker_is_mine = !me->worker_is_mine;
	}
}

/* In the child: the library works (its threads are restarted). */
static void op_fork(void)
{
	pid_t pid;
	int status;

	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		struct soak_thread kid = { .idx = -1 };
		struct obj *o = obj_new();
		uint64_t c;

		alarm(60);
		retire(&kid, o, false);
		if (rcb_barrier() != 0 || atomic_load(&kid.calls_run) != 1)
			fail("in a forked child: rcb_barrier() did not wait for the child's callback");
		if (rcb_synchronize() != 0)
			fail("in a forked child: rcb_synchronize() failed");
		if (rcb_qsbr_synchronize() != 0 || rcb_qsbr_barrier() != 0)
			fail("in a forked child: the qsbr domain's synchronize or barrier failed");
		c = rcb_start_poll();
		if (rcb_cond_synchronize(c) != 0 || rcb_poll_state(c) != 1)
			fail("in a forked child: a cookie did not elapse after rcb_cond_synchronize()");
		_exit(0);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("a forked child failed (status %#x)", status);
	atomic_fetch_add(&forks, 1);
}

static void run_op(struct soak_thread *me, int op)
{
	struct timespec ts;
	unsigned long long snap;
	int slot;

	switch (op) {
	case OP_read:
		read_slots(me, rnd(me, 4) == 0);
		break;
	case OP_read_sleep:
		/* Blocked inside a section: a candidate for boosting while
		 * another thread's grace period waits. */
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(1 + rnd(me, 30)) * 1000000L;
		rcb_read_lock();
		rcb_nanosleep(&ts, NULL);
		rcb_read_unlock();
		break;
	case OP_update_call:
	case OP_update_sized:
		slot = (int)rnd(me, NSLOTS);
		retire(me,
		       atomic_exchange_explicit(&slots[slot], obj_new(),
						memory_order_acq_rel),
		       op == OP_update_sized);
		break;
	case OP_barrier:
		snap = atomic_load(&me->calls_queued);
		REQUIRE(rcb_barrier() == 0);
		if (atomic_load(&me->calls_run) < snap)
			fail("rcb_barrier() returned with %llu of thread %d's %llu earlier "
			     "callbacks not run",
			     snap - atomic_load(&me->calls_run), me->idx, snap);
		break;
	case OP_synchronize:
		REQUIRE(rcb_synchronize() == 0);
		break;
	case OP_expedited:
		REQUIRE(rcb_synchronize_expedited() == 0);
		break;
	case OP_defer: {
		struct dent *d = calloc(1, sizeof(*d));

		REQUIRE(d != NULL);
		atomic_store(&d->state, ST_QUEUED);
		d->owner = me;
		REQUIRE(rcb_defer(dent_fn, d) == 0);
		atomic_fetch_add(&me->defers_queued, 1);
		atomic_fetch_add(&defers_queued, 1);
		break;
	}
	case OP_defer_barrier_thread:
		snap = atomic_load(&me->defers_queued);
		REQUIRE(rcb_defer_barrier_thread() == 0);
		if (atomic_load(&me->defers_run) < snap)
			fail("rcb_defer_barrier_thread() returned before thread %d's earlier "
			     "deferred functions ran",
			     me->idx);
		break;
	case OP_defer_barrier:
		snap = atomic_load(&defers_queued);
		REQUIRE(rcb_defer_barrier() == 0);
		if (atomic_load(&defers_run) < snap)
			fail("rcb_defer_barrier() returned before the deferred functions queued "
			     "before it ran");
		break;
	case OP_poll_start:
		if (me->ncookies == NCOOKIES)
			cookie_wait_oldest(me, true);
		me->cookie[me->ncookies] = rcb_start_poll();
		me->cookie_t[me->ncookies++] = now();
		break;
	case OP_poll_check:
		if (me->ncookies)
			cookie_wait_oldest(me, false);
		break;
	case OP_cond_synchronize: {
		uint64_t c = rcb_get_state();

		REQUIRE(rcb_cond_synchronize(c) == 0);
		REQUIRE(rcb_poll_state(c) == 1);
		break;
	}
	case OP_worker:
		op_worker(me);
		break;
	case OP_reregister:
		REQUIRE(rcb_unregister_thread() == 0);
		REQUIRE(rcb_register_thread() == 0);
		/* Unregistering ended the thread's choice of worker. */
		me->worker_is_mine = false;
		break;
	case OP_spawn: {
		pthread_t t;

		REQUIRE(pthread_create(&t, NULL, spawned, me) == 0);
		REQUIRE(pthread_join(t, NULL) == 0);
		break;
	}
	case OP_fork:
		if (fork_on && !fork_quiet)
			op_fork();
		break;
	case OP_qsbr_read:
		qread_slots(me);
		break;
	case OP_qsbr_update:
		slot = (int)rnd(me, NSLOTS);
		qretire(me, atomic_exchange_explicit(&qslots[slot], obj_new(),
						     memory_order_acq_rel));
		break;
	case OP_qsbr_synchronize:
		REQUIRE(rcb_qsbr_synchronize() == 0);
		break;
	case OP_qsbr_barrier:
		snap = atomic_load(&me->qcalls_queued);
		REQUIRE(rcb_qsbr_barrier() == 0);
		if (atomic_load(&me->qcalls_run) < snap)
			fail("rcb_qsbr_barrier() returned with %llu of thread %d's %llu earlier "
			     "qsbr callbacks not run",
			     snap - atomic_load(&me->qcalls_run), me->idx,
			     snap);
		break;
	case OP_qsbr_offline:
		ts.tv_sec = 0;
		ts.tv_nsec = (long)rnd(me, 2000) * 1000L;
		rcb_qsbr_thread_offline();
		nanosleep(&ts, NULL);
		rcb_qsbr_thread_online();
		break;
	}
	me->ops[op]++;
}

/* The sum of op_weights[], set before the soak threads start. */
static unsigned int weights_total;

static int pick_op(struct soak_thread *me)
{
	unsigned int r = rnd(me, weights_total);

	for (int i = 0; i < OP_N; i++) {
		if (r < op_weights[i])
			return i;
		r -= op_weights[i];
	}
	return OP_read;
}

static void *soak_thread(void *arg)
{
	struct soak_thread *me = arg;

	me->tid = gettid();
	me->orig_policy = sched_getscheduler(0);
	REQUIRE(sched_getparam(0, &me->orig_param) == 0);
	errno = 0;
	me->orig_nice = getpriority(PRIO_PROCESS, 0);
	REQUIRE(errno == 0);
	REQUIRE(rcb_register_thread() == 0);
	REQUIRE(rcb_qsbr_register_thread() == 0);
	for (unsigned long n = 0;
	     !atomic_load_explicit(&stop, memory_order_relaxed); n++) {
		/* Offline while it may wait for the main thread's shutdown,
		 * which drains the qsbr callbacks (their grace periods would
		 * wait for us). */
		rcb_qsbr_thread_offline();
		REQUIRE(pthread_rwlock_rdlock(&phase) == 0);
		rcb_qsbr_thread_online();
		run_op(me, pick_op(me));
		rcb_qsbr_quiescent_state();
		rcb_qsbr_thread_offline();
		REQUIRE(pthread_rwlock_unlock(&phase) == 0);
		if (n % 16 == 0)
			check_unboosted(me);
	}
	if (me->worker) {
		if (me->worker_is_mine)
			REQUIRE(rcb_worker_set_thread(NULL) == 0);
		REQUIRE(rcb_worker_destroy(me->worker) == 0);
	}
	REQUIRE(rcb_qsbr_unregister_thread() == 0);
	check_unboosted(me);
	return NULL;
}

/* All soak threads wait between operations: shut down, check that every
 * callback queued ran, initialise again. */
static void reinit(void)
{
	REQUIRE(pthread_rwlock_wrlock(&phase) == 0);
	if (fork_on && fork_quiet) {
		/* The library's threads idle: nothing of ours allocates. */
		REQUIRE(rcb_barrier() == 0);
		REQUIRE(rcb_defer_barrier() == 0);
		op_fork();
	}
	REQUIRE(rcb_shutdown() == 0);
	if (atomic_load(&calls_run) != atomic_load(&calls_queued))
		fail("rcb_shutdown() returned with %llu callbacks queued, %llu run",
		     atomic_load(&calls_queued), atomic_load(&calls_run));
	if (atomic_load(&qcalls_run) != atomic_load(&qcalls_queued))
		fail("rcb_shutdown() returned with %llu qsbr callbacks queued, %llu run",
		     atomic_load(&qcalls_queued), atomic_load(&qcalls_run));
	REQUIRE(rcb_init(&cfg) == 0);
	atomic_fetch_add(&reinits, 1);
	REQUIRE(pthread_rwlock_unlock(&phase) == 0);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: soak [--seconds S] [--seed N] [--threads T] [--reinit-ms MS] [--no-fork]\n"
		"Every public call at once from T threads (default 4, at most %d) for S\n"
		"seconds (default 10); the same seed reruns the same operations in each\n"
		"thread.  Exit 0 when every check held, 1 at the first that did not.\n",
		MAX_THREADS);
}

int main(int argc, char **argv)
{
	pthread_rwlockattr_t ra;
	struct rcb_gp_stats gs;
	struct rcb_boost_stats bs;
	double t0, next_reinit, elapsed;
	bool seeded = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--no-fork")) {
			fork_on = false;
		} else if (v && !strcmp(a, "--seconds")) {
			seconds = atof(v), i++;
		} else if (v && !strcmp(a, "--seed")) {
			seed = strtoull(v, NULL, 0), seeded = true, i++;
		} else if (v && !strcmp(a, "--threads")) {
			nthreads = atoi(v), i++;
		} else if (v && !strcmp(a, "--reinit-ms")) {
			reinit_ms = (unsigned int)atoi(v), i++;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || seconds <= 0) {
		usage(stderr);
		return 2;
	}
	if (!seeded)
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
#if defined(__SANITIZE_THREAD__)
	/* TSan cannot start threads in the child of a multi-threaded fork
	 * ("starting new threads after multi-threaded fork is not
	 * supported"): the plain and ASan builds fork. */
	if (fork_on)
		printf("soak: no fork under ThreadSanitizer\n");
	fork_on = false;
#endif
	printf("soak: seed %" PRIu64 " threads %d seconds %.1f (rerun: --seed %" PRIu64 ")\n",
	       seed, nthreads, seconds, seed);
	fflush(stdout);

	cfg.size = sizeof(cfg);
	cfg.misuse = RCB_MISUSE_ABORT; /* any misuse report fails the soak */
	REQUIRE(rcb_init(&cfg) == 0);
	REQUIRE(pthread_rwlockattr_init(&ra) == 0);
	/* The main thread's shutdown phases would starve behind readers. */
	REQUIRE(pthread_rwlockattr_setkind_np(&ra,
		PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP) == 0);
	REQUIRE(pthread_rwlock_init(&phase, &ra) == 0);
	for (int i = 0; i < OP_N; i++)
		weights_total += op_weights[i];
	for (int s = 0; s < NSLOTS; s++) {
		atomic_store(&slots[s], obj_new());
		atomic_store(&qslots[s], obj_new());
	}
	for (int i = 0; i < nthreads; i++) {
		uint64_t x = seed + (uint64_t)i * 0x1000193u;

		threads[i].idx = i;
		threads[i].rng = splitmix(&x);
		REQUIRE(pthread_create(&threads[i].th, NULL, soak_thread,
				       &threads[i]) == 0);
	}
	t0 = now();
	next_reinit = t0 + reinit_ms / 1000.0;
	while ((elapsed = now() - t0) < seconds) {
		usleep(20000);
		if (reinit_ms && now() >= next_reinit) {
			reinit();
			next_reinit = now() + reinit_ms / 1000.0;
		}
		if ((int)elapsed / 5 != (int)(now() - t0) / 5)
			fprintf(stderr, "soak: %.0f s, %llu callbacks run\n", now() - t0,
				atomic_load(&calls_run));
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < nthreads; i++)
		REQUIRE(pthread_join(threads[i].th, NULL) == 0);
	elapsed = now() - t0;

	/* Outstanding cookies elapse without our asking. */
	for (int i = 0; i < nthreads; i++)
		while (threads[i].ncookies)
			cookie_wait_oldest(&threads[i], true);
	for (int s = 0; s < NSLOTS; s++) {
		retire(&threads[0], atomic_exchange(&slots[s], NULL), s & 1);
		qretire(&threads[0], atomic_exchange(&qslots[s], NULL));
	}
	REQUIRE(rcb_barrier() == 0);
	REQUIRE(rcb_qsbr_barrier() == 0);
	if (atomic_load(&qcalls_run) != atomic_load(&qcalls_queued))
		fail("%llu qsbr callbacks queued, %llu run",
		     atomic_load(&qcalls_queued), atomic_load(&qcalls_run));
	REQUIRE(rcb_defer_barrier() == 0);
	if (atomic_load(&calls_run) != atomic_load(&calls_queued))
		fail("%llu callbacks queued, %llu run", atomic_load(&calls_queued),
		     atomic_load(&calls_run));
	if (atomic_load(&defers_run) != atomic_load(&defers_queued))
		fail("%llu deferred functions queued, %llu run", atomic_load(&defers_queued),
		     atomic_load(&defers_run));
	rcb_stats(&gs);
	if (gs.misuse)
		fail("%llu misuse reports", (unsigned long long)gs.misuse);
	memset(&bs, 0, sizeof(bs));
	bs.size = sizeof(bs);
	REQUIRE(rcb_boost_stats(&bs) == 0);
	REQUIRE(rcb_shutdown() == 0);

	printf("soak: ok, %.1f s, seed %" PRIu64
	       ", %d threads, %llu re-initialisations, "
	       "%llu forks, %llu callbacks, %llu qsbr callbacks and %llu deferred functions each "
	       "run once, %ld boosts, %ld unboosts\n",
	       elapsed, seed, nthreads, atomic_load(&reinits),
	       atomic_load(&forks), atomic_load(&calls_run),
	       atomic_load(&qcalls_run), atomic_load(&defers_run), bs.boost,
	       bs.unboosted);
	printf("soak: operations:");
	for (int op = 0; op < OP_N; op++) {
		unsigned long long n = 0;

		for (int i = 0; i < nthreads; i++)
			n += threads[i].ops[op];
		printf(" %s=%llu", op_names[op], n);
	}
	printf("\n");
	return 0;
}
