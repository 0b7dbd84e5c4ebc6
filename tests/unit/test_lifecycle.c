/* Lifecycle: lazy init, init/shutdown/init, shutdown drains every callback,
 * -EALREADY, flavor selection and names. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/unit/harness.h"

#define NCB 1000

struct obj {
	struct rcb_head_sized head;
	char pad[40];
};

static atomic_int counter;

static void count_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&counter, 1);
}

static void free_cb(struct rcb_head *h)
{
	free(h);
	atomic_fetch_add(&counter, 1);
}

static void queue_objs(int n)
{
	for (int i = 0; i < n; i++) {
		struct obj *o = malloc(sizeof(*o));

		CHECK(o);
		CHECK_EQ(rcb_call_sized(&o->head, free_cb, sizeof(*o)), 0);
	}
}

static void t_lazy(const struct rcbt_case *c)
{
	struct rcb_head h;
	enum rcb_flavor f;

	switch (c->num) {
	case 0:
		CHECK(!rcb_read_ongoing());
		rcb_read_lock();
		CHECK(rcb_read_ongoing());
		rcb_read_unlock();
		break;
	case 1:
		CHECK_EQ(rcb_synchronize(), 0);
		break;
	case 2:
		CHECK_EQ(rcb_call(&h, count_cb), 0);
		break;
	case 3:
		CHECK_EQ(rcb_barrier(), 0);
		break;
	case 4:
		f = rcb_flavor();
		CHECK(f == RCB_FLAVOR_MEMBARRIER || f == RCB_FLAVOR_FENCE);
		break;
	}
	rcb_read_lock();
	rcb_read_unlock();
	CHECK_EQ(rcb_synchronize(), 0);
	if (c->num != 2)
		CHECK_EQ(rcb_call(&h, count_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&counter), 1);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	CHECK_EQ(rcb_shutdown(), -EALREADY);
}

static void t_reinit(const struct rcbt_case *c)
{
	struct rcb_config cfg = { .misuse = RCB_MISUSE_WARN };
	struct rcb_config other = cfg;
	struct rcb_backlog bl;
	struct rcbt_syncer s;
	struct rcb_head h;

	(void)c;
	CHECK_EQ(rcb_init(&cfg), 0);
	for (int round = 1; round <= 3; round++) {
		queue_objs(NCB);
		CHECK_EQ(rcb_shutdown(), 0);
		CHECK_EQ(atomic_load(&counter), round * NCB);
		rcb_backlog(&bl);
		CHECK_EQ(bl.callbacks, 0);
		CHECK_EQ(bl.bytes, 0);
		CHECK_EQ(bl.invoked, round * NCB);
		CHECK_EQ(rcb_shutdown(), -EALREADY);
		CHECK_EQ(rcbt_task_count_settle(1), 1);

		/* Readers and grace periods keep working after shutdown. */
		rcb_read_lock();
		rcbt_syncer_start_blocked(&s);
		rcb_read_unlock();
		rcbt_syncer_finish(&s);
		CHECK_EQ(rcb_synchronize(), 0);
		CHECK_EQ(rcb_barrier(), 0);
		CHECK_EQ(rcb_init(&cfg), 0);
	}
	CHECK_EQ(rcb_call(&h, count_cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&counter), 3 * NCB + 1);

	/* Settings other than the flavor may change across a shutdown. */
	CHECK_EQ(rcb_shutdown(), 0);
	other.callback_batch_us = 100;
	CHECK_EQ(rcb_init(&other), 0);
	rcbt_expect("rcuboost: rcb_init: |callback_batch_us");
	CHECK_EQ(rcb_init(&cfg), -EBUSY);
	CHECK_EQ(rcb_call(&h, count_cb), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	CHECK_EQ(atomic_load(&counter), 3 * NCB + 2);
	other.flavor = rcb_flavor() == RCB_FLAVOR_FENCE ?
			       RCB_FLAVOR_REQUIRE_MEMBARRIER :
			       RCB_FLAVOR_REQUIRE_FENCE;
	rcbt_expect("rcuboost: rcb_init: |flavor");
	CHECK_EQ(rcb_init(&other), -EBUSY);
	CHECK_EQ(rcb_call(&h, count_cb), -ESHUTDOWN);
}

static atomic_int rd_in, rd_go;

static void *holder(void *arg)
{
	(void)arg;
	rcb_read_lock();
	atomic_store(&rd_in, 1);
	rcbt_wait_flag(&rd_go);
	rcb_read_unlock();
	return NULL;
}

static atomic_int shut_done;
static int shut_ret = 1;

static void *shutter(void *arg)
{
	(void)arg;
	shut_ret = rcb_shutdown();
	atomic_store(&shut_done, 1);
	return NULL;
}

