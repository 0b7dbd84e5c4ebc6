/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-sim's scheduler: runs the real library (built with -DRCB_SIM)
 * one thread at a time on virtual CPUs, in virtual time.
 *
 * How.  Every simulated thread is a real pthread with a baton (a futex
 * word); exactly one holds it.  The holder runs until a simulation point
 * (rcb__sim_point(): every shared access of the library through
 * src/core/atomic.h, the read side's two points in rcuboost.h, each wrapped
 * call below, and the workload's own points), where pick() chooses the
 * next thread and the baton moves.  The system calls and pthread calls
 * that block or read the clock are replaced at link time (-Wl,--wrap):
 * futex, membarrier, sched_setattr/getattr, clock_gettime, nanosleep,
 * pthread mutexes, condition variables, create and join.  They act on
 * the scheduler's own state (virtual futexes, mutex owners, priorities),
 * never on the kernel's, so no real-time policy is ever set.
 *
 * Invariants.
 *  1. Only the baton holder (cur) reads or writes the scheduler state;
 *     the watchdog thread reads only the progress counter.
 *  2. The choice at each point depends only on the generator (seeded
 *     once), the thread states and the priorities: a seed replays.
 *  3. A thread that blocks leaves the runnable set; when none is
 *     runnable, virtual time jumps to the earliest timeout; when there is
 *     no timeout either, every simulated thread is blocked for ever: a
 *     hang, reported with each thread's wait.
 *  4. Calls from threads that are not simulated (the parent process, the
 *     watchdog, a thread past its exit) go to the real functions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

/* The real functions (-Wl,--wrap=NAME). */
long __real_syscall(long nr, ...);
int __real_clock_gettime(clockid_t c, struct timespec *ts);
int __real_nanosleep(const struct timespec *req, struct timespec *rem);
int __real_clock_nanosleep(clockid_t c, int flags, const struct timespec *req,
			   struct timespec *rem);
int __real_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int __real_pthread_mutex_lock(pthread_mutex_t *m);
int __real_pthread_mutex_trylock(pthread_mutex_t *m);
int __real_pthread_mutex_unlock(pthread_mutex_t *m);
int __real_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int __real_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				  const struct timespec *t);
int __real_pthread_cond_signal(pthread_cond_t *c);
int __real_pthread_cond_broadcast(pthread_cond_t *c);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a,
			  void *(*fn)(void *), void *arg);
int __real_pthread_join(pthread_t t, void **ret);
int __real_pthread_setschedparam(pthread_t t, int pol,
				 const struct sched_param *sp);
int __real_sched_getscheduler(pid_t pid);
int __real_sched_getparam(pid_t pid, struct sched_param *sp);
int __real_sched_getcpu(void);
int __real_sched_yield(void);
int __real_rcb__sched_last_cpu(pid_t tid);
/* Their replacements, called instead by the library. */
long __wrap_syscall(long nr, ...);
int __wrap_clock_gettime(clockid_t c, struct timespec *ts);
int __wrap_nanosleep(const struct timespec *req, struct timespec *rem);
int __wrap_clock_nanosleep(clockid_t c, int flags, const struct timespec *req,
			   struct timespec *rem);
int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int __wrap_pthread_mutex_lock(pthread_mutex_t *m);
int __wrap_pthread_mutex_trylock(pthread_mutex_t *m);
int __wrap_pthread_mutex_unlock(pthread_mutex_t *m);
int __wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int __wrap_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				  const struct timespec *t);
int __wrap_pthread_cond_signal(pthread_cond_t *c);
int __wrap_pthread_cond_broadcast(pthread_cond_t *c);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a,
			  void *(*fn)(void *), void *arg);
int __wrap_pthread_join(pthread_t t, void **ret);
int __wrap_pthread_setschedparam(pthread_t t, int pol,
				 const struct sched_param *sp);
int __wrap_sched_getscheduler(pid_t pid);
int __wrap_sched_getparam(pid_t pid, struct sched_param *sp);
int __wrap_sched_getcpu(void);
int __wrap_sched_yield(void);
int __wrap_rcb__sched_last_cpu(pid_t tid);
char __wrap_rcb__proc_task_state(int tid);
long long __wrap_rcb__thread_cpu_ns(pthread_t t);

struct sim_opts sim_opts = {
	.seed = 1, .ncpu = 2, .switch_pm = 100,
	.vtime_limit = 20ull * 1000 * 1000 * 1000, .trace_lines = 40,
	.max_points = 2000000, .step_ns = 50, .report_fd = -1,
};
unsigned long sim_boost_after_exit;

#define MAXT 64
#define VT_BASE 1000000000ull

enum { T_FREE, T_RUN, T_BLOCK, T_DEAD };
enum { W_NONE, W_FUTEX, W_MUTEX, W_COND, W_JOIN, W_SLEEP, W_PIFUTEX };
static const char *const wname[] = { "running", "futex", "mutex", "condvar",
				     "join", "sleep", "pi-futex" };

struct st {
	int id, state;
	char name[24];
	pthread_t pt;
	pid_t tid;
	_Atomic int baton;
	int policy, prio;
	int pin; /* virtual CPU it is pinned to, -1: any */
	int wkind;
	const void *waddr;
	uint64_t deadline; /* 0: none */
	/* sim_busy(): on its CPU, not choosable till then */
	uint64_t busy_until;
	/* Its CPU clock: virtual time on a virtual CPU (running there in
	 * parallel with the other CPUs' threads, baton or not), up to
	 * oncpu_since if it is on one now. */
	uint64_t run_ns, oncpu_since;
	bool oncpu;
	uint64_t wseq;     /* order of blocking, for FIFO wake-ups */
	int woke;          /* 1 woken, 2 timed out */
	void (*sig)(void);
	bool in_handler;
	bool sigblocked; /* sim_sigmask() */
	int exit_rounds; /* rounds of thread-specific destructors seen */
	bool reaped; /* joined: its handle may belong to a new thread */
	void *(*fn)(void *);
	void *arg;
};

