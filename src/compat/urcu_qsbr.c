/* SPDX-License-Identifier: MIT */
/*
 * liburcu's qsbr flavor exported by librcuboost: the urcu_qsbr_*
 * functions of include/rcuboost/urcu_qsbr.h over the qsbr domain
 * (src/core/qsbr.c, src/core/domain.c, src/callback/dom_call.c), and its
 * flavor struct.
 *
 * struct rcu_head is handed to rcb_qsbr_call() as is: both are the two
 * words {next, func} (checked below), and the domain writes only them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callback/callback.h"
#include "core/internal.h"
#include "compat/urcu_compat.h"

#define RCB_URCU_STANDALONE /* never a liburcu header in the library */
#include "rcuboost/urcu_qsbr.h"

_Static_assert(sizeof(struct rcu_head) == sizeof(struct rcb_head) &&
		       offsetof(struct rcu_head, func) ==
			       offsetof(struct rcb_head, func),
	       "struct rcu_head must have struct rcb_head's layout");

/* Parenthesised names: the header maps calls of these names to the
 * inline qsbr calls by function-like macros. */
RCB_API void (urcu_qsbr_read_lock)(void)
{
	rcb_qsbr_read_lock();
}

RCB_API void (urcu_qsbr_read_unlock)(void)
{
	rcb_qsbr_read_unlock();
}

RCB_API int (urcu_qsbr_read_ongoing)(void)
{
	return rcb_qsbr_read_ongoing();
}

RCB_API void (urcu_qsbr_quiescent_state)(void)
{
	RCB__AS_LIBURCU("rcu_quiescent_state", rcb_qsbr_quiescent_state());
}

RCB_API void urcu_qsbr_thread_offline(void)
{
	RCB__AS_LIBURCU("rcu_thread_offline", rcb_qsbr_thread_offline());
}

RCB_API void urcu_qsbr_thread_online(void)
{
	RCB__AS_LIBURCU("rcu_thread_online", rcb_qsbr_thread_online());
}

RCB_API void urcu_qsbr_synchronize_rcu(void)
{
	RCB__AS_LIBURCU("synchronize_rcu", (void)rcb_qsbr_synchronize());
}

RCB_API void urcu_qsbr_register_thread(void)
{
	int err;

	RCB__AS_LIBURCU("rcu_register_thread", err = rcb_qsbr_register_thread());
	if (err)
		rcb__misuse("rcu_register_thread",
			    "cannot register the thread with the qsbr domain: %s",
			    strerror(-err));
}

RCB_API void urcu_qsbr_unregister_thread(void)
{
	int err;

	RCB__AS_LIBURCU("rcu_unregister_thread",
			err = rcb_qsbr_unregister_thread());
	/* liburcu asserts; its void call cannot return -ENOENT. */
	if (err == -ENOENT)
		rcb__misuse("rcu_unregister_thread",
			    "the thread is not registered with the qsbr flavor; nothing done");
}

RCB_API void urcu_qsbr_init(void)
{
	(void)rcb_init(NULL);
}

RCB_API void urcu_qsbr_exit(void)
{
}

RCB_API void urcu_qsbr_call_rcu(struct rcu_head *head,
				void (*func)(struct rcu_head *head))
{
	RCB__AS_LIBURCU("call_rcu",
			(void)rcb_qsbr_call((struct rcb_head *)head,
					    (void (*)(struct rcb_head *))func));
}

RCB_API void urcu_qsbr_barrier(void)
{
	RCB__AS_LIBURCU("rcu_barrier", (void)rcb_qsbr_barrier());
}

/* ---- defer_rcu ----------------------------------------------------- */

struct qsbr_defer {
	struct rcb_head head;
	void (*fct)(void *p);
	void *p;
};

static void qsbr_defer_run(struct rcb_head *h)
{
	struct qsbr_defer *d = rcb_container_of(h, struct qsbr_defer, head);

	d->fct(d->p);
	free(d);
}

RCB_API void urcu_qsbr_defer_rcu(void (*fct)(void *p), void *p)
{
	struct qsbr_defer *d;

	if (!fct) {
		rcb__misuse("defer_rcu", "NULL function; nothing deferred");
		return;
	}
	d = malloc(sizeof(*d));
	if (!d) {
		/* No memory for its node: wait for the grace period here,
		 * as liburcu's full queue does, and call it. */
		(void)rcb_qsbr_synchronize();
		fct(p);
		return;
	}
	d->fct = fct;
	d->p = p;
	/* -EAGAIN: queued, run once the callback thread can start. */
	(void)rcb_qsbr_call(&d->head, qsbr_defer_run);
}

RCB_API int urcu_qsbr_defer_register_thread(void)
{
	return 0;
}

RCB_API void urcu_qsbr_defer_unregister_thread(void)
{
}

RCB_API void urcu_qsbr_defer_barrier(void)
{
	RCB__AS_LIBURCU("rcu_defer_barrier", (void)rcb_qsbr_barrier());
}

