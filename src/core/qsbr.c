/* SPDX-License-Identifier: MIT */
/*
 * The qsbr domain: registration, online and offline, quiescent states
 * and grace periods (include/rcuboost/qsbr.h).
 *
 * Algorithm.  Each thread has a second reader record, rcb__qsbr_reader,
 * whose ctr is 0 while the thread is offline and otherwise the value of
 * rcb__qsbr_gp.ctr at its last quiescent state.  A grace period advances
 * rcb__qsbr_gp.ctr by 2 and waits until every online thread's ctr equals
 * the new value or is 0.  Unlike the default domain, the read side has
 * no code at all, so the barriers sit in the quiescent-state and offline
 * paths, which are full fences (liburcu's qsbr flavor does the same):
 * no membarrier(2) is involved.
 *
 * The threads are found on the registry of the default domain
 * (registry.c): a qsbr registration puts the thread there too, so that
 * the booster, which walks that list, finds online threads that hold a
 * grace period up (rcb__thread_holds(), internal.h) and boosts them with
 * the same machines and backends as preempted readers.  Its unboost is
 * done by the thread's next quiescent state or offline call.
 *
 * Invariants.
 *  1. Only the owning thread writes its qsbr ctr; only a grace period,
 *     under qsbr_gp_lock, writes rcb__qsbr_gp.ctr, which is odd, so
 *     never 0 (offline).
 *  2. t->qs is non-NULL iff the thread is registered with this domain;
 *     it changes only under the registry lock, and while it is non-NULL
 *     the thread stays on the registry list (rcb_unregister_thread()
 *     leaves it there, registry.c), so a scan under the lock never
 *     reads a record of an exited thread.
 *  3. A thread's ctr changes from one value to another only by a store
 *     between two full fences ([QS-A] before, [QS-W] after), and the
 *     grace period advances the counter between two full fences ([QG-A]
 *     before, [QG-C] after, then the scans, then [QG-B]): a thread read
 *     holding the old value had not yet passed [QS-A], one read at the
 *     new value or 0 had passed it, so its references from before are
 *     dropped before the caller goes on.
 *  4. rcb__qsbr_gp.futex is -1 only while a grace period may sleep; a
 *     quiescent state or offline that sees -1 after its store wakes it
 *     ([QS-W] against [QG-W], store buffering on both sides with full
 *     fences).
 *  5. Batching: as gp.c invariant 5, with qsbr_seq_started/done.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

#include "core/hooks.h"
#include "core/internal.h"

RCB_API struct rcb__qsbr_gp rcb__qsbr_gp RCB__HOT_ALIGN = { .ctr = 1,
							    .futex = 0 };
RCB_API __thread struct rcb_qsbr_reader rcb__qsbr_reader
	__attribute__((tls_model("initial-exec")));
#define me rcb__qsbr_reader

_Atomic unsigned long long rcb__qsbr_wait_start_ns;
_Atomic unsigned long long rcb__qsbr_stat[4];

static pthread_mutex_t qsbr_gp_lock;
static pthread_once_t qsbr_once = PTHREAD_ONCE_INIT;
static _Atomic unsigned long long qsbr_seq_started, qsbr_seq_done;

/* As gp.c: scans spun before sleeping, and the sleep's re-check bound. */
#define QSBR_SPIN_SCANS 100
#define QSBR_SLEEP_NS (10ull * 1000 * 1000)
/* Tries of the grace-period lock before blocking (gp.c's reasoning). */
#define QSBR_LOCK_TRIES 64

static void qsbr_lock_init(void)
{
	/* Priority inheritance, as the default domain's lock: a real-time
	 * caller lends its priority to the grace period it waits behind. */
	int err = rcb__pi_errorcheck_mutex_init(&qsbr_gp_lock);

	if (err)
		RCB_DIE("pthread_mutex_init(qsbr gp, PRIO_INHERIT)", -err);
}

static void qsbr_once_init(void)
{
	qsbr_lock_init();
}

RCB_API void rcb__qsbr_nest_misuse(const char *call)
{
	if (rcb__qsbr_reader.depth == 0)
		rcb__misuse(call, "unlock without a matching rcb_qsbr_read_lock(); ignored");
	else
		rcb__misuse(call, "called inside a qsbr read-side critical section "
				  "(nesting %u): the thread's references may be freed",
			    rcb__qsbr_reader.depth);
}

