/* SPDX-License-Identifier: MIT */
/*
 * Proxy-lock boosting (RCB_BACKEND_PI), the userspace counterpart of the
 * kernel's rt_mutex_init_proxy_locked() boosting.
 *
 * A boosted reader is made the owner of a PI futex word (a "slot") by
 * the booster, which simply stores the reader's TID in the word: for
 * the kernel a futex word holding a TID is a PI lock that thread owns,
 * whether or not it ever made a system call.  A helper thread running
 * SCHED_FIFO at the boost level then waits on the word with
 * FUTEX_LOCK_PI2 (FUTEX_LOCK_PI before Linux 5.14): the kernel sets
 * FUTEX_WAITERS, attaches a pi_state to the reader and boosts it by
 * priority inheritance, through any chain of PI locks (the
 * application's PTHREAD_PRIO_INHERIT mutexes) the reader waits on.  The
 * reader's outermost unlock releases the word: a compare-and-exchange
 * TID -> 0 when no helper waits, else FUTEX_UNLOCK_PI, which unboosts
 * the reader and hands the lock to the helper.  The helper then unlocks
 * and returns itself and the slot to their pools.  The reader's normal
 * scheduling attributes are never changed, so there is nothing to
 * restore and no application change to respect.
 *
 * Escalation raises the helper's priority (sched_setscheduler on the
 * waiting helper); the kernel re-propagates it along the chain.
 *
 * Slots live in a static array, never freed, so a helper's LOCK_PI on
 * a slot is memory-safe even if the reader has exited.  A slot has two
 * references while in use, the reader's (dropped by rcb__pi_release())
 * and the helper's (dropped when the helper is done with it); it is free
 * again only when both are gone.
 *
 * Invariants.
 *  1. A slot is free iff refs == 0, and a free slot's word is 0.  Only
 *     the booster takes a free slot (refs 0 -> 2, [PI-A]); the last
 *     reference dropped ([PI-D]) publishes word == 0.
 *  2. A slot's word holds a reader's TID only from the booster's boost
 *     (under the reader's element lock, reader BLOCKED or BOOSTED, so
 *     inside its critical section) until that reader's rcb__pi_release(),
 *     which runs in its outermost unlock (or thread-exit) path before it
 *     returns.  So the word never names a thread outside its critical
 *     section, and a reused TID is never boosted.
 *  3. t->boost.pi_slot is set by the booster and cleared by the reader
 *     (rcb__pi_take()), both under the lock of t's element; the reader
 *     holds at most one slot and is BOOSTED while it holds one.
 *  4. A helper is bound to at most one slot (slot->helper, under
 *     slot->lock).  Only a booster that took the helper's busy flag
 *     ([PI-H]) binds it; only the helper unbinds itself, then frees the
 *     flag ([PI-HF]).  A booster changes a helper's priority only while
 *     the helper is free and owned by it, or bound to the slot whose
 *     lock it holds, so a raise never reaches another reader.
 *  5. Helpers wait at most PI_WAIT_NS per system call and give up when
 *     rcb__pi_stop() asks, so stopping never waits for a reader; a
 *     slot whose helper gave up keeps its reader reference, its reader
 *     still releases it (FUTEX_UNLOCK_PI clears a stale FUTEX_WAITERS),
 *     and the booster's next pass binds a new helper to it.
 *  6. FUTEX_UNLOCK_PI is called only by the word's owner: the reader on
 *     its own TID, the helper on its own TID.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "boost/boost.h"

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif

/* Slots: enough for every helper plus slots left bound to readers by
 * helpers that gave up at a shutdown. */
#define PI_SLOTS 256
#define PI_HELPERS_MAX 64
/* Longest single wait of a helper (shutdown latency). */
#define PI_WAIT_NS 100000000ull
/* Back-off after the kernel refused the lock (EDEADLK). */
#define PI_BACKOFF_NS 10000000ull

struct pi_helper;

struct rcb__pi_slot {
	_Atomic uint32_t word;   /* the PI futex: 0, reader TID, helper TID */
	_Atomic int refs;        /* invariant 1 */
	pid_t tid;               /* the reader's; set before [PI-J] */
	pthread_mutex_t lock;    /* helper, prio */
	struct pi_helper *helper;
	int prio;                /* level the bound helper runs at */
} __attribute__((aligned(64)));

