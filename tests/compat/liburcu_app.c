/*
 * A liburcu application, written against <urcu.h> (urcu-memb) and the
 * urcu/cds data structures, built twice from this one source: against
 * Debian's liburcu, and with only the include changed
 * (RCB_APP_URCU_HEADER=<rcuboost/urcu.h>) against rcuboost plus
 * -lurcu-cds -lurcu-common.  It checks results, not just that it runs:
 *   1. cds_lfht with CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING: 4 threads
 *      add 80,000 keys (duplicates refused), look every key up, then
 *      delete their keys while looking up the others'; node counts after
 *      each phase; every node freed through call_rcu() exactly once.
 *   2. cds_lfq: 10,000 items through 2 producers and 2 consumers; each
 *      dequeued exactly once, each node freed through call_rcu() once.
 *   3. a private call_rcu worker (create_call_rcu_data(),
 *      get_call_rcu_thread()): its callbacks run on that thread.
 *   4. 2,000,000 defer_rcu() calls: each runs once, with its argument;
 *      the peak resident set stays bounded (liburcu throttles at 4,096).
 *   5. fork() with call_rcu_before_fork() and the after-fork helpers:
 *      the child uses call_rcu() and synchronize_rcu().
 * Exit status 0 when every check passed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef RCB_APP_URCU_HEADER
#define RCB_APP_URCU_HEADER <urcu.h>
#endif
#include RCB_APP_URCU_HEADER
#include <urcu/rculfhash.h>
#include <urcu/rculfqueue.h>

#define CHECK(expr)                                                        \
	do {                                                               \
		if (!(expr)) {                                             \
			fprintf(stderr, "%s:%d: check failed: %s\n",       \
				__FILE__, __LINE__, #expr);                \
			exit(1);                                           \
		}                                                          \
	} while (0)

/* ---- 1. cds_lfht ------------------------------------------------------ */

#define HT_THREADS 4
#define HT_KEYS 80000UL
#define HT_PER (HT_KEYS / HT_THREADS)

struct knode {
	struct cds_lfht_node node;
	unsigned long key, value;
	struct rcu_head rcu;
};

static struct cds_lfht *ht;
static atomic_uchar ht_freed[HT_KEYS];
static atomic_ulong ht_nfreed, ht_dups;
static pthread_barrier_t ht_bar;

static unsigned long hash_key(unsigned long k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdUL;
	k ^= k >> 33;
	return k;
}

static int match_key(struct cds_lfht_node *n, const void *key)
{
	return caa_container_of(n, struct knode, node)->key ==
	       *(const unsigned long *)key;
}

static void free_knode(struct rcu_head *h)
{
	struct knode *n = caa_container_of(h, struct knode, rcu);

	CHECK(n->key < HT_KEYS);
	CHECK(atomic_fetch_add(&ht_freed[n->key], 1) == 0);
	atomic_fetch_add(&ht_nfreed, 1);
	n->value = 0;
	free(n);
}

/* Look @key up; it must be there with its value (if @must) or absent. */
static int ht_lookup(unsigned long key, int must)
{
	struct cds_lfht_iter it;
	struct cds_lfht_node *n;
	int found;

	rcu_read_lock();
	cds_lfht_lookup(ht, hash_key(key), match_key, &key, &it);
	n = cds_lfht_iter_get_node(&it);
	found = n != NULL;
	if (n)
		CHECK(caa_container_of(n, struct knode, node)->value ==
		      key * 3 + 1);
	rcu_read_unlock();
	if (must)
		CHECK(found);
	return found;
}

static void *ht_thread(void *arg)
{
	unsigned long first = (unsigned long)arg * HT_PER;

	rcu_register_thread();
	for (unsigned long k = first; k < first + HT_PER; k++) {
		struct knode *n = malloc(sizeof(*n));
		struct cds_lfht_node *ret;

		CHECK(n);
		n->key = k;
		n->value = k * 3 + 1;
		cds_lfht_node_init(&n->node);
		rcu_read_lock();
		ret = cds_lfht_add_unique(ht, hash_key(k), match_key, &k,
					  &n->node);
		rcu_read_unlock();
		CHECK(ret == &n->node);
		if (k % 16 == 0) {
			/* A duplicate is refused and never published. */
			struct knode *d = malloc(sizeof(*d));

			CHECK(d);
			*d = *n;
			cds_lfht_node_init(&d->node);
			rcu_read_lock();
			ret = cds_lfht_add_unique(ht, hash_key(k), match_key,
						  &k, &d->node);
			rcu_read_unlock();
			CHECK(ret == &n->node);
			free(d);
			atomic_fetch_add(&ht_dups, 1);
		}
	}
	pthread_barrier_wait(&ht_bar);
	for (unsigned long k = 0; k < HT_KEYS; k++)
		ht_lookup((k + first) % HT_KEYS, 1);
	pthread_barrier_wait(&ht_bar); /* main counts the nodes */
	pthread_barrier_wait(&ht_bar);
	for (unsigned long k = first; k < first + HT_PER; k++) {
		struct cds_lfht_iter it;
		struct cds_lfht_node *n;

		rcu_read_lock();
		cds_lfht_lookup(ht, hash_key(k), match_key, &k, &it);
		n = cds_lfht_iter_get_node(&it);
		CHECK(n);
		CHECK(cds_lfht_del(ht, n) == 0);
		rcu_read_unlock();
		call_rcu(&caa_container_of(n, struct knode, node)->rcu,
			 free_knode);
		/* Someone else's key, maybe being deleted: if found, intact. */
		ht_lookup((k * 7 + 12345) % HT_KEYS, 0);
	}
	rcu_unregister_thread();
	return NULL;
}