/* Wake a grace period asleep waiting for online threads. */
static void qsbr_gp_wake(void)
{
	int expect = -1;

	if (rcb_cmpxchg_relaxed(&rcb__qsbr_gp.futex, &expect, 0))
		rcb__futex_wake(&rcb__qsbr_gp.futex, 1);
}

/*
 * The thread's ctr becomes @ctr (a new grace-period value, or 0 for
 * offline), then what a grace period or booster left for it: a wake-up,
 * an unboost.  Context: the thread itself, registered.
 */
static void qsbr_store(unsigned long ctr)
{
	/* [QS-A] Everything the thread read before (its references) is
	 * ordered before the store that lets a grace period end.  Pairs
	 * with [QG-B] in wait_for_online(). */
	rcb_fence_seq_cst();
	rcb_store_relaxed(&me.ctr, ctr);
	/* [QS-W] The store before the loads below: store buffering against
	 * a grace period's "futex = -1; scan" ([QG-W]) and the booster's
	 * "state = queued; scan" ([BST-M] in src/boost/booster_pass.c). */
	rcb_fence_seq_cst();
	if (RCB_UNLIKELY(rcb_load_relaxed(&rcb__qsbr_gp.futex) == -1))
		qsbr_gp_wake();
	/* The boost check: one load and a predicted branch.  A boost lent
	 * for a default-domain section still running stays until that
	 * section's unlock. */
	if (RCB_UNLIKELY(rcb__bstate_relaxed(&rcb__reader) != 0) &&
	    !(rcb_load_relaxed(&rcb__reader.ctr) & RCB__NEST_MASK))
		rcb__boost_hooks.unlock_unboost();
}

RCB_API void rcb__qsbr_quiescent_slow(unsigned long gp)
{
	if (RCB_UNLIKELY(rcb_load_relaxed(&me.ctr) == 0)) {
		static __thread bool reported;

		if (!reported) {
			reported = true;
			rcb__misuse("rcb_qsbr_quiescent_state",
				    me.registered ?
					    "called while the thread is offline; it goes online, "
					    "as liburcu's does (call rcb_qsbr_thread_online() first)" :
					    "called by a thread not registered with the qsbr domain "
					    "(rcb_qsbr_register_thread()); ignored");
		}
		/* liburcu's quiescent state puts an offline thread online,
		 * and code written for it may read right after: the safe
		 * direction is to protect those reads. */
		if (me.registered)
			rcb_qsbr_thread_online();
		return;
	}
	qsbr_store(gp);
	rcb_add_relaxed(&rcb__qsbr_stat[RCB__QSS_QS], 1);
}

RCB_API int rcb_qsbr_register_thread(void)
{
	struct rcb__thread *self = rcb__self();
	bool was_listed;
	int err;

	if (me.registered)
		return 0;
	if ((err = rcb__ensure_init()) != 0)
		return err;
	pthread_once(&qsbr_once, qsbr_once_init);
	was_listed = self->registered;
	if ((err = rcb__register_self()) != 0)
		return err;
	pthread_mutex_lock(&rcb__registry_lock);
	self->qs_own_reg = !was_listed;
	rcb_store_relaxed(&self->qs, &me);
	me.registered = 1;
	pthread_mutex_unlock(&rcb__registry_lock);
	rcb_qsbr_thread_online();
	return 0;
}

RCB_API int rcb_qsbr_unregister_thread(void)
{
	struct rcb__thread *self = rcb__self();
	bool leave;

	if (!me.registered)
		return -ENOENT;
	if (me.depth) {
		rcb__misuse("rcb_qsbr_unregister_thread",
			    "called inside a qsbr read-side critical section (nesting %u); "
			    "the thread stays registered",
			    me.depth);
		return -EBUSY;
	}
	if (rcb_load_relaxed(&me.ctr))
		qsbr_store(0);
	pthread_mutex_lock(&rcb__registry_lock);
	rcb_store_relaxed(&self->qs, NULL);
	me.registered = 0;
	leave = self->qs_own_reg || self->memb_left;
	self->qs_own_reg = self->memb_left = false;
	pthread_mutex_unlock(&rcb__registry_lock);
	/* The default domain's registration, if only this one made it (or
	 * rcb_unregister_thread() left it to us: registry.c). */
	if (leave && !rcb_read_ongoing())
		rcb__registry_leave_self();
	return 0;
}

