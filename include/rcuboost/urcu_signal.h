/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/urcu_signal.h - liburcu's signal flavor on top of an rcuboost
 * domain of its own (<rcuboost/domain.h>).
 *
 * Differs from liburcu's signal flavor in how a grace period makes the
 * readers' compiler barriers full: membarrier(2), as the memb flavor's,
 * instead of a signal to every registered thread, so the flavor takes no
 * signal number from the program.
 *
 * A program written for it (<urcu/urcu-signal.h> and the urcu_signal_* names,
 * or <urcu.h> with -DRCU_SIGNAL) builds unchanged when its include line
 * becomes #include <rcuboost/urcu_signal.h> and its link flag -lrcuboost,
 * or, with the compatibility install, when only PKG_CONFIG_PATH
 * (liburcu-signal.pc) or -L changes (rcuboost-urcu(7)).  The common parts
 * (struct rcu_head, the flavor struct, the pointer macros, liburcu-cds)
 * are those of <rcuboost/urcu.h>, whose urcu_memb_* names stay declared.
 */
#ifndef RCUBOOST_URCU_SIGNAL_H
#define RCUBOOST_URCU_SIGNAL_H

#include <rcuboost/urcu.h>
#include <rcuboost/domain.h>

/* ---- liburcu's map (urcu/map/urcu-signal.h): plain names to urcu_signal_* */

#include <rcuboost/urcu_map_clear.h>

#define rcu_read_lock urcu_signal_read_lock
#define _rcu_read_lock _urcu_signal_read_lock
#define rcu_read_unlock urcu_signal_read_unlock
#define _rcu_read_unlock _urcu_signal_read_unlock
#define rcu_read_ongoing urcu_signal_read_ongoing
#define _rcu_read_ongoing _urcu_signal_read_ongoing
#define rcu_register_thread urcu_signal_register_thread
#define rcu_unregister_thread urcu_signal_unregister_thread
#define rcu_init urcu_signal_init
#define rcu_exit urcu_signal_exit
#define synchronize_rcu urcu_signal_synchronize_rcu
#define get_cpu_call_rcu_data urcu_signal_get_cpu_call_rcu_data
#define get_call_rcu_thread urcu_signal_get_call_rcu_thread
#define create_call_rcu_data urcu_signal_create_call_rcu_data
#define set_cpu_call_rcu_data urcu_signal_set_cpu_call_rcu_data
#define get_default_call_rcu_data urcu_signal_get_default_call_rcu_data
#define get_call_rcu_data urcu_signal_get_call_rcu_data
#define get_thread_call_rcu_data urcu_signal_get_thread_call_rcu_data
#define set_thread_call_rcu_data urcu_signal_set_thread_call_rcu_data
#define create_all_cpu_call_rcu_data urcu_signal_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data urcu_signal_free_all_cpu_call_rcu_data
#define call_rcu urcu_signal_call_rcu
#define call_rcu_data_free urcu_signal_call_rcu_data_free
#define call_rcu_before_fork urcu_signal_call_rcu_before_fork
#define call_rcu_after_fork_parent urcu_signal_call_rcu_after_fork_parent
#define call_rcu_after_fork_child urcu_signal_call_rcu_after_fork_child
#define rcu_barrier urcu_signal_barrier
#define start_poll_synchronize_rcu urcu_signal_start_poll_synchronize_rcu
#define poll_state_synchronize_rcu urcu_signal_poll_state_synchronize_rcu
#define defer_rcu urcu_signal_defer_rcu
#define rcu_defer_register_thread urcu_signal_defer_register_thread
#define rcu_defer_unregister_thread urcu_signal_defer_unregister_thread
#define rcu_defer_barrier urcu_signal_defer_barrier
#define rcu_defer_barrier_thread urcu_signal_defer_barrier_thread
#define rcu_defer_exit urcu_signal_defer_exit
#define rcu_flavor urcu_signal_flavor
#define urcu_register_rculfhash_atfork urcu_signal_register_rculfhash_atfork
#define urcu_unregister_rculfhash_atfork urcu_signal_unregister_rculfhash_atfork

