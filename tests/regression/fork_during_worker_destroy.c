/* An expert review (2026-12-06): a fork() while another thread's
 * rcb_worker_destroy(w) waited for its grace period gave the child w
 * still listed and marked dying, with nobody to finish the destroy:
 * rcb_worker_set_thread(w), rcb_worker_tid(w) and rcb_worker_destroy(w)
 * all refused it as "not a live worker" (-ENOENT), so the child could
 * never free it, while rcb_barrier() still started its thread.  Now the
 * child's worker is live again.
 *
 * A reader holds a section (tests/gp_holder.h) so that the destroy waits
 * in its grace period until the child is done; the main thread forks
 * meanwhile, and the child must be
 * able to queue a callback on w, run it, and destroy w.  Public API. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/gp_holder.h"

static struct rcb_worker *w;
static atomic_int ran;

static void *destroyer(void *arg)
{
	(void)arg;
	return (void *)(long)rcb_worker_destroy(w);
}

static void count(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&ran, 1);
}

static int child(void)
{
	static struct rcb_head h;
	int set, destroyed;

	set = rcb_worker_set_thread(w);
	if (set == 0) {
		if (rcb_call(&h, count) != 0 || rcb_barrier() != 0)
			return 3;
		(void)rcb_worker_set_thread(NULL);
	}
	destroyed = rcb_worker_destroy(w);
	printf("child: rcb_worker_set_thread(w) %d, its callback %s, rcb_worker_destroy(w) %d\n",
	       set, atomic_load(&ran) == 1 ? "ran" : "did not run", destroyed);
	fflush(stdout);
	return set == 0 && atomic_load(&ran) == 1 && destroyed == 0 ? 0 : 1;
}

int main(void)
{
	struct gp_holder holder;
	pthread_t d;
	void *ret;
	pid_t pid;
	int st;

#if defined(__SANITIZE_THREAD__)
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	alarm(30);
	CHECK_EQ(rcb_worker_create(NULL, &w), 0);
	gp_holder_start(&holder);
	CHECK_EQ(pthread_create(&d, NULL, destroyer, NULL), 0);
	usleep(100000); /* the destroy marked w dying and waits */
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(child());
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	gp_holder_release(&holder);
	CHECK_EQ(pthread_join(d, &ret), 0);
	CHECK_EQ((long)ret, 0); /* the parent's destroy completes */
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return 0;
}
