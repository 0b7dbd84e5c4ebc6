/* SPDX-License-Identifier: MIT */
/*
 * The urcu.h peer reaches rcuboost, not liburcu, in a program linked
 * like rcuboost-bench (liburcu-memb first, then librcuboost; both export
 * urcu_memb_*).  Before the fix its registration and grace periods went
 * to liburcu: rcuboost's registry never saw its threads.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "peer.h"
#include "rcuboost.h"
#include "tool.h"

static unsigned long long registered(void)
{
	struct rcb_gp_stats st;

	rcb_stats(&st);
	return (unsigned long long)st.registered_threads;
}

int main(void)
{
	const struct tool_peer *f = &tool_peer_rcuboost_urcu;
	const struct tool_peer *memb = &tool_peer_urcu_memb;
	unsigned long long before, during;

	tool_prog = "test_peer_urcu_binds";
	if (peer_rcb_urcu_resolve() != 0)
		return 1;
	before = registered();
	f->thread_register();
	during = registered();
	f->synchronize();
	f->thread_unregister();
	/* The real liburcu side, in the same process (as in the bench):
	 * its registration must not reach rcuboost either. */
	memb->thread_register();
	memb->synchronize();
	if (registered() != before) {
		fprintf(stderr, "FAIL: liburcu-memb's rcu_register_thread() registered with rcuboost\n");
		return 1;
	}
	memb->thread_unregister();
	if (during != before + 1 || registered() != before) {
		fprintf(stderr, "FAIL: rcu_register_thread() through the urcu.h peer: rcuboost's registered threads %llu -> %llu -> %llu (it went to liburcu)\n",
			before, during, registered());
		return 1;
	}
	printf("the urcu.h peer registers with rcuboost (%llu -> %llu)\n", before, during);
	return 0;
}
