/* Bug: an rcb_init() that failed (an allocation or a booster thread creation
 * failing) kept its configuration: a retry with another priority got -EBUSY,
 * one with the same configuration returned 0 with no booster running. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/fault_inject.h"

/* The booster runs, at @prio when we may use real-time priority. */
static void check_booster(int prio)
{
	struct rcb_boost_stats st = { .size = sizeof(st) };
	struct sched_param sp;
	pid_t tid;

	CHECK_EQ(rcb_booster_tids(&tid, 1), 1);
	CHECK_EQ(rcb_boost_stats(&st), 0);
	if (st.no_permission) {
		printf("no real-time permission: booster priority not checked\n");
		return;
	}
	CHECK(st.booster_running);
	CHECK_EQ(sched_getscheduler(tid), SCHED_RR);
	CHECK_EQ(sched_getparam(tid, &sp), 0);
	CHECK_EQ(sp.sched_priority, prio);
}

/* In a fresh process: make the @nth allocation (or thread creation, as
 * @mask says) of rcb_init() fail, then retry with @retry_prio. */
static void scenario(int mask, long nth, int retry_prio)
{
	struct rcb_config bad = { .boost = 1, .boost_prio = 45 };
	struct rcb_config retry = { .boost = 1, .boost_prio = retry_prio };
	const char *what;
	int threads = fi_threads(-1), err;

	fi_arm(nth, mask);
	err = rcb_init(&bad);
	CHECK(fi_disarm(&what));
	printf("%s failed: rcb_init() = %d\n", what, err);
	CHECK(err == -ENOMEM || err == -EAGAIN);
	CHECK_EQ(fi_threads(threads), threads);
	CHECK_EQ(rcb_booster_tids(NULL, 0), 0);
	/* Before the fix: -EBUSY for another priority, and 0 with no
	 * booster for the same one. */
	CHECK_EQ(rcb_init(&retry), 0);
	check_booster(retry_prio);
	CHECK_EQ(rcb_synchronize(), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	CHECK_EQ(fi_threads(threads), threads);
}

int main(void)
{
	static const struct {
		int mask;
		long nth;
		int prio;
	} runs[] = {
		/* the first allocation: the boost arrays */
		{ FI_ALLOC, 1, 40 },
		{ FI_ALLOC, 1, 45 },
		/* the booster thread */
		{ FI_THREAD, 1, 40 },
		{ FI_THREAD, 1, 45 },
	};

	int failed = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (unsigned i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		pid_t pid = fork();
		int st;

		CHECK(pid >= 0);
		if (pid == 0) {
			alarm(20);
			scenario(runs[i].mask, runs[i].nth, runs[i].prio);
			_exit(0);
		}
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "run %u (%s, retry at priority %d) failed\n",
				i, runs[i].mask == FI_ALLOC ? "allocation" : "thread",
				runs[i].prio);
			failed++;
		}
	}
	return failed ? 1 : 0;
}
