/* SPDX-License-Identifier: MIT */
/*
 * The rcb_domain_* API (include/rcuboost/domain.h, rcuboost-domain(3)):
 * domains of the program's own over the domain engine (src/core/
 * domain.c), with their callbacks on a callback thread (dom_call.c) or
 * run by their owners (dom_owner.c).
 *
 * A created domain takes a free slot of rcb__doms[] (RCB__DOM_N and up)
 * under create_lock; rcb_domain_destroy() frees it only when no thread
 * is registered with it, so that no thread's record for the slot holds
 * anything when a later domain reuses it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

#include "callback/callback.h"
#include "callback/dom_owner.h"

static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;

/* A field added later goes after the first layout, which stays. */
_Static_assert(sizeof(struct rcb_domain_attr) == RCB_DOMAIN_ATTR_SIZE_V1,
	       "struct rcb_domain_attr's first layout changed");

/* The slot of handle @d, or -1 (reported as @call's misuse). */
static int dom_of(struct rcb_domain *d, const char *call)
{
	int id;

	if (RCB_UNLIKELY(!d)) {
		rcb__misuse(call, "NULL domain; nothing done");
		return -1;
	}
	id = d->rcb__id;
	if (RCB_UNLIKELY(id < RCB__DOM_N || id >= RCB__DOM_MAX ||
			 d != &rcb__doms[id].pub ||
			 /* [DOM-L] pairs with rcb_domain_create()'s */
			 !rcb_load_acquire(&rcb__doms[id].live))) {
		rcb__misuse(call, "not a live domain (destroyed, or not from "
				  "rcb_domain_create()); nothing done");
		return -1;
	}
	return id;
}

static bool owner_run(int id)
{
	return rcb__doms[id].flags & RCB_DOMAIN_OWNER_CALLBACKS;
}

RCB_API int rcb_domain_create(struct rcb_domain **out,
			      const struct rcb_domain_attr *attr)
{
	struct rcb_domain_attr a = { 0 };
	struct rcb__dom *dom = NULL;
	size_t usize;
	int err, id;

	if (!out) {
		rcb__misuse("rcb_domain_create",
			    "out is NULL; nothing created");
		return -EINVAL;
	}
	if (attr) {
		usize = rcb__sized_arg("rcb_domain_create", "attr",
				       &attr->size, RCB_DOMAIN_ATTR_SIZE_V1,
				       sizeof(a));
		if (!usize)
			return -EINVAL;
		if (!rcb__sized_in(&a, sizeof(a), attr, usize)) {
			rcb__misuse("rcb_domain_create",
				    "attr->size %zu is larger than this "
				    "library's %zu and sets fields it does not "
				    "know; nothing created",
				    usize, sizeof(a));
			return -E2BIG;
		}
	}
	attr = &a;
	if ((attr->kind != RCB_DOMAIN_MEMB && attr->kind != RCB_DOMAIN_QSBR) ||
	    attr->boost < -1 || attr->boost > 1 ||
	    (attr->flags & ~RCB_DOMAIN_OWNER_CALLBACKS) ||
	    attr->boost_delay_ms > 3600u * 1000 || attr->reader_prio < 0 ||
	    attr->reader_prio > 98) {
		rcb__misuse(
			"rcb_domain_create",
			"bad attributes (kind %d, boost %d, boost_delay_ms %u, "
			"flags 0x%x, reader_prio %d); nothing created",
			(int)attr->kind, attr->boost, attr->boost_delay_ms,
			attr->flags, attr->reader_prio);
		return -EINVAL;
	}
	if ((err = rcb__ensure_init()) != 0)
		return err;
	rcb__doms_init_once();
	pthread_mutex_lock(&create_lock);
	for (id = RCB__DOM_N; id < RCB__DOM_MAX; id++)
		if (!rcb_load_relaxed(&rcb__doms[id].live)) {
			dom = &rcb__doms[id];
			break;
		}
	if (dom) {
		bool qsbr = attr->kind == RCB_DOMAIN_QSBR;

		dom->pub.rcb__id = id;
		dom->pub.rcb__qsbr = qsbr;
		snprintf(dom->name_buf, sizeof(dom->name_buf), "domain %d",
			 id - RCB__DOM_N + 1);
		dom->name = dom->name_buf;
		dom->kind = qsbr ? RCB__DOM_KIND_QSBR : RCB__DOM_KIND_MEMB;
		rcb_store_relaxed(&dom->boost, attr->boost);
		rcb_store_relaxed(&dom->boost_delay_ns,
				  attr->boost_delay_ms * 1000000ull);
		dom->flags = attr->flags;
		rcb_store_relaxed(&dom->reader_prio, attr->reader_prio);
		rcb_store_relaxed(&dom->pressure_callbacks,
				  attr->pressure_callbacks);
		rcb_store_relaxed(&dom->backlog, 0);
		/* A valid counter for the kind (qsbr: odd; memb: a step);
		 * no thread is registered with the slot (destroy).  A try's
		 * grace period left in flight names the old counter: a scan
		 * for it against the new one could end it early. */
		pthread_mutex_lock(&dom->gp_lock);
		dom->attempt_pending = false;
		rcb_store_relaxed(&rcb__dom_gp[id].ctr,
				  qsbr ? 1ul : RCB__GP_STEP);
		pthread_mutex_unlock(&dom->gp_lock);
		/* [DOM-L] The slot's fields before it is seen live.  Pairs
		 * with the acquire in dom_of(). */
		rcb_store_release(&dom->live, true);
		if (rcb_load_relaxed(&rcb__dom_limit) <= id)
			rcb_store_relaxed(&rcb__dom_limit, id + 1);
	}
	pthread_mutex_unlock(&create_lock);
	if (!dom)
		return -ENOSPC;
	*out = &dom->pub;
	return 0;
}