static struct st T[MAXT];
static int nt;
static __thread struct st *me;
static struct st *cur;
static bool running;
static uint64_t vtime, wseq_next;
static unsigned long long npoints;
static _Atomic unsigned long long progress;
static uint64_t rng;
static uint64_t thash = 1469598103934665603ull;
static pthread_key_t sim_key;
/* sim_fork(): a fork in progress, and the process the schedule runs in. */
static bool forking;
static pid_t sim_pid;
static void fork_check(void);

/* ---- trace ---------------------------------------------------------- */

#define TRACE_N 4096
struct tev {
	uint64_t vt;
	short id;
	char kind;
	const char *file;
	int line;
	long aux;
};
static struct tev trace[TRACE_N];
static unsigned long ntrace;

static void tr(int id, char kind, const char *file, int line, long aux)
{
	struct tev *e = &trace[ntrace++ % TRACE_N];

	e->vt = vtime;
	e->id = (short)id;
	e->kind = kind;
	e->file = file;
	e->line = line;
	e->aux = aux;
	thash = (thash ^ (uint64_t)(id * 131 + kind)) * 1099511628211ull;
	thash = (thash ^ (uint64_t)line) * 1099511628211ull;
	if (sim_opts.verbose)
		fprintf(stderr, "  %10llu t%d %c %s:%d %ld\n",
			(unsigned long long)vtime, id, kind, file, line, aux);
}

static const char *base(const char *f)
{
	const char *s = strrchr(f, '/');

	return s ? s + 1 : f;
}

static void dump_trace(void)
{
	unsigned long n = (unsigned long)sim_opts.trace_lines, i;
	static const char *const kinds[128] = {
		['P'] = "point", ['S'] = "signal", ['B'] = "block",
		['W'] = "wake", ['X'] = "switch", ['E'] = "exit",
		['C'] = "create", ['T'] = "timeout", ['R'] = "prio",
		['Y'] = "preempt", ['F'] = "forked",
	};

	if (n > ntrace)
		n = ntrace;
	if (n > TRACE_N)
		n = TRACE_N;
	fprintf(stderr, "last %lu of %lu events (vtime ns, thread, event, where):\n",
		n, ntrace);
	for (i = ntrace - n; i < ntrace; i++) {
		struct tev *e = &trace[i % TRACE_N];
		const char *k = kinds[(int)e->kind & 127];

		fprintf(stderr, "  %12llu  t%-2d %-14s %-7s %s:%d",
			(unsigned long long)e->vt, e->id, T[e->id].name,
			k ? k : "?", base(e->file), e->line);
		if (e->kind == 'X' || e->kind == 'W' || e->kind == 'C')
			fprintf(stderr, " -> t%ld", e->aux);
		if (e->kind == 'R')
			fprintf(stderr, " prio %ld", e->aux);
		if (e->kind == 'Y')
			fprintf(stderr, " (opportunity %d, alternative %ld)", e->line, e->aux);
		fputc('\n', stderr);
	}
	fprintf(stderr, "threads:\n");
	for (i = 0; i < (unsigned long)nt; i++) {
		struct st *t = &T[i];

		fprintf(stderr, "  t%-2lu %-14s %-6s prio %2d %s", i, t->name,
			t->state == T_DEAD ? "exited" :
			t->state == T_BLOCK ? "blocked" : "ready",
			t->prio, t->state == T_BLOCK ? wname[t->wkind] : "");
		if (t->state == T_BLOCK && t->waddr)
			fprintf(stderr, " on %p", t->waddr);
		if (t->state == T_BLOCK && t->deadline)
			fprintf(stderr, " until %llu",
				(unsigned long long)t->deadline);
		fputc('\n', stderr);
	}
}

/*
 * Systematic mode.  Every call of pick() where the running thread could
 * keep its CPU and another thread is on one too is a preemption
 * opportunity, numbered from 1 in the order they come; the run takes
 * the preemptions of sim_opts.preempt[] and keeps the running thread at
 * every other opportunity.  It reports, at its end, each opportunity
 * after the last forced one with its number of alternatives: the parent
 * (main.c) extends the schedule with one more preemption at each of
 * them, up to the bound, so every schedule of at most K preemptions is
 * run exactly once (a schedule's opportunities before its last
 * preemption are those of its prefix, taken or not).
 */
static unsigned int sys_opp;
static struct { unsigned int at, alts; } *sys_rep;
static size_t sys_nrep, sys_caprep;

static void sys_note(unsigned int at, unsigned int alts)
{
	if (sim_opts.report_fd < 0)
		return;
	if (sys_nrep == sys_caprep) {
		void *n;

		sys_caprep = sys_caprep ? 2 * sys_caprep : 256;
		n = realloc(sys_rep, sys_caprep * sizeof(*sys_rep));
		if (!n)
			abort();
		sys_rep = n;
	}
	sys_rep[sys_nrep].at = at;
	sys_rep[sys_nrep++].alts = alts;
}

static void sys_report(void)
{
	const char *p = (const char *)sys_rep;
	size_t left = sys_nrep * sizeof(*sys_rep);

	if (sim_opts.report_fd < 0)
		return;
	while (left) {
		ssize_t n = write(sim_opts.report_fd, p, left);

		if (n <= 0)
			break;
		p += n;
		left -= (size_t)n;
	}
}

void sim_fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "FAIL seed=%llu vtime=%lluns points=%llu: ",
		sim_opts.seed, (unsigned long long)vtime, npoints);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	dump_trace();
	if (sim_opts.systematic) {
		fprintf(stderr, "replay: rcuboost-sim --seed %llu --schedule ",
			sim_opts.seed);
		for (int i = 0; i < sim_opts.npreempt; i++)
			fprintf(stderr, "%s%u:%u", i ? "," : "", sim_opts.preempt[i].at,
				sim_opts.preempt[i].alt);
		if (!sim_opts.npreempt)
			fputs("''", stderr);
		fputs(" (same options) -v\n", stderr);
	} else {
		fprintf(stderr, "replay: rcuboost-sim --seed %llu (same options) -v\n",
			sim_opts.seed);
	}
	fflush(stderr);
	sys_report();
	_exit(1);
}

