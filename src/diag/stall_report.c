/* SPDX-License-Identifier: MIT */
/*
 * The stall detector's report (stall.c, invariants 2 to 4): the
 * waiting-updater table, and the report on the readers holding a grace
 * period, their CPUs' runnable threads, the waiting updaters and the
 * backlog, written without a lock a reader may hold, stdio or malloc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "boost/boost.h"
#include "core/hooks.h"
#include "core/internal.h"
#include "core/probes.h"
#include "core/procfs.h"
#include "core/states.h"

#include "diag/stall.h"

#define STALL_MAX_READERS 32    /* readers detailed per report */
#define STALL_MAX_CPUS 8        /* CPUs of runnable readers examined */
#define STALL_MAX_CANDS 6       /* runnable threads listed per CPU */
#define STALL_MAX_TASKS 65536   /* /proc task entries read per report */
#define STALL_WAITERS 16        /* waiting updaters remembered */
#define STALL_RUN_SAMPLE_NS (12ull * 1000 * 1000) /* > one tick at HZ=100 */

/* ---- waiting updaters (invariant 4) ------------------------------- */

static struct {
	_Atomic int tid;
	_Atomic unsigned long long since_ns;
} waiters[STALL_WAITERS];
static _Atomic unsigned long waiters_overflow;

/* The leader of the grace period that last slept waiting for readers. */
static _Atomic unsigned long leader_gp;
static _Atomic int leader_tid;
static _Atomic unsigned long long leader_since_ns;

int rcb__stall_waiter_enter(void)
{
	int tid = (int)gettid();

	for (int i = 0; i < STALL_WAITERS; i++) {
		int expect = 0;

		if (rcb_load_relaxed(&waiters[i].tid) == 0 &&
		    rcb_cmpxchg_relaxed(&waiters[i].tid, &expect, tid)) {
			rcb_store_relaxed(&waiters[i].since_ns, rcb__now_ns());
			return i;
		}
	}
	rcb_add_relaxed(&waiters_overflow, 1);
	return -1;
}

void rcb__stall_waiter_leave(int slot)
{
	if (slot < 0) {
		rcb_sub_relaxed(&waiters_overflow, 1);
		return;
	}
	rcb_store_relaxed(&waiters[slot].since_ns, 0);
	rcb_store_relaxed(&waiters[slot].tid, 0);
}

void rcb__stall_note_leader(unsigned long gp, unsigned long long start_ns)
{
	if (rcb_load_relaxed(&leader_gp) != gp) {
		rcb_store_relaxed(&leader_tid, (int)gettid());
		rcb_store_relaxed(&leader_since_ns, start_ns);
		rcb_store_relaxed(&leader_gp, gp);
	}
}

void rcb__stall_forget(void)
{
	for (int i = 0; i < STALL_WAITERS; i++) {
		rcb_store_relaxed(&waiters[i].tid, 0);
		rcb_store_relaxed(&waiters[i].since_ns, 0);
	}
	rcb_store_relaxed(&waiters_overflow, 0);
	rcb_store_relaxed(&leader_gp, 0);
}

/* ---- bounded text output ------------------------------------------ */

__attribute__((format(printf, 2, 3))) static void
out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->pos < o->len ? o->buf + o->pos : NULL,
		      o->pos < o->len ? o->len - o->pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos += (size_t)n;
}

/* ---- the report ----------------------------------------------------- */

struct reader_snap {
	int tid;
	unsigned long ctr;
	int bstate;
	unsigned long long boost_ns;
	int boost_level;
	struct task_info ti;
	bool have_ti;
	long long run0;
	bool running; /* state R and its run time advanced */
};

/* Runnable threads found on the CPU of a runnable reader. */
struct cpu_cands {
	int cpu;
	int n;
	struct task_info t[STALL_MAX_CANDS];
};

struct scan {
	int pid;          /* process whose tasks are read */
	int self_pid;
	int self_tid;
	int budget;
	struct cpu_cands *cpus;
	int ncpus;
	const struct reader_snap *r;
	int nr;
};

/* Keep the STALL_MAX_CANDS highest-priority threads per CPU. */
static void cand_add(struct cpu_cands *c, const struct task_info *ti)
{
	int i = c->n < STALL_MAX_CANDS ? c->n++ : STALL_MAX_CANDS;

	if (i == STALL_MAX_CANDS) {
		if (ti->kprio >= c->t[STALL_MAX_CANDS - 1].kprio)
			return;
		i = STALL_MAX_CANDS - 1;
	}
	while (i > 0 && c->t[i - 1].kprio > ti->kprio) {
		c->t[i] = c->t[i - 1];
		i--;
	}
	c->t[i] = *ti;
}

