/* SPDX-License-Identifier: MIT */
/*
 * The peer table: the liburcu urcu-memb side, with liburcu's inline fast
 * paths (_LGPL_SOURCE).  Each liburcu flavor lives in its own file: their
 * headers map the same rcu_* names.  Also the inversion engine's
 * liburcu flavor (inv_flavor_urcu_memb).
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
#define FL_INV_OPS
#define FL_REGISTER_RC() (urcu_memb_register_thread(), 0)
#define FL_SYNC_RC() (urcu_memb_synchronize_rcu(), 0)
#define FL_CALL_SIZED(head, func, bytes) (urcu_memb_call_rcu(head, func), 0)

#include "peer_body.h"

/*
 * The inversion engine's urcu-memb.  liburcu initialises itself (a
 * constructor); its call_rcu thread starts with the first call_rcu(),
 * from the updater, on CPU 1.  It has no backlog count and no boosting;
 * the engine counts the backlog itself, the same way for every flavor.
 */
static int fl_inv_init(void (*freed)(void *payload, size_t bytes))
{
	fl_freed = freed;
	return 0;
}

const struct inv_flavor_ops inv_flavor_urcu_memb =
	FL_INV_TABLE("urcu-memb", "liburcu urcu-memb", fl_inv_init, fl_barrier_all);
