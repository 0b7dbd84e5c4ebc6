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
 * Each thread keeps, per domain, two plain lists (struct rcb__dom_own): "next",
 * callbacks with no grace period asked for yet, and "wait", a batch
 * waiting for the grace period its cookie names (rcb__dom_cookie(),
 * src/core/domain.c).  A poll runs the wait batch once its cookie is
 * satisfied, asking for that grace period without ever blocking
 * (rcb__dom_try_gp()); it turns "next" into the wait batch once
 * RCB__OWN_BATCH callbacks are there or the oldest has waited
 * OWN_MAX_WAIT_NS, so that a grace period (two membarriers on a memb
 * domain with other registered threads) is paid for by many callbacks,
 * not one; at every poll when the thread is the domain's only one, as
 * its grace periods cost nothing then.
 *
 * Invariants.
 *  1. Only the owning thread touches its lists: no atomics, no locks.
 *     A callback that queues another appends to "next", never to the
 *     batch being run, which is detached first.
 *  2. A thread with callbacks queued is registered with the domain
 *     (rcb__dom_owner_call() registers it, and only then sets
 *     ready_for, which lets rcb_domain_call()'s inline path append), so
 *     it leaves the domain by unregistering or exiting, and both clear
 *     ready_for and flush its lists first (rcb__dom_owner_flush(),
 *     through core's dom_leave hook).  A domain with a registered
 *     thread is not destroyed (domain_api.c), so ready_for names a
 *     live domain.
 *  3. A batch runs only after a grace period that began after the last
 *     of its callbacks was queued: its cookie is taken when the batch
 *     is formed, after them, and rcb__dom_cookie_done()'s acquire
 *     orders the invocations after that grace period's end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "callback/callback.h"
#include "callback/dom_owner.h"

/* The longest the first of fewer than RCB__OWN_BATCH callbacks waits
 * for a grace period to be asked for (checked at polls and calls). */
#define OWN_MAX_WAIT_NS (10ull * 1000 * 1000)

/* The calling thread's lists, RCB__DOM_MAX of them (domain.h). */
RCB_API __thread struct rcb__dom_own *rcb__dom_own
	__attribute__((tls_model("initial-exec")));

/* The calling thread's lists of domain @d; NULL only without memory
 * (then it has no callbacks queued). */
static struct rcb__dom_own *lists_of(int d, bool alloc)
{
	if (RCB_UNLIKELY(!rcb__dom_own) && alloc)
		rcb__dom_own = calloc(RCB__DOM_MAX, sizeof(*rcb__dom_own));
	return rcb__dom_own ? &rcb__dom_own[d] : NULL;
}

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
static int run_wait_if_done(int d, struct rcb__dom_own *o)
{
	struct rcb_head *batch = o->wait;

	if (!batch || !rcb__dom_try_gp(d, o->cookie))
		return 0;
	o->wait = NULL;
	return run_list(batch);
}

/* "next" becomes the wait batch, with a cookie taken after its last
 * callback was queued (invariant 3). */
static void form_batch(int d, struct rcb__dom_own *o)
{
	o->wait = rcb_load_relaxed(&o->next);
	rcb_store_relaxed(&o->next, NULL);
	o->next_tailp = &o->next;
	o->next_n = 0;
	o->next_since_ns = 0;
	o->cookie = rcb__dom_cookie(d);
}

int rcb__dom_owner_poll(int d)
{
	struct rcb__dom_own *o = lists_of(d, false);
	int ran;

	/* A poll is a quiescent state of an online qsbr thread: it is
	 * called outside the thread's references (rcuboost-domain(3)). */
	if (rcb__doms[d].kind == RCB__DOM_KIND_QSBR &&
	    rcb_load_relaxed(&rcb__dom_reader[d].ctr))
		rcb__dom_quiescent_state(d);
	if (!o)
		return 0;
	ran = run_wait_if_done(d, o);
	if (o->next_n && !o->next_since_ns)
		o->next_since_ns = rcb__now_ns(); /* the clock starts */
	/* A grace period costs no membarrier while the thread is the
	 * domain's only one (others_registered() in domain.c): ask at once
	 * then. */
	if (!o->wait && o->next_n &&
	    (o->next_n >= RCB__OWN_BATCH ||
	     rcb_load_relaxed(&rcb__doms[d].nregs) <= 1 ||
	     rcb__now_ns() - o->next_since_ns >= OWN_MAX_WAIT_NS)) {
		form_batch(d, o);
		ran += run_wait_if_done(d, o);
	}
	return ran;
}

/* The first call of the thread on domain @d (rcb_domain_call()'s slow
 * path): its lists, its registration (invariant 2; a qsbr thread is
 * listed offline, queueing makes it no reader), then the append. */
int rcb__dom_owner_call(int d, struct rcb_head *head,
			void (*func)(struct rcb_head *head))
{
	struct rcb__dom_own *o = lists_of(d, true);
	int err;

	if (RCB_UNLIKELY(!o))
		return -ENOMEM;
	if (RCB_UNLIKELY(!rcb__dom_reader[d].registered) &&
	    (err = rcb__dom_register(d)) != 0)
		return err;
	if (!o->next_tailp)
		o->next_tailp = &o->next;
	o->ready_for = &rcb__doms[d].pub;
	if (rcb__own_append(o, head, func))
		(void)rcb__dom_owner_poll(d);
	return 0;
}

/* Every callback of the calling thread's, after one grace period that
 * began after the last was queued.  0 or -EDEADLK (inside a section). */
int rcb__dom_owner_barrier(int d, const char *call)
{
	struct rcb__dom_own *o = lists_of(d, false);
	struct rcb_head *wait, *next;
	int err;

	if (!o) /* nothing ever queued */
		return 0;
	while (o->wait || rcb_load_relaxed(&o->next)) {
		wait = o->wait;
		next = rcb_load_relaxed(&o->next);
		o->wait = NULL;
		rcb_store_relaxed(&o->next, NULL);
		o->next_tailp = &o->next;
		o->next_n = 0;
		o->next_since_ns = 0;
		if ((err = rcb__dom_synchronize(d, call, false)) != 0) {
			/* Refused (misuse, reported): put them back. */
			o->wait = wait;
			rcb_store_relaxed(&o->next, next);
			for (; next; next = rcb_load_relaxed(&next->next)) {
				o->next_tailp = &next->next;
				o->next_n++;
			}
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
	struct rcb__dom_own *o = lists_of(d, false);

	if (!o)
		return;
	/* The callbacks run here may queue more through the inline path:
	 * the barrier runs those too, and only then does the inline path
	 * close (invariant 2: the thread is about to leave). */
	if (o->wait || rcb_load_relaxed(&o->next))
		(void)rcb__dom_owner_barrier(d, "leaving the domain");
	o->ready_for = NULL;
}

/* The calling thread leaves the registry (callback/hooks.c): no domain
 * holds it, so its lists are empty (invariant 2). */
void rcb__dom_owner_free(void)
{
	free(rcb__dom_own);
	rcb__dom_own = NULL;
}
