/* SPDX-License-Identifier: MIT */
/*
 * The peer table: rcuboost through its liburcu drop-in header
 * <rcuboost/urcu.h>, the names a ported liburcu program uses.  Not one of
 * rcuboost-bench's sides (it would only repeat rcuboost's figures); the
 * "fifo64" scenario compares it with the native API.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include <rcuboost/urcu.h>

#include "peer.h"

int peer_rcb_urcu_init(void)
{
	rcu_init();
	return 0;
}

#define FL_NAME "rcuboost-urcu.h"
#define FL_SYM tool_peer_rcuboost_urcu
#define FL_HEAD struct rcu_head
#define FL_INIT() peer_rcb_urcu_init()
#define FL_DESCRIBE() "rcuboost through <rcuboost/urcu.h>"
#define FL_REGISTER() rcu_register_thread()
#define FL_UNREGISTER() rcu_unregister_thread()
#define FL_OFFLINE() ((void)0)
#define FL_ONLINE() ((void)0)
#define FL_QS() ((void)0)
#define FL_READ_LOCK() rcu_read_lock()
#define FL_READ_UNLOCK() rcu_read_unlock()
#define FL_DEREF(p) rcu_dereference(p)
#define FL_XCHG(pp, v) rcu_xchg_pointer(pp, v)
#define FL_SYNC() synchronize_rcu()
#define FL_CALL(head, func) call_rcu(head, func)
#define FL_BARRIER() rcu_barrier()

#include "peer_body.h"
