/* SPDX-License-Identifier: MIT */
/*
 * create_all_cpu_call_rcu_data() with flags it refuses returned 0 and
 * created no worker : each CPU's worker failed with
 * EINVAL, which the loop takes for an offline CPU, and skipped.  The
 * call now says so, returns -EINVAL with errno EINVAL, as liburcu 0.13
 * reports its own errors (a negative errno value, errno set too), and
 * creates nothing; valid flags still serve every CPU.
 */
#define _GNU_SOURCE
#include <rcuboost/urcu.h>

#include <errno.h>
#include <stdio.h>
#include <sys/sysinfo.h>

#include "tests/check.h"

/* CPUs that have a worker. */
static int served(void)
{
	int n = 0;

	for (int cpu = 0; cpu < get_nprocs_conf(); cpu++)
		n += get_cpu_call_rcu_data(cpu) != NULL;
	return n;
}

int main(void)
{
	/* Unknown, and liburcu's own stop bit (URCU_CALL_RCU_STOP). */
	static const unsigned long bad[] = { 1ul << 8, 1ul << 1 };

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret;

		errno = 0;
		ret = create_all_cpu_call_rcu_data(bad[i]);
		if (ret == 0) {
			fprintf(stderr,
				"FAIL: create_all_cpu_call_rcu_data(%#lx) returned 0; %d CPUs "
				"have a worker\n", bad[i], served());
			return 1;
		}
		CHECK_EQ(ret, -EINVAL);
		CHECK_EQ(errno, EINVAL);
		CHECK_EQ(served(), 0);
	}
	CHECK_EQ(create_all_cpu_call_rcu_data(0), 0);
	CHECK_EQ(served(), get_nprocs());
	free_all_cpu_call_rcu_data();
	CHECK_EQ(served(), 0);
	printf("ok\n");
	return 0;
}