RCB_API void urcu_qsbr_defer_barrier_thread(void)
{
	RCB__AS_LIBURCU("rcu_defer_barrier_thread", (void)rcb_qsbr_barrier());
}

RCB_API void urcu_qsbr_defer_exit(void)
{
}

RCB_API void urcu_qsbr_register_rculfhash_atfork(struct urcu_atfork *atfork)
{
	urcu_memb_register_rculfhash_atfork(atfork);
}

RCB_API void urcu_qsbr_unregister_rculfhash_atfork(struct urcu_atfork *atfork)
{
	urcu_memb_unregister_rculfhash_atfork(atfork);
}

/* ---- call_rcu_data: one thread behind every handle ------------------ */

/* The one handle: an address no call_rcu_data of the memb flavor has. */
static char qsbr_crdp_anchor;
#define QSBR_CRDP ((struct call_rcu_data *)(void *)&qsbr_crdp_anchor)

RCB_API struct call_rcu_data *
urcu_qsbr_create_call_rcu_data(unsigned long flags, int cpu_affinity)
{
	(void)flags;
	(void)cpu_affinity;
	return QSBR_CRDP;
}

RCB_API void urcu_qsbr_call_rcu_data_free(struct call_rcu_data *crdp)
{
	(void)crdp;
}

RCB_API struct call_rcu_data *urcu_qsbr_get_default_call_rcu_data(void)
{
	return QSBR_CRDP;
}

RCB_API struct call_rcu_data *urcu_qsbr_get_cpu_call_rcu_data(int cpu)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return cpu >= 0 && cpu < n ? QSBR_CRDP : NULL;
}

RCB_API struct call_rcu_data *urcu_qsbr_get_thread_call_rcu_data(void)
{
	return QSBR_CRDP;
}

RCB_API struct call_rcu_data *urcu_qsbr_get_call_rcu_data(void)
{
	return QSBR_CRDP;
}

RCB_API pthread_t urcu_qsbr_get_call_rcu_thread(struct call_rcu_data *crdp)
{
	pthread_t t;
	int err;

	(void)crdp;
	if ((err = rcb__ensure_init()) != 0 ||
	    (err = rcb__dom_cb_thread(RCB__DOM_QSBR, &t)) != 0) {
		/* liburcu stops the process when it cannot start a thread;
		 * there is no pthread_t to return. */
		fprintf(stderr,
			"rcuboost: fatal: get_call_rcu_thread: the qsbr callback thread "
			"cannot start (%s)\n",
			strerror(-err));
		abort();
	}
	return t;
}

RCB_API void urcu_qsbr_set_thread_call_rcu_data(struct call_rcu_data *crdp)
{
	(void)crdp;
}

RCB_API int urcu_qsbr_set_cpu_call_rcu_data(int cpu,
					    struct call_rcu_data *crdp)
{
	(void)cpu;
	(void)crdp;
	return 0;
}

RCB_API int urcu_qsbr_create_all_cpu_call_rcu_data(unsigned long flags)
{
	(void)flags;
	return 0;
}

RCB_API void urcu_qsbr_free_all_cpu_call_rcu_data(void)
{
}

RCB_API void urcu_qsbr_call_rcu_before_fork(void)
{
	urcu_memb_call_rcu_before_fork();
}

RCB_API void urcu_qsbr_call_rcu_after_fork_parent(void)
{
	urcu_memb_call_rcu_after_fork_parent();
}

RCB_API void urcu_qsbr_call_rcu_after_fork_child(void)
{
	urcu_memb_call_rcu_after_fork_child();
}

/* The flavor struct needs functions, not the header's macros. */
static void qsbr_read_lock(void)
{
	rcb_qsbr_read_lock();
}

static void qsbr_read_unlock(void)
{
	rcb_qsbr_read_unlock();
}

static int qsbr_read_ongoing(void)
{
	return rcb_qsbr_read_ongoing();
}

static void qsbr_quiescent_state(void)
{
	rcb_qsbr_quiescent_state();
}

RCB_API const struct rcu_flavor_struct urcu_qsbr_flavor = {
	.read_lock = qsbr_read_lock,
	.read_unlock = qsbr_read_unlock,
	.read_ongoing = qsbr_read_ongoing,
	.read_quiescent_state = qsbr_quiescent_state,
	.update_call_rcu = urcu_qsbr_call_rcu,
	.update_synchronize_rcu = urcu_qsbr_synchronize_rcu,
	.update_defer_rcu = urcu_qsbr_defer_rcu,
	.thread_offline = urcu_qsbr_thread_offline,
	.thread_online = urcu_qsbr_thread_online,
	.register_thread = urcu_qsbr_register_thread,
	.unregister_thread = urcu_qsbr_unregister_thread,
	.barrier = urcu_qsbr_barrier,
	.register_rculfhash_atfork = urcu_qsbr_register_rculfhash_atfork,
	.unregister_rculfhash_atfork = urcu_qsbr_unregister_rculfhash_atfork,
};
