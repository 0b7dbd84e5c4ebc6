/* The qsbr domain (include/rcuboost/qsbr.h): what a grace period waits
 * for and what it does not, the callbacks and barrier, offline callers,
 * exit and fork, misuse.  Built with RCB_DEBUG so that the inline read
 * side counts its nesting.  No check depends on speed: "still waiting"
 * is checked while the thread it waits for is held by the test. */
#define _GNU_SOURCE
#define RCB_DEBUG 1
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/check.h"
#include "rcuboost/qsbr.h"

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- a thread held online without quiescent states --------------- */

enum { H_ONLINE, H_OFFLINE, H_MEMB_READER };
static atomic_int hold_ready, hold_release, hold_mode, holder_tid;

static void *holder(void *arg)
{
	(void)arg;
	atomic_store(&holder_tid, (int)gettid());
	CHECK(rcb_qsbr_register_thread() == 0);
	CHECK(rcb_qsbr_thread_is_online());
	if (atomic_load(&hold_mode) == H_OFFLINE)
		rcb_qsbr_thread_offline();
	if (atomic_load(&hold_mode) == H_MEMB_READER) {
		rcb_qsbr_thread_offline();
		rcb_read_lock();
	}
	atomic_store(&hold_ready, 1);
	while (!atomic_load(&hold_release))
		sleep_ms(1);
	if (atomic_load(&hold_mode) == H_MEMB_READER)
		rcb_read_unlock();
	if (atomic_load(&hold_mode) == H_ONLINE)
		rcb_qsbr_quiescent_state();
	CHECK(rcb_qsbr_unregister_thread() == 0);
	return NULL;
}

static atomic_int sync_done;

static void *qsbr_syncer(void *arg)
{
	(void)arg;
	CHECK(rcb_qsbr_synchronize() == 0);
	atomic_store(&sync_done, 1);
	return NULL;
}

static void start_holder(pthread_t *t, int mode)
{
	atomic_store(&hold_ready, 0);
	atomic_store(&hold_release, 0);
	atomic_store(&hold_mode, mode);
	CHECK(pthread_create(t, NULL, holder, NULL) == 0);
	while (!atomic_load(&hold_ready))
		sleep_ms(1);
}

/* A grace period waits for an online thread until its quiescent state. */
static void test_waits_for_online(void)
{
	pthread_t h, s;

	start_holder(&h, H_ONLINE);
	atomic_store(&sync_done, 0);
	CHECK(pthread_create(&s, NULL, qsbr_syncer, NULL) == 0);
	sleep_ms(200);
	CHECK(!atomic_load(&sync_done)); /* the holder has not passed one */
	/* The default domain's grace periods do not wait for it. */
	CHECK(rcb_synchronize() == 0);
	atomic_store(&hold_release, 1);
	pthread_join(s, NULL);
	pthread_join(h, NULL);
	CHECK(atomic_load(&sync_done));
}

/* The stall report names an online thread that holds a qsbr grace
 * period up (stall timeout 100 ms; the report is taken once the grace
 * period has waited 10 times that). */
static void test_stall_report(void)
{
	struct rcb_config cfg = { .stall_ms = 100 };
	char buf[4096], want[64];
	pthread_t h, s;
	pid_t tid;

	CHECK(rcb_shutdown() == 0);
	CHECK(rcb_init(&cfg) == 0);
	start_holder(&h, H_ONLINE);
	tid = atomic_load(&holder_tid);
	atomic_store(&sync_done, 0);
	CHECK(pthread_create(&s, NULL, qsbr_syncer, NULL) == 0);
	sleep_ms(1000);
	CHECK(!atomic_load(&sync_done));
	CHECK(rcb_stall_report(buf, sizeof(buf), 0) > 0);
	snprintf(want, sizeof(want), "stall: thread %d ", (int)tid);
	if (!strstr(buf, "qsbr grace period") || !strstr(buf, want) ||
	    !strstr(buf, "online without a quiescent state"))
		fprintf(stderr, "report:\n%s", buf);
	CHECK(strstr(buf, "qsbr grace period") != NULL);
	CHECK(strstr(buf, want) != NULL);
	CHECK(strstr(buf, "online without a quiescent state") != NULL);
	atomic_store(&hold_release, 1);
	pthread_join(s, NULL);
	pthread_join(h, NULL);
	CHECK(rcb_shutdown() == 0);
	CHECK(rcb_init(NULL) == 0);
}

