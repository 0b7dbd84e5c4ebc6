/* SPDX-License-Identifier: MIT */
/*
 * One liburcu flavor exported by librcuboost: the functions every flavor
 * has (include/rcuboost/urcu_flavor_decl.h's) over a domain of its own
 * (src/core/domain.c, src/callback/dom_call.c), and its flavor struct.
 * Included once by each of urcu_qsbr.c, urcu_bp.c, urcu_mb.c and
 * urcu_signal.c, after the flavor's public header, with RCB__UF(name)
 * (the flavor's function name) and UF_DOM (its domain) defined, and
 * UF_QSBR for the qsbr flavor, whose read side, grace periods and
 * barrier are <rcuboost/qsbr.h>'s (they check its debug nesting), or
 * UF_BP for bp, which has an unregistration of its own.
 *
 * struct rcu_head is handed to the domain's call as is: both are the two
 * words {next, func} (checked below), and the domain writes only them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callback/callback.h"
#include "compat/urcu_compat.h"
#include "core/internal.h"

#ifdef UF_QSBR
#define UF_LOCK() rcb_qsbr_read_lock()
#define UF_UNLOCK() rcb_qsbr_read_unlock()
#define UF_ONGOING() rcb_qsbr_read_ongoing()
#define UF_SYNC(call) rcb_qsbr_synchronize()
#define UF_BARRIER(call) rcb_qsbr_barrier()
#define UF_REGISTER() rcb_qsbr_register_thread()
#define UF_UNREGISTER() rcb_qsbr_unregister_thread()
#else
#define UF_LOCK() rcb__dom_read_lock(UF_DOM)
#define UF_UNLOCK() rcb__dom_read_unlock(UF_DOM)
#define UF_ONGOING() rcb__dom_read_ongoing(UF_DOM)
#define UF_SYNC(call) rcb__dom_synchronize(UF_DOM, call, false)
#define UF_BARRIER(call) rcb__dom_barrier(UF_DOM, call)
#define UF_REGISTER() rcb__dom_register(UF_DOM)
#define UF_UNREGISTER() rcb__dom_unregister(UF_DOM)
#endif

_Static_assert(sizeof(struct rcu_head) == sizeof(struct rcb_head) &&
		       offsetof(struct rcu_head, func) ==
			       offsetof(struct rcb_head, func),
	       "struct rcu_head must have struct rcb_head's layout");

/* Parenthesised names: the header maps calls of these names to the
 * inline read side by function-like macros. */
RCB_API void(RCB__UF(read_lock))(void)
{
	UF_LOCK();
}

RCB_API void(RCB__UF(read_unlock))(void)
{
	UF_UNLOCK();
}

RCB_API int(RCB__UF(read_ongoing))(void)
{
	return UF_ONGOING();
}

RCB_API void RCB__UF(synchronize_rcu)(void)
{
	RCB__AS_LIBURCU("synchronize_rcu",
			(void)UF_SYNC("synchronize_rcu"));
}

RCB_API void RCB__UF(register_thread)(void)
{
	int err;

	RCB__AS_LIBURCU("rcu_register_thread", err = UF_REGISTER());
	if (err)
		rcb__misuse("rcu_register_thread",
			    "cannot register the thread with the %s flavor: %s",
			    rcb__doms[UF_DOM].name, strerror(-err));
}

RCB_API struct urcu_gp_poll_state RCB__UF(start_poll_synchronize_rcu)(void)
{
	struct urcu_gp_poll_state s = { .grace_period_id =
						rcb__dom_start_poll(UF_DOM) };

	return s;
}

RCB_API bool RCB__UF(poll_state_synchronize_rcu)(struct urcu_gp_poll_state s)
{
	/* Acquire ([DG-PD]): the caller's frees after the grace period. */
	return rcb__dom_cookie_done(UF_DOM, s.grace_period_id);
}

