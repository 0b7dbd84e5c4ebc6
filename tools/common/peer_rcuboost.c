/* SPDX-License-Identifier: MIT */
/* The peer table: the rcuboost side, with its inline read side. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "rcuboost.h"
#include "tool.h"

static int rcb_side_init(void)
{
	int err = rcb_init(NULL);

	if (err) {
		fprintf(stderr, "%s: rcb_init: error %d\n", tool_prog, err);
		return -1;
	}
	return 0;
}

static const char *rcb_side_describe(void)
{
	static char buf[96];

	snprintf(buf, sizeof(buf), "read side %s, boost %s",
		 rcb_flavor_name(rcb_flavor()),
		 RCB_CONFIG_BOOST ? "compiled in" : "not compiled");
	return buf;
}

#define FL_NAME "rcuboost"
#define FL_SYM tool_peer_rcuboost
#define FL_HEAD struct rcb_head
#define FL_INIT() rcb_side_init()
#define FL_DESCRIBE() rcb_side_describe()
#define FL_REGISTER() ((void)rcb_register_thread())
#define FL_UNREGISTER() ((void)rcb_unregister_thread())
#define FL_OFFLINE() ((void)0)
#define FL_ONLINE() ((void)0)
#define FL_QS() ((void)0)
#define FL_READ_LOCK() rcb_read_lock()
#define FL_READ_UNLOCK() rcb_read_unlock()
#define FL_DEREF(p) rcb_dereference(p)
#define FL_XCHG(pp, v) rcb_xchg_pointer(pp, v)
#define FL_SYNC() ((void)rcb_synchronize())
#define FL_CALL(head, func) ((void)rcb_call(head, func))
#define FL_BARRIER() ((void)rcb_barrier())

#include "peer_body.h"
