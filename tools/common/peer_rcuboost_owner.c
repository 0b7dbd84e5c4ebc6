/* SPDX-License-Identifier: MIT */
/*
 * The peer table: a memb domain of rcuboost's created with
 * RCB_DOMAIN_OWNER_CALLBACKS (<rcuboost/domain.h>): callbacks run by the
 * thread that queued them, from its polls and barrier, as Concurrency
 * Kit's ck_epoch does, measured beside ck-epoch with the same loops (the
 * queueing thread polls every 256 callbacks back to back and after every
 * paced one; a barrier runs the calling thread's callbacks only).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "rcuboost/domain.h"
#include "tool.h"

static struct rcb_domain *rcbo_dom;

static int rcbo_init(void)
{
	struct rcb_domain_attr a = { .flags = RCB_DOMAIN_OWNER_CALLBACKS };
	int err = rcb_init(NULL);

	if (!err && !rcbo_dom)
		err = rcb_domain_create(&rcbo_dom, &a);
	if (err) {
		fprintf(stderr, "%s: rcuboost-owner: error %d\n", tool_prog, err);
		return -1;
	}
	return 0;
}

#define FL_NAME "rcuboost-owner"
#define FL_SYM tool_peer_rcuboost_owner
#define FL_HEAD struct rcb_head
#define FL_CAPS PEER_CAP_CALL_OWN
#define FL_INIT() rcbo_init()
#define FL_DESCRIBE() \
	"created memb domain, owner-run callbacks; the queueing thread polls as for ck-epoch"
#define FL_REGISTER() ((void)rcb_domain_register_thread(rcbo_dom))
#define FL_UNREGISTER() ((void)rcb_domain_unregister_thread(rcbo_dom))
#define FL_OFFLINE() ((void)0)
#define FL_ONLINE() ((void)0)
#define FL_QS() ((void)0)
#define FL_READ_LOCK() rcb_domain_read_lock(rcbo_dom)
#define FL_READ_UNLOCK() rcb_domain_read_unlock(rcbo_dom)
#define FL_DEREF(p) rcb_dereference(p)
#define FL_XCHG(pp, v) rcb_xchg_pointer(pp, v)
#define FL_SYNC() ((void)rcb_domain_synchronize(rcbo_dom))
#define FL_CALL(head, func) ((void)rcb_domain_call(rcbo_dom, head, func))
#define FL_POLL() ((void)rcb_domain_poll(rcbo_dom))
#define FL_BARRIER() ((void)rcb_domain_barrier(rcbo_dom))

#include "peer_body.h"
