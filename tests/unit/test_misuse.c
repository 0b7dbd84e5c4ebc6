/* Misuse is reported naming the call, the problem and the thread; WARN refuses
 * it and leaves consistent state, ABORT dies. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/unit/harness.h"

static atomic_int counter;

static void count_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&counter, 1);
}

static void t_unlock_without_lock(const struct rcbt_case *c)
{
	struct rcbt_syncer s;
	unsigned long long m;

	(void)c;
	rcbt_init();
	rcbt_set_name("rcbt-unlock");
	CHECK_EQ(rcb_register_thread(), 0);
	m = rcbt_misuse_count();
	rcbt_expect_misuse("rcb_read_unlock", "without");
	rcb_read_unlock();
	CHECK_EQ(rcbt_misuse_count(), m + 1);
	CHECK(!rcb_read_ongoing());
	CHECK_EQ(rcb_synchronize(), 0);

	rcb_read_lock();
	rcb_read_lock();
	rcb_read_unlock();
	CHECK(rcb_read_ongoing());
	rcbt_syncer_start_blocked(&s);
	rcb_read_unlock();
	rcbt_syncer_finish(&s);
	CHECK(!rcb_read_ongoing());

	rcb_read_lock();
	rcb_read_unlock();
	rcbt_expect_misuse("rcb_read_unlock", "without");
	rcb_read_unlock();
	CHECK_EQ(rcbt_misuse_count(), m + 2);
	CHECK(!rcb_read_ongoing());
	CHECK_EQ(rcb_synchronize(), 0);
}

static void t_sync_in_section(const struct rcbt_case *c)
{
	struct rcbt_syncer s;
	unsigned long long m;

	(void)c;
	rcbt_init();
	rcbt_set_name("rcbt-sync");
	m = rcbt_misuse_count();
	rcb_read_lock();
	rcb_read_lock();
	rcbt_expect_misuse("rcb_synchronize", "critical section");
	CHECK_EQ(rcb_synchronize(), -EDEADLK);
	CHECK_EQ(rcbt_misuse_count(), m + 1);
	CHECK(rcb_read_ongoing());
	rcbt_syncer_start_blocked(&s);
	rcb_read_unlock();
	rcbt_sleep_ms(50);
	CHECK(!atomic_load(&s.done));
	rcb_read_unlock();
	rcbt_syncer_finish(&s);
	CHECK_EQ(rcb_synchronize(), 0);
	CHECK_EQ(rcbt_misuse_count(), m + 1);
}

static void t_barrier_in_section(const struct rcbt_case *c)
{
	struct rcb_head h;
	struct rcbt_syncer s;
	unsigned long long m;

	(void)c;
	rcbt_init();
	rcbt_set_name("rcbt-barrier");
	m = rcbt_misuse_count();
	CHECK_EQ(rcb_call(&h, count_cb), 0);
	rcb_read_lock();
	rcbt_expect_misuse("rcb_barrier", "critical section");
	CHECK_EQ(rcb_barrier(), -EDEADLK);
	CHECK_EQ(rcbt_misuse_count(), m + 1);
	CHECK(rcb_read_ongoing());
	rcbt_syncer_start_blocked(&s);
	rcb_read_unlock();
	rcbt_syncer_finish(&s);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&counter), 1);
}

static void t_unregister_in_section(const struct rcbt_case *c)
{
	struct rcbt_syncer s;
	unsigned long long m, reg;

	(void)c;
	rcbt_init();
	rcbt_set_name("rcbt-unreg");
	CHECK_EQ(rcb_register_thread(), 0);
	reg = rcbt_registered();
	m = rcbt_misuse_count();
	rcb_read_lock();
	rcbt_expect_misuse("rcb_unregister_thread", "critical section");
	CHECK_EQ(rcb_unregister_thread(), -EBUSY);
	CHECK_EQ(rcbt_misuse_count(), m + 1);
	CHECK(rcb_read_ongoing());
	CHECK_EQ(rcbt_registered(), reg);
	rcbt_syncer_start_blocked(&s);
	rcb_read_unlock();
	rcbt_syncer_finish(&s);
	CHECK_EQ(rcb_unregister_thread(), 0);
	CHECK_EQ(rcbt_registered(), reg - 1);
	CHECK_EQ(rcb_unregister_thread(), -ENOENT);
	CHECK_EQ(rcbt_misuse_count(), m + 1);
	CHECK_EQ(rcb_synchronize(), 0);
}

static void t_call_null(const struct rcbt_case *c)
{
	struct rcb_head_sized hs, hs_copy;
	struct rcb_head h, copy;
	struct rcb_backlog bl;
	unsigned long long m;

	rcbt_init();
	rcbt_set_name("rcbt-callnull");
	m = rcbt_misuse_count();
	memset(&h, 0xa5, sizeof(h));
	copy = h;
	memset(&hs, 0xa5, sizeof(hs));
	hs_copy = hs;
	if (c->num == 0) {
		rcbt_expect_misuse("rcb_call", "rcb_head");
		CHECK_EQ(rcb_call(NULL, count_cb), -EINVAL);
		rcbt_expect_misuse("rcb_call_sized", "function");
		CHECK_EQ(rcb_call_sized(&hs, NULL, 64), -EINVAL);
	} else {
		rcbt_expect_misuse("rcb_call", "function");
		CHECK_EQ(rcb_call(&h, NULL), -EINVAL);
		rcbt_expect_misuse("rcb_call_sized", "rcb_head_sized");
		CHECK_EQ(rcb_call_sized(NULL, count_cb, 64), -EINVAL);
	}
	CHECK_EQ(rcbt_misuse_count(), m + 2);
	CHECK(memcmp(&h, &copy, sizeof(h)) == 0);
	CHECK(memcmp(&hs, &hs_copy, sizeof(hs)) == 0);
	rcb_backlog(&bl);
	CHECK_EQ(bl.callbacks, 0);
	CHECK_EQ(bl.bytes, 0);
	CHECK_EQ(rcb_barrier(), 0);
	rcb_backlog(&bl);
	CHECK_EQ(bl.invoked, 0);
	CHECK_EQ(atomic_load(&counter), 0);
	CHECK_EQ(rcb_call(&h, count_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&counter), 1);
}

/* One misuse repeated in a loop: every one counted, the first 100
 * printed, then only the reports numbered by a power of two (128, 256,
 * 512), each saying its number. */