RCB_API void rcb_qsbr_thread_offline(void)
{
	if (RCB_UNLIKELY(me.depth))
		rcb__qsbr_nest_misuse("rcb_qsbr_thread_offline");
	if (RCB_UNLIKELY(!me.registered)) {
		rcb__misuse("rcb_qsbr_thread_offline",
			    "the thread is not registered with the qsbr domain; ignored");
		return;
	}
	if (rcb_load_relaxed(&me.ctr))
		qsbr_store(0);
}

RCB_API void rcb_qsbr_thread_online(void)
{
	if (RCB_UNLIKELY(!me.registered)) {
		rcb__misuse("rcb_qsbr_thread_online",
			    "the thread is not registered with the qsbr domain "
			    "(rcb_qsbr_register_thread()); ignored");
		return;
	}
	if (rcb_load_relaxed(&me.ctr))
		return;
	rcb_store_relaxed(&me.ctr, rcb_load_relaxed(&rcb__qsbr_gp.ctr));
	/* [QS-O] The online store before the thread's first reference: a
	 * grace period whose counter advance the store missed ([QG-C]) is
	 * ordered before the reads that follow.  Pairs with [QG-A]. */
	rcb_fence_seq_cst();
}

RCB_API int rcb_qsbr_thread_is_online(void)
{
	return me.registered && rcb_load_relaxed(&me.ctr) != 0;
}

/* True if some online thread still holds grace period @gp.  Context:
 * the grace-period leader. */
static bool online_hold(unsigned long gp)
{
	struct rcb__thread *t;
	bool held = false;

	pthread_mutex_lock(&rcb__registry_lock);
	rcb__for_each_thread(t) {
		struct rcb_qsbr_reader *q = rcb_load_relaxed(&t->qs);

		if (q && rcb__qsbr_holds_ctr(rcb_load_relaxed(&q->ctr), gp)) {
			held = true;
			break;
		}
	}
	pthread_mutex_unlock(&rcb__registry_lock);
	return held;
}

/* Wait until no online thread holds @gp: spin, then sleep on the futex.
 * The booster is kicked when the spin ends, as by the default domain's
 * grace periods.  Context: leader, qsbr_gp_lock held. */
static void wait_for_online(unsigned long gp)
{
	unsigned long long start = rcb__now_ns();

	rcb_store_relaxed(&rcb__qsbr_wait_start_ns, start);
	for (int scan = 0;; scan++) {
		if (scan == QSBR_SPIN_SCANS)
			rcb__boost_hooks.kick();
		if (scan >= QSBR_SPIN_SCANS) {
			rcb_store_relaxed(&rcb__qsbr_gp.futex, -1);
			/* [QG-W] The futex store before the scan.  Pairs
			 * with [QS-W] (invariant 4). */
			rcb_fence_seq_cst();
		}
		if (!online_hold(gp))
			break;
		if (scan < QSBR_SPIN_SCANS) {
			rcb_cpu_relax();
			continue;
		}
		rcb_add_relaxed(&rcb__qsbr_stat[RCB__QSS_FUTEX], 1);
		rcb__futex_wait(&rcb__qsbr_gp.futex, -1, QSBR_SLEEP_NS);
		/* A stall report at most once per grace period. */
		rcb__diag_hooks.qsbr_stall_check(gp, start);
	}
	rcb_store_relaxed(&rcb__qsbr_gp.futex, 0);
	rcb_store_relaxed(&rcb__qsbr_wait_start_ns, 0);
}