#ifndef URCU_NO_COMPAT_IDENTIFIERS
#define rcu_read_lock_sig urcu_signal_read_lock
#define _rcu_read_lock_sig _urcu_signal_read_lock
#define rcu_read_unlock_sig urcu_signal_read_unlock
#define _rcu_read_unlock_sig _urcu_signal_read_unlock
#define rcu_read_ongoing_sig urcu_signal_read_ongoing
#define _rcu_read_ongoing_sig _urcu_signal_read_ongoing
#define rcu_register_thread_sig urcu_signal_register_thread
#define rcu_unregister_thread_sig urcu_signal_unregister_thread
#define rcu_init_sig urcu_signal_init
#define rcu_exit_sig urcu_signal_exit
#define synchronize_rcu_sig urcu_signal_synchronize_rcu
#define get_cpu_call_rcu_data_sig urcu_signal_get_cpu_call_rcu_data
#define get_call_rcu_thread_sig urcu_signal_get_call_rcu_thread
#define create_call_rcu_data_sig urcu_signal_create_call_rcu_data
#define set_cpu_call_rcu_data_sig urcu_signal_set_cpu_call_rcu_data
#define get_default_call_rcu_data_sig urcu_signal_get_default_call_rcu_data
#define get_call_rcu_data_sig urcu_signal_get_call_rcu_data
#define get_thread_call_rcu_data_sig urcu_signal_get_thread_call_rcu_data
#define set_thread_call_rcu_data_sig urcu_signal_set_thread_call_rcu_data
#define create_all_cpu_call_rcu_data_sig \
	urcu_signal_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data_sig urcu_signal_free_all_cpu_call_rcu_data
#define call_rcu_sig urcu_signal_call_rcu
#define call_rcu_data_free_sig urcu_signal_call_rcu_data_free
#define call_rcu_before_fork_sig urcu_signal_call_rcu_before_fork
#define call_rcu_after_fork_parent_sig urcu_signal_call_rcu_after_fork_parent
#define call_rcu_after_fork_child_sig urcu_signal_call_rcu_after_fork_child
#define rcu_barrier_sig urcu_signal_barrier
#define defer_rcu_sig urcu_signal_defer_rcu
#define rcu_defer_register_thread_sig urcu_signal_defer_register_thread
#define rcu_defer_unregister_thread_sig urcu_signal_defer_unregister_thread
#define rcu_defer_barrier_sig urcu_signal_defer_barrier
#define rcu_defer_barrier_thread_sig urcu_signal_defer_barrier_thread
#define rcu_defer_exit_sig urcu_signal_defer_exit
#define rcu_flavor_sig urcu_signal_flavor
#define urcu_register_rculfhash_atfork_sig urcu_signal_register_rculfhash_atfork
#define urcu_unregister_rculfhash_atfork_sig \
	urcu_signal_unregister_rculfhash_atfork
#endif

#define RCB__UF(name) urcu_signal_##name
#include <rcuboost/urcu_flavor_decl.h>

/* Called by name: the inline read side over the flavor's domain. */
#define urcu_signal_read_lock() rcb__dom_read_lock(RCB__DOM_SIGNAL)
#define _urcu_signal_read_lock() rcb__dom_read_lock(RCB__DOM_SIGNAL)
#define urcu_signal_read_unlock() rcb__dom_read_unlock(RCB__DOM_SIGNAL)
#define _urcu_signal_read_unlock() rcb__dom_read_unlock(RCB__DOM_SIGNAL)
#define urcu_signal_read_ongoing() rcb__dom_read_ongoing(RCB__DOM_SIGNAL)
#define _urcu_signal_read_ongoing() rcb__dom_read_ongoing(RCB__DOM_SIGNAL)

#endif /* RCUBOOST_URCU_SIGNAL_H */
