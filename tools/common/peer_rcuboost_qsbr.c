/* SPDX-License-Identifier: MIT */
/*
 * The peer table: rcuboost's qsbr domain (<rcuboost/qsbr.h>), its inline
 * read side and quiescent state, measured beside liburcu's urcu-qsbr
 * with the same loops.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "rcuboost/qsbr.h"
#include "tool.h"

static int rcbq_init(void)
{
	int err = rcb_init(NULL);

	if (err) {
		fprintf(stderr, "%s: rcb_init: error %d\n", tool_prog, err);
		return -1;
	}
	return 0;
}

#define FL_NAME "rcuboost-qsbr"
#define FL_SYM tool_peer_rcuboost_qsbr
#define FL_HEAD struct rcb_head
#define FL_INIT() rcbq_init()
#define FL_DESCRIBE() \
	"qsbr domain; readers report a quiescent state every 256 sections, go offline to sleep"
#define FL_REGISTER() ((void)rcb_qsbr_register_thread())
#define FL_UNREGISTER() ((void)rcb_qsbr_unregister_thread())
#define FL_OFFLINE() rcb_qsbr_thread_offline()
#define FL_ONLINE() rcb_qsbr_thread_online()
#define FL_QS() rcb_qsbr_quiescent_state()
#define FL_READ_LOCK() rcb_qsbr_read_lock()
#define FL_READ_UNLOCK() rcb_qsbr_read_unlock()
#define FL_DEREF(p) rcb_dereference(p)
#define FL_XCHG(pp, v) rcb_xchg_pointer(pp, v)
#define FL_SYNC() ((void)rcb_qsbr_synchronize())
#define FL_CALL(head, func) ((void)rcb_qsbr_call(head, func))
#define FL_BARRIER() ((void)rcb_qsbr_barrier())

#include "peer_body.h"
