/* Bug: rcb_barrier() returned as soon as one worker's thread could not be
 * started, without waiting for the other workers (the default one included),
 * and the error was undocumented; rcb_shutdown() likewise left the later
 * workers running; only the default worker's failure was said on stderr, so a
 * start that failed at a nested call's unlock (which returns 0) was silent. Now
 * every worker is waited for, the first error is returned, and every failure is
 * said. After fork() no worker has a thread: the child queues to its private
 * worker from inside a section, and the start at the unlock fails (fault
 * injection, tests/fault_inject.c); then a callback on the default worker, held
 * back by a reader for 200 ms, and a barrier whose start of the private worker
 * fails again: it must return -EAGAIN only after the default worker's callback
 * ran. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/fault_inject.h"

static atomic_int private_ran, default_ran, reader_in;
static struct rcb_head private_head, default_head;

static void private_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&private_ran, 1);
}

static void default_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&default_ran, 1);
}

static void *reader(void *arg)
{
	(void)arg;
	rcb_read_lock();
	atomic_store(&reader_in, 1);
	usleep(200000);
	rcb_read_unlock();
	CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

static int child(void)
{
	const char *what = NULL;
	pthread_t r;
	int err;

	alarm(30);
	/* Queued inside the section; the start at the unlock fails. */
	rcb_read_lock();
	rcb_read_lock();
	CHECK_EQ(rcb_call(&private_head, private_cb), 0);
	rcb_read_unlock();
	fi_arm(1, FI_THREAD);
	rcb_read_unlock();
	CHECK(fi_disarm(&what));
	CHECK_EQ(atomic_load(&private_ran), 0);

	/* The default worker starts; its callback waits for the reader. */
	CHECK_EQ(rcb_worker_set_thread(NULL), 0);
	CHECK_EQ(pthread_create(&r, NULL, reader, NULL), 0);
	while (!atomic_load(&reader_in))
		usleep(1000);
	CHECK_EQ(rcb_call(&default_head, default_cb), 0);
	fi_arm(1, FI_THREAD);
	err = rcb_barrier();
	CHECK(fi_disarm(&what));
	printf("barrier with a worker that cannot start: %d, default worker's callback ran %d, the other %d\n",
	       err, atomic_load(&default_ran), atomic_load(&private_ran));
	CHECK_EQ(err, -EAGAIN);
	CHECK_EQ(atomic_load(&default_ran), 1);
	CHECK_EQ(atomic_load(&private_ran), 0);
	CHECK_EQ(pthread_join(r, NULL), 0);

	/* Threads start again: nothing was lost. */
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&private_ran), 1);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}

int main(void)
{
	struct rcb_worker *w;
	pid_t pid;
	int st;

#if defined(__SANITIZE_THREAD__)
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	alarm(60);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_worker_create(NULL, &w), 0);
	CHECK_EQ(rcb_worker_set_thread(w), 0);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(child());
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	CHECK_EQ(rcb_worker_set_thread(NULL), 0);
	CHECK_EQ(rcb_worker_destroy(w), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
