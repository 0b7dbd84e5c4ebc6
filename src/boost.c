/* SPDX-License-Identifier: MIT */
/*
 * The boost state machine: per-CPU arrays of rcu_boost_dat, queueing of
 * readers that block (or are found preempted) inside read-side critical
 * sections, boosting by the booster, unboosting by the reader itself.
 * article: "RCU Explicit Priority Boosting" (the recommended design).
 *
 * States (src/states.h): RCU_BOOST_IDLE (not queued), RCU_BOOST_BLOCKED
 * (queued on rbs_toboost of element *rcub_rbdp), RCU_BOOSTED (queued on
 * rbs_boosted, priority raised).  The state lives in the thread's public
 * reader record (rcb_reader.boost_state) so that the outermost
 * rcb_read_unlock() can test it inline (article: rcu_read_unlock_unboost).
 *
 * Departure from the article, for userspace.  The article's scheduler
 * hook lets every blocked reader queue itself.  Userspace has no hook: a
 * reader that blocks voluntarily calls rcb_note_block() (the article's
 * rcu_preempt_boost()), but a preempted reader never runs to do so.  The
 * booster therefore also queues, on their behalf, registered readers
 * that have held up a grace period for a booster period
 * (rcb__boost_enqueue() called from booster.c).  So IDLE can be left by
 * two threads, and the IDLE -> BLOCKED step is a compare-and-exchange.
 * The booster's queueing races with the reader leaving its section; it
 * is verified after a membarrier and reverted if the reader has left
 * (booster.c, enqueue_preempted_readers()).
 *
 * Invariants.
 *  1. IDLE -> BLOCKED: compare-and-exchange, by the reader
 *     (rcb__preempt_boost) or by the booster, holding the lock of the
 *     element it then queues on; the winner sets rcub_rbdp and queues
 *     before releasing the lock.
 *  2. Every other transition happens under the lock of *rcub_rbdp:
 *     BLOCKED -> BOOSTED by the booster; BLOCKED/BOOSTED -> IDLE by the
 *     reader (outermost unlock, thread exit) and BLOCKED -> IDLE by the
 *     booster's revert.  A thread is on an element's list iff its state
 *     is not IDLE and rcub_rbdp points at that element.
 *  3. All boosting is done by the booster, all unboosting by the thread
 *     itself (article), so unboosting is exact: a thread never stays
 *     boosted past the outermost unlock of the section that got it
 *     boosted.
 *  4. The booster touches a thread (sched_setattr on its tid) only while
 *     it holds the lock of the element the thread is queued on; a thread
 *     dequeues itself under that lock before it leaves its critical
 *     section's slow path, and it cannot exit without doing so, so a
 *     reused thread ID is never boosted.
 *  5. A booster's index (rcu_boost_idx) is -1 until the arrays are
 *     initialised; the store that makes it non-negative is a release
 *     ([BST-I]).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/sysinfo.h>
#include <time.h>

#include "boost.h"

struct rcu_boost_dat *rcb__boost_dat;
_Atomic bool rcb__boost_dat_ready;
int rcb__boost_ncpus;
int rcb__boost_nelem;
_Atomic long rcb__boost_too_early;
_Atomic long rcb__boost_max_task_fail;
_Atomic long rcb__hold_count, rcb__hold_max_ns, rcb__hold_total_ns;
_Atomic long rcb__boost_lat_count, rcb__boost_lat_max_ns, rcb__boost_lat_total_ns;
_Atomic long rcb__escalations;

static int clamp_level(int level, int booster_prio)
{
	int top = booster_prio > 1 ? booster_prio - 1 : 1;

	return level < 1 ? 1 : level > top ? top : level;
}

/* Levels keep their distance to the booster's priority: an
 * administrator who raises the booster (chrt) raises them alike. */
int rcb__boost_first_level(int booster_prio)
{
	return clamp_level(rcb__settings.boost_reader_prio +
				   (booster_prio - rcb__settings.boost_prio),
			   booster_prio);
}

int rcb__boost_ceiling_level(int booster_prio)
{
	return clamp_level(rcb__settings.boost_ceiling +
				   (booster_prio - rcb__settings.boost_prio),
			   booster_prio);
}

