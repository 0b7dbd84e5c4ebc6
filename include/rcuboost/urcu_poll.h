/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/urcu_poll.h - liburcu 0.14's polled grace periods, urcu-memb
 * names, on top of rcb_start_poll() and rcb_poll_state()
 * (include/rcuboost.h).  This fragment defines liburcu's cookie struct
 * and declares only the urcu_memb_* names; <rcuboost/urcu.h> maps the
 * plain ones (start_poll_synchronize_rcu, poll_state_synchronize_rcu).
 *
 * grace_period_id holds an rcb_start_poll() cookie: 64 bits on LP64
 * Linux, never wrapping.  A cookie from the future reads as not elapsed
 * (liburcu has no error to report).
 */
#ifndef RCUBOOST_URCU_POLL_H
#define RCUBOOST_URCU_POLL_H

#include <stdbool.h>

#include <rcuboost.h>

#ifdef __cplusplus
extern "C" {
#endif

/* liburcu 0.14 <urcu/urcu-poll.h>. */
#ifndef _URCU_POLL_H
#define _URCU_POLL_H
struct urcu_gp_poll_state {
	unsigned long grace_period_id;
};
#endif

/* rcb_start_poll(): a cookie, a grace period started if needed; never
 * waits for a reader: the caller runs the grace period itself only when
 * that needs no wait (no other thread inside a section), else it is
 * left to the callback thread (rcb_start_poll() in <rcuboost.h> says
 * when, and the one case where it blocks). */
RCB_API struct urcu_gp_poll_state urcu_memb_start_poll_synchronize_rcu(void);
/* rcb_poll_state(@state.grace_period_id) == 1. */
RCB_API bool
urcu_memb_poll_state_synchronize_rcu(struct urcu_gp_poll_state state);

#ifdef __cplusplus
}
#endif

#endif /* RCUBOOST_URCU_POLL_H */