/* Shutdown runs the queued callbacks, and only after their grace period. */
static void t_shutdown_waits(const struct rcbt_case *c)
{
	pthread_t r, s;
	struct rcb_backlog bl;

	(void)c;
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(pthread_create(&r, NULL, holder, NULL), 0);
	rcbt_wait_flag(&rd_in);
	queue_objs(NCB);
	rcb_backlog(&bl);
	CHECK_EQ(bl.callbacks, NCB);
	CHECK_EQ(bl.bytes, NCB * sizeof(struct obj));
	CHECK_EQ(pthread_create(&s, NULL, shutter, NULL), 0);
	rcbt_sleep_ms(200);
	CHECK(!atomic_load(&shut_done));
	CHECK_EQ(atomic_load(&counter), 0);
	atomic_store(&rd_go, 1);
	CHECK_EQ(pthread_join(r, NULL), 0);
	CHECK_EQ(pthread_join(s, NULL), 0);
	CHECK_EQ(shut_ret, 0);
	CHECK_EQ(atomic_load(&counter), NCB);
	rcb_backlog(&bl);
	CHECK_EQ(bl.callbacks, 0);
	CHECK_EQ(bl.bytes, 0);
}

static void t_shutdown_uninit(const struct rcbt_case *c)
{
	struct rcb_head h;

	(void)c;
	CHECK_EQ(rcb_shutdown(), -EALREADY);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_call(&h, count_cb), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	CHECK_EQ(atomic_load(&counter), 1);
	CHECK_EQ(rcb_shutdown(), -EALREADY);
}

static int have_membarrier(void)
{
	long mask = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	return mask >= 0 && (mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED);
}

static void t_flavor(const struct rcbt_case *c)
{
	const char *env = getenv("RCUBOOST_FLAVOR");
	struct rcb_config cfg = { 0 };
	enum rcb_flavor want;

	CHECK(strcmp(rcb_flavor_name(RCB_FLAVOR_MEMBARRIER), "membarrier") == 0);
	CHECK(strcmp(rcb_flavor_name(RCB_FLAVOR_FENCE), "fence") == 0);
	CHECK(rcb_flavor_name((enum rcb_flavor)42) != NULL);
	switch (c->num) {
	case 0:
		want = (env && strcmp(env, "fence") == 0) || !have_membarrier() ?
			       RCB_FLAVOR_FENCE :
			       RCB_FLAVOR_MEMBARRIER;
		break;
	case 1:
		cfg.flavor = RCB_FLAVOR_REQUIRE_FENCE;
		want = RCB_FLAVOR_FENCE;
		CHECK_EQ(rcb_init(&cfg), 0);
		break;
	default:
		cfg.flavor = RCB_FLAVOR_REQUIRE_MEMBARRIER;
		want = RCB_FLAVOR_MEMBARRIER;
		if (!have_membarrier()) {
			CHECK_EQ(rcb_init(&cfg), -ENOSYS);
			return;
		}
		CHECK_EQ(rcb_init(&cfg), 0);
		break;
	}
	CHECK_EQ(rcb_flavor(), want);
	CHECK(strcmp(rcb_flavor_name(rcb_flavor()),
		     want == RCB_FLAVOR_FENCE ? "fence" : "membarrier") == 0);
	printf("flavor %s\n", rcb_flavor_name(rcb_flavor()));
	CHECK_EQ(rcb_synchronize(), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	CHECK_EQ(rcb_flavor(), want);
}

static const struct rcbt_case cases[] = {
	{ "lazy/read_lock_first", t_lazy, 0, { 0 }, { 0 }, { "rcuboost" }, NULL, 0 },
	{ "lazy/synchronize_first", t_lazy, 0, { 0 }, { 0 }, { "rcuboost" }, NULL, 1 },
	{ "lazy/call_first", t_lazy, 0, { 0 }, { 0 }, { "rcuboost" }, NULL, 2 },
	{ "lazy/barrier_first", t_lazy, 0, { 0 }, { 0 }, { "rcuboost" }, NULL, 3 },
	{ "lazy/flavor_first", t_lazy, 0, { 0 }, { 0 }, { "rcuboost" }, NULL, 4 },
	{ "reinit", t_reinit, 0, { 0 }, { 0 }, { 0 }, NULL, 0 },
	{ "shutdown_waits_for_readers", t_shutdown_waits, 0, { 0 }, { 0 },
	  { "rcuboost" }, NULL, 0 },
	{ "shutdown_before_init", t_shutdown_uninit, 0, { 0 }, { 0 },
	  { "rcuboost" }, NULL, 0 },
	{ "flavor/default", t_flavor, 0, { 0 }, { "flavor " }, { "rcuboost" }, NULL, 0 },
	{ "flavor/require_fence", t_flavor, 0, { "RCUBOOST_FLAVOR=membarrier" },
	  { "flavor fence" }, { "rcuboost" }, NULL, 1 },
	{ "flavor/require_membarrier", t_flavor, 0, { "RCUBOOST_FLAVOR=fence" },
	  { 0 }, { 0 }, NULL, 2 },
};

int main(int argc, char **argv)
{
	return rcbt_main(argc, argv, cases,
			 (int)(sizeof(cases) / sizeof(cases[0])));
}
