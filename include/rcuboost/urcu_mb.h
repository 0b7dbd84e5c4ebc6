/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/urcu_mb.h - liburcu's mb flavor on top of an rcuboost
 * domain of its own (<rcuboost/domain.h>).
 *
 * Differs from liburcu's mb flavor in what the read side costs: liburcu's
 * mb readers issue a full fence per section so that grace periods need
 * no system call; here the readers have compiler barriers only and the
 * grace periods use membarrier(2), as the memb flavor's.
 *
 * A program written for it (<urcu/urcu-mb.h> and the urcu_mb_* names,
 * or <urcu.h> with -DRCU_MB) builds unchanged when its include line
 * becomes #include <rcuboost/urcu_mb.h> and its link flag -lrcuboost,
 * or, with the compatibility install, when only PKG_CONFIG_PATH
 * (liburcu-mb.pc) or -L changes (rcuboost-urcu(7)).  The common parts
 * (struct rcu_head, the flavor struct, the pointer macros, liburcu-cds)
 * are those of <rcuboost/urcu.h>, whose urcu_memb_* names stay declared.
 */
#ifndef RCUBOOST_URCU_MB_H
#define RCUBOOST_URCU_MB_H

#include <rcuboost/urcu.h>
#include <rcuboost/domain.h>

/* ---- liburcu's map (urcu/map/urcu-mb.h): plain names to urcu_mb_* */

#include <rcuboost/urcu_map_clear.h>

#define rcu_read_lock urcu_mb_read_lock
#define _rcu_read_lock _urcu_mb_read_lock
#define rcu_read_unlock urcu_mb_read_unlock
#define _rcu_read_unlock _urcu_mb_read_unlock
#define rcu_read_ongoing urcu_mb_read_ongoing
#define _rcu_read_ongoing _urcu_mb_read_ongoing
#define rcu_register_thread urcu_mb_register_thread
#define rcu_unregister_thread urcu_mb_unregister_thread
#define rcu_init urcu_mb_init
#define rcu_exit urcu_mb_exit
#define synchronize_rcu urcu_mb_synchronize_rcu
#define get_cpu_call_rcu_data urcu_mb_get_cpu_call_rcu_data
#define get_call_rcu_thread urcu_mb_get_call_rcu_thread
#define create_call_rcu_data urcu_mb_create_call_rcu_data
#define set_cpu_call_rcu_data urcu_mb_set_cpu_call_rcu_data
#define get_default_call_rcu_data urcu_mb_get_default_call_rcu_data
#define get_call_rcu_data urcu_mb_get_call_rcu_data
#define get_thread_call_rcu_data urcu_mb_get_thread_call_rcu_data
#define set_thread_call_rcu_data urcu_mb_set_thread_call_rcu_data
#define create_all_cpu_call_rcu_data urcu_mb_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data urcu_mb_free_all_cpu_call_rcu_data
#define call_rcu urcu_mb_call_rcu
#define call_rcu_data_free urcu_mb_call_rcu_data_free
#define call_rcu_before_fork urcu_mb_call_rcu_before_fork
#define call_rcu_after_fork_parent urcu_mb_call_rcu_after_fork_parent
#define call_rcu_after_fork_child urcu_mb_call_rcu_after_fork_child
#define rcu_barrier urcu_mb_barrier
#define start_poll_synchronize_rcu urcu_mb_start_poll_synchronize_rcu
#define poll_state_synchronize_rcu urcu_mb_poll_state_synchronize_rcu
#define defer_rcu urcu_mb_defer_rcu
#define rcu_defer_register_thread urcu_mb_defer_register_thread
#define rcu_defer_unregister_thread urcu_mb_defer_unregister_thread
#define rcu_defer_barrier urcu_mb_defer_barrier
#define rcu_defer_barrier_thread urcu_mb_defer_barrier_thread
#define rcu_defer_exit urcu_mb_defer_exit
#define rcu_flavor urcu_mb_flavor
#define urcu_register_rculfhash_atfork urcu_mb_register_rculfhash_atfork
#define urcu_unregister_rculfhash_atfork urcu_mb_unregister_rculfhash_atfork

