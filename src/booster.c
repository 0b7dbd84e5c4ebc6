/* SPDX-License-Identifier: MIT */
/*
 * The booster thread.  article: "Sequencing Through Lists of Tasks"
 * (rcu_booster) and "Boosting The Priority of a List of Tasks"
 * (rcu_boost_one_reader_list).
 *
 * Each period a booster advances its rcu_boost_idx, boosts the targets
 * on each of its CPUs' most-aged element, then queues on their behalf
 * the readers that have held up the current grace period for a period
 * (preempted readers cannot queue themselves; see boost.c).  A reader
 * queued at index k is boosted when the index reaches k - 1 (mod
 * elements), that is after elements - 1 more periods: 30 ms at the
 * defaults.  Sections shorter than that are never boosted.
 *
 * Multiple boosters (article: "Possible Future Enhancements", 3).  One
 * booster per group of CPUs, each with its own index, walking only its
 * CPUs' arrays.  The article's warning (RCU_UNBOOST_BLOCKED: a thread
 * requeues "on a different list" than the one a booster is working on)
 * is a problem of its 8-state machine, where a booster acts on a thread
 * outside the element lock; in the 3-state machine a booster touches a
 * thread only under the lock of the element the thread is queued on
 * (boost.c invariant 4), and every element belongs to exactly one
 * booster, so two boosters never act on one thread at a time, whatever
 * element it moves to.  Nor does an index need to be shared: the index
 * only ages one CPU group's elements, and a thread's element is chosen
 * by the CPU it blocks on.  models/boost3.pml -DBOOSTERS=2 checks this
 * (a reader migrating between two boosters' elements).  The multiple
 * boosters need the 3-state machine (init.c refuses the 8-state one).
 *
 * Memory pressure (enhancement 1).  While the backlog is above its
 * threshold (or the kernel reports memory pressure), each booster boosts
 * every queued reader of its CPUs each pass, queues preempted readers
 * as soon as a grace period waits for them, and sleeps 1 ms instead of
 * a period, until the backlog is below the low-water mark.  rcb_call*()
 * wakes the boosters when it sees the count or byte threshold crossed.
 *
 * Escalation (enhancement 2).  A boosted reader still holding up the
 * current grace period escalate_periods passes after its last raise is
 * raised one priority, up to the ceiling (rcb__boost_ceiling_level()).
 *
 * Invariants.
 *  1. Only booster b advances rcb__boosters[b].idx, and only booster b
 *     walks the elements of the CPUs mapped to it.
 *  2. The booster holds an element's lock whenever it changes a queued
 *     thread's priority or state (boost.c invariant 4) and drops it,
 *     yielding, between targets so real-time threads are not delayed.
 *  3. The booster's on-behalf queueing happens while it holds the
 *     registry lock, so a thread it queues cannot unregister or exit
 *     until the queueing is verified or reverted; and the booster does
 *     not boost anything between queueing and verifying.
 *  4. A booster runs SCHED_RR at rcb__settings.boost_prio (or what an
 *     administrator set with chrt or rcb_booster_set_prio() since: read
 *     back every pass); without permission for that it does not run and
 *     nothing is boosted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boost.h"

static pthread_mutex_t booster_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool booster_started; /* created, not joined */
static _Atomic int booster_stop;     /* 1 = stop */
/* Futex word the boosters sleep on: bumped to wake them (stop, or an
 * updater's pressure kick). */
static _Atomic int booster_wake;
static _Atomic int boosters_ready;   /* futex word: boosters up or failed */
static _Atomic bool no_permission;
static bool no_permission_reported;

struct rcb__booster *rcb__boosters;
int rcb__nboosters;
int *rcb__cpu_booster;

/* Number of boosters in the table, 0 before rcb__boost_early_init()
 * built it.  [BST-DA] pairs with [BST-D]: the table is initialised. */
static int boosters_known(void)
{
	return rcb_load_acquire(&rcb__boost_dat_ready) /* [BST-DA] */
		       ? rcb__nboosters : 0;
}

bool rcb__booster_running(void)
{
	return rcb_load_relaxed(&booster_started) && boosters_known() &&
	       rcb_load_relaxed(&rcb__boosters[0].idx) >= 0;
}

int rcb__booster_prio(void)
{
	return boosters_known() ? rcb_load_relaxed(&rcb__boosters[0].prio) : 0;
}

bool rcb__booster_no_permission(void)
{
	return rcb_load_relaxed(&no_permission);
}

long rcb__booster_passes(void)
{
	long n = 0;

	for (int i = 0; i < boosters_known(); i++)
		n += rcb_load_relaxed(&rcb__boosters[i].passes);
	return n;
}

/* CPU time of the boosters, as each published it after its last pass
 * (no lock: rcb_boost_stats() runs on booster 0 too). */
long rcb__booster_cpu_ns(void)
{
	long total = 0;

	for (int i = 0; i < boosters_known(); i++)
		total += rcb_load_relaxed(&rcb__boosters[i].cpu_ns);
	return total;
}

