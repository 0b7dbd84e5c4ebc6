/* SPDX-License-Identifier: MIT */
/*
 * The callbacks of the domains besides the default one (src/core/
 * domain.c): call and barrier, run by one callback thread per domain;
 * rcb_qsbr_call() and rcb_qsbr_barrier() (include/rcuboost/qsbr.h), and
 * the liburcu flavors' call_rcu() and rcu_barrier() (src/compat/).
 *
 * Queueing is a lock-free push onto the domain's stack (one compare-
 * and-exchange); its thread takes the whole stack at once, puts it back
 * in queueing order, waits for one grace period of the domain and
 * invokes the batch: for a qsbr domain online (callbacks may read
 * qsbr-protected data) and offline otherwise, for a memb-kind domain
 * outside any section, as liburcu's call_rcu threads do.  A barrier
 * queues a marker whose invocation wakes the caller: every callback
 * queued before the marker is in its batch or an earlier one, and a
 * batch runs in order.
 *
 * Invariants.
 *  1. A head is on the stack, in the thread's current batch, or has
 *     been invoked; nothing else takes from the stack.
 *  2. Wake-ups are not lost: the thread sets asleep, fences, then looks
 *     at the stack; a push that finds the stack empty reads asleep after
 *     its (sequentially consistent) exchange, so one of the two sees the
 *     other ([DC-W]).
 *  3. A domain's thread is started lazily, by the first call or
 *     barrier, under its lock; fork()'s child has none and starts one
 *     the same way (queued callbacks are kept, other threads' barrier
 *     markers dropped); rcb_shutdown() drains and stops it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "callback/callback.h"

struct dom_cb {
	_Atomic(struct rcb_head *) top;
	_Atomic int wake; /* futex word: bumped to wake the thread */
	_Atomic int asleep; /* the thread is about to sleep, or asleep */
	_Atomic int stop;
	pthread_mutex_t lock;
	_Atomic bool running;
	pthread_t thread;
} __attribute__((aligned(128)));

static struct dom_cb dcbs[RCB__DOM_MAX] = {
	[0 ... RCB__DOM_MAX - 1] = { .lock = PTHREAD_MUTEX_INITIALIZER },
};
/* 1 + the domain whose callback thread this is; 0: none. */
static __thread int dcb_worker_of;

struct dcb_marker {
	struct rcb_head head;
	_Atomic int done; /* futex word */
};

static void dcb_marker_done(struct rcb_head *h)
{
	struct dcb_marker *m = rcb_container_of(h, struct dcb_marker, head);

	/* [DC-B] The batch's earlier callbacks before the barrier's
	 * return.  Pairs with [DC-BA] in dcb_barrier(). */
	rcb_store_release(&m->done, 1);
	rcb__futex_wake(&m->done, 1);
}

static void dcb_push(struct dom_cb *c, struct rcb_head *h)
{
	struct rcb_head *old = rcb_load_relaxed(&c->top);

	do {
		rcb_store_relaxed(&h->next, old);
		/* [DC-W] Sequentially consistent: the push before the load
		 * of asleep (invariant 2), and a release of the head's
		 * fields to the thread's [DC-T].  Pairs with [DC-S]. */
	} while (!atomic_compare_exchange_weak_explicit(
		&c->top, &old, h, memory_order_seq_cst, memory_order_relaxed));
	/* Counted only for a pressure threshold (src/core/domain.c). */
	if (rcb_load_relaxed(&rcb__doms[c - dcbs].pressure_callbacks))
		rcb_add_relaxed(&rcb__doms[c - dcbs].backlog, 1);
	if (!old && rcb_load_relaxed(&c->asleep)) {
		rcb_add_relaxed(&c->wake, 1);
		rcb__futex_wake(&c->wake, 1);
	}
}

static bool is_qsbr(int d)
{
	return rcb__doms[d].kind == RCB__DOM_KIND_QSBR;
}

/* Invoke a batch of domain @d taken from its stack (newest first). */
static void dcb_run(int d, struct rcb_head *list)
{
	struct rcb_head *fifo = NULL, *next;
	long n = 0;

	while (list) {
		next = rcb_load_relaxed(&list->next);
		rcb_store_relaxed(&list->next, fifo);
		fifo = list;
		list = next;
		n++;
	}
	(void)rcb__dom_synchronize(d, "callback thread", false);
	if (is_qsbr(d))
		rcb__qsbr_online(d);
	for (; fifo; fifo = next) {
		next = rcb_load_relaxed(&fifo->next);
		fifo->func(fifo);
	}
	if (is_qsbr(d))
		rcb__qsbr_store(d, 0);
	/* Markers and polled requests count too: they were pushed. */
	if (rcb_load_relaxed(&rcb__doms[d].pressure_callbacks))
		rcb_add_relaxed(&rcb__doms[d].backlog, -n);
}

