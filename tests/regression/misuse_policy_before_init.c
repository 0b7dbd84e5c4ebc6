/* Bug: a misuse before the library is initialised ignored RCUBOOST_MISUSE=abort
 * (the policy was read only by rcb_init). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static void misuse(int which)
{
	if (which == 0)
		rcb_read_unlock();
	else
		rcb_call(NULL, NULL);
}

int main(void)
{
	for (int which = 0; which < 2; which++) {
		struct rlimit rl = { 0, 0 };
		int st;
		pid_t pid = fork();

		CHECK(pid >= 0);
		if (pid == 0) {
			setrlimit(RLIMIT_CORE, &rl);
			alarm(10);
			setenv("RCUBOOST_MISUSE", "abort", 1);
			misuse(which);
			fprintf(stderr, "misuse %d before initialisation did not abort\n",
				which);
			_exit(0);
		}
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		CHECK(WIFSIGNALED(st));
		CHECK_EQ(WTERMSIG(st), SIGABRT);
	}
	return 0;
}