void sim_pass(void)
{
	printf("ok seed=%llu vtime=%lluns points=%llu hash=%016llx\n",
	       sim_opts.seed, (unsigned long long)vtime, npoints,
	       (unsigned long long)thash);
	fflush(stdout);
	sys_report();
	_exit(0);
}

uint64_t sim_trace_hash(void) { return thash; }
unsigned long long sim_points(void) { return npoints; }
uint64_t sim_now(void) { return vtime; }
int sim_self(void) { return me ? me->id : -1; }

void sim_name(const char *name)
{
	if (me)
		snprintf(me->name, sizeof(me->name), "%s", name);
}

/* splitmix64: small, and the same sequence everywhere. */
unsigned int sim_rand(unsigned int n)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return n ? (unsigned int)(z % n) : 0;
}

/* ---- baton ---------------------------------------------------------- */

static void baton_wait(struct st *s)
{
	while (!atomic_exchange(&s->baton, 0))
		__real_syscall(SYS_futex, &s->baton, FUTEX_WAIT_PRIVATE, 0,
			       NULL, NULL, 0);
}

static void baton_give(struct st *n)
{
	cur = n;
	atomic_store(&n->baton, 1);
	__real_syscall(SYS_futex, &n->baton, FUTEX_WAKE_PRIVATE, 1, NULL,
		       NULL, 0);
}

/* ---- RT throttling ----------------------------------------------------- */

/*
 * Per virtual CPU, the virtual time real-time threads (effective
 * priority above 0, as a PI-boosted SCHED_OTHER thread runs in the
 * kernel's rt class) ran there in the current period.  The kernel's
 * default (RT_RUNTIME_SHARE off) throttles each CPU on its own: once a
 * CPU's real-time threads used the runtime, none runs there until the
 * period ends, and SCHED_OTHER threads get the rest.  Accounted at every
 * scheduling decision for the interval since the previous one, by what
 * each CPU was given then.
 */
static uint64_t rt_used[16], rt_acct_vtime, rt_period_idx;
static bool cpu_ran_rt[16];

static void rt_account(void)
{
	uint64_t idx, from;

	if (!sim_opts.rt_period_ns)
		return;
	idx = vtime / sim_opts.rt_period_ns;
	from = rt_acct_vtime;
	if (idx != rt_period_idx) {
		memset(rt_used, 0, sizeof(rt_used));
		rt_period_idx = idx;
		from = idx * sim_opts.rt_period_ns;
	}
	for (int c = 0; c < sim_opts.ncpu; c++)
		if (cpu_ran_rt[c] && vtime > from)
			rt_used[c] += vtime - from;
	rt_acct_vtime = vtime;
}

static bool rt_throttled(int cpu)
{
	return sim_opts.rt_period_ns && rt_used[cpu] >= sim_opts.rt_runtime_ns;
}

/* The next period's start if a CPU is throttled now, else 0. */
static uint64_t rt_unthrottle_at(void)
{
	for (int c = 0; c < sim_opts.ncpu; c++)
		if (rt_throttled(c))
			return (rt_period_idx + 1) * sim_opts.rt_period_ns;
	return 0;
}

/* ---- choice --------------------------------------------------------- */

/*
 * The threads that are on a virtual CPU: the ncpu highest priorities
 * among the runnable ones, all of a tied priority at the boundary (time
 * slicing).  @self stays on with probability 1 - switch_pm/1000 when it
 * is among them; otherwise a uniform choice.  NULL if none is runnable.
 */
/* The owner of PI mutex @m, or NULL (mutexes are further down). */
static struct st *pi_owner(const void *m);
/* The owner of PI futex word @w (its TID bits), or NULL. */
static struct st *pifutex_owner(const void *w);

/* Systematic mode: @self (cand[@me_at]) keeps its CPU unless this
 * opportunity is one of the schedule's preemptions, or unless it has
 * kept it for SYS_SLICE opportunities in a row: the time slice (without
 * it, a thread spinning for another, as the grace period's first scans
 * and the workloads' waits do, would spin for ever in a schedule that
 * never preempts it).  The slice is not a preemption of the bound, and
 * as deterministic as the rest. */
#define SYS_SLICE 1000
static struct st *sys_choose(struct st *self, const int *cand, int ncand,
			     int me_at)
{
	static struct st *last;
	static unsigned int kept;
	unsigned int at;
	int k;

	if (self != last) {
		last = self;
		kept = 0;
	}
	if (++kept > SYS_SLICE) {
		last = &T[cand[(me_at + 1) % ncand]];
		kept = 0;
		return last;
	}
	at = ++sys_opp;
	for (k = 0; k < sim_opts.npreempt; k++)
		if (sim_opts.preempt[k].at == at) {
			int alt = (int)(sim_opts.preempt[k].alt %
					(unsigned int)(ncand - 1));

			tr(self->id, 'Y', "preempt", (int)at, alt);
			last = &T[cand[alt < me_at ? alt : alt + 1]];
			kept = 0;
			return last;
		}
	if (!sim_opts.npreempt ||
	    at > sim_opts.preempt[sim_opts.npreempt - 1].at)
		sys_note(at, (unsigned int)(ncand - 1));
	return self;
}

/* Effective priorities: priority inheritance through PI mutexes and PI
 * futexes, along chains of up to four owners. */
static void effective_prios(int *eff)
{
	int i, c;

	for (i = 0; i < nt; i++)
		eff[i] = T[i].prio;
	for (c = 0; c < 4; c++)
		for (i = 0; i < nt; i++) {
			struct st *o;

			if (T[i].state != T_BLOCK)
				continue;
			o = T[i].wkind == W_MUTEX ? pi_owner(T[i].waddr) :
			    T[i].wkind == W_PIFUTEX ?
						    pifutex_owner(T[i].waddr) :
						    NULL;
			if (o && eff[o->id] < eff[i])
				eff[o->id] = eff[i];
		}
}

int sim_effprio_of(int id)
{
	int eff[MAXT];

	effective_prios(eff);
	return eff[id];
}

static struct st *pick(struct st *self)
{
	int order[MAXT], cand[MAXT], eff[MAXT], n = 0, i, j, c, ncand = 0;
	bool used[16] = { false };

