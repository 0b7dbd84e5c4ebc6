/* SPDX-License-Identifier: MIT */
/*
 * Hooks of src/urcu_compat.c for rcuboost's fork handling: they run the
 * atfork hooks liburcu-cds registered through the flavor
 * (urcu_register_rculfhash_atfork).  prepare before rcuboost takes its
 * own locks; parent and child after it released or re-created them.
 * Nested calls (call_rcu_before_fork() then fork()) run the hooks once.
 */
#ifndef RCB_URCU_COMPAT_H
#define RCB_URCU_COMPAT_H

void rcb__urcu_atfork_prepare(void);
void rcb__urcu_atfork_parent(void);
void rcb__urcu_atfork_child(void);

#endif /* RCB_URCU_COMPAT_H */
