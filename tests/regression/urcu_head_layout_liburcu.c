/* SPDX-License-Identifier: MIT */
/*
 * Compiled against liburcu's own <urcu/call-rcu.h> and <urcu/flavor.h>
 * (not rcuboost's headers), as liburcu-cds is, and linked to rcuboost.
 */
#include <stdlib.h>

#include <urcu/call-rcu.h>
#include <urcu/flavor.h>

#include "urcu_head_layout.h"

/* What liburcu's map calls rcu_flavor; librcuboost defines it. */
extern const struct rcu_flavor_struct urcu_memb_flavor;

#define CANARY 0x3c3cc3c3a5a55a5aUL

struct lobj {
	struct rcu_head head;
	unsigned long canary;
};

static int lbad, linvoked;

size_t liburcu_head_size(void)
{
	return sizeof(struct rcu_head);
}

size_t liburcu_next_offset(void)
{
	return offsetof(struct rcu_head, next);
}

size_t liburcu_func_offset(void)
{
	return offsetof(struct rcu_head, func);
}

static void lfree(struct rcu_head *h)
{
	struct lobj *o = (struct lobj *)h;

	if (o->canary != CANARY)
		__atomic_fetch_add(&lbad, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&linvoked, 1, __ATOMIC_RELAXED);
	free(o);
}

int liburcu_side_call_rcu(int n)
{
	struct lobj *o;
	int i;

	for (i = 0; i < n; i++) {
		o = malloc(sizeof(*o));
		if (!o)
			return -1;
		o->canary = CANARY;
		urcu_memb_flavor.update_call_rcu(&o->head, lfree);
	}
	urcu_memb_flavor.barrier();
	return __atomic_load_n(&lbad, __ATOMIC_RELAXED) +
	       (n - __atomic_load_n(&linvoked, __ATOMIC_RELAXED));
}
