/* After fork() the child's library works with one thread, ignores the parent's
 * readers, runs its copies of pending callbacks once; the parent is unaffected.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/unit/harness.h"

#define NCB 100

static atomic_int counter;

static void count_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&counter, 1);
}

static void wait_child(pid_t pid)
{
	int st;

	CHECK(pid > 0);
	while (waitpid(pid, &st, 0) < 0)
		CHECK(errno == EINTR);
	if (WIFSIGNALED(st))
		fprintf(stderr, "child killed by signal %d (%s)%s\n",
			WTERMSIG(st), strsignal(WTERMSIG(st)),
			WTERMSIG(st) == SIGALRM ? ": it hung" : "");
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
}

static pid_t fork_child(void)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		alarm(10);
	return pid;
}

/* Read side, grace periods and callbacks in a process. */
static void exercise(int expect_counter)
{
	struct rcbt_syncer s;
	struct rcb_head h;

	rcb_read_lock();
	rcb_read_lock();
	rcb_read_unlock();
	rcb_read_unlock();
	CHECK(!rcb_read_ongoing());
	CHECK_EQ(rcb_synchronize(), 0);
	rcb_read_lock();
	rcbt_syncer_start_blocked(&s);
	rcb_read_unlock();
	rcbt_syncer_finish(&s);
	CHECK_EQ(rcb_call(&h, count_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&counter), expect_counter);
}

static void t_basic(const struct rcbt_case *c)
{
	pid_t pid;

	if (c->num == 0) {
		CHECK_EQ(rcb_init(NULL), 0);
		CHECK_EQ(rcb_register_thread(), 0);
		exercise(1);
		/* the callback thread stays unregistered */
		CHECK(rcbt_registered() >= 1);
	}
	pid = fork_child();
	if (pid == 0) {
		int base = c->num == 0;

		CHECK_EQ(rcbt_task_count(), 1);
		CHECK_EQ(rcbt_registered(), base);
		exercise(base + 1);
		/* A grandchild, forked from a child that used the library. */
		pid = fork_child();
		if (pid == 0) {
			exercise(base + 2);
			CHECK_EQ(rcb_shutdown(), 0);
			_exit(0);
		}
		wait_child(pid);
		exercise(base + 2);
		CHECK_EQ(rcb_shutdown(), 0);
		CHECK_EQ(rcb_shutdown(), -EALREADY);
		CHECK_EQ(rcbt_task_count_settle(1), 1);
		_exit(0);
	}
	wait_child(pid);
	exercise(c->num == 0 ? 2 : 1);
	CHECK_EQ(rcb_shutdown(), 0);
}

static atomic_int hold_in, hold_go;

static void *holder(void *arg)
{
	(void)arg;
	rcb_read_lock();
	rcb_read_lock();
	atomic_store(&hold_in, 1);
	rcbt_wait_flag(&hold_go);
	rcb_read_unlock();
	rcb_read_unlock();
	return NULL;
}

static void *forker(void *arg)
{
	pid_t pid;

	CHECK_EQ(rcb_register_thread(), 0);
	if (arg)
		rcb_read_lock();
	pid = fork_child();
	if (pid == 0) {
		CHECK_EQ(rcbt_registered(), 1);
		if (arg) {
			CHECK(rcb_read_ongoing());
			rcb_read_unlock();
		}
		exercise(1);
		CHECK_EQ(rcb_shutdown(), 0);
		_exit(0);
	}
	if (arg)
		rcb_read_unlock();
	wait_child(pid);
	return NULL;
}

/* Fork from a thread while another thread sits in a critical section. */
static void t_reader_elsewhere(const struct rcbt_case *c)
{
	struct rcbt_syncer s;
	pthread_t h, f;

	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(pthread_create(&h, NULL, holder, NULL), 0);
	rcbt_wait_flag(&hold_in);
	CHECK_EQ(pthread_create(&f, NULL, forker, c->num ? &f : NULL), 0);
	CHECK_EQ(pthread_join(f, NULL), 0);
	rcbt_syncer_start_blocked(&s);
	atomic_store(&hold_go, 1);
	rcbt_syncer_finish(&s);
	CHECK_EQ(pthread_join(h, NULL), 0);
	exercise(1);
	CHECK_EQ(rcb_shutdown(), 0);
}