/* Offline threads and default-domain readers do not hold it. */
static void test_no_wait_offline_or_memb(void)
{
	pthread_t h;

	start_holder(&h, H_OFFLINE);
	CHECK(rcb_qsbr_synchronize() == 0);
	atomic_store(&hold_release, 1);
	pthread_join(h, NULL);

	start_holder(&h, H_MEMB_READER);
	CHECK(rcb_qsbr_synchronize() == 0);
	atomic_store(&hold_release, 1);
	pthread_join(h, NULL);
}

/* An online caller is offline while it waits, online after. */
static void test_online_caller(void)
{
	pthread_t s;

	CHECK(rcb_qsbr_register_thread() == 0);
	CHECK(rcb_qsbr_register_thread() == 0); /* idempotent */
	CHECK(rcb_qsbr_thread_is_online());
	/* Another thread's grace period does not wait for us while we
	 * sit in our own synchronize. */
	atomic_store(&sync_done, 0);
	CHECK(pthread_create(&s, NULL, qsbr_syncer, NULL) == 0);
	CHECK(rcb_qsbr_synchronize() == 0);
	CHECK(rcb_qsbr_thread_is_online());
	rcb_qsbr_quiescent_state();
	/* Blocking: offline, or the other grace period waits for us. */
	rcb_qsbr_thread_offline();
	CHECK(!rcb_qsbr_thread_is_online());
	pthread_join(s, NULL);
	/* A quiescent state offline is misuse (reported); the thread goes
	 * online, as liburcu's does, so reads that follow are protected. */
	rcb_qsbr_quiescent_state();
	CHECK(rcb_qsbr_thread_is_online());
	rcb_qsbr_thread_offline();
	rcb_qsbr_thread_online();
	CHECK(rcb_qsbr_thread_is_online());
	/* Inside a section (counted: RCB_DEBUG), synchronize refuses. */
	rcb_qsbr_read_lock();
	CHECK(rcb_qsbr_read_ongoing());
	CHECK(rcb_qsbr_synchronize() == -EDEADLK);
	CHECK(rcb_qsbr_barrier() == -EDEADLK);
	CHECK(rcb_qsbr_unregister_thread() == -EBUSY);
	rcb_qsbr_read_unlock();
	CHECK(!rcb_qsbr_read_ongoing());
	CHECK(rcb_qsbr_unregister_thread() == 0);
	CHECK(rcb_qsbr_unregister_thread() == -ENOENT);
	CHECK(!rcb_qsbr_thread_is_online());
}

/* ---- callbacks: none runs before the readers that could see it ----- */

struct obj {
	struct rcb_head head;
	atomic_int dead;
	int value;
};

static _Atomic(struct obj *) shared;
static atomic_int stop_readers, reader_errors, freed;
static atomic_long reads;

static void obj_retire(struct rcb_head *h)
{
	struct obj *o = rcb_container_of(h, struct obj, head);

	atomic_store(&o->dead, 1);
	atomic_fetch_add(&freed, 1);
	/* Kept, not freed: a reader that saw it too late must find the
	 * mark, not unmapped memory (the list is freed at the end). */
}

static void *reader(void *arg)
{
	(void)arg;
	CHECK(rcb_qsbr_register_thread() == 0);
	while (!atomic_load(&stop_readers)) {
		for (int i = 0; i < 100; i++) {
			struct obj *o;

			rcb_qsbr_read_lock();
			o = atomic_load_explicit(&shared, memory_order_consume);
			if (o && atomic_load(&o->dead))
				atomic_fetch_add(&reader_errors, 1);
			rcb_qsbr_read_unlock();
			atomic_fetch_add_explicit(&reads, 1,
						  memory_order_relaxed);
		}
		rcb_qsbr_quiescent_state();
		if (rand() % 64 == 0) { /* sometimes block, offline */
			rcb_qsbr_thread_offline();
			usleep(100);
			rcb_qsbr_thread_online();
		}
	}
	CHECK(rcb_qsbr_unregister_thread() == 0);
	return NULL;
}

