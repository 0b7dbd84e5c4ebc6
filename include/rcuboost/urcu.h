/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/urcu.h - liburcu's urcu-memb flavor on top of rcuboost.
 *
 * A program written for liburcu's default flavor (<urcu.h>, or
 * <urcu/urcu-memb.h>) builds unchanged against rcuboost when its include
 * line becomes #include <rcuboost/urcu.h> and its link flag -lrcuboost
 * (or, with the compatibility install, when only PKG_CONFIG_PATH or -L
 * changes: see rcuboost-urcu(7)).
 *
 * How the names are provided.  As liburcu's <urcu.h> does, this header
 * maps the plain names (rcu_read_lock, call_rcu, rcu_flavor...) to the
 * urcu_memb_* ones by macros, and librcuboost exports real urcu_memb_*
 * functions with liburcu's prototypes, so that code that takes their
 * address (cds_lfq_init_rcu(q, call_rcu), the flavor struct) or that was
 * compiled against liburcu's own headers without _LGPL_SOURCE links to
 * rcuboost.  A call of rcu_read_lock()/rcu_read_unlock() by name is the
 * inline rcb_read_lock()/rcb_read_unlock(); the pointer macros are
 * rcuboost's.
 *
 * Coexistence with liburcu's headers.  This header provides the content
 * of liburcu's <urcu/call-rcu.h>, <urcu/defer.h>, <urcu/flavor.h> and
 * <urcu/pointer.h> itself and claims their include guards, so that
 * liburcu's data-structure headers (<urcu/cds.h>, <urcu/rculfhash.h>,
 * <urcu/rculfqueue.h>, <urcu/rculist.h>...) included before or after it
 * find the same declarations.  When one of those liburcu headers came
 * first, its struct rcu_head (the same two words) is kept and its pointer
 * macros are replaced by rcuboost's.  When liburcu's general headers are
 * installed (liburcu-dev), they are included as liburcu's <urcu.h> does
 * (<urcu/compiler.h>, <urcu/arch.h>, <urcu/uatomic.h>,
 * <urcu/wfcqueue.h>); they are not required: without them this header
 * defines what it needs.  Define RCB_URCU_STANDALONE before including it
 * to never include a liburcu header.  liburcu's flavor headers (<urcu.h>,
 * <urcu/urcu-memb.h>, -qsbr, -bp, -mb, -signal) cannot be combined with
 * this header: they are another RCU implementation.
 *
 * Covered, not covered and differences: rcuboost-urcu(7).  In short:
 * misuse (synchronize_rcu inside a read-side critical section, unlock
 * without lock, call_rcu with a NULL function or after rcb_shutdown) is
 * reported on stderr instead of deadlocking or corrupting state, the
 * void-returning liburcu calls drop the error, and rcu_read_lock()
 * registers a thread that forgot rcu_register_thread().
 */
#ifndef RCUBOOST_URCU_H
#define RCUBOOST_URCU_H

/* What liburcu's <urcu.h> makes visible transitively. */
#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rcuboost.h>

#if !defined(RCB_URCU_STANDALONE) && defined(__has_include)
#if __has_include(<urcu/uatomic.h>) && __has_include(<urcu/wfcqueue.h>)
#define RCB__URCU_HEADERS 1
#endif
#endif

#ifdef RCB__URCU_HEADERS
#include <urcu/compiler.h>
#include <urcu/arch.h>
#include <urcu/uatomic.h>
#include <urcu/wfcqueue.h>
#ifdef _LGPL_SOURCE
/* liburcu's inline read side brings these in with <urcu.h>, and programs
 * use them without including them (lttng-tools 2.13 takes struct
 * cds_list_head from there).  tests/build/urcu_visible.sh compares. */
#include <urcu/debug.h>
#include <urcu/futex.h>
#include <urcu/list.h>
#include <urcu/tls-compat.h>
#endif
#endif

/* URCU_API_MAP: the plain names are mapped (as liburcu's <urcu.h> has
 * them); <urcu/rculfhash.h> then offers cds_lfht_new() with rcu_flavor. */