static atomic_int blocker_calls, blocker_go;
static struct rcb_head blocker_head, heads[NCB], extra;

static void blocker_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&blocker_calls, 1);
	rcbt_wait_flag(&blocker_go);
}

/*
 * Fork while the callback thread is busy in a callback, NCB callbacks
 * wait behind it and another thread is in a critical section.  The child
 * invokes its NCB copies exactly once (on barrier, shutdown or call), never
 * the one that was running, and its grace periods ignore the reader.
 */
static void t_pending(const struct rcbt_case *c)
{
	struct rcbt_syncer s;
	pthread_t h;
	pid_t pid;

	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_call(&blocker_head, blocker_cb), 0);
	rcbt_wait_flag(&blocker_calls);
	CHECK_EQ(pthread_create(&h, NULL, holder, NULL), 0);
	rcbt_wait_flag(&hold_in);
	for (int i = 0; i < NCB; i++)
		CHECK_EQ(rcb_call(&heads[i], count_cb), 0);
	pid = fork_child();
	if (pid == 0) {
		CHECK_EQ(atomic_load(&counter), 0);
		CHECK_EQ(rcb_synchronize(), 0);
		switch (c->num) {
		case 0:
			CHECK_EQ(rcb_barrier(), 0);
			break;
		case 1:
			CHECK_EQ(rcb_shutdown(), 0);
			break;
		case 2:
			CHECK_EQ(rcb_call(&extra, count_cb), 0);
			CHECK_EQ(rcb_barrier(), 0);
			break;
		}
		CHECK_EQ(atomic_load(&counter), NCB + (c->num == 2));
		CHECK_EQ(atomic_load(&blocker_calls), 1);
		CHECK_EQ(rcb_barrier(), 0);
		rcb_shutdown();
		CHECK_EQ(atomic_load(&counter), NCB + (c->num == 2));
		_exit(0);
	}
	wait_child(pid);
	CHECK_EQ(atomic_load(&counter), 0);
	rcbt_syncer_start_blocked(&s);
	atomic_store(&hold_go, 1);
	rcbt_syncer_finish(&s);
	CHECK_EQ(pthread_join(h, NULL), 0);
	atomic_store(&blocker_go, 1);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&counter), NCB);
	CHECK_EQ(atomic_load(&blocker_calls), 1);
	CHECK_EQ(rcb_shutdown(), 0);
}

static const struct rcbt_case cases[] = {
	{ "child_works", t_basic, 0, { 0 }, { 0 }, { "rcuboost" }, NULL, 0 },
	{ "child_works_fork_before_init", t_basic, 0, { 0 }, { 0 },
	  { "rcuboost" }, NULL, 1 },
	{ "reader_in_other_thread", t_reader_elsewhere, 0, { 0 }, { 0 },
	  { "rcuboost" }, NULL, 0 },
	{ "reader_in_other_thread_and_forker", t_reader_elsewhere, 0, { 0 },
	  { 0 }, { "rcuboost" }, NULL, 1 },
	{ "pending_callbacks/barrier", t_pending, 0, { 0 }, { 0 }, { "rcuboost" },
	  NULL, 0 },
	{ "pending_callbacks/shutdown", t_pending, 0, { 0 }, { 0 },
	  { "rcuboost" }, NULL, 1 },
	{ "pending_callbacks/call", t_pending, 0, { 0 }, { 0 }, { "rcuboost" },
	  NULL, 2 },
};

int main(int argc, char **argv)
{
#if defined(__SANITIZE_THREAD__)
	/* TSan cannot start threads in the child of a multi-threaded fork
	 * ("starting new threads after multi-threaded fork is not
	 * supported"); the plain and ASan builds run these cases. */
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
#endif
	return rcbt_main(argc, argv, cases,
			 (int)(sizeof(cases) / sizeof(cases[0])));
}