/* article: rcu_rbd_boosting().  The most-aged element of @cpu. */
static struct rcu_boost_dat *rcu_rbd_boosting(struct rcb__booster *b, int cpu)
{
	int idx = (rcb_load_relaxed(&b->idx) + 1) & (rcb__boost_nelem - 1);

	return rcb__rbd(cpu, idx);
}

/* article: rcu_boost_one_reader_list().  @rcuprio: the first boost
 * level. */
static void rcu_boost_one_reader_list(struct rcu_boost_dat *rbdp, int rcuprio)
{
	struct rcb__list list;
	struct rcb__thread *t;
	uint64_t t0 = 0;
	int state;

	rcb__list_init(&list);
	pthread_mutex_lock(&rbdp->rbs_mutex);
	rcb__list_splice_tail_init(&rbdp->rbs_toboost, &list);
	rcb__list_splice_tail_init(&rbdp->rbs_boosted, &list);
	while (!rcb__list_empty(&list)) {
		rcb__hold_end(&t0);
		pthread_mutex_unlock(&rbdp->rbs_mutex);
		sched_yield();
		pthread_mutex_lock(&rbdp->rbs_mutex);
		rcb__hold_begin(&t0);
		/* Targets that ended their sections meanwhile removed
		 * themselves from our local list. */
		if (rcb__list_empty(&list))
			break;
		t = rcb__container_of(list.next, struct rcb__thread,
				      boost.rcub_entry);
		rcb__list_del_init(&t->boost.rcub_entry);
		rbdp->rbs_boost_attempt++;
		state = rcb__bstate_relaxed(t->rd);
		if (state != RCU_BOOST_BLOCKED && state != RCU_BOOSTED) {
			/* An IDLE thread on a list is a list error ('!'). */
			rcb__list_add_tail(&t->boost.rcub_entry,
					   &rbdp->rbs_toboost);
			rcb__boost_stat(rbdp, RCU_BOOST_DAT_BOOST, state);
			continue;
		}
		/* BOOSTED: reboost, so a raised booster priority takes
		 * effect (article: "reboosting"); it never lowers an
		 * escalated thread. */
		rcb__boost_prio(t, rbdp, rcuprio);
		rcb__bstate_store(t->rd, RCU_BOOSTED);
		rbdp->rbs_boost++;
		rcb__boost_stat(rbdp, RCU_BOOST_DAT_BOOST, state);
		rcb__list_add_tail(&t->boost.rcub_entry, &rbdp->rbs_boosted);
	}
	rcb__hold_end(&t0);
	pthread_mutex_unlock(&rbdp->rbs_mutex);
}

/*
 * Escalation: raise by one level every boosted reader of @rbdp that
 * still holds up the current grace period escalate_periods passes after
 * its last raise, up to @ceiling.  Like rcu_boost_one_reader_list(), at
 * most one target's system calls per lock hold, yielding between
 * (invariant 2).  Context: booster, lock not held.
 */
static void escalate_list(struct rcu_boost_dat *rbdp, long pass, int ceiling)
{
	unsigned long gp = rcb_load_relaxed(&rcb__gp.ctr);
	struct rcb__list list;
	struct rcb__thread *t;
	uint64_t t0 = 0;

	rcb__list_init(&list);
	rcb__boost_lock(rbdp);
	rcb__list_splice_tail_init(&rbdp->rbs_boosted, &list);
	while (!rcb__list_empty(&list)) {
		t = rcb__container_of(list.next, struct rcb__thread,
				      boost.rcub_entry);
		rcb__list_del_init(&t->boost.rcub_entry);
		rcb__list_add_tail(&t->boost.rcub_entry, &rbdp->rbs_boosted);
		if (rcb__bstate_relaxed(t->rd) != RCU_BOOSTED ||
		    !rcb__holds_gp(rcb_load_relaxed(&t->rd->ctr), gp))
			continue;
		if (!t->boost.esc_pass) {
			t->boost.esc_pass = pass; /* boosted since last look */
			continue;
		}
		if (pass - t->boost.esc_pass <
			    (long)rcb__settings.escalate_periods ||
		    t->boost.level >= ceiling || t->boost.level < 1)
			continue;
		rcb__hold_begin(&t0);
		rcb__boost_prio(t, rbdp, t->boost.level + 1);
		t->boost.esc_pass = pass;
		rcb_add_relaxed(&rcb__escalations, 1);
		rcb__hold_end(&t0);
		/* Let real-time work waiting for this element in. */
		rcb__boost_unlock(rbdp);
		sched_yield();
		rcb__boost_lock(rbdp);
	}
	rcb__boost_unlock(rbdp);
}

/* Verify a batch of on-behalf queueings (enqueue_preempted_readers()
 * below says why): keep those whose reader still holds grace period
 * @gp, revert the others.  Returns the number kept.  Context: registry
 * lock held. */
#define RCB_ENQ_BATCH 64
static int verify_batch(struct rcb__thread **queued,
			struct rcu_boost_dat **queued_on, int n, unsigned long gp)
{
	int kept = 0;

