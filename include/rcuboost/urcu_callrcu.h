/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/urcu_callrcu.h - liburcu's call_rcu worker API (call_rcu_data)
 * for urcu-memb programs, on top of rcuboost's callback workers
 * (rcb_worker_*() in <rcuboost.h>).  Included by <rcuboost/urcu.h>; the
 * prototypes are liburcu 0.13's (urcu/call-rcu.h), under the urcu_memb_
 * names its urcu/map/urcu-memb.h maps the plain names to.
 *
 * A struct call_rcu_data * is a struct rcb_worker *.  Differences from
 * liburcu: a failing create_call_rcu_data() returns NULL with errno set
 * (liburcu aborts); flags other than 0 and URCU_CALL_RCU_RT are refused
 * with EINVAL (liburcu keeps them in the word that holds its thread's
 * stop and pause bits); call_rcu_data_free() of a freed worker is refused
 * (errno ENOENT) instead of freeing twice; the fork helpers do nothing
 * but call the compat layer's own handlers, since rcuboost's
 * pthread_atfork() handlers already keep every worker's callbacks across
 * fork() (a child keeps its workers, whose threads restart on use;
 * liburcu's child merges them into the default worker).
 */
#ifndef RCUBOOST_URCU_CALLRCU_H
#define RCUBOOST_URCU_CALLRCU_H

#include <pthread.h>

#include <rcuboost.h>

#ifdef __cplusplus
extern "C" {
#endif

struct call_rcu_data;

#ifndef URCU_CALL_RCU_RT
/* Flag of create_call_rcu_data(): poll instead of sleeping on a futex. */
#define URCU_CALL_RCU_RT (1U << 0)
#endif

/*
 * Create a worker thread with its own queue, pinned to @cpu_affinity
 * unless it is -1; @flags 0 or URCU_CALL_RCU_RT.  NULL and errno on
 * failure (see rcb_worker_create()).
 */
RCB_API struct call_rcu_data *
urcu_memb_create_call_rcu_data(unsigned long flags, int cpu_affinity);
/* Destroy @crdp (rcb_worker_destroy()): its pending callbacks move to
 * the default worker.  NULL and the default worker are ignored. */
RCB_API void urcu_memb_call_rcu_data_free(struct call_rcu_data *crdp);
/* The default worker. */
RCB_API struct call_rcu_data *urcu_memb_get_default_call_rcu_data(void);
/* The worker of @cpu, or NULL. */
RCB_API struct call_rcu_data *urcu_memb_get_cpu_call_rcu_data(int cpu);
/* The calling thread's worker, or NULL. */
RCB_API struct call_rcu_data *urcu_memb_get_thread_call_rcu_data(void);
/* The worker call_rcu() of this thread uses: thread's, CPU's, default. */
RCB_API struct call_rcu_data *urcu_memb_get_call_rcu_data(void);
/* The worker's thread (started if need be), for pthread_setschedparam()
 * and the like. */
RCB_API pthread_t urcu_memb_get_call_rcu_thread(struct call_rcu_data *crdp);
/* The calling thread's callbacks go to @crdp (NULL: none of its own). */
RCB_API void urcu_memb_set_thread_call_rcu_data(struct call_rcu_data *crdp);
/* The worker of @cpu; 0, or a negative errno value with errno set too,
 * as liburcu: -EINVAL, -EEXIST (@cpu has a worker), -ENOMEM, -ENOENT
 * (@crdp freed), -EDEADLK (see rcb_worker_assign_cpu()). */
RCB_API int urcu_memb_set_cpu_call_rcu_data(int cpu,
					    struct call_rcu_data *crdp);
/* A pinned worker for every CPU without one (a CPU that another thread
 * sets meanwhile keeps that thread's); 0, or a negative errno value with
 * errno set too, as liburcu: -EINVAL for @flags other than 0 and
 * URCU_CALL_RCU_RT (said on stderr), -ENOMEM. */
RCB_API int urcu_memb_create_all_cpu_call_rcu_data(unsigned long flags);
/* Withdraw and destroy every CPU's worker. */
RCB_API void urcu_memb_free_all_cpu_call_rcu_data(void);
/* Fork helpers (see above): as in liburcu, each call_rcu_before_fork()
 * must be followed, in the same thread, by call_rcu_after_fork_parent()
 * or call_rcu_after_fork_child(); until then every fork() and hash table
 * creation of other threads waits (said on stderr after a second). */
RCB_API void urcu_memb_call_rcu_before_fork(void);
RCB_API void urcu_memb_call_rcu_after_fork_parent(void);
RCB_API void urcu_memb_call_rcu_after_fork_child(void);

/* The plain liburcu names (the compat layer's map may define them too). */
#ifndef RCB_URCU_NO_MAP
#define create_call_rcu_data urcu_memb_create_call_rcu_data
#define call_rcu_data_free urcu_memb_call_rcu_data_free
#define get_default_call_rcu_data urcu_memb_get_default_call_rcu_data
#define get_cpu_call_rcu_data urcu_memb_get_cpu_call_rcu_data
#define get_thread_call_rcu_data urcu_memb_get_thread_call_rcu_data
#define get_call_rcu_data urcu_memb_get_call_rcu_data
#define get_call_rcu_thread urcu_memb_get_call_rcu_thread
#define set_thread_call_rcu_data urcu_memb_set_thread_call_rcu_data
#define set_cpu_call_rcu_data urcu_memb_set_cpu_call_rcu_data
#define create_all_cpu_call_rcu_data urcu_memb_create_all_cpu_call_rcu_data
#define free_all_cpu_call_rcu_data urcu_memb_free_all_cpu_call_rcu_data
#define call_rcu_before_fork urcu_memb_call_rcu_before_fork
#define call_rcu_after_fork_parent urcu_memb_call_rcu_after_fork_parent
#define call_rcu_after_fork_child urcu_memb_call_rcu_after_fork_child
#endif

#ifdef __cplusplus
}
#endif

#endif /* RCUBOOST_URCU_CALLRCU_H */
