/* SPDX-License-Identifier: MIT */
/*
 * The peer table: the liburcu urcu-mb side, with liburcu's inline fast
 * paths (_LGPL_SOURCE).  Each liburcu flavor lives in its own file: their
 * headers map the same rcu_* names.
 */
#define _POSIX_C_SOURCE 200809L
#define _LGPL_SOURCE
#include <stdio.h>

#include <urcu/urcu-mb.h>

#define FL_NAME "urcu-mb"
#define FL_SYM tool_peer_urcu_mb
#define FL_HEAD struct rcu_head
#define FL_INIT() 0
#define FL_DESCRIBE() "readers issue full fences"
#define FL_REGISTER() urcu_mb_register_thread()
#define FL_UNREGISTER() urcu_mb_unregister_thread()
#define FL_OFFLINE() ((void)0)
#define FL_ONLINE() ((void)0)
#define FL_QS() ((void)0)
#define FL_READ_LOCK() urcu_mb_read_lock()
#define FL_READ_UNLOCK() urcu_mb_read_unlock()
#define FL_DEREF(p) rcu_dereference(p)
#define FL_XCHG(pp, v) rcu_xchg_pointer(pp, v)
#define FL_SYNC() urcu_mb_synchronize_rcu()
#define FL_CALL(head, func) urcu_mb_call_rcu(head, func)
#define FL_BARRIER() urcu_mb_barrier()

#include "peer_body.h"
