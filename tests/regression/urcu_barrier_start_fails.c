/* A hostile-user probe (2026-12-06): liburcu's rcu_barrier() over
 * rcuboost returned, with a callback still queued, when the callback
 * thread could not start (RLIMIT_NPROC): rcb_barrier()'s -EAGAIN was
 * dropped by the void drop-in, and the caller may free what the
 * callback uses.  Now the drop-in stops the process with a message, as
 * liburcu does when it cannot start a thread.
 *
 * A forked child (no worker has a thread after fork()) queues a callback
 * inside a section, whose start at the unlock fails, then calls
 * rcu_barrier() with every start failing (fault injection,
 * tests/fault_inject.c).  The parent expects SIGABRT and the message,
 * within 20 s. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost/urcu.h"
#include "tests/check.h"
#include "tests/child_stderr.h"
#include "tests/fault_inject.h"

static atomic_int ran;
static struct rcu_head head;

static void cb(struct rcu_head *h)
{
	(void)h;
	atomic_fetch_add(&ran, 1);
}

/* @transient: only the barrier's first start fails (a thread slot freed
 * a moment later): it must complete, the callback run. */
static void child(bool transient)
{
	rcu_read_lock();
	call_rcu(&head, cb);
	fi_arm(1, FI_THREAD);
	rcu_read_unlock();
	(void)fi_disarm(NULL);
	if (transient)
		fi_arm(1, FI_THREAD);
	else
		/* for good: rcu_barrier() tries for 1 s */
		fi_arm_sticky(FI_THREAD);
	rcu_barrier();
	(void)fi_disarm(NULL);
	printf("child: rcu_barrier() returned, callback ran %d\n", atomic_load(&ran));
	fflush(stdout);
	_exit(transient && atomic_load(&ran) == 1 ? 0 : 4);
}

static void transient_round(void)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		child(true);
	CHECK(waitpid(pid, &st, 0) == pid);
	printf("one failed start, then a free slot: the child %s\n",
	       WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "completed its barrier" : "failed");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void sticky_child(void)
{
	child(false);
}

int main(void)
{
	char text[4096];
	bool timed_out;
	int st;

#if defined(__SANITIZE_THREAD__)
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	rcu_register_thread();
	synchronize_rcu();
	rcu_unregister_thread();
	st = rcbt_child_stderr(sticky_child, 20000, text, sizeof(text),
			       &timed_out);
	CHECK(!timed_out);
	printf("child's stderr:\n%s", text);
	printf("child ended by %s %d\n", WIFSIGNALED(st) ? "signal" : "exit status",
	       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK(strstr(text, "rcuboost: fatal: rcu_barrier: a callback thread cannot start") != NULL);
	transient_round();
	return 0;
}