static long ht_count(void)
{
	long before, after;
	unsigned long count;

	rcu_read_lock();
	cds_lfht_count_nodes(ht, &before, &count, &after);
	rcu_read_unlock();
	return (long)count;
}

static void test_lfht(void)
{
	pthread_t t[HT_THREADS];

	/* 1,024 buckets to start, not 1: growing from one bucket, lfht's
	 * chains are as long as its resize worker is late, and on a loaded
	 * machine the adds went quadratic past a minute (with liburcu as
	 * with rcuboost).  80,000 keys still make it resize several times. */
	ht = cds_lfht_new(1024, 1, 0,
			  CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING, NULL);
	CHECK(ht);
	CHECK(pthread_barrier_init(&ht_bar, NULL, HT_THREADS + 1) == 0);
	for (unsigned long i = 0; i < HT_THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, ht_thread, (void *)i) == 0);
	pthread_barrier_wait(&ht_bar);
	pthread_barrier_wait(&ht_bar);
	CHECK(ht_count() == (long)HT_KEYS);
	pthread_barrier_wait(&ht_bar);
	for (int i = 0; i < HT_THREADS; i++)
		CHECK(pthread_join(t[i], NULL) == 0);
	CHECK(ht_count() == 0);
	for (unsigned long k = 0; k < HT_KEYS; k += 997)
		CHECK(!ht_lookup(k, 0));
	rcu_barrier();
	CHECK(atomic_load(&ht_nfreed) == HT_KEYS);
	for (unsigned long k = 0; k < HT_KEYS; k++)
		CHECK(atomic_load(&ht_freed[k]) == 1);
	CHECK(atomic_load(&ht_dups) == HT_KEYS / 16);
	CHECK(cds_lfht_destroy(ht, NULL) == 0);
	CHECK(pthread_barrier_destroy(&ht_bar) == 0);
	printf("lfht: %lu keys added, looked up and deleted by %d threads, %lu duplicates refused, every node freed once\n",
	       HT_KEYS, HT_THREADS, atomic_load(&ht_dups));
}

/* ---- 2. cds_lfq ------------------------------------------------------- */

#define Q_ITEMS 10000UL

struct qnode {
	struct cds_lfq_node_rcu node;
	unsigned long v;
	struct rcu_head rcu;
};

static struct cds_lfq_queue_rcu q;
static atomic_uchar q_seen[Q_ITEMS], q_freed[Q_ITEMS];
static atomic_ulong q_ndeq, q_nfreed;

static void free_qnode(struct rcu_head *h)
{
	struct qnode *n = caa_container_of(h, struct qnode, rcu);

	CHECK(atomic_fetch_add(&q_freed[n->v], 1) == 0);
	atomic_fetch_add(&q_nfreed, 1);
	free(n);
}

static void *q_producer(void *arg)
{
	unsigned long first = (unsigned long)arg * (Q_ITEMS / 2);

	rcu_register_thread();
	for (unsigned long v = first; v < first + Q_ITEMS / 2; v++) {
		struct qnode *n = malloc(sizeof(*n));

		CHECK(n);
		cds_lfq_node_init_rcu(&n->node);
		n->v = v;
		rcu_read_lock();
		cds_lfq_enqueue_rcu(&q, &n->node);
		rcu_read_unlock();
	}
	rcu_unregister_thread();
	return NULL;
}

static void *q_consumer(void *arg)
{
	(void)arg;
	rcu_register_thread();
	while (atomic_load(&q_ndeq) < Q_ITEMS) {
		struct cds_lfq_node_rcu *qn;

		rcu_read_lock();
		qn = cds_lfq_dequeue_rcu(&q);
		rcu_read_unlock();
		if (!qn) {
			sched_yield();
			continue;
		}
		struct qnode *n = caa_container_of(qn, struct qnode, node);

		CHECK(n->v < Q_ITEMS);
		CHECK(atomic_fetch_add(&q_seen[n->v], 1) == 0);
		atomic_fetch_add(&q_ndeq, 1);
		call_rcu(&n->rcu, free_qnode);
	}
	rcu_unregister_thread();
	return NULL;
}