void rcb__hold_begin(uint64_t *t0)
{
	*t0 = rcb__now_ns();
}

void rcb__hold_end(uint64_t *t0)
{
	long d, cur;

	if (!*t0)
		return;
	d = (long)(rcb__now_ns() - *t0);
	*t0 = 0;
	rcb_add_relaxed(&rcb__hold_count, 1);
	rcb_add_relaxed(&rcb__hold_total_ns, d);
	cur = rcb_load_relaxed(&rcb__hold_max_ns);
	while (d > cur && !rcb_cmpxchg_relaxed(&rcb__hold_max_ns, &cur, d))
		;
}

void rcb__boost_note_task_fail(long fails)
{
	long cur = rcb_load_relaxed(&rcb__boost_max_task_fail);

	while (fails > cur &&
	       !rcb_cmpxchg_relaxed(&rcb__boost_max_task_fail, &cur, fails))
		;
}

/*
 * article: init_rcu_boost_early().  Allocate and initialise the arrays
 * and the booster table, unpublished: nothing outside the booster start
 * that called us looks at them before rcb__boost_early_publish(), so
 * rcb__boost_early_undo() can free them if that start fails (rcb_init()
 * is all-or-nothing, and a later rcb_init() may choose another number
 * of elements or boosters).  The index stays -1 until the booster runs
 * (booster.c stores 0 with [BST-I]).  Context: rcb__booster_start(),
 * booster_lock held.
 */
int rcb__boost_early_init(void)
{
	int ncpus = get_nprocs_conf();
	int nelem = (int)rcb__settings.boost_elements;
	struct rcu_boost_dat *arr;
	int err;

	if (rcb__boost_dat)
		return 0;
	if (ncpus < 1)
		ncpus = 1;
	arr = aligned_alloc(64, sizeof(*arr) * (size_t)(ncpus * nelem));
	if (!arr)
		return -ENOMEM;
	memset(arr, 0, sizeof(*arr) * (size_t)(ncpus * nelem));
	for (int i = 0; i < ncpus * nelem; i++) {
		err = rcb__pi_mutex_init(&arr[i].rbs_mutex);
		if (err) {
			while (i--)
				pthread_mutex_destroy(&arr[i].rbs_mutex);
			free(arr);
			return err;
		}
		rcb__list_init(&arr[i].rbs_toboost);
		rcb__list_init(&arr[i].rbs_boosted);
	}
	rcb__boost_ncpus = ncpus;
	rcb__boost_nelem = nelem;
	rcb__boost_dat = arr;
	err = rcb__boosters_init(ncpus);
	if (err)
		rcb__boost_early_undo();
	return err;
}

/* The boosters started: the arrays and the booster table become
 * visible to readers (rcu_rbd_new()) and to the statistics. */
void rcb__boost_early_publish(void)
{
	/* [BST-D] pairs with [BST-DA] in rcb_boost_stats() and [BST-DN]
	 * in rcu_rbd_new(). */
	rcb_store_release(&rcb__boost_dat_ready, true);
}

/*
 * A booster start failed before publishing: free what
 * rcb__boost_early_init() allocated, so the next start allocates
 * afresh with the settings of its time.  No booster runs (they were
 * joined) and no other thread saw the arrays (not published).
 */
void rcb__boost_early_undo(void)
{
	if (rcb_load_relaxed(&rcb__boost_dat_ready))
		return; /* published: kept for the life of the process */
	if (rcb__boost_dat) {
		for (int i = 0; i < rcb__boost_ncpus * rcb__boost_nelem; i++)
			pthread_mutex_destroy(&rcb__boost_dat[i].rbs_mutex);
		free(rcb__boost_dat);
	}
	free(rcb__boosters);
	free(rcb__cpu_booster);
	rcb__boost_dat = NULL;
	rcb__boosters = NULL;
	rcb__cpu_booster = NULL;
	rcb__nboosters = 0;
	rcb__boost_ncpus = 0;
	rcb__boost_nelem = 0;
}