static void *dcb_main(void *arg)
{
	int d = (int)(intptr_t)arg;
	struct dom_cb *c = &dcbs[d];
	struct rcb_head *list;
	char name[16];

	snprintf(name, sizeof(name), "rcb-%s-cb", rcb__doms[d].name);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	dcb_worker_of = d + 1;
	/* A qsbr domain's thread is registered, and offline but while it
	 * invokes; a memb-kind domain's registers at its callbacks' first
	 * read lock, if any. */
	if (is_qsbr(d)) {
		if (rcb__dom_register(d) != 0)
			RCB_DIE("registering a domain's callback thread",
				EAGAIN);
		rcb__qsbr_store(d, 0);
	}
	for (;;) {
		int seen = rcb_load_relaxed(&c->wake);

		/* [DC-T] The batch's heads as their pushers wrote them.
		 * Pairs with [DC-W] in dcb_push(). */
		list = atomic_exchange_explicit(&c->top, NULL,
						memory_order_acquire);
		if (list) {
			dcb_run(d, list);
			continue;
		}
		if (rcb_load_relaxed(&c->stop))
			break;
		rcb_store_relaxed(&c->asleep, 1);
		/* [DC-S] asleep before the look at the stack (invariant 2).
		 * Pairs with [DC-W] in dcb_push(). */
		rcb_fence_seq_cst();
		if (!rcb_load_relaxed(&c->top) && !rcb_load_relaxed(&c->stop))
			rcb__futex_wait(&c->wake, seen, 0);
		rcb_store_relaxed(&c->asleep, 0);
	}
	(void)rcb__dom_unregister(d);
	return NULL;
}

/* Start domain @d's thread if there is none (invariant 3).  0 or
 * -EAGAIN, said on stderr with @call. */
static int dcb_ensure_thread(int d, const char *call)
{
	struct dom_cb *c = &dcbs[d];
	int err = 0;

	/* [DC-R] A thread seen running was created.  Pairs with [DC-RS]. */
	if (RCB_LIKELY(rcb_load_acquire(&c->running)))
		return 0;
	pthread_mutex_lock(&c->lock);
	if (!c->running) {
		rcb_store_relaxed(&c->stop, 0);
		err = rcb__lib_thread_create(&c->thread, dcb_main,
					     (void *)(intptr_t)d);
		if (!err) /* [DC-RS] pairs with [DC-R] */
			rcb_store_release(&c->running, true);
	}
	pthread_mutex_unlock(&c->lock);
	if (err) {
		rcb__warn("rcuboost: %s: cannot start the %s domain's callback "
			  "thread: %s; the callbacks stay queued\n",
			  call, rcb__doms[d].name, strerror(err));
		return -EAGAIN;
	}
	return 0;
}

int rcb__dom_call(int d, struct rcb_head *head,
		  void (*func)(struct rcb_head *head), const char *call)
{
	int err;

	if (RCB_UNLIKELY(!head || !func)) {
		rcb__misuse(call, "NULL %s; nothing queued",
			    head ? "function" : "head");
		return -EINVAL;
	}
	if ((err = rcb__ensure_init()) != 0)
		return err;
	head->func = func;
	dcb_push(&dcbs[d], head);
	return dcb_ensure_thread(d, call);
}

/* The barrier, once the library is up. */
static int dcb_barrier(int d, const char *call)
{
	struct dcb_marker m = { .done = 0 };
	bool was_online = false;
	int err;

	if ((err = dcb_ensure_thread(d, call)) != 0)
		return err;
	if (is_qsbr(d)) {
		was_online = rcb_load_relaxed(&rcb__dom_reader[d].ctr) != 0;
		if (was_online)
			rcb__qsbr_store(d, 0);
	}
	m.head.func = dcb_marker_done;
	dcb_push(&dcbs[d], &m.head);
	/* [DC-BA] pairs with [DC-B]. */
	while (!rcb_load_acquire(&m.done))
		rcb__futex_wait(&m.done, 0, 0);
	if (was_online)
		rcb__qsbr_online(d);
	return 0;
}

int rcb__dom_barrier(int d, const char *call)
{
	int err;

	if (dcb_worker_of == d + 1) {
		rcb__misuse(call,
			    "called from a callback of the %s domain; it would "
			    "wait for itself forever",
			    rcb__doms[d].name);
		return -EDEADLK;
	}
	if (!is_qsbr(d) && rcb__dom_read_ongoing(d)) {
		rcb__misuse(
			call,
			"called inside a read-side critical section of the %s "
			"domain; it would wait for itself forever",
			rcb__doms[d].name);
		return -EDEADLK;
	}
	if ((err = rcb__ensure_init()) != 0)
		return err;
	return dcb_barrier(d, call);
}

RCB_API int rcb_qsbr_call(struct rcb_head *head,
			  void (*func)(struct rcb_head *head))
{
	return rcb__dom_call(RCB__DOM_QSBR, head, func, "rcb_qsbr_call");
}

RCB_API int rcb_qsbr_barrier(void)
{
	if (rcb__qsbr_reader.depth) {
		rcb__qsbr_nest_misuse("rcb_qsbr_barrier");
		return -EDEADLK;
	}
	return rcb__dom_barrier(RCB__DOM_QSBR, "rcb_qsbr_barrier");
}

