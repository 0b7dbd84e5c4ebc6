/* SPDX-License-Identifier: MIT */
/*
 * set_cpu_call_rcu_data() through the drop-in returned -1 with errno
 * set, where liburcu 0.13 returns the negative errno value (and sets
 * errno too): -EINVAL for a CPU out of range, -EEXIST for a CPU that
 * has a worker.  liburcu's own create_all_cpu_call_rcu_data() tests the
 * return for -EEXIST, and a program that sets up its per-CPU workers
 * the same way took a lost race for a failure.  Found beside issue 31,
 * finding 5.
 */
#define _GNU_SOURCE
#include <rcuboost/urcu.h>

#include <errno.h>
#include <stdio.h>

#include "tests/check.h"

int main(void)
{
	struct call_rcu_data *a = create_call_rcu_data(0, -1);
	struct call_rcu_data *b = create_call_rcu_data(0, -1);

	CHECK(a != NULL && b != NULL);
	errno = 0;
	CHECK_EQ(set_cpu_call_rcu_data(-1, a), -EINVAL);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(set_cpu_call_rcu_data(0, a), 0);
	errno = 0;
	CHECK_EQ(set_cpu_call_rcu_data(0, b), -EEXIST);
	CHECK_EQ(errno, EEXIST);
	CHECK(get_cpu_call_rcu_data(0) == a);
	CHECK_EQ(set_cpu_call_rcu_data(0, NULL), 0);
	call_rcu_data_free(a);
	call_rcu_data_free(b);
	printf("ok\n");
	return 0;
}