/* bp's is its own (UF_BP): an empty call, as liburcu-bp's. */
#ifndef UF_BP
RCB_API void RCB__UF(unregister_thread)(void)
{
	int err;

#ifndef UF_QSBR /* a qsbr thread unregisters online */
	if (UF_ONGOING()) {
		rcb__misuse("rcu_unregister_thread",
			    "called inside a read-side critical section of the %s "
			    "flavor; the thread stays registered",
			    rcb__doms[UF_DOM].name);
		return;
	}
#endif
	RCB__AS_LIBURCU("rcu_unregister_thread", err = UF_UNREGISTER());
	/* liburcu asserts; its void call cannot return -ENOENT. */
	if (err == -ENOENT)
		rcb__misuse("rcu_unregister_thread",
			    "the thread is not registered with the %s flavor; "
			    "nothing done",
			    rcb__doms[UF_DOM].name);
}
#endif

RCB_API void RCB__UF(init)(void)
{
	(void)rcb_init(NULL);
}

RCB_API void RCB__UF(exit)(void)
{
}

RCB_API void RCB__UF(call_rcu)(struct rcu_head *head,
			       void (*func)(struct rcu_head *head))
{
	RCB__AS_LIBURCU("call_rcu",
			(void)rcb__dom_call(UF_DOM, (struct rcb_head *)head,
					    (void (*)(struct rcb_head *))func,
					    "call_rcu"));
}

RCB_API void RCB__UF(barrier)(void)
{
	RCB__AS_LIBURCU("rcu_barrier", (void)UF_BARRIER("rcu_barrier"));
}

/* ---- defer_rcu ----------------------------------------------------- */

struct uf_defer {
	struct rcb_head head;
	void (*fct)(void *p);
	void *p;
};

static void uf_defer_run(struct rcb_head *h)
{
	struct uf_defer *d = rcb_container_of(h, struct uf_defer, head);

	d->fct(d->p);
	free(d);
}

RCB_API void RCB__UF(defer_rcu)(void (*fct)(void *p), void *p)
{
	struct uf_defer *d;

	if (!fct) {
		rcb__misuse("defer_rcu", "NULL function; nothing deferred");
		return;
	}
	d = malloc(sizeof(*d));
	if (!d) {
		/* No memory for its node: wait for the grace period here,
		 * as liburcu's full queue does, and call it. */
		(void)UF_SYNC("defer_rcu");
		fct(p);
		return;
	}
	d->fct = fct;
	d->p = p;
	/* -EAGAIN: queued, run once the callback thread can start. */
	(void)rcb__dom_call(UF_DOM, &d->head, uf_defer_run, "defer_rcu");
}

RCB_API int RCB__UF(defer_register_thread)(void)
{
	return 0;
}

RCB_API void RCB__UF(defer_unregister_thread)(void)
{
}

RCB_API void RCB__UF(defer_barrier)(void)
{
	RCB__AS_LIBURCU("rcu_defer_barrier",
			(void)UF_BARRIER("rcu_defer_barrier"));
}

RCB_API void RCB__UF(defer_barrier_thread)(void)
{
	RCB__AS_LIBURCU(
		"rcu_defer_barrier_thread",
		(void)UF_BARRIER("rcu_defer_barrier_thread"));
}

RCB_API void RCB__UF(defer_exit)(void)
{
}

RCB_API void RCB__UF(register_rculfhash_atfork)(struct urcu_atfork *atfork)
{
	urcu_memb_register_rculfhash_atfork(atfork);
}

RCB_API void RCB__UF(unregister_rculfhash_atfork)(struct urcu_atfork *atfork)
{
	urcu_memb_unregister_rculfhash_atfork(atfork);
}

/* ---- call_rcu_data: one thread behind every handle ------------------ */

/* The one handle: an address no other flavor's call_rcu_data has. */
static char uf_crdp_anchor;
#define UF_CRDP ((struct call_rcu_data *)(void *)&uf_crdp_anchor)

RCB_API struct call_rcu_data *RCB__UF(create_call_rcu_data)(unsigned long flags,
							    int cpu_affinity)
{
	(void)flags;
	(void)cpu_affinity;
	return UF_CRDP;
}

RCB_API void RCB__UF(call_rcu_data_free)(struct call_rcu_data *crdp)
{
	(void)crdp;
}

