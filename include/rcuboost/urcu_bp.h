/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/urcu_bp.h - liburcu's bp (bulletproof) flavor on top of
 * an rcuboost domain of its own (<rcuboost/domain.h>).
 *
 * As liburcu-bp, a thread needs no registration: its first read lock
 * registers it, and its exit unregisters it; rcu_register_thread() is
 * optional and rcu_unregister_thread() does nothing.
 *
 * A program written for it (<urcu-bp.h>, or <urcu/urcu-bp.h> and the
 * urcu_bp_* names) builds unchanged when its include line becomes
 * #include <rcuboost/urcu_bp.h> and its link flag -lrcuboost, or, with
 * the compatibility install, when only PKG_CONFIG_PATH (liburcu-bp.pc) or
 * -L changes (rcuboost-urcu(7)).  The common parts (struct rcu_head, the
 * flavor struct, the pointer macros, liburcu-cds) are those of
 * <rcuboost/urcu.h>, whose urcu_memb_* names stay declared.
 */
#ifndef RCUBOOST_URCU_BP_H
#define RCUBOOST_URCU_BP_H

#include <rcuboost/urcu.h>
#include <rcuboost/domain.h>

/* ---- liburcu's map (urcu/map/urcu-bp.h): plain names to urcu_bp_* */

#include <rcuboost/urcu_map_clear.h>

#define rcu_read_lock urcu_bp_read_lock
#define _rcu_read_lock _urcu_bp_read_lock
#define rcu_read_unlock urcu_bp_read_unlock
#define _rcu_read_unlock _urcu_bp_read_unlock
#define rcu_read_ongoing urcu_bp_read_ongoing
#define _rcu_read_ongoing _urcu_bp_read_ongoing
#define rcu_register_thread urcu_bp_register_thread
#define rcu_unregister_thread urcu_bp_unregister_thread
#define rcu_init urcu_bp_init
#define rcu_exit urcu_bp_exit
#define synchronize_rcu urcu_bp_synchronize_rcu
#define get_cpu_call_rcu_data urcu_bp_get_cpu_call_rcu_data
#define get_call_rcu_thread urcu_bp_get_call_rcu_thread
#define create_call_rcu_data urcu_bp_create_call_rcu_data
#define set_cpu_call_rcu_data urcu_bp_set_cpu_call_rcu_data
#define get_default_call_rcu_data urcu_bp_get_default_call_rcu_data
#define get_call_rcu_data urcu_bp_get_call_rcu_data
#define get_thread_call_rcu_data urcu_bp_get_thread_call_rcu_data
#define set_thread_call_rcu_data urcu_bp_set_thread_call_rcu_data
#define create_all_cpu_call_rcu_data urcu_bp_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data urcu_bp_free_all_cpu_call_rcu_data
#define call_rcu urcu_bp_call_rcu
#define call_rcu_data_free urcu_bp_call_rcu_data_free
#define call_rcu_before_fork urcu_bp_call_rcu_before_fork
#define call_rcu_after_fork_parent urcu_bp_call_rcu_after_fork_parent
#define call_rcu_after_fork_child urcu_bp_call_rcu_after_fork_child
#define rcu_barrier urcu_bp_barrier
#define start_poll_synchronize_rcu urcu_bp_start_poll_synchronize_rcu
#define poll_state_synchronize_rcu urcu_bp_poll_state_synchronize_rcu
#define defer_rcu urcu_bp_defer_rcu
#define rcu_defer_register_thread urcu_bp_defer_register_thread
#define rcu_defer_unregister_thread urcu_bp_defer_unregister_thread
#define rcu_defer_barrier urcu_bp_defer_barrier
#define rcu_defer_barrier_thread urcu_bp_defer_barrier_thread
#define rcu_defer_exit urcu_bp_defer_exit
#define rcu_flavor urcu_bp_flavor
#define urcu_register_rculfhash_atfork urcu_bp_register_rculfhash_atfork
#define urcu_unregister_rculfhash_atfork urcu_bp_unregister_rculfhash_atfork
#define rcu_quiescent_state urcu_bp_quiescent_state
#define _rcu_quiescent_state _urcu_bp_quiescent_state
#define rcu_thread_offline urcu_bp_thread_offline
#define rcu_thread_online urcu_bp_thread_online