struct pi_helper {
	pthread_t thread;
	_Atomic pid_t tid;
	_Atomic int busy;                 /* 1: owned by a booster or a job */
	_Atomic int kick;                 /* futex word: bumped to wake */
	struct rcb__pi_slot *_Atomic job; /* slot to lock, or NULL */
	int cur_prio;                     /* invariant 4; 0: SCHED_OTHER */
	bool started;
} __attribute__((aligned(64)));

_Atomic long rcb__pi_boosts, rcb__pi_handoffs, rcb__pi_syscalls;
/* The kernel refused a helper's lock: a cycle or a too deep chain in
 * the application's PI locks (EDEADLK); or another failure.  Reported
 * by rcb_boost_stats(). */
_Atomic long rcb__pi_deadlocks, rcb__pi_failures;

static struct rcb__pi_slot pi_slots[PI_SLOTS];
static struct pi_helper pi_helpers[PI_HELPERS_MAX];
static int pi_nhelpers;       /* started helpers; rcb__booster_lock */
static _Atomic int pi_stopping;
static _Atomic bool pi_use_lock_pi2;
/* Slot locks initialised; rcb__booster_lock. */
static bool pi_inited;

static long pi_futex(_Atomic uint32_t *w, int op, const struct timespec *ts)
{
	rcb_add_relaxed(&rcb__pi_syscalls, 1);
	return syscall(SYS_futex, (uint32_t *)w, op | FUTEX_PRIVATE_FLAG, 0, ts,
		       NULL, 0);
}

/* Linux >= 5.14 has FUTEX_LOCK_PI2 (CLOCK_MONOTONIC timeouts). */
static bool kernel_has_lock_pi2(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 5 || (major == 5 && minor >= 14);
}

/*
 * Lock @w for the calling helper, waiting at most PI_WAIT_NS.  Returns
 * 0 (locked, possibly handed over by the owner's FUTEX_UNLOCK_PI) or a
 * negative errno (-ETIMEDOUT, -EINTR, -EDEADLK, ...).
 */
static int pi_lock(_Atomic uint32_t *w)
{
	struct timespec ts;
	bool pi2 = rcb_load_relaxed(&pi_use_lock_pi2);
	uint64_t ns;

	clock_gettime(pi2 ? CLOCK_MONOTONIC : CLOCK_REALTIME, &ts);
	ns = (uint64_t)ts.tv_nsec + PI_WAIT_NS;
	ts.tv_sec += (time_t)(ns / 1000000000ull);
	ts.tv_nsec = (long)(ns % 1000000000ull);
	if (pi_futex(w, pi2 ? FUTEX_LOCK_PI2 : FUTEX_LOCK_PI, &ts) == 0)
		return 0;
	if (errno == ENOSYS && pi2) {
		/* A kernel with the number but not the operation. */
		rcb_store_relaxed(&pi_use_lock_pi2, false);
		return -EINTR;
	}
	return -errno;
}

/*
 * Set helper @h to SCHED_FIFO @prio.  Context: the caller owns @h
 * (invariant 4).  Returns 0 or a positive errno.
 */
static int helper_set_prio(struct pi_helper *h, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int err;

	if (h->cur_prio == prio)
		return 0;
	rcb_add_relaxed(&rcb__pi_syscalls, 1);
	err = pthread_setschedparam(h->thread, SCHED_FIFO, &sp);
	/* Refused: a keeper may do it for us (keeper.c). */
	if (err == EPERM && rcb__keeper_available() &&
	    rcb__keeper_set_rt(rcb_load_relaxed(&h->tid), SCHED_FIFO, prio) ==
		    0)
		err = 0;
	if (!err)
		h->cur_prio = prio;
	return err;
}

/* Take a free slot (word 0, refs 2) or NULL.  Context: a booster. */
static struct rcb__pi_slot *slot_take(void)
{
	for (int i = 0; i < PI_SLOTS; i++) {
		struct rcb__pi_slot *s = &pi_slots[i];
		int free_refs = 0;

		if (rcb_load_relaxed(&s->refs))
			continue;
		/* [PI-A] pairs with [PI-D] in slot_put(): the last user's
		 * word == 0 and its unbinding are visible. */
		if (rcb_cmpxchg_acq_rel(&s->refs, &free_refs, 2))
			return s;
	}
	return NULL;
}

/* Drop one reference to @s; the last makes it free (invariant 1). */
static void slot_put(struct rcb__pi_slot *s)
{
	/* [PI-D] pairs with [PI-A] in slot_take(): our word release and
	 * unbinding come before the slot is seen free. */
	rcb_add_release(&s->refs, -1);
}

