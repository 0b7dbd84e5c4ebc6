/* An expert review (2026-12-06): rcb_start_poll() and rcb_defer() read
 * the library's running flag before queueing their own rcb_head with
 * rcb_call(); an rcb_shutdown() in between made rcb_call() report
 * "called after rcb_shutdown()" as the program's misuse (an abort in
 * debug builds), though both calls are legal then.  1-37 reports in
 * 300 init/shutdown cycles before the fix (five runs).
 *
 * A thread calls rcb_start_poll() and rcb_defer() back to back while
 * the main thread runs 1,000 cycles of rcb_init(), a short wait and
 * rcb_shutdown(), a reader in sections meanwhile; no misuse may be
 * counted.  Public API only. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define CYCLES 1000

static atomic_int stop_reader, stop_caller;
static atomic_long calls;

static void *reader(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_reader)) {
		rcb_read_lock();
		for (volatile int i = 0; i < 2000; i++)
			;
		rcb_read_unlock();
	}
	return NULL;
}

static void nothing(void *p)
{
	(void)p;
}

static void *caller(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_caller)) {
		(void)rcb_start_poll();
		(void)rcb_defer(nothing, NULL);
		atomic_fetch_add(&calls, 1);
	}
	return NULL;
}

int main(void)
{
	struct rcb_gp_stats s;
	pthread_t r, c;

	CHECK(rcb_init(NULL) == 0);
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	for (int i = 0; i < CYCLES; i++) {
		if (i)
			CHECK(rcb_init(NULL) == 0);
		atomic_store(&stop_caller, 0);
		CHECK(pthread_create(&c, NULL, caller, NULL) == 0);
		usleep(200);
		CHECK(rcb_shutdown() == 0);
		usleep(100);
		atomic_store(&stop_caller, 1);
		CHECK(pthread_join(c, NULL) == 0);
	}
	atomic_store(&stop_reader, 1);
	CHECK(pthread_join(r, NULL) == 0);
	rcb_stats(&s);
	printf("%d init/shutdown cycles, %ld rcb_start_poll()+rcb_defer() pairs, "
	       "misuse reports: %llu\n",
	       CYCLES, atomic_load(&calls), (unsigned long long)s.misuse);
	CHECK(s.misuse == 0);
	return 0;
}
