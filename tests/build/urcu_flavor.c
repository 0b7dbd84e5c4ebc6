/* SPDX-License-Identifier: MIT */
/*
 * liburcu-cds (Debian's -lurcu-cds -lurcu-common, compiled against
 * liburcu) over rcuboost's grace periods and callbacks, through the
 * flavor struct <rcuboost/urcu.h> exports: a hash table with automatic
 * resizing (its resize worker calls the flavor) filled and emptied by a
 * few threads, a fork() while it exists (the child uses the table: the
 * resize worker was paused by its atfork hooks around the fork), the
 * lock-free queue (whose dummy nodes are call_rcu'd with liburcu's
 * 16-byte struct rcu_head) and stack.  Built without _LGPL_SOURCE, so
 * every data-structure operation is liburcu-cds's compiled code.
 */
#define _POSIX_C_SOURCE 200809L

#include <rcuboost/urcu.h>
#include <urcu/cds.h>

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"

#define NTHREADS 3
#define PER_THREAD 3000

struct item {
	unsigned long key;
	struct cds_lfht_node node;
	struct cds_lfq_node_rcu qnode;
	struct cds_lfs_node snode;
	struct rcu_head rcu;
};

static struct cds_lfht *ht;
static atomic_long freed;
static atomic_int hooks_before, hooks_parent, hooks_child;

static unsigned long hash_key(unsigned long key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdUL;
	return key ^ (key >> 33);
}

static int match(struct cds_lfht_node *node, const void *key)
{
	return caa_container_of(node, struct item, node)->key ==
	       *(const unsigned long *)key;
}

static void free_item(struct rcu_head *h)
{
	free(caa_container_of(h, struct item, rcu));
	atomic_fetch_add(&freed, 1);
}

static struct item *new_item(unsigned long key)
{
	struct item *it = calloc(1, sizeof(*it));

	CHECK(it);
	it->key = key;
	cds_lfht_node_init(&it->node);
	return it;
}

static int lookup(unsigned long key)
{
	struct cds_lfht_iter iter;
	int found;

	rcu_read_lock();
	cds_lfht_lookup(ht, hash_key(key), match, &key, &iter);
	found = cds_lfht_iter_get_node(&iter) != NULL;
	rcu_read_unlock();
	return found;
}

/* Insert keys [base, base + PER_THREAD), check them, delete the odd ones. */
static void *worker(void *arg)
{
	unsigned long base = (unsigned long)arg * PER_THREAD, k;
	struct cds_lfht_iter iter;
	struct cds_lfht_node *n;

	rcu_register_thread();
	for (k = base; k < base + PER_THREAD; k++) {
		struct item *it = new_item(k);

		rcu_read_lock();
		n = cds_lfht_add_unique(ht, hash_key(k), match, &k, &it->node);
		rcu_read_unlock();
		CHECK(n == &it->node);
	}
	for (k = base; k < base + PER_THREAD; k++)
		CHECK(lookup(k));
	for (k = base + 1; k < base + PER_THREAD; k += 2) {
		rcu_read_lock();
		cds_lfht_lookup(ht, hash_key(k), match, &k, &iter);
		n = cds_lfht_iter_get_node(&iter);
		CHECK(n && cds_lfht_del(ht, n) == 0);
		rcu_read_unlock();
		call_rcu(&caa_container_of(n, struct item, node)->rcu,
			 free_item);
	}
	rcu_unregister_thread();
	return NULL;
}

static void before(void *p)
{
	(void)p;
	atomic_fetch_add(&hooks_before, 1);
}

static void parent(void *p)
{
	(void)p;
	atomic_fetch_add(&hooks_parent, 1);
}

static void child(void *p)
{
	(void)p;
	atomic_fetch_add(&hooks_child, 1);
}

static struct urcu_atfork my_hooks = { before, parent, child, NULL };

