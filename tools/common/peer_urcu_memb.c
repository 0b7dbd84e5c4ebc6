/* SPDX-License-Identifier: MIT */
/*
 * The peer table: the liburcu urcu-memb side, with liburcu's inline fast
 * paths (_LGPL_SOURCE).  Each liburcu flavor lives in its own file: their
 * headers map the same rcu_* names.
 */
#define _POSIX_C_SOURCE 200809L
#define _LGPL_SOURCE
#include <stdio.h>

#include <urcu/urcu-memb.h>

#define FL_NAME "urcu-memb"
#define FL_SYM tool_peer_urcu_memb
#define FL_HEAD struct rcu_head
#define FL_INIT() 0
#define FL_DESCRIBE() \
	"readers use compiler barriers, updaters membarrier (fences without it)"
#define FL_REGISTER() urcu_memb_register_thread()
#define FL_UNREGISTER() urcu_memb_unregister_thread()
#define FL_OFFLINE() ((void)0)
#define FL_ONLINE() ((void)0)
#define FL_QS() ((void)0)
#define FL_READ_LOCK() urcu_memb_read_lock()
#define FL_READ_UNLOCK() urcu_memb_read_unlock()
#define FL_DEREF(p) rcu_dereference(p)
#define FL_XCHG(pp, v) rcu_xchg_pointer(pp, v)
#define FL_SYNC() urcu_memb_synchronize_rcu()
#define FL_CALL(head, func) urcu_memb_call_rcu(head, func)
#define FL_BARRIER() urcu_memb_barrier()

#include "peer_body.h"