	effective_prios(eff);
	for (i = 0; i < nt; i++) {
		if (T[i].state != T_RUN)
			continue;
		for (j = n; j > 0 && eff[order[j - 1]] < eff[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
		n++;
	}
	/* Equal priorities in random order: time slicing (systematic
	 * mode: in thread order; its preemptions do the slicing). */
	for (i = 0; i < n && !sim_opts.systematic; i = j) {
		for (j = i + 1; j < n && eff[order[j]] == eff[order[i]]; j++)
			;
		for (c = j - 1; c > i; c--) {
			int k = i + (int)sim_rand((unsigned int)(c - i + 1));
			int x = order[c];

			order[c] = order[k];
			order[k] = x;
		}
	}
	/* Systematic mode: the running thread first among its equals (no
	 * time slicing but the schedule's and sys_choose()'s). */
	if (sim_opts.systematic && self && self->state == T_RUN) {
		for (i = 0; i < n && order[i] != self->id; i++)
			;
		for (; i > 0 && eff[order[i - 1]] == eff[self->id]; i--)
			order[i] = order[i - 1];
		if (i < n)
			order[i] = self->id;
	}
	/* Give CPUs in priority order: a pinned thread only its own, the
	 * others the highest free one (leaving CPU 0, where the hogs are
	 * pinned, to the threads pinned there). */
	rt_account();
	memset(cpu_ran_rt, 0, sizeof(cpu_ran_rt));
	for (i = 0; i < n && ncand < sim_opts.ncpu; i++) {
		struct st *t = &T[order[i]];
		bool rt = eff[order[i]] > 0;

		if (t->pin >= 0) {
			if (used[t->pin] || (rt && rt_throttled(t->pin)))
				continue;
			c = t->pin;
		} else {
			for (c = sim_opts.ncpu - 1;
			     c >= 0 && (used[c] || (rt && rt_throttled(c)));
			     c--)
				;
			if (c < 0)
				continue;
		}
		used[c] = true;
		cpu_ran_rt[c] = rt;
		cand[ncand++] = order[i];
	}
	/* The CPU clocks: the threads given a CPU run from now on, the
	 * others stopped running when they lost theirs. */
	for (c = 0; c < nt; c++) {
		bool on = false;

		for (j = 0; j < ncand && !on; j++)
			on = cand[j] == c;
		if (on && !T[c].oncpu)
			T[c].oncpu_since = vtime;
		else if (!on && T[c].oncpu)
			T[c].run_ns += vtime - T[c].oncpu_since;
		T[c].oncpu = on;
	}
	/* A thread in sim_busy() keeps its CPU (above) but is not chosen:
	 * it works on it in parallel with the others until busy_until. */
	for (c = j = 0; c < ncand; c++)
		if (T[cand[c]].busy_until <= vtime)
			cand[j++] = cand[c];
	ncand = j;
	if (!ncand)
		return NULL;
	if (sim_opts.systematic && self && self->state == T_RUN) {
		/* The alternatives to the running thread: the others on a
		 * CPU, and those of the last CPU's priority that time
		 * slicing would let in (order[] put self first among its
		 * equals, so it is on a CPU if its priority allows). */
		int next = ncand, lastp = eff[cand[ncand - 1]];

		for (j = i; j < n && next < MAXT; j++)
			if (eff[order[j]] == lastp)
				cand[next++] = order[j];
		for (i = 0; i < ncand; i++)
			if (cand[i] == self->id)
				break;
		if (i < ncand && next > 1)
			return sys_choose(self, cand, next, i);
		if (i < ncand)
			return self;
	}
	if (self && self->state == T_RUN) {
		for (i = 0; i < ncand; i++)
			if (cand[i] == self->id)
				break;
		if (i < ncand && sim_rand(1000) >= sim_opts.switch_pm)
			return self;
	}
	if (sim_opts.systematic)
		return &T[cand[0]];
	return &T[cand[sim_rand((unsigned int)ncand)]];
}

static void wake(struct st *t, int how)
{
	t->state = T_RUN;
	t->woke = how;
	t->wkind = W_NONE;
	tr(me ? me->id : 0, how == 2 ? 'T' : 'W', "sched", 0, t->id);
}

static uint64_t min_deadline(void)
{
	uint64_t m = 0, u;
	int i;

	for (i = 0; i < nt; i++) {
		if (T[i].state == T_BLOCK && T[i].deadline &&
		    (!m || T[i].deadline < m))
			m = T[i].deadline;
		if (T[i].state == T_RUN && T[i].busy_until > vtime &&
		    (!m || T[i].busy_until < m))
			m = T[i].busy_until;
	}
	u = rt_unthrottle_at();
	if (u && (!m || u < m))
		m = u;
	return m;
}

static void expire(void)
{
	int i;

	for (i = 0; i < nt; i++)
		if (T[i].state == T_BLOCK && T[i].deadline &&
		    T[i].deadline <= vtime)
			wake(&T[i], 2);
}

static void check_time(void)
{
	if (npoints > sim_opts.max_points)
		sim_fail("hang: %llu simulation points and the run goes on (a livelock, or a loop that never ends)",
			 sim_opts.max_points);
	if (vtime > sim_opts.vtime_limit)
		sim_fail("hang: virtual time passed %llu ms (a waiter never returns under this schedule)",
			 (unsigned long long)(sim_opts.vtime_limit / 1000000));
}

/* The next thread to run after @self (NULL: self cannot run), moving
 * virtual time past idle gaps (invariant 3). */
static struct st *next_after(struct st *self)
{
	struct st *n;
	uint64_t d;

	for (;;) {
		n = pick(self);
		if (n)
			return n;
		d = min_deadline();
		if (!d)
			sim_fail("hang: every simulated thread is blocked, none with a timeout");
		vtime = d;
		check_time();
		expire();
	}
}

static void switch_to(struct st *s, struct st *n)
{
	if (n == s)
		return;
	tr(s->id, 'X', "sched", 0, n->id);
	baton_give(n);
	baton_wait(s);
}

static void deliver(struct st *s)
{
	void (*h)(void) = s->sig;

	if (!h || s->in_handler || s->sigblocked)
		return;
	s->sig = NULL;
	s->in_handler = true;
	tr(s->id, 'S', "signal", 0, 0);
	h();
	s->in_handler = false;
}

static void point(struct st *s, const char *file, int line, bool sig)
{
	fork_check();
	npoints++;
	atomic_store_explicit(&progress, npoints, memory_order_relaxed);
	vtime += sim_opts.step_ns;
	tr(s->id, 'P', file, line, 0);
	check_time();
	expire();
	switch_to(s, next_after(s));
	if (sig)
		deliver(s);
}

/* The caller works for @ns on its CPU: it keeps the CPU (no thread of
 * lower priority gets it) but is not chosen until virtual time has
 * advanced by @ns, so the threads on the other CPUs go on meanwhile, as
 * they would in parallel, instead of waiting for the hog's virtual time
 * to pass at every switch. */
void sim_busy(uint64_t ns)
{
	me->busy_until = vtime + sim_opts.step_ns + ns;
	point(me, "busy", 0, true);
}

void rcb__sim_point(const char *file, int line)
{
	int e = errno;

	if (me && running)
		point(me, file, line, true);
	errno = e;
}

/* Block the caller: returns 1 when woken, 2 on timeout. */
static int block(struct st *s, int kind, const void *addr, uint64_t deadline)
{
	fork_check();
	s->state = T_BLOCK;
	s->wkind = kind;
	s->waddr = addr;
	s->deadline = deadline;
	s->wseq = wseq_next++;
	s->woke = 0;
	tr(s->id, 'B', wname[kind], 0, 0);
	switch_to(s, next_after(NULL));
	s->deadline = 0;
	return s->woke;
}

/* Wake up to @nr threads blocked as @kind on @addr, highest priority
 * first, then in blocking order; returns how many. */
static int wake_on(int kind, const void *addr, int nr)
{
	int n = 0;

	while (n < nr) {
		struct st *best = NULL;
		int i;

		for (i = 0; i < nt; i++) {
			struct st *t = &T[i];

			if (t->state != T_BLOCK || t->wkind != kind ||
			    t->waddr != addr)
				continue;
			if (!best || t->prio > best->prio ||
			    (t->prio == best->prio && t->wseq < best->wseq))
				best = t;
		}
		if (!best)
			break;
		wake(best, 1);
		n++;
	}
	return n;
}

static struct st *by_tid(pid_t tid, bool *dead)
{
	int i;

	*dead = false;
	for (i = nt - 1; i >= 0; i--)
		if (T[i].tid == tid) {
			if (T[i].state == T_DEAD) {
				*dead = true;
				continue;
			}
			return &T[i];
		}
	return NULL;
}

static struct st *by_pt(pthread_t pt)
{
	int i;

	/* Newest first, reaped ones skipped: glibc reuses thread handles. */
	for (i = nt - 1; i >= 0; i--)
		if (T[i].state != T_FREE && !T[i].reaped &&
		    pthread_equal(T[i].pt, pt))
			return &T[i];
	return NULL;
}

void sim_signal(int id, void (*handler)(void))
{
	if (id >= 0 && id < nt && T[id].state != T_DEAD)
		T[id].sig = handler;
}

void sim_sigmask(bool blocked)
{
	me->sigblocked = blocked;
	if (!blocked)
		deliver(me);
}

int sim_prio_of(int id)
{
	return T[id].prio;
}

void sim_pin(int cpu)
{
	me->pin = cpu < sim_opts.ncpu ? cpu : -1;
	point(me, "pin", 0, false);
}

void sim_setprio(int policy, int prio)
{
	me->policy = policy;
	me->prio = policy == SCHED_OTHER ? 0 : prio;
	tr(me->id, 'R', "setprio", 0, me->prio);
	point(me, "setprio", 0, false);
}

/* ---- threads -------------------------------------------------------- */

static void thread_gone(void *arg)
{
	struct st *s = arg;

	if (!running || me != s)
		return;
	/* Leave the simulation only in the last round of destructors:
	 * the library's own destructor (its exit key, which a library may
	 * create after ours) must still run as this simulated thread. */
	if (++s->exit_rounds < PTHREAD_DESTRUCTOR_ITERATIONS) {
		pthread_setspecific(sim_key, s);
		return;
	}
	s->state = T_DEAD;
	tr(s->id, 'E', "exit", 0, 0);
	wake_on(W_JOIN, s, MAXT);
	me = NULL;
	baton_give(next_after(NULL));
}

static void *trampoline(void *arg)
{
	struct st *s = arg;

	me = s;
	s->tid = gettid();
	pthread_setspecific(sim_key, s);
	baton_wait(s);
	deliver(s);
	return s->fn(s->arg);
}

static void *watchdog(void *arg)
{
	unsigned long long last = 0, now;
	int still = 0;
	struct timespec ts = { 1, 0 };

	(void)arg;
	for (;;) {
		__real_nanosleep(&ts, NULL);
		now = atomic_load_explicit(&progress, memory_order_relaxed);
		still = now == last ? still + 1 : 0;
		last = now;
		if (still >= 20) {
			fprintf(stderr, "FAIL seed=%llu: hang outside the simulation: t%d \"%s\" made no simulation point for 20 s (a real blocking call or a loop without a point)\n",
				sim_opts.seed, cur ? cur->id : -1,
				cur ? cur->name : "?");
			dump_trace();
			_exit(3);
		}
	}
	return NULL;
}

void sim_start(void)
{
	pthread_t w;

	rng = sim_opts.seed * 0x2545f4914f6cdd1dull + 1;
	pthread_key_create(&sim_key, thread_gone);
	T[0].id = 0;
	T[0].state = T_RUN;
	T[0].pin = -1;
	snprintf(T[0].name, sizeof(T[0].name), "driver");
	T[0].pt = pthread_self();
	T[0].tid = gettid();
	nt = 1;
	me = cur = &T[0];
	pthread_setspecific(sim_key, &T[0]);
	sim_pid = getpid();
	__real_pthread_create(&w, NULL, watchdog, NULL);
	running = true;
}

/*
 * The child's side of sim_fork().  It must run before the child makes
 * any scheduling decision: the library's child handlers take simulated
 * mutexes (points), and a point would hand the baton to a thread that
 * does not exist in this process.  glibc runs child handlers in the
 * order of registration, and the library registers some from its
 * constructors, before any of ours; so point() and block() call this
 * first whenever a fork is in progress and the process is not the one
 * the schedule started in.
 */
static void fork_child_fixup(void)
{
	pthread_t w;
	int i;

	forking = false;
	sim_pid = getpid();
	/* Only this real thread exists.  The others' simulated state goes
	 * with them; a mutex one of them held stays held, as a real one
	 * does, unless the library's child handler re-creates it. */
	for (i = 0; i < nt; i++)
		if (&T[i] != me && T[i].state != T_FREE &&
		    T[i].state != T_DEAD) {
			T[i].state = T_DEAD;
			T[i].reaped = true;
		}
	me->tid = gettid();
	cur = me;
	sim_opts.report_fd = -1; /* systematic reports are the parent's */
	tr(me->id, 'F', "fork", 0, 0);
	__real_pthread_create(&w, NULL, watchdog, NULL);
}

static void fork_check(void)
{
	if (forking && getpid() != sim_pid)
		fork_child_fixup();
}

int sim_fork(void)
{
	pid_t pid;

	point(me, "fork", 0, true);
	fflush(stdout);
	fflush(stderr);
	forking = true;
	pid = fork();
	fork_check(); /* the child, if no handler made a point */
	forking = false;
	return pid;
}

int __wrap_pthread_create(pthread_t *pt, const pthread_attr_t *a,
			  void *(*fn)(void *), void *arg)
{
	struct st *s;
	int inh = PTHREAD_INHERIT_SCHED, err;

	if (!me)
		return __real_pthread_create(pt, a, fn, arg);
	if (nt == MAXT)
		return EAGAIN;
	s = &T[nt];
	memset(s, 0, sizeof(*s));
	s->id = nt;
	snprintf(s->name, sizeof(s->name), "t%d", nt);
	s->pin = -1;
	s->policy = me->policy;
	s->prio = me->prio;
	if (a && pthread_attr_getinheritsched(a, &inh) == 0 &&
	    inh == PTHREAD_EXPLICIT_SCHED) {
		struct sched_param sp;

		pthread_attr_getschedpolicy(a, &s->policy);
		pthread_attr_getschedparam(a, &sp);
		s->prio = s->policy == SCHED_OTHER ? 0 : sp.sched_priority;
	}
	s->fn = fn;
	s->arg = arg;
	s->state = T_RUN;
	nt++;
	err = __real_pthread_create(pt, NULL, trampoline, s);
	if (err) {
		s->state = T_FREE;
		nt--;
		return err;
	}
	s->pt = *pt;
	tr(me->id, 'C', "create", 0, s->id);
	point(me, "pthread_create", 0, true);
	return 0;
}

int __wrap_pthread_join(pthread_t pt, void **ret)
{
	struct st *t;

	if (!me || !(t = by_pt(pt)))
		return __real_pthread_join(pt, ret);
	point(me, "pthread_join", 0, true);
	while (t->state != T_DEAD)
		block(me, W_JOIN, t, 0);
	t->reaped = true;
	return __real_pthread_join(pt, ret);
}

/* ---- mutexes and condition variables ------------------------------- */

#define MX_N 4096
struct mx {
	const void *addr;
	int type;
	bool pi;
	struct st *owner;
};
static struct mx mxs[MX_N];

static struct mx *mx_get(const void *m)
{
	size_t h = ((uintptr_t)m >> 3) * 2654435761u % MX_N;

	while (mxs[h].addr && mxs[h].addr != m)
		h = (h + 1) % MX_N;
	if (!mxs[h].addr) {
		mxs[h].addr = m;
		mxs[h].type = PTHREAD_MUTEX_NORMAL;
	}
	return &mxs[h];
}

int __wrap_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	struct mx *x = mx_get(m);
	int type = PTHREAD_MUTEX_NORMAL;
	int proto = PTHREAD_PRIO_NONE;

	if (a) {
		pthread_mutexattr_gettype(a, &type);
		pthread_mutexattr_getprotocol(a, &proto);
	}
	x->type = type;
	x->pi = proto == PTHREAD_PRIO_INHERIT;
	x->owner = NULL;
	return __real_pthread_mutex_init(m, a);
}

static int mx_lock(struct st *s, pthread_mutex_t *m)
{
	struct mx *x = mx_get(m);

	for (;;) {
		if (!x->owner) {
			x->owner = s;
			return 0;
		}
		if (x->owner == s) {
			if (x->type == PTHREAD_MUTEX_ERRORCHECK)
				return EDEADLK;
			sim_fail("hang: t%d \"%s\" locks mutex %p that it holds (self-deadlock)",
				 s->id, s->name, (void *)m);
		}
		block(s, W_MUTEX, m, 0);
	}
}

static struct st *pi_owner(const void *m)
{
	struct mx *x = mx_get(m);

