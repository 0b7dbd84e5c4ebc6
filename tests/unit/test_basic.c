/* Basic contract of the core: nesting, synchronize waits for a
 * pre-existing reader and not for a later one, callbacks run after a
 * grace period, barrier, backlog accounting. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

static atomic_int reader_in, reader_release;

static void *long_reader(void *arg)
{
	(void)arg;
	CHECK_EQ(rcb_register_thread(), 0);
	rcb_read_lock();
	atomic_store(&reader_in, 1);
	while (!atomic_load(&reader_release))
		usleep(1000);
	rcb_read_unlock();
	CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

static atomic_int sync_done;

static void *syncer(void *arg)
{
	(void)arg;
	CHECK_EQ(rcb_synchronize(), 0);
	atomic_store(&sync_done, 1);
	return NULL;
}

struct obj {
	struct rcb_head_sized head;
	int *counter;
};

static void free_obj(struct rcb_head *h)
{
	struct obj *o = (struct obj *)h;

	(*o->counter)++;
	free(o);
}

int main(void)
{
	pthread_t r, s;
	struct rcb_backlog bl;
	int counter = 0;

	CHECK_EQ(rcb_register_thread(), 0);
	CHECK(!rcb_read_ongoing());
	rcb_read_lock();
	rcb_read_lock();
	CHECK(rcb_read_ongoing());
	rcb_read_unlock();
	CHECK(rcb_read_ongoing());
	rcb_read_unlock();
	CHECK(!rcb_read_ongoing());
	CHECK_EQ(rcb_synchronize(), 0);

	/* A pre-existing reader holds the grace period. */
	pthread_create(&r, NULL, long_reader, NULL);
	while (!atomic_load(&reader_in))
		usleep(1000);
	pthread_create(&s, NULL, syncer, NULL);
	usleep(200 * 1000);
	CHECK(!atomic_load(&sync_done));
	/* A reader that starts now does not. */
	rcb_read_lock();
	atomic_store(&reader_release, 1);
	pthread_join(r, NULL);
	pthread_join(s, NULL);
	CHECK(atomic_load(&sync_done));
	rcb_read_unlock();

	/* Callbacks: queued, counted, invoked after a grace period. */
	for (int i = 0; i < 1000; i++) {
		struct obj *o = malloc(sizeof(*o));

		o->counter = &counter;
		CHECK_EQ(rcb_call_sized(&o->head, free_obj, sizeof(*o)), 0);
	}
	rcb_backlog(&bl);
	CHECK(bl.peak_callbacks >= 1);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(counter, 1000);
	rcb_backlog(&bl);
	CHECK_EQ(bl.callbacks, 0);
	CHECK_EQ(bl.bytes, 0);
	CHECK_EQ(bl.invoked, 1000);
	CHECK(bl.peak_bytes <= 1000 * sizeof(struct obj));
	CHECK_EQ(rcb_shutdown(), 0);
	CHECK_EQ(rcb_shutdown(), -EALREADY);
	printf("flavor %s\n", rcb_flavor_name(rcb_flavor()));
	return 0;
}
