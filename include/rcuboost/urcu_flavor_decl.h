/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/urcu_flavor_decl.h - the declarations one liburcu memb-class
 * flavor shares with the others, included by <rcuboost/urcu_bp.h>,
 * <rcuboost/urcu_mb.h> and <rcuboost/urcu_signal.h> with RCB__UF(name)
 * naming the flavor's function (urcu_bp_##name...) and RCB__UF_DOM its
 * domain.  No include guard: once per flavor.
 *
 * Called by name, the read side is rcuboost's inline one over the
 * flavor's domain (<rcuboost/domain.h>); the exported functions serve
 * callers that take their address (the flavor struct) or were compiled
 * against liburcu's own headers.  Each flavor is a domain of its own: its
 * grace periods wait only for its own readers, as in liburcu, and its
 * readers that hold a grace period up are boosted.
 */

#ifdef __cplusplus
extern "C" {
#endif

RCB_API void RCB__UF(read_lock)(void);
RCB_API void RCB__UF(read_unlock)(void);
RCB_API int RCB__UF(read_ongoing)(void);

/* A grace period of the flavor's domain: waits for its sections only.
 * Inside one of them, reported and refused. */
RCB_API void RCB__UF(synchronize_rcu)(void);
/* Registration with the flavor's domain; a first read lock registers an
 * unregistered thread (bp's contract, kept for every flavor). */
RCB_API void RCB__UF(register_thread)(void);
RCB_API void RCB__UF(unregister_thread)(void);
/* rcb_init(NULL); errors dropped.  exit: nothing. */
RCB_API void RCB__UF(init)(void);
RCB_API void RCB__UF(exit)(void);

/* @func(@head) on the domain's callback thread after one of its grace
 * periods; writes only @head's two words.  A NULL @func is reported and
 * the callback dropped. */
RCB_API void RCB__UF(call_rcu)(struct rcu_head *head,
			      void (*func)(struct rcu_head *head));
RCB_API void RCB__UF(barrier)(void);

/* liburcu 0.14's polled grace periods over the flavor's domain
 * (rcb_domain_start_poll(), rcb_domain_poll_state()); a cookie from the
 * future reads as not elapsed. */
RCB_API struct urcu_gp_poll_state RCB__UF(start_poll_synchronize_rcu)(void);
RCB_API bool RCB__UF(poll_state_synchronize_rcu)(struct urcu_gp_poll_state s);

/* defer_rcu() through the callback thread; without memory for its node
 * it waits for a grace period and calls @fct itself, as liburcu's full
 * queue does. */
RCB_API void RCB__UF(defer_rcu)(void (*fct)(void *p), void *p);
RCB_API int RCB__UF(defer_register_thread)(void);
RCB_API void RCB__UF(defer_unregister_thread)(void);
RCB_API void RCB__UF(defer_barrier)(void);
RCB_API void RCB__UF(defer_barrier_thread)(void);
RCB_API void RCB__UF(defer_exit)(void);

/* call_rcu_data: the domain's one callback thread behind every handle,
 * as for the qsbr flavor (<rcuboost/urcu_qsbr.h>). */
RCB_API struct call_rcu_data *RCB__UF(create_call_rcu_data)(unsigned long flags,
							   int cpu_affinity);
RCB_API void RCB__UF(call_rcu_data_free)(struct call_rcu_data *crdp);
RCB_API struct call_rcu_data *RCB__UF(get_default_call_rcu_data)(void);
RCB_API struct call_rcu_data *RCB__UF(get_cpu_call_rcu_data)(int cpu);
RCB_API struct call_rcu_data *RCB__UF(get_thread_call_rcu_data)(void);
RCB_API struct call_rcu_data *RCB__UF(get_call_rcu_data)(void);
RCB_API pthread_t RCB__UF(get_call_rcu_thread)(struct call_rcu_data *crdp);
RCB_API void RCB__UF(set_thread_call_rcu_data)(struct call_rcu_data *crdp);
RCB_API int RCB__UF(set_cpu_call_rcu_data)(int cpu, struct call_rcu_data *crdp);
RCB_API int RCB__UF(create_all_cpu_call_rcu_data)(unsigned long flags);
RCB_API void RCB__UF(free_all_cpu_call_rcu_data)(void);
RCB_API void RCB__UF(call_rcu_before_fork)(void);
RCB_API void RCB__UF(call_rcu_after_fork_parent)(void);
RCB_API void RCB__UF(call_rcu_after_fork_child)(void);

/* The atfork hooks of liburcu-cds's hash table: one list for every
 * flavor (urcu_memb_register_rculfhash_atfork()). */
RCB_API void RCB__UF(register_rculfhash_atfork)(struct urcu_atfork *atfork);
RCB_API void RCB__UF(unregister_rculfhash_atfork)(struct urcu_atfork *atfork);

/* The flavor struct (rcu_flavor), for liburcu-cds. */
RCB_API extern const struct rcu_flavor_struct RCB__UF(flavor);

#ifdef __cplusplus
}
#endif
