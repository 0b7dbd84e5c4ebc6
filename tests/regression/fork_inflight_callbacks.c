/* Bug: callbacks the callback thread had already taken from the queue when the
 * process forked (waiting for their grace period, or behind a callback being
 * invoked) never ran in the child, and the child's rcb_backlog() counted them
 * forever. The child must run all NCB of them, count exactly those, and not run
 * again the callback that was being invoked at the fork. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define NCB 100
#define BYTES 64

static atomic_int counter, dummy_calls, blocker_calls, blocker_go;
static atomic_int hold_in[2], hold_go[2];
static struct rcb_head_sized heads[NCB], blocker;
static struct rcb_head dummy;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void wait_flag(atomic_int *f)
{
	double end = now_s() + 10;

	while (!atomic_load(f)) {
		CHECK(now_s() < end);
		usleep(10);
	}
}

static void count_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&counter, 1);
}

static void dummy_cb(struct rcb_head *h)
{
	(void)h;
	atomic_store(&dummy_calls, 1);
}

static void blocker_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&blocker_calls, 1);
	wait_flag(&blocker_go);
}

static void *holder(void *arg)
{
	int i = (int)(long)arg;

	rcb_read_lock();
	atomic_store(&hold_in[i], 1);
	wait_flag(&hold_go[i]);
	rcb_read_unlock();
	return NULL;
}

/* Wait until the callback thread sleeps in a grace period that a reader
 * holds up: it has taken its batch from the queue. */
static void wait_gp_sleep(void)
{
	struct rcb_gp_stats s;
	unsigned long long w;
	double end = now_s() + 10;

	rcb_stats(&s);
	w = s.futex_waits;
	do {
		CHECK(now_s() < end);
		usleep(10);
		rcb_stats(&s);
	} while (s.futex_waits == w);
}

static void check_backlog(unsigned long long n)
{
	struct rcb_backlog b;

	rcb_backlog(&b);
	CHECK_EQ(b.callbacks, n);
	CHECK_EQ(b.bytes, n * BYTES);
}

/*
 * @invoking 0: fork while the batch of NCB waits for its grace period (a
 * reader holds it).  1: fork while the callback thread is inside the
 * first callback of a batch, with NCB more behind it in the same batch.
 */
static void run(int invoking)
{
	struct rcb_config cfg = { .boost = -1 };
	pthread_t h[2];
	pid_t pid;
	int st;

	atomic_store(&counter, 0);
	atomic_store(&dummy_calls, 0);
	atomic_store(&blocker_calls, 0);
	atomic_store(&blocker_go, 0);
	for (int i = 0; i < 2; i++)
		atomic_store(&hold_in[i], 0), atomic_store(&hold_go[i], 0);
	CHECK(rcb_init(&cfg) == 0);
	/* The callback thread takes the dummy alone and waits for a grace
	 * period that reader 0 holds up; meanwhile the batch is queued. */
	CHECK(pthread_create(&h[0], NULL, holder, (void *)0L) == 0);
	wait_flag(&hold_in[0]);
	CHECK(rcb_call(&dummy, dummy_cb) == 0);
	wait_gp_sleep();
	if (invoking)
		CHECK(rcb_call_sized(&blocker, blocker_cb, BYTES) == 0);
	for (int i = 0; i < NCB; i++)
		CHECK(rcb_call_sized(&heads[i], count_cb, BYTES) == 0);
	if (!invoking) {
		/* Reader 1 starts after the dummy's grace period and holds
		 * up the next one, the batch's. */
		CHECK(pthread_create(&h[1], NULL, holder, (void *)1L) == 0);
		wait_flag(&hold_in[1]);
	}
	atomic_store(&hold_go[0], 1);
	wait_flag(&dummy_calls);
	if (invoking) {
		wait_flag(&blocker_calls);
	} else {
		/* The thread took the batch and sleeps in its grace period. */
		wait_gp_sleep();
	}
	CHECK_EQ(atomic_load(&counter), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		alarm(10);
		/* Exactly the child's own callbacks: the NCB it will run. */
		check_backlog(NCB);
		CHECK(rcb_barrier() == 0);
		if (atomic_load(&counter) != NCB) {
			fprintf(stderr, "FAIL: %d of %d in-flight callbacks ran in the child\n",
				atomic_load(&counter), NCB);
			_exit(1);
		}
		check_backlog(0);
		/* The callback being invoked at the fork is not run again. */
		CHECK_EQ(atomic_load(&blocker_calls), invoking);
		CHECK(rcb_shutdown() == 0);
		CHECK_EQ(atomic_load(&counter), NCB);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0)
		CHECK(errno == EINTR);
	if (WIFSIGNALED(st))
		fprintf(stderr, "FAIL: child killed by signal %d (%s)\n",
			WTERMSIG(st), strsignal(WTERMSIG(st)));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* The parent is unaffected. */
	if (!invoking)
		atomic_store(&hold_go[1], 1);
	atomic_store(&blocker_go, 1);
	CHECK(rcb_barrier() == 0);
	CHECK_EQ(atomic_load(&counter), NCB);
	CHECK_EQ(atomic_load(&blocker_calls), invoking);
	check_backlog(0);
	CHECK(rcb_shutdown() == 0);
	CHECK(pthread_join(h[0], NULL) == 0);
	if (!invoking)
		CHECK(pthread_join(h[1], NULL) == 0);
}

int main(void)
{
#if defined(__SANITIZE_THREAD__)
	/* ThreadSanitizer cannot start threads in the child of a
	 * multi-threaded fork (tests/unit/test_fork.c). */
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	alarm(60);
	run(0);
	printf("batch waiting for its grace period: %d of %d ran in the child\n", NCB, NCB);
	run(1);
	printf("batch behind a callback being invoked: %d of %d ran in the child\n", NCB, NCB);
	return 0;
}