/* Take a free helper or NULL.  Context: a booster. */
static struct pi_helper *helper_take(void)
{
	for (int i = 0; i < pi_nhelpers; i++) {
		struct pi_helper *h = &pi_helpers[i];
		int idle = 0;

		if (rcb_load_relaxed(&h->busy))
			continue;
		/* [PI-H] pairs with [PI-HF] in pi_helper_main(): the
		 * helper's last job, its unbinding and cur_prio are
		 * visible. */
		if (rcb_cmpxchg_acq_rel(&h->busy, &idle, 1))
			return h;
	}
	return NULL;
}

/* Give helper @h the job of locking @s; @h owned, bound to @s. */
static void helper_kick(struct pi_helper *h, struct rcb__pi_slot *s)
{
	/* [PI-J] pairs with [PI-JA] in pi_helper_main(): the slot's word,
	 * tid and binding are written before the helper sees the job. */
	rcb_store_release(&h->job, s);
	/* [PI-K] pairs with [PI-KA] in pi_helper_main(): a helper that
	 * reads the new count sees the job; one that read the old count
	 * has its FUTEX_WAIT fail with EAGAIN. */
	rcb_add_release(&h->kick, 1);
	rcb_add_relaxed(&rcb__pi_syscalls, 1);
	rcb__futex_wake(&h->kick, 1);
}

/* Bind free helper @h (owned) to @s at @prio.  Context: s->lock held or
 * @s not yet published.  Returns false if @h could not be set to @prio
 * (it is still bound and kicked: it boosts at its current level). */
static bool bind_helper(struct pi_helper *h, struct rcb__pi_slot *s, int prio)
{
	bool ok = helper_set_prio(h, prio) == 0;

	s->helper = h;
	s->prio = ok ? prio : h->cur_prio;
	return ok;
}

/*
 * The helper's job: lock @s's word on behalf of the booster (boosting
 * the reader that owns it), then unlock it and drop its reference.
 * Returns when the reader has released the word, or when the helper
 * gives up (shutdown, or the kernel refuses for good).
 */
static void pi_run_job(struct pi_helper *h, struct rcb__pi_slot *s)
{
	uint32_t me = (uint32_t)rcb_load_relaxed(&h->tid);
	uint32_t v = 0;
	bool locked = false;

	/* [PI-W] pairs with [PI-R] in rcb__pi_release(): the reader left
	 * before we came; the lock is free. */
	if (rcb_cmpxchg_acq_rel(&s->word, &v, me))
		locked = true;
	while (!locked) {
		int err = pi_lock(&s->word);

		if (!err) {
			locked = true;
			break;
		}
		/* [PI-SA] pairs with [PI-S] in rcb__pi_stop(). */
		if (rcb_load_acquire(&pi_stopping))
			break;
		if (err == -ETIMEDOUT || err == -EINTR)
			continue;
		if (err == -EDEADLK) {
			/* A cycle (or a chain deeper than the kernel walks)
			 * in the application's PI locks: the reader cannot
			 * be boosted through it now.  Retry later. */
			rcb_add_relaxed(&rcb__pi_deadlocks, 1);
			rcb_add_relaxed(&rcb__pi_syscalls, 1);
			rcb__futex_wait(&h->kick, rcb_load_relaxed(&h->kick),
					PI_BACKOFF_NS);
			continue;
		}
		/* ESRCH: the owner's TID does not exist (a reader that
		 * exited inside its critical section: a misuse).
		 * Nothing to boost. */
		rcb_add_relaxed(&rcb__pi_failures, 1);
		break;
	}
	if (locked) {
		v = me;
		/* [PI-WR] pairs with [PI-A] (through [PI-D]): the next
		 * user of the slot finds the word 0. */
		if (!rcb_cmpxchg_acq_rel(&s->word, &v, 0) &&
		    pi_futex(&s->word, FUTEX_UNLOCK_PI, NULL) != 0)
			RCB_DIE("futex(FUTEX_UNLOCK_PI) by the helper", errno);
	}
	pthread_mutex_lock(&s->lock);
	s->helper = NULL;
	pthread_mutex_unlock(&s->lock);
	slot_put(s);
}