RCB_API int rcb_domain_destroy(struct rcb_domain *d)
{
	int id = dom_of(d, "rcb_domain_destroy");
	struct rcb__thread *t;
	bool busy = false;

	if (id < 0)
		return -EINVAL;
	if (rcb__dom_cb_refuses("rcb_domain_destroy"))
		return -EDEADLK;
	/* Its callback thread runs what is queued and stops (a qsbr
	 * domain's is registered with it); a later call starts another if
	 * the domain stays. */
	rcb__dom_cb_stop_one(id);
	pthread_mutex_lock(&create_lock);
	pthread_mutex_lock(&rcb__registry_lock);
	rcb__for_each_thread(t)
	{
		if (rcb_load_relaxed(&t->dom[id])) {
			busy = true;
			break;
		}
	}
	pthread_mutex_unlock(&rcb__registry_lock);
	if (!busy) /* [DOM-L]: as in rcb_domain_create() */
		rcb_store_release(&rcb__doms[id].live, false);
	pthread_mutex_unlock(&create_lock);
	if (busy) {
		rcb__misuse(
			"rcb_domain_destroy",
			"a thread is still registered with %s (unregister it "
			"first: rcb_domain_unregister_thread()); not destroyed",
			rcb__doms[id].name);
		return -EBUSY;
	}
	return 0;
}

RCB_API int rcb_domain_synchronize(struct rcb_domain *d)
{
	int id = dom_of(d, "rcb_domain_synchronize");

	return id < 0 ? -EINVAL :
			rcb__dom_synchronize(id, "rcb_domain_synchronize",
					     false);
}

RCB_API int rcb_domain_synchronize_expedited(struct rcb_domain *d)
{
	int id = dom_of(d, "rcb_domain_synchronize_expedited");

	return id < 0 ? -EINVAL :
			rcb__dom_synchronize(id,
					     "rcb_domain_synchronize_expedited",
					     true);
}

/* rcb_domain_call() but for the inline append (<rcuboost/domain.h>):
 * checks, the callback thread, a full list, or the thread's first
 * owner-run call. */
