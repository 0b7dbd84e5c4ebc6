/* SPDX-License-Identifier: MIT */
/*
 * Stall detector: the kernel's RCU CPU stall warning, for threads.
 * This file: detection, rcb_stall_report(), fork; stall_report.c: the
 * waiting-updater table and the report itself (diag/stall.h).
 *
 * A read lock that is never released (a leaked rcb_read_lock(), a reader
 * stopped by SIGSTOP or a debugger, a reader starved by real-time work
 * with boosting off) makes every later grace period wait forever.  The
 * grace-period leader already wakes at least every 10 ms while it sleeps
 * waiting for readers (gp.c, wait_for_readers()); on each wake-up it calls
 * rcb__stall_check(), which compares the wait with the stall timeout
 * (rcb__settings.stall_ms) and, the first time it is passed, writes one
 * report on stderr, fires the USDT probe rcuboost:stall and keeps a copy
 * for rcb_stall_report().
 *
 * The report names every reader holding the grace period: thread ID and
 * name, policy and priority, rcuboost's boost of it, last CPU and state
 * from /proc/self/task/<tid>/stat, nesting depth from its reader word,
 * and how long it has held grace periods.  That last figure is a lower
 * bound: the read side keeps no clock (rcb_read_lock() must not gain an
 * instruction), so the report says "for at least" the time this grace
 * period has waited, and how many earlier grace periods the reader's
 * snapshot of the counter shows it held too.  For a reader in state R,
 * the run time in /proc/.../schedstat is read twice, at least
 * STALL_RUN_SAMPLE_NS apart (longer than a scheduler tick, which is when
 * the kernel updates it for a running task): no progress means runnable
 * but not running, and the runnable threads found on its CPU (this
 * process's, then the system's where /proc lets us read them) are listed,
 * highest priority first: the thread that starves it is among them.
 * Then the waiting updaters and the callback backlog.  When priority
 * boosting cannot lift the readers (off, not permitted, no booster
 * running), the second line says so and why.
 *
 * Invariants.
 *  1. At most one report per grace period of each domain: a domain's
 *     reported_gp is the last grace period reported, written and read
 *     only by its leader under its grace-period lock (rcb__gp_lock, or
 *     the other domain's, src/core/domain.c).  Grace periods of a
 *     domain are serialised and a report needs its grace period to
 *     have waited stall_ms, so two reports of a domain are at least
 *     stall_ms apart: that is the rate limit.
 *  2. The detector takes no lock a reader may hold inside a critical
 *     section: only rcb__registry_lock (taken by every grace-period scan
 *     anyway, never held inside a critical section, registry.c
 *     invariant 3) and last_lock with a trylock (a reader may call
 *     rcb_stall_report()).  No stdio (stderr's FILE lock) and no malloc
 *     (arena locks): output by write(2) from a static buffer, /proc read
 *     with open/read/getdents64 into stack buffers (procfs.c).
 *  3. It runs in a thread that is waiting for a stalled grace period
 *     anyway, once per stall, never on a path whose latency matters: its
 *     cost (a scan of /proc, a sleep of STALL_RUN_SAMPLE_NS) is bounded
 *     by STALL_MAX_TASKS and STALL_MAX_READERS.
 *  4. Waiting updaters (rcb_synchronize() callers blocked on the grace-
 *     period lock) claim a slot of waiters[] by compare-and-exchange of
 *     its tid from 0; only the uncontended path of rcb_synchronize()
 *     skips the table, so it costs nothing there.  Everything here is a
 *     diagnostic snapshot: relaxed atomics, no ordering needed; a torn
 *     view (a tid with a stale since) is harmless and bounded by now.
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

#define STALL_BUF 16384

/* ---- detection (invariant 1) and the API ---------------------------- */

static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_report[STALL_BUF]; /* under last_lock */
static size_t last_len;             /* under last_lock; 0: none */

/* A domain's report state: its buffer and the last grace period it
 * reported, both under that domain's grace-period lock (invariant 1). */
