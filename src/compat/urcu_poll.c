/* SPDX-License-Identifier: MIT */
/*
 * liburcu 0.14's polled grace periods under their urcu-memb names
 * (declared in include/rcuboost/urcu_poll.h), on top of src/callback/gp_poll.c.
 */
#include "core/internal.h"
#include "rcuboost/urcu_poll.h"

_Static_assert(sizeof(unsigned long) >= sizeof(uint64_t),
	       "liburcu's grace_period_id must hold a 64-bit cookie");

RCB_API struct urcu_gp_poll_state urcu_memb_start_poll_synchronize_rcu(void)
{
	struct urcu_gp_poll_state s = { .grace_period_id = rcb_start_poll() };

	return s;
}

RCB_API bool
urcu_memb_poll_state_synchronize_rcu(struct urcu_gp_poll_state state)
{
	return rcb_poll_state(state.grace_period_id) == 1;
}