static void test_call_barrier(void)
{
	enum { NOBJ = 4000 };
	struct obj *all = calloc(NOBJ, sizeof(*all));
	pthread_t r[2];

	CHECK(all != NULL);
	atomic_store(&shared, &all[0]);
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&r[i], NULL, reader, NULL) == 0);
	for (int i = 1; i < NOBJ; i++) {
		struct obj *old = atomic_exchange(&shared, &all[i]);

		CHECK(rcb_qsbr_call(&old->head, obj_retire) == 0);
		if (i % 1000 == 0)
			CHECK(rcb_qsbr_barrier() == 0);
		else if (i % 100 == 0)
			CHECK(rcb_qsbr_synchronize() == 0);
	}
	CHECK(rcb_qsbr_barrier() == 0);
	CHECK(atomic_load(&freed) == NOBJ - 1);
	atomic_store(&stop_readers, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(r[i], NULL);
	printf("call/barrier: %d retired, %ld reads, %d errors\n",
	       atomic_load(&freed), atomic_load(&reads),
	       atomic_load(&reader_errors));
	CHECK(atomic_load(&reader_errors) == 0);
	CHECK(rcb_qsbr_call(NULL, obj_retire) == -EINVAL);
	CHECK(rcb_qsbr_call(&all[0].head, NULL) == -EINVAL);
	free(all);
}

/* A thread that exits online without unregistering is taken off the
 * domain by its exit: later grace periods do not wait for it. */
static void *exits_online(void *arg)
{
	(void)arg;
	CHECK(rcb_qsbr_register_thread() == 0);
	return NULL;
}

static void test_exit_online(void)
{
	pthread_t t;

	CHECK(pthread_create(&t, NULL, exits_online, NULL) == 0);
	pthread_join(t, NULL);
	CHECK(rcb_qsbr_synchronize() == 0);
}

/* A thread registered with both domains: unregistering one keeps the
 * other working. */
static void test_both_domains(void)
{
	CHECK(rcb_qsbr_register_thread() == 0);
	CHECK(rcb_register_thread() == 0);
	CHECK(rcb_unregister_thread() == 0);
	rcb_read_lock();
	rcb_read_unlock();
	CHECK(rcb_qsbr_thread_is_online());
	CHECK(rcb_qsbr_synchronize() == 0);
	CHECK(rcb_qsbr_unregister_thread() == 0);
	CHECK(rcb_synchronize() == 0);
}

static atomic_int shutdown_from_cb, barrier_from_cb;

/* From a qsbr callback, calls that would wait for its own thread. */
static void waiting_cb(struct rcb_head *h)
{
	(void)h;
	atomic_store(&shutdown_from_cb, rcb_shutdown());
	atomic_store(&barrier_from_cb, rcb_qsbr_barrier());
}

static void test_callback_refuses(void)
{
	static struct rcb_head h;

	CHECK(rcb_qsbr_call(&h, waiting_cb) == 0);
	CHECK(rcb_qsbr_barrier() == 0);
	CHECK(atomic_load(&shutdown_from_cb) == -EDEADLK);
	CHECK(atomic_load(&barrier_from_cb) == -EDEADLK);
}

static void count_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&freed, 1);
}

/* fork(): the child has its own callback thread and grace periods. */
static void test_fork(void)
{
	static struct rcb_head h[2];
	pid_t pid;
	int status;

#if defined(__SANITIZE_THREAD__)
	/* TSan cannot start threads in a multi-threaded fork's child; the
	 * plain and ASan builds run this case. */
	return;
#endif
	CHECK(rcb_qsbr_register_thread() == 0);
	atomic_store(&freed, 0);
	CHECK(rcb_qsbr_call(&h[0], count_cb) == 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		alarm(30);
		if (rcb_qsbr_synchronize() != 0 ||
		    rcb_qsbr_call(&h[1], count_cb) != 0 ||
		    rcb_qsbr_barrier() != 0 || atomic_load(&freed) < 1)
			_exit(1);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(rcb_qsbr_barrier() == 0);
	CHECK(atomic_load(&freed) == 1);
	CHECK(rcb_qsbr_unregister_thread() == 0);
}

int main(void)
{
	alarm(120); /* a hang fails, whatever CTest's timeout */
	test_waits_for_online();
	test_no_wait_offline_or_memb();
	test_stall_report();
	test_online_caller();
	test_call_barrier();
	test_exit_online();
	test_both_domains();
	test_callback_refuses();
	test_fork();
	CHECK(rcb_shutdown() == 0);
	puts("qsbr: ok");
	return 0;
}
