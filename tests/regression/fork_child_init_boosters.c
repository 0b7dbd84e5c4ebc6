/* Bug: rcb_init() in the child of a fork() returned 0 without starting the
 * boosters again (the child has none: only the forking thread survives), so the
 * child's preempted readers were never boosted. After rcb_init() in the child,
 * the child's own booster threads must exist. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define MAXB 64

/* Booster thread IDs, each checked to be a thread of this process. */
static int own_boosters(void)
{
	pid_t tids[MAXB];
	int n = rcb_booster_tids(tids, MAXB);

	for (int i = 0; i < n && i < MAXB; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tids[i]);
		CHECK(access(path, F_OK) == 0);
	}
	return n;
}

int main(void)
{
	int parent_n, st;
	pid_t pid;

#if defined(__SANITIZE_THREAD__)
	/* ThreadSanitizer cannot start threads in the child of a
	 * multi-threaded fork (tests/unit/test_fork.c). */
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	alarm(30);
	CHECK(rcb_init(NULL) == 0);
	parent_n = own_boosters();
	if (parent_n == 0) {
		fprintf(stderr, "skip: no booster runs (boosting compiled out, off, or no real-time permission)\n");
		return 77;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int n;

		alarm(10);
		/* The parent's boosters do not exist here. */
		CHECK_EQ(own_boosters(), 0);
		CHECK(rcb_init(NULL) == 0);
		n = own_boosters();
		if (n != parent_n) {
			fprintf(stderr, "FAIL: %d booster threads in the child after rcb_init(), %d in the parent\n",
				n, parent_n);
			_exit(1);
		}
		CHECK(rcb_shutdown() == 0);
		CHECK_EQ(own_boosters(), 0);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0)
		CHECK(errno == EINTR);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* The parent's boosters are untouched. */
	CHECK_EQ(own_boosters(), parent_n);
	CHECK(rcb_shutdown() == 0);
	printf("rcb_init() in the child started %d booster(s)\n", parent_n);
	return 0;
}
