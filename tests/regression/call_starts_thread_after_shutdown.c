/* Bug: rcb_call() could start the callback thread after a concurrent
 * rcb_shutdown() had returned (it checked that the library runs, then created
 * the thread under the callback lock without checking again), leaving a thread
 * nobody stops. The test holds the calling thread at its first mutex lock
 * inside rcb_call() until rcb_shutdown() has returned, then counts the
 * process's threads. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int armed, held, shutdown_done;
static _Thread_local int is_caller;
static struct rcb_head head;

/*
 * Every pthread_mutex_lock() of the library comes here (the executable's
 * definition comes first in symbol lookup).  Once armed, the caller
 * thread's first lock waits until rcb_shutdown() has returned.
 */
__attribute__((visibility("default"))) int pthread_mutex_lock(pthread_mutex_t *m)
{
	static int (*real)(pthread_mutex_t *);

	if (!real)
		real = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
	if (is_caller && atomic_load(&armed)) {
		atomic_store(&armed, 0);
		atomic_store(&held, 1);
		while (!atomic_load(&shutdown_done))
			sched_yield();
	}
	return real(m);
}

/*
 * Threads of this process.  Under TSan, whose runtime starts threads of
 * its own at any time, only the library's: each names itself
 * "rcuboost-..." first thing, and the count after the shutdown waits
 * 200 ms so that a thread the bug started has done so.
 */
#if defined(__SANITIZE_THREAD__)
#define LIBRARY_THREADS_ONLY 1
#else
#define LIBRARY_THREADS_ONLY 0
#endif

static bool counted(const char *tid)
{
	char path[300], comm[32] = "";
	FILE *f;
	bool lib;

	if (!LIBRARY_THREADS_ONLY)
		return true;
	snprintf(path, sizeof(path), "/proc/self/task/%s/comm", tid);
	f = fopen(path, "r");
	if (!f)
		return false; /* exited meanwhile */
	lib = fgets(comm, sizeof(comm), f) && strncmp(comm, "rcuboost", 8) == 0;
	fclose(f);
	return lib;
}

static int task_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	CHECK(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' && counted(e->d_name);
	closedir(d);
	return n;
}

static void noop(struct rcb_head *h)
{
	(void)h;
}

static void *call_thread(void *arg)
{
	int err;

	(void)arg;
	is_caller = 1;
	/* Registered beforehand: rcb_call() takes no registry lock. */
	CHECK(rcb_register_thread() == 0);
	atomic_store(&armed, 1);
	err = rcb_call(&head, noop);
	/* Either queued before the shutdown (and run by it) or refused. */
	CHECK(err == 0 || err == -ESHUTDOWN);
	CHECK(rcb_unregister_thread() == 0);
	return NULL;
}

int main(void)
{
	/* No boosting: the only thread the library may start is the
	 * callback thread.  Misuse (the refused call) only warns. */
	struct rcb_config cfg = { .boost = -1, .misuse = RCB_MISUSE_WARN };
	pthread_t caller;
	int before, after;

	alarm(30);
	CHECK(rcb_init(&cfg) == 0);
	before = task_count();
	CHECK(pthread_create(&caller, NULL, call_thread, NULL) == 0);
	/* The interposition works: the caller reached the library's lock. */
	for (int i = 0; !atomic_load(&held); i++) {
		CHECK(i < 2000000);
		sched_yield();
	}
	CHECK(rcb_shutdown() == 0);
	atomic_store(&shutdown_done, 1);
	CHECK(pthread_join(caller, NULL) == 0);
	if (LIBRARY_THREADS_ONLY)
		usleep(200 * 1000);
	after = task_count();
	if (after != before) {
		fprintf(stderr, "FAIL: %d threads after rcb_shutdown() returned, %d before: "
			"rcb_call() started the callback thread after the shutdown\n",
			after, before);
		return 1;
	}
	printf("no thread started after rcb_shutdown()\n");
	return 0;
}
