/* RCUBOOST_CPUS / struct rcb_config.thread_cpus: every library thread
 * (boosters, pi helpers, the callback thread) runs only on the CPUs
 * named, read back with sched_getaffinity() on each thread's TID; a
 * malformed list is refused with -EINVAL. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/sysinfo.h>

#include "tests/boost/rt.h"
#include "tests/boost/libthreads.h"
#include "rcuboost.h"

static void noop(struct rcb_head *h)
{
	(void)h;
}

/* All library threads are on exactly @cpu; returns how many there are. */
static int check_on(int cpu)
{
	struct rcb_head h;
	pid_t tids[LT_MAX], btids[8];
	char names[LT_MAX][16];
	int n, nb, cb = 0, pi = 0;

	CHECK(rcb_call(&h, noop) == 0); /* starts the callback thread */
	CHECK(rcb_barrier() == 0);
	n = lt_list(tids, names, LT_MAX);
	nb = rcb_booster_tids(btids, 8);
	CHECK(nb >= 1);
	for (int i = 0; i < n; i++) {
		cpu_set_t set;

		CHECK(sched_getaffinity(tids[i], sizeof(set), &set) == 0);
		printf("%s (tid %d): %d CPU(s), CPU %d %s\n", names[i],
		       (int)tids[i], CPU_COUNT(&set), cpu,
		       CPU_ISSET(cpu, &set) ? "in" : "NOT in");
		CHECK(CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set));
		cb += strcmp(names[i], "rcuboost-cb") == 0;
		pi += strncmp(names[i], "rcuboost-pi", 11) == 0;
	}
	for (int j = 0; j < nb; j++) {
		int seen = 0;

		for (int i = 0; i < n; i++)
			seen |= tids[i] == btids[j];
		CHECK(seen);
	}
	CHECK(cb == 1);
	CHECK(pi >= 1);
	return n;
}

int main(void)
{
	struct rcb_config cfg = { .size = sizeof(cfg), .boost = 1,
				  .boost_backend = RCB_BACKEND_PI,
				  .thread_cpus = 1ull << 1 };

	rt_require();
	rt_watchdog(30);
	CHECK(sysconf(_SC_NPROCESSORS_ONLN) >= 2);
	CHECK(rcb_init(&cfg) == 0);
	check_on(1);
	CHECK(rcb_shutdown() == 0);

	/* The variable, when the field is 0. */
	cfg.thread_cpus = 0;
	setenv("RCUBOOST_CPUS", "0-0", 1);
	CHECK(rcb_init(&cfg) == 0);
	check_on(0);
	CHECK(rcb_shutdown() == 0);

	setenv("RCUBOOST_CPUS", "1-", 1);
	CHECK(rcb_init(&cfg) == -EINVAL);
	setenv("RCUBOOST_CPUS", "64", 1);
	CHECK(rcb_init(&cfg) == -EINVAL);
	/* A CPU this machine does not have: refused at once, naming it
	 * (the kernel's refusal at thread creation named nothing). */
	if (get_nprocs_conf() < 64) {
		char list[32];

		snprintf(list, sizeof(list), "0,%d", get_nprocs_conf());
		setenv("RCUBOOST_CPUS", list, 1);
		CHECK(rcb_init(&cfg) == -EINVAL);
		unsetenv("RCUBOOST_CPUS");
		cfg.thread_cpus = 1ull << get_nprocs_conf();
		CHECK(rcb_init(&cfg) == -EINVAL);
		CHECK(rcb_booster_tids(NULL, 0) == 0);
	}
	return 0;
}
