/* Bug: fork() from a thread that never registered, after rcb_init() with
 * boosting compiled in, crashed the child (the fork handler reset the boost
 * state of a reader record the thread did not have). */
#define _GNU_SOURCE
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

int main(void)
{
	int st;
	pid_t pid;

	CHECK(rcb_init(NULL) == 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		alarm(10);
		/* The child works: it registers and waits for a grace period.
		 */
		rcb_read_lock();
		rcb_read_unlock();
		_exit(rcb_synchronize() == 0 ? 0 : 2);
	}
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(rcb_shutdown() == 0);
	return 0;
}