/* article: rcu_boost_dat_stat().  Context: rbdp->rbs_mutex held. */
void rcb__boost_stat(struct rcu_boost_dat *rbdp, int event, int oldstate)
{
	int n = rcb__machine8() ? N_RCU_BOOST8_STATE : N_RCU_BOOST_STATE;

	if (oldstate >= 0 && oldstate < n)
		rbdp->rbs_stats[event][oldstate]++;
	else
		rbdp->rbs_stats[event][RCB_MAX_BOOST_STATES]++;
}

void rcb__boost_lock(struct rcu_boost_dat *rbdp)
{
	int err = pthread_mutex_lock(&rbdp->rbs_mutex);

	if (err)
		RCB_DIE("pthread_mutex_lock(rbs_mutex)", err);
}

void rcb__boost_unlock(struct rcu_boost_dat *rbdp)
{
	int err = pthread_mutex_unlock(&rbdp->rbs_mutex);

	if (err)
		RCB_DIE("pthread_mutex_unlock(rbs_mutex)", err);
}

/*
 * article: rcu_rbd_new().  The element newly blocked tasks of @cpu join,
 * or NULL before the booster runs.
 */
static struct rcu_boost_dat *rcu_rbd_new(int cpu)
{
	int idx;

	/* [BST-DN] pairs with [BST-D] in rcb__boost_early_publish(): the
	 * booster table and CPU map are initialised. */
	if (RCB_UNLIKELY(!rcb_load_acquire(&rcb__boost_dat_ready)))
		return NULL;
	if (cpu < 0 || cpu >= rcb__boost_ncpus)
		cpu = 0;
	/* [BST-N] pairs with [BST-I] in rcu_booster(): the arrays are
	 * initialised before the index reads non-negative. */
	idx = rcb_load_acquire(&rcb__boosters[rcb__cpu_booster[cpu]].idx);
	if (RCB_UNLIKELY(idx < 0))
		return NULL;
	return rcb__rbd(cpu, idx);
}

/*
 * Queue @t on @rbdp as BLOCKED if it is IDLE (invariant 1).  Returns
 * true if this call queued it.  @on_behalf: the booster queues a
 * preempted reader (revertible until the reader adopts it).  Context:
 * the thread itself or the booster; @rbdp's lock not held.
 */
bool rcb__boost_enqueue(struct rcb__thread *t, struct rcu_boost_dat *rbdp,
			bool on_behalf)
{
	int old = RCU_BOOST_IDLE;
	bool queued = false;

	rcb__boost_lock(rbdp);
	rbdp->rbs_blocked++;
	/* [BST-E] Only one of the reader and the booster leaves IDLE; the
	 * winner owns the queueing.  Acquire pairs with [BST-U] (the
	 * reader's return to IDLE releases its earlier list changes). */
	if (rcb__bstate_cas(t->rd, &old, RCU_BOOST_BLOCKED)) {
		rcb__boost_stat(rbdp, RCU_BOOST_DAT_BLOCK, RCU_BOOST_IDLE);
		rcb__list_add_tail(&t->boost.rcub_entry, &rbdp->rbs_toboost);
		t->boost.on_behalf = on_behalf;
		t->boost.queued_ns = rcb__now_ns();
		t->boost.esc_pass = 0;
		/* [BST-P] pairs with [BST-Q] in rcb__read_unlock_unboost(). */
		rcb_store_release(&t->boost.rcub_rbdp, rbdp);
		queued = true;
		DTRACE_PROBE2(rcuboost, block, t->tid, (int)(rbdp - rcb__boost_dat));
	} else {
		rcb__boost_stat(rbdp, RCU_BOOST_DAT_BLOCK, old);
	}
	rcb__boost_unlock(rbdp);
	return queued;
}

/*
 * Undo a booster-side queueing of @t on @rbdp: the reader had already
 * left the critical section it was queued for.  Only a queueing that is
 * still the booster's (on_behalf) and still BLOCKED is undone: had the
 * reader seen the state it would have dequeued itself, and a queueing it
 * made (or adopted) in a later section is its own (the Promela model
 * found that reverting it loses an announced block).  Context: the
 * booster.
 */