struct stall_dom {
	char buf[STALL_BUF];
	unsigned long reported_gp;
	int dom; /* -1: the default domain */
};

static struct stall_dom memb_dom = { .dom = -1 }, doms[RCB__DOM_MAX];

/* Report grace period @gp of @d, waiting since @start_ns, once it has
 * waited the stall timeout, once per grace period. */
static void check_and_report(struct stall_dom *d, unsigned long gp,
			     unsigned long long start_ns)
{
	struct out o = { .buf = d->buf, .len = sizeof(d->buf) };
	unsigned long long now;
	int n, first = 0;

	if (!rcb__settings.stall_ms || d->reported_gp == gp)
		return;
	now = rcb__now_ns();
	if (now - start_ns < rcb__settings.stall_ms * 1000000ull)
		return;
	d->reported_gp = gp;
	n = rcb__stall_build_report(&o, gp, start_ns, &first, d->dom);
	if (n == 0)
		return;
	if (o.pos >= o.len)
		o.pos = o.len - 1;
	rcb__write_all(STDERR_FILENO, d->buf, o.pos);
	DTRACE_PROBE4(rcuboost, stall, first,
		      (long)((now - start_ns) / 1000000), n, d->buf);
	if (pthread_mutex_trylock(&last_lock) == 0) {
		memcpy(last_report, d->buf, o.pos + 1);
		last_len = o.pos;
		pthread_mutex_unlock(&last_lock);
	}
}

/* rcb__diag_hooks.stall_check (core/hooks.h) */
static void stall_check(unsigned long gp, unsigned long long start_ns)
{
	/* Once per sleeping grace period: who leads it (for the report,
	 * and for rcb_stall_report(RCB_STALL_NOW)). */
	rcb__stall_note_leader(gp, start_ns);
	check_and_report(&memb_dom, gp, start_ns);
}

/* rcb__diag_hooks.dom_stall_check: the other domains' grace periods. */
static void dom_stall_check(int dom, unsigned long gp,
			    unsigned long long start_ns)
{
	doms[dom].dom = dom;
	check_and_report(&doms[dom], gp, start_ns);
}

RCB_API int rcb_stall_report(char *buf, size_t len, unsigned int flags)
{
	struct out o = { .buf = buf, .len = len };
	unsigned long long start;
	unsigned long gp;
	int first;

	if (!buf && len) {
		rcb__misuse("rcb_stall_report", "buf is NULL with len %zu; nothing done",
			    len);
		return -EINVAL;
	}
	if (flags & ~RCB_STALL_NOW) {
		rcb__misuse("rcb_stall_report",
			    "flags 0x%x has bits other than RCB_STALL_NOW; nothing done", flags);
		return -EINVAL;
	}
	if (len)
		buf[0] = '\0';
	if (!(flags & RCB_STALL_NOW)) {
		size_t n;

		pthread_mutex_lock(&last_lock);
		n = last_len;
		if (len)
			snprintf(buf, len, "%s", last_report);
		pthread_mutex_unlock(&last_lock);
		return (int)n;
	}
	start = rcb_load_relaxed(&rcb__gp_wait_start_ns);
	gp = rcb_load_relaxed(&rcb__gp.ctr);
	if (!start || !rcb__stall_build_report(&o, gp, start, &first, -1)) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	return (int)o.pos;
}

/*
 * fork(): the child has only the forking thread.  Forget the parent's
 * waiting updaters and leader, and re-create last_lock, which another
 * thread may have held in rcb_stall_report() at the fork.
 */
static void stall_after_fork_child(void)
{
	rcb__stall_forget();
	pthread_mutex_init(&last_lock, NULL);
}

/* What core tells the stall detector (core/hooks.h). */
const struct rcb__diag_hooks rcb__diag_hooks = {
	.stall_check = stall_check,
	.dom_stall_check = dom_stall_check,
	.waiter_enter = rcb__stall_waiter_enter,
	.waiter_leave = rcb__stall_waiter_leave,
	.fork_child = stall_after_fork_child,
};
