/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/urcu.h - liburcu urcu-memb names on top of rcuboost.
 *
 * A program written for liburcu's urcu-memb flavor (<urcu.h> or
 * <urcu/urcu-memb.h>) builds unchanged against rcuboost when its include
 * line becomes #include <rcuboost/urcu.h> and its link flag -lrcuboost.
 *
 * Covered: rcu_read_lock, rcu_read_unlock, rcu_read_ongoing,
 * synchronize_rcu, call_rcu, rcu_barrier, rcu_register_thread,
 * rcu_unregister_thread, rcu_init, rcu_dereference, rcu_assign_pointer,
 * rcu_set_pointer, rcu_xchg_pointer, rcu_cmpxchg_pointer, struct rcu_head,
 * caa_container_of, defer_rcu, rcu_defer_register_thread,
 * rcu_defer_unregister_thread, rcu_defer_barrier, rcu_defer_barrier_thread
 * (rcuboost/urcu_defer.h), and the urcu_memb_*
 * spellings of the same calls.
 *
 * Not covered (see man/rcuboost-urcu.7): the other flavors' calls
 * (rcu_quiescent_state, rcu_thread_online/offline of urcu-qsbr), the
 * per-thread call_rcu workers (create_call_rcu_data and friends),
 * poll-based grace periods (start_poll_synchronize_rcu), the urcu/cds
 * data structures (rculist, rculfhash, wfcqueue...) and the
 * fork helpers (call_rcu_before_fork & co.: rcuboost handles fork()
 * itself).
 *
 * Differences: rcuboost reports misuse (synchronize_rcu inside a
 * read-side critical section, rcu_read_unlock without lock, call_rcu with
 * a NULL function or after rcb_shutdown) on stderr instead of deadlocking
 * or corrupting state; the void-returning liburcu calls drop the error.
 * rcu_read_lock auto-registers a thread that forgot rcu_register_thread.
 */
#ifndef RCUBOOST_URCU_H
#define RCUBOOST_URCU_H

#include <stddef.h>
#include <stdlib.h>

#include <rcuboost.h>
#include <rcuboost/urcu_callrcu.h>
#include <rcuboost/urcu_defer.h>

#ifdef __cplusplus
extern "C" {
#endif

#define rcu_head rcb_head

#ifndef caa_container_of
#define caa_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#define rcu_dereference(p) rcb_dereference(p)
#define rcu_assign_pointer(p, v) rcb_assign_pointer(p, v)
#define rcu_set_pointer(pp, v) rcb_assign_pointer(*(pp), v)
#define rcu_xchg_pointer(pp, v) rcb_xchg_pointer(pp, v)
#define rcu_cmpxchg_pointer(pp, old, v)                                     \
	__extension__({                                                     \
		__typeof__(*(pp)) rcb_old_ = (old);                         \
		__atomic_compare_exchange_n((pp), &rcb_old_, (v), 0,        \
					    __ATOMIC_ACQ_REL,               \
					    __ATOMIC_ACQUIRE);              \
		rcb_old_;                                                   \
	})

static inline void rcu_read_lock(void)
{
	rcb_read_lock();
}

static inline void rcu_read_unlock(void)
{
	rcb_read_unlock();
}

static inline int rcu_read_ongoing(void)
{
	return rcb_read_ongoing();
}

static inline void synchronize_rcu(void)
{
	(void)rcb_synchronize();
}

static inline void call_rcu(struct rcb_head *head,
			    void (*func)(struct rcb_head *head))
{
	(void)rcb_call(head, func);
}

static inline void rcu_barrier(void)
{
	(void)rcb_barrier();
}

static inline void rcu_register_thread(void)
{
	(void)rcb_register_thread();
}

static inline void rcu_unregister_thread(void)
{
	(void)rcb_unregister_thread();
}

static inline void rcu_init(void)
{
	(void)rcb_init(NULL);
}

/* defer_rcu() and its barriers: exported by the library
 * (rcuboost/urcu_defer.h, a bounded per-thread queue like liburcu's). */
#define defer_rcu urcu_memb_defer_rcu
#define rcu_defer_register_thread urcu_memb_defer_register_thread
#define rcu_defer_unregister_thread urcu_memb_defer_unregister_thread
#define rcu_defer_barrier urcu_memb_defer_barrier
#define rcu_defer_barrier_thread urcu_memb_defer_barrier_thread

#define urcu_memb_read_lock rcu_read_lock
#define urcu_memb_read_unlock rcu_read_unlock
#define urcu_memb_read_ongoing rcu_read_ongoing
#define urcu_memb_synchronize_rcu synchronize_rcu
#define urcu_memb_call_rcu call_rcu
#define urcu_memb_barrier rcu_barrier
#define urcu_memb_register_thread rcu_register_thread
#define urcu_memb_unregister_thread rcu_unregister_thread
#define urcu_memb_init rcu_init

#ifdef __cplusplus
}
#endif

#endif /* RCUBOOST_URCU_H */