void rcb__boost_revert(struct rcb__thread *t, struct rcu_boost_dat *rbdp)
{
	rcb__boost_lock(rbdp);
	if (rcb_load_relaxed(&t->boost.rcub_rbdp) == rbdp &&
	    t->boost.on_behalf &&
	    rcb__bstate_relaxed(t->rd) == RCU_BOOST_BLOCKED) {
		t->boost.on_behalf = false;
		rcb__list_del_init(&t->boost.rcub_entry);
		rcb_store_relaxed(&t->boost.rcub_rbdp, NULL);
		/* [BST-R] pairs with [BST-E]/[BST-Q] acquires. */
		rcb__bstate_store(t->rd, RCU_BOOST_IDLE);
		rbdp->rbs_enqueue_reverted++;
	}
	rcb__boost_unlock(rbdp);
}

/* article: __rcu_preempt_boost().  Called by rcb_note_block() inside a
 * read-side critical section. */
RCB_API void rcb__preempt_boost(void)
{
	struct rcb__thread *self = rcb__self();
	struct rcu_boost_dat *rbdp;

	if (!rcb__settings.boost)
		return;
	rbdp = rcu_rbd_new(sched_getcpu());
	if (!rbdp) {
		/* article: "Preempted RCU too early."  Counted, not
		 * printed: the booster starts with the first stalled
		 * grace period and finds the reader then. */
		rcb_add_relaxed(&rcb__boost_too_early, 1);
		rcb__booster_kick();
		return;
	}
#ifdef RCB_PERTASK_LOCK
	rcb__boost_pt_note_block(self, rbdp);
	return;
#endif
	if (!(rcb__machine8() ? rcb__boost8_note_block(self, rbdp)
			      : rcb__boost_enqueue(self, rbdp, false)))
		rcb__boost_adopt(self);
}

/*
 * Lock and return the element the calling thread is queued on, or
 * return NULL if it is not queued (IDLE, or in the 8-state machine also
 * UNBOOST_IDLE, whose booster finishes the backing out).  Waits out a
 * booster that is queueing the thread on its behalf: it won IDLE ->
 * BLOCKED and sets rcub_rbdp a few instructions later under the lock;
 * sleep rather than yield, as a yield would never let a booster we
 * outrank on its CPU finish.  Context: the thread itself, no lock held.
 */
struct rcu_boost_dat *rcb__boost_lock_own(struct rcb__thread *self)
{
	for (;;) {
		int s = rcb__bstate_acquire(self->rd); /* [BST-Q] */
		struct rcu_boost_dat *rbdp;

		if (s == RCU_BOOST_IDLE ||
		    (rcb__machine8() && s == RCU_UNBOOST_IDLE))
			return NULL;
		rbdp = rcb_load_acquire(&self->boost.rcub_rbdp); /* [BST-Q] */
		if (!rbdp) {
			struct timespec ts = { .tv_sec = 0, .tv_nsec = 20000 };

			nanosleep(&ts, NULL);
			continue;
		}
		rcb__boost_lock(rbdp);
		if (rcb_load_relaxed(&self->boost.rcub_rbdp) == rbdp)
			return rbdp;
		rcb__boost_unlock(rbdp); /* dequeued and requeued: again */
	}
}

/*
 * The thread blocks but is already queued: if the booster queued it on
 * its behalf, make the queueing the thread's own so that the booster's
 * verification cannot revert it.  Context: the thread, inside a critical
 * section, no lock held.
 */
void rcb__boost_adopt(struct rcb__thread *self)
{
	for (;;) {
		struct rcu_boost_dat *rbdp = rcb__boost_lock_own(self);

		if (rbdp) {
			self->boost.on_behalf = false;
			rcb__boost_unlock(rbdp);
			return;
		}
		/* Reverted (or backed out) meanwhile: queue. */
		rbdp = rcu_rbd_new(sched_getcpu());
		if (!rbdp)
			return;
		if (rcb__machine8() ? rcb__boost8_note_block(self, rbdp)
				    : rcb__boost_enqueue(self, rbdp, false))
			return;
	}
}

