/* Bug: a nested rcb_read_lock() added to a 32-bit depth that carried into the
 * grace-period snapshot: after 2^32 locks rcb_read_ongoing() was 0 and a
 * concurrent rcb_synchronize() returned while the thread was still inside its
 * section, silently. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int deep, sync_done, reader_exit;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull +
	       (unsigned long long)ts.tv_nsec;
}

static void *reader(void *arg)
{
	/* locks in all, outermost included */
	unsigned long long n = 1ull << 32;

	(void)arg;
	CHECK(rcb_register_thread() == 0);
	rcb_read_lock();
	n--;
#if RCB_TEST_SANITIZED
	/* 2^32 instrumented iterations take minutes: start the nesting
	 * 1000 short of the limit (the same counter the loop would reach). */
	atomic_store_explicit(
		&rcb__reader.ctr,
		atomic_load_explicit(&rcb__reader.ctr, memory_order_relaxed) +
			(RCB__NEST_MASK - 1001),
		memory_order_relaxed);
	n = 1001;
#endif
	/* No system call in the loop: a few seconds for 2^32 - 1 locks. */
	for (; n; n--)
		rcb_read_lock();
	atomic_store(&deep, rcb_read_ongoing() ? 1 : -1);
	while (!atomic_load(&reader_exit))
		sched_yield();
	/* Exits inside its section: the library ends it (reported). */
	return NULL;
}

static void *updater(void *arg)
{
	(void)arg;
	CHECK(rcb_synchronize() == 0);
	atomic_store(&sync_done, 1);
	return NULL;
}

int main(void)
{
	struct rcb_config cfg = { .misuse = RCB_MISUSE_WARN };
	unsigned long long misuse0, t0;
	struct rcb_gp_stats st;
	pthread_t r, u;

	CHECK(rcb_init(&cfg) == 0);
	rcb_stats(&st);
	misuse0 = st.misuse;
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&deep))
		usleep(1000);
	if (atomic_load(&deep) < 0) {
		fprintf(stderr, "FAIL: after 2^32 nested rcb_read_lock() the thread is no longer in a read-side critical section\n");
		return 1;
	}
	rcb_stats(&st);
	if (st.misuse <= misuse0) {
		fprintf(stderr, "FAIL: nesting past 2^32 - 1 was not reported as misuse\n");
		return 1;
	}
	/* A grace period must wait for the reader, however long we look
	 * (the old code let it return at once). */
	CHECK(pthread_create(&u, NULL, updater, NULL) == 0);
	for (t0 = now_ns(); now_ns() - t0 < 300ull * 1000 * 1000;) {
		if (atomic_load(&sync_done)) {
			fprintf(stderr, "FAIL: rcb_synchronize() returned while a reader nested 2^32 deep was inside its section\n");
			return 1;
		}
		usleep(1000);
	}
	atomic_store(&reader_exit, 1);
	CHECK(pthread_join(r, NULL) == 0);
	CHECK(pthread_join(u, NULL) == 0);
	CHECK(atomic_load(&sync_done) == 1);
	printf("ok: nesting past 2^32 - 1 reported, grace period waited for the reader\n");
	return 0;
}
