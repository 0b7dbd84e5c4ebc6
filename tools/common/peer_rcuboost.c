/* SPDX-License-Identifier: MIT */
/* The peer table: the rcuboost side, with its inline read side; also the
 * inversion engine's rcuboost flavors (inv_flavor_rcuboost_*). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>

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

#define FL_INV_OPS
#define FL_REGISTER_RC() rcb_register_thread()
#define FL_SYNC_RC() rcb_synchronize()
#define FL_OBJ_HEAD struct rcb_head_sized
#define FL_CALL_SIZED(head, func, bytes) rcb_call_sized(head, func, bytes)

#include "peer_body.h"

/* ---- the inversion engine's rcuboost: one table per boost setting ---- */

static int fl_inv_init(int boost)
{
	struct rcb_config cfg = { .boost = boost };
	int err = rcb_init(&cfg);

	if (err)
		fprintf(stderr, "rcb_init(boost=%d): %s\n", boost, strerror(-err));
	return err;
}

static int fl_init_off(void (*freed)(void *payload, size_t bytes))
{
	fl_freed = freed;
	return fl_inv_init(-1);
}

static int fl_init_on(void (*freed)(void *payload, size_t bytes))
{
	fl_freed = freed;
	return fl_inv_init(1);
}

static int fl_init_cfg(const struct rcb_config *cfg,
		       void (*freed)(void *payload, size_t bytes))
{
	int err;

	fl_freed = freed;
	err = rcb_init(cfg);
	if (err)
		fprintf(stderr, "rcb_init: %s\n", strerror(-err));
	return err;
}

static void fl_fini(void)
{
	int err = rcb_shutdown();

	if (err)
		fprintf(stderr, "rcb_shutdown: %s\n", strerror(-err));
}

static void fl_lib_backlog(struct inv_lib_backlog *out)
{
	struct rcb_backlog b;

	rcb_backlog(&b);
	out->callbacks = b.callbacks;
	out->bytes = b.bytes;
	out->peak_callbacks = b.peak_callbacks;
	out->peak_bytes = b.peak_bytes;
}

/* The library shut down and initialised again between runs. */
#define FL_OPS(label, init_fn)                                            \
	{                                                                 \
		FL_INV_FIELDS(label, "rcuboost", init_fn, fl_fini),       \
			.lib_backlog = fl_lib_backlog,                    \
			.lib_backlog_reset_peak = rcb_backlog_reset_peak, \
			.boost_stats = rcb_boost_stats,                   \
	}

const struct inv_flavor_ops inv_flavor_rcuboost_off = FL_OPS("boost-off", fl_init_off);
const struct inv_flavor_ops inv_flavor_rcuboost_on = FL_OPS("boost-on", fl_init_on);

void inv_flavor_rcuboost_cfg(struct inv_flavor_ops *out, const char *name,
			     const struct rcb_config *cfg)
{
	*out = inv_flavor_rcuboost_on;
	out->name = name;
	out->config = cfg;
	out->init_cfg = fl_init_cfg;
}

