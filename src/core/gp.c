/* SPDX-License-Identifier: MIT */
/*
 * Grace periods.
 *
 * Algorithm.  Each registered thread has a reader record (struct
 * rcb_reader, thread-local, see include/rcuboost.h) whose ctr is 0
 * outside read-side critical sections and, inside, the value of
 * rcb__gp.ctr read by the outermost rcb_read_lock() plus the nesting
 * depth.  A grace period advances rcb__gp.ctr by RCB__GP_STEP and waits
 * until no registered reader is inside a critical section that began
 * with an older snapshot.  The read side has no fence: the updater's
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) executes a full barrier on
 * every CPU running a thread of this process, which upgrades the
 * readers' compiler barriers to full barriers at that instant.
 *
 * Invariants.
 *  1. Only the owning thread writes its ctr; only a grace period (under
 *     rcb__gp_lock) writes rcb__gp.ctr.  Neither write is a
 *     read-modify-write visible to another thread.
 *  2. rcb__gp.ctr only grows, by RCB__GP_STEP, so "snapshot !=
 *     rcb__gp.ctr" means "began before the current grace period".  The
 *     32-bit snapshot wraps after 2^32 grace periods (as few as 280 s
 *     of back-to-back grace periods in the fence flavor, 1.2 h with
 *     membarrier); that is harmless except for a reader preempted inside
 *     rcb_read_lock() between its counter load and its ctr store while
 *     a count of grace periods that is -1 or 0 modulo 2^32 completes,
 *     which is then not waited for (the precise bound is at RCB__NEST_BITS in
 *     include/rcuboost.h; rcuboost(3), BUGS).  One counter advance per
 *     grace period suffices (liburcu's two phase flips exist for a 1-bit
 *     phase): a reader that read the old counter but whose ctr store the
 *     scan missed stored it after [GP-A], so its critical section sees
 *     every update made before the grace period.
 *  3. A reader that the scan finds inside an old critical section keeps
 *     the grace period waiting until it stores 0 or a new snapshot;
 *     readers that begin after [GP-A] never hold up this grace period,
 *     so the wait is bounded by the longest pre-existing section.
 *  4. rcb__gp.futex is -1 only while a grace period may sleep waiting for
 *     readers; an outermost unlock that sees -1 wakes it ([RD-W]/[GP-W]),
 *     and so does a thread exit that ends an abandoned section
 *     ([REG-XW] in src/core/registry.c).
 *  5. gp_seq_started/gp_seq_done are written under rcb__gp_lock; a caller
 *     that read gp_seq_started == s on entry is satisfied once
 *     gp_seq_done >= s + 1: that grace period started after its entry.
 *  6. [GP-B] may be left out when the last scan read every registered
 *     reader's ctr as 0, with acquire loads ([GP-BA]).  A 0 is written
 *     only by an outermost unlock's release store ([RD-B]) or by the
 *     exit of a thread ending an abandoned section ([REG-X], release
 *     too), and only the owner writes its ctr (invariant 1), so the
 *     store read is the latest end of a section by that thread and
 *     comes after every load of every earlier section in its program
 *     order: the acquire makes them all happen before what the caller
 *     does next.  A section that had not begun at the scan began after
 *     [GP-A] (invariant 3 of the usual argument: [GP-A] made any
 *     earlier ctr store visible), so it sees the caller's unpublishing
 *     and does not care about the free.  A reader read with a non-zero
 *     ctr (a section that began after [GP-A], with a new snapshot)
 *     keeps [GP-B]: its ctr holds the relaxed store of that lock, and
 *     under the C11 model reading it does not synchronise with the
 *     release of its previous unlock (release sequences no longer
 *     include later plain stores of the same thread).  [GP-A] is never
 *     left out while a reader is registered: a ctr store still in the
 *     store buffer of a running reader reads as 0, and only the
 *     membarrier makes it visible.
 *  7. A leader that finds no registered thread but itself ([GP-N], under
 *     the registry lock, after its gp_seq_started increment and
 *     [GP-N2]) completes its grace period without a membarrier or a
 *     counter advance; it still takes the grace-period lock and counts
 *     the grace period, so that polled cookies (gp_poll.c) and batched
 *     callers see it as any other.  Every critical section
 *     runs on a registered thread, except the first outermost lock of a
 *     thread (which registers under the registry lock before its
 *     section: the lock orders our earlier unpublishing before it) and
 *     a signal handler's section run unregistered inside its own
 *     thread's hold of the registry lock (src/core/registry.c invariant 4:
 *     that hold lies entirely before or after ours).  A thread that
 *     unregistered ended its sections before (registry.c invariant 3),
 *     and its unlink under the lock orders them before our look.  The
 *     caller itself is not inside a section (checked on entry), and its
 *     signal handlers' sections are sequenced with it.
 *
 *  8. rcb_start_poll() may run a grace period itself
 *     (rcb__gp_try_now()), lock-free: it tries rcb__gp_lock and the
 *     registry lock once each, scans once and never waits.  If the
 *     scan finds a reader holding the grace period (or a lock is
 *     taken) after gp_seq_started was raised, it gives up: the counter
 *     advance it made is harmless (the next grace period advances again
 *     and waits for every older snapshot, invariant 2; the wrap count
 *     counts it as one), gp_seq_done stays behind, and the caller
 *     queues a request for that number to the callback thread
 *     (gp_poll.c invariant 4), as a cookie taken meanwhile may rely on
 *     it having begun.  It does not start (leaving the grace period
 *     to the callback thread, as before) when a plain look finds
 *     another thread inside a section, or when another thread is
 *     registered and the last grace period that issued a membarrier
 *     completed (or the last attempt gave up) less than
 *     RCB_GP_INLINE_GAP_NS ago: back-to-back calls would otherwise
 *     issue a membarrier each, which the callback thread's policy
 *     coalesces (gp_policy.c).  Alone, it costs no system call.
 *
 * Cost.  A grace period issues two membarriers ([GP-A], [GP-B]), plus
 * one per sleeping wait ([GP-W]); invariant 6 drops [GP-B] when every
 * reader was found outside any section, and invariant 7 drops both
 * when no other thread is registered (liburcu's early return for an
 * empty registry).  How often the callback thread starts grace periods
 * is decided in gp_policy.c.
 *
 * The flavor (membarrier(2) or fences) is membarrier.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/hooks.h"
#include "core/internal.h"

RCB_API struct rcb__gp rcb__gp RCB__HOT_ALIGN = { .ctr = RCB__GP_STEP,
						  .futex = 0 };

_Atomic unsigned long long rcb__gp_stat[5];
_Atomic unsigned long long rcb__gp_stat_skip[2];
_Atomic unsigned long long rcb__gp_wait_start_ns;
#if defined(__SANITIZE_THREAD__)
_Atomic unsigned long rcb__tsan_fence_word;
#endif

/* Serialises grace periods; priority inheritance, so that a real-time
 * caller queued behind a low-priority grace period leader lends it its
 * priority. */
