/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/urcu_qsbr.h - liburcu's qsbr flavor on top of rcuboost's qsbr
 * domain (<rcuboost/qsbr.h>, rcuboost-qsbr(3)).
 *
 * A program written for liburcu's qsbr flavor (<urcu-qsbr.h>, or
 * <urcu/urcu-qsbr.h> and the urcu_qsbr_* names) builds unchanged when its
 * include line becomes #include <rcuboost/urcu_qsbr.h> and its link flag
 * -lrcuboost, or, with the compatibility install, when only
 * PKG_CONFIG_PATH (liburcu-qsbr.pc) or -L changes (rcuboost-urcu(7)).
 * Its online threads that hold a grace period up are boosted.
 *
 * As liburcu's <urcu-qsbr.h>, this header maps the plain names
 * (rcu_read_lock, rcu_quiescent_state, synchronize_rcu, call_rcu,
 * rcu_flavor...) to the urcu_qsbr_* ones, and librcuboost exports real
 * urcu_qsbr_* functions with liburcu's prototypes; called by name, the
 * read side and the quiescent state are rcuboost's inline ones.  The
 * common parts (struct rcu_head, the flavor struct, the pointer macros,
 * coexistence with liburcu's data-structure headers) are those of
 * <rcuboost/urcu.h>, whose urcu_memb_* names stay declared.
 *
 * The call_rcu_data functions exist, with one difference: the flavor
 * has one callback thread, and every call_rcu_data handle (default,
 * per CPU, per thread, created) is that thread.
 */
#ifndef RCUBOOST_URCU_QSBR_H
#define RCUBOOST_URCU_QSBR_H

#include <rcuboost/urcu.h>
#include <rcuboost/qsbr.h>

/* ---- liburcu's map (urcu/map/urcu-qsbr.h): plain names to urcu_qsbr_* */

#include <rcuboost/urcu_map_clear.h>

#define rcu_read_lock urcu_qsbr_read_lock
#define _rcu_read_lock _urcu_qsbr_read_lock
#define rcu_read_unlock urcu_qsbr_read_unlock
#define _rcu_read_unlock _urcu_qsbr_read_unlock
#define rcu_read_ongoing urcu_qsbr_read_ongoing
#define _rcu_read_ongoing _urcu_qsbr_read_ongoing
#define rcu_quiescent_state urcu_qsbr_quiescent_state
#define _rcu_quiescent_state _urcu_qsbr_quiescent_state
#define rcu_thread_offline urcu_qsbr_thread_offline
#define rcu_thread_online urcu_qsbr_thread_online
#define rcu_register_thread urcu_qsbr_register_thread
#define rcu_unregister_thread urcu_qsbr_unregister_thread
#define rcu_init urcu_qsbr_init
#define rcu_exit urcu_qsbr_exit
#define synchronize_rcu urcu_qsbr_synchronize_rcu
#define call_rcu urcu_qsbr_call_rcu
#define rcu_barrier urcu_qsbr_barrier
#define start_poll_synchronize_rcu urcu_qsbr_start_poll_synchronize_rcu
#define poll_state_synchronize_rcu urcu_qsbr_poll_state_synchronize_rcu
#define defer_rcu urcu_qsbr_defer_rcu
#define rcu_defer_register_thread urcu_qsbr_defer_register_thread
#define rcu_defer_unregister_thread urcu_qsbr_defer_unregister_thread
#define rcu_defer_barrier urcu_qsbr_defer_barrier
#define rcu_defer_barrier_thread urcu_qsbr_defer_barrier_thread
#define rcu_defer_exit urcu_qsbr_defer_exit
#define rcu_flavor urcu_qsbr_flavor
#define get_cpu_call_rcu_data urcu_qsbr_get_cpu_call_rcu_data
#define get_call_rcu_thread urcu_qsbr_get_call_rcu_thread
#define create_call_rcu_data urcu_qsbr_create_call_rcu_data
#define set_cpu_call_rcu_data urcu_qsbr_set_cpu_call_rcu_data
#define get_default_call_rcu_data urcu_qsbr_get_default_call_rcu_data
#define get_call_rcu_data urcu_qsbr_get_call_rcu_data
#define get_thread_call_rcu_data urcu_qsbr_get_thread_call_rcu_data
#define set_thread_call_rcu_data urcu_qsbr_set_thread_call_rcu_data
#define create_all_cpu_call_rcu_data urcu_qsbr_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data urcu_qsbr_free_all_cpu_call_rcu_data
#define call_rcu_data_free urcu_qsbr_call_rcu_data_free
#define call_rcu_before_fork urcu_qsbr_call_rcu_before_fork
#define call_rcu_after_fork_parent urcu_qsbr_call_rcu_after_fork_parent
#define call_rcu_after_fork_child urcu_qsbr_call_rcu_after_fork_child
#define urcu_register_rculfhash_atfork urcu_qsbr_register_rculfhash_atfork
#define urcu_unregister_rculfhash_atfork \
	urcu_qsbr_unregister_rculfhash_atfork

#ifndef URCU_NO_COMPAT_IDENTIFIERS
#define rcu_read_lock_qsbr urcu_qsbr_read_lock
#define rcu_read_unlock_qsbr urcu_qsbr_read_unlock
#define rcu_read_ongoing_qsbr urcu_qsbr_read_ongoing
#define rcu_register_thread_qsbr urcu_qsbr_register_thread
#define rcu_unregister_thread_qsbr urcu_qsbr_unregister_thread
#define rcu_init_qsbr urcu_qsbr_init
#define rcu_exit_qsbr urcu_qsbr_exit
#define synchronize_rcu_qsbr urcu_qsbr_synchronize_rcu
#define call_rcu_qsbr urcu_qsbr_call_rcu
#define rcu_barrier_qsbr urcu_qsbr_barrier
#define defer_rcu_qsbr urcu_qsbr_defer_rcu
#define rcu_flavor_qsbr urcu_qsbr_flavor
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The read side, quiescent state, offline and online: rcuboost's inline
 * qsbr calls when called by name; the exported functions serve callers
 * that take their address (the flavor struct) or were compiled against
 * liburcu's own headers.
 */
RCB_API void urcu_qsbr_read_lock(void);
RCB_API void urcu_qsbr_read_unlock(void);
RCB_API int urcu_qsbr_read_ongoing(void);
RCB_API void urcu_qsbr_quiescent_state(void);
RCB_API void urcu_qsbr_thread_offline(void);
RCB_API void urcu_qsbr_thread_online(void);
#define urcu_qsbr_read_lock() rcb_qsbr_read_lock()
#define urcu_qsbr_read_unlock() rcb_qsbr_read_unlock()
#define urcu_qsbr_read_ongoing() rcb_qsbr_read_ongoing()
#define urcu_qsbr_quiescent_state() rcb_qsbr_quiescent_state()
#define _urcu_qsbr_read_lock() rcb_qsbr_read_lock()
#define _urcu_qsbr_read_unlock() rcb_qsbr_read_unlock()
#define _urcu_qsbr_read_ongoing() rcb_qsbr_read_ongoing()
#define _urcu_qsbr_quiescent_state() rcb_qsbr_quiescent_state()

/* rcb_qsbr_synchronize(): an online caller is offline while it waits. */
RCB_API void urcu_qsbr_synchronize_rcu(void);
/* rcb_qsbr_register_thread() / rcb_qsbr_unregister_thread(), errors
 * reported on stderr. */
RCB_API void urcu_qsbr_register_thread(void);
RCB_API void urcu_qsbr_unregister_thread(void);
/* rcb_init(NULL); errors dropped.  urcu_qsbr_exit(): nothing. */
RCB_API void urcu_qsbr_init(void);
RCB_API void urcu_qsbr_exit(void);

/* rcb_qsbr_call(): @func(@head) on the qsbr domain's callback thread
 * after a grace period; writes only @head's two words.  A NULL @func is
 * reported and the callback dropped. */
RCB_API void urcu_qsbr_call_rcu(struct rcu_head *head,
				void (*func)(struct rcu_head *head));
/* rcb_qsbr_barrier(). */
RCB_API void urcu_qsbr_barrier(void);
/* liburcu 0.14's polled grace periods over the qsbr domain, as the
 * memb-class flavors' (<rcuboost/urcu_flavor_decl.h>). */
RCB_API struct urcu_gp_poll_state urcu_qsbr_start_poll_synchronize_rcu(void);
RCB_API bool urcu_qsbr_poll_state_synchronize_rcu(struct urcu_gp_poll_state s);

/* defer_rcu() for this flavor: @fct(@p) after a grace period, through
 * the callback thread (the register and barrier calls are liburcu's; the
 * barrier is rcb_qsbr_barrier()).  Without memory for its node it waits
 * for a grace period and calls @fct itself, as liburcu's full queue does. */
RCB_API void urcu_qsbr_defer_rcu(void (*fct)(void *p), void *p);
RCB_API int urcu_qsbr_defer_register_thread(void);
RCB_API void urcu_qsbr_defer_unregister_thread(void);
RCB_API void urcu_qsbr_defer_barrier(void);
RCB_API void urcu_qsbr_defer_barrier_thread(void);
RCB_API void urcu_qsbr_defer_exit(void);

/*
 * call_rcu_data: the qsbr domain's one callback thread behind every
 * handle.  create_call_rcu_data() and get_default/get_cpu/get_thread/
 * get_call_rcu_data() return that handle (get_cpu: NULL for a CPU out of
 * range); set_thread/set_cpu_call_rcu_data(), create_all_cpu_call_rcu_data()
 * return 0 and change nothing; call_rcu_data_free() and
 * free_all_cpu_call_rcu_data() do nothing; get_call_rcu_thread() starts
 * the thread if need be and returns it.  The fork helpers are the memb
 * flavor's (they cover every rcuboost thread and liburcu-cds's hooks).
 */
RCB_API struct call_rcu_data *
urcu_qsbr_create_call_rcu_data(unsigned long flags, int cpu_affinity);
RCB_API void urcu_qsbr_call_rcu_data_free(struct call_rcu_data *crdp);
RCB_API struct call_rcu_data *urcu_qsbr_get_default_call_rcu_data(void);
RCB_API struct call_rcu_data *urcu_qsbr_get_cpu_call_rcu_data(int cpu);
RCB_API struct call_rcu_data *urcu_qsbr_get_thread_call_rcu_data(void);
RCB_API struct call_rcu_data *urcu_qsbr_get_call_rcu_data(void);
RCB_API pthread_t urcu_qsbr_get_call_rcu_thread(struct call_rcu_data *crdp);
RCB_API void urcu_qsbr_set_thread_call_rcu_data(struct call_rcu_data *crdp);
RCB_API int urcu_qsbr_set_cpu_call_rcu_data(int cpu,
					    struct call_rcu_data *crdp);
RCB_API int urcu_qsbr_create_all_cpu_call_rcu_data(unsigned long flags);
RCB_API void urcu_qsbr_free_all_cpu_call_rcu_data(void);
RCB_API void urcu_qsbr_call_rcu_before_fork(void);
RCB_API void urcu_qsbr_call_rcu_after_fork_parent(void);
RCB_API void urcu_qsbr_call_rcu_after_fork_child(void);

/* The atfork hooks of liburcu-cds's hash table: one list for every
 * flavor (urcu_memb_register_rculfhash_atfork()). */
RCB_API void urcu_qsbr_register_rculfhash_atfork(struct urcu_atfork *atfork);
RCB_API void urcu_qsbr_unregister_rculfhash_atfork(struct urcu_atfork *atfork);

/* urcu_qsbr_flavor (rcu_flavor): the operations above, for liburcu-cds. */
RCB_API extern const struct rcu_flavor_struct urcu_qsbr_flavor;

#ifdef __cplusplus
}
#endif

#endif /* RCUBOOST_URCU_QSBR_H */
