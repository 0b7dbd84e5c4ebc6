/*
 * Local callback lists (src/callback/callback_local.c, invariants L1-L8): while
 * threads queue callbacks back to back, the default worker's local mode
 * takes each thread's own list after a grace period.  Every callback must
 * run exactly once, a thread's callbacks in the order of its calls
 * (nested calls from inside its own read-side section included), and a
 * barrier, an unregistration, a thread exit, an idle thread, fork() and
 * rcb_shutdown() must lose or strand none.  The run fails if local mode
 * was never on while the producers queued: it would have tested the
 * queue only.  Linked with the debug build (rcuboost_debug), so that a
 * head queued twice or invoked twice is reported too.  In the fork()
 * child only the barrier and the backlog are checked: across the last
 * change of mode before the fork, the child's order may differ
 * (callback_local.c, L8).
 *
 * Arguments: callbacks per producer thread (sanitizer builds pass
 * fewer); "off": run with RCUBOOST_CALLBACK_LOCAL=0 set, where local
 * mode must never be on.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

/* The library's own word (src/callback/callback.h), reachable in a
 * static build. */
extern _Atomic unsigned long rcb__cb_local_mode;

#define MAX_PRODUCERS 4

struct node {
	struct rcb_head head;
	int producer;
	long seq;
};

static long per_thread;
static atomic_long invoked;
/* Written by the callbacks only (one callback thread: the default
 * worker's); read after barriers. */
static long last_seq[MAX_PRODUCERS];
static atomic_bool order_ok = true;
static atomic_long local_seen;

static void cb(struct rcb_head *h)
{
	struct node *n = (struct node *)h;

	if (n->seq != last_seq[n->producer] + 1)
		atomic_store(&order_ok, false);
	last_seq[n->producer] = n->seq;
	free(n);
	atomic_fetch_add_explicit(&invoked, 1, memory_order_relaxed);
}

struct producer {
	int id;
	long first, count; /* sequence numbers first .. first + count - 1 */
	/* 0: stay registered until released; 1: unregister; 2: exit */
	int after;
	atomic_bool queued, release;
	pthread_t thread;
};

static long next_seq[MAX_PRODUCERS];

static void queue_one(int id, long seq)
{
	struct node *n = malloc(sizeof(*n));

	CHECK(n != NULL);
	n->producer = id;
	n->seq = seq;
	CHECK_EQ(rcb_call(&n->head, cb), 0);
}

static void *producer(void *arg)
{
	struct producer *p = arg;

	CHECK_EQ(rcb_register_thread(), 0);
	for (long i = 0; i < p->count; i++) {
		if (i % 7 == 3) {
			/* Nested, from inside our own critical section. */
			rcb_read_lock();
			queue_one(p->id, p->first + i);
			rcb_read_unlock();
		} else {
			queue_one(p->id, p->first + i);
		}
		if (!(i & 1023) &&
		    (atomic_load_explicit(&rcb__cb_local_mode,
					  memory_order_relaxed) & 1))
			atomic_fetch_add(&local_seen, 1);
	}
	atomic_store(&p->queued, true);
	if (p->after == 1)
		CHECK_EQ(rcb_unregister_thread(), 0);
	if (p->after == 0) {
		while (!atomic_load(&p->release))
			usleep(1000);
		CHECK_EQ(rcb_unregister_thread(), 0);
	}
	return NULL; /* after == 2: exits registered */
}

static void start(struct producer *p, int id, int after)
{
	*p = (struct producer){ .id = id, .first = next_seq[id] + 1,
				.count = per_thread, .after = after };
	next_seq[id] += per_thread;
	CHECK_EQ(pthread_create(&p->thread, NULL, producer, p), 0);
}

static void wait_queued(struct producer *p)
{
	while (!atomic_load(&p->queued))
		usleep(1000);
}

static void finish(struct producer *p)
{
	atomic_store(&p->release, true);
	CHECK_EQ(pthread_join(p->thread, NULL), 0);
}

static long total_queued(void)
{
	long n = 0;

	for (int i = 0; i < MAX_PRODUCERS; i++)
		n += next_seq[i];
	return n;
}

/* Without a barrier: every callback must run anyway (idle lists are
 * taken by the worker).  Generous bound: 60 s. */
static void wait_all_invoked(const char *what)
{
	for (int i = 0; i < 60000; i++) {
		if (atomic_load(&invoked) == total_queued())
			return;
		usleep(1000);
	}
	fprintf(stderr, "%s: %ld of %ld callbacks ran in 60 s without a barrier\n",
		what, atomic_load(&invoked), total_queued());
	exit(1);
}