static pthread_mutex_t rcb__gp_lock;
/* This thread holds rcb__gp_lock: a signal handler that interrupted it
 * there and calls a synchronize would wait for itself.  Checked before
 * anything else of the call; the error-checking lock catches the
 * instant between taking the lock and setting this. */
static __thread volatile bool gp_lock_mine;
static _Atomic unsigned long long gp_seq_started;
static _Atomic unsigned long long gp_seq_done;
/* When the last grace period that issued a membarrier completed, or
 * rcb__gp_try_now() gave one up (rcb__now_ns()), under the lock; read
 * by rcb__gp_try_now() under it (invariant 8). */
static _Atomic uint64_t gp_done_ns;

/* Spin iterations (one registry scan each) before sleeping.  No
 * sched_yield() phase: a reader preempted on the updater's CPU would get
 * a whole time slice and its unlock would not wake us (the futex is armed
 * only in the sleeping phase); sleeping at once lets its unlock wake us. */
#define RCB_GP_SPIN_SCANS 100
/* Tries of the grace-period lock, one pause apart (a few microseconds
 * in all), before a caller blocks on it: a grace period with nobody to
 * wait for holds it for well under a microsecond, and blocking on a PI
 * mutex is a FUTEX_LOCK_PI system call and a hand-over through the
 * kernel.  Bounded: a real-time caller whose holder cannot run on its
 * CPU then blocks, and lends the holder its priority, as before. */
#define RCB_GP_LOCK_TRIES 64
/* An updater asleep re-checks at least this often: a reader's wake-up
 * cannot be lost (invariant 4), the timeout only bounds the damage of a
 * bug. */
#define RCB_GP_SLEEP_NS (10ull * 1000 * 1000)
/* rcb_start_poll()'s own grace periods, when they cost the readers a
 * membarrier, come no closer than this after the last grace period
 * (invariant 8): as the callback thread's policy bounds a stream
 * (gp_policy.c, RCB_GPP_MAX_NS), at most 250 a second. */
