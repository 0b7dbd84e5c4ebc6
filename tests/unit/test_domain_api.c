/* The rcb_domain_* API (include/rcuboost/domain.h): created domains of
 * both kinds are isolated from each other and from the library's own,
 * polled cookies elapse only after the readers that held them left,
 * owner-run callbacks run in the queueing thread and never before a
 * grace period, a thread's own callbacks run when it exits, destroy and
 * the slot limit, bad arguments.  No check depends on speed: "still
 * waiting" is checked while the reader it waits for is held. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tests/check.h"
#include "rcuboost/domain.h"

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- isolation ------------------------------------------------------ */

static struct rcb_domain *held_dom;
static atomic_int held_ready, held_release;

/* Inside a section (memb) or online without quiescent states (qsbr) of
 * held_dom until released. */
static void *holder(void *arg)
{
	(void)arg;
	CHECK(rcb_domain_register_thread(held_dom) == 0);
	rcb_domain_read_lock(held_dom);
	CHECK(rcb_domain_read_ongoing(held_dom));
	atomic_store(&held_ready, 1);
	while (!atomic_load(&held_release))
		sleep_ms(1);
	rcb_domain_read_unlock(held_dom);
	rcb_domain_quiescent_state(held_dom);
	CHECK(rcb_domain_unregister_thread(held_dom) == 0);
	return NULL;
}

static struct rcb_domain *sync_dom;
static atomic_int sync_done;

static void *syncer(void *arg)
{
	(void)arg;
	CHECK(rcb_domain_synchronize(sync_dom) == 0);
	atomic_store(&sync_done, 1);
	return NULL;
}

static void isolation(struct rcb_domain *held, struct rcb_domain *other)
{
	pthread_t h, s;

	held_dom = held;
	atomic_store(&held_ready, 0);
	atomic_store(&held_release, 0);
	CHECK(pthread_create(&h, NULL, holder, NULL) == 0);
	while (!atomic_load(&held_ready))
		sleep_ms(1);
	CHECK(rcb_domain_synchronize(other) == 0); /* would hang if not */
	CHECK(rcb_synchronize() == 0);
	sync_dom = held;
	atomic_store(&sync_done, 0);
	CHECK(pthread_create(&s, NULL, syncer, NULL) == 0);
	sleep_ms(100);
	CHECK(!atomic_load(&sync_done)); /* the holder still holds it */
	atomic_store(&held_release, 1);
	CHECK(pthread_join(s, NULL) == 0);
	CHECK(pthread_join(h, NULL) == 0);
	CHECK(atomic_load(&sync_done));
}

/* ---- polled grace periods ------------------------------------------ */

/* A cookie taken while a reader holds @d stays unelapsed until the
 * reader leaves, then elapses without anyone waiting for it. */
static void polled(struct rcb_domain *d)
{
	pthread_t h;
	uint64_t c;
	int spins = 0;

	held_dom = d;
	atomic_store(&held_ready, 0);
	atomic_store(&held_release, 0);
	CHECK(pthread_create(&h, NULL, holder, NULL) == 0);
	while (!atomic_load(&held_ready))
		sleep_ms(1);
	c = rcb_domain_start_poll(d);
	CHECK(c != 0);
	sleep_ms(100);
	CHECK(rcb_domain_poll_state(d, c) == 0); /* still held */
	atomic_store(&held_release, 1);
	CHECK(pthread_join(h, NULL) == 0);
	while (rcb_domain_poll_state(d, c) != 1) {
		sleep_ms(1);
		spins++;
	}
	CHECK(rcb_domain_poll_state(d, c + 1000) == -EINVAL);
	printf("polled: cookie %llu elapsed %d ms after the reader left\n",
	       (unsigned long long)c, spins);
}

/* ---- owner-run callbacks ------------------------------------------- */

struct obj {
	struct rcb_head head;
	atomic_int retired;
	int value;
	pid_t queued_by;
};

static struct rcb_domain *own_dom;
/* Plain, not _Atomic: the pointer macros take its address (clang
 * refuses an _Atomic pointer in __atomic_exchange_n()). */
static struct obj *shared;
static atomic_int stop, errors, reads, wrong_thread, freed;

static void *checker(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		rcb_domain_read_lock(own_dom);
		struct obj *o = rcb_dereference(shared);

		if (o && (atomic_load(&o->retired) || o->value != 42))
			atomic_fetch_add(&errors, 1);
		rcb_domain_read_unlock(own_dom);
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	CHECK(rcb_domain_unregister_thread(own_dom) == 0);
	return NULL;
}

static void free_obj(struct rcb_head *h)
{
	struct obj *o = rcb_container_of(h, struct obj, head);

	if (o->queued_by != gettid())
		atomic_fetch_add(&wrong_thread, 1);
	atomic_store(&o->retired, 1);
	free(o);
	atomic_fetch_add(&freed, 1);
}

static struct obj *new_obj(void)
{
	struct obj *o = calloc(1, sizeof(*o));

	CHECK(o);
	o->value = 42;
	o->queued_by = gettid();
	return o;
}

/* Replace and retire with owner-run callbacks while two threads read:
 * no reader sees a retired object, every callback runs in this thread,
 * many run from polls before the barrier. */
