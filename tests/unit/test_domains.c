/* liburcu's bp, mb and signal flavors (include/rcuboost/urcu_bp.h,
 * urcu_mb.h, urcu_signal.h), each a domain of its own: what a grace
 * period waits for and what it does not (the other flavors', the default
 * domain's and the qsbr domain's readers), readers that must never see a
 * retired object, callbacks and barrier, polled grace periods (the qsbr
 * flavor's too), nesting across flavors, and misuse.  No check depends
 * on speed: "still waiting" is checked while the reader it waits for is
 * held by the test. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/child_stderr.h"
#include "rcuboost/qsbr.h"
#include "rcuboost/urcu_bp.h"
#include "rcuboost/urcu_mb.h"
#include "rcuboost/urcu_signal.h"
#include "rcuboost/urcu_qsbr.h"

enum { BP, MB, SIG, NFLAV };
static const char *const flav_name[NFLAV] = { "bp", "mb", "signal" };

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The flavors by number, through their drop-in names. */
static void f_lock(int f)
{
	switch (f) {
	case BP:
		urcu_bp_read_lock();
		break;
	case MB:
		urcu_mb_read_lock();
		break;
	default:
		urcu_signal_read_lock();
		break;
	}
}

static void f_unlock(int f)
{
	switch (f) {
	case BP:
		urcu_bp_read_unlock();
		break;
	case MB:
		urcu_mb_read_unlock();
		break;
	default:
		urcu_signal_read_unlock();
		break;
	}
}

static int f_ongoing(int f)
{
	switch (f) {
	case BP:
		return urcu_bp_read_ongoing();
	case MB:
		return urcu_mb_read_ongoing();
	default:
		return urcu_signal_read_ongoing();
	}
}

static void f_sync(int f)
{
	switch (f) {
	case BP:
		urcu_bp_synchronize_rcu();
		break;
	case MB:
		urcu_mb_synchronize_rcu();
		break;
	default:
		urcu_signal_synchronize_rcu();
		break;
	}
}

static void f_register(int f)
{
	/* bp needs none: its first section registers the thread. */
	if (f == MB)
		urcu_mb_register_thread();
	else if (f == SIG)
		urcu_signal_register_thread();
}

static void f_unregister(int f)
{
	if (f == MB)
		urcu_mb_unregister_thread();
	else if (f == SIG)
		urcu_signal_unregister_thread();
}

static void f_call(int f, struct rcu_head *h, void (*fn)(struct rcu_head *))
{
	switch (f) {
	case BP:
		urcu_bp_call_rcu(h, fn);
		break;
	case MB:
		urcu_mb_call_rcu(h, fn);
		break;
	default:
		urcu_signal_call_rcu(h, fn);
		break;
	}
}

static void f_barrier(int f)
{
	switch (f) {
	case BP:
		urcu_bp_barrier();
		break;
	case MB:
		urcu_mb_barrier();
		break;
	default:
		urcu_signal_barrier();
		break;
	}
}

/* liburcu 0.14's polled grace periods of each flavor. */
static struct urcu_gp_poll_state f_start_poll(int f)
{
	switch (f) {
	case BP:
		return urcu_bp_start_poll_synchronize_rcu();
	case MB:
		return urcu_mb_start_poll_synchronize_rcu();
	default:
		return urcu_signal_start_poll_synchronize_rcu();
	}
}

static bool f_poll_state(int f, struct urcu_gp_poll_state s)
{
	switch (f) {
	case BP:
		return urcu_bp_poll_state_synchronize_rcu(s);
	case MB:
		return urcu_mb_poll_state_synchronize_rcu(s);
	default:
		return urcu_signal_poll_state_synchronize_rcu(s);
	}
}

/* ---- a reader held inside a section of one flavor ----------------- */

static atomic_int held_ready, held_release, held_flavor;

static void *held_reader(void *arg)
{
	int f = atomic_load(&held_flavor);

	(void)arg;
	f_register(f);
	f_lock(f);
	CHECK(f_ongoing(f));
	atomic_store(&held_ready, 1);
	while (!atomic_load(&held_release))
		sleep_ms(1);
	f_unlock(f);
	f_unregister(f);
	return NULL;
}

static atomic_int sync_done, sync_flavor;

static void *syncer(void *arg)
{
	(void)arg;
	f_sync(atomic_load(&sync_flavor));
	atomic_store(&sync_done, 1);
	return NULL;
}

/* A reader held in flavor @f: every other domain's grace period ends
 * meanwhile, polled ones too; @f's own waits until the reader leaves,
 * and its polled cookie stays unelapsed until then. */