	return x->pi ? x->owner : NULL;
}

static void mx_unlock(struct st *s, pthread_mutex_t *m)
{
	struct mx *x = mx_get(m);

	if (x->owner != s)
		sim_fail("t%d \"%s\" unlocks mutex %p it does not hold", s->id,
			 s->name, (void *)m);
	x->owner = NULL;
	wake_on(W_MUTEX, m, 1);
}

int __wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
	if (!me)
		return __real_pthread_mutex_lock(m);
	point(me, "pthread_mutex_lock", 0, true);
	return mx_lock(me, m);
}

int __wrap_pthread_mutex_trylock(pthread_mutex_t *m)
{
	struct mx *x;

	if (!me)
		return __real_pthread_mutex_trylock(m);
	point(me, "pthread_mutex_trylock", 0, true);
	x = mx_get(m);
	if (x->owner)
		return x->owner == me && x->type == PTHREAD_MUTEX_ERRORCHECK ?
			       EDEADLK : EBUSY;
	x->owner = me;
	return 0;
}

int __wrap_pthread_mutex_unlock(pthread_mutex_t *m)
{
	if (!me)
		return __real_pthread_mutex_unlock(m);
	mx_unlock(me, m);
	point(me, "pthread_mutex_unlock", 0, true);
	return 0;
}

