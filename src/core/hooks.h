/* SPDX-License-Identifier: MIT */
/*
 * The layers above core, as core sees them: the only way a lower layer
 * reaches a higher one (doc/design.md, "Layers").
 *
 * The layers, lowest first: core/, callback/, boost/, diag/, compat/.
 * A file calls the functions of its own layer and of the layers below
 * by name, never those of a layer above (tests/build/layers.sh checks
 * the object files).  Where a lower layer must tell a higher one
 * something -- a thread registers or leaves, an unlock ends a boosted
 * section, a grace period waits for a preempted reader, fork(),
 * shutdown -- it calls through the table of hooks that layer fills in,
 * declared here.  Each table is one constant object, defined by its
 * layer (boost/hooks.c; boost/boost_off.c fills the same table with
 * no-ops when boosting is compiled out), so it is complete before any
 * code runs: a table registered at run time could be found empty by a
 * program whose constructors use the library before the library's own
 * constructors ran (a static library's order), and a const table cannot
 * be overwritten by a stray store.
 *
 * Slow paths only.  The read side's fast path is inline in rcuboost.h
 * and calls nothing here; rcb__read_unlock_special(), its out-of-line
 * path, calls the boost table only for a thread queued for boosting.
 * Every member is set (no NULL test before a call).
 */
#ifndef RCB_CORE_HOOKS_H
#define RCB_CORE_HOOKS_H

#include <stdbool.h>

struct rcb__thread;
struct rcb_worker;

/* callback/hooks.c: what core tells the callback layer. */
struct rcb__cb_hooks {
	/* The calling thread @t registers / leaves the registry, marked
	 * unregistered already (registry lock held): attach its local
	 * lists; fold its queued counts into the global ones. */
	void (*thread_attach)(struct rcb__thread *t);
	void (*thread_leave)(struct rcb__thread *t);
	/* The calling thread leaves domain @d (unregisters or exits),
	 * outside its sections, no lock held: run the callbacks it queued
	 * to run itself (RCB_DOMAIN_OWNER_CALLBACKS, dom_owner.c). */
	void (*dom_leave)(int d);
	/* An outermost unlock: wake @w, whose wake-up an rcb_call*()
	 * nested in the section left to it; start the workers a nested
	 * call marked (callback.c invariants 4 and 9). */
	void (*wake_late)(struct rcb_worker *w);
	void (*start_later)(void);
	/* rcb_shutdown(): stop every worker, draining its queue. */
	int (*stop)(void);
	/* A deferred function runs on this thread: @call, which waits for
	 * the callback threads, is reported and refused (defer.c). */
	bool (*refuses)(const char *call);
	/* fork(): prepare and parent handlers; in the child, harvest the
	 * local lists (before the registry is rebuilt), then rebuild the
	 * queues, the polled and deferred requests (after it). */
	void (*fork_prepare)(void);
	void (*fork_parent)(void);
	void (*fork_harvest)(void);
	void (*fork_child)(void);
};
extern const struct rcb__cb_hooks rcb__cb_hooks;

/* boost/hooks.c (boost/boost_off.c: no-ops): what core and the
 * callback layer tell the boosting layer. */
struct rcb__boost_hooks {
	/* The calling thread registers / leaves the registry (registry
	 * lock held): the 8-state machine's IDLE <-> EXIT_OK steps. */
	void (*thread_start)(struct rcb__thread *self);
	void (*thread_exit)(struct rcb__thread *self);
	/* The outermost unlock of a thread queued for boosting: dequeue it
	 * and restore its attributes.  article: __rcu_read_unlock_unboost() */
	void (*unlock_unboost)(void);
	/* A grace period waits for a reader: wake the boosters. */
	void (*kick)(void);
	/* Lifecycle (init.c): start the boosters for an explicit rcb_init()
	 * that finds the library running; the same before rcb__running is
	 * set; the first, lazy initialisation (start them if a thread the
	 * caller creates could take real-time priority, else say at once
	 * that boosting will be off); stop them; start the keeper process
	 * (RCUBOOST_KEEPER=1, settings committed). */
	int (*start)(void);
	int (*start_init)(void);
	void (*start_lazy)(void);
	void (*stop)(void);
	void (*keeper_start)(void);
	/* fork() child: reset the boosting state; last of all, restart
	 * the boosters if the parent's ran (RCUBOOST_EARLY=1). */
	void (*fork_child)(void);
	void (*restart_after_fork)(void);
	/* Expedited grace periods (inherit.c): the first boost level, 0 if
	 * no booster runs (starting it if needed); whether an expedited
	 * grace period can boost at all; lend @level to the readers
	 * holding @gp; withdraw the request; the boosters lack the
	 * permission to boost. */
	int (*expedite_first_level)(void);
	bool (*expedite_possible)(void);
	void (*expedite_request)(unsigned long gp, int level);
	void (*expedite_end)(void);
	/* The same for a grace period of domain @d (src/core/domain.c):
	 * lend @level to the threads that hold its grace period @gp, until
	 * dom_expedite_end(@d). */
	void (*dom_expedite_request)(int d, unsigned long gp, int level);
	void (*dom_expedite_end)(int d);
	bool (*no_permission)(void);
	/* The callback layer: the backlog reached rcb__cb_hot.kick_at;
	 * booster 0 sleeps in booster mode (rcb__cb_hot.boost_idle) and a
	 * producer enqueued; worker @w, about to sleep or end, restores a
	 * boost it has (boost/callback_boost.c). */
	void (*pressure_kick)(void);
	void (*cb_boost_kick)(void);
	void (*cb_unboost_self)(struct rcb_worker *w);
};
extern const struct rcb__boost_hooks rcb__boost_hooks;

/* diag/stall.c: what core tells the stall detector. */
struct rcb__diag_hooks {
	/* The grace-period leader, waiting for readers to leave grace
	 * period @gp since @start_ns (CLOCK_MONOTONIC), on every wake-up of
	 * its sleeping phase; cheap unless the wait passed the stall
	 * timeout.  Context: rcb__gp_lock held. */
	void (*stall_check)(unsigned long gp, unsigned long long start_ns);
	/* The same for the leader of domain @dom (src/core/domain.c),
	 * waiting for its readers, or for its online threads to pass a
	 * quiescent state.  Context: that domain's grace-period lock held. */
	void (*dom_stall_check)(int dom, unsigned long gp,
				unsigned long long start_ns);
	/* rcb_synchronize() found the grace-period lock taken: note the
	 * calling thread as a waiting updater until waiter_leave(slot). */
	int (*waiter_enter)(void);
	void (*waiter_leave)(int slot);
	void (*fork_child)(void);
};
extern const struct rcb__diag_hooks rcb__diag_hooks;

/* compat/urcu_compat.c: liburcu-cds's atfork hooks, run outside
 * rcuboost's locks: first in prepare, last in parent and child. */
struct rcb__compat_hooks {
	void (*fork_prepare)(void);
	void (*fork_parent)(void);
	void (*fork_child)(void);
};
extern const struct rcb__compat_hooks rcb__compat_hooks;

#endif /* RCB_CORE_HOOKS_H */
