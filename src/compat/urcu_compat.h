/* SPDX-License-Identifier: MIT */
/*
 * Hooks of urcu_compat.c for rcuboost's fork handling (rcb__compat_hooks,
 * core/hooks.h): they run the atfork hooks liburcu-cds registered
 * through the flavor (urcu_register_rculfhash_atfork).  prepare before
 * rcuboost takes its own locks; parent and child after it released or
 * re-created them.
 * Nested calls (call_rcu_before_fork() then fork()) run the hooks once.
 */
#ifndef RCB_URCU_COMPAT_H
#define RCB_URCU_COMPAT_H

void rcb__urcu_atfork_prepare(void);
void rcb__urcu_atfork_parent(void);
void rcb__urcu_atfork_child(void);

/* Run @stmt with misuse reports naming liburcu's @name
 * (rcb__misuse_as, core/internal.h). */
#define RCB__AS_LIBURCU(name, stmt)                        \
	do {                                               \
		const char *rcb__as_prev = rcb__misuse_as; \
		rcb__misuse_as = (name);                   \
		stmt;                                      \
		rcb__misuse_as = rcb__as_prev;             \
	} while (0)

#endif /* RCB_URCU_COMPAT_H */