static uint64_t abs_to_v(const struct timespec *t)
{
	uint64_t a = (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;

	return a > VT_BASE ? a - VT_BASE : 1;
}

static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m,
		     const struct timespec *t)
{
	int r;

	point(me, "pthread_cond_wait", 0, true);
	mx_unlock(me, m);
	r = block(me, W_COND, c, t ? abs_to_v(t) : 0);
	mx_lock(me, m);
	return r == 2 ? ETIMEDOUT : 0;
}

int __wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (!me)
		return __real_pthread_cond_wait(c, m);
	return cond_wait(c, m, NULL);
}

int __wrap_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				  const struct timespec *t)
{
	if (!me)
		return __real_pthread_cond_timedwait(c, m, t);
	return cond_wait(c, m, t);
}

int __wrap_pthread_cond_signal(pthread_cond_t *c)
{
	if (!me)
		return __real_pthread_cond_signal(c);
	wake_on(W_COND, c, 1);
	point(me, "pthread_cond_signal", 0, true);
	return 0;
}

int __wrap_pthread_cond_broadcast(pthread_cond_t *c)
{
	if (!me)
		return __real_pthread_cond_broadcast(c);
	wake_on(W_COND, c, MAXT);
	point(me, "pthread_cond_broadcast", 0, true);
	return 0;
}

