/* SPDX-License-Identifier: MIT */
/*
 * A liburcu (urcu-memb) program that checks its own behaviour.  Built
 * twice from this file: against liburcu, and with -DUSE_RCUBOOST against
 * rcuboost's drop-in header.  Only the include below and the link flag
 * differ, which is the promise of <rcuboost/urcu.h>.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep() */

#ifdef USE_RCUBOOST
#include <rcuboost/urcu.h>
#else
#define _LGPL_SOURCE
#include <urcu.h>
/* liburcu exports it and maps rcu_defer_exit to it (urcu/map/urcu-memb.h),
 * but declares it in no header: gcc hides the implicit declaration inside
 * a system header's macro, clang does not. */
void urcu_memb_defer_exit(void);
#endif

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "%s:%d: check failed: %s\n",       \
				__FILE__, __LINE__, #cond);                \
			exit(1);                                           \
		}                                                          \
	} while (0)

#define NOBJ 200

struct obj {
	int value;
	atomic_int dead;
	struct rcu_head rcu;
};

static struct obj *gptr;
static atomic_int freed, deferred;
static atomic_int reader_in, reader_go, reader_out;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static struct obj *new_obj(int value)
{
	struct obj *o = calloc(1, sizeof(*o));

	CHECK(o);
	o->value = value;
	return o;
}

static void free_obj(struct rcu_head *head)
{
	struct obj *o = caa_container_of(head, struct obj, rcu);

	atomic_store(&o->dead, 1);
	atomic_fetch_add(&freed, 1);
	free(o);
}

static void deferred_free(void *p)
{
	atomic_fetch_add(&deferred, 1);
	free(p);
}

/* Holds one read-side critical section until main says go. */
static void *reader(void *arg)
{
	struct obj *p;

	(void)arg;
	rcu_register_thread();
	rcu_read_lock();
	p = rcu_dereference(gptr);
	CHECK(p && p->value == 2);
	atomic_store(&reader_in, 1);
	while (!atomic_load(&reader_go))
		sleep_ms(1);
	sleep_ms(100);
	CHECK(!atomic_load(&p->dead) && p->value == 2);
	atomic_store(&reader_out, 1);
	rcu_read_unlock();
	rcu_unregister_thread();
	return NULL;
}

static void start_reader(pthread_t *t)
{
	atomic_store(&reader_in, 0);
	atomic_store(&reader_go, 0);
	atomic_store(&reader_out, 0);
	CHECK(pthread_create(t, NULL, reader, NULL) == 0);
	while (!atomic_load(&reader_in))
		sleep_ms(1);
}

int main(void)
{
	struct obj *a, *b, *c, *old;
	pthread_t t;
	int i;

	rcu_register_thread();

	/* Nesting and rcu_read_ongoing(). */
	CHECK(!rcu_read_ongoing());
	rcu_read_lock();
	CHECK(rcu_read_ongoing());
	rcu_read_lock();
	rcu_read_unlock();
	CHECK(rcu_read_ongoing());
	rcu_read_unlock();
	CHECK(!rcu_read_ongoing());

	/* Publication. */
	a = new_obj(1);
	rcu_assign_pointer(gptr, a);
	rcu_read_lock();
	old = rcu_dereference(gptr);
	CHECK(old == a && old->value == 1);
	rcu_read_unlock();
	b = new_obj(2);
	old = rcu_xchg_pointer(&gptr, b);
	CHECK(old == a);
	synchronize_rcu();
	free(a);

	/* synchronize_rcu() waits for a reader that began before it. */
	start_reader(&t);
	c = new_obj(3);
	old = rcu_xchg_pointer(&gptr, c);
	CHECK(old == b);
	atomic_store(&reader_go, 1);
	synchronize_rcu();
	CHECK(atomic_load(&reader_out));
	atomic_store(&b->dead, 1);
	free(b);
	CHECK(pthread_join(t, NULL) == 0);

	/* call_rcu() defers past a pre-existing reader; rcu_barrier() waits
	 * for every queued callback. */
	b = new_obj(2);
	rcu_assign_pointer(gptr, b);
	start_reader(&t);
	old = rcu_xchg_pointer(&gptr, c);
	CHECK(old == b);
	call_rcu(&b->rcu, free_obj);
	sleep_ms(50);
	CHECK(atomic_load(&freed) == 0);
	atomic_store(&reader_go, 1);
	for (i = 1; i < NOBJ; i++)
		call_rcu(&new_obj(i)->rcu, free_obj);
	rcu_barrier();
	CHECK(atomic_load(&reader_out));
	CHECK(atomic_load(&freed) == NOBJ);
	CHECK(pthread_join(t, NULL) == 0);

	/* defer_rcu(). */
	CHECK(rcu_defer_register_thread() == 0);
	for (i = 0; i < NOBJ; i++)
		defer_rcu(deferred_free, new_obj(i));
	rcu_defer_barrier();
	CHECK(atomic_load(&deferred) == NOBJ);
	rcu_defer_unregister_thread();
	rcu_defer_exit(); /* liburcu exports it; a no-op here */

	rcu_assign_pointer(gptr, NULL);
	synchronize_rcu();
	free(c);
	rcu_unregister_thread();
	printf("ok\n");
	return 0;
}
