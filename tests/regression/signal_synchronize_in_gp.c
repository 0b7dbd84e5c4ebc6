/* A second hostile-user probe (2026-12-06): rcb_synchronize() from a
 * signal handler that interrupted the same thread while it held the
 * grace-period lock (a priority-inheritance mutex of the normal kind)
 * waited for itself forever, with nothing said.  It is misuse (the
 * header: only the read side is async-signal-safe), and now reported as
 * such: -EDEADLK and a message.
 *
 * The main thread calls rcb_synchronize() back to back for 1 s while a
 * reader runs short sections on another thread and a timer sends the
 * main thread SIGALRM every 200 us; the handler calls rcb_synchronize()
 * too.  A watchdog ends the process after 30 s; every handler call must
 * return 0 or -EDEADLK. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int stop, in_handler_ok, in_handler_deadlk, in_handler_other;

static void on_alarm(int sig)
{
	int saved = errno, r;

	(void)sig;
	r = rcb_synchronize();
	if (r == 0)
		atomic_fetch_add(&in_handler_ok, 1);
	else if (r == -EDEADLK)
		atomic_fetch_add(&in_handler_deadlk, 1);
	else
		atomic_fetch_add(&in_handler_other, 1);
	errno = saved;
}

static void *reader(void *arg)
{
	volatile unsigned int spin;

	(void)arg;
	while (!atomic_load(&stop)) {
		rcb_read_lock();
		for (spin = 0; spin < 2000; spin++)
			;
		rcb_read_unlock();
	}
	return NULL;
}

static void *watchdog(void *arg)
{
	(void)arg;
	sleep(30);
	fprintf(stderr, "watchdog: still running after 30 s (a handler waits for itself?)\n");
	_exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
	struct itimerval it = { .it_interval = { 0, 200 },
				.it_value = { 0, 200 } };
	struct itimerval off = { 0 };
	struct sigaction sa;
	sigset_t block;
	pthread_t r, w;
	double end;
	long calls = 0;

	CHECK(getenv("RCUBOOST_MISUSE") && strcmp(getenv("RCUBOOST_MISUSE"), "warn") == 0);
	CHECK_EQ(rcb_init(NULL), 0);
	/* Only the main thread takes SIGALRM. */
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	CHECK_EQ(pthread_sigmask(SIG_BLOCK, &block, NULL), 0);
	CHECK_EQ(pthread_create(&w, NULL, watchdog, NULL), 0);
	CHECK_EQ(pthread_create(&r, NULL, reader, NULL), 0);
	CHECK_EQ(pthread_sigmask(SIG_UNBLOCK, &block, NULL), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	CHECK_EQ(sigaction(SIGALRM, &sa, NULL), 0);
	CHECK_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
	end = now_s() + 1.0;
	while (now_s() < end) {
		CHECK_EQ(rcb_synchronize(), 0);
		calls++;
	}
	CHECK_EQ(setitimer(ITIMER_REAL, &off, NULL), 0);
	atomic_store(&stop, 1);
	CHECK_EQ(pthread_join(r, NULL), 0);
	printf("%ld grace periods; from the handler: %d returned 0, %d -EDEADLK, %d other\n",
	       calls, atomic_load(&in_handler_ok),
	       atomic_load(&in_handler_deadlk), atomic_load(&in_handler_other));
	CHECK_EQ(atomic_load(&in_handler_other), 0);
	CHECK(atomic_load(&in_handler_ok) + atomic_load(&in_handler_deadlk) >
	      0);
	return 0;
}