#ifndef URCU_API_MAP
#define URCU_API_MAP
#endif

#ifndef caa_container_of
#define caa_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/* ------------------------------------------------------------------ */
/* liburcu's map (urcu/map/urcu-memb.h): plain names to urcu_memb_*    */
/* ------------------------------------------------------------------ */

#define rcu_read_lock urcu_memb_read_lock
#define _rcu_read_lock _urcu_memb_read_lock
#define rcu_read_unlock urcu_memb_read_unlock
#define _rcu_read_unlock _urcu_memb_read_unlock
#define rcu_read_ongoing urcu_memb_read_ongoing
#define _rcu_read_ongoing _urcu_memb_read_ongoing
#define rcu_quiescent_state urcu_memb_quiescent_state
#define _rcu_quiescent_state _urcu_memb_quiescent_state
#define rcu_thread_offline urcu_memb_thread_offline
#define rcu_thread_online urcu_memb_thread_online
#define rcu_register_thread urcu_memb_register_thread
#define rcu_unregister_thread urcu_memb_unregister_thread
#define rcu_init urcu_memb_init
#define rcu_exit urcu_memb_exit
#define synchronize_rcu urcu_memb_synchronize_rcu

#define get_cpu_call_rcu_data urcu_memb_get_cpu_call_rcu_data
#define get_call_rcu_thread urcu_memb_get_call_rcu_thread
#define create_call_rcu_data urcu_memb_create_call_rcu_data
#define set_cpu_call_rcu_data urcu_memb_set_cpu_call_rcu_data
#define get_default_call_rcu_data urcu_memb_get_default_call_rcu_data
#define get_call_rcu_data urcu_memb_get_call_rcu_data
#define get_thread_call_rcu_data urcu_memb_get_thread_call_rcu_data
#define set_thread_call_rcu_data urcu_memb_set_thread_call_rcu_data
#define create_all_cpu_call_rcu_data urcu_memb_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data urcu_memb_free_all_cpu_call_rcu_data
#define call_rcu urcu_memb_call_rcu
#define call_rcu_data_free urcu_memb_call_rcu_data_free
#define call_rcu_before_fork urcu_memb_call_rcu_before_fork
#define call_rcu_after_fork_parent urcu_memb_call_rcu_after_fork_parent
#define call_rcu_after_fork_child urcu_memb_call_rcu_after_fork_child
#define rcu_barrier urcu_memb_barrier

/* liburcu 0.14: polled grace periods. */
#define start_poll_synchronize_rcu urcu_memb_start_poll_synchronize_rcu
#define poll_state_synchronize_rcu urcu_memb_poll_state_synchronize_rcu

#define defer_rcu urcu_memb_defer_rcu
#define rcu_defer_register_thread urcu_memb_defer_register_thread
#define rcu_defer_unregister_thread urcu_memb_defer_unregister_thread
#define rcu_defer_barrier urcu_memb_defer_barrier
#define rcu_defer_barrier_thread urcu_memb_defer_barrier_thread
#define rcu_defer_exit urcu_memb_defer_exit

#define rcu_flavor urcu_memb_flavor

#define urcu_register_rculfhash_atfork urcu_memb_register_rculfhash_atfork
#define urcu_unregister_rculfhash_atfork urcu_memb_unregister_rculfhash_atfork

