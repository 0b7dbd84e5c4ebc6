/* Bug: a thread that exited inside a read-side critical section had its section
 * ended by the library but did not wake an updater asleep waiting for it:
 * rcb_synchronize() waited out its 10 ms safety timeout (6.75 ms mean against
 * 0.33 ms). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define ITERATIONS 20
/* The updater's safety timeout is 10 ms; woken by the exit it returns
 * in well under 1 ms.  An iteration over 5 ms counts as slow, and the
 * test allows a quarter of them slow (a loaded machine).  How soon two
 * normal threads get a CPU is the scheduler's, so the verdict is the
 * plain build's (tests/check.h): a sanitizer build prints it. */
#define SLOW_NS (5ull * 1000 * 1000)

static atomic_int in_section, go_exit;
static atomic_ullong exit_ns, sync_ns;
static atomic_int updater_tid;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull +
	       (unsigned long long)ts.tv_nsec;
}

static void *reader(void *arg)
{
	(void)arg;
	CHECK(rcb_register_thread() == 0);
	rcb_read_lock();
	atomic_store(&in_section, 1);
	while (!atomic_load(&go_exit))
		sched_yield();
	atomic_store(&exit_ns, now_ns());
	return NULL; /* inside the section: the library ends it */
}

static void *updater(void *arg)
{
	(void)arg;
	atomic_store(&updater_tid, (int)gettid());
	CHECK(rcb_synchronize() == 0);
	atomic_store(&sync_ns, now_ns());
	return NULL;
}

/* Is thread @tid asleep (state S in /proc)? */
static int sleeping(int tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

int main(void)
{
	/* RCUBOOST_MISUSE=abort would stop at the reported exit. */
	struct rcb_config cfg = { .misuse = RCB_MISUSE_WARN, .boost = -1 };
	int slow = 0;

	CHECK(rcb_init(&cfg) == 0);
	for (int i = 0; i < ITERATIONS; i++) {
		unsigned long long t0, dt;
		pthread_t r, u;

		atomic_store(&in_section, 0);
		atomic_store(&go_exit, 0);
		atomic_store(&updater_tid, 0);
		atomic_store(&sync_ns, 0);
		CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
		while (!atomic_load(&in_section))
			sched_yield();
		CHECK(pthread_create(&u, NULL, updater, NULL) == 0);
		/* Let the updater go to sleep on the futex (it spins over
		 * the registry first; the armed futex and a sleeping state
		 * together mean it is in FUTEX_WAIT). */
		for (t0 = now_ns();; usleep(50)) {
			CHECK(now_ns() - t0 < 10ull * 1000 * 1000 * 1000);
			if (atomic_load(&rcb__gp.futex) == -1 &&
			    atomic_load(&updater_tid) &&
			    sleeping(atomic_load(&updater_tid)))
				break;
		}
		atomic_store(&go_exit, 1);
		CHECK(pthread_join(r, NULL) == 0);
		CHECK(pthread_join(u, NULL) == 0);
		dt = atomic_load(&sync_ns) - atomic_load(&exit_ns);
		if (dt > SLOW_NS)
			slow++;
		printf("iteration %d: rcb_synchronize() returned %.2f ms after the reader's exit\n",
		       i, (double)dt / 1e6);
	}
	if (slow > ITERATIONS / 4) {
		fprintf(stderr, "%s: %d of %d updaters were not woken by the exit of the reader they waited for (took over %llu ms: the safety timeout)%s\n",
			RCB_TEST_SANITIZED ? "note" : "FAIL", slow, ITERATIONS,
			SLOW_NS / 1000000,
			RCB_TEST_SANITIZED ? " (not checked under a sanitizer)" : "");
		if (!RCB_TEST_SANITIZED)
			return 1;
	}
	printf("ok: %d of %d slow\n", slow, ITERATIONS);
	return 0;
}
