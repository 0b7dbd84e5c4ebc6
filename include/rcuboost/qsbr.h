/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/qsbr.h - the quiescent-state-based (QSBR) read side.
 *
 * A second grace-period domain beside the default one of <rcuboost.h>,
 * with its own grace periods and callbacks.  Its read side costs nothing:
 * rcb_qsbr_read_lock() and rcb_qsbr_read_unlock() compile to no code in
 * release builds.  Instead, a registered thread is "online" and says,
 * with rcb_qsbr_quiescent_state(), when it holds no reference to any
 * RCU-protected object; a grace period of this domain waits until every
 * online thread has done so once, or gone offline.  A thread that blocks
 * for long (sleep, I/O, a lock) goes offline around the wait, as with
 * liburcu's qsbr flavor.
 *
 * Boosting.  An online thread that has not passed a quiescent state while
 * a grace period of this domain waits for it for the boost delay is
 * boosted by the booster as a preempted memb reader is (rcuboost(3),
 * BOOSTING), and gets its own scheduling attributes back at its next
 * quiescent state or when it goes offline.  The boost costs the
 * quiescent-state call nothing while no grace period waits for the
 * thread: its check lies on the path that a new grace period takes
 * anyway.
 *
 * Domains.  The default domain's sections and this domain's quiescent
 * states are independent: a thread may use both, a default-domain
 * rcb_synchronize() does not wait for online qsbr threads, and
 * rcb_qsbr_synchronize() does not wait for default-domain readers.
 *
 * Reference: rcuboost-qsbr(3).
 */
#ifndef RCUBOOST_QSBR_H
#define RCUBOOST_QSBR_H

#include <rcuboost.h>
#include <rcuboost/domain.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Register the calling thread with the qsbr domain; it is online when
 * this returns.  A registered thread must call rcb_qsbr_quiescent_state()
 * (or go offline) regularly, or grace periods of the domain wait for it.
 * Returns 0 (also when already registered), -EAGAIN/-ENOMEM (the library
 * could not initialise), -EDEADLK (from a signal handler that interrupted
 * its thread inside the library).  Context: any thread, outside a qsbr
 * read-side critical section.
 */
RCB_API int rcb_qsbr_register_thread(void);

/*
 * Unregister the calling thread (it goes offline first).  Returns 0, or
 * -ENOENT if it was not registered.  A thread that exits registered is
 * unregistered by its exit (reported if it was online).
 */
RCB_API int rcb_qsbr_unregister_thread(void);

/*
 * Offline: the thread holds no reference to qsbr-protected objects until
 * rcb_qsbr_thread_online(); grace periods do not wait for it.  Both are
 * full memory barriers.  Inside a read-side critical section of this
 * domain they are misuse (reported in debug builds, which count the
 * nesting).  An unboost due at the thread's next quiescent state happens
 * in rcb_qsbr_thread_offline() too.
 */
RCB_API void rcb_qsbr_thread_offline(void);
RCB_API void rcb_qsbr_thread_online(void);

/* 1 if the calling thread is registered and online, else 0. */
RCB_API int rcb_qsbr_thread_is_online(void);

/*
 * Wait for a grace period of the qsbr domain: every thread that was
 * online when the call began has passed a quiescent state or gone
 * offline.  An online caller is offline while it waits (as with
 * liburcu), so it must not be inside a qsbr read-side critical section:
 * that returns -EDEADLK in debug builds.  Full memory barrier.  Returns
 * 0, or a negative errno (the library could not initialise).
 */
RCB_API int rcb_qsbr_synchronize(void);

/* rcb_qsbr_synchronize_expedited - rcb_qsbr_synchronize(), the online
 * threads that hold the grace period boosted at once (no boost delay)
 * until their next quiescent state.  With boosting off or no
 * permission, a plain grace period. */
RCB_API int rcb_qsbr_synchronize_expedited(void);

/*
 * Queue @head for @func after a grace period of the qsbr domain; the
 * function runs on the domain's callback thread, in queueing order, at
 * most a few grace periods later.  Async-signal-unsafe; may be called
 * online, offline or unregistered.  Returns 0, or -EINVAL (NULL head or
 * function), -EAGAIN (the callback thread could not be started: the
 * callback stays queued and the next call tries again).
 */
RCB_API int rcb_qsbr_call(struct rcb_head *head,
			  void (*func)(struct rcb_head *head));

/*
 * Wait until every callback queued with rcb_qsbr_call() before this call
 * has run.  An online caller is offline while it waits.  Returns 0, or
 * -EDEADLK from a qsbr callback (it would wait for itself), -EAGAIN (the
 * callback thread could not be started).
 */
RCB_API int rcb_qsbr_barrier(void);

static inline void rcb_qsbr_read_lock(void);
static inline void rcb_qsbr_read_unlock(void);
static inline int rcb_qsbr_read_ongoing(void);
static inline void rcb_qsbr_quiescent_state(void);

/* ---- Implementation detail (inline read side): not API, may change -- */

/* The qsbr domain's records (<rcuboost/domain.h>). */
#define rcb__qsbr_reader (rcb__dom_reader[RCB__DOM_QSBR])
#define rcb__qsbr_gp (rcb__dom_gp[RCB__DOM_QSBR])

RCB_API void rcb__qsbr_quiescent_slow(unsigned long gp);
RCB_API void rcb__qsbr_nest_misuse(const char *call);

static inline void rcb_qsbr_read_lock(void)
{
#ifdef RCB_DEBUG
	rcb__qsbr_reader.depth++;
#endif
}

static inline void rcb_qsbr_read_unlock(void)
{
#ifdef RCB_DEBUG
	if (RCB_UNLIKELY(rcb__qsbr_reader.depth == 0))
		rcb__qsbr_nest_misuse("rcb_qsbr_read_unlock");
	else
		rcb__qsbr_reader.depth--;
#endif
}

/* Debug builds: 1 inside a section of this domain.  Release builds: 1
 * while online (a registered thread may be inside one whenever it is),
 * as liburcu's qsbr rcu_read_ongoing(). */
static inline int rcb_qsbr_read_ongoing(void)
{
#ifdef RCB_DEBUG
	return rcb__qsbr_reader.depth != 0;
#else
	return rcb__ld_relaxed(&rcb__qsbr_reader.ctr) != 0;
#endif
}

/*
 * The thread holds no reference to qsbr-protected objects here.  While no
 * grace period is waiting: two loads and a predicted branch, no store, no
 * fence.  Otherwise out of line: full barriers around the store of the
 * new counter, the wake-up of a sleeping grace period, and the unboost
 * if the booster had boosted the thread.
 */
static inline void rcb_qsbr_quiescent_state(void)
{
	unsigned long gp = rcb__ld_relaxed(&rcb__qsbr_gp.ctr);

#ifdef RCB_DEBUG
	if (RCB_UNLIKELY(rcb__qsbr_reader.depth != 0))
		rcb__qsbr_nest_misuse("rcb_qsbr_quiescent_state");
#endif
	if (RCB_LIKELY(gp == rcb__ld_relaxed(&rcb__qsbr_reader.ctr)))
		return;
	rcb__qsbr_quiescent_slow(gp);
}

#ifdef __cplusplus
}
#endif

#endif /* RCUBOOST_QSBR_H */