RCB_API int rcb__domain_call_slow(struct rcb_domain *d, struct rcb_head *head,
				  void (*func)(struct rcb_head *head))
{
	int id = dom_of(d, "rcb_domain_call");

	if (id < 0)
		return -EINVAL;
	if (!owner_run(id))
		return rcb__dom_call(id, head, func, "rcb_domain_call");
	if (RCB_UNLIKELY(!head || !func)) {
		rcb__misuse("rcb_domain_call", "NULL %s; nothing queued",
			    head ? "function" : "head");
		return -EINVAL;
	}
	return rcb__dom_owner_call(id, head, func);
}

/* The function behind the header's macro, for callers that take its
 * address or cannot inline (bindings). */
RCB_API int(rcb_domain_call)(struct rcb_domain *d, struct rcb_head *head,
			     void (*func)(struct rcb_head *head))
{
	return rcb__domain_call(d, head, func);
}

RCB_API int rcb_domain_barrier(struct rcb_domain *d)
{
	int id = dom_of(d, "rcb_domain_barrier");

	if (id < 0)
		return -EINVAL;
	return owner_run(id) ?
		       rcb__dom_owner_barrier(id, "rcb_domain_barrier") :
		       rcb__dom_barrier(id, "rcb_domain_barrier");
}

RCB_API int rcb_domain_poll(struct rcb_domain *d)
{
	int id = dom_of(d, "rcb_domain_poll");

	return id >= 0 && owner_run(id) ? rcb__dom_owner_poll(id) : 0;
}

RCB_API uint64_t rcb_domain_start_poll(struct rcb_domain *d)
{
	int id = dom_of(d, "rcb_domain_start_poll");

	return id < 0 ? 0 : rcb__dom_start_poll(id);
}

RCB_API int rcb_domain_poll_state(struct rcb_domain *d, uint64_t cookie)
{
	int id = dom_of(d, "rcb_domain_poll_state");

	if (id < 0)
		return -EINVAL;
	if (RCB_UNLIKELY(cookie >
			 rcb_load_relaxed(&rcb__doms[id].seq_started) + 1)) {
		rcb__misuse("rcb_domain_poll_state",
			    "cookie %llu is from the future (%s has started %llu "
			    "grace periods)",
			    (unsigned long long)cookie, rcb__doms[id].name,
			    rcb_load_relaxed(&rcb__doms[id].seq_started));
		return -EINVAL;
	}
	return rcb__dom_cookie_done(id, cookie);
}

RCB_API int rcb_domain_register_thread(struct rcb_domain *d)
{
	int id = dom_of(d, "rcb_domain_register_thread");

	if (id < 0)
		return -EINVAL;
	return rcb__doms[id].kind == RCB__DOM_KIND_QSBR ?
		       rcb__qsbr_register(id) :
		       rcb__dom_register(id);
}

RCB_API int rcb_domain_unregister_thread(struct rcb_domain *d)
{
	int id = dom_of(d, "rcb_domain_unregister_thread");

	if (id < 0)
		return -EINVAL;
	if (rcb__doms[id].kind == RCB__DOM_KIND_MEMB &&
	    rcb__dom_read_ongoing(id)) {
		rcb__misuse("rcb_domain_unregister_thread",
			    "called inside a read-side critical section of %s; "
			    "the thread stays registered",
			    rcb__doms[id].name);
		return -EBUSY;
	}
	return rcb__dom_unregister(id);
}

RCB_API void rcb_domain_thread_offline(struct rcb_domain *d)
{
	int id = dom_of(d, "rcb_domain_thread_offline");

	if (id >= 0 && rcb__doms[id].kind == RCB__DOM_KIND_QSBR)
		rcb__qsbr_offline(id, "rcb_domain_thread_offline");
}

RCB_API void rcb_domain_thread_online(struct rcb_domain *d)
{
	int id = dom_of(d, "rcb_domain_thread_online");

	if (id >= 0 && rcb__doms[id].kind == RCB__DOM_KIND_QSBR)
		rcb__qsbr_online_checked(id, "rcb_domain_thread_online");
}