RCB_API struct call_rcu_data *RCB__UF(get_default_call_rcu_data)(void)
{
	return UF_CRDP;
}

RCB_API struct call_rcu_data *RCB__UF(get_cpu_call_rcu_data)(int cpu)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return cpu >= 0 && cpu < n ? UF_CRDP : NULL;
}

RCB_API struct call_rcu_data *RCB__UF(get_thread_call_rcu_data)(void)
{
	return UF_CRDP;
}

RCB_API struct call_rcu_data *RCB__UF(get_call_rcu_data)(void)
{
	return UF_CRDP;
}

RCB_API pthread_t RCB__UF(get_call_rcu_thread)(struct call_rcu_data *crdp)
{
	pthread_t t;
	int err;

	(void)crdp;
	if ((err = rcb__ensure_init()) != 0 ||
	    (err = rcb__dom_cb_thread(UF_DOM, &t)) != 0) {
		/* liburcu stops the process when it cannot start a thread;
		 * there is no pthread_t to return. */
		fprintf(stderr,
			"rcuboost: fatal: get_call_rcu_thread: the %s flavor's callback "
			"thread cannot start (%s)\n",
			rcb__doms[UF_DOM].name, strerror(-err));
		abort();
	}
	return t;
}

RCB_API void RCB__UF(set_thread_call_rcu_data)(struct call_rcu_data *crdp)
{
	(void)crdp;
}

RCB_API int RCB__UF(set_cpu_call_rcu_data)(int cpu, struct call_rcu_data *crdp)
{
	(void)cpu;
	(void)crdp;
	return 0;
}

RCB_API int RCB__UF(create_all_cpu_call_rcu_data)(unsigned long flags)
{
	(void)flags;
	return 0;
}

RCB_API void RCB__UF(free_all_cpu_call_rcu_data)(void)
{
}

RCB_API void RCB__UF(call_rcu_before_fork)(void)
{
	urcu_memb_call_rcu_before_fork();
}

RCB_API void RCB__UF(call_rcu_after_fork_parent)(void)
{
	urcu_memb_call_rcu_after_fork_parent();
}

RCB_API void RCB__UF(call_rcu_after_fork_child)(void)
{
	urcu_memb_call_rcu_after_fork_child();
}

/* The flavor struct needs functions, not the header's macros. */
static void uf_read_lock(void)
{
	UF_LOCK();
}

static void uf_read_unlock(void)
{
	UF_UNLOCK();
}

static int uf_read_ongoing(void)
{
	return UF_ONGOING();
}

#ifdef UF_QSBR
static void uf_quiescent_state(void)
{
	rcb_qsbr_quiescent_state();
}
#define UF_QS uf_quiescent_state
#define UF_OFFLINE urcu_qsbr_thread_offline
#define UF_ONLINE urcu_qsbr_thread_online
#else
/* liburcu's memb-class flavors have no quiescent state and are always
 * online: these do nothing, as memb's. */
static void uf_nothing(void)
{
}
#define UF_QS uf_nothing
#define UF_OFFLINE uf_nothing
#define UF_ONLINE uf_nothing
#endif

RCB_API const struct rcu_flavor_struct RCB__UF(flavor) = {
	.read_lock = uf_read_lock,
	.read_unlock = uf_read_unlock,
	.read_ongoing = uf_read_ongoing,
	.read_quiescent_state = UF_QS,
	.update_call_rcu = RCB__UF(call_rcu),
	.update_synchronize_rcu = RCB__UF(synchronize_rcu),
	.update_defer_rcu = RCB__UF(defer_rcu),
	.thread_offline = UF_OFFLINE,
	.thread_online = UF_ONLINE,
	.register_thread = RCB__UF(register_thread),
	.unregister_thread = RCB__UF(unregister_thread),
	.barrier = RCB__UF(barrier),
	.register_rculfhash_atfork = RCB__UF(register_rculfhash_atfork),
	.unregister_rculfhash_atfork = RCB__UF(unregister_rculfhash_atfork),
};
