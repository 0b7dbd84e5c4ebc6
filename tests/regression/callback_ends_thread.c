/* A hostile-user probe (2026-12-06): a callback that called
 * pthread_exit() ended the callback thread; the worker kept its queue
 * with no thread to run it, and the next rcb_barrier() waited forever
 * with nothing said.  Now the process stops at once, naming the
 * callback.
 *
 * A child process queues that callback and then waits in rcb_barrier();
 * the parent gives it 20 s, and expects SIGABRT and the message (the
 * callback's address) on the child's stderr.  Public API only. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static void exiting_cb(struct rcb_head *h)
{
	(void)h;
	pthread_exit(NULL);
}

static void child(void)
{
	static struct rcb_head h;

	if (rcb_call(&h, exiting_cb) != 0)
		_exit(3);
	(void)rcb_barrier();
	printf("child: rcb_barrier() returned\n");
	fflush(stdout);
	_exit(4);
}

int main(void)
{
	char text[4096], want[64];
	int fds[2], st = 0, waited_ms = 0;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

#if defined(__SANITIZE_THREAD__)
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	snprintf(want, sizeof(want), "callback %p (", (void *)(uintptr_t)exiting_cb);
	CHECK(pipe(fds) == 0);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 2);
		child();
	}
	close(fds[1]);
	while (waitpid(pid, &st, WNOHANG) == 0 && waited_ms < 20000) {
		usleep(10000);
		waited_ms += 10;
	}
	if (waited_ms >= 20000) {
		printf("the child still waits after 20 s: killed\n");
		kill(pid, SIGKILL);
		CHECK(waitpid(pid, &st, 0) == pid);
		CHECK(0);
	}
	while (len < sizeof(text) - 1 &&
	       (n = read(fds[0], text + len, sizeof(text) - 1 - len)) > 0)
		len += (size_t)n;
	text[len] = '\0';
	printf("child's stderr:\n%s", text);
	printf("child ended by %s %d after about %d ms\n",
	       WIFSIGNALED(st) ? "signal" : "exit status",
	       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), waited_ms);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK(strstr(text, want) != NULL);
	CHECK(strstr(text, ") ended the callback thread") != NULL);
	return 0;
}
