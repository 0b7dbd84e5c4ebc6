/* SPDX-License-Identifier: MIT */
/*
 * liburcu's bp flavor exported by librcuboost (include/rcuboost/urcu_bp.h):
 * the functions every memb-class flavor has (urcu_flavor.h) over the bp
 * domain, and bp's own.
 */
#define _GNU_SOURCE
#define RCB_URCU_STANDALONE /* never a liburcu header in the library */
#include "rcuboost/urcu_bp.h"

#define RCB__UF(name) urcu_bp_##name
#define UF_DOM RCB__DOM_BP
#define UF_BP 1
#include "compat/urcu_flavor.h"

/* liburcu-bp's is an empty inline: the thread's record goes with its
 * exit (src/core/domain.c, rcb__dom_thread_exit()). */
RCB_API void urcu_bp_unregister_thread(void)
{
}

/* rcuboost's own pthread_atfork() handlers cover every domain. */
RCB_API void urcu_bp_before_fork(void)
{
}

RCB_API void urcu_bp_after_fork_parent(void)
{
}

RCB_API void urcu_bp_after_fork_child(void)
{
}

RCB_API void *urcu_bp_dereference_sym(void *p)
{
	return rcb_dereference(p);
}

RCB_API void *urcu_bp_set_pointer_sym(void **p, void *v)
{
	rcb_assign_pointer(*p, v);
	return v;
}

RCB_API void *urcu_bp_xchg_pointer_sym(void **p, void *v)
{
	return rcb_xchg_pointer(p, v);
}

RCB_API void *urcu_bp_cmpxchg_pointer_sym(void **p, void *old, void *_new)
{
	/* [URCU-S] as rcu_cmpxchg_pointer_sym() (urcu_compat.c). */
	__atomic_compare_exchange_n(p, &old, _new, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE); /* [URCU-S] */
	return old;
}