#define RCB_GP_INLINE_GAP_NS (4ull * 1000 * 1000)

static void gp_lock_init(void)
{
	/* Error-checking: a signal handler that interrupted its own thread
	 * as it took the lock, and calls a synchronize, gets EDEADLK
	 * (reported) instead of waiting for itself (synchronize()). */
	int err = rcb__pi_errorcheck_mutex_init(&rcb__gp_lock);

	if (err)
		RCB_DIE("pthread_mutex_init(gp, PRIO_INHERIT)", -err);
}

/* The grace-period and registry locks (rcb__construct(), once). */
void rcb__gp_locks_create(void)
{
	gp_lock_init();
	if (rcb__pi_errorcheck_mutex_init(&rcb__registry_lock) != 0)
		RCB_DIE("pthread_mutex_init(registry, PRIO_INHERIT, ERRORCHECK)", EINVAL);
}

/* Take the registry lock; with @try, only if it is free (false then). */
static bool registry_lock(bool try)
{
	if (!try) {
		pthread_mutex_lock(&rcb__registry_lock);
		return true;
	}
	return pthread_mutex_trylock(&rcb__registry_lock) == 0;
}

/*
 * One pass over the registry: true if some reader still holds @gp.
 * When none does, *@all_out says whether every registered reader was
 * outside any critical section (ctr read as 0), which lets the grace
 * period end without [GP-B] (invariant 6).  @try: true also when the
 * registry lock is taken (invariant 8).
 */
static bool readers_hold(unsigned long gp, bool *all_out, bool try)
{
	struct rcb__thread *t;
	bool held = false, out = true;

	if (!registry_lock(try))
		return true;
	rcb__for_each_thread(t) {
		/* [GP-BA] An acquire load: reading the 0 of an outermost
		 * unlock's release store orders every load of the sections
		 * that store ended before what the caller does next.  Pairs
		 * with [RD-B] in rcb_read_unlock() and [REG-X] in
		 * src/core/registry.c (invariant 6). */
		unsigned long ctr = rcb_load_acquire(&t->rd->ctr);

		if (rcb__holds_gp(ctr, gp)) {
			held = true;
			break;
		}
		if (ctr & RCB__NEST_MASK)
			out = false;
		/* The edge [RD-B] -> [GP-B] that membarrier provides. */
		rcb__tsan_acquire(&t->rd->ctr);
	}
	pthread_mutex_unlock(&rcb__registry_lock);
	*all_out = !held && out;
	return held;
}

/*
 * Is the calling thread the only registered thread (or is none)?  Then
 * no critical section can be in progress anywhere, and a grace period
 * has nothing to wait for and nobody to order (invariant 7).  1 yes, 0
 * no; with @try, -1 when the registry lock is taken (invariant 8).
 * [GP-N] The registry lock orders this look against every registration
 * and unregistration: pairs with the lock in rcb__register_self() and
 * leave_registry() (src/core/registry.c).  Context: not inside a section.
 */
static int no_other_reader(bool try)
{
	struct rcb__thread *self = rcb__self();
	struct rcb__thread *first;
	bool none;

	/* EDEADLK: a signal handler interrupted its own thread inside the
	 * registry lock; take the full path (which would deadlock in its
	 * scan just as before: synchronize is not async-signal-safe). */
	if (try ? pthread_mutex_trylock(&rcb__registry_lock) != 0 :
		  pthread_mutex_lock(&rcb__registry_lock) != 0)
		return try ? -1 : 0;
	first = rcb__registry.next;
	none = first == &rcb__registry ||
	       (first == self && self->next == &rcb__registry);
	pthread_mutex_unlock(&rcb__registry_lock);
	return none;
}

/*
 * Wait until no registered reader holds grace period @gp.  Spins over
 * the registry for a short while, then sleeps on rcb__gp.futex.
 * Returns whether the last scan found every registered reader outside
 * any critical section (readers_hold()).
 * Context: the grace-period leader, rcb__gp_lock held.
 */
