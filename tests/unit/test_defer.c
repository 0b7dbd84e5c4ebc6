/* Unit test: rcb_defer() and its barriers (src/callback/defer.c): every
 * entry runs exactly once with its argument, after a grace period, with
 * a bounded queue; the callback thread drains without a barrier; thread
 * exit and unregistration flush; misuse is refused; fork() keeps the
 * entries. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rcuboost.h>
#include <rcuboost/urcu.h>

#include "tests/check.h"

#define NSLOT (64 * 1024)
static atomic_uchar ran[NSLOT];
static atomic_ulong nran;

static void mark(void *p)
{
	unsigned long i = (unsigned long)p;

	CHECK(i < NSLOT);
	CHECK_EQ(atomic_fetch_add(&ran[i], 1), 0);
	atomic_fetch_add(&nran, 1);
}

static void reset(void)
{
	for (unsigned long i = 0; i < NSLOT; i++)
		atomic_store(&ran[i], 0);
	atomic_store(&nran, 0);
}

static void check_all_once(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		CHECK_EQ(atomic_load(&ran[i]), 1);
	CHECK_EQ(atomic_load(&nran), n);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Entries run after a barrier, exactly once; the queue stays bounded. */
static void case_basic_bounded(void)
{
	unsigned long n = 5 * RCB_DEFER_QUEUE_LEN + 17, worst = 0;

	reset();
	for (unsigned long i = 0; i < n; i++) {
		CHECK_EQ(rcb_defer(mark, (void *)i), 0);
		if (i + 1 - atomic_load(&nran) > worst)
			worst = i + 1 - atomic_load(&nran);
	}
	/* Queued and not yet run: the queue, plus what drains have taken
	 * and not finished running (generous). */
	CHECK(worst <= 3 * RCB_DEFER_QUEUE_LEN);
	CHECK_EQ(rcb_defer_barrier(), 0);
	check_all_once(n);
	CHECK_EQ(rcb_defer_barrier_thread(), 0);
}

/* Without any barrier, the callback thread runs the entries. */
static void case_drain_by_callback(void)
{
	reset();
	for (unsigned long i = 0; i < 100; i++)
		CHECK_EQ(rcb_defer(mark, (void *)i), 0);
	for (int w = 0; w < 10000 && atomic_load(&nran) < 100; w++)
		sleep_ms(1);
	check_all_once(100);
}

/* A grace period separates the defer from the run: a reader that was
 * inside a critical section at the defer holds the entry back. */
static atomic_int reader_in, reader_go;

static void *reader(void *arg)
{
	(void)arg;
	rcb_read_lock();
	atomic_store(&reader_in, 1);
	while (!atomic_load(&reader_go))
		sleep_ms(1);
	rcb_read_unlock();
	return NULL;
}

static void case_waits_for_reader(void)
{
	pthread_t t;

	reset();
	atomic_store(&reader_in, 0);
	atomic_store(&reader_go, 0);
	CHECK_EQ(pthread_create(&t, NULL, reader, NULL), 0);
	while (!atomic_load(&reader_in))
		sleep_ms(1);
	CHECK_EQ(rcb_defer(mark, (void *)0), 0);
	sleep_ms(50);
	CHECK_EQ(atomic_load(&nran), 0);
	atomic_store(&reader_go, 1);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(rcb_defer_barrier(), 0);
	check_all_once(1);
}

/* Threads that defer and exit (destructor flush), others that
 * unregister (their queues are reused), a barrier walking meanwhile. */
#define NTHR 4
#define PER_THR 6000

static void *deferrer(void *arg)
{
	unsigned long base = (unsigned long)arg * PER_THR;

	if (base / PER_THR % 2)
		CHECK_EQ(rcb_defer_register_thread(), 0);
	for (unsigned long i = 0; i < PER_THR; i++)
		CHECK_EQ(rcb_defer(mark, (void *)(base + i)), 0);
	if (base / PER_THR % 2)
		CHECK_EQ(rcb_defer_unregister_thread(), 0);
	return NULL;
}