/* ---- scheduling attributes ------------------------------------------ */

struct sim_sched_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t rt, dl, pd;
};

static void set_prio(struct st *t, int policy, int prio)
{
	t->policy = policy;
	t->prio = (policy == SCHED_FIFO || policy == SCHED_RR) ? prio : 0;
	tr(me->id, 'R', "sched_setattr", t->id, t->prio);
}

int __wrap_pthread_setschedparam(pthread_t pt, int pol,
				 const struct sched_param *sp)
{
	struct st *t;

	if (!me || !(t = by_pt(pt)))
		return __real_pthread_setschedparam(pt, pol, sp);
	if (t->state == T_DEAD)
		return ESRCH;
	set_prio(t, pol, sp->sched_priority);
	point(me, "pthread_setschedparam", 0, true);
	return 0;
}

int __wrap_sched_getscheduler(pid_t pid)
{
	if (!me || pid)
		return __real_sched_getscheduler(pid);
	return me->policy;
}

int __wrap_sched_getparam(pid_t pid, struct sched_param *sp)
{
	if (!me || pid)
		return __real_sched_getparam(pid, sp);
	sp->sched_priority = me->prio;
	return 0;
}

int __wrap_sched_getcpu(void)
{
	if (!me)
		return __real_sched_getcpu();
	return me->pin >= 0 ? me->pin : me->id % sim_opts.ncpu;
}

int __wrap_sched_yield(void)
{
	if (!me)
		return __real_sched_yield();
	point(me, "sched_yield", 0, true);
	return 0;
}

/* The library's reading of /proc/self/task/TID/stat
 * (src/boost/backend_sched.c): the virtual CPU instead of the real one. */
int __wrap_rcb__sched_last_cpu(pid_t tid)
{
	bool dead;
	struct st *t;

	if (!me)
		return __real_rcb__sched_last_cpu(tid);
	vtime += sim_opts.cost_proc;
	t = by_tid(tid, &dead);
	if (!t)
		return -1;
	return t->pin >= 0 ? t->pin : t->id % sim_opts.ncpu;
}

/* Booster mode for callback workers (src/boost/callback_boost.c) asks whether
 * a worker is runnable and how long it has run: the simulated answers. */
char __wrap_rcb__proc_task_state(int tid)
{
	bool dead;
	struct st *t;

	if (!me)
		return 0;
	vtime += sim_opts.cost_proc;
	t = by_tid(tid, &dead);
	if (!t)
		return dead ? 'Z' : 0;
	return t->state == T_RUN ? 'R' : 'S';
}

long long __wrap_rcb__thread_cpu_ns(pthread_t pt)
{
	struct st *t;

	if (!me || !(t = by_pt(pt)) || t->state == T_DEAD)
		return -1;
	return (long long)(t->run_ns + (t->oncpu ? vtime - t->oncpu_since : 0));
}

int sim_prio_of_tid(pid_t tid)
{
	bool dead;
	struct st *t = by_tid(tid, &dead);

	return t ? t->prio : -1;
}

/* ---- clock ---------------------------------------------------------- */

int __wrap_clock_gettime(clockid_t c, struct timespec *ts)
{
	uint64_t v;

	if (!me || !running)
		return __real_clock_gettime(c, ts);
	v = vtime + VT_BASE;
	ts->tv_sec = (time_t)(v / 1000000000ull);
	ts->tv_nsec = (long)(v % 1000000000ull);
	return 0;
}

static uint64_t rel_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
}

int __wrap_nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (!me)
		return __real_nanosleep(req, rem);
	point(me, "nanosleep", 0, true);
	block(me, W_SLEEP, NULL, vtime + rel_ns(req) + 1);
	return 0;
}

int __wrap_clock_nanosleep(clockid_t c, int flags, const struct timespec *req,
			   struct timespec *rem)
{
	if (!me)
		return __real_clock_nanosleep(c, flags, req, rem);
	point(me, "clock_nanosleep", 0, true);
	block(me, W_SLEEP, NULL,
	      flags & TIMER_ABSTIME ? abs_to_v(req) : vtime + rel_ns(req) + 1);
	return 0;
}

/* ---- system calls ------------------------------------------------------ */

/* Cost model: an IPI for each other virtual CPU running one of our
 * threads (runnable threads other than the caller, at most ncpu - 1). */
static uint64_t membarrier_cost(void)
{
	int others = 0;

	for (int i = 0; i < MAXT; i++)
		if (T[i].state == T_RUN && &T[i] != me)
			others++;
	if (others > sim_opts.ncpu - 1)
		others = sim_opts.ncpu - 1;
	if (!others)
		return sim_opts.cost_membarrier;
	return sim_opts.cost_membarrier_ipi +
	       (uint64_t)(others - 1) * sim_opts.cost_ipi_send;
}

