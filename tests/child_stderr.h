/*
 * Run @child (which must end the process) in a forked child whose stderr
 * is captured into @text (NUL-terminated, at most @len - 1 bytes); wait
 * at most @timeout_ms for it, killing it after that.  Returns the wait
 * status; *@timed_out says whether it was killed.  For regression tests
 * that expect a process to stop (abort with a message) rather than hang.
 * Not under ThreadSanitizer (fork() tests skip there).
 */
#ifndef RCB_TEST_CHILD_STDERR_H
#define RCB_TEST_CHILD_STDERR_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"

static inline int rcbt_child_stderr(void (*child)(void), int timeout_ms,
				    char *text, size_t len, bool *timed_out)
{
	int fds[2], st = 0, waited_ms = 0;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	CHECK(pipe(fds) == 0);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 2);
		child();
		_exit(99); /* child() must not return */
	}
	close(fds[1]);
	while (waitpid(pid, &st, WNOHANG) == 0 && waited_ms < timeout_ms) {
		usleep(10000);
		waited_ms += 10;
	}
	*timed_out = waited_ms >= timeout_ms;
	if (*timed_out) {
		kill(pid, SIGKILL);
		CHECK(waitpid(pid, &st, 0) == pid);
	}
	while (got < len - 1 &&
	       (n = read(fds[0], text + got, len - 1 - got)) > 0)
		got += (size_t)n;
	text[got] = '\0';
	close(fds[0]);
	return st;
}

/*
 * rcbt_child_stderr() for a child that must stop the process within
 * @timeout_ms with SIGABRT (a fatal report), its stderr holding both
 * @want1 and @want2.  Prints the stderr and how the child ended; fails
 * the test otherwise.
 */
static inline void rcbt_child_aborts(void (*child)(void), int timeout_ms,
				     const char *want1, const char *want2)
{
	char text[4096];
	bool timed_out;
	int st = rcbt_child_stderr(child, timeout_ms, text, sizeof(text),
				   &timed_out);

	if (timed_out)
		printf("the child still waited after %d ms: killed\n", timeout_ms);
	CHECK(!timed_out);
	printf("child's stderr:\n%s", text);
	printf("child ended by %s %d\n", WIFSIGNALED(st) ? "signal" : "exit status",
	       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK(strstr(text, want1) != NULL);
	CHECK(strstr(text, want2) != NULL);
}

#endif /* RCB_TEST_CHILD_STDERR_H */
