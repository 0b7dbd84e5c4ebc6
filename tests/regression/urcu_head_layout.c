/* SPDX-License-Identifier: MIT */
/*
 * Issue 10: struct rcu_head of <rcuboost/urcu.h> was struct rcb_head,
 * 24 bytes, where liburcu's is 16 (next, func); code compiled against
 * liburcu (liburcu-cds, rculfqueue's dummy nodes) hands call_rcu a
 * 16-byte head followed by its own fields, which the third word
 * overwrote.  Checks: the layout equals liburcu's (numbers from a TU
 * compiled with liburcu's <urcu/call-rcu.h>), and call_rcu(), from this
 * TU and from the liburcu-compiled one through the flavor struct, never
 * changes the word right after the head.
 */
#include <stdio.h>
#include <stdlib.h>

#include <rcuboost/urcu.h>

#include "urcu_head_layout.h"

#include "tests/check.h"

#define CANARY 0x5a5aa5a5c3c33c3cUL
#define N 2000

struct obj {
	struct rcu_head head;
	unsigned long canary;
};

static int invoked, bad;

static void check_free(struct rcu_head *h)
{
	struct obj *o = caa_container_of(h, struct obj, head);

	if (o->canary != CANARY)
		__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&invoked, 1, __ATOMIC_RELAXED);
	free(o);
}

int main(void)
{
	struct obj *o;
	int i;

	CHECK(sizeof(struct rcu_head) == liburcu_head_size());
	CHECK(offsetof(struct rcu_head, next) == liburcu_next_offset());
	CHECK(offsetof(struct rcu_head, func) == liburcu_func_offset());

	rcu_register_thread();
	for (i = 0; i < N; i++) {
		o = malloc(sizeof(*o));
		CHECK(o);
		o->canary = CANARY;
		/* The section keeps the callback (and the free) after the
		 * check: the head belongs to the library, the canary not. */
		rcu_read_lock();
		call_rcu(&o->head, check_free);
		CHECK(o->canary == CANARY);
		rcu_read_unlock();
	}
	rcu_barrier();
	CHECK(__atomic_load_n(&invoked, __ATOMIC_RELAXED) == N);
	CHECK(__atomic_load_n(&bad, __ATOMIC_RELAXED) == 0);

	/* The same from code compiled against liburcu's struct rcu_head. */
	CHECK(liburcu_side_call_rcu(N) == 0);
	rcu_unregister_thread();
	printf("ok\n");
	return 0;
}