static struct st *pifutex_owner(const void *w)
{
	bool dead;
	uint32_t v = atomic_load((_Atomic uint32_t *)w) & FUTEX_TID_MASK;

	return v ? by_tid((pid_t)v, &dead) : NULL;
}

/*
 * PI futexes, as the kernel's: the word holds the owner's TID (set by
 * the owner itself, or by anyone: a TID in the word makes that thread
 * the owner, the pi backend's proxy lock) and FUTEX_WAITERS while a
 * thread waits in the kernel.  LOCK_PI takes a free word, or sets
 * FUTEX_WAITERS and blocks, lending its priority to the owner (pick())
 * until UNLOCK_PI hands the word to the highest-priority waiter or the
 * (absolute) timeout passes.  The caller is the baton holder: no
 * thread changes the word meanwhile.
 */
static long sim_futex_pi(_Atomic uint32_t *w, int cmd, const struct timespec *t)
{
	uint32_t v, self = (uint32_t)me->tid;
	struct st *o, *best = NULL;
	bool dead, more = false;

	point(me, cmd == FUTEX_UNLOCK_PI ? "futex_unlock_pi" : "futex_lock_pi", 0, true);
	v = atomic_load(w);
	if (cmd == FUTEX_UNLOCK_PI) {
		if ((v & FUTEX_TID_MASK) != self) {
			errno = EPERM;
			return -1;
		}
		for (int i = 0; i < nt; i++) {
			struct st *c = &T[i];

			if (c->state != T_BLOCK || c->wkind != W_PIFUTEX ||
			    c->waddr != w)
				continue;
			if (best)
				more = true;
			if (!best || c->prio > best->prio ||
			    (c->prio == best->prio && c->wseq < best->wseq))
				best = c;
		}
		if (!best) {
			atomic_store(w, 0);
			return 0;
		}
		atomic_store(w,
			     (uint32_t)best->tid | (more ? FUTEX_WAITERS : 0));
		wake(best, 1);
		vtime += sim_opts.cost_futex_wake;
		point(me, "futex_unlock_pi", 1, true);
		return 0;
	}
	if (!(v & FUTEX_TID_MASK)) {
		atomic_store(w, self | (v & FUTEX_WAITERS));
		return 0;
	}
	if ((v & FUTEX_TID_MASK) == self) {
		errno = EDEADLK;
		return -1;
	}
	o = by_tid((pid_t)(v & FUTEX_TID_MASK), &dead);
	if (!o && dead) {
		/* The pi backend's invariant 2: a slot's word names a
		 * reader only inside its section. */
		sim_boost_after_exit++;
		sim_fail("PI futex %p names thread %u after its exit (boost after exit)",
			 (void *)w, (unsigned int)(v & FUTEX_TID_MASK));
	}
	if (!o) {
		errno = ESRCH;
		return -1;
	}
	if (cmd == FUTEX_TRYLOCK_PI) {
		errno = EWOULDBLOCK;
		return -1;
	}
	atomic_store(w, v | FUTEX_WAITERS);
	if (block(me, W_PIFUTEX, w, t ? abs_to_v(t) : 0) == 2) {
		errno = ETIMEDOUT;
		return -1;
	}
	return 0;
}

static long sim_futex(int *uaddr, int op, int val, const struct timespec *t)
{
	int cmd = op & FUTEX_CMD_MASK;

	switch (cmd) {
	case FUTEX_LOCK_PI:
	case 13: /* FUTEX_LOCK_PI2 */
	case FUTEX_TRYLOCK_PI:
	case FUTEX_UNLOCK_PI:
		return sim_futex_pi((_Atomic uint32_t *)uaddr,
				    cmd == 13 ? FUTEX_LOCK_PI : cmd, t);
	case FUTEX_WAIT:
		point(me, "futex_wait", 0, true);
		if (atomic_load((_Atomic int *)uaddr) != val) {
			errno = EAGAIN;
			return -1;
		}
		if (block(me, W_FUTEX, uaddr, t ? vtime + rel_ns(t) + 1 : 0) ==
		    2) {
			errno = ETIMEDOUT;
			return -1;
		}
		return 0;
	case FUTEX_WAKE: {
		int n = wake_on(W_FUTEX, uaddr, val);

		vtime += sim_opts.cost_futex_wake;
		point(me, "futex_wake", 0, true);
		return n;
	}
	default:
		sim_fail("futex operation %d is not simulated", cmd);
	}
}

static long sim_sched_attr(long nr, pid_t tid, struct sim_sched_attr *a)
{
	bool dead;
	struct st *t = tid ? by_tid(tid, &dead) : me;

	if (!t) {
		if (dead && nr == SYS_sched_setattr) {
			sim_boost_after_exit++;
			sim_fail("sched_setattr on thread %d after its exit (boost after exit)",
				 (int)tid);
		}
		errno = ESRCH;
		return -1;
	}
	if (nr == SYS_sched_getattr) {
		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		a->sched_policy = (uint32_t)t->policy;
		a->sched_priority = (uint32_t)t->prio;
		vtime += sim_opts.cost_getattr;
		point(me, "sched_getattr", 0, true);
		return 0;
	}
	set_prio(t, (int)a->sched_policy, (int)a->sched_priority);
	vtime += sim_opts.cost_setattr;
	point(me, "sched_setattr", 0, true);
	return 0;
}

long __wrap_syscall(long nr, ...)
{
	va_list ap;
	long a[6];
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (me && running) {
		switch (nr) {
		case SYS_futex:
			return sim_futex((int *)a[0], (int)a[1], (int)a[2],
					 (const struct timespec *)a[3]);
		case SYS_membarrier:
			if ((int)a[0] == MEMBARRIER_CMD_PRIVATE_EXPEDITED) {
				vtime += membarrier_cost();
				point(me, "membarrier", 0, true);
				return 0;
			}
			break;
		case SYS_sched_setattr:
		case SYS_sched_getattr:
			return sim_sched_attr(nr, (pid_t)a[0],
					      (struct sim_sched_attr *)a[1]);
		default:
			break;
		}
	}
	return __real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