static void isolation(int f)
{
	struct urcu_gp_poll_state own;
	pthread_t r, s;

	atomic_store(&held_flavor, f);
	atomic_store(&held_ready, 0);
	atomic_store(&held_release, 0);
	CHECK(pthread_create(&r, NULL, held_reader, NULL) == 0);
	while (!atomic_load(&held_ready))
		sleep_ms(1);
	own = f_start_poll(f);
	for (int g = 0; g < NFLAV; g++) {
		struct urcu_gp_poll_state other;

		if (g == f)
			continue;
		other = f_start_poll(g);
		f_sync(g); /* returns: would hang (timeout) if not */
		CHECK(f_poll_state(g, other));
	}
	CHECK(rcb_synchronize() == 0);
	CHECK(rcb_qsbr_synchronize() == 0);
	atomic_store(&sync_flavor, f);
	atomic_store(&sync_done, 0);
	CHECK(pthread_create(&s, NULL, syncer, NULL) == 0);
	sleep_ms(100);
	CHECK(!atomic_load(&sync_done)); /* the reader still holds it */
	CHECK(!f_poll_state(f, own));
	atomic_store(&held_release, 1);
	CHECK(pthread_join(s, NULL) == 0);
	CHECK(atomic_load(&sync_done));
	CHECK(pthread_join(r, NULL) == 0);
	f_sync(f);
	CHECK(f_poll_state(f, own));
}

/* The qsbr flavor's polled grace period: not elapsed while a thread stays
 * online without a quiescent state, elapsed after its quiescent state and
 * a grace period. */
static atomic_int q_ready, q_release;

static void *qsbr_online_holder(void *arg)
{
	(void)arg;
	urcu_qsbr_register_thread(); /* online */
	atomic_store(&q_ready, 1);
	while (!atomic_load(&q_release))
		sleep_ms(1);
	urcu_qsbr_quiescent_state();
	urcu_qsbr_unregister_thread();
	return NULL;
}

static void qsbr_flavor_poll(void)
{
	struct urcu_gp_poll_state s;
	pthread_t h;

	CHECK(pthread_create(&h, NULL, qsbr_online_holder, NULL) == 0);
	while (!atomic_load(&q_ready))
		sleep_ms(1);
	s = urcu_qsbr_start_poll_synchronize_rcu();
	sleep_ms(100);
	CHECK(!urcu_qsbr_poll_state_synchronize_rcu(s));
	atomic_store(&q_release, 1);
	CHECK(pthread_join(h, NULL) == 0);
	urcu_qsbr_synchronize_rcu();
	CHECK(urcu_qsbr_poll_state_synchronize_rcu(s));
}

/* ---- readers never see a retired object ---------------------------- */

struct obj {
	struct rcu_head rcu;
	atomic_int retired;
	int value;
};

/* Plain, not _Atomic: the pointer macros take its address (clang
 * refuses an _Atomic pointer in __atomic_exchange_n()). */
static struct obj *shared;
static atomic_int stop, errors, reads;

static void *checker(void *arg)
{
	int f = (int)(intptr_t)arg;

	f_register(f);
	while (!atomic_load(&stop)) {
		f_lock(f);
		struct obj *o = rcu_dereference(shared);

		if (o && (atomic_load(&o->retired) || o->value != 42))
			atomic_fetch_add(&errors, 1);
		f_lock(f); /* nested */
		f_unlock(f);
		f_unlock(f);
		atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	}
	f_unregister(f);
	return NULL;
}

static atomic_int freed;

static void free_obj(struct rcu_head *h)
{
	struct obj *o = caa_container_of(h, struct obj, rcu);

	atomic_store(&o->retired, 1);
	free(o);
	atomic_fetch_add(&freed, 1);
}

static struct obj *new_obj(void)
{
	struct obj *o = calloc(1, sizeof(*o));

	CHECK(o);
	o->value = 42;
	return o;
}