static void *pi_helper_main(void *arg)
{
	struct pi_helper *h = arg;
	char name[16];

	snprintf(name, sizeof(name), "rcuboost-pi%d", (int)(h - pi_helpers));
	prctl(PR_SET_NAME, name, 0, 0, 0);
	rcb_store_relaxed(&h->tid, (pid_t)syscall(SYS_gettid));
	/* [PI-HF] pairs with [PI-H] in helper_take(): tid is set. */
	rcb_store_release(&h->busy, 0);
	for (;;) {
		/* [PI-KA] pairs with [PI-K] in helper_kick(). */
		int k = rcb_load_acquire(&h->kick);
		/* [PI-JA] pairs with [PI-J] in helper_kick(). */
		struct rcb__pi_slot *s = rcb_load_acquire(&h->job);

		if (s) {
			pi_run_job(h, s);
			rcb_store_relaxed(&h->job, NULL);
			/* [PI-HF] pairs with [PI-H] in helper_take(). */
			rcb_store_release(&h->busy, 0);
			continue;
		}
		/* [PI-SA] pairs with [PI-S] in rcb__pi_stop(). */
		if (rcb_load_acquire(&pi_stopping))
			break;
		rcb_add_relaxed(&rcb__pi_syscalls, 1);
		rcb__futex_wait(&h->kick, k, 0);
	}
	return NULL;
}

/*
 * Start the helpers (rcb__settings.pi_helpers of them).  Context:
 * rcb__booster_start(), rcb__booster_lock held, before the boosters run.
 * Returns 0, or a negative errno if one of the helpers could not be
 * started (then none runs).
 */
int rcb__pi_start(void)
{
	int want = (int)rcb__settings.pi_helpers, err = 0;
	sigset_t all, old;

	if (want < 1)
		want = 1;
	if (want > PI_HELPERS_MAX)
		want = PI_HELPERS_MAX;
	if (!pi_inited) {
		for (int i = 0; i < PI_SLOTS; i++) {
			err = rcb__pi_mutex_init(&pi_slots[i].lock);
			if (err)
				return err;
		}
		pi_inited = true;
	}
	rcb_store_relaxed(&pi_use_lock_pi2, kernel_has_lock_pi2());
	rcb_store_relaxed(&pi_stopping, 0);
	/* Helpers take no signals: the application's handlers run in its
	 * own threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = pi_nhelpers; i < want; i++) {
		struct pi_helper *h = &pi_helpers[i];

		rcb_store_relaxed(&h->job, NULL);
		/* Busy until it has run: its tid is not known before.
		 * The boosters start after us (pthread_create orders
		 * this store and pi_nhelpers before them). */
		rcb_store_relaxed(&h->busy, 1);
		h->cur_prio = 0;
		err = rcb__lib_thread_create(&h->thread, pi_helper_main, h);
		if (err)
			break;
		h->started = true;
		pi_nhelpers = i + 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		/* All or nothing, like the boosters (rcb_init() leaves no
		 * thread behind when it fails): join those that started. */
		rcb__pi_stop();
		fprintf(stderr, "rcuboost: cannot start the pi backend's helper threads: %s\n",
			strerror(err));
		return -err;
	}
	return 0;
}

/*
 * Stop the helpers.  Does not wait for readers: a helper waiting on a
 * reader gives up within PI_WAIT_NS (invariant 5).  Context:
 * rcb__booster_stop(), rcb__booster_lock held, boosters joined.
 */
void rcb__pi_stop(void)
{
	/* [PI-S] pairs with [PI-SA] in the helpers. */
	rcb_store_release(&pi_stopping, 1);
	for (int i = 0; i < pi_nhelpers; i++) {
		struct pi_helper *h = &pi_helpers[i];

		/* [PI-K] pairs with [PI-KA]: wake it to see the stop. */
		rcb_add_release(&h->kick, 1);
		rcb__futex_wake(&h->kick, 1);
	}
	for (int i = 0; i < pi_nhelpers; i++) {
		rcb__lib_thread_join(pi_helpers[i].thread);
		pi_helpers[i].started = false;
	}
	pi_nhelpers = 0;
}

/*
 * Boost @t to @rcuprio: bind a slot and a helper, or raise the helper
 * of its slot.  Context: a booster, @rbdp (t's element) locked, @t
 * BLOCKED or BOOSTED (so inside its critical section).  Returns true if
 * a helper now boosts @t at >= @rcuprio (or is being started to);
 * false if no slot or helper is free (the next pass retries).
 */