/* liburcu's compatibility spellings (not with URCU_NO_COMPAT_IDENTIFIERS). */
#ifndef URCU_NO_COMPAT_IDENTIFIERS
#define rcu_read_lock_memb urcu_memb_read_lock
#define rcu_read_unlock_memb urcu_memb_read_unlock
#define rcu_read_ongoing_memb urcu_memb_read_ongoing
#define rcu_register_thread_memb urcu_memb_register_thread
#define rcu_unregister_thread_memb urcu_memb_unregister_thread
#define rcu_init_memb urcu_memb_init
#define synchronize_rcu_memb urcu_memb_synchronize_rcu
#define call_rcu_memb urcu_memb_call_rcu
#define rcu_barrier_memb urcu_memb_barrier
#define defer_rcu_memb urcu_memb_defer_rcu
#define rcu_defer_register_thread_memb urcu_memb_defer_register_thread
#define rcu_defer_unregister_thread_memb urcu_memb_defer_unregister_thread
#define rcu_defer_barrier_memb urcu_memb_defer_barrier
#define rcu_defer_barrier_thread_memb urcu_memb_defer_barrier_thread
#define rcu_defer_exit_memb urcu_memb_defer_exit
#define rcu_flavor_memb urcu_memb_flavor
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Read side and grace periods (liburcu's urcu/urcu-memb.h)            */
/* ------------------------------------------------------------------ */

/*
 * urcu_memb_read_lock/unlock/ongoing - rcb_read_lock(), rcb_read_unlock(),
 * rcb_read_ongoing().  Called by name they are the inline rcuboost read
 * side; the exported functions serve callers that take their address
 * (struct rcu_flavor_struct) or were compiled against liburcu's headers.
 */
RCB_API void urcu_memb_read_lock(void);
RCB_API void urcu_memb_read_unlock(void);
RCB_API int urcu_memb_read_ongoing(void);
#define urcu_memb_read_lock() rcb_read_lock()
#define urcu_memb_read_unlock() rcb_read_unlock()
#define urcu_memb_read_ongoing() rcb_read_ongoing()
#define _urcu_memb_read_lock() rcb_read_lock()
#define _urcu_memb_read_unlock() rcb_read_unlock()
#define _urcu_memb_read_ongoing() rcb_read_ongoing()

/* rcb_synchronize(); a misuse (inside a read-side critical section) is
 * reported and the call returns at once. */
RCB_API void urcu_memb_synchronize_rcu(void);
/* rcb_register_thread() / rcb_unregister_thread(), errors dropped. */
RCB_API void urcu_memb_register_thread(void);
RCB_API void urcu_memb_unregister_thread(void);
/* rcb_init(NULL): initialise and start the boosters; errors dropped. */
RCB_API void urcu_memb_init(void);
/* Nothing: rcuboost keeps running until rcb_shutdown(). */
RCB_API void urcu_memb_exit(void);

/* Quiescent states are no-ops in the memb flavor (as in liburcu). */
static inline void urcu_memb_quiescent_state(void)
{
}

static inline void _urcu_memb_quiescent_state(void)
{
}

static inline void urcu_memb_thread_offline(void)
{
}

static inline void urcu_memb_thread_online(void)
{
}

/* ------------------------------------------------------------------ */
/* call_rcu (liburcu's urcu/call-rcu.h; its guard is claimed)          */
/* ------------------------------------------------------------------ */

#ifndef _URCU_CALL_RCU_H
#define _URCU_CALL_RCU_H

/* Opaque; the per-thread worker functions are in rcuboost/urcu_callrcu.h. */
struct call_rcu_data;

#define URCU_CALL_RCU_RT (1U << 0)
#define URCU_CALL_RCU_RUNNING (1U << 1)
#define URCU_CALL_RCU_STOP (1U << 2)
#define URCU_CALL_RCU_STOPPED (1U << 3)
#define URCU_CALL_RCU_PAUSE (1U << 4)
#define URCU_CALL_RCU_PAUSED (1U << 5)

#ifdef RCB__URCU_HEADERS
#define RCB__URCU_NODE struct cds_wfcq_node
#else
/* Layout of liburcu's struct cds_wfcq_node: one pointer. */
struct rcb__urcu_node {
	struct rcb__urcu_node *next;
};
#define RCB__URCU_NODE struct rcb__urcu_node
#endif

/*
 * Embed in an object freed through call_rcu().  Exactly liburcu's layout
 * (two words: a queue link, then the function), so that code compiled
 * against liburcu (liburcu-cds, rculfqueue's dummy nodes) may hand one to
 * call_rcu(): the library writes nothing outside it.  The library owns
 * it from call_rcu() until the callback runs.
 */
struct rcu_head {
	RCB__URCU_NODE next;
	void (*func)(struct rcu_head *head);
};
#undef RCB__URCU_NODE

#endif /* _URCU_CALL_RCU_H */

/* struct urcu_gp_poll_state: liburcu 0.14's cookie of a polled grace
 * period (rcuboost/urcu_poll.h: start_poll_synchronize_rcu()). */
#ifndef _URCU_POLL_H
#define _URCU_POLL_H
struct urcu_gp_poll_state {
	unsigned long grace_period_id;
};
#endif

/*
 * call_rcu - invoke @func(@head) from the callback thread after a grace
 * period (rcb_call()).  Writes only @head's two words.  Context: any
 * thread, also inside a read-side critical section; never blocks for a
 * grace period, except where liburcu would stop the process: with no
 * memory for its node, or no callback thread able to start, it waits
 * for a grace period and runs @func in the caller (inside a read-side
 * critical section that is reported instead, and @func never runs).  A
 * misuse (NULL @func, after rcb_shutdown(), a @head still queued: see
 * rcb_call()'s -EBUSY) is reported and the callback dropped; the
 * earlier queueing of the head still runs once.
 */
RCB_API void urcu_memb_call_rcu(struct rcu_head *head,
				void (*func)(struct rcu_head *head));
/* rcb_barrier(): wait until every callback queued before it has run.
 * Not inside a read-side critical section (reported). */
RCB_API void urcu_memb_barrier(void);

/* ------------------------------------------------------------------ */
/* Fragments of other parts of the port: per-thread call_rcu workers   */
/* and fork helpers, defer_rcu, polled grace periods.  Each declares   */
/* only urcu_memb_* names with liburcu's prototypes.                   */
/* ------------------------------------------------------------------ */

#ifdef __cplusplus
}
#endif