/*
 * article: rcu_boost_prio().  Raise @t to one notch below the booster's
 * priority @booster_prio, never lowering a thread that runs at or above
 * it.  Remembers the attributes to restore; if the application changed
 * them since our last boost, its attributes become the ones to restore.
 * Context: the booster; 3-state machine: holding the lock of @t's
 * element @rbdp; 8-state machine: @t in RCU_BOOSTING, lock not held.
 */
static void note_boost_latency(struct rcb__thread *t)
{
	long d, cur;

	if (!t->boost.queued_ns)
		return;
	d = (long)(rcb__now_ns() - t->boost.queued_ns);
	t->boost.queued_ns = 0;
	rcb_add_relaxed(&rcb__boost_lat_count, 1);
	rcb_add_relaxed(&rcb__boost_lat_total_ns, d);
	cur = rcb_load_relaxed(&rcb__boost_lat_max_ns);
	while (d > cur && !rcb_cmpxchg_relaxed(&rcb__boost_lat_max_ns, &cur, d))
		;
}

void rcb__boost_prio(struct rcb__thread *t, struct rcu_boost_dat *rbdp,
		     int rcuprio)
{
	struct rcb__boost_thread *b = &t->boost;
	struct rcb__sched_attr cur, want;
	int err;

	if (rcb__backend_pi()) {
		if (rcb__pi_boost(t, rbdp, rcuprio)) {
			note_boost_latency(t);
			if (rcuprio > b->level)
				b->level = rcuprio;
		}
		return;
	}

	if (rcb__sched_get(t->tid, &cur) != 0) {
		rcb_add_relaxed(&rbdp->rbs_boost_failed, 1);
		return;
	}
	if (b->applied && rcb__sched_same(&cur, &b->set)) {
		/* Ours: reboost only raises (article: a raised booster
		 * priority takes effect). */
		if ((int)b->set.sched_priority >= rcuprio)
			return;
	} else {
		b->orig = cur;
		b->applied = false;
	}
	if (rcb__sched_at_least(&cur, rcuprio) && !b->applied) {
		rcb_add_relaxed(&rbdp->rbs_boost_skipped_higher, 1);
		return;
	}
	want = cur;
	want.sched_policy = SCHED_FIFO;
	want.sched_priority = (uint32_t)rcuprio;
	want.sched_nice = 0;
	want.sched_flags &= 0x01; /* keep SCHED_FLAG_RESET_ON_FORK only */
	err = rcb__sched_set(t->tid, &want);
	if (err) {
		rcb_add_relaxed(&rbdp->rbs_boost_failed, 1);
		return;
	}
	/* What we set, not a read-back: a thread that sees itself boosted
	 * may change its attributes at once, and a read-back taken after
	 * that would make its change look like ours, to be undone at
	 * unboost (torture's boost_app_lost check caught it). */
	b->set = want;
	b->applied = true;
	b->level = rcuprio;
	note_boost_latency(t);
	DTRACE_PROBE2(rcuboost, boost, t->tid, rcuprio);
}

/*
 * article: rcu_unboost_prio().  Restore the attributes thread @t had,
 * unless the application changed them while it was boosted: then the
 * application's change wins.  In one go, for the 8-state booster in the
 * RCU_UNBOOST_* states (it owns @t's boost fields there); a thread
 * unboosting itself claims the boost under its element lock
 * (rcb__unboost_take()) and makes the system calls after releasing it
 * (rcb__unboost_apply()).
 */
void rcb__unboost_prio(struct rcb__thread *t, struct rcu_boost_dat *rbdp)
{
	struct rcb__unboost u;

	if (rcb__unboost_take(t, &u))
		rcb__unboost_apply(t->tid, &u, rbdp);
}

/*
 * First half of an unboost: claim the boost this library applied to @t,
 * if any.  Done where @t's boost fields are protected (under the element
 * lock, or in a state only the caller may leave), so that the booster's
 * next boost of @t sees applied == false.  Returns false if nothing to
 * undo.
 */
bool rcb__unboost_take(struct rcb__thread *t, struct rcb__unboost *u)
{
	struct rcb__boost_thread *b = &t->boost;

	if (!b->applied)
		return false;
	b->applied = false;
	u->orig = b->orig;
	u->set = b->set;
	return true;
}

