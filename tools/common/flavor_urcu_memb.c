/* SPDX-License-Identifier: MIT */
/*
 * The inversion scenario's liburcu side: urcu-memb with its inline read
 * side (_LGPL_SOURCE).  liburcu has no backlog count and no boosting; the
 * scenario counts the backlog itself, the same way for every flavor.
 */
#define _POSIX_C_SOURCE 200809L
#define _LGPL_SOURCE
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>

#include <urcu/urcu-memb.h>

#include "inversion.h"

struct fl_obj {
	struct rcu_head head;
	size_t bytes;
	alignas(16) unsigned char payload[];
};

_Static_assert(offsetof(struct fl_obj, payload) <= INV_OBJ_OVERHEAD,
	       "INV_OBJ_OVERHEAD too small for struct rcu_head");

static void (*fl_freed)(void *payload, size_t bytes);

/* liburcu initialises itself (a constructor); its call_rcu thread starts
 * with the first call_rcu(), from the updater, on CPU 1. */
static int fl_init(void (*freed)(void *payload, size_t bytes))
{
	fl_freed = freed;
	return 0;
}

static void fl_fini(void)
{
	urcu_memb_barrier();
}

static int fl_register(void)
{
	urcu_memb_register_thread();
	return 0;
}

static void fl_unregister(void)
{
	urcu_memb_unregister_thread();
}

static void fl_read_lock(void)
{
	urcu_memb_read_lock();
}

static void fl_read_unlock(void)
{
	urcu_memb_read_unlock();
}

static int fl_synchronize(void)
{
	urcu_memb_synchronize_rcu();
	return 0;
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

static void fl_obj_free(struct rcu_head *head)
{
	struct fl_obj *o = caa_container_of(head, struct fl_obj, head);

	fl_freed(o->payload, o->bytes);
	free(o);
}

/* Context: a registered thread (call_rcu() takes a read lock inside). */
static int fl_obj_retire(void *payload)
{
	struct fl_obj *o = caa_container_of(payload, struct fl_obj, payload);

	urcu_memb_call_rcu(&o->head, fl_obj_free);
	return 0;
}

static void fl_barrier(void)
{
	urcu_memb_barrier();
}

const struct inv_flavor_ops inv_flavor_urcu_memb = {
	.name = "urcu-memb",
	.library = "liburcu urcu-memb",
	.init = fl_init,
	.fini = fl_fini,
	.register_thread = fl_register,
	.unregister_thread = fl_unregister,
	.read_lock = fl_read_lock,
	.read_unlock = fl_read_unlock,
	.synchronize = fl_synchronize,
	.obj_new = fl_obj_new,
	.obj_retire = fl_obj_retire,
	.barrier = fl_barrier,
};