	if (!n)
		return 0;
	rcb__membarrier(); /* [BST-M] see enqueue_preempted_readers() */
	for (int i = 0; i < n; i++) {
		if (rcb__holds_gp(rcb_load_relaxed(&queued[i]->rd->ctr), gp)) {
			pthread_mutex_lock(&queued_on[i]->rbs_mutex);
			queued_on[i]->rbs_preempt_enqueued++;
			pthread_mutex_unlock(&queued_on[i]->rbs_mutex);
			kept++;
			continue;
		}
		rcb__boost_revert(queued[i], queued_on[i]);
	}
	return kept;
}

/*
 * Queue, on their behalf, registered readers of booster @b's CPUs that
 * have held up the current grace period for at least @min_wait_ns.  See
 * boost.c for why the queueing is verified: a reader that left its
 * section between our scan and our queueing may have tested its boost
 * state before we set it; the membarrier makes its ctr store visible to
 * the re-check in verify_batch() in that case ([BST-M] pairs with [RD-W] in
 * rcb_read_unlock(): store-buffering of "state = BLOCKED; ctr?" against
 * "ctr = 0; state?").  Returns the number queued and kept.
 */
static int enqueue_preempted_readers(struct rcb__booster *b, uint64_t now,
				     uint64_t min_wait_ns)
{
	unsigned long long start = rcb_load_relaxed(&rcb__gp_wait_start_ns);
	struct rcu_boost_dat *queued_on[RCB_ENQ_BATCH];
	struct rcb__thread *queued[RCB_ENQ_BATCH];
	struct rcb__thread *t;
	unsigned long gp;
	int n = 0, kept = 0, cpu;

	if (!start || now - start < min_wait_ns)
		return 0;
	gp = rcb_load_relaxed(&rcb__gp.ctr);
	pthread_mutex_lock(&rcb__registry_lock);
	rcb__for_each_thread(t) {
		struct rcu_boost_dat *rbdp;

		if (!rcb__holds_gp(rcb_load_relaxed(&t->rd->ctr), gp) ||
		    rcb__bstate_relaxed(t->rd) != RCU_BOOST_IDLE)
			continue;
		cpu = rcb__sched_last_cpu(t->tid);
		if (cpu < 0 || cpu >= rcb__boost_ncpus)
			cpu = 0;
		/* Another booster's reader: it queues it (invariant 1). */
		if (rcb__cpu_booster[cpu] != b->id)
			continue;
		rbdp = rcb__rbd(cpu, rcb_load_relaxed(&b->idx));
		if (rcb__boost_enqueue(t, rbdp, true)) {
			queued_on[n] = rbdp;
			queued[n++] = t;
		}
		/* A full batch is verified before the scan goes on, so every
		 * stalled reader is found in one pass, not only the first
		 * RCB_ENQ_BATCH in registry order. */
		if (n == RCB_ENQ_BATCH) {
			kept += verify_batch(queued, queued_on, n, gp);
			n = 0;
		}
	}
	kept += verify_batch(queued, queued_on, n, gp);
	pthread_mutex_unlock(&rcb__registry_lock);
	return kept;
}

/* ---- memory pressure ----------------------------------------------- */

static void boosters_wake(void);

/*
 * Pressure state, shared by the boosters: evaluated by whichever booster
 * gets pressure_lock (try-lock: the others use the last verdict).
 */
static pthread_mutex_t pressure_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool pressure_active;
static _Atomic long pressure_entries, pressure_kicks;
static char cgroup_dir[512]; /* "" if the process's cgroup v2 is unknown */
static unsigned long long cgroup_events_seen;
static int cgroup_events_fd; /* read_kept() */
static uint64_t cgroup_events_at_ns;
static bool cgroup_events_hit;
static bool cgroup_events_known;
/* rcb_call*() kicks the boosters when the count reaches this (0: not
 * watching); read on every rcb_call*(), so it has its own cache line. */
_Atomic unsigned long long rcb__pressure_kick_at __attribute__((aligned(64)));
_Atomic unsigned long long rcb__pressure_kick_bytes;
static _Atomic int pressure_kicked;

bool rcb__pressure_active(void)
{
	return rcb_load_relaxed(&pressure_active);
}

long rcb__pressure_entries(void)
{
	return rcb_load_relaxed(&pressure_entries);
}

long rcb__pressure_kicks(void)
{
	return rcb_load_relaxed(&pressure_kicks);
}

static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/*
 * The pressure files stay open (the booster, a real-time thread, reads
 * them up to every millisecond under pressure): *@fd is 0 before the
 * first try, -1 if the file cannot be opened, else the descriptor + 1.
 * pread() at offset 0 makes the kernel regenerate the text.
 */
