/* SPDX-License-Identifier: MIT */
/*
 * The booster threads: their loop, start and stop, fork, the control
 * calls and the statistics accessors.  article: rcu_booster(),
 * init_rcu_boost_late().  What one pass does is in booster_pass.c; CPU
 * groups (which booster serves which CPU) in cpugroup.c; the pressure
 * verdict in pressure.c.
 *
 * Memory pressure (enhancement 1).  While the backlog is above its
 * threshold (or the kernel reports memory pressure), each booster boosts
 * every queued reader of its CPUs each pass, queues preempted readers
 * as soon as a grace period waits for them, and sleeps 1 ms instead of
 * a period, until the backlog is below the low-water mark.  rcb_call*()
 * wakes the boosters when it sees the count or byte threshold crossed.
 *
 * Invariants.
 *  1. A booster runs SCHED_RR at rcb__settings.boost_prio (or what an
 *     administrator set with chrt or rcb_booster_set_prio() since: read
 *     back every pass); without permission for that it does not run and
 *     nothing is boosted.
 *  2. The boosters are started all or none (a CPU group without its
 *     booster would never be boosted), under rcb__booster_lock;
 *     booster_started is set ([BST-KR]) only after every booster has
 *     reported that it runs or that it was refused real-time priority.
 *  3. Idle.  A booster makes no pass and sleeps with
 *     no timeout while no grace period waits for readers
 *     (rcb__wait_start_any() == 0), pressure mode is off and no reader
 *     is queued on its elements: a process with no waiting grace
 *     period and no reader blocked in rcb_note_block() sees 0 booster
 *     wake-ups per second.  Two events end the sleep: a grace period
 *     that starts to wait (rcb__booster_kick() after its spin phase;
 *     [BST-IDL]/[BST-IDK] make sure that a booster going idle and a
 *     grace period starting to wait cannot both miss the other), and a
 *     reader that queues itself (rcb__booster_note_queued(), ordered
 *     by the element lock, [BST-IDQ]).  The article's aging is thus
 *     unchanged while any reader is queued, and the bounds are the
 *     same as without idling: a reader that queued itself is boosted
 *     within elements - 1 periods, a preempted reader within elements
 *     + 1 periods of the grace period's start of waiting (one before
 *     it is queued on its behalf, elements - 1 to age, one for the
 *     phase of the first pass), plus, after an idle sleep, the
 *     booster's wake-up (one futex wake).  The stall detector runs in
 *     the waiting updater, not here.  Opt-in exceptions: with
 *     RCUBOOST_STATS_INTERVAL booster 0 wakes for its report every
 *     interval, with RCUBOOST_PRESSURE_PSI every 100 ms to read the
 *     kernel's memory pressure (10 wake-ups per second, not 100).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boost/boost.h"
#include "callback/callback.h"

pthread_mutex_t rcb__booster_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool booster_started; /* created, not joined */
static _Atomic int booster_stop;     /* 1 = stop */
/* Futex word the boosters sleep on: bumped to wake them (stop, or an
 * updater's pressure kick). */
static _Atomic int booster_wake;
static _Atomic int boosters_ready;   /* futex word: boosters up or failed */
static _Atomic bool no_permission;
static _Atomic bool no_permission_reported;
/* Boosters about to sleep, or asleep, idle (invariant 3). */
static _Atomic int boosters_idle;

/* Number of boosters in the table, 0 before rcb__boost_early_init()
 * built it.  [BST-DA] pairs with [BST-D]: the table is initialised. */
int rcb__boosters_known(void)
{
	return rcb_load_acquire(&rcb__boost_dat_ready) /* [BST-DA] */
		       ? rcb__nboosters : 0;
}

bool rcb__booster_running(void)
{
	return rcb_load_relaxed(&booster_started) && rcb__boosters_known() &&
	       rcb_load_relaxed(&rcb__boosters[0].idx) >= 0;
}

int rcb__booster_prio(void)
{
	return rcb__boosters_known() ?
		       rcb_load_relaxed(&rcb__boosters[0].prio) :
		       0;
}

bool rcb__booster_no_permission(void)
{
	return rcb_load_relaxed(&no_permission);
}