static void case_threads(void)
{
	pthread_t t[NTHR];

	reset();
	for (int round = 0; round < 2; round++) {
		reset();
		for (unsigned long i = 0; i < NTHR; i++)
			CHECK_EQ(pthread_create(&t[i], NULL, deferrer,
						(void *)i),
				 0);
		CHECK_EQ(rcb_defer_barrier(), 0);
		for (int i = 0; i < NTHR; i++)
			CHECK_EQ(pthread_join(t[i], NULL), 0);
		/* Exit and unregistration flushed every queue. */
		check_all_once(NTHR * PER_THR);
	}
}

/* An entry's function that defers again, and one that asks for the
 * barrier of the queue it runs from (refused as misuse, no deadlock). */
static atomic_int nested_ret;

static void nested(void *p)
{
	(void)p;
	CHECK_EQ(rcb_defer(mark, (void *)1), 0);
	atomic_store(&nested_ret, rcb_defer_barrier_thread());
}

static void case_nested(void)
{
	reset();
	atomic_store(&nested_ret, 1);
	CHECK_EQ(rcb_defer(nested, NULL), 0);
	CHECK_EQ(rcb_defer_barrier(), 0);
	/* The callback thread ran it (its own queue, its barrier: 0), or
	 * this thread's barrier did (-EDEADLK, reported). */
	CHECK(atomic_load(&nested_ret) == 0 ||
	      atomic_load(&nested_ret) == -EDEADLK);
	CHECK_EQ(rcb_defer_barrier(), 0);
	CHECK_EQ(atomic_load(&ran[1]), 1);
}

static void case_misuse(void)
{
	reset();
	rcb_read_lock();
	CHECK_EQ(rcb_defer(mark, (void *)0), -EDEADLK);
	CHECK_EQ(rcb_defer_barrier(), -EDEADLK);
	CHECK_EQ(rcb_defer_barrier_thread(), -EDEADLK);
	CHECK_EQ(rcb_defer_unregister_thread(), -EDEADLK);
	rcb_read_unlock();
	CHECK_EQ(rcb_defer(NULL, NULL), -EINVAL);
	CHECK_EQ(rcb_defer_barrier(), 0);
	CHECK_EQ(atomic_load(&nran), 0);
	CHECK_EQ(rcb_defer_unregister_thread(), 0);
	CHECK_EQ(rcb_defer_unregister_thread(), -ENOENT);
	/* The liburcu names: registered again, queue, barriers. */
	CHECK_EQ(urcu_memb_defer_register_thread(), 0);
	defer_rcu(mark, (void *)2);
	rcu_defer_barrier_thread();
	CHECK_EQ(atomic_load(&ran[2]), 1);
	rcu_defer_unregister_thread();
}

/* fork(): entries queued (held back by a reader) when the parent forks
 * run exactly once in the child, after the child's own grace period. */
static void case_fork(void)
{
	pthread_t t;
	pid_t pid;
	int st;

#if defined(__SANITIZE_THREAD__)
	return; /* TSan: no threads in the child of a multithreaded fork */
#endif
	reset();
	atomic_store(&reader_in, 0);
	atomic_store(&reader_go, 0);
	CHECK_EQ(pthread_create(&t, NULL, reader, NULL), 0);
	while (!atomic_load(&reader_in))
		sleep_ms(1);
	for (unsigned long i = 0; i < 1000; i++)
		CHECK_EQ(rcb_defer(mark, (void *)i), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		CHECK_EQ(atomic_load(&nran), 0);
		/* The first defer arms every inherited queue; rcb_barrier()
		 * waits for those drains. */
		CHECK_EQ(rcb_defer(mark, (void *)1000), 0);
		CHECK_EQ(rcb_barrier(), 0);
		CHECK_EQ(rcb_defer_barrier(), 0);
		check_all_once(1001);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	atomic_store(&reader_go, 1);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(rcb_defer_barrier(), 0);
	check_all_once(1000);
}

int main(void)
{
	case_basic_bounded();
	case_drain_by_callback();
	case_waits_for_reader();
	case_threads();
	case_nested();
	case_misuse();
	case_fork();
	printf("ok\n");
	return 0;
}
