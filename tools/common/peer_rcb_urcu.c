/* SPDX-License-Identifier: MIT */
/*
 * The peer table: rcuboost through its liburcu drop-in header
 * <rcuboost/urcu.h>, the names a ported liburcu program uses.  Not one of
 * rcuboost-bench's sides (it would only repeat rcuboost's figures); the
 * "fifo64" scenario compares it with the native API.
 *
 * Symbol clash.  rcuboost-bench also links Debian's liburcu-memb, first
 * among its libraries (tools/bench/CMakeLists.txt says why), and both
 * libraries export the header's out-of-line names (urcu_memb_init,
 * urcu_memb_register_thread, urcu_memb_synchronize_rcu, ...).  Called by
 * name from here they would bind to liburcu: rcuboost's inline read side
 * paired with liburcu's registry and grace periods, which never wait for
 * those readers (fifo64 reported 0.2 ms grace periods for that mix).  A
 * ported program links rcuboost alone, so these calls go to rcuboost's
 * definitions, looked up in librcuboost itself (dlsym() on its own
 * handle searches it first); the read side, rcu_dereference() and
 * rcu_xchg_pointer() are the header's inline code, as a ported program
 * gets it.  peer_rcb_urcu_init() must run before the table is used.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

#include <rcuboost/urcu.h>

#include "peer.h"
#include "tool.h"

static struct {
	void (*init)(void);
	void (*reg)(void);
	void (*unreg)(void);
	void (*sync)(void);
	void (*call)(struct rcu_head *, void (*)(struct rcu_head *));
	void (*barrier)(void);
} fn;

/* rcuboost's definition of @name: from librcuboost's own handle, or, if
 * rcuboost is linked into the executable, from the executable. */
static void *rcb_sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (!p)
		fprintf(stderr, "%s: rcuboost-urcu.h: %s not found in rcuboost: %s\n",
			tool_prog, name, dlerror());
	return p;
}

int peer_rcb_urcu_resolve(void)
{
	Dl_info info;
	void *h;

	if (fn.init)
		return 0;
	if (!dladdr((void *)rcb_init, &info) || !info.dli_fname) {
		fprintf(stderr, "%s: rcuboost-urcu.h: cannot find the object that defines rcb_init\n",
			tool_prog);
		return -ENOENT;
	}
	h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		h = dlopen(NULL, RTLD_NOW); /* rcuboost is in the executable */
	if (!h) {
		fprintf(stderr, "%s: rcuboost-urcu.h: dlopen %s: %s\n", tool_prog,
			info.dli_fname, dlerror());
		return -ENOENT;
	}
	*(void **)&fn.reg = rcb_sym(h, "urcu_memb_register_thread");
	*(void **)&fn.unreg = rcb_sym(h, "urcu_memb_unregister_thread");
	*(void **)&fn.sync = rcb_sym(h, "urcu_memb_synchronize_rcu");
	*(void **)&fn.call = rcb_sym(h, "urcu_memb_call_rcu");
	*(void **)&fn.barrier = rcb_sym(h, "urcu_memb_barrier");
	*(void **)&fn.init = rcb_sym(h, "urcu_memb_init");
	/* The handle stays open: the process uses the library to its end. */
	if (!fn.reg || !fn.unreg || !fn.sync || !fn.call || !fn.barrier ||
	    !fn.init) {
		fn.init = NULL;
		return -ENOENT;
	}
	return 0;
}

int peer_rcb_urcu_init(void)
{
	int err = peer_rcb_urcu_resolve();

	if (err)
		return err;
	fn.init(); /* rcu_init() */
	return 0;
}

static int fl_init(void)
{
	return peer_rcb_urcu_init() ? -1 : 0;
}

#define FL_NAME "rcuboost-urcu.h"
#define FL_SYM tool_peer_rcuboost_urcu
#define FL_HEAD struct rcu_head
#define FL_INIT() fl_init()
#define FL_DESCRIBE() "rcuboost through <rcuboost/urcu.h>"
#define FL_REGISTER() fn.reg()        /* rcu_register_thread() */
#define FL_UNREGISTER() fn.unreg()    /* rcu_unregister_thread() */
#define FL_OFFLINE() ((void)0)
#define FL_ONLINE() ((void)0)
#define FL_QS() ((void)0)
#define FL_READ_LOCK() rcu_read_lock()
#define FL_READ_UNLOCK() rcu_read_unlock()
#define FL_DEREF(p) rcu_dereference(p)
#define FL_XCHG(pp, v) rcu_xchg_pointer(pp, v)
#define FL_SYNC() fn.sync()           /* synchronize_rcu() */
#define FL_CALL(head, func) fn.call(head, func) /* call_rcu() */
#define FL_BARRIER() fn.barrier()     /* rcu_barrier() */

#include "peer_body.h"