static bool wait_for_readers(unsigned long gp)
{
	bool all_out;

	unsigned long long start = rcb__now_ns();
	struct rcb__loan loan = { 0 }; /* src/core/inherit.c */

	/* For the booster: readers holding this grace period for a booster
	 * period get queued for boosting on their behalf. */
	rcb_store_relaxed(&rcb__gp_wait_start_ns, start);
	for (int scan = 0;; scan++) {
		if (scan == RCB_GP_SPIN_SCANS)
			rcb__boost_hooks.kick();
		if (scan >= RCB_GP_SPIN_SCANS) {
			rcb_store_relaxed(&rcb__gp.futex, -1);
			/*
			 * [GP-W] The futex store is ordered before the scan
			 * below: store-buffering with the reader's
			 * "ctr = 0; load futex".  Pairs with [RD-W] in
			 * rcb_read_unlock(): either the scan sees the reader
			 * out, or the reader sees -1 and wakes us.
			 */
			rcb__membarrier();
		}
		if (!readers_hold(gp, &all_out, false)) {
			if (scan >= RCB_GP_SPIN_SCANS)
				rcb_store_relaxed(&rcb__gp.futex, 0);
			rcb_store_relaxed(&rcb__gp_wait_start_ns, 0);
			rcb__loan_end(&loan);
			return all_out;
		}
		/* Expedited or inheriting waiters: boost the readers now
		 * (at once, then after each [GP-W], which pairs with
		 * [EXP-W] in rcb__waiter_enter()). */
		if (scan == 0 || scan >= RCB_GP_SPIN_SCANS)
			rcb__loan_update(&loan, gp, start);
		if (scan < RCB_GP_SPIN_SCANS) {
			rcb_cpu_relax();
			continue;
		}
		rcb_add_relaxed(&rcb__gp_stat[RCB__GPS_FUTEX], 1);
		rcb__futex_wait(
			&rcb__gp.futex, -1,
			rcb__loan_sleep_ns(&loan, start, RCB_GP_SLEEP_NS));
		/* A stall report at most once per grace period (stall.c). */
		rcb__diag_hooks.stall_check(gp, start);
	}
}

/* One grace period.  @try: one scan, no wait; false if it found a
 * reader holding the grace period or the registry lock taken, and gave
 * up (invariant 8).  Context: rcb__gp_lock held. */
static bool do_grace_period(bool try)
{
	unsigned long gp;
	bool all_out;

	/*
	 * [GP-A] Everything the caller did before (typically unpublishing
	 * an object) is ordered before the counter advance and the scans,
	 * on every CPU running a reader.  Pairs with [RD-A] in
	 * rcb_read_lock(): a reader whose ctr store the scans miss sees
	 * the caller's updates.
	 */
	rcb__membarrier();
	rcb__tsan_release(&rcb__gp.ctr); /* the edge [GP-A] -> [RD-A] */
	gp = rcb_load_relaxed(&rcb__gp.ctr) + RCB__GP_STEP;
	rcb_store_relaxed(&rcb__gp.ctr, gp);
	/* [GP-C] The counter advance is ordered before the scans: a
	 * reader that loads the old counter after a scan missed it is
	 * covered by [GP-A].  Pairs with [RD-A]. */
	rcb_fence_seq_cst();
	if (try) {
		if (readers_hold(gp, &all_out, true))
			return false;
	} else {
		all_out = wait_for_readers(gp);
	}
	if (all_out) {
		/* Every reader was read at 0 by [GP-BA]: the acquire loads
		 * already order their past sections before what the caller
		 * does next (invariant 6). */
		rcb_add_relaxed(&rcb__gp_stat_skip[RCB__GPS_SKIP_B], 1);
	} else {
		/*
		 * [GP-B] The scans that saw every old reader out are
		 * ordered before what the caller does next (typically
		 * freeing): every reader's critical-section loads
		 * completed before its ctr store.  Pairs with [RD-B] in
		 * rcb_read_unlock().  Needed when a reader was seen inside
		 * a section that began after [GP-A]: its ctr then holds a
		 * relaxed store, not the release of its previous unlock.
		 */
		rcb__membarrier();
	}
	rcb_add_relaxed(&rcb__gp_stat[RCB__GPS_GP], 1);
	return true;
}

/*
 * Lead grace period gp_seq_started + 1: number it, run it, publish its
 * completion.  @try as do_grace_period(): false if it gave up, the
 * grace period numbered but not complete (invariant 8).  Context:
 * rcb__gp_lock held.
 */