RCB_API int rcb_qsbr_synchronize(void)
{
	unsigned long long snap;
	bool was_online;
	int err;

	if (RCB_UNLIKELY(me.depth)) {
		rcb__qsbr_nest_misuse("rcb_qsbr_synchronize");
		return -EDEADLK;
	}
	if ((err = rcb__ensure_init()) != 0)
		return err;
	pthread_once(&qsbr_once, qsbr_once_init);
	was_online = rcb_load_relaxed(&me.ctr) != 0;
	if (was_online)
		qsbr_store(0); /* as liburcu: the caller is offline */
	/* [QG-S] Our accesses before the read of the started count, as
	 * [GP-S] in gp.c.  Pairs with the leader's unlock. */
	rcb_fence_seq_cst();
	snap = rcb_load_relaxed(&qsbr_seq_started);
	/* As gp.c: a few tries before blocking, since a grace period with
	 * nobody to wait for holds the lock for well under a microsecond
	 * and blocking on a PI mutex is a system call and a hand-over. */
	err = pthread_mutex_trylock(&qsbr_gp_lock);
	for (int i = 0; err == EBUSY && i < QSBR_LOCK_TRIES; i++) {
		rcb_cpu_relax();
		err = pthread_mutex_trylock(&qsbr_gp_lock);
	}
	if (err == EBUSY)
		err = pthread_mutex_lock(&qsbr_gp_lock);
	if (err == EDEADLK) {
		rcb__misuse("rcb_qsbr_synchronize",
			    "called from a signal handler that interrupted this thread's own "
			    "grace period; it would wait for itself forever");
		if (was_online)
			rcb_qsbr_thread_online();
		return -EDEADLK;
	}
	if (err)
		RCB_DIE("pthread_mutex_lock(qsbr gp)", err);
	if (rcb_load_relaxed(&qsbr_seq_done) >= snap + 1) {
		rcb_add_relaxed(&rcb__qsbr_stat[RCB__QSS_BATCHED], 1);
	} else {
		unsigned long gp;

		rcb_store_relaxed(&qsbr_seq_started,
				  rcb_load_relaxed(&qsbr_seq_started) + 1);
		/* [QG-A] The caller's unpublishing before the advance and
		 * the scans.  Pairs with [QS-O] and [QS-A]. */
		rcb_fence_seq_cst();
		gp = rcb_load_relaxed(&rcb__qsbr_gp.ctr) + 2;
		rcb_store_relaxed(&rcb__qsbr_gp.ctr, gp);
		/* [QG-C] The advance before the scans: a thread coming
		 * online after a scan missed it reads the new value or is
		 * ordered after [QG-A].  Pairs with [QS-O]. */
		rcb_fence_seq_cst();
		wait_for_online(gp);
		/* [QG-B] The scans that saw every thread past its
		 * quiescent state before what the caller does next (the
		 * free).  Pairs with [QS-A]. */
		rcb_fence_seq_cst();
		/* Read under the lock only: relaxed. */
		rcb_store_relaxed(&qsbr_seq_done,
				  rcb_load_relaxed(&qsbr_seq_started));
		rcb_add_relaxed(&rcb__qsbr_stat[RCB__QSS_GP], 1);
	}
	pthread_mutex_unlock(&qsbr_gp_lock);
	/* [QG-E] A batched caller's later accesses follow the leader's
	 * [QG-B] (the lock's acquire), made a full barrier.  Pairs with
	 * [QG-B]. */
	rcb_fence_seq_cst();
	if (was_online)
		rcb_qsbr_thread_online();
	return 0;
}

/* The thread exits still registered (registry.c's thread_exit()):
 * offline first, so no grace period waits for it, then off the domain.
 * Reported when it was online: liburcu would leave its record to later
 * grace periods. */
void rcb__qsbr_thread_exit(void)
{
	struct rcb__thread *self = rcb__self();

	if (!me.registered)
		return;
	if (rcb_load_relaxed(&me.ctr)) {
		static _Atomic bool reported;

		/* Once per process: programs that never unregister their
		 * threads would otherwise print at every thread's exit. */
		if (!rcb_xchg_relaxed(&reported, true))
			rcb__misuse("thread exit",
				    "thread exits online in the qsbr domain without "
				    "rcb_qsbr_unregister_thread(); unregistering it "
				    "(said once per process)");
		qsbr_store(0);
	}
	pthread_mutex_lock(&rcb__registry_lock);
	rcb_store_relaxed(&self->qs, NULL);
	self->qs_own_reg = self->memb_left = false;
	me.registered = 0;
	pthread_mutex_unlock(&rcb__registry_lock);
}

/* fork(): the child's one thread keeps its registration and state; a
 * grace period in flight in the parent is abandoned (its counter advance
 * is harmless: the next one advances again). */
void rcb__qsbr_after_fork_child(void)
{
	rcb_store_relaxed(&rcb__qsbr_gp.futex, 0);
	rcb_store_relaxed(&rcb__qsbr_wait_start_ns, 0);
	qsbr_lock_init();
}
