/* A thread that never registers is registered by its first rcb_read_lock(),
 * held by grace periods, and unregistered at exit. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/unit/harness.h"

static atomic_int r_in, r_go, r_out, r_exit;

static void *reader(void *arg)
{
	(void)arg;
	CHECK(!rcb_read_ongoing());
	rcb_read_lock();
	rcb_read_lock();
	rcb_read_unlock();
	CHECK(rcb_read_ongoing());
	atomic_store(&r_in, 1);
	rcbt_wait_flag(&r_go);
	rcb_read_unlock();
	CHECK(!rcb_read_ongoing());
	atomic_store(&r_out, 1);
	rcbt_wait_flag(&r_exit);
	return NULL;
}

static void t_gp_waits(const struct rcbt_case *c)
{
	unsigned long long base;
	struct rcbt_syncer s;
	pthread_t t;

	if (c->num)
		CHECK_EQ(rcb_init(NULL), 0);
	base = c->num ? rcbt_registered() : 0;
	CHECK_EQ(pthread_create(&t, NULL, reader, NULL), 0);
	rcbt_wait_flag(&r_in);
	CHECK_EQ(rcbt_registered(), base + 1);
	rcbt_syncer_start_blocked(&s);
	atomic_store(&r_go, 1);
	rcbt_syncer_finish(&s);
	rcbt_wait_flag(&r_out);
	CHECK_EQ(rcbt_registered(), base + 1);
	CHECK_EQ(rcb_synchronize(), 0);
	atomic_store(&r_exit, 1);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(rcbt_registered(), base);
	CHECK_EQ(rcb_synchronize(), 0);
}

static void *short_reader(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++) {
		rcb_read_lock();
		rcb_read_unlock();
	}
	if (arg)
		CHECK_EQ(rcb_unregister_thread(), 0);
	return NULL;
}

/* Many short-lived readers leave no registration behind. */
static void t_many(const struct rcbt_case *c)
{
	pthread_t t[16];
	unsigned long long base;

	(void)c;
	CHECK_EQ(rcb_init(NULL), 0);
	base = rcbt_registered();
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 16; i++)
			CHECK_EQ(pthread_create(&t[i], NULL, short_reader,
						i % 3 == 0 ? &t[i] : NULL), 0);
		CHECK_EQ(rcb_synchronize(), 0);
		for (int i = 0; i < 16; i++)
			CHECK_EQ(pthread_join(t[i], NULL), 0);
		CHECK_EQ(rcbt_registered(), base);
	}
	CHECK_EQ(rcb_synchronize(), 0);
}

/* After an explicit unregister the next rcb_read_lock() registers again. */
static void t_reregister(const struct rcbt_case *c)
{
	unsigned long long base;
	struct rcbt_syncer s;

	(void)c;
	CHECK_EQ(rcb_init(NULL), 0);
	base = rcbt_registered();
	CHECK_EQ(rcb_register_thread(), 0);
	CHECK_EQ(rcb_register_thread(), 0);
	CHECK_EQ(rcbt_registered(), base + 1);
	CHECK_EQ(rcb_unregister_thread(), 0);
	CHECK_EQ(rcbt_registered(), base);
	rcb_read_lock();
	CHECK_EQ(rcbt_registered(), base + 1);
	rcbt_syncer_start_blocked(&s);
	rcb_read_unlock();
	rcbt_syncer_finish(&s);
	CHECK_EQ(rcb_unregister_thread(), 0);
	CHECK_EQ(rcb_unregister_thread(), -ENOENT);
	CHECK_EQ(rcbt_registered(), base);
}

static const struct rcbt_case cases[] = {
	{ "gp_waits_for_unregistered/lazy", t_gp_waits, 0, { 0 }, { 0 },
	  { "rcuboost" }, NULL, 0 },
	{ "gp_waits_for_unregistered/init", t_gp_waits, 0, { 0 }, { 0 },
	  { "rcuboost" }, NULL, 1 },
	{ "many_short_threads", t_many, 0, { 0 }, { 0 }, { "rcuboost" }, NULL, 0 },
	{ "reregister", t_reregister, 0, { 0 }, { 0 }, { "rcuboost" }, NULL, 0 },
};

int main(int argc, char **argv)
{
	return rcbt_main(argc, argv, cases,
			 (int)(sizeof(cases) / sizeof(cases[0])));
}
