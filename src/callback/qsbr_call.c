/* SPDX-License-Identifier: MIT */
/*
 * The qsbr domain's callbacks: rcb_qsbr_call() and rcb_qsbr_barrier()
 * (include/rcuboost/qsbr.h), run by one callback thread of the domain.
 *
 * Queueing is a lock-free push onto a stack (one compare-and-exchange);
 * the thread takes the whole stack at once, puts it back in queueing
 * order, waits for one qsbr grace period and invokes the batch online
 * in the domain (callbacks may read qsbr-protected data), offline
 * otherwise.  A barrier queues a marker whose invocation wakes the
 * caller: every callback queued before the marker is in its batch or an
 * earlier one, and a batch runs in order.
 *
 * Invariants.
 *  1. A head is on the stack, in the thread's current batch, or has
 *     been invoked; nothing else takes from the stack.
 *  2. Wake-ups are not lost: the thread sets asleep, fences, then looks
 *     at the stack; a push that finds the stack empty reads asleep after
 *     its (sequentially consistent) exchange, so one of the two sees the
 *     other ([QC-W]).
 *  3. The thread is started lazily, by the first call or barrier, under
 *     qcb_lock; fork()'s child has none and starts one the same way
 *     (queued callbacks are kept, other threads' barrier markers
 *     dropped); rcb_shutdown() drains and stops it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "callback/callback.h"

static _Atomic(struct rcb_head *) qcb_top;
static _Atomic int qcb_wake;   /* futex word: bumped to wake the thread */
static _Atomic int qcb_asleep; /* the thread is about to sleep, or asleep */
static _Atomic int qcb_stop;
static pthread_mutex_t qcb_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool qcb_running;
static pthread_t qcb_thread;
static __thread bool qcb_is_worker;
_Atomic unsigned long long rcb__qsbr_cb_invoked;

struct qcb_marker {
	struct rcb_head head;
	_Atomic int done; /* futex word */
};

static void qcb_marker_done(struct rcb_head *h)
{
	struct qcb_marker *m = rcb_container_of(h, struct qcb_marker, head);

	/* [QC-B] The batch's earlier callbacks before the barrier's
	 * return.  Pairs with [QC-BA] in rcb_qsbr_barrier(). */
	rcb_store_release(&m->done, 1);
	rcb__futex_wake(&m->done, 1);
}

static void qcb_push(struct rcb_head *h)
{
	struct rcb_head *old = rcb_load_relaxed(&qcb_top);

	do {
		rcb_store_relaxed(&h->next, old);
		/* [QC-W] Sequentially consistent: the push before the load
		 * of qcb_asleep (invariant 2), and a release of the head's
		 * fields to the thread's [QC-T].  Pairs with [QC-S]. */
	} while (!atomic_compare_exchange_weak_explicit(
		&qcb_top, &old, h, memory_order_seq_cst,
		memory_order_relaxed));
	if (!old && rcb_load_relaxed(&qcb_asleep)) {
		rcb_add_relaxed(&qcb_wake, 1);
		rcb__futex_wake(&qcb_wake, 1);
	}
}

/* Invoke a batch taken from the stack (newest first). */
static void qcb_run(struct rcb_head *list)
{
	struct rcb_head *fifo = NULL, *next;

	while (list) {
		next = rcb_load_relaxed(&list->next);
		rcb_store_relaxed(&list->next, fifo);
		fifo = list;
		list = next;
	}
	rcb_qsbr_synchronize();
	rcb_qsbr_thread_online();
	for (; fifo; fifo = next) {
		next = rcb_load_relaxed(&fifo->next);
		fifo->func(fifo);
		rcb_add_relaxed(&rcb__qsbr_cb_invoked, 1);
	}
	rcb_qsbr_thread_offline();
}

static void *qcb_main(void *arg)
{
	struct rcb_head *list;

	(void)arg;
	prctl(PR_SET_NAME, "rcb-qsbr-cb", 0, 0, 0);
	qcb_is_worker = true;
	if (rcb_qsbr_register_thread() != 0)
		RCB_DIE("rcb_qsbr_register_thread (qsbr callback thread)", EAGAIN);
	rcb_qsbr_thread_offline();
	for (;;) {
		int seen = rcb_load_relaxed(&qcb_wake);

		/* [QC-T] The batch's heads as their pushers wrote them.
		 * Pairs with [QC-W] in qcb_push(). */
		list = atomic_exchange_explicit(&qcb_top, NULL,
						memory_order_acquire);
		if (list) {
			qcb_run(list);
			continue;
		}
		if (rcb_load_relaxed(&qcb_stop))
			break;
		rcb_store_relaxed(&qcb_asleep, 1);
		/* [QC-S] asleep before the look at the stack (invariant 2).
		 * Pairs with [QC-W] in qcb_push(). */
		rcb_fence_seq_cst();
		if (!rcb_load_relaxed(&qcb_top) && !rcb_load_relaxed(&qcb_stop))
			rcb__futex_wait(&qcb_wake, seen, 0);
		rcb_store_relaxed(&qcb_asleep, 0);
	}
	rcb_qsbr_unregister_thread();
	return NULL;
}