/* ---- polled grace periods ------------------------------------------ */

/* Per domain: the highest cookie asked for, and one node that keeps a
 * request on the domain's callback thread while a cookie waits: its
 * batch's grace period began after the node was queued, so after every
 * cookie taken before; a cookie taken later re-queues it. */
static _Atomic unsigned long long poll_want[RCB__DOM_MAX];
static _Atomic bool poll_queued[RCB__DOM_MAX];
static struct rcb_head poll_head[RCB__DOM_MAX];

static void poll_request(int d);

static void poll_cb(struct rcb_head *h)
{
	int d = (int)(h - poll_head);

	rcb_store_relaxed(&poll_queued[d], false);
	/* [DC-PQ] The flag's clear before the look at the wanted cookie:
	 * store buffering against a start_poll's "want = c; queued?".
	 * Pairs with [DC-PW]. */
	rcb_fence_seq_cst();
	if (!rcb__dom_cookie_done(d, rcb_load_relaxed(&poll_want[d])))
		poll_request(d);
}

static void poll_request(int d)
{
	if (!rcb_xchg_relaxed(&poll_queued[d], true))
		(void)rcb__dom_call(d, &poll_head[d], poll_cb, "start_poll");
}

uint64_t rcb__dom_start_poll(int d)
{
	unsigned long long c = rcb__dom_cookie(d);

	rcb_max_relaxed(&poll_want[d], c);
	/* Alone in the domain: a grace period costs no membarrier, run
	 * it here (never blocks). */
	if (rcb_load_relaxed(&rcb__doms[d].nregs) <= 1 &&
	    rcb__dom_try_gp(d, c))
		return c;
	/* [DC-PW] The wanted cookie before the look at the flag.  Pairs
	 * with [DC-PQ]. */
	rcb_fence_seq_cst();
	poll_request(d);
	return c;
}

int rcb__dom_cb_thread(int d, pthread_t *out)
{
	int err = dcb_ensure_thread(d, "get_call_rcu_thread");

	if (!err)
		*out = dcbs[d].thread;
	return err;
}

bool rcb__dom_cb_refuses(const char *call)
{
	if (RCB_LIKELY(!dcb_worker_of))
		return false;
	rcb__misuse(call,
		    "called from a callback of the %s domain; it would wait "
		    "for its own thread",
		    rcb__doms[dcb_worker_of - 1].name);
	return true;
}

/* Domain @d's thread, if running, runs what is queued, then stops.
 * 0 or the join's error. */
static int dcb_stop(int d)
{
	struct dom_cb *c = &dcbs[d];
	int err = 0;

	/* [DC-R] pairs with [DC-RS] in dcb_ensure_thread(). */
	if (!rcb_load_acquire(&c->running))
		return 0;
	(void)dcb_barrier(d, "rcb_shutdown");
	pthread_mutex_lock(&c->lock);
	if (c->running) {
		rcb_store_relaxed(&c->stop, 1);
		rcb_add_relaxed(&c->wake, 1);
		rcb__futex_wake(&c->wake, 1);
		err = rcb__lib_thread_join(c->thread);
		rcb_store_relaxed(&c->running, false);
	}
	pthread_mutex_unlock(&c->lock);
	return err;
}

void rcb__dom_cb_stop_one(int d)
{
	(void)dcb_stop(d);
}

/* rcb_shutdown(): each domain's thread runs what is queued, then stops. */
int rcb__dom_cb_stop(void)
{
	int first_err = 0;

	for (int d = 0; d < RCB__DOM_MAX; d++) {
		int err = dcb_stop(d);

		if (err && !first_err)
			first_err = -err;
	}
	return first_err;
}

/*
 * fork() child: the threads are the parent's; the queues are kept, but
 * for the barrier markers.  Each lies on the stack of a parent thread
 * waiting in a barrier, which the child does not have, and glibc hands
 * those stacks to the child's next threads: the callback thread would
 * call through whatever they write there.  Read here, before any thread
 * of the child starts.
 */
void rcb__dom_cb_after_fork_child(void)
{
	for (int d = 0; d < RCB__DOM_MAX; d++) {
		struct dom_cb *c = &dcbs[d];
		struct rcb_head *h = rcb_load_relaxed(&c->top), *next;
		struct rcb_head *keep = NULL, *_Atomic *tail = NULL;

		for (; h; h = next) {
			next = rcb_load_relaxed(&h->next);
			if (h->func == dcb_marker_done)
				continue;
			if (tail)
				rcb_store_relaxed(tail, h);
			else
				keep = h;
			tail = &h->next;
		}
		if (tail)
			rcb_store_relaxed(tail, NULL);
		rcb_store_relaxed(&c->top, keep);
		/* A poll node kept on the queue stays marked queued. */
		pthread_mutex_init(&c->lock, NULL);
		rcb_store_relaxed(&c->running, false);
		rcb_store_relaxed(&c->asleep, 0);
		rcb_store_relaxed(&c->stop, 0);
	}
}