#ifndef URCU_NO_COMPAT_IDENTIFIERS
#define rcu_read_lock_mb urcu_mb_read_lock
#define _rcu_read_lock_mb _urcu_mb_read_lock
#define rcu_read_unlock_mb urcu_mb_read_unlock
#define _rcu_read_unlock_mb _urcu_mb_read_unlock
#define rcu_read_ongoing_mb urcu_mb_read_ongoing
#define _rcu_read_ongoing_mb _urcu_mb_read_ongoing
#define rcu_register_thread_mb urcu_mb_register_thread
#define rcu_unregister_thread_mb urcu_mb_unregister_thread
#define rcu_init_mb urcu_mb_init
#define rcu_exit_mb urcu_mb_exit
#define synchronize_rcu_mb urcu_mb_synchronize_rcu
#define get_cpu_call_rcu_data_mb urcu_mb_get_cpu_call_rcu_data
#define get_call_rcu_thread_mb urcu_mb_get_call_rcu_thread
#define create_call_rcu_data_mb urcu_mb_create_call_rcu_data
#define set_cpu_call_rcu_data_mb urcu_mb_set_cpu_call_rcu_data
#define get_default_call_rcu_data_mb urcu_mb_get_default_call_rcu_data
#define get_call_rcu_data_mb urcu_mb_get_call_rcu_data
#define get_thread_call_rcu_data_mb urcu_mb_get_thread_call_rcu_data
#define set_thread_call_rcu_data_mb urcu_mb_set_thread_call_rcu_data
#define create_all_cpu_call_rcu_data_mb urcu_mb_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data_mb urcu_mb_free_all_cpu_call_rcu_data
#define call_rcu_mb urcu_mb_call_rcu
#define call_rcu_data_free_mb urcu_mb_call_rcu_data_free
#define call_rcu_before_fork_mb urcu_mb_call_rcu_before_fork
#define call_rcu_after_fork_parent_mb urcu_mb_call_rcu_after_fork_parent
#define call_rcu_after_fork_child_mb urcu_mb_call_rcu_after_fork_child
#define rcu_barrier_mb urcu_mb_barrier
#define defer_rcu_mb urcu_mb_defer_rcu
#define rcu_defer_register_thread_mb urcu_mb_defer_register_thread
#define rcu_defer_unregister_thread_mb urcu_mb_defer_unregister_thread
#define rcu_defer_barrier_mb urcu_mb_defer_barrier
#define rcu_defer_barrier_thread_mb urcu_mb_defer_barrier_thread
#define rcu_defer_exit_mb urcu_mb_defer_exit
#define rcu_flavor_mb urcu_mb_flavor
#define urcu_register_rculfhash_atfork_mb urcu_mb_register_rculfhash_atfork
#define urcu_unregister_rculfhash_atfork_mb urcu_mb_unregister_rculfhash_atfork
#endif

#define RCB__UF(name) urcu_mb_##name
#include <rcuboost/urcu_flavor_decl.h>

/* Called by name: the inline read side over the flavor's domain. */
#define urcu_mb_read_lock() rcb__dom_read_lock(RCB__DOM_MB)
#define _urcu_mb_read_lock() rcb__dom_read_lock(RCB__DOM_MB)
#define urcu_mb_read_unlock() rcb__dom_read_unlock(RCB__DOM_MB)
#define _urcu_mb_read_unlock() rcb__dom_read_unlock(RCB__DOM_MB)
#define urcu_mb_read_ongoing() rcb__dom_read_ongoing(RCB__DOM_MB)
#define _urcu_mb_read_ongoing() rcb__dom_read_ongoing(RCB__DOM_MB)

#endif /* RCUBOOST_URCU_MB_H */