static void t_repeated_misuse(const struct rcbt_case *c)
{
	static char out[64 * 1024];
	struct rcb_head h;
	unsigned long long m;
	int saved, lines = 0;

	(void)c;
	rcbt_init();
	CHECK_EQ(rcb_shutdown(), 0);
	m = rcbt_misuse_count();
	saved = rcbt_capture_begin();
	for (int i = 0; i < 1000; i++)
		CHECK_EQ(rcb_call(&h, count_cb), -ESHUTDOWN);
	rcbt_capture_end(saved, out, sizeof(out));
	for (const char *p = out; (p = strstr(p, "rcuboost: misuse: rcb_call")); p++)
		lines++;
	printf("1000 rcb_call() after rcb_shutdown(): %d lines printed, %llu counted\n",
	       lines, rcbt_misuse_count() - m);
	CHECK_EQ(rcbt_misuse_count(), m + 1000);
	CHECK_EQ(lines, 103);
	CHECK(strstr(out, "report 512 of this kind") != NULL);
	CHECK(strstr(out, "report 101 ") == NULL);
}

static void t_call_after_shutdown(const struct rcbt_case *c)
{
	struct rcb_head_sized hs, hs_copy;
	struct rcb_head a, h, copy;
	struct rcb_backlog bl;
	unsigned long long m;

	(void)c;
	rcbt_init();
	rcbt_set_name("rcbt-callshut");
	CHECK_EQ(rcb_call(&a, count_cb), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	CHECK_EQ(atomic_load(&counter), 1);
	m = rcbt_misuse_count();
	memset(&h, 0x5a, sizeof(h));
	copy = h;
	memset(&hs, 0x5a, sizeof(hs));
	hs_copy = hs;
	rcbt_expect_misuse("rcb_call", "shutdown");
	CHECK_EQ(rcb_call(&h, count_cb), -ESHUTDOWN);
	rcbt_expect_misuse("rcb_call_sized", "shutdown");
	CHECK_EQ(rcb_call_sized(&hs, count_cb, 100), -ESHUTDOWN);
	CHECK_EQ(rcbt_misuse_count(), m + 2);
	CHECK(memcmp(&h, &copy, sizeof(h)) == 0);
	CHECK(memcmp(&hs, &hs_copy, sizeof(hs)) == 0);
	rcb_backlog(&bl);
	CHECK_EQ(bl.callbacks, 0);
	CHECK_EQ(bl.bytes, 0);
	CHECK_EQ(rcb_barrier(), 0);
	rcbt_sleep_ms(50);
	CHECK_EQ(atomic_load(&counter), 1);
	/* Not "boosting is off or not permitted": it is shut down. */
	rcbt_expect("rcuboost: rcb_synchronize_expedited: |is shut down (rcb_shutdown())");
	CHECK_EQ(rcb_synchronize_expedited(), 0);

	rcbt_init();
	CHECK_EQ(rcb_call(&h, count_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&counter), 2);
	CHECK_EQ(rcb_shutdown(), 0);
}

static int cb_sync_ret = 1, cb_call_ret = 1, cb_misuse_ret = 1;
static atomic_int cb_done;
static struct rcb_head cb_extra;

struct case_head {
	struct rcb_head h;
	const struct rcbt_case *c;
};

static void misuse_cb(struct rcb_head *h)
{
	const struct rcbt_case *c = ((struct case_head *)h)->c;

	cb_sync_ret = rcb_synchronize();
	cb_call_ret = rcb_call(&cb_extra, count_cb);
	if (c->num == 0) {
		rcbt_expect_misuse("rcb_barrier", "callback");
		cb_misuse_ret = rcb_barrier();
	} else if (c->num == 1) {
		rcbt_expect_misuse("rcb_shutdown", "callback");
		cb_misuse_ret = rcb_shutdown();
	} else {
		rcbt_expect_misuse("rcb_init", "callback");
		cb_misuse_ret = rcb_init(NULL);
	}
	atomic_store(&cb_done, 1);
}

static void t_in_callback(const struct rcbt_case *c)
{
	struct case_head w = { .c = c };
	unsigned long long m;

	rcbt_init();
	m = rcbt_misuse_count();
	CHECK_EQ(rcb_call(&w.h, misuse_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK(atomic_load(&cb_done));
	CHECK_EQ(cb_sync_ret, 0);
	CHECK_EQ(cb_call_ret, 0);
	CHECK_EQ(cb_misuse_ret, -EDEADLK);
	CHECK_EQ(rcbt_misuse_count(), m + 1);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&counter), 1);
	CHECK_EQ(rcb_call(&w.h, count_cb), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	CHECK_EQ(atomic_load(&counter), 2);
}

static atomic_int ex_in, ex_go;

static void *exiter(void *arg)
{
	rcbt_set_name("rcbt-exiter");
	if (arg)
		CHECK_EQ(rcb_register_thread(), 0);
	rcb_read_lock();
	rcb_read_lock();
	rcbt_expect_misuse("thread exit", "critical section");
	atomic_store(&ex_in, 1);
	rcbt_wait_flag(&ex_go);
	return NULL;
}

static void t_exit_in_section(const struct rcbt_case *c)
{
	unsigned long long m, reg;
	struct rcbt_syncer s;
	pthread_t t;

	rcbt_init();
	CHECK_EQ(rcb_register_thread(), 0);
	reg = rcbt_registered();
	m = rcbt_misuse_count();
	CHECK_EQ(pthread_create(&t, NULL, exiter, c->num ? &t : NULL), 0);
	rcbt_wait_flag(&ex_in);
	CHECK_EQ(rcbt_registered(), reg + 1);
	rcbt_syncer_start_blocked(&s);
	atomic_store(&ex_go, 1);
	CHECK_EQ(pthread_join(t, NULL), 0);
	rcbt_syncer_finish(&s);
	CHECK_EQ(rcbt_registered(), reg);
	CHECK_EQ(rcbt_misuse_count(), m + 1);
	CHECK_EQ(rcb_synchronize(), 0);
	CHECK_EQ(rcb_call(&cb_extra, count_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&counter), 1);
}

/* rcb_init() with other settings is refused (not a misuse: no abort);
 * the active settings stay, shown by the policy of a later misuse. */
static void t_stats_null(const struct rcbt_case *c)
{
	unsigned long long m;

	rcbt_init();
	m = rcbt_misuse_count();
	if (c->num == 0) {
		rcbt_expect_misuse("rcb_stats", "NULL");
		rcb_stats(NULL);
	} else {
		rcbt_expect_misuse("rcb_backlog", "NULL");
		rcb_backlog(NULL);
	}
	CHECK_EQ(rcbt_misuse_count(), m + 1);
}

static void t_init_in_section(const struct rcbt_case *c)
{
	unsigned long long m;

	(void)c;
	rcbt_init();
	m = rcbt_misuse_count();
	rcb_read_lock();
	rcbt_expect_misuse("rcb_init", "critical section");
	CHECK_EQ(rcb_init(NULL), -EDEADLK);
	rcb_read_unlock();
	CHECK_EQ(rcbt_misuse_count(), m + 1);
	CHECK_EQ(rcb_synchronize(), 0);
}

static void t_init_twice(const struct rcbt_case *c)
{
	enum rcb_misuse_policy mine, other;
	struct rcb_config cfg = { 0 };

	rcbt_init();
	mine = c->num ? RCB_MISUSE_ABORT : RCB_MISUSE_WARN;
	other = c->num ? RCB_MISUSE_WARN : RCB_MISUSE_ABORT;
	cfg.misuse = mine;
	CHECK_EQ(rcb_init(&cfg), 0);

	cfg.callback_batch_us = 500;
	rcbt_expect("rcuboost: rcb_init: |callback_batch_us");
	CHECK_EQ(rcb_init(&cfg), -EBUSY);
	cfg.callback_batch_us = 0;
	cfg.stats_interval_s = 7;
	rcbt_expect("rcuboost: rcb_init: |stats_interval_s");
	CHECK_EQ(rcb_init(&cfg), -EBUSY);
	cfg.stats_interval_s = 0;
	cfg.misuse = other;
	rcbt_expect("rcuboost: rcb_init: |misuse");
	CHECK_EQ(rcb_init(&cfg), -EBUSY);
	cfg.misuse = mine;
	cfg.flavor = rcb_flavor() == RCB_FLAVOR_MEMBARRIER ?
			     RCB_FLAVOR_REQUIRE_FENCE :
			     RCB_FLAVOR_REQUIRE_MEMBARRIER;
	rcbt_expect("rcuboost: rcb_init: |flavor");
	CHECK_EQ(rcb_init(&cfg), -EBUSY);
	cfg.flavor = rcb_flavor() == RCB_FLAVOR_MEMBARRIER ?
			     RCB_FLAVOR_REQUIRE_MEMBARRIER :
			     RCB_FLAVOR_REQUIRE_FENCE;
	CHECK_EQ(rcb_init(&cfg), 0);
	cfg.flavor = RCB_FLAVOR_AUTO;
	CHECK_EQ(rcb_init(&cfg), 0);
	CHECK_EQ(rcbt_misuse_count(), 0);
	CHECK_EQ(rcb_synchronize(), 0);

	rcbt_expect_misuse("rcb_read_unlock", "without");
	rcb_read_unlock();
	CHECK_EQ(rcbt_misuse_count(), 1);
}

#define WARN_ENV "RCBT_POLICY=cfg-warn", "RCUBOOST_MISUSE"
#define ABORT_ENV "RCBT_POLICY=env", "RCUBOOST_MISUSE=abort"
#define EWARN_ENV "RCBT_POLICY=env", "RCUBOOST_MISUSE=warn"
#define CABORT_ENV "RCBT_POLICY=cfg-abort", "RCUBOOST_MISUSE"

/* Policy set through struct rcb_config for WARN, the environment for ABORT. */
#define MISUSE_A(name, fn, n, call)                                          \
	{ name "/warn", fn, 0, { WARN_ENV }, { "rcuboost: misuse: " call ": " }, \
	  { "aborting" }, NULL, n },                                             \
	{ name "/abort", fn, SIGABRT, { ABORT_ENV },                             \
	  { "rcuboost: misuse: " call ": ", "rcuboost: aborting" }, { 0 }, NULL, n }
/* The other way round. */
#define MISUSE_B(name, fn, n, call)                                          \
	{ name "/warn", fn, 0, { EWARN_ENV }, { "rcuboost: misuse: " call ": " },\
	  { "aborting" }, NULL, n },                                             \
	{ name "/abort", fn, SIGABRT, { CABORT_ENV },                            \
	  { "rcuboost: misuse: " call ": ", "rcuboost: aborting" }, { 0 }, NULL, n }

static const struct rcbt_case cases[] = {
	MISUSE_A("unlock_without_lock", t_unlock_without_lock, 0, "rcb_read_unlock"),
	MISUSE_B("synchronize_in_section", t_sync_in_section, 0, "rcb_synchronize"),
	MISUSE_A("barrier_in_section", t_barrier_in_section, 0, "rcb_barrier"),
	MISUSE_B("unregister_in_section", t_unregister_in_section, 0,
		 "rcb_unregister_thread"),
	MISUSE_A("call_null_head", t_call_null, 0, "rcb_call"),
	MISUSE_B("call_null_func", t_call_null, 1, "rcb_call"),
	MISUSE_A("call_after_shutdown", t_call_after_shutdown, 0, "rcb_call"),
	{ "repeated_misuse/warn", t_repeated_misuse, 0, { EWARN_ENV }, { 0 },
	  { "aborting" }, NULL, 0 },
	MISUSE_B("barrier_in_callback", t_in_callback, 0, "rcb_barrier"),
	MISUSE_A("shutdown_in_callback", t_in_callback, 1, "rcb_shutdown"),
	MISUSE_B("init_in_callback", t_in_callback, 2, "rcb_init"),
	MISUSE_A("init_in_section", t_init_in_section, 0, "rcb_init"),
	MISUSE_B("stats_null", t_stats_null, 0, "rcb_stats"),
	MISUSE_A("backlog_null", t_stats_null, 1, "rcb_backlog"),
	MISUSE_B("exit_in_section", t_exit_in_section, 0, "thread exit"),
	MISUSE_A("exit_in_section_registered", t_exit_in_section, 1, "thread exit"),
	{ "init_twice/warn", t_init_twice, 0, { WARN_ENV }, { 0 }, { "aborting" },
	  NULL, 0 },
	{ "init_twice/abort", t_init_twice, SIGABRT, { CABORT_ENV },
	  { "rcuboost: aborting" }, { 0 }, NULL, 1 },
};

int main(int argc, char **argv)
{
	return rcbt_main(argc, argv, cases,
			 (int)(sizeof(cases) / sizeof(cases[0])));
}
