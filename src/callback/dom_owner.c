/* SPDX-License-Identifier: MIT */
/*
 * Owner-run callbacks (RCB_DOMAIN_OWNER_CALLBACKS, include/rcuboost/
 * domain.h): a domain's callbacks run in the thread that queued them,
 * from its rcb_domain_poll(), rcb_domain_barrier() and later
 * rcb_domain_call()s, and when it leaves the domain, which is
 * Concurrency Kit's ck_epoch_poll() model.  They stay in the cache of
 * the thread that touched them last, and nothing crosses to another
 * thread.
 *
 * Each thread keeps, per domain, two plain lists in its TLS: "next",
 * callbacks with no grace period asked for yet, and "wait", a batch
 * waiting for the grace period its cookie names (rcb__dom_cookie(),
 * src/core/domain.c).  A poll runs the wait batch once its cookie is
 * satisfied, asking for that grace period without ever blocking
 * (rcb__dom_try_gp()); it turns "next" into the wait batch once
 * OWN_BATCH callbacks are there or the oldest has waited OWN_MAX_WAIT_NS,
 * so that a grace period (two membarriers on a memb domain with other
 * registered threads) is paid for by many callbacks, not one.
 *
 * Invariants.
 *  1. Only the owning thread touches its lists: no atomics, no locks.
 *     A callback that queues another appends to "next", never to the
 *     batch being run, which is detached first.
 *  2. A thread with callbacks queued is registered with the domain
 *     (owner_call() registers it), so it leaves the domain by
 *     unregistering or exiting, and both flush its lists first
 *     (rcb__dom_owner_flush(), through core's dom_leave hook).
 *  3. A batch runs only after a grace period that began after the last
 *     of its callbacks was queued: its cookie is taken when the batch
 *     is formed, after them, and rcb__dom_cookie_done()'s acquire
 *     orders the invocations after that grace period's end.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "callback/callback.h"

/* Callbacks that make a grace period worth asking for, and the longest
 * the first of fewer waits for one (checked at polls and calls). */
#define OWN_BATCH 4096
#define OWN_MAX_WAIT_NS (10ull * 1000 * 1000)

struct own_lists {
	struct rcb_head *next, *next_tail;
	size_t next_n;
	unsigned long long next_since_ns;
	struct rcb_head *wait;
	unsigned long long cookie;
};

static __thread struct own_lists own[RCB__DOM_MAX];

/* Invoke a detached list, oldest first.  Returns how many ran. */
static int run_list(struct rcb_head *h)
{
	int n = 0;

	while (h) {
		struct rcb_head *next = rcb_load_relaxed(&h->next);

		h->func(h);
		h = next;
		n++;
	}
	return n;
}

/* The wait batch, if its grace period ended (asking for it if not). */
static int run_wait_if_done(int d)
{
	struct own_lists *o = &own[d];
	struct rcb_head *batch = o->wait;

	if (!batch || !rcb__dom_try_gp(d, o->cookie))
		return 0;
	o->wait = NULL;
	return run_list(batch);
}

/* "next" becomes the wait batch, with a cookie taken after its last
 * callback was queued (invariant 3). */
static void form_batch(int d)
{
	struct own_lists *o = &own[d];

	o->wait = o->next;
	o->next = o->next_tail = NULL;
	o->next_n = 0;
	o->cookie = rcb__dom_cookie(d);
}

int rcb__dom_owner_poll(int d)
{
	struct own_lists *o = &own[d];
	int ran;

	/* A poll is a quiescent state of an online qsbr thread: it is
	 * called outside the thread's references (rcuboost-domain(3)). */
	if (rcb__doms[d].kind == RCB__DOM_KIND_QSBR &&
	    rcb_load_relaxed(&rcb__dom_reader[d].ctr))
		rcb__dom_quiescent_state(d);
	ran = run_wait_if_done(d);
	if (!o->wait && o->next_n &&
	    (o->next_n >= OWN_BATCH ||
	     rcb__now_ns() - o->next_since_ns >= OWN_MAX_WAIT_NS)) {
		form_batch(d);
		ran += run_wait_if_done(d);
	}
	return ran;
}

int rcb__dom_owner_call(int d, struct rcb_head *head,
			void (*func)(struct rcb_head *head))
{
	struct own_lists *o = &own[d];
	int err;

	/* Invariant 2.  A qsbr thread is listed offline: queueing makes
	 * it no reader. */
	if (RCB_UNLIKELY(!rcb__dom_reader[d].registered) &&
	    (err = rcb__dom_register(d)) != 0)
		return err;
	head->func = func;
	rcb_store_relaxed(&head->next, NULL);
	if (o->next_tail)
		rcb_store_relaxed(&o->next_tail->next, head);
	else {
		o->next = head;
		o->next_since_ns = 0;
	}
	o->next_tail = head;
	if (++o->next_n >= OWN_BATCH)
		(void)rcb__dom_owner_poll(d);
	else if (o->next_n == 1)
		o->next_since_ns = rcb__now_ns();
	return 0;
}

/* Every callback of the calling thread's, after one grace period that
 * began after the last was queued.  0 or -EDEADLK (inside a section). */
int rcb__dom_owner_barrier(int d, const char *call)
{
	struct own_lists *o = &own[d];
	struct rcb_head *wait, *next;
	int err;

	while (o->wait || o->next) {
		wait = o->wait;
		next = o->next;
		o->wait = o->next = o->next_tail = NULL;
		o->next_n = 0;
		if ((err = rcb__dom_synchronize(d, call, false)) != 0) {
			/* Refused (misuse, reported): put them back. */
			o->wait = wait;
			o->next = next;
			while (next && rcb_load_relaxed(&next->next))
				next = rcb_load_relaxed(&next->next);
			o->next_tail = next;
			return err;
		}
		/* Callbacks may queue more: the loop runs those too. */
		(void)run_list(wait);
		(void)run_list(next);
	}
	return 0;
}

/* core's dom_leave hook: the thread leaves domain @d. */
void rcb__dom_owner_flush(int d)
{
	if (own[d].wait || own[d].next)
		(void)rcb__dom_owner_barrier(d, "leaving the domain");
}
