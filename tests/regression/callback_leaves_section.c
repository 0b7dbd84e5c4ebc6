/* A hostile-user probe (2026-12-06): a callback that returned inside a
 * read-side critical section left the callback thread a reader for good.
 * Its next grace period was refused (-EDEADLK: "called inside a read-side
 * critical section", naming a call the user never made) and the batch
 * invoked anyway, so the next callback freed an object under a reader;
 * every rcb_synchronize() from then on waited forever.  The same for a
 * deferred function (rcb_defer()).
 *
 * Each round: a leaking function runs (a callback, then a deferred
 * function); then a reader holds an object while it is retired with
 * rcb_call(), and must see it alive for its whole section; then
 * rcb_synchronize() must return (10 s bound).  stderr must name the
 * leaking function's address.  Public API only. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

struct obj {
	struct rcb_head rcu;
	atomic_int alive;
};

/* rcb_dereference() and rcb_assign_pointer() take plain pointers */
static struct obj *gobj;
static atomic_int reader_in, reader_bad, synced;

static void leaky_cb(struct rcb_head *h)
{
	(void)h;
	rcb_read_lock();
	rcb_read_lock();
}

static void leaky_fn(void *p)
{
	(void)p;
	rcb_read_lock();
}

static void free_cb(struct rcb_head *h)
{
	struct obj *o = (struct obj *)(void *)h;

	atomic_store(&o->alive, 0);
}

/* Holds the object for 200 ms, looking at it every 10 ms. */
static void *reader(void *arg)
{
	struct obj *o;

	(void)arg;
	rcb_read_lock();
	o = rcb_dereference(gobj);
	atomic_store(&reader_in, 1);
	for (int i = 0; i < 20 && o; i++) {
		usleep(10000);
		if (!atomic_load(&o->alive))
			atomic_store(&reader_bad, 1);
	}
	rcb_read_unlock();
	return NULL;
}

static void *syncer(void *arg)
{
	(void)arg;
	CHECK_EQ(rcb_synchronize(), 0);
	atomic_store(&synced, 1);
	return NULL;
}

/* After a leak: a reader keeps its object, a grace period completes. */
static void check_round(const char *what)
{
	struct obj o = { .alive = 1 };
	pthread_t r, s;

	atomic_store(&reader_in, 0);
	atomic_store(&reader_bad, 0);
	atomic_store(&synced, 0);
	rcb_assign_pointer(gobj, &o);
	CHECK_EQ(pthread_create(&r, NULL, reader, NULL), 0);
	while (!atomic_load(&reader_in))
		usleep(1000);
	rcb_assign_pointer(gobj, NULL);
	CHECK_EQ(rcb_call(&o.rcu, free_cb), 0);
	CHECK_EQ(pthread_join(r, NULL), 0);
	printf("%s: the reader saw its object %s\n", what,
	       atomic_load(&reader_bad) ? "freed under it" : "alive throughout");
	CHECK_EQ(atomic_load(&reader_bad), 0);
	CHECK_EQ(pthread_create(&s, NULL, syncer, NULL), 0);
	for (int i = 0; i < 1000 && !atomic_load(&synced); i++)
		usleep(10000);
	printf("%s: rcb_synchronize() %s\n", what,
	       atomic_load(&synced) ? "returned" : "still waits after 10 s");
	CHECK(atomic_load(&synced));
	CHECK_EQ(pthread_join(s, NULL), 0);
	CHECK_EQ(rcb_barrier(), 0); /* o is on this stack frame */
}

int main(void)
{
	char path[] = "/tmp/rcb-cbsect-XXXXXX", text[8192], want[2][64];
	int fd = mkstemp(path), saved = dup(2);
	static struct rcb_head h;
	ssize_t n;

	CHECK(fd >= 0 && saved >= 0);
	unlink(path);
	CHECK(getenv("RCUBOOST_MISUSE") && strcmp(getenv("RCUBOOST_MISUSE"), "warn") == 0);
	/* "function 0x... (program+0x...) returned inside a read-side" */
	snprintf(want[0], sizeof(want[0]), "function %p (", (void *)(uintptr_t)leaky_cb);
	snprintf(want[1], sizeof(want[1]), "function %p (", (void *)(uintptr_t)leaky_fn);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK(dup2(fd, 2) == 2);

	CHECK_EQ(rcb_call(&h, leaky_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	check_round("callback");

	CHECK_EQ(rcb_defer(leaky_fn, NULL), 0);
	CHECK_EQ(rcb_defer_barrier(), 0);
	printf("deferred function: the caller of rcb_defer_barrier() is %s a section\n",
	       rcb_read_ongoing() ? "inside" : "outside");
	CHECK(!rcb_read_ongoing());
	check_round("deferred function");

	CHECK(dup2(saved, 2) == 2);
	n = pread(fd, text, sizeof(text) - 1, 0);
	CHECK(n >= 0);
	text[n] = '\0';
	printf("stderr:\n%s", text);
	for (int i = 0; i < 2; i++) {
		const char *at = strstr(text, want[i]);

		printf("stderr names %s: %s\n", i ? "leaky_fn" : "leaky_cb", at ? "yes" : "no");
		CHECK(at != NULL);
		CHECK(strstr(at, ") returned inside a read-side critical section") != NULL);
	}
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
