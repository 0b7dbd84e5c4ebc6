/* Callback workers: every call's contract and misuse (NULL, bad attributes, the
 * default worker, double destroy, a worker destroying itself), the choice of
 * worker (thread, CPU, default), barriers over all workers, destroy moving
 * pending callbacks to the default worker in order, destroy while producers
 * wake the worker's thread, TIDs, and fork() with a private worker holding
 * callbacks. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/check.h"

#define NCB 50

struct item {
	struct rcb_head head;
	pid_t ran_on; /* the TID that invoked it */
	int seq;
};

static struct item items[NCB];
static atomic_int counter, order_ok = 1, last_seq = -1;

static void item_cb(struct rcb_head *h)
{
	struct item *it = (struct item *)h;

	it->ran_on = gettid();
	if (it->seq >= 0) {
		if (it->seq != atomic_load(&last_seq) + 1)
			atomic_store(&order_ok, 0);
		atomic_store(&last_seq, it->seq);
	}
	atomic_fetch_add(&counter, 1);
}

static void queue_items(int n)
{
	atomic_store(&counter, 0);
	atomic_store(&last_seq, -1);
	atomic_store(&order_ok, 1);
	for (int i = 0; i < n; i++) {
		items[i].ran_on = 0;
		items[i].seq = i;
		CHECK_EQ(rcb_call(&items[i].head, item_cb), 0);
	}
}