/* Wake every booster now. */
void rcb__boosters_wake(void)
{
	/* [BST-KW] pairs with [BST-KWA] in rcu_booster(): a booster that
	 * sees the new count also sees what the waker did before (the
	 * callbacks over the threshold, or the stop request). */
	rcb_add_release(&booster_wake, 1);
	rcb__futex_wake(&booster_wake, INT32_MAX);
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

/* The lack of permission is said once per process, by whichever comes
 * first: the lazy initialisation's check (booster_ctl.c) or a booster
 * refused its priority.  True for that first caller only. */
bool rcb__booster_first_to_report(void)
{
	return !rcb_xchg_relaxed(&no_permission_reported, true);
}

static void report_no_permission(int err)
{
	if (!rcb__booster_first_to_report())
		return;
	rcb__warn(
		"rcuboost: priority boosting disabled: no permission for real-time priority "
		"(sched_setattr SCHED_RR %d: %s; needs CAP_SYS_NICE or RLIMIT_RTPRIO >= %d, "
		"and a cgroup that allows real-time tasks)%s. RCU keeps working unboosted.\n",
		rcb__settings.boost_prio, strerror(err),
		rcb__settings.boost_prio,
		rcb__keeper_asked() ?
			"" :
			"; a daemon that drops CAP_SYS_NICE before it forks keeps "
			"boosting with RCUBOOST_KEEPER=1 (rcuboost(3))");
}

/* No grace period waits and pressure mode is off (invariant 3). */
static bool boosters_have_no_work(void)
{
	return !rcb__wait_start_any() && !rcb__pressure_active();
}

/* A reader is queued on one of @b's elements.  Under each element's
 * lock: the lock orders this check against a reader's queueing (see
 * rcb__booster_note_queued()).  Context: booster @b. */
static bool booster_has_queued(struct rcb__booster *b)
{
	bool queued = false;
	int cpu;

	rcb__for_each_booster_cpu(b, cpu) {
		for (int i = 0; i < rcb__boost_nelem && !queued; i++) {
			struct rcu_boost_dat *rbdp = rcb__rbd(cpu, i);

			rcb__boost_lock(rbdp);
			queued = !rcb__list_empty(&rbdp->rbs_toboost) ||
				 !rcb__list_empty(&rbdp->rbs_boosted);
			rcb__boost_unlock(rbdp);
		}
		if (queued)
			break;
	}
	return queued;
}

/* Idle: nothing waits and nothing is queued on @b's elements. */
static bool booster_is_idle(struct rcb__booster *b)
{
	return boosters_have_no_work() && !booster_has_queued(b);
}

/*
 * A reader queued itself (rcb_note_block()): wake the idle boosters so
 * that it ages (invariant 3).  [BST-IDQ] The element lock the queueing
 * released orders it with booster_has_queued(): a booster that checked
 * the element before the queueing had raised boosters_idle before it
 * took that lock (pairs with [BST-IDL]), so the relaxed load here sees
 * it.  Context: the reader, no lock held.
 */
void rcb__booster_note_queued(void)
{
	if (rcb_load_relaxed(&boosters_idle))
		rcb__boosters_wake();
}

/*
 * Sleep until a grace period waits for readers, pressure mode starts,
 * or the stop (invariant 3): no timeout, except booster 0's statistics
 * interval.  @wake: booster_wake as read before the loop's checks.
 */
static void booster_idle(struct rcb__booster *b, int wake, bool cb_watch,
			 uint64_t now, uint64_t period_ns)
{
	static uint64_t cb_untimed_ns; /* booster 0's alone */
	uint64_t timeout = 0;
	bool cb_idle = false;

	if (b->id == 0 && rcb__settings.stats_interval_s)
		timeout = rcb__settings.stats_interval_s * 1000000000ull;
	if (b->id == 0 && rcb__settings.pressure_psi)
		timeout = 100000000ull; /* pressure.c reads PSI every 100 ms */
	if (b->id == 0 && rcb__settings.boost > 0) {
		/* Booster mode (callback_boost.c B5): a worker has work, or
		 * we slept untimed less than a period ago: look again in a
		 * period.  Else sleep untimed, producers wake us. */
		if (cb_watch || now - cb_untimed_ns < period_ns) {
			if (!timeout || timeout > period_ns)
				timeout = period_ns;
		} else {
			cb_untimed_ns = now;
			cb_idle = true;
			rcb_store_relaxed(&rcb__cb_hot.boost_idle, 1);
		}
	}
	rcb_add_relaxed(&boosters_idle, 1);
	/* [BST-IDL] Our idle count is ordered before the re-check of the
	 * grace period's wait: store-buffering against its "wait_start =
	 * t; boosters_idle?".  Pairs with [BST-IDK] in rcb__booster_kick():
	 * either we see the grace period waiting, or it sees us idle and
	 * bumps booster_wake, which the futex wait compares with @wake. */
	rcb_fence_seq_cst();
	/* [CBB-I] also: the workers' queues after rcb__cb_hot.boost_idle. */
	if (booster_is_idle(b) && !(cb_idle && rcb__cb_boost_any_work()))
		rcb__futex_wait(&booster_wake, wake, timeout);
	if (cb_idle)
		rcb_store_relaxed(&rcb__cb_hot.boost_idle, 0);
	rcb_add_relaxed(&boosters_idle, -1);
}

static void *rcu_booster(void *arg)
{
	struct rcb__booster *b = arg;
	struct sched_param sp = { .sched_priority = rcb__settings.boost_prio };
	uint64_t period_ns =
		(uint64_t)rcb__settings.boost_period_ms * 1000000ull;
	uint64_t last_print = rcb__now_ns();
	char name[16];
	int err, seen_wake;
	bool cb_watch = false;

	snprintf(name, sizeof(name), b->id ? "rcuboost-boost%d" : "rcuboost-boost",
		 b->id);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	rcb_store_relaxed(&b->tid, (pid_t)syscall(SYS_gettid));
	/* Keep CAP_SYS_NICE across the application's setuid(), and no
	 * capability we do not need (libthread.c). */
	rcb__lib_thread_trim_caps();
	err = pthread_setschedparam(pthread_self(), SCHED_RR, &sp);
	/* Refused (a process that dropped CAP_SYS_NICE and forked): a
	 * keeper may do it for us (keeper.c). */
	if (err == EPERM && rcb__keeper_available() &&
	    rcb__keeper_set_rt(rcb_load_relaxed(&b->tid), SCHED_RR,
			       sp.sched_priority) == 0)
		err = 0;
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
	seen_wake = rcb_load_relaxed(&booster_wake);
	for (long pass = 1;;) {
		/* [BST-KWA] pairs with [BST-KW] in rcb__boosters_wake(); a
		 * wake-up after this load makes the futex wait below return. */
		int wake = rcb_load_acquire(&booster_wake);
		int prio = own_prio();
		uint64_t now = rcb__now_ns();
		bool idle;

		/* [BST-S] pairs with [BST-T] in rcb__booster_stop(). */
		if (rcb_load_acquire(&booster_stop))
			break;
		rcb_store_relaxed(&b->prio, prio);
		/* Woken (a pressure kick): one pass evaluates it. */
		/* The kernel's pressure is polled, not pushed: booster 0
		 * reads it every 100 ms even while idle (entering pressure
		 * wakes the others). */
		if (b->id == 0 && rcb__settings.pressure_psi)
			rcb__pressure_update(now);
		idle = wake == seen_wake && booster_is_idle(b);
		seen_wake = wake;
		/* Booster mode (callback_boost.c): callback workers held up
		 * by preemption. */
		if (b->id == 0)
			cb_watch = rcb__cb_boost_pass(prio, now, period_ns);
		if (!idle) {
			/* The application may have dropped its privileges
			 * since the last pass (setuid() clears our
			 * effective capabilities). */
			if (prio)
				rcb__lib_thread_caps_refresh();
			/* Expedited grace periods first (expedite.c). */
			if (prio)
				rcb__expedite_pass(b, prio, now);
			if (prio)
				rcb__booster_pass(b, prio, now, period_ns,
						  pass);
			pass++;
			rcb_add_relaxed(&b->passes, 1);
		}
		{
			struct timespec ts;

			if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
				rcb_store_relaxed(&b->cpu_ns,
						  (long)ts.tv_sec *
								  1000000000L +
							  ts.tv_nsec);
		}
		if (b->id == 0 && rcb__settings.stats_interval_s &&
		    now - last_print >=
			    rcb__settings.stats_interval_s * 1000000000ull) {
			struct rcb_boost_stats s = { .size = sizeof(s) };
			char buf[1024];

			rcb_boost_stats(&s);
			rcb_boost_stats_format(&s, buf, sizeof(buf), 0);
			fputs(buf, stderr);
			last_print = now;
		}
		if (idle)
			booster_idle(b, wake, cb_watch, now, period_ns);
		else
			rcb__futex_wait(&booster_wake, wake,
					rcb__pressure_active() ? 1000000 :
								 period_ns);
	}
	return NULL;
}

/*
 * Stop and join the booster threads that run, then the pi backend's
 * helpers (after the boosters: a booster may be binding one).  Context:
 * rcb__booster_lock held.
 */
static void boosters_stop_locked(bool pi_started)
{
	rcb_store_relaxed(&rcb__cb_hot.kick_at, 0);
	rcb_store_relaxed(&rcb__cb_hot.kick_bytes, 0);
	/* [BST-T] pairs with [BST-S]. */
	rcb_store_release(&booster_stop, 1);
	rcb__boosters_wake();
	for (int i = 0; i < rcb__nboosters; i++) {
		struct rcb__booster *b = &rcb__boosters[i];

		if (!b->started)
			continue;
		rcb__lib_thread_join(b->thread);
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
	rcb__pressure_stop();
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
	/* [BST-K] pairs with [BST-KR] */
	if (rcb_load_acquire(&booster_started))
		return 0;
	pthread_mutex_lock(&rcb__booster_lock);
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
			err = rcb__lib_thread_create(&b->thread, rcu_booster,
						     b);
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
			if (rcb__settings.pressure_callbacks ||
			    rcb__settings.pressure_bytes)
				rcb__cb_kick_rebase();
			if (rcb__settings.pressure_callbacks)
				rcb_store_relaxed(
					&rcb__cb_hot.kick_at,
					rcb__settings.pressure_callbacks);
			if (rcb__settings.pressure_bytes)
				rcb_store_relaxed(&rcb__cb_hot.kick_bytes,
						  rcb__settings.pressure_bytes);
			/* [BST-KR] */
			rcb_store_release(&booster_started, true);
		}
	}
	pthread_mutex_unlock(&rcb__booster_lock);
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
	if (RCB_LIKELY(rcb_load_relaxed(&booster_started))) {
		/* [BST-IDK] The caller's wait start (rcb__wait_start_any())
		 * is ordered before the load of the idle count: pairs with
		 * [BST-IDL] in booster_idle() (invariant 3).  One fence per
		 * grace period that outlasts its spin phase, which then
		 * sleeps anyway. */
		rcb_fence_seq_cst();
		if (rcb_load_relaxed(&boosters_idle))
			rcb__boosters_wake();
		return;
	}
	rcb__booster_start();
}

