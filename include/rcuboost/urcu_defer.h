/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/urcu_defer.h - liburcu's defer_rcu() family, urcu-memb names.
 *
 * The functions are exported by librcuboost with liburcu's prototypes
 * (urcu/defer.h, urcu/map/urcu-memb.h) on top of rcb_defer() and its
 * barriers (include/rcuboost.h): a bounded per-thread queue of
 * RCB_DEFER_QUEUE_LEN entries; a thread whose queue is full waits for a
 * grace period and runs it, as liburcu does.  This fragment declares
 * only the urcu_memb_* names; <rcuboost/urcu.h> maps the plain ones.
 *
 * Differences from liburcu: a thread need not call
 * urcu_memb_defer_register_thread() (the first defer registers it) and
 * its queue is flushed when it exits; urcu_memb_defer_rcu() inside a
 * read-side critical section is reported as misuse and does nothing
 * (liburcu may deadlock there); without memory for a queue it waits for
 * a grace period and calls @fct(@p) itself.
 */
#ifndef RCUBOOST_URCU_DEFER_H
#define RCUBOOST_URCU_DEFER_H

#include <rcuboost.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rcb_defer(); errors are dropped (see above).  May block. */
RCB_API void urcu_memb_defer_rcu(void (*fct)(void *p), void *p);
/* rcb_defer_register_thread(): 0 or -ENOMEM. */
RCB_API int urcu_memb_defer_register_thread(void);
/* rcb_defer_unregister_thread(), errors dropped. */
RCB_API void urcu_memb_defer_unregister_thread(void);
/* rcb_defer_barrier(), errors dropped. */
RCB_API void urcu_memb_defer_barrier(void);
/* rcb_defer_barrier_thread(), errors dropped. */
RCB_API void urcu_memb_defer_barrier_thread(void);
/* liburcu's library destructor for its defer thread, exported (and
 * mapped to rcu_defer_exit, in no public header of liburcu's) but never
 * declared by liburcu; rcuboost has no defer thread to free: nothing. */
RCB_API void urcu_memb_defer_exit(void);

#ifdef __cplusplus
}
#endif

#endif /* RCUBOOST_URCU_DEFER_H */
