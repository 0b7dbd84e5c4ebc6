/* Bug : a callback thread whose start failed with
 * EINVAL (the CPUs of RCUBOOST_CPUS outside the process's cpuset) was
 * taken for a misuse rather than a start failure: liburcu's call_rcu()
 * over rcuboost dropped its callback silently (0 of 10 ran),
 * rcu_barrier() returned with a callback still queued, and
 * rcb_start_poll() returned a cookie nobody would make elapse, while the
 * start's message said that it ran the grace period itself.  Now every
 * start error counts as one: call_rcu() runs the callback after a grace
 * period in the caller, rcb_start_poll() waits for one, rcu_barrier()
 * stops the process with its message.
 *
 * Every pthread_create() of the library fails with EINVAL (fault
 * injection, tests/fault_inject.c), so the library's own fallbacks
 * cannot help either.  rcb_start_poll() is called while another thread
 * is inside a section (for at most 300 ms), so that it cannot run its
 * grace period at once (gp_poll.c invariant 6).  The rcu_barrier() part
 * needs fork() (a callback queued inside a section, whose start failed
 * at the unlock) and does not run under ThreadSanitizer. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "rcuboost/urcu.h"
#include "tests/check.h"
#include "tests/child_stderr.h"
#include "tests/fault_inject.h"

static atomic_int ran, reader_in, poll_done;
static struct rcu_head heads[10];

static void cb(struct rcu_head *h)
{
	(void)h;
	atomic_fetch_add(&ran, 1);
}

/* Inside a section until the poll returned, or 300 ms. */
static void *reader(void *arg)
{
	(void)arg;
	rcb_read_lock();
	atomic_store(&reader_in, 1);
	for (int i = 0; i < 300 && !atomic_load(&poll_done); i++) {
		struct timespec ts = { 0, 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	rcb_read_unlock();
	CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

#if !defined(__SANITIZE_THREAD__)
static void barrier_child(void)
{
	alarm(20);
	rcu_read_lock();
	call_rcu(&heads[0], cb);
	fi_arm_sticky(FI_THREAD);
	fi_thread_error(EINVAL);
	rcu_read_unlock();
	rcu_barrier();
	(void)fi_disarm(NULL);
	printf("child: rcu_barrier() returned, callback ran %d\n", atomic_load(&ran));
	fflush(stdout);
	_exit(4);
}
#endif

int main(void)
{
	pthread_t r;
	uint64_t cookie;
	int elapsed;

	alarm(60);
	CHECK_EQ(rcb_init(NULL), 0);
	fi_arm_sticky(FI_THREAD);
	fi_thread_error(EINVAL);
	for (int i = 0; i < 10; i++)
		call_rcu(&heads[i], cb);
	printf("call_rcu() with no callback thread: %d of 10 ran\n", atomic_load(&ran));
	CHECK_EQ(atomic_load(&ran), 10);

	/* Created by the test, not the library: not injected. */
	CHECK_EQ(pthread_create(&r, NULL, reader, NULL), 0);
	while (!atomic_load(&reader_in))
		usleep(1000);
	cookie = rcb_start_poll();
	elapsed = rcb_poll_state(cookie);
	atomic_store(&poll_done, 1);
	CHECK_EQ(pthread_join(r, NULL), 0);
	CHECK(fi_disarm(NULL));
	printf("rcb_start_poll() with no callback thread: cookie %s on return\n",
	       elapsed == 1 ? "elapsed" : "NOT elapsed");
	CHECK_EQ(elapsed, 1);
	CHECK_EQ(rcb_barrier(), 0);

#if !defined(__SANITIZE_THREAD__)
	{
		char text[4096];
		bool timed_out;
		int st;

		st = rcbt_child_stderr(barrier_child, 20000, text, sizeof(text),
				       &timed_out);
		CHECK(!timed_out);
		printf("child's stderr:\n%s", text);
		printf("child ended by %s %d\n", WIFSIGNALED(st) ? "signal" : "exit status",
		       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
		CHECK(strstr(text, "rcuboost: fatal: rcu_barrier: a callback thread cannot start") != NULL);
	}
#else
	printf("rcu_barrier() part skipped: fork() under ThreadSanitizer\n");
#endif
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
