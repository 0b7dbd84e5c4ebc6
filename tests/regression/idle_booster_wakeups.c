/* Issue 13 item 6: the booster (SCHED_RR 50) woke every period, 100
 * times a second, in a process with no waiting grace period: periodic
 * interference on the CPUs it may run on.  After a grace period that
 * did wait for a reader (so the booster ran), the library's threads
 * must not wake at all for a second of idleness.  Counted from
 * /proc/<pid>/task/<tid>/status context switches. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/boost/libthreads.h"

static atomic_int in_cs, release_reader;

static void *reader(void *arg)
{
	(void)arg;
	CHECK(rcb_register_thread() == 0);
	rcb_read_lock();
	atomic_store(&in_cs, 1);
	while (!atomic_load(&release_reader))
		usleep(1000);
	rcb_read_unlock();
	CHECK(rcb_unregister_thread() == 0);
	return NULL;
}

static void *releaser(void *arg)
{
	(void)arg;
	usleep(60 * 1000); /* the grace period waits: the booster runs */
	atomic_store(&release_reader, 1);
	return NULL;
}

int main(void)
{
	struct rcb_boost_stats s = { .size = sizeof(s) };
	pid_t tids[LT_MAX];
	long before[LT_MAX];
	char names[LT_MAX][16];
	pthread_t r, w;
	int n, woke = 0;

	CHECK(rcb_init(NULL) == 0);
	CHECK(rcb_boost_stats(&s) == 0);
	if (!s.booster_running) {
		fprintf(stderr, "skip: the booster does not run (no permission "
			"for real-time priority, or boosting compiled out)\n");
		return 77;
	}
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	while (!atomic_load(&in_cs))
		usleep(1000);
	CHECK(pthread_create(&w, NULL, releaser, NULL) == 0);
	CHECK(rcb_synchronize() == 0);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	CHECK(rcb_boost_stats(&s) == 0);
	CHECK(s.passes >= 1); /* it did run while the grace period waited */
	usleep(100 * 1000);   /* its last period ends */

	n = lt_list(tids, names, LT_MAX);
	CHECK(n >= 1);
	for (int i = 0; i < n; i++)
		CHECK((before[i] = lt_ctxt(tids[i])) >= 0);
	sleep(1);
	for (int i = 0; i < n; i++) {
		long d = lt_ctxt(tids[i]) - before[i];

		printf("%s (tid %d): %ld wake-ups in 1 s idle\n", names[i],
		       (int)tids[i], d);
		if (d != 0)
			woke = 1;
	}
	CHECK(!woke);
	CHECK(rcb_shutdown() == 0);
	return 0;
}