static void test_lfq(void)
{
	pthread_t t[4];

	cds_lfq_init_rcu(&q, call_rcu);
	for (unsigned long i = 0; i < 2; i++) {
		CHECK(pthread_create(&t[i], NULL, q_producer, (void *)i) == 0);
		CHECK(pthread_create(&t[2 + i], NULL, q_consumer, NULL) == 0);
	}
	for (int i = 0; i < 4; i++)
		CHECK(pthread_join(t[i], NULL) == 0);
	rcu_read_lock();
	CHECK(cds_lfq_dequeue_rcu(&q) == NULL);
	rcu_read_unlock();
	rcu_barrier();
	CHECK(atomic_load(&q_ndeq) == Q_ITEMS &&
	      atomic_load(&q_nfreed) == Q_ITEMS);
	for (unsigned long v = 0; v < Q_ITEMS; v++)
		CHECK(atomic_load(&q_seen[v]) == 1 &&
		      atomic_load(&q_freed[v]) == 1);
	CHECK(cds_lfq_destroy_rcu(&q) == 0);
	printf("lfq: %lu items each dequeued once, every node freed once\n", Q_ITEMS);
}

/* ---- 3. a private call_rcu worker ------------------------------------- */

#define W_CALLS 1000

struct wnode {
	struct rcu_head rcu;
	pthread_t ran_on;
	atomic_int ran;
};

static struct wnode wnodes[W_CALLS];

static void wnode_cb(struct rcu_head *h)
{
	struct wnode *n = caa_container_of(h, struct wnode, rcu);

	n->ran_on = pthread_self();
	atomic_fetch_add(&n->ran, 1);
}

static void test_worker(void)
{
	struct call_rcu_data *crdp = create_call_rcu_data(0, -1);
	pthread_t worker;

	CHECK(crdp);
	worker = get_call_rcu_thread(crdp);
	CHECK(!pthread_equal(worker, pthread_self()));
	set_thread_call_rcu_data(crdp);
	CHECK(get_thread_call_rcu_data() == crdp);
	for (int i = 0; i < W_CALLS; i++)
		call_rcu(&wnodes[i].rcu, wnode_cb);
	rcu_barrier();
	for (int i = 0; i < W_CALLS; i++) {
		CHECK(atomic_load(&wnodes[i].ran) == 1);
		CHECK(pthread_equal(wnodes[i].ran_on, worker));
	}
	set_thread_call_rcu_data(NULL);
	call_rcu_data_free(crdp);
	printf("call_rcu worker: %d callbacks ran once each on the private worker\n", W_CALLS);
}

/* ---- 4. defer_rcu ----------------------------------------------------- */

#define D_CALLS 2000000UL

static atomic_ulong d_count, d_sum;

static void defer_fn(void *p)
{
	atomic_fetch_add(&d_count, 1);
	atomic_fetch_add(&d_sum, (unsigned long)p);
}

static long vm_hwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	CHECK(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return kb;
}

static void test_defer(void)
{
	long before;

	CHECK(rcu_defer_register_thread() == 0);
	before = vm_hwm_kb();
	for (unsigned long i = 0; i < D_CALLS; i++)
		defer_rcu(defer_fn, (void *)i);
	rcu_defer_barrier();
	CHECK(atomic_load(&d_count) == D_CALLS);
	CHECK(atomic_load(&d_sum) == D_CALLS * (D_CALLS - 1) / 2);
	/* Generous: liburcu stays near 2 MB. */
	CHECK(vm_hwm_kb() - before < 64 * 1024);
	printf("defer_rcu: %lu calls each ran once, peak RSS grew by %ld kB\n",
	       D_CALLS, vm_hwm_kb() - before);
	rcu_defer_unregister_thread();
}

/* ---- 5. fork() with the fork helpers ---------------------------------- */

static atomic_int f_ran1, f_ran2;

static void fork_cb1(struct rcu_head *h)
{
	(void)h;
	atomic_fetch_add(&f_ran1, 1);
}

static void fork_cb2(struct rcu_head *h)
{
	(void)h;
	atomic_fetch_add(&f_ran2, 1);
}

static void test_fork(void)
{
	static struct rcu_head h1, h2;
	pid_t pid;
	int st;

	call_rcu(&h1, fork_cb1);
	call_rcu_before_fork();
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		call_rcu_after_fork_child();
		call_rcu(&h2, fork_cb2);
		rcu_barrier();
		synchronize_rcu();
		rcu_read_lock();
		rcu_read_unlock();
		/* h2 ran here once; h1 (queued before the fork) at most
		 * once, before the fork or here. */
		_exit(atomic_load(&f_ran2) == 1 && atomic_load(&f_ran1) <= 1 ?
			      0 :
			      1);
	}
	call_rcu_after_fork_parent();
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	rcu_barrier();
	CHECK(atomic_load(&f_ran1) == 1 && atomic_load(&f_ran2) == 0);
	printf("fork: the child ran call_rcu() and synchronize_rcu() after the helpers\n");
}

int main(void)
{
	rcu_register_thread();
	test_lfht();
	test_lfq();
	test_worker();
	test_defer();
	test_fork();
	rcu_unregister_thread();
	printf("ok\n");
	return 0;
}