#ifndef URCU_NO_COMPAT_IDENTIFIERS
#define rcu_read_lock_bp urcu_bp_read_lock
#define _rcu_read_lock_bp _urcu_bp_read_lock
#define rcu_read_unlock_bp urcu_bp_read_unlock
#define _rcu_read_unlock_bp _urcu_bp_read_unlock
#define rcu_read_ongoing_bp urcu_bp_read_ongoing
#define _rcu_read_ongoing_bp _urcu_bp_read_ongoing
#define rcu_register_thread_bp urcu_bp_register_thread
#define rcu_unregister_thread_bp urcu_bp_unregister_thread
#define rcu_init_bp urcu_bp_init
#define rcu_exit_bp urcu_bp_exit
#define synchronize_rcu_bp urcu_bp_synchronize_rcu
#define get_cpu_call_rcu_data_bp urcu_bp_get_cpu_call_rcu_data
#define get_call_rcu_thread_bp urcu_bp_get_call_rcu_thread
#define create_call_rcu_data_bp urcu_bp_create_call_rcu_data
#define set_cpu_call_rcu_data_bp urcu_bp_set_cpu_call_rcu_data
#define get_default_call_rcu_data_bp urcu_bp_get_default_call_rcu_data
#define get_call_rcu_data_bp urcu_bp_get_call_rcu_data
#define get_thread_call_rcu_data_bp urcu_bp_get_thread_call_rcu_data
#define set_thread_call_rcu_data_bp urcu_bp_set_thread_call_rcu_data
#define create_all_cpu_call_rcu_data_bp urcu_bp_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data_bp urcu_bp_free_all_cpu_call_rcu_data
#define call_rcu_bp urcu_bp_call_rcu
#define call_rcu_data_free_bp urcu_bp_call_rcu_data_free
#define call_rcu_before_fork_bp urcu_bp_call_rcu_before_fork
#define call_rcu_after_fork_parent_bp urcu_bp_call_rcu_after_fork_parent
#define call_rcu_after_fork_child_bp urcu_bp_call_rcu_after_fork_child
#define rcu_barrier_bp urcu_bp_barrier
#define defer_rcu_bp urcu_bp_defer_rcu
#define rcu_defer_register_thread_bp urcu_bp_defer_register_thread
#define rcu_defer_unregister_thread_bp urcu_bp_defer_unregister_thread
#define rcu_defer_barrier_bp urcu_bp_defer_barrier
#define rcu_defer_barrier_thread_bp urcu_bp_defer_barrier_thread
#define rcu_defer_exit_bp urcu_bp_defer_exit
#define rcu_flavor_bp urcu_bp_flavor
#define urcu_register_rculfhash_atfork_bp urcu_bp_register_rculfhash_atfork
#define urcu_unregister_rculfhash_atfork_bp urcu_bp_unregister_rculfhash_atfork
#define rcu_bp_before_fork urcu_bp_before_fork
#define rcu_bp_after_fork_parent urcu_bp_after_fork_parent
#define rcu_bp_after_fork_child urcu_bp_after_fork_child
#endif

#define RCB__UF(name) urcu_bp_##name
#include <rcuboost/urcu_flavor_decl.h>

/* Called by name: the inline read side over the flavor's domain. */
#define urcu_bp_read_lock() rcb__dom_read_lock(RCB__DOM_BP)
#define _urcu_bp_read_lock() rcb__dom_read_lock(RCB__DOM_BP)
#define urcu_bp_read_unlock() rcb__dom_read_unlock(RCB__DOM_BP)
#define _urcu_bp_read_unlock() rcb__dom_read_unlock(RCB__DOM_BP)
#define urcu_bp_read_ongoing() rcb__dom_read_ongoing(RCB__DOM_BP)
#define _urcu_bp_read_ongoing() rcb__dom_read_ongoing(RCB__DOM_BP)

#ifdef __cplusplus
extern "C" {
#endif

/* As liburcu-bp: no quiescent states, always online. */
static inline void urcu_bp_quiescent_state(void)
{
}

static inline void urcu_bp_thread_offline(void)
{
}

static inline void urcu_bp_thread_online(void)
{
}

/* liburcu-bp's fork helpers: nothing to do, rcuboost's own
 * pthread_atfork() handlers cover every domain. */
RCB_API void urcu_bp_before_fork(void);
RCB_API void urcu_bp_after_fork_parent(void);
RCB_API void urcu_bp_after_fork_child(void);

/* liburcu-bp's out-of-line pointer accessors (its header's
 * urcu_bp_dereference() & co. call them without _LGPL_SOURCE). */
RCB_API void *urcu_bp_dereference_sym(void *p);
RCB_API void *urcu_bp_set_pointer_sym(void **p, void *v);
RCB_API void *urcu_bp_xchg_pointer_sym(void **p, void *v);
RCB_API void *urcu_bp_cmpxchg_pointer_sym(void **p, void *old, void *_new);
#define urcu_bp_dereference rcu_dereference
#define urcu_bp_cmpxchg_pointer rcu_cmpxchg_pointer
#define urcu_bp_xchg_pointer rcu_xchg_pointer
#define urcu_bp_set_pointer rcu_set_pointer

#ifdef __cplusplus
}
#endif

#endif /* RCUBOOST_URCU_BP_H */
