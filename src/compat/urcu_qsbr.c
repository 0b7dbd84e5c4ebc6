/* SPDX-License-Identifier: MIT */
/*
 * liburcu's qsbr flavor exported by librcuboost (include/rcuboost/
 * urcu_qsbr.h): the functions every flavor has (urcu_flavor.h) over the
 * qsbr domain (src/core/qsbr.c, src/core/domain.c, src/callback/
 * dom_call.c), and the qsbr flavor's own: quiescent states, offline and
 * online, and its unregistration.
 */
#define _GNU_SOURCE
#define RCB_URCU_STANDALONE /* never a liburcu header in the library */
#include "rcuboost/urcu_qsbr.h"

#define RCB__UF(name) urcu_qsbr_##name
#define UF_DOM RCB__DOM_QSBR
#define UF_QSBR 1
#include "compat/urcu_flavor.h"

/* Parenthesised name: the header maps calls of it to the inline
 * quiescent state by a function-like macro. */
RCB_API void (urcu_qsbr_quiescent_state)(void)
{
	RCB__AS_LIBURCU("rcu_quiescent_state", rcb_qsbr_quiescent_state());
}

RCB_API void urcu_qsbr_thread_offline(void)
{
	RCB__AS_LIBURCU("rcu_thread_offline", rcb_qsbr_thread_offline());
}

RCB_API void urcu_qsbr_thread_online(void)
{
	RCB__AS_LIBURCU("rcu_thread_online", rcb_qsbr_thread_online());
}