static void retire(int f)
{
	pthread_t t[2];
	struct timespec end, now;
	int round = 0;

	atomic_store(&stop, 0);
	atomic_store(&errors, 0);
	atomic_store(&freed, 0);
	atomic_store(&reads, 0);
	rcb_assign_pointer(shared, new_obj());
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], NULL, checker,
				     (void *)(intptr_t)f) == 0);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_nsec += 300 * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	do {
		struct obj *old = rcu_xchg_pointer(&shared, new_obj());

		if (round++ % 2) {
			f_call(f, &old->rcu, free_obj);
		} else {
			f_sync(f);
			/* Poison and free: a reader inside would see it. */
			atomic_store(&old->retired, 1);
			free(old);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		CHECK(pthread_join(t[i], NULL) == 0);
	f_barrier(f);
	printf("  %s: %d reads, %d freed by callbacks, %d errors\n",
	       flav_name[f], atomic_load(&reads), atomic_load(&freed),
	       atomic_load(&errors));
	CHECK(atomic_load(&errors) == 0);
	CHECK(atomic_load(&reads) > 0 && atomic_load(&freed) > 0);
	free(rcb_dereference(shared));
}

/* ---- callbacks and barrier ----------------------------------------- */

static atomic_int cb_count;

static void count_cb(struct rcu_head *h)
{
	(void)h;
	atomic_fetch_add(&cb_count, 1);
}

static void callbacks(int f)
{
	static struct rcu_head heads[1000];

	atomic_store(&cb_count, 0);
	for (int i = 0; i < 1000; i++)
		f_call(f, &heads[i], count_cb);
	f_barrier(f);
	CHECK(atomic_load(&cb_count) == 1000);
}

/* ---- nesting across flavors ---------------------------------------- */

/* Inside a section of one flavor, another flavor's grace period does not
 * wait for it: liburcu's semantics. */
static void nest_across(void)
{
	urcu_mb_register_thread();
	urcu_bp_read_lock();
	urcu_mb_synchronize_rcu();
	urcu_signal_synchronize_rcu();
	CHECK(rcb_synchronize() == 0);
	urcu_mb_read_lock();
	CHECK(urcu_bp_read_ongoing() && urcu_mb_read_ongoing());
	CHECK(!urcu_signal_read_ongoing() && !rcb_read_ongoing());
	urcu_mb_read_unlock();
	urcu_bp_read_unlock();
	CHECK(!urcu_bp_read_ongoing() && !urcu_mb_read_ongoing());
	urcu_mb_unregister_thread();
}

/* ---- misuse, each in a child whose stderr is read ------------------ */

static void child_sync_in_section(void)
{
	urcu_bp_read_lock();
	urcu_bp_synchronize_rcu(); /* reported, refused: no hang */
	urcu_bp_read_unlock();
	_exit(0);
}

static void child_unlock_unbalanced(void)
{
	urcu_mb_register_thread();
	urcu_mb_read_unlock();
	CHECK(!urcu_mb_read_ongoing());
	urcu_mb_read_lock();
	urcu_mb_read_unlock();
	_exit(0);
}

static void child_unregister_in_section(void)
{
	urcu_signal_register_thread();
	urcu_signal_read_lock();
	urcu_signal_unregister_thread();
	urcu_signal_read_unlock();
	urcu_signal_synchronize_rcu();
	_exit(0);
}

#ifndef RCB__TSAN /* TSan: no thread may start in a forked child */
static void *exit_in_section(void *arg)
{
	(void)arg;
	urcu_bp_read_lock();
	return NULL; /* exits inside its section */
}

static void child_exit_in_section(void)
{
	pthread_t t;

	CHECK(pthread_create(&t, NULL, exit_in_section, NULL) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	urcu_bp_synchronize_rcu(); /* must not wait for the dead thread */
	_exit(0);
}
#endif

static void expect_child(void (*fn)(void), const char *what)
{
	char text[4096];
	bool timed_out;
	int st = rcbt_child_stderr(fn, 20000, text, sizeof(text), &timed_out);

	if (timed_out || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(stderr, "child (expecting \"%s\"): %s, status 0x%x; its stderr:\n%s\n",
			what, timed_out ? "timed out" : "ended", st, text);
	CHECK(!timed_out);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!strstr(text, what)) {
		fprintf(stderr, "expected \"%s\" in: %s\n", what, text);
		CHECK(0);
	}
}

int main(void)
{
	for (int f = 0; f < NFLAV; f++) {
		isolation(f);
		callbacks(f);
	}
	qsbr_flavor_poll();
	printf("polled grace periods of every flavor: ok\n");
	printf("isolation and callbacks: ok\n");
	for (int f = 0; f < NFLAV; f++)
		retire(f);
	nest_across();
	printf("nesting across flavors: ok\n");
	expect_child(child_sync_in_section,
		     "inside a read-side critical section of the bp domain");
	expect_child(child_unlock_unbalanced,
		     "unlock without a matching read lock");
	expect_child(child_unregister_in_section,
		     "the thread stays registered");
#ifndef RCB__TSAN /* TSan: no thread may start in a forked child */
	expect_child(
		child_exit_in_section,
		"exits inside a read-side critical section of the bp domain");
#endif
	printf("misuse: ok\n");
	CHECK(rcb_shutdown() == 0);
	return 0;
}