void rcb__booster_stop(void)
{
	pthread_mutex_lock(&rcb__booster_lock);
	if (rcb_load_relaxed(&booster_started))
		boosters_stop_locked(rcb__backend_pi());
	pthread_mutex_unlock(&rcb__booster_lock);
}

/* The parent's boosters ran when it forked: the child starts its own
 * (rcb__booster_restart_after_fork()). */
static bool restart_in_child;

/*
 * fork(): the child has only the forking thread.  Forget the other
 * threads' queueing (their records are stale copies), re-create the
 * element locks (possibly held by vanished threads), and give back a
 * boost the forking thread inherited into the child.
 */
void rcb__boost_after_fork_child(void)
{
	struct rcb__thread *self = rcb__self();

	pthread_mutex_init(&rcb__booster_lock, NULL);
	restart_in_child = rcb_load_relaxed(&booster_started);
	rcb_store_relaxed(&booster_started, false);
	rcb_store_relaxed(&rcb__cb_hot.kick_at, 0);
	rcb_store_relaxed(&rcb__cb_hot.kick_bytes, 0);
	rcb__pressure_after_fork_child();
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
	rcb__keeper_after_fork_child();
	if (self->boost.applied) {
		struct rcb__sched_attr cur;

		self->boost.applied = false;
		if (rcb__sched_get(0, &cur) == 0 &&
		    rcb__sched_same(&cur, &self->boost.set))
			rcb__sched_set(0, &self->boost.orig);
	}
}