static bool lead_grace_period(bool try)
{
	int none;

	rcb_store_relaxed(&gp_seq_started,
			  rcb_load_relaxed(&gp_seq_started) + 1);
	/* [GP-N2] The increment is ordered before the look at the
	 * registry, as [GP-A] orders it before the scans: a poll
	 * cookie (gp_poll.c) taken before it names this grace
	 * period, and a section still running at that cookie's
	 * [PO-S] is on a thread registered before our look.  Pairs
	 * with [PO-S] in rcb__gp_seq_snap(). */
	rcb_fence_seq_cst();
	none = no_other_reader(try);
	if (none < 0)
		return false;
	if (none) {
		/* Invariant 7: nothing to wait for; counted as a
		 * grace period so that poll cookies elapse. */
		rcb_add_relaxed(&rcb__gp_stat_skip[RCB__GPS_SKIP_ALL], 1);
	} else if (!do_grace_period(try)) {
		return false;
	}
	/* [GP-D] The grace period ([GP-B]) is complete before a
	 * lock-free poller sees it counted.  Pairs with [PO-D] in
	 * rcb__gp_seq_done() (polled grace periods). */
	rcb_store_release(&gp_seq_done, rcb_load_relaxed(&gp_seq_started));
	/* Invariant 8's gap counts from membarriers only: a grace period
	 * alone issued none, and reading the clock was a fifth of its
	 * cost (sync.alone). */
	if (!none)
		rcb_store_relaxed(&gp_done_ns, rcb__now_ns());
	return true;
}

/* rcb_synchronize() and rcb_synchronize_expedited() (@call). */
static int synchronize(const char *call, bool expedited)
{
	struct rcb__waiter w;
	unsigned long long snap;
	int err;

	if (RCB_UNLIKELY(rcb_read_ongoing())) {
		rcb__misuse(call,
			    "called inside a read-side critical section; it would wait for itself forever");
		return -EDEADLK;
	}
	if (RCB_UNLIKELY(gp_lock_mine)) {
		rcb__misuse(call,
			    "called from a signal handler that interrupted this thread's own "
			    "grace period; it would wait for itself forever");
		return -EDEADLK;
	}
	if ((err = rcb__ensure_init()) != 0)
		return err;
	expedited = expedited || rcb__settings.expedited;
	if (expedited && !rcb__boost_hooks.expedite_possible()) {
		rcb__expedite_report_plain(call);
		expedited = false;
	}
	rcb__waiter_enter(&w, expedited);
	/* [GP-S] Our prior accesses are ordered before the read of
	 * gp_seq_started, so a grace period counted as "after us" began
	 * after them.  Pairs with the mutex release in the leader. */
	rcb_fence_seq_cst();
	snap = rcb_load_relaxed(&gp_seq_started);
	err = pthread_mutex_trylock(&rcb__gp_lock);
	for (int i = 0; err == EBUSY && i < RCB_GP_LOCK_TRIES; i++) {
		rcb_cpu_relax();
		err = pthread_mutex_trylock(&rcb__gp_lock);
	}
	if (err == EBUSY) {
		/* Contended: the stall report lists us as a waiter. */
		int slot = rcb__diag_hooks.waiter_enter();

		rcb__waiter_announce(&w);
		err = pthread_mutex_lock(&rcb__gp_lock);
		rcb__diag_hooks.waiter_leave(slot);
	}
	if (err == EDEADLK) {
		rcb__waiter_leave(&w);
		rcb__misuse(call,
			    "called from a signal handler that interrupted this thread's own "
			    "grace period; it would wait for itself forever");
		return -EDEADLK;
	}
	if (err)
		RCB_DIE("pthread_mutex_lock(gp)", err);
	gp_lock_mine = true;
	if (rcb_load_relaxed(&gp_seq_done) >= snap + 1)
		rcb_add_relaxed(&rcb__gp_stat[RCB__GPS_BATCHED], 1);
	else
		(void)lead_grace_period(false);
	gp_lock_mine = false;
	pthread_mutex_unlock(&rcb__gp_lock);
	rcb__waiter_leave(&w);
	/* [GP-E] A batched caller's later accesses follow the leader's
	 * [GP-B]: the mutex acquire above orders them (acquire of the lock
	 * released after [GP-B]); this fence makes the full-barrier
	 * contract explicit for callers' non-atomic accesses.  Pairs with
	 * [GP-B]. */
	rcb_fence_seq_cst();
	rcb_add_relaxed(&rcb__gp_stat[RCB__GPS_SYNC], 1);
	return 0;
}

RCB_API int rcb_synchronize(void)
{
	return synchronize("rcb_synchronize", false);
}

RCB_API int rcb_synchronize_expedited(void)
{
	return synchronize("rcb_synchronize_expedited", true);
}