#include <rcuboost/urcu_callrcu.h>
#include <rcuboost/urcu_poll.h>
#include <rcuboost/urcu_defer.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* defer_rcu (liburcu's urcu/defer.h; its guard is claimed)            */
/* ------------------------------------------------------------------ */

#ifndef _URCU_DEFER_H
#define _URCU_DEFER_H
#endif


/* ------------------------------------------------------------------ */
/* The flavor (liburcu's urcu/flavor.h; its guard is claimed)          */
/* ------------------------------------------------------------------ */

#ifndef _URCU_FLAVOR_H
#define _URCU_FLAVOR_H

/* Hooks liburcu-cds's hash table registers to pause its resize worker
 * over fork(). */
struct urcu_atfork {
	void (*before_fork)(void *priv);
	void (*after_fork_parent)(void *priv);
	void (*after_fork_child)(void *priv);
	void *priv;
};

/* liburcu 0.13's layout, member for member: liburcu-cds calls through it. */
struct rcu_flavor_struct {
	void (*read_lock)(void);
	void (*read_unlock)(void);
	int (*read_ongoing)(void);
	void (*read_quiescent_state)(void);
	void (*update_call_rcu)(struct rcu_head *head,
				void (*func)(struct rcu_head *head));
	void (*update_synchronize_rcu)(void);
	void (*update_defer_rcu)(void (*fct)(void *p), void *p);

	void (*thread_offline)(void);
	void (*thread_online)(void);
	void (*register_thread)(void);
	void (*unregister_thread)(void);

	void (*barrier)(void);

	void (*register_rculfhash_atfork)(struct urcu_atfork *atfork);
	void (*unregister_rculfhash_atfork)(struct urcu_atfork *atfork);
};

#endif /* _URCU_FLAVOR_H */

/*
 * urcu_memb_register_rculfhash_atfork - run @atfork's hooks around every
 * fork() of the process (rcuboost's pthread_atfork handlers call them:
 * before_fork first, the after_fork hooks last), and from
 * call_rcu_before_fork() & co.  Registering the same hooks twice keeps
 * one entry; up to 16 entries (more are reported and ignored).
 * urcu_memb_unregister_rculfhash_atfork removes @atfork.  Context: not
 * from an atfork hook.
 */
