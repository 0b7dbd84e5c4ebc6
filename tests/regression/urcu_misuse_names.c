/* A second hostile-user probe (2026-12-06): misuse of the liburcu
 * drop-in was reported under the rcb_* call behind it
 * (set_thread_call_rcu_data() as rcb_worker_set_thread, rcu_barrier()
 * as rcb_barrier), a name the program's author will not find in their
 * source.  Reports now give both.
 *
 * synchronize_rcu() and rcu_barrier() inside a read-side critical
 * section, with stderr captured: each report must name the liburcu
 * call beside the rcb_* one.  And a signal handler's unbalanced
 * rcu_read_unlock() while its thread waits in synchronize_rcu() (an
 * expert review, 2026-12-06: reported as "rcb_read_unlock (liburcu's
 * synchronize_rcu)") must not borrow the interrupted call's name. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rcuboost/urcu.h"
#include "tests/check.h"

static pthread_t main_thread;

static void unbalanced_unlock(int sig)
{
	(void)sig;
	rcu_read_unlock();
}

/* Holds a section for 300 ms; signals the main thread, which waits in
 * synchronize_rcu() for it, half-way. */
static void *holder(void *arg)
{
	(void)arg;
	rcu_register_thread();
	rcu_read_lock();
	usleep(150000);
	pthread_kill(main_thread, SIGUSR1);
	usleep(150000);
	rcu_read_unlock();
	rcu_unregister_thread();
	return NULL;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = unbalanced_unlock };
	pthread_t h;
	char path[] = "/tmp/rcb-urcunames-XXXXXX", text[8192];
	int fd = mkstemp(path), saved = dup(2);
	const char *want[] = {
		"rcuboost: misuse: rcb_synchronize (liburcu's synchronize_rcu): called inside",
		"rcuboost: misuse: rcb_barrier (liburcu's rcu_barrier): called inside",
		/* A review, 2026-12-06: reported as rcb_unregister_thread
		 * only. */
		"rcuboost: misuse: rcb_unregister_thread (liburcu's rcu_unregister_thread): called inside",
	};
	ssize_t n;

	CHECK(fd >= 0 && saved >= 0);
	unlink(path);
	CHECK(getenv("RCUBOOST_MISUSE") && strcmp(getenv("RCUBOOST_MISUSE"), "warn") == 0);
	rcu_register_thread();
	CHECK(dup2(fd, 2) == 2);
	rcu_read_lock();
	synchronize_rcu();
	rcu_barrier();
	rcu_unregister_thread(); /* refused: the thread stays registered */
	rcu_read_unlock();
	main_thread = pthread_self();
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	CHECK(pthread_create(&h, NULL, holder, NULL) == 0);
	usleep(50000);
	synchronize_rcu(); /* waits for holder; the handler runs meanwhile */
	CHECK(pthread_join(h, NULL) == 0);
	CHECK(dup2(saved, 2) == 2);
	n = pread(fd, text, sizeof(text) - 1, 0);
	CHECK(n >= 0);
	text[n] = '\0';
	printf("stderr:\n%s", text);
	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(strstr(text, want[i]) != NULL);
	CHECK(strstr(text, "rcuboost: misuse: rcb_read_unlock: unlock without") != NULL);
	CHECK(strstr(text, "rcb_read_unlock (liburcu's") == NULL);
	rcu_unregister_thread();
	return 0;
}