/* What a plain look at the other registered threads finds (a hint: a
 * ctr store still in a store buffer reads as 0). */
enum { OTHERS_NONE, OTHERS_OUT, OTHERS_IN, OTHERS_LOCKED };

static int look_at_others(void)
{
	struct rcb__thread *t, *self = rcb__self();
	int r = OTHERS_NONE;

	if (!registry_lock(true))
		return OTHERS_LOCKED;
	rcb__for_each_thread(t) {
		if (t == self)
			continue;
		r = OTHERS_OUT;
		if (rcb_load_relaxed(&t->rd->ctr) & RCB__NEST_MASK) {
			r = OTHERS_IN;
			break;
		}
	}
	pthread_mutex_unlock(&rcb__registry_lock);
	return r;
}

int rcb__gp_try_now(unsigned long long cookie, unsigned long long *owed)
{
	int r, others;

	if (rcb_read_ongoing() || pthread_mutex_trylock(&rcb__gp_lock) != 0)
		return RCB__GP_NOW_NONE;
	gp_lock_mine = true;
	if (rcb_load_relaxed(&gp_seq_done) >= cookie) {
		r = RCB__GP_NOW_DONE;
	} else if ((others = look_at_others()) == OTHERS_IN ||
		   others == OTHERS_LOCKED ||
		   (others == OTHERS_OUT &&
		    rcb__now_ns() - rcb_load_relaxed(&gp_done_ns) <
			    RCB_GP_INLINE_GAP_NS)) {
		/* A reader inside would make the attempt give up after
		 * its membarrier; grace periods close together are the
		 * callback thread's to coalesce (invariant 8): leave it
		 * the grace period at once. */
		r = RCB__GP_NOW_NONE;
	} else if (lead_grace_period(true)) {
		r = RCB__GP_NOW_DONE;
	} else {
		*owed = rcb_load_relaxed(&gp_seq_started);
		/* The gap counts from an abandoned attempt too: its
		 * membarrier cost the readers as much. */
		rcb_store_relaxed(&gp_done_ns, rcb__now_ns());
		r = RCB__GP_NOW_HANDED;
	}
	gp_lock_mine = false;
	pthread_mutex_unlock(&rcb__gp_lock);
	if (r == RCB__GP_NOW_DONE) {
		/* [GP-E] As after rcb_synchronize(): the caller's later
		 * accesses follow [GP-B].  Pairs with [GP-B]. */
		rcb_fence_seq_cst();
	}
	return r;
}

/*
 * Polled grace periods (src/callback/gp_poll.c) read the counters of
 * invariant 5 without the lock.  rcb__gp_seq_snap(): the number of the
 * latest grace period started, read after a full barrier, so that any
 * grace period numbered higher started after the caller's earlier
 * accesses.
 */
unsigned long long rcb__gp_seq_snap(void)
{
	/* [PO-S] As [GP-S] in rcb_synchronize(): our prior accesses are
	 * ordered before the read of gp_seq_started.  Pairs with the
	 * leader's [GP-A], which follows its increment. */
	rcb_fence_seq_cst();
	return rcb_load_relaxed(&gp_seq_started);
}

/* The latest grace period started, no barrier (a hint). */
unsigned long long rcb__gp_seq_started_hint(void)
{
	return rcb_load_relaxed(&gp_seq_started);
}

/* The latest grace period completed; the caller's later accesses follow
 * its [GP-B]. */
unsigned long long rcb__gp_seq_done(void)
{
	/* [PO-D] pairs with [GP-D] in rcb_synchronize(). */
	return rcb_load_acquire(&gp_seq_done);
}

/*
 * fork(): the child has one thread and a copy of memory.  The grace
 * period lock is not held across fork() (that would make fork() wait for
 * the slowest reader): the child re-creates it.  A grace period the
 * parent had in flight is abandoned in the child: its counter advance is
 * harmless, gp_seq_done < gp_seq_started only makes the child's next
 * caller run a grace period of its own, and the child's registry holds
 * only the forking thread.
 */
void rcb__gp_after_fork_child(void)
{
	/* A PI mutex cannot be unlocked by a thread id other than its
	 * owner's; in the child the owner's id changed, so re-create it. */
	rcb_store_relaxed(&rcb__gp.futex, 0);
	rcb_store_relaxed(&rcb__gp_wait_start_ns, 0);
	gp_lock_init();
	rcb__inherit_after_fork_child();
	rcb__membarrier_after_fork_child();
}