RCB_API void urcu_memb_register_rculfhash_atfork(struct urcu_atfork *atfork);
RCB_API void urcu_memb_unregister_rculfhash_atfork(struct urcu_atfork *atfork);

/*
 * urcu_memb_flavor (rcu_flavor) - the memb flavor's operations, for
 * liburcu-cds (cds_lfht_new(), cds_lfht_new_flavor()): rcuboost's read
 * side, synchronize, call_rcu, defer_rcu, barrier, registration and the
 * atfork registration above.
 */
RCB_API extern const struct rcu_flavor_struct urcu_memb_flavor;

/* ------------------------------------------------------------------ */
/* Pointers (liburcu's urcu/pointer.h; its guard is claimed)           */
/* ------------------------------------------------------------------ */

#ifdef _URCU_POINTER_H
/* liburcu's came first: rcuboost's macros replace its own. */
#undef rcu_dereference
#undef rcu_cmpxchg_pointer
#undef rcu_xchg_pointer
#undef rcu_set_pointer
#undef rcu_assign_pointer
#else
#define _URCU_POINTER_H
#endif

/* rcb_dereference(): an acquire load of the RCU-protected pointer @p. */
#define rcu_dereference(p) rcb_dereference(p)
/* rcb_assign_pointer(): a release store of @v into @p. */
#define rcu_assign_pointer(p, v) rcb_assign_pointer(p, v)
#define rcu_set_pointer(pp, v) rcb_assign_pointer(*(pp), v)
/* Exchange (acquire and release); returns the old value. */
#define rcu_xchg_pointer(pp, v) rcb_xchg_pointer(pp, v)
/* Compare-and-exchange (acquire and release); returns the old value. */
#define rcu_cmpxchg_pointer(pp, old, v)                                     \
	__extension__({                                                     \
		__typeof__(*(pp)) rcb_old_ = (old);                         \
		__atomic_compare_exchange_n((pp), &rcb_old_, (v), 0,        \
					    __ATOMIC_ACQ_REL,               \
					    __ATOMIC_ACQUIRE);              \
		rcb_old_;                                                   \
	})

/* The underscore forms of liburcu's <urcu/static/pointer.h>, which
 * _LGPL_SOURCE programs call by name (liburcu's own tests do); its
 * guard is claimed, and its macros replaced if it came first. */
#ifdef _URCU_POINTER_STATIC_H
#undef _rcu_dereference
#undef _rcu_cmpxchg_pointer
#undef _rcu_xchg_pointer
#undef _rcu_set_pointer
#undef _rcu_assign_pointer
#else
#define _URCU_POINTER_STATIC_H
#endif
#define _rcu_dereference(p) rcb_dereference(p)
#define _rcu_assign_pointer(p, v) rcb_assign_pointer(p, v)
#define _rcu_set_pointer(pp, v) rcb_assign_pointer(*(pp), v)
#define _rcu_xchg_pointer(pp, v) rcb_xchg_pointer(pp, v)
#define _rcu_cmpxchg_pointer(pp, old, v) rcu_cmpxchg_pointer(pp, old, v)

/*
 * Out-of-line forms that liburcu's <urcu/pointer.h> calls without
 * _LGPL_SOURCE (code compiled against liburcu's headers, such as
 * <urcu/rculist.h> included before this header):
 * rcu_dereference_sym(p) returns @p, ordered as an acquire load;
 * rcu_set_pointer_sym(p, v) release-stores @v into *@p and returns @v;
 * rcu_xchg_pointer_sym(p, v) and rcu_cmpxchg_pointer_sym(p, old, v)
 * exchange (acquire and release) and return the old value.
 */
RCB_API void *rcu_dereference_sym(void *p);
RCB_API void *rcu_set_pointer_sym(void **p, void *v);
RCB_API void *rcu_xchg_pointer_sym(void **p, void *v);
RCB_API void *rcu_cmpxchg_pointer_sym(void **p, void *old, void *_new);

#ifdef __cplusplus
}
#endif

#endif /* RCUBOOST_URCU_H */
