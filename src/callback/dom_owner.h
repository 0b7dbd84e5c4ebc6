/* SPDX-License-Identifier: MIT */
/*
 * Owner-run callbacks (src/callback/dom_owner.c) as domain_api.c's
 * slow paths and callback/hooks.c see them.
 */
#ifndef RCB_CALLBACK_DOM_OWNER_H
#define RCB_CALLBACK_DOM_OWNER_H

#include "callback/callback.h"

/* dom_owner.c: callbacks of an RCB_DOMAIN_OWNER_CALLBACKS domain, run by
 * the thread that queued them, from lists of the thread's own per domain
 * (struct rcb__dom_own, <rcuboost/domain.h>, whose rcb__domain_call()
 * appends inline). */

/* Append @head to the list not yet given a grace period; true when it
 * holds enough callbacks for a grace period. */
static inline bool rcb__own_append(struct rcb__dom_own *o,
				   struct rcb_head *head,
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
void rcb__dom_owner_free(void);

#endif /* RCB_CALLBACK_DOM_OWNER_H */