/* Second half: the system calls, touching only @u (no lock needed). */
void rcb__unboost_apply(pid_t tid, const struct rcb__unboost *u,
			struct rcu_boost_dat *rbdp)
{
	struct rcb__sched_attr cur;
	int err;

	if (rcb__sched_get(tid, &cur) == 0 && !rcb__sched_same(&cur, &u->set)) {
		rcb_add_relaxed(&rbdp->rbs_restore_kept_app, 1);
		return;
	}
	err = rcb__sched_set(tid, &u->orig);
	if (err)
		fprintf(stderr,
			"rcuboost: cannot restore the scheduling attributes of thread %d after boosting: %s\n",
			(int)tid, strerror(-err));
	DTRACE_PROBE2(rcuboost, unboost, tid, (int)u->orig.sched_priority);
}

/*
 * article: __rcu_read_unlock_unboost().  The outermost unlock of a
 * section whose thread is queued: dequeue, unboost if boosted, go IDLE.
 * Also called by the thread-exit path.  Context: the thread itself,
 * outside any critical section.
 */
RCB_API void rcb__read_unlock_unboost(void)
{
	struct rcb__thread *self = rcb__self();
	struct rcu_boost_dat *rbdp;
	struct rcb__unboost u;
	struct rcb__pi_slot *slot = NULL;
	bool unboost = false;
	int state;

#ifdef RCB_PERTASK_LOCK
	rcb__boost_pt_unlock(self);
	return;
#endif
	if (rcb__machine8()) {
		rcb__boost8_unlock(self);
		return;
	}
	/* [BST-Q] pairs with [BST-P]/[BST-R]: a non-IDLE state comes with
	 * its element pointer (rcb__boost_lock_own()). */
	rbdp = rcb__boost_lock_own(self);
	if (!rbdp)
		return;
	state = rcb__bstate_relaxed(self->rd);
	self->boost.on_behalf = false;
	rcb__list_del_init(&self->boost.rcub_entry);
	rbdp->rbs_unlock++;
	rcb_store_relaxed(&self->boost.rcub_rbdp, NULL);
	rcb__boost_stat(rbdp, RCU_BOOST_DAT_UNLOCK, state);
	if (state == RCU_BOOSTED) {
		rbdp->rbs_unboosted++;
		if (rcb__backend_pi())
			slot = rcb__pi_take(self);
		else
			unboost = rcb__unboost_take(self, &u);
	}
	self->boost.level = 0;
	/* [BST-U] pairs with [BST-E]. */
	rcb__bstate_store(self->rd, RCU_BOOST_IDLE);
	rcb__boost_unlock(rbdp);
	/*
	 * Unboost after releasing the lock (departure from the
	 * article, whose unboost runs with irqs off): lowering our
	 * priority first would let real-time work preempt us while
	 * we hold the element's lock.  Dequeued and IDLE, we are
	 * out of the booster's reach, and we cannot be queued again
	 * before this unlock returns.
	 */
	if (unboost)
		rcb__unboost_apply(self->tid, &u, rbdp);
	if (slot)
		rcb__pi_release(slot);
}

/*
 * Registration: a thread that left through EXIT_OK (8-state machine) and
 * registers again starts over as IDLE.  Context: the thread, registry
 * lock held, outside critical sections.
 */
void rcb__boost_thread_start(struct rcb__thread *self)
{
	int exited = RCU_EXIT_OK;

	rcb__list_init(&self->boost.rcub_entry);
	rcb__bstate_cas(self->rd, &exited, RCU_BOOST_IDLE); /* [BST8-C] */
}

/*
 * The thread leaves the registry (unregistration or exit), outside any
 * critical section, holding the registry lock.  3-state machine: the
 * outermost unlock already dequeued it, nothing to do.  8-state: wait
 * for the booster to be done with it (article: exit() path).
 */
void rcb__boost_thread_exit(struct rcb__thread *self)
{
#ifdef RCB_PERTASK_LOCK
	rcb__boost_pt_exit(self);
	return;
#endif
	if (rcb__machine8())
		rcb__boost8_exit(self);
}