static void scan_task(void *arg, int tid)
{
	struct scan *s = arg;
	struct task_info ti;

	if (!rcb__proc_read_task(s->pid, tid, &ti) || ti.state != 'R')
		return;
	if (s->pid == s->self_pid && tid == s->self_tid)
		return; /* the detector, which sleeps while it samples */
	for (int i = 0; i < s->nr; i++)
		if (s->r[i].tid == tid)
			return; /* a reader itself */
	for (int i = 0; i < s->ncpus; i++)
		if (s->cpus[i].cpu == ti.cpu)
			cand_add(&s->cpus[i], &ti);
}

static void scan_process(void *arg, int pid)
{
	struct scan *s = arg;
	char path[48];

	if (pid == s->self_pid)
		return; /* read first, as "this process" */
	s->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	rcb__proc_for_each_number(path, &s->budget, scan_task, s);
}

static const char *policy_name(int policy)
{
	switch (policy) {
	case SCHED_OTHER: return "SCHED_OTHER";
	case SCHED_FIFO: return "SCHED_FIFO";
	case SCHED_RR: return "SCHED_RR";
	case SCHED_BATCH: return "SCHED_BATCH";
	case SCHED_IDLE: return "SCHED_IDLE";
	case 6: return "SCHED_DEADLINE";
	default: return "SCHED_?";
	}
}

static void out_sched(struct out *o, const struct task_info *t)
{
	if (t->policy == SCHED_FIFO || t->policy == SCHED_RR) {
		out_printf(o, "%s %d", policy_name(t->policy), t->rt_prio);
	} else {
		out_printf(o, "%s nice %d", policy_name(t->policy), t->nice);
	}
	/* Effective real-time priority from priority inheritance (pi
	 * backend, PI mutexes) when it differs. */
	if (t->kprio < 0 &&
	    (-1 - t->kprio != t->rt_prio ||
	     (t->policy != SCHED_FIFO && t->policy != SCHED_RR)))
		out_printf(o, " (running at real-time %ld by inheritance)",
			   -1 - t->kprio);
}

#define RCB__NAME3(name) #name,
#define RCB__NAME8(name, article) #article,
static const char *const names3[] = { RCB_BOOST3_STATES(RCB__NAME3) };
static const char *const names8[] = { RCB_BOOST8_STATES(RCB__NAME8) };
#undef RCB__NAME3
#undef RCB__NAME8

static void out_boost(struct out *o, const struct reader_snap *r,
		      unsigned long long now)
{
	bool eight = rcb__settings.boost_machine == 8;
	int nstates = eight ? N_RCU_BOOST8_STATE : N_RCU_BOOST_STATE;
	bool boosted = eight ? r->bstate == RCU_BOOST8_BOOSTED
			     : r->bstate == RCU_BOOSTED;

	if (!RCB_CONFIG_BOOST || !rcb__settings.boost) {
		out_printf(o, "boosting off");
		return;
	}
	if (r->bstate == 0) {
		out_printf(o, "not boosted by rcuboost");
		return;
	}
	out_printf(o, "%s",
		   r->bstate < nstates ? (eight ? names8 : names3)[r->bstate]
				       : "invalid boost state");
	if (boosted && r->boost_ns && r->boost_ns <= now)
		out_printf(o, ": boosted by rcuboost to real-time %d %llu ms ago",
			   r->boost_level, (now - r->boost_ns) / 1000000);
	else if (boosted)
		out_printf(o, ": boosted by rcuboost to real-time %d",
			   r->boost_level);
	else if (r->bstate == RCU_BOOST_BLOCKED)
		out_printf(o, ": queued for boosting");
}

static const char *state_name(const struct reader_snap *r)
{
	switch (r->ti.state) {
	case 'R': return r->running ? "running" : "runnable, not running";
	case 'S': return "sleeping";
	case 'D': return "sleeping (uninterruptible)";
	case 'T': return "stopped";
	case 't': return "stopped by a tracer";
	case 'Z': case 'X': return "exited";
	default: return "in an unknown state";
	}
}

