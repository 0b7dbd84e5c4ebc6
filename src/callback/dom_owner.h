/* SPDX-License-Identifier: MIT */
/*
 * Owner-run callbacks (src/callback/dom_owner.c) as domain_api.c's
 * inline append and callback/hooks.c see them.
 */
#ifndef RCB_CALLBACK_DOM_OWNER_H
#define RCB_CALLBACK_DOM_OWNER_H

#include "callback/callback.h"

/* dom_owner.c: callbacks of an RCB_DOMAIN_OWNER_CALLBACKS domain, run by
 * the thread that queued them, from lists of the thread's own per domain
 * (dom_owner.c's invariants).  ready_for: the domain's handle once the
 * thread is registered with it, for rcb_domain_call()'s inline append. */
#define RCB__OWN_BATCH 4096 /* callbacks worth a grace period */
struct own_lists {
	struct rcb_domain *ready_for;
	/* "next": a list through rcb_head.next, *next_tailp its end (the
	 * last head's next, or &next when empty), next_n its length;
	 * next_since_ns: the first poll that found it non-empty. */
	struct rcb_head *_Atomic next; /* atomic only for its type */
	struct rcb_head *_Atomic *next_tailp;
	size_t next_n;
	unsigned long long next_since_ns;
	struct rcb_head *wait;
	unsigned long long cookie;
};

/* The thread's lists of every domain, one block reached from its
 * registry record (initial-exec TLS: one %fs-relative load), allocated
 * at its first owner-run call: a TLS array would take 768 bytes of
 * every thread's static TLS, which dlopen() may not have. */
struct rcb__own_lists {
	struct own_lists dom[RCB__DOM_MAX];
};

/* Append @head to the list not yet given a grace period; true when it
 * holds enough callbacks for a grace period. */
static inline bool rcb__own_append(struct own_lists *o, struct rcb_head *head,
				   void (*func)(struct rcb_head *head))
{
	head->func = func;
	rcb_store_relaxed(&head->next, NULL);
	rcb_store_relaxed(o->next_tailp, head);
	o->next_tailp = &head->next;
	return ++o->next_n >= RCB__OWN_BATCH;
}

/* call: the slow path (lists, registration): 0 or the registration's
 * error; poll: how many ran; barrier: 0 or -EDEADLK; flush: core's
 * dom_leave hook. */
int rcb__dom_owner_call(int d, struct rcb_head *head,
			void (*func)(struct rcb_head *head));
int rcb__dom_owner_poll(int d);
int rcb__dom_owner_barrier(int d, const char *call);
void rcb__dom_owner_flush(int d);
void rcb__dom_owner_free(struct rcb__thread *t);

#endif /* RCB_CALLBACK_DOM_OWNER_H */