/* Start the thread if there is none (invariant 3).  0 or -EAGAIN. */
static int qcb_ensure_thread(void)
{
	int err = 0;

	/* [QC-R] A thread seen running was created.  Pairs with [QC-RS]. */
	if (RCB_LIKELY(rcb_load_acquire(&qcb_running)))
		return 0;
	pthread_mutex_lock(&qcb_lock);
	if (!qcb_running) {
		rcb_store_relaxed(&qcb_stop, 0);
		err = rcb__lib_thread_create(&qcb_thread, qcb_main, NULL);
		if (!err) /* [QC-RS] pairs with [QC-R] */
			rcb_store_release(&qcb_running, true);
	}
	pthread_mutex_unlock(&qcb_lock);
	if (err) {
		rcb__warn("rcuboost: rcb_qsbr_call: cannot start the qsbr callback "
			  "thread: %s; the callbacks stay queued\n",
			  strerror(err));
		return -EAGAIN;
	}
	return 0;
}

RCB_API int rcb_qsbr_call(struct rcb_head *head,
			  void (*func)(struct rcb_head *head))
{
	int err;

	if (RCB_UNLIKELY(!head || !func)) {
		rcb__misuse("rcb_qsbr_call", "NULL %s; nothing queued",
			    head ? "function" : "head");
		return -EINVAL;
	}
	if ((err = rcb__ensure_init()) != 0)
		return err;
	head->func = func;
	qcb_push(head);
	return qcb_ensure_thread();
}

/* The barrier, once the library is up. */
static int qcb_barrier(void)
{
	struct qcb_marker m = { .done = 0 };
	bool was_online;
	int err;

	if ((err = qcb_ensure_thread()) != 0)
		return err;
	was_online = rcb_qsbr_thread_is_online();
	if (was_online)
		rcb_qsbr_thread_offline();
	m.head.func = qcb_marker_done;
	qcb_push(&m.head);
	/* [QC-BA] pairs with [QC-B]. */
	while (!rcb_load_acquire(&m.done))
		rcb__futex_wait(&m.done, 0, 0);
	if (was_online)
		rcb_qsbr_thread_online();
	return 0;
}

RCB_API int rcb_qsbr_barrier(void)
{
	int err;

	if (qcb_is_worker) {
		rcb__misuse("rcb_qsbr_barrier",
			    "called from a qsbr callback; it would wait for itself forever");
		return -EDEADLK;
	}
	if (rcb__qsbr_reader.depth) {
		rcb__qsbr_nest_misuse("rcb_qsbr_barrier");
		return -EDEADLK;
	}
	if ((err = rcb__ensure_init()) != 0)
		return err;
	return qcb_barrier();
}

/* The callback thread (started if need be) into *@out: 0 or -EAGAIN.
 * For the liburcu drop-in's get_call_rcu_thread(). */
int rcb__qsbr_cb_thread(pthread_t *out)
{
	int err = qcb_ensure_thread();

	if (!err)
		*out = qcb_thread;
	return err;
}

bool rcb__qsbr_cb_refuses(const char *call)
{
	if (RCB_LIKELY(!qcb_is_worker))
		return false;
	rcb__misuse(call, "called from a qsbr callback; it would wait for its own thread");
	return true;
}

/* rcb_shutdown(): run what is queued, then stop the thread. */
int rcb__qsbr_cb_stop(void)
{
	int err = 0;

	/* [QC-R] pairs with [QC-RS] in qcb_ensure_thread(). */
	if (!rcb_load_acquire(&qcb_running))
		return 0;
	(void)qcb_barrier();
	pthread_mutex_lock(&qcb_lock);
	if (qcb_running) {
		rcb_store_relaxed(&qcb_stop, 1);
		rcb_add_relaxed(&qcb_wake, 1);
		rcb__futex_wake(&qcb_wake, 1);
		err = rcb__lib_thread_join(qcb_thread);
		rcb_store_relaxed(&qcb_running, false);
	}
	pthread_mutex_unlock(&qcb_lock);
	return err ? -err : 0;
}

/*
 * fork() child: the thread is the parent's; the queue is kept, but for
 * the barrier markers.  Each lies on the stack of a parent thread waiting
 * in rcb_qsbr_barrier(), which the child does not have, and glibc hands
 * those stacks to the child's next threads: the callback thread would
 * call through whatever they write there.  Read here, before any thread
 * of the child starts.
 */
void rcb__qsbr_cb_after_fork_child(void)
{
	struct rcb_head *h = rcb_load_relaxed(&qcb_top), *next;
	struct rcb_head *keep = NULL, *_Atomic *tail = NULL;

	for (; h; h = next) {
		next = rcb_load_relaxed(&h->next);
		if (h->func == qcb_marker_done)
			continue;
		if (tail)
			rcb_store_relaxed(tail, h);
		else
			keep = h;
		tail = &h->next;
	}
	if (tail)
		rcb_store_relaxed(tail, NULL);
	rcb_store_relaxed(&qcb_top, keep);
	pthread_mutex_init(&qcb_lock, NULL);
	rcb_store_relaxed(&qcb_running, false);
	rcb_store_relaxed(&qcb_asleep, 0);
	rcb_store_relaxed(&qcb_stop, 0);
}