bool rcb__pi_boost(struct rcb__thread *t, struct rcu_boost_dat *rbdp,
		   int rcuprio)
{
	struct rcb__pi_slot *s = t->boost.pi_slot;
	struct pi_helper *h;
	bool ok = true;

	(void)rbdp;
	if (s) {
		/* Escalation, a raised booster, or a slot whose helper
		 * gave up at a shutdown. */
		pthread_mutex_lock(&s->lock);
		h = s->helper;
		if (h) {
			if (rcuprio > s->prio) {
				/* The helper waits in FUTEX_LOCK_PI: the
				 * kernel re-propagates its new priority
				 * to the reader and down the chain. */
				ok = helper_set_prio(h, rcuprio) == 0;
				if (ok)
					s->prio = rcuprio;
			}
		} else if ((h = helper_take())) {
			/* the reader's holds it */
			rcb_add_relaxed(&s->refs, 1);
			ok = bind_helper(h, s, rcuprio);
			helper_kick(h, s);
			rcb_add_relaxed(&rcb__pi_boosts, 1);
		} else {
			ok = false;
		}
		pthread_mutex_unlock(&s->lock);
		return ok;
	}
	s = slot_take();
	if (!s)
		return false;
	h = helper_take();
	if (!h) {
		/* [PI-D] pairs with [PI-A]: untouched, free again. */
		rcb_store_release(&s->refs, 0);
		return false;
	}
	/* Invariant 2: @t is in its critical section, and cannot leave
	 * its outermost unlock without taking the slot under the lock we
	 * hold.  The reader sees the word through that lock, the helper
	 * through [PI-J]. */
	s->tid = t->tid;
	rcb_store_relaxed(&s->word, (uint32_t)t->tid);
	pthread_mutex_lock(&s->lock);
	ok = bind_helper(h, s, rcuprio);
	pthread_mutex_unlock(&s->lock);
	t->boost.pi_slot = s;
	helper_kick(h, s);
	rcb_add_relaxed(&rcb__pi_boosts, 1);
	return ok;
}

/*
 * Detach the calling thread's slot.  Context: its outermost unlock (or
 * exit), its element locked, state BOOSTED.  Returns the slot or NULL;
 * the caller passes it to rcb__pi_release() after dropping the lock.
 */
struct rcb__pi_slot *rcb__pi_take(struct rcb__thread *self)
{
	struct rcb__pi_slot *s = self->boost.pi_slot;

	self->boost.pi_slot = NULL;
	return s;
}

/*
 * Release slot @s taken by rcb__pi_take(): give the word up (this
 * unboosts the caller if a helper waits), then drop the reader's
 * reference.  Context: the reader itself, before its outermost unlock
 * returns, no library lock held.
 */
void rcb__pi_release(struct rcb__pi_slot *s)
{
	uint32_t me = (uint32_t)s->tid, v = me;

	/* [PI-R] pairs with [PI-W] in pi_run_job(): no helper waits yet;
	 * one that comes later finds the lock free. */
	if (!rcb_cmpxchg_acq_rel(&s->word, &v, 0)) {
		/* FUTEX_WAITERS: a helper waits (or waited and gave up).
		 * The kernel hands it the lock and drops our inherited
		 * priority. */
		if ((v & FUTEX_TID_MASK) != me)
			RCB_DIE("pi slot word names another thread", EPERM);
		if (pi_futex(&s->word, FUTEX_UNLOCK_PI, NULL) != 0)
			RCB_DIE("futex(FUTEX_UNLOCK_PI) by the reader", errno);
		rcb_add_relaxed(&rcb__pi_handoffs, 1);
	}
	slot_put(s);
}

/*
 * fork() child: no helpers exist, and every slot is a copy of a parent
 * slot (the forking thread's names the parent's TID).  Start over with
 * all slots and helpers free.  Context: the child's only thread, after
 * rcb__boost_after_fork_child() dequeued it.
 */
void rcb__pi_after_fork_child(void)
{
	rcb__self()->boost.pi_slot = NULL;
	for (int i = 0; i < PI_SLOTS; i++) {
		struct rcb__pi_slot *s = &pi_slots[i];

		rcb_store_relaxed(&s->word, 0);
		rcb_store_relaxed(&s->refs, 0);
		s->helper = NULL;
		if (pi_inited)
			rcb__pi_mutex_init(&s->lock);
	}
	for (int i = 0; i < PI_HELPERS_MAX; i++) {
		rcb_store_relaxed(&pi_helpers[i].busy, 0);
		rcb_store_relaxed(&pi_helpers[i].job, NULL);
		pi_helpers[i].started = false;
	}
	pi_nhelpers = 0;
	rcb_store_relaxed(&pi_stopping, 0);
}
