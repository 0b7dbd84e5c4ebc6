/* Bug: fork() from inside a read-side critical section waits in the library's
 * prepare handler for the worker lock, which rcb_worker_destroy() and
 * rcb_shutdown() hold while they join a worker; when that worker waits for a
 * grace period, the grace period waits for the forking thread's section: a hang
 * with nothing said (liburcu's fork handlers hang the same way beside
 * synchronize_rcu()). Not made impossible (rcuboost(3), BUGS, says why), but
 * named: after 1 s the prepare handler says on stderr what it waits for. A
 * fork() from a signal handler that interrupted a library call holding the lock
 * (rcb_barrier()) waits for its own thread, and is named the same way outside a
 * section. Here each join lasts 3 s (a callback that sleeps, no grace period
 * involved), so each fork must complete after its message, and its child must
 * run: once inside a section, once outside. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"
#include "tests/regression/busy_worker.h"

static struct busy_worker busy;

static void *destroyer(void *arg)
{
	(void)arg;
	CHECK_EQ(rcb_worker_destroy(busy.w), 0); /* holds the lock 3 s */
	return NULL;
}

/* fork() beside a 3 s join, inside a section or not; returns what
 * the library said on stderr meanwhile. */
static void fork_beside_join(int in_section, char *err, size_t len)
{
	struct busy_probe probe;
	FILE *tmp;
	pthread_t d;
	pid_t pid;
	size_t n;
	int saved, st, done_at_fork;

	atomic_store(&busy.started, 0);
	atomic_store(&busy.done, 0);
	busy_worker_start(&busy, 3000000);
	CHECK_EQ(pthread_create(&d, NULL, destroyer, NULL), 0);
	if (!busy_worker_lock_held(&probe)) {
		fprintf(stderr, "skip: the destroyer did not hold the worker lock within 1 s\n");
		exit(77);
	}
	tmp = tmpfile();
	CHECK(tmp != NULL);
	fflush(stdout);
	fflush(stderr);
	saved = dup(2);
	CHECK(saved >= 0 && dup2(fileno(tmp), 2) == 2);
	if (in_section)
		rcb_read_lock();
	pid = fork();
	if (pid == 0) {
		if (in_section)
			rcb_read_unlock();
		_exit(0);
	}
	done_at_fork = atomic_load(&busy.done);
	if (in_section)
		rcb_read_unlock();
	fflush(stderr);
	CHECK(dup2(saved, 2) == 2);
	close(saved);
	CHECK(pid > 0);
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	rewind(tmp);
	n = fread(err, 1, len - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
	printf("fork() %s a section beside a 3 s join: returned %s the join ended; said: %s",
	       in_section ? "in" : "outside", done_at_fork ? "after" : "before",
	       err[0] ? err : "(nothing)\n");
	CHECK_EQ(pthread_join(d, NULL), 0);
	busy_worker_probe_join(&probe);
}

int main(void)
{
	char err[1024];

#if defined(__SANITIZE_THREAD__)
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	alarm(30);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_register_thread(), 0);
	fork_beside_join(1, err, sizeof(err));
	CHECK(strstr(err, "fork() inside a read-side critical section") != NULL);
	CHECK(strstr(err, "rcb_worker_destroy()") != NULL);
	fork_beside_join(0, err, sizeof(err));
	CHECK(strstr(err, "fork() has waited 1 s for the callback workers' lock") != NULL);
	CHECK(strstr(err, "signal handler") != NULL);
	CHECK_EQ(rcb_unregister_thread(), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
