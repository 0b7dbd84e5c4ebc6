/* SPDX-License-Identifier: MIT */
/*
 * What every boost state machine shares: per-CPU arrays of
 * rcu_boost_dat, queueing of readers that block (or are found preempted)
 * inside read-side critical sections, boosting by the booster,
 * unboosting by the reader itself; the element locks, the list walk,
 * and the entry points that dispatch to the machine in use
 * (rcb__machine(), boost.h).  The states and invariants below are the
 * 3-state machine's, article: "RCU Explicit Priority Boosting" (the
 * recommended design), whose own steps are in machine3.c; the 8-state
 * machine's are atop machine8.c.
 *
 * States (src/core/states.h): RCU_BOOST_IDLE (not queued), RCU_BOOST_BLOCKED
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
#include <sys/sysinfo.h>
#include <time.h>

#include "boost/boost.h"
#include "core/probes.h"

struct rcu_boost_dat *rcb__boost_dat;
_Atomic bool rcb__boost_dat_ready;
int rcb__boost_ncpus;
int rcb__boost_nelem;
_Atomic long rcb__boost_too_early;
_Atomic long rcb__boost_max_task_fail;
_Atomic long rcb__hold_count, rcb__hold_max_ns, rcb__hold_total_ns;
_Atomic long rcb__escalations, rcb__reraises;

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
 * rcb__booster_lock held.
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
			bool on_behalf, int level_cap)
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
		rcb_store_relaxed(&t->boost.level_cap, level_cap);
		t->boost.queued_ns = rcb__now_ns();
		t->boost.esc_pass = 0;
		/* [BST-P] pairs with [BST-Q] in rcb__boost_lock_own(). */
		rcb_store_release(&t->boost.rcub_rbdp, rbdp);
		queued = true;
		DTRACE_PROBE2(rcuboost, block, t->tid,
			      (int)(rbdp - rcb__boost_dat));
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

	/* A signal handler's section of an unregistered thread (registry.c,
	 * invariant 4) has no record the booster could reach. */
	if (!rcb__settings.boost || !self->registered)
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
	if (!rcb__machine()->note_block(self, rbdp))
		rcb__boost_adopt(self);
	rcb__booster_note_queued(); /* an idle booster ages it (rtidle) */
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
			/* Its own block: the library's levels. */
			rcb_store_relaxed(&self->boost.level_cap, 0);
			rcb__boost_unlock(rbdp);
			return;
		}
		/* Reverted (or backed out) meanwhile: queue. */
		rbdp = rcu_rbd_new(sched_getcpu());
		if (!rbdp)
			return;
		if (rcb__machine()->note_block(self, rbdp))
			return;
	}
}

/*
 * article: __rcu_read_unlock_unboost().  The outermost unlock of a
 * section whose thread is queued: the machine's unlock step.  Also
 * called by the thread-exit path.  Context: the thread itself, outside
 * any critical section.
 */
void rcb__read_unlock_unboost(void)
{
	rcb__machine()->unlock(rcb__self());
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
	const struct rcb__machine_ops *m = rcb__machine();

	if (m->exit)
		m->exit(self);
}

void rcb__walk_begin(struct rcu_boost_dat *rbdp, struct rcb__list *list)
{
	rcb__list_init(list);
	rcb__boost_lock(rbdp);
	rcb__list_splice_tail_init(&rbdp->rbs_toboost, list);
	rcb__list_splice_tail_init(&rbdp->rbs_boosted, list);
}

struct rcb__thread *rcb__walk_next(struct rcu_boost_dat *rbdp,
				   struct rcb__list *list, uint64_t *t0)
{
	struct rcb__thread *t;

	if (rcb__list_empty(list))
		return NULL;
	if (t0)
		rcb__hold_end(t0);
	rcb__boost_unlock(rbdp);
	sched_yield();
	rcb__boost_lock(rbdp);
	if (t0)
		rcb__hold_begin(t0);
	/* Targets that ended their sections meanwhile removed themselves
	 * from our local list. */
	if (rcb__list_empty(list))
		return NULL;
	t = rcb__container_of(list->next, struct rcb__thread, boost.rcub_entry);
	rcb__list_del_init(&t->boost.rcub_entry);
	rbdp->rbs_boost_attempt++;
	return t;
}

void rcb__walk_end(struct rcu_boost_dat *rbdp, uint64_t *t0)
{
	if (t0)
		rcb__hold_end(t0);
	rcb__boost_unlock(rbdp);
}
