/* Bug: a nested rcb_call() that queued to a worker with no thread yet left the
 * start to the outermost unlock through one per-thread slot; a second such
 * worker in the same section (the thread moved to a CPU with another worker, or
 * to the default one) was started at once, taking the worker lock inside the
 * section: a hang when a stopper holds the lock while it joins a worker
 * (nested_first_call_worker_lock.c has the first-worker case). Now every such
 * worker is marked and started at the unlock. After fork() no worker has a
 * thread; the child's reader queues on CPU 0 (a private CPU worker) and on CPU
 * 1 (the default worker) inside one section while rcb_worker_destroy() holds
 * the lock for 2.5 s (checked: a probe thread waits for it): both calls must
 * return before the join ends, and both callbacks must run, each on its own
 * worker. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/regression/busy_worker.h"

static struct busy_worker busy;
static struct rcb_head head_cpu0, head_cpu1;
static _Atomic pid_t ran_on_cpu0, ran_on_cpu1;

static void cb_cpu0(struct rcb_head *h)
{
	(void)h;
	atomic_store(&ran_on_cpu0, gettid());
}

static void cb_cpu1(struct rcb_head *h)
{
	(void)h;
	atomic_store(&ran_on_cpu1, gettid());
}

static void *destroyer(void *arg)
{
	(void)arg;
	CHECK_EQ(rcb_worker_destroy(busy.w), 0);
	return NULL;
}

static void move_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	CHECK_EQ(sched_setaffinity(0, sizeof(set), &set), 0);
	CHECK_EQ(sched_getcpu(), cpu);
}

static int child(struct rcb_worker *w0)
{
	struct busy_probe probe;
	pthread_t d;
	int done_at_return;

	alarm(30);
	/* Threads do not survive fork(): no worker runs here. */
	CHECK_EQ(rcb_callback_tids(NULL, 0), 0);
	busy_worker_start(&busy, 2500000);
	CHECK_EQ(pthread_create(&d, NULL, destroyer, NULL), 0);
	if (!busy_worker_lock_held(&probe)) {
		printf("skip: the destroyer did not hold the worker lock within 1 s\n");
		fflush(stdout);
		return 77;
	}
	move_to(0);
	rcb_read_lock();
	rcb_read_lock();
	CHECK_EQ(rcb_call(&head_cpu0, cb_cpu0), 0); /* w0, no thread */
	move_to(1);
	CHECK_EQ(rcb_call(&head_cpu1, cb_cpu1), 0); /* default, no thread */
	done_at_return = atomic_load(&busy.done);
	rcb_read_unlock();
	rcb_read_unlock(); /* starts both */
	CHECK_EQ(pthread_join(d, NULL), 0);
	busy_worker_probe_join(&probe);
	CHECK_EQ(rcb_barrier(), 0);
	printf("second nested call to a worker with no thread returned %s the stopper's join ended\n",
	       done_at_return ? "after" : "before");
	fflush(stdout);
	CHECK_EQ(done_at_return, 0);
	CHECK_EQ(atomic_load(&ran_on_cpu0), rcb_worker_tid(w0));
	CHECK_EQ(atomic_load(&ran_on_cpu1),
		 rcb_worker_tid(rcb_worker_default()));
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}

int main(void)
{
	struct rcb_worker *w0;
	pid_t pid;
	int st;
	cpu_set_t allowed;

#if defined(__SANITIZE_THREAD__)
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	CPU_ZERO(&allowed);
	CHECK_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	if (get_nprocs() < 2 || !CPU_ISSET(0, &allowed) ||
	    !CPU_ISSET(1, &allowed)) {
		fprintf(stderr, "skip: needs CPUs 0 and 1\n");
		return 77;
	}
	alarm(60);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_register_thread(), 0);
	CHECK_EQ(rcb_worker_create(NULL, &w0), 0);
	CHECK_EQ(rcb_worker_assign_cpu(w0, 0), 0);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(child(w0));
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK(WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 77);
	CHECK_EQ(rcb_worker_assign_cpu(NULL, 0), 0);
	CHECK_EQ(rcb_worker_destroy(w0), 0);
	CHECK_EQ(rcb_unregister_thread(), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	return WEXITSTATUS(st);
}