static ssize_t read_kept(const char *path, int *fd, char *buf, size_t len)
{
	ssize_t n;

	if (*fd == 0) {
		int f = open(path, O_RDONLY | O_CLOEXEC);

		*fd = f < 0 ? -1 : f + 1;
	}
	if (*fd < 0)
		return -1;
	n = pread(*fd - 1, buf, len - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/*
 * One PSI file ("some avg10=... total=US\nfull ..."): the "some" line's
 * total stall time in microseconds.  Returns false if unreadable.
 */
static bool psi_read(const char *path, int *fd, unsigned long long *total)
{
	char buf[512], *p, *t;

	if (read_kept(path, fd, buf, sizeof(buf)) <= 0 ||
	    !(p = strstr(buf, "some ")) || !(t = strstr(p, "total=")))
		return false;
	*total = strtoull(t + strlen("total="), NULL, 10);
	return true;
}

/* Sum of the high, max and oom counters of the cgroup's memory.events. */
static bool cgroup_events(unsigned long long *sum)
{
	static const char *const keys[] = { "\nhigh ", "\nmax ", "\noom " };
	char path[600], buf[1024];

	if (!cgroup_dir[0])
		return false;
	snprintf(path, sizeof(path), "%s/memory.events", cgroup_dir);
	buf[0] = '\n';
	if (read_kept(path, &cgroup_events_fd, buf + 1, sizeof(buf) - 1) <= 0)
		return false;
	*sum = 0;
	for (int i = 0; i < 3; i++) {
		char *p = strstr(buf, keys[i]);

		if (p)
			*sum += strtoull(p + strlen(keys[i]), NULL, 10);
	}
	return true;
}

/*
 * The cgroup v2 directory of this process: the cgroup2 mount point (from
 * /proc/self/mountinfo; /sys/fs/cgroup on a unified system,
 * /sys/fs/cgroup/unified on a hybrid one) joined with the "0::/path" line
 * of /proc/self/cgroup.  Empty if either is unknown.
 */
static void find_cgroup(void)
{
	char buf[8192], mnt[256] = "", *p, *nl, *line;

	cgroup_dir[0] = '\0';
	if (read_small("/proc/self/mountinfo", buf, sizeof(buf)) > 0) {
		for (line = buf; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			/* "... mountpoint options - cgroup2 ..." */
			if (strstr(line, " - cgroup2 ") &&
			    sscanf(line, "%*s %*s %*s %*s %255s", mnt) == 1)
				break;
			mnt[0] = '\0';
		}
	}
	if (!mnt[0] || read_small("/proc/self/cgroup", buf, sizeof(buf)) <= 0 ||
	    !(p = strstr(buf, "0::")))
		return;
	p += 3;
	if ((nl = strchr(p, '\n')))
		*nl = '\0';
	snprintf(cgroup_dir, sizeof(cgroup_dir), "%s%s", mnt,
		 strcmp(p, "/") == 0 ? "" : p);
	cgroup_events_known = cgroup_events(&cgroup_events_seen);
}

/* A PSI file and the booster's previous look at it. */
struct psi_source {
	unsigned long long total_us, at_ns;
	bool hit;
	int fd; /* read_kept() */
};
static struct psi_source psi_system, psi_cgroup;

/*
 * Memory pressure from PSI file @path: the share of time some task
 * stalled on memory ("some ... total=" microseconds) since our previous
 * look, at least 100 ms ago, is at or above @pct percent.  The kernel's
 * avg10 would be smoother but trails an episode by seconds both ways;
 * a backlog grows in milliseconds.  Between looks the last verdict holds.
 */
static bool psi_hit(const char *path, struct psi_source *src, unsigned int pct,
		    uint64_t now)
{
	unsigned long long total;

	if (src->at_ns && now - src->at_ns < 100000000ull)
		return src->hit;
	if (!psi_read(path, &src->fd, &total))
		return false;
	src->hit = src->at_ns && total >= src->total_us &&
		   (total - src->total_us) * 1000ull * 100 >=
			   (now - src->at_ns) * pct;
	src->total_us = total;
	src->at_ns = now;
	return src->hit;
}

/* Is the kernel reporting memory pressure (PSI at or above the setting,
 * or a new memory.events high/max/oom event)? */
static bool kernel_pressure(unsigned int pct, uint64_t now)
{
	unsigned long long ev;
	char path[600];
	bool hit = psi_hit("/proc/pressure/memory", &psi_system, pct, now);

	if (cgroup_dir[0]) {
		snprintf(path, sizeof(path), "%s/memory.pressure", cgroup_dir);
		if (psi_hit(path, &psi_cgroup, pct, now))
			hit = true;
		/* New events count for one PSI window, like a stall share. */
		if (now - cgroup_events_at_ns >= 100000000ull) {
			cgroup_events_hit = false;
			if (cgroup_events(&ev)) {
				cgroup_events_hit = cgroup_events_known &&
						    ev != cgroup_events_seen;
				cgroup_events_seen = ev;
				cgroup_events_known = true;
			}
			cgroup_events_at_ns = now;
		}
		if (cgroup_events_hit)
			hit = true;
	}
	return hit;
}

/*
 * Update the pressure verdict (hysteresis): enter at a threshold, leave
 * below pressure_low_pct percent of every threshold.  Returns the
 * verdict.  Context: a booster.
 */
static bool pressure_update(uint64_t now)
{
	const struct rcb__settings *st = &rcb__settings;
	struct rcb_backlog bl;
	bool active, high, low, entered = false;

	if (!rcb__pressure_on())
		return false;
	if (pthread_mutex_trylock(&pressure_lock) != 0)
		return rcb_load_relaxed(&pressure_active);
	/* Cheap: two counters, and the kernel's files at most every
	 * 100 ms (psi_hit()); so every pass evaluates, and a kick is
	 * never swallowed by a stale verdict. */
	active = rcb_load_relaxed(&pressure_active);
	rcb_backlog(&bl);
	high = (st->pressure_callbacks && bl.callbacks >= st->pressure_callbacks) ||
	       (st->pressure_bytes && bl.bytes >= st->pressure_bytes);
	low = (!st->pressure_callbacks ||
	       bl.callbacks * 100 < st->pressure_callbacks * st->pressure_low_pct) &&
	      (!st->pressure_bytes ||
	       bl.bytes * 100 < st->pressure_bytes * st->pressure_low_pct);
	if (st->pressure_psi && kernel_pressure(st->pressure_psi, now)) {
		high = true;
		low = false;
	}
	if (!active && high) {
		active = true;
		rcb_add_relaxed(&pressure_entries, 1);
		/* The other boosters may have used the old verdict (try-lock
		 * above) and gone to sleep for a period: wake them. */
		entered = true;
	} else if (active && low) {
		active = false;
	}
	rcb_store_relaxed(&pressure_active, active);
	/* Updaters kick once per episode: re-armed only below the
	 * low-water mark, so a kick that raced with this evaluation (it
	 * read the backlog just before the kicker's callback) is not
	 * followed by one wake-up per callback until the next. */
	if (!active && low)
		rcb_store_relaxed(&pressure_kicked, 0);
	else if (active)
		rcb_store_relaxed(&pressure_kicked, 1);
	pthread_mutex_unlock(&pressure_lock);
	if (entered && rcb__nboosters > 1)
		boosters_wake();
	return active;
}

/* Wake every booster now. */
static void boosters_wake(void)
{
	/* [BST-KW] pairs with [BST-KWA] in rcu_booster(): a booster that
	 * sees the new count also sees what the waker did before (the
	 * callbacks over the threshold, or the stop request). */
	rcb_add_release(&booster_wake, 1);
	rcb__futex_wake(&booster_wake, INT32_MAX);
}

/*
 * rcb_call*() found the backlog at the count threshold: wake the
 * boosters so they enter pressure mode without waiting out a period.
 * One kick per episode.  Context: any thread, inside rcb_call*().
 */
void rcb__pressure_kick(void)
{
	int expect = 0;

	if (rcb_load_relaxed(&pressure_kicked) ||
	    !rcb_cmpxchg_relaxed(&pressure_kicked, &expect, 1))
		return;
	rcb_add_relaxed(&pressure_kicks, 1);
	boosters_wake();
}

/* ---- the booster thread ---------------------------------------------- */

/* The booster's real-time priority now (chrt may have changed it), or
 * 0 if an administrator moved it out of real-time: then it boosts
 * nothing, as boosting readers above itself would starve it. */
static int own_prio(void)
{
	struct sched_param sp;
	int policy = sched_getscheduler(0);

	if (policy != SCHED_RR && policy != SCHED_FIFO)
		return policy < 0 ? rcb__settings.boost_prio : 0;
	if (sched_getparam(0, &sp) != 0 || sp.sched_priority < 1)
		return rcb__settings.boost_prio;
	return sp.sched_priority;
}

static void report_no_permission(int err)
{
	if (no_permission_reported)
		return;
	no_permission_reported = true;
	fprintf(stderr,
		"rcuboost: priority boosting disabled: no permission for real-time priority "
		"(sched_setattr SCHED_RR %d: %s; needs CAP_SYS_NICE or RLIMIT_RTPRIO >= %d, "
		"and a cgroup that allows real-time tasks). RCU keeps working unboosted.\n",
		rcb__settings.boost_prio, strerror(err), rcb__settings.boost_prio);
}

/* One pass of booster @b at priority @prio. */
static void booster_pass(struct rcb__booster *b, int prio, uint64_t now,
			 uint64_t period_ns, long pass)
{
	int first = rcb__boost_first_level(prio);
	bool aggressive = pressure_update(now);

	rcb_store_relaxed(&b->idx, (rcb_load_relaxed(&b->idx) + 1) &
					   (rcb__boost_nelem - 1));
	for (int cpu = 0; cpu < rcb__boost_ncpus; cpu++) {
		if (rcb__cpu_booster[cpu] != b->id)
			continue;
#ifdef RCB_PERTASK_LOCK
		rcb__boost_pt_one_reader_list(rcu_rbd_boosting(b, cpu), first);
		continue;
#endif
		if (rcb__machine8())
			rcb__boost8_one_reader_list(rcu_rbd_boosting(b, cpu), first);
		else
			rcu_boost_one_reader_list(rcu_rbd_boosting(b, cpu), first);
	}
	if (RCB_PERTASK) /* the article's variant has no on-behalf path */
		return;
	if (!aggressive) {
		enqueue_preempted_readers(b, now, period_ns);
	} else {
		/* Pressure: every queued reader now, aged or not, including
		 * preempted ones found as soon as a grace period waits (the
		 * aged element was walked above). */
		enqueue_preempted_readers(b, now, 0);
		for (int cpu = 0; cpu < rcb__boost_ncpus; cpu++) {
			if (rcb__cpu_booster[cpu] != b->id)
				continue;
			for (int i = 0; i < rcb__boost_nelem; i++)
				if (rcb__rbd(cpu, i) != rcu_rbd_boosting(b, cpu))
					rcu_boost_one_reader_list(rcb__rbd(cpu, i),
								  first);
		}
	}
	if (rcb__settings.escalate_periods) {
		int ceiling = rcb__boost_ceiling_level(prio);

		for (int cpu = 0; cpu < rcb__boost_ncpus; cpu++) {
			if (rcb__cpu_booster[cpu] != b->id)
				continue;
			for (int i = 0; i < rcb__boost_nelem; i++)
				escalate_list(rcb__rbd(cpu, i), pass, ceiling);
		}
	}
}

static void *rcu_booster(void *arg)
{
	struct rcb__booster *b = arg;
	struct sched_param sp = { .sched_priority = rcb__settings.boost_prio };
	uint64_t period_ns = (uint64_t)rcb__settings.boost_period_ms * 1000000ull;
	uint64_t last_print = rcb__now_ns();
	char name[16];
	int err;

	snprintf(name, sizeof(name), b->id ? "rcuboost-boost%d" : "rcuboost-boost",
		 b->id);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	rcb_store_relaxed(&b->tid, (pid_t)syscall(SYS_gettid));
	err = pthread_setschedparam(pthread_self(), SCHED_RR, &sp);
	if (err) {
		rcb_store_relaxed(&no_permission, true);
		report_no_permission(err);
	} else {
		rcb_store_relaxed(&b->prio, sp.sched_priority);
		/* [BST-I] The arrays (rcb__boost_early_init) are
		 * initialised before the index reads non-negative.  Pairs
		 * with [BST-N] in rcu_rbd_new(). */
		rcb_store_release(&b->idx, 0);
	}
	/* [BST-W] pairs with [BST-WA] in rcb__booster_start(). */
	rcb_add_release(&boosters_ready, 1);
	rcb__futex_wake(&boosters_ready, INT32_MAX);
	if (err)
		return NULL;
	for (long pass = 1;; pass++) {
		/* [BST-KWA] pairs with [BST-KW] in boosters_wake(); a wake-up
		 * after this load makes the futex wait below return. */
		int wake = rcb_load_acquire(&booster_wake);
		int prio = own_prio();
		uint64_t now = rcb__now_ns();

		/* [BST-S] pairs with [BST-T] in rcb__booster_stop(). */
		if (rcb_load_acquire(&booster_stop))
			break;
		rcb_store_relaxed(&b->prio, prio);
		if (prio)
			booster_pass(b, prio, now, period_ns, pass);
		rcb_add_relaxed(&b->passes, 1);
		{
			struct timespec ts;

			if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
				rcb_store_relaxed(&b->cpu_ns,
						  (long)ts.tv_sec * 1000000000L +
							  ts.tv_nsec);
		}
		if (b->id == 0 && rcb__settings.stats_interval_s &&
		    now - last_print >= rcb__settings.stats_interval_s * 1000000000ull) {
			struct rcb_boost_stats s;
			char buf[1024];

			rcb_boost_stats(&s);
			rcb_boost_stats_format(&s, buf, sizeof(buf), 0);
			fputs(buf, stderr);
			last_print = now;
		}
		rcb__futex_wait(&booster_wake, wake,
				rcb_load_relaxed(&pressure_active) ? 1000000 : period_ns);
	}
	return NULL;
}

/* Call @fn(@lo..@hi) for each range of a sysfs list such as "0-3,8-11". */
static void for_each_range(const char *list, void (*fn)(long lo, long hi, void *),
			   void *arg)
{
	const char *p = list;

	while (*p >= '0' && *p <= '9') {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		fn(lo, hi, arg);
		if (*end != ',')
			break;
		p = end + 1;
	}
}

struct numa_walk {
	int *map, ncpus, nodes;
};

static void numa_cpus(long lo, long hi, void *arg)
{
	struct numa_walk *w = arg;

	for (long c = lo < 0 ? 0 : lo; c <= hi && c < w->ncpus; c++)
		w->map[c] = w->nodes - 1;
}

static void numa_node(long lo, long hi, void *arg)
{
	struct numa_walk *w = arg;
	char path[96], buf[4096];

	for (long node = lo; node <= hi && node < 4096; node++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%ld/cpulist", node);
		if (read_small(path, buf, sizeof(buf)) <= 0)
			continue;
		w->nodes++;
		for_each_range(buf, numa_cpus, w);
	}
}

/* Number each CPU's NUMA node (densely, from 0) in @map from sysfs;
 * false if there is one node (or no such information). */
static bool numa_map(int *map, int ncpus)
{
	struct numa_walk w = { map, ncpus, 0 };
	char buf[4096];

	for (int i = 0; i < ncpus; i++)
		map[i] = 0;
	if (read_small("/sys/devices/system/node/online", buf, sizeof(buf)) <= 0)
		return false;
	for_each_range(buf, numa_node, &w);
	return w.nodes > 1;
}

/*
 * Map CPUs to boosters (rcb__cpu_booster, rcb__nboosters) from
 * booster_cpus: -1 one booster; N: N consecutive CPUs each; 0: one per
 * NUMA node.  Context: rcb__boost_early_init(), once.
 */
int rcb__boosters_init(int ncpus)
{
	int *map = calloc((size_t)ncpus, sizeof(*map));
	int n = 1, per = rcb__settings.booster_cpus;

	if (!map)
		return -ENOMEM;
	if (per > 0) {
		for (int c = 0; c < ncpus; c++)
			map[c] = c / per;
		n = (ncpus + per - 1) / per;
	} else if (per == 0 && numa_map(map, ncpus)) {
		for (int c = 0; c < ncpus; c++)
			if (map[c] + 1 > n)
				n = map[c] + 1;
	} else {
		memset(map, 0, sizeof(*map) * (size_t)ncpus);
	}
	rcb__boosters = aligned_alloc(64, sizeof(*rcb__boosters) * (size_t)n);
	if (!rcb__boosters) {
		free(map);
		return -ENOMEM;
	}
	memset(rcb__boosters, 0, sizeof(*rcb__boosters) * (size_t)n);
	for (int i = 0; i < n; i++) {
		rcb__boosters[i].id = i;
		rcb_store_relaxed(&rcb__boosters[i].idx, -1);
	}
	for (int c = 0; c < ncpus; c++)
		rcb__boosters[map[c]].ncpus++;
	rcb__cpu_booster = map;
	rcb__nboosters = n;
	find_cgroup();
	return 0;
}

/*
 * Stop and join the booster threads that run, then the pi backend's
 * helpers (after the boosters: a booster may be binding one).  Context:
 * booster_lock held.
 */
static void boosters_stop_locked(bool pi_started)
{
	rcb_store_relaxed(&rcb__pressure_kick_at, 0);
	rcb_store_relaxed(&rcb__pressure_kick_bytes, 0);
	/* [BST-T] pairs with [BST-S]. */
	rcb_store_release(&booster_stop, 1);
	boosters_wake();
	for (int i = 0; i < rcb__nboosters; i++) {
		struct rcb__booster *b = &rcb__boosters[i];

		if (!b->started)
			continue;
		pthread_join(b->thread, NULL);
		b->started = false;
		rcb_store_relaxed(&b->tid, 0);
		/* Queued readers stay queued and dequeue themselves; new
		 * blocks are "too early" until the booster runs again.
		 * [BST-I] the index goes back to -1 (rcu_rbd_new() tests it
		 * with [BST-N]; nothing to publish with it). */
		rcb_store_release(&b->idx, -1);
	}
	if (pi_started)
		rcb__pi_stop();
	rcb_store_relaxed(&pressure_active, false);
	rcb_store_relaxed(&pressure_kicked, 0);
	/* No booster runs: their PSI readings may be reset. */
	psi_system.at_ns = psi_cgroup.at_ns = cgroup_events_at_ns = 0;
	cgroup_events_hit = false;
	psi_system.hit = psi_cgroup.hit = false;
	rcb_store_relaxed(&booster_started, false);
}

/*
 * article: init_rcu_boost_late().  Start the boosters unless they run or
 * were refused real-time priority: all of them or none (a CPU group
 * without its booster would never be boosted).  @for_init: called by
 * rcb_init() under its lock, before it sets rcb__running; otherwise
 * (a grace period's kick) only while the library runs.  On failure
 * nothing is left behind: the threads started are joined, the arrays
 * allocated by this call are freed, no_permission is cleared.  Returns
 * 0 or a negative errno.
 */
static int booster_start(bool for_init)
{
	bool pi_started = false;
	int err = 0, started = 0;

	if (!rcb__settings.boost || rcb_load_relaxed(&no_permission))
		return 0;
	if (rcb_load_acquire(&booster_started)) /* [BST-K] pairs with [BST-KR] */
		return 0;
	pthread_mutex_lock(&booster_lock);
	if (!rcb_load_relaxed(&booster_started) &&
	    (for_init || rcb_load_relaxed(&rcb__running))) {
		err = -rcb__boost_early_init();
		if (!err && rcb__backend_pi()) {
			err = -rcb__pi_start();
			pi_started = !err;
		}
		if (!err) {
			rcb_store_relaxed(&booster_stop, 0);
			rcb_store_relaxed(&boosters_ready, 0);
		}
		for (int i = 0; !err && i < rcb__nboosters; i++) {
			struct rcb__booster *b = &rcb__boosters[i];

			rcb_store_relaxed(&b->tid, 0);
			err = pthread_create(&b->thread, NULL, rcu_booster, b);
			if (!err) {
				b->started = true;
				started++;
			}
		}
		/* On return the boosters run (or have reported that they
		 * may not): blocks noted from now on are seen.  [BST-WA]
		 * pairs with [BST-W]. */
		for (int r; (r = rcb_load_acquire(&boosters_ready)) < started;)
			rcb__futex_wait(&boosters_ready, r, 0);
		if (err) {
			boosters_stop_locked(pi_started);
			rcb__boost_early_undo();
			/* A booster refused real-time priority before another
			 * failed to start: the refusal is not remembered, the
			 * next start asks again. */
			rcb_store_relaxed(&no_permission, false);
			fprintf(stderr, "rcuboost: cannot start the booster threads: %s\n",
				strerror(err));
		} else {
			rcb__boost_early_publish();
			if (rcb__settings.pressure_callbacks)
				rcb_store_relaxed(&rcb__pressure_kick_at,
						  rcb__settings.pressure_callbacks);
			if (rcb__settings.pressure_bytes)
				rcb_store_relaxed(&rcb__pressure_kick_bytes,
						  rcb__settings.pressure_bytes);
			rcb_store_release(&booster_started, true); /* [BST-KR] */
		}
	}
	pthread_mutex_unlock(&booster_lock);
	return -err;
}

int rcb__booster_start(void)
{
	return booster_start(false);
}

int rcb__booster_start_init(void)
{
	return booster_start(true);
}

/* A grace period waits for a blocked reader: make sure the boosters run.
 * Context: any thread but a booster. */
void rcb__booster_kick(void)
{
	if (RCB_LIKELY(rcb_load_relaxed(&booster_started)))
		return;
	rcb__booster_start();
}

void rcb__booster_stop(void)
{
	pthread_mutex_lock(&booster_lock);
	if (rcb_load_relaxed(&booster_started))
		boosters_stop_locked(rcb__backend_pi());
	pthread_mutex_unlock(&booster_lock);
}

RCB_API int rcb_booster_set_prio(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int err = 0, n = 0;

	if (prio < 2 || prio > 99) {
		fprintf(stderr, "rcuboost: rcb_booster_set_prio: priority %d is invalid: "
			"expected 2 to 99 (boosted readers run below the booster)\n", prio);
		return -EINVAL;
	}
	pthread_mutex_lock(&booster_lock);
	/* Every booster, even after a failure, so that they stay alike
	 * where the kernel allows it; the first error is returned. */
	for (int i = 0; rcb__boosters && i < rcb__nboosters; i++) {
		int e;

		if (!rcb__boosters[i].started)
			continue;
		n++;
		e = pthread_setschedparam(rcb__boosters[i].thread, SCHED_RR, &sp);
		if (e && !err)
			err = e;
	}
	pthread_mutex_unlock(&booster_lock);
	if (!n)
		return -ESRCH;
	return -err;
}

RCB_API int rcb_booster_tids(pid_t *tids, int n)
{
	int found = 0;

	pthread_mutex_lock(&booster_lock);
	for (int i = 0; rcb__boosters && i < rcb__nboosters; i++) {
		pid_t tid = rcb_load_relaxed(&rcb__boosters[i].tid);

		if (!rcb__boosters[i].started || !tid)
			continue;
		if (found < n && tids)
			tids[found] = tid;
		found++;
	}
	pthread_mutex_unlock(&booster_lock);
	return found;
}

/*
 * fork(): the child has only the forking thread.  Forget the other
 * threads' queueing (their records are stale copies), re-create the
 * element locks (possibly held by vanished threads), and give back a
 * boost the forking thread inherited into the child.
 */
void rcb__boost_after_fork_child(void)
{
	struct rcb__thread *self = rcb__self();

	pthread_mutex_init(&booster_lock, NULL);
	pthread_mutex_init(&pressure_lock, NULL);
	rcb_store_relaxed(&booster_started, false);
	rcb_store_relaxed(&rcb__pressure_kick_at, 0);
	rcb_store_relaxed(&rcb__pressure_kick_bytes, 0);
	rcb_store_relaxed(&pressure_active, false);
	rcb_store_relaxed(&pressure_kicked, 0);
	for (int i = 0; rcb__boosters && i < rcb__nboosters; i++) {
		rcb__boosters[i].started = false;
		rcb_store_relaxed(&rcb__boosters[i].tid, 0);
		rcb_store_relaxed(&rcb__boosters[i].idx, -1);
	}
	if (rcb__boost_dat) {
		for (int i = 0; i < rcb__boost_ncpus * rcb__boost_nelem; i++) {
			struct rcu_boost_dat *rbdp = &rcb__boost_dat[i];

			rcb__pi_mutex_init(&rbdp->rbs_mutex);
			rcb__list_init(&rbdp->rbs_toboost);
			rcb__list_init(&rbdp->rbs_boosted);
		}
	}
	rcb__list_init(&self->boost.rcub_entry);
	rcb_store_relaxed(&self->boost.rcub_rbdp, NULL);
	if (self->rd) /* NULL if the forking thread never registered */
		rcb__bstate_store(self->rd, RCU_BOOST_IDLE);
	self->boost.level = 0;
	if (rcb__backend_pi())
		rcb__pi_after_fork_child();
	if (self->boost.applied) {
		struct rcb__sched_attr cur;

		self->boost.applied = false;
		if (rcb__sched_get(0, &cur) == 0 &&
		    rcb__sched_same(&cur, &self->boost.set))
			rcb__sched_set(0, &self->boost.orig);
	}
}