static void all_ran_on(int n, pid_t tid)
{
	CHECK_EQ(atomic_load(&counter), n);
	CHECK(atomic_load(&order_ok));
	for (int i = 0; i < n; i++)
		CHECK_EQ(items[i].ran_on, tid);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void wait_flag(atomic_int *f)
{
	double end = now_s() + 10;

	while (!atomic_load(f)) {
		CHECK(now_s() < end);
		usleep(100);
	}
}

/* ---- contracts and misuse ----------------------------------------- */

/* rcb_worker_create(@a) fails with -EINVAL and says which field is
 * wrong (stderr captured in a temporary file). */
static void create_refused(const struct rcb_worker_attr *a, const char *field)
{
	char out[512] = "";
	struct rcb_worker *w = (struct rcb_worker *)1;
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	CHECK(tmp != NULL && saved >= 0);
	fflush(stderr);
	CHECK(dup2(fileno(tmp), 2) == 2);
	CHECK_EQ(rcb_worker_create(a, &w), -EINVAL);
	fflush(stderr);
	CHECK(dup2(saved, 2) == 2);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	CHECK(w == NULL);
	if (!strstr(out, "rcuboost: rcb_worker_create: attr.") || !strstr(out, field)) {
		fprintf(stderr, "FAIL: expected a message naming attr.%s, got: %s\n",
			field, out);
		exit(1);
	}
}

static void t_misuse(void)
{
	struct rcb_worker_attr a = { .size = sizeof(a) };
	struct rcb_worker *w = (struct rcb_worker *)&a, *w2;
	pthread_t th;
	pid_t tid0;

	CHECK_MISUSE(rcb_worker_create(NULL, NULL), -EINVAL);
	a.flags = 0x40;
	create_refused(&a, "flags");
	CHECK_EQ(rcb_worker_create(&a, &w), -EINVAL);
	CHECK(w == NULL);
	a.flags = RCB_WORKER_PIN;
	a.cpu = get_nprocs_conf();
	create_refused(&a, "cpu");
	CHECK_EQ(rcb_worker_create(&a, &w), -EINVAL);
	a.cpu = -1;
	CHECK_EQ(rcb_worker_create(&a, &w), -EINVAL);
	a.flags = 0;
	a.policy = SCHED_FIFO;
	a.prio = 0;
	CHECK_EQ(rcb_worker_create(&a, &w), -EINVAL);
	a.policy = SCHED_OTHER;
	a.prio = 5;
	CHECK_EQ(rcb_worker_create(&a, &w), -EINVAL);
	a.policy = 77;
	CHECK_EQ(rcb_worker_create(&a, &w), -EINVAL);
	a.policy = 0;
	a.prio = 0;
	/* A size no layout has (uninitialised): misuse. */
	a.size = 3;
	CHECK_MISUSE(rcb_worker_create(&a, &w), -EINVAL);
	a.size = SIZE_MAX;
	CHECK_MISUSE(rcb_worker_create(&a, &w), -EINVAL);
	CHECK(w == NULL);
	a.size = sizeof(a);
	/* Inside a read-side critical section: reported, refused. */
	rcb_read_lock();
	CHECK_EQ(rcb_worker_create(NULL, &w), -EDEADLK);
	rcb_read_unlock();

	CHECK(rcb_worker_default() != NULL);
	CHECK_MISUSE(rcb_worker_destroy(NULL), -EINVAL);
	CHECK_MISUSE(rcb_worker_destroy(rcb_worker_default()), -EINVAL);
	CHECK_MISUSE(rcb_worker_thread(NULL, &th), -EINVAL);
	CHECK_MISUSE(rcb_worker_thread(rcb_worker_default(), NULL), -EINVAL);
	CHECK_MISUSE(rcb_worker_tid(NULL), -EINVAL);
	CHECK_MISUSE(rcb_worker_assign_cpu(NULL, -1), -EINVAL);
	CHECK_MISUSE(rcb_worker_assign_cpu(NULL, get_nprocs_conf()), -EINVAL);
	CHECK_MISUSE(rcb_callback_tids(NULL, 3), -EINVAL);
	/* The boosters' TIDs, likewise. */
	CHECK_MISUSE(rcb_booster_tids(NULL, 3), -EINVAL);
	CHECK_MISUSE(rcb_booster_tids(&tid0, -1), -EINVAL);
	CHECK(rcb_booster_tids(NULL, 0) >= 0);
	CHECK(rcb_worker_of_cpu(-1) == NULL);

	/* Double destroy: the second is refused, nothing freed twice. */
	CHECK_EQ(rcb_worker_create(NULL, &w), 0);
	CHECK(w != NULL);
	CHECK(rcb_worker_tid(w) > 0);
	CHECK(rcb_worker_tid(w) != rcb_worker_tid(rcb_worker_default()));
	CHECK_EQ(rcb_worker_create(NULL, &w2), 0);
	CHECK_EQ(rcb_worker_destroy(w), 0);
	CHECK_MISUSE(rcb_worker_destroy(w), -ENOENT);
	CHECK_MISUSE(rcb_worker_set_thread(w), -ENOENT);
	CHECK_MISUSE(rcb_worker_assign_cpu(w, 0), -ENOENT);
	CHECK_MISUSE(rcb_worker_tid(w), -ENOENT);
	CHECK_MISUSE(rcb_worker_thread(w, &th), -ENOENT);
	/* Destroying inside a section is refused. */
	rcb_read_lock();
	CHECK_EQ(rcb_worker_destroy(w2), -EDEADLK);
	/* So is every call that takes the lock a worker's stopper holds
	 * while the worker waits for a grace period. */
	CHECK_EQ(rcb_worker_set_thread(w2), -EDEADLK);
	CHECK_EQ(rcb_worker_assign_cpu(NULL, 0), -EDEADLK);
	CHECK_EQ(rcb_worker_thread(w2, &th), -EDEADLK);
	CHECK_EQ(rcb_worker_tid(w2), -EDEADLK);
	CHECK_EQ(rcb_callback_tids(NULL, 0), -EDEADLK);
	rcb_read_unlock();
	CHECK(rcb_worker_tid(w2) > 0);
	CHECK(rcb_callback_tids(NULL, 0) >= 2);
	CHECK_EQ(rcb_worker_destroy(w2), 0);
	printf("ok misuse\n");
}

/* ---- choice of worker --------------------------------------------- */

static void t_thread_choice(void)
{
	struct rcb_worker_attr a = { .size = sizeof(a),
				     .flags = RCB_WORKER_RT };
	struct rcb_worker *w, *rt;
	pid_t tids[8];
	int n;

	CHECK_EQ(rcb_worker_create(NULL, &w), 0);
	CHECK_EQ(rcb_worker_create(&a, &rt), 0);
	CHECK(rcb_worker_of_thread() == NULL);
	CHECK_EQ(rcb_worker_set_thread(w), 0);
	CHECK(rcb_worker_of_thread() == w);
	CHECK(rcb_worker_current() == w);
	queue_items(NCB);
	CHECK_EQ(rcb_barrier(), 0);
	all_ran_on(NCB, rcb_worker_tid(w));

	/* An RCB_WORKER_RT worker (polling) runs them too. */
	CHECK_EQ(rcb_worker_set_thread(rt), 0);
	queue_items(NCB);
	CHECK_EQ(rcb_barrier(), 0);
	all_ran_on(NCB, rcb_worker_tid(rt));

	/* Every running worker is listed, the default one first. */
	CHECK_EQ(rcb_worker_set_thread(NULL), 0);
	queue_items(1);
	CHECK_EQ(rcb_barrier(), 0);
	all_ran_on(1, rcb_worker_tid(rcb_worker_default()));
	n = rcb_callback_tids(tids, 8);
	CHECK_EQ(n, 3);
	CHECK_EQ(tids[0], rcb_worker_tid(rcb_worker_default()));
	CHECK_EQ(rcb_callback_tids(tids, 1), 3);
	CHECK_EQ(rcb_callback_tids(NULL, 0), 3);

	/* The thread's choice ends when its worker is destroyed. */
	CHECK_EQ(rcb_worker_set_thread(w), 0);
	CHECK_EQ(rcb_worker_destroy(w), 0);
	CHECK(rcb_worker_of_thread() == NULL);
	CHECK_EQ(rcb_worker_destroy(rt), 0);
	CHECK_EQ(rcb_callback_tids(NULL, 0), 1);
	printf("ok thread choice\n");
}

static void t_cpu_choice(void)
{
	struct rcb_worker_attr a = { .size = sizeof(a), .flags = RCB_WORKER_PIN,
				     .cpu = 0 };
	struct rcb_worker *w, *w2;
	cpu_set_t set, old;

	CHECK_EQ(pthread_getaffinity_np(pthread_self(), sizeof(old), &old), 0);
	CHECK_EQ(rcb_worker_create(&a, &w), 0);
	CHECK_EQ(rcb_worker_create(NULL, &w2), 0);
	CHECK_EQ(rcb_worker_assign_cpu(w, 0), 0);
	CHECK(rcb_worker_of_cpu(0) == w);
	CHECK_EQ(rcb_worker_assign_cpu(w2, 0), -EEXIST);
	CHECK(rcb_worker_of_cpu(0) == w);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CHECK_EQ(pthread_setaffinity_np(pthread_self(), sizeof(set), &set), 0);
	CHECK(rcb_worker_current() == w);
	queue_items(NCB);
	CHECK_EQ(rcb_barrier(), 0);
	all_ran_on(NCB, rcb_worker_tid(w));
	/* The thread's own worker comes before the CPU's. */
	CHECK_EQ(rcb_worker_set_thread(w2), 0);
	CHECK(rcb_worker_current() == w2);
	CHECK_EQ(rcb_worker_set_thread(NULL), 0);
	/* Withdraw, then another may take the CPU. */
	CHECK_EQ(rcb_worker_assign_cpu(NULL, 0), 0);
	CHECK(rcb_worker_of_cpu(0) == NULL);
	CHECK(rcb_worker_current() == rcb_worker_default());
	CHECK_EQ(rcb_worker_assign_cpu(w2, 0), 0);
	/* Destroy withdraws it from its CPU. */
	CHECK_EQ(rcb_worker_destroy(w2), 0);
	CHECK(rcb_worker_of_cpu(0) == NULL);
	CHECK_EQ(rcb_worker_destroy(w), 0);
	CHECK_EQ(pthread_setaffinity_np(pthread_self(), sizeof(old), &old), 0);
	printf("ok cpu choice\n");
}

/* ---- destroy with pending callbacks; barrier over workers --------- */

static atomic_int blocker_in, blocker_go;
static struct rcb_head blocker;

static void blocker_cb(struct rcb_head *h)
{
	(void)h;
	atomic_store(&blocker_in, 1);
	wait_flag(&blocker_go);
}

static void *destroyer(void *arg)
{
	CHECK_EQ(rcb_worker_destroy(arg), 0);
	return NULL;
}

static void t_destroy_moves(void)
{
	struct rcb_worker *w;
	struct rcb_backlog bl;
	pthread_t d;

	atomic_store(&blocker_in, 0);
	atomic_store(&blocker_go, 0);
	CHECK_EQ(rcb_worker_create(NULL, &w), 0);
	CHECK_EQ(rcb_worker_set_thread(w), 0);
	CHECK_EQ(rcb_call(&blocker, blocker_cb), 0);
	wait_flag(&blocker_in);
	/* The worker is busy in a callback: these wait in its queue. */
	queue_items(NCB);
	rcb_backlog(&bl);
	CHECK(bl.callbacks >= NCB);
	CHECK_EQ(rcb_worker_set_thread(NULL), 0);
	CHECK_EQ(pthread_create(&d, NULL, destroyer, w), 0);
	usleep(20000);
	/* Destroy waits for the batch being invoked. */
	CHECK_EQ(atomic_load(&counter), 0);
	atomic_store(&blocker_go, 1);
	CHECK_EQ(pthread_join(d, NULL), 0);
	/* Moved to the default worker, in order, none lost or doubled. */
	CHECK_EQ(rcb_barrier(), 0);
	all_ran_on(NCB, rcb_worker_tid(rcb_worker_default()));
	rcb_backlog(&bl);
	CHECK_EQ(bl.callbacks, 0);
	printf("ok destroy moves pending callbacks\n");
}

static atomic_int hold_in, hold_go;

static void *holder(void *arg)
{
	(void)arg;
	rcb_read_lock();
	atomic_store(&hold_in, 1);
	wait_flag(&hold_go);
	rcb_read_unlock();
	return NULL;
}

static atomic_int barrier_done;

static void *barrier_thread(void *arg)
{
	(void)arg;
	CHECK_EQ(rcb_barrier(), 0);
	atomic_store(&barrier_done, 1);
	return NULL;
}

static void t_barrier_all(void)
{
	struct rcb_worker *w[3];
	pthread_t r, b;

	for (int i = 0; i < 3; i++)
		CHECK_EQ(rcb_worker_create(NULL, &w[i]), 0);
	atomic_store(&hold_in, 0);
	atomic_store(&hold_go, 0);
	atomic_store(&barrier_done, 0);
	CHECK_EQ(pthread_create(&r, NULL, holder, NULL), 0);
	wait_flag(&hold_in);
	/* A reader holds every grace period: callbacks on every worker
	 * (and the default one) wait. */
	atomic_store(&counter, 0);
	for (int i = 0; i < NCB; i++) {
		CHECK_EQ(rcb_worker_set_thread(i % 4 == 3 ? NULL : w[i % 4]),
			 0);
		items[i].seq = -1;
		CHECK_EQ(rcb_call(&items[i].head, item_cb), 0);
	}
	CHECK_EQ(rcb_worker_set_thread(NULL), 0);
	CHECK_EQ(pthread_create(&b, NULL, barrier_thread, NULL), 0);
	usleep(20000);
	CHECK_EQ(atomic_load(&barrier_done), 0);
	CHECK_EQ(atomic_load(&counter), 0);
	atomic_store(&hold_go, 1);
	CHECK_EQ(pthread_join(b, NULL), 0);
	CHECK_EQ(atomic_load(&counter), NCB);
	CHECK_EQ(pthread_join(r, NULL), 0);
	for (int i = 0; i < NCB; i++)
		CHECK_EQ(items[i].ran_on,
			 rcb_worker_tid(i % 4 == 3 ? rcb_worker_default() :
						     w[i % 4]));
	for (int i = 0; i < 3; i++)
		CHECK_EQ(rcb_worker_destroy(w[i]), 0);
	printf("ok barrier over workers\n");
}

/* ---- a callback queueing to, or destroying, workers ---------------- */

static struct rcb_worker *self_w;
static int self_destroy_ret = 1;
static struct rcb_head self_head;

static void self_destroy_cb(struct rcb_head *h)
{
	(void)h;
	self_destroy_ret = rcb_worker_destroy(self_w);
}

static void t_callback_misuse(void)
{
	CHECK_EQ(rcb_worker_create(NULL, &self_w), 0);
	CHECK_EQ(rcb_worker_set_thread(self_w), 0);
	CHECK_EQ(rcb_call(&self_head, self_destroy_cb), 0);
	CHECK_EQ(rcb_worker_set_thread(NULL), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(self_destroy_ret, -EDEADLK);
	CHECK_EQ(rcb_worker_destroy(self_w), 0);
	printf("ok a worker's callback cannot destroy it\n");
}

/* ---- fork with a private worker holding callbacks ------------------ */

static void t_fork(void)
{
#if defined(__SANITIZE_THREAD__)
	printf("skip fork (ThreadSanitizer)\n");
#else
	struct rcb_worker *w;
	pthread_t r;
	pid_t pid;
	int st;

	CHECK_EQ(rcb_worker_create(NULL, &w), 0);
	atomic_store(&hold_in, 0);
	atomic_store(&hold_go, 0);
	CHECK_EQ(pthread_create(&r, NULL, holder, NULL), 0);
	wait_flag(&hold_in);
	CHECK_EQ(rcb_worker_set_thread(w), 0);
	queue_items(NCB);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		struct rcb_backlog bl;

		alarm(10);
		/* The child keeps the worker, its callbacks, and this
		 * thread's choice; the holder does not exist here. */
		rcb_backlog(&bl);
		CHECK_EQ(bl.callbacks, NCB);
		CHECK(rcb_worker_of_thread() == w);
		CHECK_EQ(atomic_load(&counter), 0);
		CHECK_EQ(rcb_barrier(), 0);
		all_ran_on(NCB, rcb_worker_tid(w));
		rcb_backlog(&bl);
		CHECK_EQ(bl.callbacks, 0);
		CHECK_EQ(rcb_worker_destroy(w), 0);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(atomic_load(&counter), 0);
	atomic_store(&hold_go, 1);
	CHECK_EQ(pthread_join(r, NULL), 0);
	CHECK_EQ(rcb_barrier(), 0);
	all_ran_on(NCB, rcb_worker_tid(w));
	CHECK_EQ(rcb_worker_set_thread(NULL), 0);
	CHECK_EQ(rcb_worker_destroy(w), 0);
	printf("ok fork keeps a private worker's callbacks\n");
#endif
}

/* ---- shutdown covers every worker ----------------------------------- */

static void t_shutdown(void)
{
	struct rcb_worker *w;

	CHECK_EQ(rcb_worker_create(NULL, &w), 0);
	CHECK_EQ(rcb_worker_set_thread(w), 0);
	queue_items(NCB);
	CHECK_EQ(rcb_shutdown(), 0);
	/* Drained, every thread stopped. */
	CHECK_EQ(atomic_load(&counter), NCB);
	CHECK_EQ(rcb_callback_tids(NULL, 0), 0);
	CHECK_EQ(rcb_worker_create(NULL, &w), -ESHUTDOWN);
	CHECK_EQ(rcb_worker_tid(rcb_worker_default()), -ESHUTDOWN);
	printf("ok shutdown drains every worker\n");
}

/* ---- destroy while threads queue with wake-ups ------------------- */

#define RACE_ROUNDS 30
#define RACE_PER_THREAD 4096

static atomic_int race_ran, race_stop, race_started;
static struct rcb_worker *race_w;

static void race_cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&race_ran, 1);
}

