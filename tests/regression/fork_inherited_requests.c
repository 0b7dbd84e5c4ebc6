/* Bug: a poll request (rcb_start_poll()) or a defer queue's drain (rcb_defer())
 * that was queued to the callback thread when the process forked stayed queued
 * in the child, whose workers have no thread until their next rcb_call(); the
 * child's rcb_start_poll() and rcb_defer() saw their request queued already and
 * did nothing, so the child's cookie never elapsed and its deferred functions
 * never ran (until a barrier). The child's own poll and defer must complete by
 * themselves. A second child calls rcb_start_poll() inside a section of its own
 * while rcb_worker_destroy() holds the worker lock for 2.5 s (checked: a probe
 * thread waits for it): it must not take that lock there (it used to start the
 * inherited workers at once, and waited for the join), and its cookie must
 * still elapse after the unlock. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/regression/busy_worker.h"

static atomic_int inside, leave, ran_parent, ran_child;
static struct busy_worker busy;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Holds every grace period until told to leave (or after @arg ms). */
static void *reader(void *arg)
{
	long ms = (long)(intptr_t)arg;

	CHECK_EQ(rcb_register_thread(), 0);
	rcb_read_lock();
	atomic_store(&inside, 1);
	for (long i = 0; !atomic_load(&leave) && (ms == 0 || i < ms); i++)
		usleep(1000);
	rcb_read_unlock();
	CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

static void deferred(void *p)
{
	atomic_fetch_add((atomic_int *)p, 1);
}

static void start_reader(pthread_t *t, long ms)
{
	atomic_store(&inside, 0);
	CHECK_EQ(pthread_create(t, NULL, reader, (void *)(intptr_t)ms), 0);
	while (!atomic_load(&inside))
		usleep(100);
}

static int child(void)
{
	pthread_t t;
	uint64_t cookie;
	double t0;

	alarm(20);
	start_reader(&t, 50); /* leaves by itself after 50 ms */
	cookie = rcb_start_poll();
	CHECK_EQ(rcb_defer(deferred, &ran_child), 0);
	t0 = now_s();
	while (!(rcb_poll_state(cookie) == 1 && atomic_load(&ran_child) == 1) &&
	       now_s() - t0 < 5)
		usleep(1000);
	printf("child: cookie elapsed %d, deferred function ran %d time(s), after %.0f ms\n",
	       rcb_poll_state(cookie), atomic_load(&ran_child),
	       (now_s() - t0) * 1e3);
	fflush(stdout);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(rcb_poll_state(cookie), 1);
	CHECK_EQ(atomic_load(&ran_child), 1);
	return 0;
}

static void *destroyer(void *arg)
{
	(void)arg;
	CHECK_EQ(rcb_worker_destroy(busy.w), 0); /* holds the lock 2.5 s */
	return NULL;
}

static int child_poll_in_section(void)
{
	struct busy_probe probe;
	pthread_t d;
	uint64_t cookie;
	int done_at_return;
	double t0;

	alarm(20);
	busy_worker_start(&busy, 2500000);
	CHECK_EQ(pthread_create(&d, NULL, destroyer, NULL), 0);
	if (!busy_worker_lock_held(&probe)) {
		printf("child: skip: the destroyer did not hold the worker lock within 1 s\n");
		fflush(stdout);
		CHECK_EQ(pthread_join(d, NULL), 0);
		return 0;
	}
	CHECK_EQ(rcb_register_thread(), 0);
	rcb_read_lock();
	cookie = rcb_start_poll();
	done_at_return = atomic_load(&busy.done);
	rcb_read_unlock(); /* starts the inherited workers */
	t0 = now_s();
	while (rcb_poll_state(cookie) != 1 && now_s() - t0 < 5)
		usleep(1000);
	printf("child: rcb_start_poll() in a section returned %s the stopper's join ended; cookie elapsed %d\n",
	       done_at_return ? "after" : "before", rcb_poll_state(cookie));
	fflush(stdout);
	CHECK_EQ(pthread_join(d, NULL), 0);
	busy_worker_probe_join(&probe);
	CHECK_EQ(done_at_return, 0);
	CHECK_EQ(rcb_poll_state(cookie), 1);
	return 0;
}

static void fork_child(int (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(fn());
	while (waitpid(pid, &st, 0) < 0)
		CHECK(errno == EINTR);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(void)
{
	pthread_t t;
	uint64_t cookie;

#if defined(__SANITIZE_THREAD__)
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	alarm(60);
	CHECK_EQ(rcb_init(NULL), 0);
	start_reader(&t, 0);
	/* Both requests are queued to the callback thread, which waits for
	 * the reader's section. */
	cookie = rcb_start_poll();
	CHECK_EQ(rcb_defer(deferred, &ran_parent), 0);
	usleep(20000);
	CHECK_EQ(rcb_poll_state(cookie), 0);
	fork_child(child);
	fork_child(child_poll_in_section);
	atomic_store(&leave, 1);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(rcb_cond_synchronize(cookie), 0);
	CHECK_EQ(rcb_defer_barrier(), 0);
	CHECK_EQ(atomic_load(&ran_parent), 1);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
