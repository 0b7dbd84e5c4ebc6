/*
 * Regression: defer_rcu() had no back-pressure.  <rcuboost/urcu.h> made it
 * a malloc() plus rcb_call() per entry, so a loop of defer_rcu(free, obj)
 * held every object (and a node each) until the callback thread caught
 * up: liburcu's test_urcu_defer peaked at 84-350 MB resident, against
 * 1.9 MB with liburcu, whose per-thread queue of 4,096 entries throttles
 * the caller.  Fixed by the bounded queue of src/callback/defer.c.
 *
 * 10^6 defer_rcu() calls of 64-byte objects while a reader holds grace
 * periods back (as test_urcu_defer's readers do; here one long critical
 * section, ended when the loop is done or has made no progress for 50 ms,
 * that is, is throttled): the peak resident set (VmHWM) may grow by 64 MB
 * at most.  The fixed code stays within a few MB; the old one held all
 * 10^6 objects and nodes (over 100 MB).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rcuboost/urcu.h>

#include "tests/check.h"

#if defined(__SANITIZE_ADDRESS__)
/* ASan's quarantine would hold every freed object (256 MB by default). */
__attribute__((visibility("default"))) const char *__asan_default_options(void);
__attribute__((visibility("default"))) const char *__asan_default_options(void)
{
	return "quarantine_size_mb=1:thread_local_quarantine_size_kb=64";
}
#endif

static long vm_hwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	CHECK(kb > 0);
	return kb;
}

#define N 1000000L

static atomic_long progress;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *reader(void *arg)
{
	long start = now_ms(), seen = -1, since = start;
	struct timespec ms = { 0, 1000000 };

	rcu_register_thread();
	rcu_read_lock();
	atomic_store((atomic_int *)arg, 1);
	/* Hard bound 5 s; otherwise until the loop ends or stalls. */
	while (now_ms() - start < 5000 && atomic_load(&progress) < N) {
		long p = atomic_load(&progress);

		if (p != seen) {
			seen = p;
			since = now_ms();
		} else if (now_ms() - since >= 50) {
			break;
		}
		nanosleep(&ms, NULL);
	}
	rcu_read_unlock();
	rcu_unregister_thread();
	return NULL;
}

int main(void)
{
	long before, after;
	atomic_int in = 0;
	pthread_t t;

	rcu_register_thread();
	/* Start the library's threads before the first reading. */
	defer_rcu(free, malloc(64));
	rcu_defer_barrier();
	before = vm_hwm_kb();
	CHECK(pthread_create(&t, NULL, reader, &in) == 0);
	while (!atomic_load(&in))
		;
	for (long i = 0; i < N; i++) {
		void *obj = malloc(64);

		CHECK(obj != NULL);
		memset(obj, 0x5a, 64);
		defer_rcu(free, obj);
		atomic_store_explicit(&progress, i + 1, memory_order_relaxed);
	}
	CHECK(pthread_join(t, NULL) == 0);
	rcu_defer_barrier();
	after = vm_hwm_kb();
	printf("VmHWM grew by %ld kB for 10^6 defer_rcu() calls\n", after - before);
	CHECK(after - before < 64 * 1024);
	rcu_unregister_thread();
	return 0;
}