static void owner_retire(void)
{
	pthread_t t[2];
	int polled = 0, n = 200000;

	rcb_assign_pointer(shared, new_obj());
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], NULL, checker, NULL) == 0);
	while (atomic_load(&reads) < 1000)
		sleep_ms(1);
	for (int i = 0; i < n; i++) {
		struct obj *old = rcb_xchg_pointer(&shared, new_obj());

		old->queued_by = gettid();
		CHECK(rcb_domain_call(own_dom, &old->head, free_obj) == 0);
		if (i % 256 == 255)
			polled += rcb_domain_poll(own_dom);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		CHECK(pthread_join(t[i], NULL) == 0);
	CHECK(rcb_domain_barrier(own_dom) == 0);
	printf("owner-run: %d replaced, %d freed (%d from polls), %d reads, "
	       "%d errors, %d in another thread\n",
	       n, atomic_load(&freed), polled, atomic_load(&reads),
	       atomic_load(&errors), atomic_load(&wrong_thread));
	CHECK(atomic_load(&errors) == 0 && atomic_load(&wrong_thread) == 0);
	CHECK(atomic_load(&freed) == n && polled > 0);
	free(rcb_dereference(shared));
}

static atomic_int exit_ran;

static void count_exit(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&exit_ran, 1);
}

/* A thread exits with owner-run callbacks queued: they run then. */
static void *queue_and_exit(void *arg)
{
	static struct rcb_head heads[10];

	(void)arg;
	for (int i = 0; i < 10; i++)
		CHECK(rcb_domain_call(own_dom, &heads[i], count_exit) == 0);
	return NULL;
}

static atomic_int nopoll_ran;

static void count_nopoll(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&nopoll_ran, 1);
}

/* A thread that queues without ever polling: each full list asks for a
 * grace period from the call itself, so callbacks run before the
 * barrier; the out-of-line function (taken by address, as bindings do)
 * and the inline macro share the lists; a NULL head is refused. */
static void owner_no_poll(void)
{
	int (*fn)(struct rcb_domain *, struct rcb_head *,
		  void (*)(struct rcb_head *)) = rcb_domain_call;
	int n = 3 * RCB__OWN_BATCH + 7, before_barrier;
	struct rcb_head *heads = calloc((size_t)n, sizeof(*heads));

	CHECK(heads);
	for (int i = 0; i < n; i++)
		CHECK((i & 1 ? fn(own_dom, &heads[i], count_nopoll) :
			       rcb_domain_call(own_dom, &heads[i],
					       count_nopoll)) == 0);
	before_barrier = atomic_load(&nopoll_ran);
	CHECK(rcb_domain_call(own_dom, NULL, count_nopoll) == -EINVAL);
	CHECK(rcb_domain_barrier(own_dom) == 0);
	printf("owner-run without polls: %d queued, %d ran before the "
	       "barrier, %d after\n",
	       n, before_barrier, atomic_load(&nopoll_ran));
	CHECK(before_barrier >= 2 * RCB__OWN_BATCH - 1);
	CHECK(atomic_load(&nopoll_ran) == n);
	free(heads);
}

int main(void)
{
	struct rcb_domain_attr qattr = { .kind = RCB_DOMAIN_QSBR };
	struct rcb_domain_attr oattr = { .flags = RCB_DOMAIN_OWNER_CALLBACKS };
	struct rcb_domain_attr bad = { .kind = 7 };
	struct rcb_domain *m, *q, *all[RCB_DOMAIN_MAX], *extra;
	pthread_t t;
	int made;

	CHECK(rcb_domain_create(&m, NULL) == 0);
	CHECK(rcb_domain_create(&q, &qattr) == 0);
	CHECK(rcb_domain_create(&own_dom, &oattr) == 0);
	CHECK(rcb_domain_create(&extra, &bad) == -EINVAL);
	{
		struct rcb_domain_attr high = { .reader_prio = 99 };
		struct {
			struct rcb_domain_attr a;
			unsigned long newer_field;
		} later = { .a.size = sizeof(later), .newer_field = 1 },
		  later0 = { .a.size = sizeof(later0) };
		struct rcb_domain_attr garbage = { .size = 3 };

		CHECK(rcb_domain_create(&extra, &high) == -EINVAL);
		CHECK(rcb_domain_create(&extra, &garbage) == -EINVAL);
		/* A newer caller's field this library does not know. */
		CHECK(rcb_domain_create(&extra, &later.a) == -E2BIG);
		/* ... left 0: accepted. */
		CHECK(rcb_domain_create(&extra, &later0.a) == 0);
		CHECK(rcb_domain_destroy(extra) == 0);
	}
	isolation(m, q);
	isolation(q, m);
	printf("isolation: ok\n");
	polled(m);
	polled(q);
	owner_retire();
	owner_no_poll();
	CHECK(pthread_create(&t, NULL, queue_and_exit, NULL) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(atomic_load(&exit_ran) == 10);
	printf("owner-run callbacks at thread exit: ok\n");

	/* A registered thread keeps its domain alive. */
	CHECK(rcb_domain_register_thread(m) == 0);
	CHECK(rcb_domain_destroy(m) == -EBUSY);
	CHECK(rcb_domain_unregister_thread(m) == 0);
	CHECK(rcb_domain_destroy(m) == 0);
	CHECK(rcb_domain_synchronize(m) == -EINVAL); /* dead handle */
	CHECK(rcb_domain_destroy(q) == 0);
	/* This thread queued owner-run callbacks: registered, so the
	 * domain stays until it unregisters (which runs nothing left). */
	CHECK(rcb_domain_destroy(own_dom) == -EBUSY);
	CHECK(rcb_domain_unregister_thread(own_dom) == 0);
	CHECK(rcb_domain_destroy(own_dom) == 0);
	/* The slot limit, then every slot free again. */
	for (made = 0; made < RCB_DOMAIN_MAX; made++)
		CHECK(rcb_domain_create(&all[made], NULL) == 0);
	CHECK(rcb_domain_create(&extra, NULL) == -ENOSPC);
	for (int i = 0; i < made; i++)
		CHECK(rcb_domain_destroy(all[i]) == 0);
	printf("destroy and limits: ok\n");
	CHECK(rcb_shutdown() == 0);
	return 0;
}
