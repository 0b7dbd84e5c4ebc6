/* Bug: a fork() while another thread waited in rcb_qsbr_barrier() left
 * that thread's barrier marker, which lives on its stack, on the qsbr
 * callback queue of the child.  glibc gives the stacks of the parent's
 * other threads to the child's new threads, so the child's callback
 * thread called through whatever one of them had written there: the
 * soak test's forked children died of SIGSEGV.  The
 * child now drops other threads' markers.  Here the marker is held on
 * the queue on purpose (the callback thread waits for an online thread
 * that passes no quiescent state), the child's threads scribble over
 * every stack they get, then the child's barrier runs the queue. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost/qsbr.h"
#include "tests/check.h"

static atomic_int holder_up, holder_release, waiter_in, waiter_out;

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* Online, no quiescent state: the callback thread's grace period waits. */
static void *holder(void *arg)
{
	(void)arg;
	CHECK(rcb_qsbr_register_thread() == 0);
	atomic_store(&holder_up, 1);
	while (!atomic_load(&holder_release))
		sleep_ms(1);
	CHECK(rcb_qsbr_unregister_thread() == 0);
	return NULL;
}

/* Its marker stays queued behind the held batch. */
static void *waiter(void *arg)
{
	(void)arg;
	atomic_store(&waiter_in, 1);
	CHECK(rcb_qsbr_barrier() == 0);
	atomic_store(&waiter_out, 1);
	return NULL;
}

static void nop_cb(struct rcb_head *h)
{
	(void)h;
}

static pthread_barrier_t scribblers;

static void *scribble(void *arg)
{
	volatile unsigned char junk[96 * 1024];

	(void)arg;
	memset((void *)junk, 0xa5, sizeof(junk));
	pthread_barrier_wait(&scribblers);
	return NULL;
}

int main(void)
{
	enum { NSCRIBBLE = 12 };
	static struct rcb_head first, second;
	pthread_t h, w, s[NSCRIBBLE];
	pid_t pid;
	int status;

#if defined(__SANITIZE_THREAD__)
	/* TSan cannot start threads in a multi-threaded fork's child; the
	 * plain and ASan builds run this. */
	fprintf(stderr, "skip: fork with threads does not run under ThreadSanitizer\n");
	return 77;
#endif
	alarm(60);
	CHECK(pthread_create(&h, NULL, holder, NULL) == 0);
	while (!atomic_load(&holder_up))
		sleep_ms(1);
	/* The callback thread takes this one and waits for the holder. */
	CHECK(rcb_qsbr_call(&first, nop_cb) == 0);
	sleep_ms(50);
	CHECK(pthread_create(&w, NULL, waiter, NULL) == 0);
	while (!atomic_load(&waiter_in))
		sleep_ms(1);
	sleep_ms(50); /* its marker is queued; it waits */
	CHECK(!atomic_load(&waiter_out));

	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		alarm(30); /* a hang fails the child, not the whole test */
		/* Every stack the parent's other threads left, scribbled. */
		pthread_barrier_init(&scribblers, NULL, NSCRIBBLE + 1);
		for (int i = 0; i < NSCRIBBLE; i++)
			if (pthread_create(&s[i], NULL, scribble, NULL) != 0)
				_exit(3);
		pthread_barrier_wait(&scribblers);
		for (int i = 0; i < NSCRIBBLE; i++)
			pthread_join(s[i], NULL);
		if (rcb_qsbr_call(&second, nop_cb) != 0 ||
		    rcb_qsbr_barrier() != 0 || rcb_qsbr_synchronize() != 0)
			_exit(2);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fprintf(stderr, "child status %#x\n", status);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	atomic_store(&holder_release, 1);
	pthread_join(h, NULL);
	pthread_join(w, NULL);
	CHECK(atomic_load(&waiter_out));
	CHECK(rcb_shutdown() == 0);
	puts("ok: the child ran its qsbr queue without the parent's markers");
	return 0;
}