/* Queues on race_w (the default worker once the destroy withdraws it),
 * pausing so that the worker's thread goes to sleep between calls and
 * most calls wake it, after their section or ours (callback.c
 * invariant 4). */
static void *race_producer(void *arg)
{
	struct rcb_head *heads = arg;
	int n = 0;

	CHECK_EQ(rcb_register_thread(), 0);
	CHECK_EQ(rcb_worker_set_thread(race_w), 0);
	atomic_fetch_add(&race_started, 1);
	while (!atomic_load(&race_stop) && n < RACE_PER_THREAD) {
		/* Every other call inside a section of ours: its wake-up
		 * (and its count) wait for our unlock. */
		bool nested = n % 2;

		if (nested)
			rcb_read_lock();
		CHECK_EQ(rcb_call(&heads[n++], race_cb), 0);
		if (nested)
			rcb_read_unlock();
		if (n % 4 == 0)
			usleep(20);
	}
	CHECK_EQ(rcb_unregister_thread(), 0);
	return (void *)(intptr_t)n;
}

/* A private worker is freed by its destroy while its producers may be
 * between their section and the wake-up they decided on in it: the
 * destroy waits for them (late_wakers, W4).  Under ASan a free that
 * overtook one is a use after free; here every callback must run once. */
static void t_destroy_while_waking(void)
{
	static struct rcb_head heads[2][RACE_PER_THREAD];
	long queued = 0;

	atomic_store(&race_ran, 0);
	for (int r = 0; r < RACE_ROUNDS; r++) {
		pthread_t p[2];
		void *n;

		double end = now_s() + 10;

		atomic_store(&race_stop, 0);
		atomic_store(&race_started, 0);
		CHECK_EQ(rcb_worker_create(NULL, &race_w), 0);
		for (int i = 0; i < 2; i++)
			CHECK_EQ(pthread_create(&p[i], NULL, race_producer,
						heads[i]),
				 0);
		/* The destroy must find both producers attached to race_w: on
		 * a loaded machine a producer may not run for the whole sleep
		 * below, and would then attach to a freed worker (-ENOENT). */
		while (atomic_load(&race_started) < 2) {
			CHECK(now_s() < end);
			usleep(50);
		}
		usleep(1000 + 200 * r);
		CHECK_EQ(rcb_worker_destroy(race_w), 0);
		atomic_store(&race_stop, 1);
		for (int i = 0; i < 2; i++) {
			CHECK_EQ(pthread_join(p[i], &n), 0);
			queued += (intptr_t)n;
		}
		CHECK_EQ(rcb_barrier(), 0);
	}
	CHECK_EQ(atomic_load(&race_ran), queued);
	printf("ok destroy while producers wake its thread (%ld callbacks)\n", queued);
}

int main(void)
{
	struct rcb_config cfg = { .size = sizeof(cfg),
				  .misuse = RCB_MISUSE_WARN };

	CHECK_EQ(rcb_init(&cfg), 0);
	t_misuse();
	t_thread_choice();
	t_cpu_choice();
	t_destroy_moves();
	t_destroy_while_waking();
	t_barrier_all();
	t_callback_misuse();
	t_fork();
	t_shutdown();
	return 0;
}