static void test_hash_table(void)
{
	pthread_t t[NTHREADS];
	struct cds_lfht_iter iter;
	struct item *it;
	unsigned long k, count = 0;
	long expect;
	pid_t pid;
	int i, status;

	ht = cds_lfht_new(1, 1, 0, CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING,
			  NULL);
	CHECK(ht);
	for (i = 0; i < NTHREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)(long)i) ==
		      0);
	for (i = 0; i < NTHREADS; i++)
		CHECK(pthread_join(t[i], NULL) == 0);
	for (k = 0; k < NTHREADS * PER_THREAD; k++)
		CHECK(lookup(k) == !(k & 1));

	/* fork() with the table (and its resize worker) alive. */
	urcu_register_rculfhash_atfork(&my_hooks);
	urcu_register_rculfhash_atfork(&my_hooks); /* kept once */
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		alarm(20); /* a deadlocked child fails the test */
		if (atomic_load(&hooks_child) != 1)
			_exit(2);
		rcu_register_thread();
		for (k = 0; k < NTHREADS * PER_THREAD; k += 7)
			if (lookup(k) != !(k & 1))
				_exit(3);
		for (k = 1; k < 2000; k += 2) {
			it = new_item(NTHREADS * PER_THREAD + k);
			rcu_read_lock();
			cds_lfht_add(ht, hash_key(it->key), &it->node);
			rcu_read_unlock();
		}
		synchronize_rcu();
		rcu_barrier();
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(atomic_load(&hooks_before) == 1 &&
	      atomic_load(&hooks_parent) == 1);
	/* Registered twice, unregistered once: kept, as liburcu keeps it
	 * (a review, 2026-12-06: liburcu-cds registers its hooks once per
	 * table and unregisters once per cds_lfht_destroy(); the first
	 * destroy removed them while another table lived, and that
	 * table's resize worker was neither paused nor re-created around
	 * a fork: the child hung in cds_lfht_destroy()). */
	urcu_unregister_rculfhash_atfork(&my_hooks);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		/* counts from the parent's 0 */
		_exit(atomic_load(&hooks_child) == 1 ? 0 : 4);
	CHECK(waitpid(pid, &status, 0) == pid);
	printf("hooks after one of two unregistrations: before %d, parent %d, child %s\n",
	       atomic_load(&hooks_before), atomic_load(&hooks_parent),
	       WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ran" : "did not run");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(atomic_load(&hooks_before) == 2 &&
	      atomic_load(&hooks_parent) == 2);
	/* The last unregistration removes them. */
	urcu_unregister_rculfhash_atfork(&my_hooks);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(atomic_load(&hooks_child) == 0 ? 0 : 5);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(atomic_load(&hooks_before) == 2 &&
	      atomic_load(&hooks_parent) == 2);

	/* Empty and destroy the table. */
	/* Not cds_lfht_for_each_entry(): its container_of of the final
	 * NULL is undefined behaviour that UBSan reports. */
	rcu_read_lock();
	for (cds_lfht_first(ht, &iter); cds_lfht_iter_get_node(&iter);
	     cds_lfht_next(ht, &iter)) {
		it = caa_container_of(cds_lfht_iter_get_node(&iter),
				      struct item, node);
		CHECK(cds_lfht_del(ht, &it->node) == 0);
		call_rcu(&it->rcu, free_item);
		count++;
	}
	rcu_read_unlock();
	CHECK(count == (NTHREADS * PER_THREAD) / 2);
	rcu_barrier();
	expect = NTHREADS * PER_THREAD;
	CHECK(atomic_load(&freed) == expect);
	CHECK(cds_lfht_destroy(ht, NULL) == 0);
}

static struct cds_lfq_queue_rcu q;

static void *enqueuer(void *arg)
{
	long i;

	(void)arg;
	rcu_register_thread();
	for (i = 0; i < 5000; i++) {
		struct item *it = new_item((unsigned long)i);

		cds_lfq_node_init_rcu(&it->qnode);
		rcu_read_lock();
		cds_lfq_enqueue_rcu(&q, &it->qnode);
		rcu_read_unlock();
	}
	rcu_unregister_thread();
	return NULL;
}

static void test_queue_and_stack(void)
{
	struct cds_lfq_node_rcu *qn;
	struct cds_lfs_stack s;
	struct cds_lfs_node *sn;
	pthread_t t[2];
	long n = 0, before_q = atomic_load(&freed);
	int i;

	/* The queue call_rcu's its dummy nodes through this pointer. */
	cds_lfq_init_rcu(&q, call_rcu);
	for (i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], NULL, enqueuer, NULL) == 0);
	while (n < 10000) {
		rcu_read_lock();
		qn = cds_lfq_dequeue_rcu(&q);
		rcu_read_unlock();
		if (!qn) {
			sched_yield();
			continue;
		}
		call_rcu(&caa_container_of(qn, struct item, qnode)->rcu,
			 free_item);
		n++;
	}
	for (i = 0; i < 2; i++)
		CHECK(pthread_join(t[i], NULL) == 0);
	rcu_read_lock();
	CHECK(cds_lfq_dequeue_rcu(&q) == NULL);
	rcu_read_unlock();
	CHECK(cds_lfq_destroy_rcu(&q) == 0);

	cds_lfs_init(&s);
	for (i = 0; i < 1000; i++) {
		struct item *it = new_item((unsigned long)i);

		cds_lfs_node_init(&it->snode);
		cds_lfs_push(&s, &it->snode);
	}
	for (i = 999; i >= 0; i--) {
		rcu_read_lock();
		sn = __cds_lfs_pop(&s);
		rcu_read_unlock();
		CHECK(sn && caa_container_of(sn, struct item, snode)->key ==
				    (unsigned long)i);
		call_rcu(&caa_container_of(sn, struct item, snode)->rcu,
			 free_item);
	}
	CHECK(cds_lfs_empty(&s));
	rcu_barrier();
	CHECK(atomic_load(&freed) - before_q == 11000);
}

int main(void)
{
	rcu_register_thread();
	test_hash_table();
	test_queue_and_stack();
	rcu_unregister_thread();
	printf("ok\n");
	return 0;
}
