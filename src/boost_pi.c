/* SPDX-License-Identifier: MIT */
/*
 * Proxy-lock backend (RCB_BACKEND_PI): placeholder until implemented;
 * rcb_init() refuses RCUBOOST_BACKEND=pi meanwhile.
 */
#include "boost.h"

_Atomic long rcb__pi_boosts, rcb__pi_handoffs, rcb__pi_syscalls;

int rcb__pi_start(void)
{
	return -ENOTSUP;
}

void rcb__pi_stop(void)
{
}

bool rcb__pi_boost(struct rcb__thread *t, struct rcu_boost_dat *rbdp,
		   int rcuprio)
{
	(void)t;
	(void)rbdp;
	(void)rcuprio;
	return false;
}

struct rcb__pi_slot *rcb__pi_take(struct rcb__thread *self)
{
	(void)self;
	return NULL;
}

void rcb__pi_release(struct rcb__pi_slot *slot)
{
	(void)slot;
}

void rcb__pi_after_fork_child(void)
{
}
