/* SPDX-License-Identifier: MIT */
/*
 * The peer table: the liburcu urcu-qsbr side, with liburcu's inline fast
 * paths (_LGPL_SOURCE).  Each liburcu flavor lives in its own file: their
 * headers map the same rcu_* names.
 */
#define _POSIX_C_SOURCE 200809L
#define _LGPL_SOURCE
#include <stdio.h>

#include <urcu/urcu-qsbr.h>

#define FL_NAME "urcu-qsbr"
#define FL_SYM tool_peer_urcu_qsbr
#define FL_HEAD struct rcu_head
#define FL_INIT() 0
#define FL_DESCRIBE() \
	"readers report a quiescent state every 256 sections, go offline to sleep"
#define FL_REGISTER() urcu_qsbr_register_thread()
#define FL_UNREGISTER() urcu_qsbr_unregister_thread()
#define FL_OFFLINE() urcu_qsbr_thread_offline()
#define FL_ONLINE() urcu_qsbr_thread_online()
#define FL_QS() urcu_qsbr_quiescent_state()
#define FL_READ_LOCK() urcu_qsbr_read_lock()
#define FL_READ_UNLOCK() urcu_qsbr_read_unlock()
#define FL_DEREF(p) rcu_dereference(p)
#define FL_XCHG(pp, v) rcu_xchg_pointer(pp, v)
#define FL_SYNC() urcu_qsbr_synchronize_rcu()
#define FL_CALL(head, func) urcu_qsbr_call_rcu(head, func)
#define FL_BARRIER() urcu_qsbr_barrier()

#include "peer_body.h"