static void check_all_ran(const char *what)
{
	struct rcb_backlog bl;

	if (atomic_load(&invoked) != total_queued()) {
		fprintf(stderr, "%s: %ld callbacks ran, %ld queued\n", what,
			atomic_load(&invoked), total_queued());
		exit(1);
	}
	if (!atomic_load(&order_ok)) {
		fprintf(stderr, "%s: a thread's callbacks ran out of the order of its calls\n",
			what);
		exit(1);
	}
	rcb_backlog(&bl);
	CHECK_EQ(bl.callbacks, 0);
}

/* fork() while a producer queues: the child's barrier returns and
 * leaves nothing queued; the parent's callbacks all run once.  Not
 * under ThreadSanitizer, which cannot follow a multi-threaded fork(),
 * nor under AddressSanitizer: GCC 12's runtime does not lock its
 * allocator across fork(), and the child's new callback thread then
 * finds it held by a parent thread that was allocating (1 child in 6
 * hung there, in __sanitizer::SizeClassAllocator64::GetFromAllocator,
 * never in the library). */
#if !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
static void fork_in_burst(struct producer *p, bool off)
{
	pid_t pid;
	int status;

	start(p, 1, 0);
	while ((off || atomic_load(&local_seen) == 0) &&
	       !atomic_load(&p->queued))
		usleep(100);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		struct rcb_backlog bl;

		alarm(60);
		if (rcb_barrier() != 0)
			_exit(2);
		rcb_backlog(&bl);
		_exit(bl.callbacks == 0 ? 0 : 3);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	wait_queued(p);
	finish(p);
	CHECK_EQ(rcb_barrier(), 0);
	check_all_ran("fork");
}
#endif

int main(int argc, char **argv)
{
	struct producer p[MAX_PRODUCERS];
	bool off;

	per_thread = argc > 1 ? atol(argv[1]) : 1000000;
	off = argc > 2 && !strcmp(argv[2], "off");
	CHECK(per_thread > 0);
	alarm(600);
	CHECK_EQ(rcb_init(NULL), 0);

	/* A barrier from another thread while two producers, done
	 * queueing, stay registered and idle (L6). */
	start(&p[0], 0, 0);
	start(&p[1], 1, 0);
	wait_queued(&p[0]);
	wait_queued(&p[1]);
	CHECK_EQ(rcb_barrier(), 0);
	check_all_ran("barrier");
	finish(&p[0]);
	finish(&p[1]);

	/* An idle producer, no barrier: its lists are taken anyway (L2). */
	start(&p[2], 2, 0);
	wait_queued(&p[2]);
	wait_all_invoked("idle");
	finish(&p[2]);

	/* A producer that exits registered right after its burst, and one
	 * that unregisters: their lists become orphans (L3). */
	start(&p[3], 3, 2);
	start(&p[0], 0, 1);
	CHECK_EQ(pthread_join(p[3].thread, NULL), 0);
	CHECK_EQ(pthread_join(p[0].thread, NULL), 0);
	wait_all_invoked("exit");
	CHECK_EQ(rcb_barrier(), 0);
	check_all_ran("exit");

	/* fork() in the middle of a burst (L8); not under the
	 * sanitizers (fork_in_burst()). */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
	printf("skip: fork in a burst (sanitizer runtime)\n");
#else
	fork_in_burst(&p[1], off);
#endif

	/* rcb_shutdown() right after a burst runs every callback. */
	start(&p[2], 2, 1);
	CHECK_EQ(pthread_join(p[2].thread, NULL), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	check_all_ran("shutdown");

	if (off) {
		/* RCUBOOST_CALLBACK_LOCAL=0: never on. */
		if (atomic_load(&local_seen) != 0) {
			fprintf(stderr, "local mode was on %ld times although turned off\n",
				atomic_load(&local_seen));
			return 1;
		}
		printf("ok: %ld callbacks, each once, in each thread's order; local mode off\n",
		       total_queued());
		return 0;
	}
	/* Local mode must have been on: otherwise this tested the queue. */
	if (atomic_load(&local_seen) == 0) {
		fprintf(stderr, "local mode was never on while %ld callbacks were queued back to back\n",
			total_queued());
		return 1;
	}
	printf("ok: %ld callbacks, each once, in each thread's order; local mode seen %ld times\n",
	       total_queued(), atomic_load(&local_seen));
	return 0;
}