static void sleep_ns(unsigned long long ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/*
 * One line when priority boosting cannot lift the readers: a daemon
 * whose stderr is gone reads it in rcb_stall_report(), and anyone reading a
 * stall learns the first thing to fix. Only
 * lock-free reads and getrlimit(2) (invariant 2).
 */
static void out_boost_off(struct out *o)
{
#if RCB_CONFIG_BOOST
	struct rlimit rl = { 0, 0 };

	if (!rcb__settings.boost) {
		out_printf(o, "rcuboost: stall: priority boosting is off "
			      "(RCUBOOST_BOOST=0, or rcb_config.boost -1)\n");
	} else if (rcb__booster_no_permission()) {
		(void)getrlimit(RLIMIT_RTPRIO, &rl);
		out_printf(
			o,
			"rcuboost: stall: priority boosting is off: no permission for "
			"real-time priority (no CAP_SYS_NICE in the thread that started "
			"the boosters, RLIMIT_RTPRIO %llu, booster priority %d)\n",
			(unsigned long long)rl.rlim_cur,
			rcb__settings.boost_prio);
	} else if (!rcb__booster_running()) {
		out_printf(o, "rcuboost: stall: priority boosting is off: no booster runs "
			      "(not started yet, their start failed, or the library is "
			      "shut down)\n");
	} else if (rcb__booster_prio() == 0) {
		out_printf(o, "rcuboost: stall: priority boosting is off: the booster was "
			      "moved out of real-time scheduling\n");
	}
#else
	out_printf(o, "rcuboost: stall: priority boosting is off (compiled out: "
		      "RCB_BOOST=OFF)\n");
#endif
}

/*
 * Write the report for grace period @gp, waiting for readers since
 * @start, into @o.  Returns the number of readers holding it (0: nothing
 * written); *@first gets the first one's thread ID.
 */
int rcb__stall_build_report(struct out *o, unsigned long gp,
			    unsigned long long start, int *first, int dom)
{
	bool qsbr = dom >= 0 && rcb__doms[dom].kind == RCB__DOM_KIND_QSBR;
	struct reader_snap r[STALL_MAX_READERS];
	struct cpu_cands cpus[STALL_MAX_CPUS];
	struct rcb__thread *t;
	struct rcb__backlog_v0 bl;
	unsigned long long now, sampled;
	int nr = 0, total = 0, ncpus = 0, self_pid = (int)getpid();
	bool any_r = false;

	/* Snapshot under the registry lock (invariant 2), /proc after. */
	pthread_mutex_lock(&rcb__registry_lock);
	rcb__for_each_thread(t) {
		struct rcb__dom_reader *q =
			dom >= 0 ? rcb_load_relaxed(&t->dom[dom]) : NULL;
		unsigned long ctr = dom < 0 ? rcb_load_relaxed(&t->rd->ctr) :
				    q       ? rcb_load_relaxed(&q->ctr) :
					      0;

		if (dom < 0 ? !rcb__holds_gp(ctr, gp) :
			      !rcb__dom_holds_ctr(rcb__doms[dom].kind, ctr, gp))
			continue;
		total++;
		if (nr == STALL_MAX_READERS)
			continue;
		memset(&r[nr], 0, sizeof(r[nr]));
		r[nr].tid = (int)t->tid;
		r[nr].ctr = ctr;
		r[nr].bstate = rcb__bstate_relaxed(t->rd);
		r[nr].boost_ns = rcb_load_relaxed(&t->boost.stall_boost_ns);
		r[nr].boost_level =
			rcb_load_relaxed(&t->boost.stall_boost_level);
		nr++;
	}
	pthread_mutex_unlock(&rcb__registry_lock);
	if (total == 0)
		return 0;
	*first = r[0].tid;

	for (int i = 0; i < nr; i++) {
		r[i].have_ti =
			rcb__proc_read_task(self_pid, r[i].tid, &r[i].ti);
		if (!r[i].have_ti || r[i].ti.state != 'R')
			continue;
		any_r = true;
		r[i].run0 = rcb__proc_run_ns(r[i].tid);
		int k = 0;

		while (k < ncpus && cpus[k].cpu != r[i].ti.cpu)
			k++;
		if (k == ncpus && ncpus < STALL_MAX_CPUS) {
			cpus[ncpus].cpu = r[i].ti.cpu;
			cpus[ncpus].n = 0;
			ncpus++;
		}
	}
	sampled = rcb__now_ns();
	if (any_r) {
		struct scan s = { .pid = self_pid,
				  .self_pid = self_pid,
				  .self_tid = (int)gettid(),
				  .budget = STALL_MAX_TASKS,
				  .cpus = cpus,
				  .ncpus = ncpus,
				  .r = r,
				  .nr = nr };
		char path[48];

		snprintf(path, sizeof(path), "/proc/%d/task", self_pid);
		rcb__proc_for_each_number(path, &s.budget, scan_task, &s);
		rcb__proc_for_each_number("/proc", &s.budget, scan_process, &s);
		now = rcb__now_ns();
		if (now - sampled < STALL_RUN_SAMPLE_NS)
			sleep_ns(STALL_RUN_SAMPLE_NS - (now - sampled));
		for (int i = 0; i < nr; i++) {
			long long run1;

			if (!r[i].have_ti || r[i].ti.state != 'R')
				continue;
			run1 = rcb__proc_run_ns(r[i].tid);
			r[i].running = r[i].run0 >= 0 && run1 > r[i].run0;
		}
	}

	now = rcb__now_ns();
	if (qsbr)
		out_printf(o,
			   "rcuboost: stall: %s grace period %lu has waited %llu ms for %d online "
			   "thread%s without a quiescent state (stall timeout %u ms)\n",
			   rcb__doms[dom].name, gp >> 1,
			   (now - start) / 1000000, total,
			   total == 1 ? "" : "s", rcb__settings.stall_ms);
	else
		out_printf(o,
			   "rcuboost: stall: %s%sgrace period %lu has waited %llu ms for %d reader%s (stall timeout %u ms)\n",
			   dom >= 0 ? rcb__doms[dom].name : "",
			   dom >= 0 ? " domain " : "", gp >> RCB__NEST_BITS,
			   (now - start) / 1000000, total, total == 1 ? "" : "s",
			   rcb__settings.stall_ms);
	out_boost_off(o);
	for (int i = 0; i < nr; i++) {
		const struct task_info *ti = &r[i].ti;
		unsigned long earlier =
			qsbr ? (gp - r[i].ctr) / 2 - 1 :
			       ((gp - (r[i].ctr & ~RCB__NEST_MASK)) >>
				RCB__NEST_BITS) - 1;

		out_printf(o, "rcuboost: stall: %s %d \"%s\": ",
			   qsbr ? "thread" : "reader", r[i].tid,
			   r[i].have_ti ? ti->comm : "?");
		if (r[i].have_ti) {
			out_printf(o, "%s (%c) on CPU %d, ", state_name(&r[i]),
				   ti->state, ti->cpu);
			out_sched(o, ti);
			out_printf(o, ", ");
		} else {
			out_printf(o, "/proc/self/task/%d/stat unreadable, ",
				   r[i].tid);
		}
		out_boost(o, &r[i], now);
		if (qsbr)
			out_printf(o, ", online without a quiescent state, holding grace "
				      "periods for at least %llu ms",
				   (now - start) / 1000000);
		else
			out_printf(o, ", nesting %lu, holding grace periods for at least %llu ms",
				   r[i].ctr & RCB__NEST_MASK,
				   (now - start) / 1000000);
		if (earlier)
			out_printf(o, " (this one and the %lu before it)", earlier);
		out_printf(o, "\n");
		if (!r[i].have_ti || ti->state != 'R' || r[i].running)
			continue;
		for (int k = 0; k < ncpus; k++) {
			if (cpus[k].cpu != ti->cpu)
				continue;
			if (cpus[k].n == 0)
				out_printf(o, "rcuboost: stall:   no other runnable thread found on CPU %d\n",
					   ti->cpu);
			for (int j = 0; j < cpus[k].n; j++) {
				const struct task_info *c = &cpus[k].t[j];

				out_printf(o, "rcuboost: stall:   runnable on CPU %d: thread %d \"%s\" ",
					   ti->cpu, c->tid, c->comm);
				if (c->pid == self_pid)
					out_printf(o, "(this process), ");
				else
					out_printf(o, "(process %d), ", c->pid);
				out_sched(o, c);
				out_printf(o, "\n");
			}
		}
	}
	if (total > nr)
		out_printf(o, "rcuboost: stall: and %d more %s\n", total - nr,
			   qsbr ? "threads" : "readers");
	/* The updater and backlog tables are the default domain's. */
	if (dom >= 0)
		return total;

	/* Updaters: the leader, then the callers queued behind it. */
	if (rcb_load_relaxed(&leader_gp) == gp) {
		int tid = rcb_load_relaxed(&leader_tid);
		unsigned long long since = rcb_load_relaxed(&leader_since_ns);
		struct task_info ti;
		bool ok = rcb__proc_read_task(self_pid, tid, &ti);

		out_printf(o, "rcuboost: stall: updater %d \"%s\" leads the grace period, waiting %llu ms\n",
			   tid, ok ? ti.comm : "?",
			   since && since <= now ? (now - since) / 1000000 : 0);
	}
	for (int i = 0; i < STALL_WAITERS; i++) {
		int tid = rcb_load_relaxed(&waiters[i].tid);
		unsigned long long since =
			rcb_load_relaxed(&waiters[i].since_ns);
		struct task_info ti;

		if (!tid)
			continue;
		out_printf(
			o,
			"rcuboost: stall: updater %d \"%s\" waiting %llu ms for it\n",
			tid,
			rcb__proc_read_task(self_pid, tid, &ti) ? ti.comm : "?",
			since && since <= now ? (now - since) / 1000000 : 0);
	}
	if (rcb_load_relaxed(&waiters_overflow))
		out_printf(o, "rcuboost: stall: and %lu more updaters waiting\n",
			   rcb_load_relaxed(&waiters_overflow));
	rcb_backlog(&bl);
	out_printf(o, "rcuboost: stall: callback backlog %llu callbacks, %llu bytes (peak %llu callbacks)\n",
		   (unsigned long long)bl.callbacks,
		   (unsigned long long)bl.bytes,
		   (unsigned long long)bl.peak_callbacks);
	return total;
}
