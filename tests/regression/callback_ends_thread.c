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
#include "tests/child_stderr.h"

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
	char want[64];

#if defined(__SANITIZE_THREAD__)
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	snprintf(want, sizeof(want), "callback %p (", (void *)(uintptr_t)exiting_cb);
	rcbt_child_aborts(child, 20000, want, ") ended the callback thread");
	return 0;
}
