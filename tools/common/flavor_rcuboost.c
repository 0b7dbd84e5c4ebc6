/* SPDX-License-Identifier: MIT */
/*
 * The inversion scenario's rcuboost side: one table per boost setting,
 * the library shut down and initialised again between runs.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "inversion.h"

struct fl_obj {
	struct rcb_head head;
	size_t bytes;
	alignas(16) unsigned char payload[];
};

_Static_assert(offsetof(struct fl_obj, payload) <= INV_OBJ_OVERHEAD,
	       "INV_OBJ_OVERHEAD too small for struct rcb_head");

static void (*fl_freed)(void *payload, size_t bytes);

static int fl_init(int boost)
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
	return fl_init(-1);
}

static int fl_init_on(void (*freed)(void *payload, size_t bytes))
{
	fl_freed = freed;
	return fl_init(1);
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

static int fl_register(void)
{
	return rcb_register_thread();
}

static void fl_unregister(void)
{
	rcb_unregister_thread();
}

static void fl_read_lock(void)
{
	rcb_read_lock();
}

static void fl_read_unlock(void)
{
	rcb_read_unlock();
}

static int fl_synchronize(void)
{
	return rcb_synchronize();
}

static void *fl_obj_new(size_t bytes)
{
	struct fl_obj *o;

	if (bytes < sizeof(*o) + 64)
		bytes = sizeof(*o) + 64;
	o = malloc(bytes);
	if (!o)
		return NULL;
	o->bytes = bytes;
	return o->payload;
}

static void fl_obj_free(struct rcb_head *head)
{
	struct fl_obj *o = (struct fl_obj *)((char *)head - offsetof(struct fl_obj, head));

	fl_freed(o->payload, o->bytes);
	free(o);
}

static int fl_obj_retire(void *payload)
{
	struct fl_obj *o = (struct fl_obj *)((char *)payload -
					     offsetof(struct fl_obj, payload));

	return rcb_call_sized(&o->head, fl_obj_free, o->bytes);
}

static void fl_barrier(void)
{
	rcb_barrier();
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

#define FL_OPS(label, init_fn)                          \
	{                                               \
		.name = label,                          \
		.library = "rcuboost",                  \
		.init = init_fn,                        \
		.fini = fl_fini,                        \
		.register_thread = fl_register,         \
		.unregister_thread = fl_unregister,     \
		.read_lock = fl_read_lock,              \
		.read_unlock = fl_read_unlock,          \
		.synchronize = fl_synchronize,          \
		.obj_new = fl_obj_new,                  \
		.obj_retire = fl_obj_retire,            \
		.barrier = fl_barrier,                  \
		.lib_backlog = fl_lib_backlog,          \
		.lib_backlog_reset_peak = rcb_backlog_reset_peak, \
		.boost_stats = rcb_boost_stats,         \
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
