/* A hostile-user probe (2026-12-06): call_rcu_before_fork() without its
 * call_rcu_after_fork_parent() or _child() (the header called the
 * helpers "harmless") made every later fork() of another thread wait
 * forever, with nothing said.  liburcu deadlocks the same way, so the
 * wait stays; it is now named on stderr after a second, and the header
 * says the helpers must be paired.
 *
 * The main thread calls call_rcu_before_fork() alone; another thread
 * forks.  Within 10 s stderr must name the unmatched helper; then the
 * main thread calls call_rcu_after_fork_parent() and the fork must
 * complete (30 s alarm). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rcuboost/urcu.h"
#include "tests/check.h"

static atomic_int forked;

static void *forker(void *arg)
{
	pid_t pid;
	int st;

	(void)arg;
	pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK(pid > 0);
	CHECK(waitpid(pid, &st, 0) == pid);
	atomic_store(&forked, 1);
	return NULL;
}

int main(void)
{
	char path[] = "/tmp/rcb-forkhelper-XXXXXX", text[4096];
	int fd = mkstemp(path), saved = dup(2), found = 0;
	pthread_t t;
	ssize_t n = 0;

#if defined(__SANITIZE_THREAD__)
	fprintf(stderr, "skip: fork tests do not run under ThreadSanitizer\n");
	return 77;
#endif
	alarm(30);
	CHECK(fd >= 0 && saved >= 0);
	unlink(path);
	rcu_register_thread();
	synchronize_rcu();
	CHECK(dup2(fd, 2) == 2);
	call_rcu_before_fork();
	CHECK_EQ(pthread_create(&t, NULL, forker, NULL), 0);
	for (int i = 0; i < 1000 && !found; i++) {
		usleep(10000);
		n = pread(fd, text, sizeof(text) - 1, 0);
		CHECK(n >= 0);
		text[n] = '\0';
		found = strstr(text, "call_rcu_before_fork() without call_rcu_after_fork_parent()") != NULL;
	}
	CHECK(dup2(saved, 2) == 2);
	printf("stderr:\n%s", text);
	printf("the unmatched helper was %snamed; the fork %s\n", found ? "" : "not ",
	       atomic_load(&forked) ? "completed meanwhile" : "waits");
	CHECK(found);
	CHECK_EQ(atomic_load(&forked), 0);
	call_rcu_after_fork_parent();
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(atomic_load(&forked), 1);
	rcu_unregister_thread();
	return 0;
}