/*
 * The last step of the fork() child handler: with RCUBOOST_EARLY=1, a
 * child whose parent had boosters running starts its own at once, when
 * its thread may give them real-time priority.  Left to the child's
 * first grace period that waits for a blocked reader, they would be
 * created after whatever the child did first, and a daemon forks before
 * it drops its privileges ("knotd -d": fork(), then setuid() and a
 * capability drop): boosters started after the drop could never boost,
 * and the child's stderr is often /dev/null by then.  Only with the
 * early start, the opt-in of unmodified daemons: every child of a
 * fork() pays the creation and the exit of the boosters, whether or not
 * it execs next (about 0.2 ms more a fork() here, twice a plain
 * fork()'s cost; posix_spawn(), system() and popen() run no fork
 * handlers).  A program that calls rcb_init() itself calls it again in
 * the child before its drop.  Without the permission, or under
 * ThreadSanitizer (which cannot start threads in the child of a
 * multi-threaded fork), the child starts them lazily as before.
 * Context: fork() child handler, every lock re-created.
 */
void rcb__booster_restart_after_fork(void)
{
	bool restart = restart_in_child && rcb__early_start;

#if defined(__SANITIZE_THREAD__)
	restart = false;
#endif
	restart_in_child = false;
	if (!restart)
		return;
	if (rcb__settings.boost && rcb_load_relaxed(&rcb__running) &&
	    (rcb__lib_thread_may_boost(rcb__settings.boost_prio) ||
	     rcb__keeper_available()))
		(void)rcb__booster_start();
}
