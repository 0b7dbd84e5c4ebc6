/* SPDX-License-Identifier: MIT */
/* The liburcu-compiled half of urcu_head_layout.c. */
#include <stddef.h>

size_t liburcu_head_size(void);
size_t liburcu_next_offset(void);
size_t liburcu_func_offset(void);
/* call_rcu through urcu_memb_flavor on @n heads of liburcu's layout, each
 * followed by a canary; after a barrier, returns how many callbacks saw
 * their canary changed or did not run. */
int liburcu_side_call_rcu(int n);
