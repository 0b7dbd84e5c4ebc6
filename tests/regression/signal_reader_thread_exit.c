/* An expert review (2026-12-06): a signal handler that uses a read-side
 * section (async-signal-safe, as documented), run on a thread after the
 * library's thread-exit handling had unregistered it, registered the
 * thread again; when that came after the last round of key destructors
 * (glibc blocks signals only after them), nothing unregistered it: the
 * exited thread stayed on the registry, and the next thread to reuse its
 * stack re-initialised the record while it was linked (SIGSEGV in a
 * later grace period or rcb_stats()).  The review's program saw a thread
 * left registered within 0 to 24 short-lived threads, in every run.  Now
 * the thread-exit handling blocks the thread's signals first.
 *
 * One thread sends process-directed SIGUSR1 back to back; the handler
 * runs an empty read-side section; short-lived threads (signals
 * unblocked, a read-side section each, so they register) are created
 * and joined for 2 s, and after each join no thread but the main one may
 * be registered.  Public API only. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int stop;
static atomic_long handled;

static void handler(int sig)
{
	(void)sig;
	rcb_read_lock();
	rcb_read_unlock();
	atomic_fetch_add(&handled, 1);
}

static void *short_lived(void *arg)
{
	(void)arg;
	rcb_read_lock();
	rcb_read_unlock();
	return NULL;
}

static void *signaller(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		kill(getpid(), SIGUSR1);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = handler };
	struct rcb_gp_stats st;
	pthread_attr_t attr;
	sigset_t usr1, none;
	pthread_t sig, t;
	long threads = 0;
	unsigned long long left = 0;
	double end;

	alarm(60);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_register_thread(), 0);
	sigemptyset(&sa.sa_mask);
	CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	/* Only the short-lived threads take the signal. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	CHECK_EQ(pthread_sigmask(SIG_BLOCK, &usr1, NULL), 0);
	CHECK_EQ(pthread_create(&sig, NULL, signaller, NULL), 0);
	sigemptyset(&none);
	CHECK_EQ(pthread_attr_init(&attr), 0);
	CHECK_EQ(pthread_attr_setsigmask_np(&attr, &none), 0);
	end = now_s() + 2.0;
	while (now_s() < end) {
		CHECK_EQ(pthread_create(&t, &attr, short_lived, NULL), 0);
		CHECK_EQ(pthread_join(t, NULL), 0);
		threads++;
		rcb_stats(&st);
		if (st.registered_threads != 1) {
			left = st.registered_threads - 1;
			break; /* the next thread could reuse its stack */
		}
	}
	atomic_store(&stop, 1);
	CHECK_EQ(pthread_join(sig, NULL), 0);
	CHECK_EQ(pthread_attr_destroy(&attr), 0);
	printf("%ld short-lived threads, %ld handler sections; %llu exited thread(s) left registered\n",
	       threads, atomic_load(&handled), left);
	CHECK(atomic_load(&handled) > 0);
	CHECK_EQ(left, 0);
	return 0;
}
