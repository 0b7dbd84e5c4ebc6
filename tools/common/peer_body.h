/* SPDX-License-Identifier: MIT */
/*
 * The peers' measured loops, written once and compiled into each peer's
 * own file (peer_*.c) so that the peer's read-side primitives are inlined
 * into them.  Not a normal header: include it once, at the end of a peer
 * file, after defining:
 *
 *   FL_NAME            side name (string)
 *   FL_SYM             name of the struct tool_peer to define
 *   FL_HEAD            callback head type
 *   FL_INIT()          0 or -1 (message on stderr); runs first in setup
 *   FL_DESCRIBE()      const char * or NULL
 *   FL_REGISTER(), FL_UNREGISTER()
 *   FL_OFFLINE(), FL_ONLINE()   around sleeps (QSBR); else empty
 *   FL_QS()            quiescent state every FL_QS_EVERY reads (QSBR)
 *   FL_READ_LOCK(), FL_READ_UNLOCK()
 *   FL_DEREF(p), FL_XCHG(pp, v)
 *   FL_SYNC(), FL_CALL(head, func), FL_BARRIER()
 *
 * optionally FL_CAPS (PEER_CAP_*; default 0) and FL_POLL() (let the
 * queueing thread run its ready callbacks, called after every paced
 * callback and every FL_QS_EVERY back to back; default: nothing),
 *
 * and, for a peer that the inversion engine (inversion.h) also runs:
 *
 *   FL_INV_OPS         defined: generate its object and thread functions,
 *                      and FL_INV_TABLE(name, library, init, fini) to
 *                      write its struct inv_flavor_ops with (or
 *                      FL_INV_FIELDS(...) for more members)
 *   FL_REGISTER_RC(), FL_SYNC_RC()   the calls, returning 0 or -errno
 *   FL_CALL_SIZED(head, func, bytes) call_rcu of an object of @bytes,
 *                      returning 0 or -errno; its head's type is
 *                      FL_OBJ_HEAD if defined, else FL_HEAD
 */
#ifndef FL_SYM
#error "peer_body.h needs the FL_* macros of a flavor file"
#endif

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "tool.h"

/* Power of two. */
#define FL_QS_EVERY 256

#ifndef FL_CAPS
#define FL_CAPS 0
#endif
#ifndef FL_POLL
#define FL_POLL() ((void)0)
#endif

#define fl_barrier() __asm__ __volatile__("" ::: "memory")

struct fl_node {
	FL_HEAD head;
	uint64_t t_queue;
	uint64_t t_done;
};

static _Atomic uint64_t fl_invoked;

static void fl_cb_count(FL_HEAD *head)
{
	(void)head;
	atomic_fetch_add_explicit(&fl_invoked, 1, memory_order_relaxed);
}

static void fl_cb_stamp(FL_HEAD *head)
{
	struct fl_node *n = PEER_CONTAINER_OF(head, struct fl_node, head);

	n->t_done = tool_now_ns();
	atomic_fetch_add_explicit(&fl_invoked, 1, memory_order_relaxed);
}

static void fl_register(void)
{
	FL_REGISTER();
}

static void fl_unregister(void)
{
	FL_UNREGISTER();
}

static void fl_idle_enter(void)
{
	FL_OFFLINE();
}

static void fl_idle_exit(void)
{
	FL_ONLINE();
}

static void fl_synchronize(void)
{
	FL_SYNC();
}

static void fl_barrier_all(void)
{
	FL_BARRIER();
}

static uint64_t fl_call_invoked(void)
{
	return atomic_load_explicit(&fl_invoked, memory_order_relaxed);
}

static const char *fl_describe(void)
{
	return FL_DESCRIBE();
}

/* Start the library's threads from the calling (unpinned) thread. */
static int fl_setup(void)
{
	static struct fl_node n;
	uint64_t before;

	if (FL_INIT() != 0)
		return -1;
	FL_REGISTER();
	before = fl_call_invoked();
	FL_CALL(&n.head, fl_cb_count);
	FL_BARRIER();
	FL_UNREGISTER();
	if (fl_call_invoked() != before + 1) {
		fprintf(stderr, "%s: %s: barrier returned before the callback ran\n",
			tool_prog, FL_NAME);
		return -1;
	}
	return 0;
}

static void fl_read_pairs(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		FL_READ_LOCK();
		fl_barrier();
		FL_READ_UNLOCK();
	}
}

static uint64_t fl_reader_loop(struct peer_shared *s,
			       _Atomic uint64_t *progress)
{
	unsigned long bad = 0;
	uint64_t n = 0;

	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		struct peer_obj *p;

		FL_READ_LOCK();
		p = FL_DEREF(s->ptr);
		if (__builtin_expect(p->seq == PEER_POISON, 0))
			bad++;
		FL_READ_UNLOCK();
		if (!(++n & (FL_QS_EVERY - 1))) {
			FL_QS();
			if (progress)
				atomic_store_explicit(progress, n,
						      memory_order_relaxed);
		}
	}
	if (bad)
		atomic_fetch_add_explicit(&s->bad, bad, memory_order_relaxed);
	return n;
}

static uint64_t fl_updater_loop(struct peer_shared *s)
{
	uint64_t n = 0;

	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		struct peer_obj *p = tool_xmalloc(sizeof(*p)), *old;

		memset(p, 0, sizeof(*p));
		p->seq = n + 1;
		old = FL_XCHG(&s->ptr, p);
		FL_SYNC();
		old->seq = PEER_POISON;
		free(old);
		n++;
	}
	return n;
}

/* An object that retire_loop publishes and retires with a callback. */
struct fl_robj {
	FL_HEAD head;
	uint64_t t_queue; /* 0: no latency wanted */
	struct peer_obj obj;
};

static uint64_t *fl_lat;
static size_t fl_lat_cap;
static _Atomic size_t fl_nlat;

static void fl_cb_retire(FL_HEAD *head)
{
	struct fl_robj *o = PEER_CONTAINER_OF(head, struct fl_robj, head);

	if (o->t_queue) {
		size_t i = atomic_fetch_add_explicit(&fl_nlat, 1,
						     memory_order_relaxed);

		if (i < fl_lat_cap)
			fl_lat[i] = tool_now_ns() - o->t_queue;
	}
	o->obj.seq = PEER_POISON;
	free(o);
	atomic_fetch_add_explicit(&fl_invoked, 1, memory_order_relaxed);
}

static void fl_retire(struct peer_obj *old, struct peer_obj *first, int stamp)
{
	struct fl_robj *o;

	if (old == first)
		/* the caller's: freed by the caller after the barrier */
		return;
	o = PEER_CONTAINER_OF(old, struct fl_robj, obj);
	o->t_queue = stamp ? tool_now_ns() : 0;
	FL_CALL(&o->head, fl_cb_retire);
}

static uint64_t fl_retire_loop(struct peer_shared *s, struct peer_retire *r)
{
	struct peer_obj *first = s->ptr;
	uint64_t n = 0, next = tool_now_ns();

	fl_lat = r->lat;
	fl_lat_cap = r->lat ? r->cap : 0;
	atomic_store(&fl_nlat, 0);
	while ((!r->max || n < r->max) &&
	       !atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		struct fl_robj *o = tool_xmalloc(sizeof(*o));

		memset(&o->obj, 0, sizeof(o->obj));
		o->obj.seq = ++n;
		fl_retire(FL_XCHG(&s->ptr, &o->obj), first, r->lat != NULL);
		if (r->interval_ns && r->spin) {
			next += r->interval_ns;
			while (tool_now_ns() < next)
				;
			if (!(n & (FL_QS_EVERY - 1))) {
				FL_QS();
				FL_POLL();
			}
		} else if (r->interval_ns) {
			FL_POLL();
			next += r->interval_ns;
			FL_OFFLINE();
			tool_sleep_until(next);
			FL_ONLINE();
		} else if (!(n & (FL_QS_EVERY - 1))) {
			FL_QS();
			FL_POLL();
		}
	}
	fl_retire(FL_XCHG(&s->ptr, first), first, 0);
	FL_BARRIER();
	r->nlat = atomic_load(&fl_nlat);
	if (r->nlat > fl_lat_cap)
		r->nlat = fl_lat_cap;
	fl_lat = NULL;
	fl_lat_cap = 0;
	return n;
}

static void *fl_call_alloc(size_t n)
{
	struct fl_node *v = tool_xmalloc(n * sizeof(*v));

	memset(v, 0, n * sizeof(*v));
	return v;
}

static void fl_call_free(void *nodes)
{
	free(nodes);
}

static void fl_call_queue(void *nodes, size_t n)
{
	struct fl_node *v = nodes;

	for (size_t i = 0; i < n; i++) {
		FL_CALL(&v[i].head, fl_cb_count);
		if (!((i + 1) & (FL_QS_EVERY - 1))) {
			FL_QS();
			FL_POLL();
		}
	}
}

static size_t fl_call_paced(void *nodes, size_t n, uint64_t interval_ns,
			    uint64_t deadline_ns)
{
	struct fl_node *v = nodes;
	uint64_t next = tool_now_ns();
	size_t i;

	for (i = 0; i < n; i++) {
		v[i].t_queue = tool_now_ns();
		if (v[i].t_queue >= deadline_ns)
			break;
		FL_CALL(&v[i].head, fl_cb_stamp);
		FL_POLL();
		next += interval_ns;
		FL_OFFLINE();
		tool_sleep_until(next);
		FL_ONLINE();
	}
	return i;
}

static void fl_call_latencies(const void *nodes, size_t n, uint64_t *out)
{
	const struct fl_node *v = nodes;

	for (size_t i = 0; i < n; i++)
		out[i] = v[i].t_done >= v[i].t_queue ?
				 v[i].t_done - v[i].t_queue :
				 0;
}

const struct tool_peer FL_SYM = {
	.name = FL_NAME,
	.caps = FL_CAPS,
	.setup = fl_setup,
	.thread_register = fl_register,
	.thread_unregister = fl_unregister,
	.idle_enter = fl_idle_enter,
	.idle_exit = fl_idle_exit,
	.read_pairs = fl_read_pairs,
	.reader_loop = fl_reader_loop,
	.updater_loop = fl_updater_loop,
	.retire_loop = fl_retire_loop,
	.synchronize = fl_synchronize,
	.call_alloc = fl_call_alloc,
	.call_free = fl_call_free,
	.call_queue = fl_call_queue,
	.call_paced = fl_call_paced,
	.call_latencies = fl_call_latencies,
	.call_invoked = fl_call_invoked,
	.barrier = fl_barrier_all,
	.describe = fl_describe,
};

#ifdef FL_INV_OPS
/* ---- the inversion engine's view: objects of any size, call_rcu -------- */

#include "inversion.h"

/* A peer whose sized call_rcu needs a larger head (rcuboost's struct
 * rcb_head_sized) names it FL_OBJ_HEAD; the callback still receives an
 * FL_HEAD * at the object's start. */
#ifndef FL_OBJ_HEAD
#define FL_OBJ_HEAD FL_HEAD
#endif

struct fl_obj {
	FL_OBJ_HEAD head;
	size_t bytes;
	alignas(16) unsigned char payload[];
};

_Static_assert(offsetof(struct fl_obj, payload) <= INV_OBJ_OVERHEAD,
	       "INV_OBJ_OVERHEAD too small for this peer's callback head");

/* Called with each object freed (inversion.h: init). */
static void (*fl_freed)(void *payload, size_t bytes);

static int fl_inv_register(void)
{
	return FL_REGISTER_RC();
}

static void fl_inv_read_lock(void)
{
	FL_READ_LOCK();
}

static void fl_inv_read_unlock(void)
{
	FL_READ_UNLOCK();
}

static int fl_inv_synchronize(void)
{
	return FL_SYNC_RC();
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

static void fl_obj_free(FL_HEAD *head)
{
	struct fl_obj *o = PEER_CONTAINER_OF(head, struct fl_obj, head);

	fl_freed(o->payload, o->bytes);
	free(o);
}

/* Context: a registered thread (call_rcu() may take a read lock inside). */
static int fl_obj_retire(void *payload)
{
	struct fl_obj *o = PEER_CONTAINER_OF(payload, struct fl_obj, payload);

	return FL_CALL_SIZED(&o->head, fl_obj_free, o->bytes);
}

/* The table's members (a peer may add its own), and the table. */
#define FL_INV_FIELDS(label, lib, init_fn, fini_fn)                           \
	.name = label, .library = lib, .init = init_fn, .fini = fini_fn,      \
	.register_thread = fl_inv_register,                                   \
	.unregister_thread = fl_unregister, .read_lock = fl_inv_read_lock,    \
	.read_unlock = fl_inv_read_unlock, .synchronize = fl_inv_synchronize, \
	.obj_new = fl_obj_new, .obj_retire = fl_obj_retire,                   \
	.barrier = fl_barrier_all
#define FL_INV_TABLE(label, lib, init_fn, fini_fn) \
	{ FL_INV_FIELDS(label, lib, init_fn, fini_fn) }
#endif /* FL_INV_OPS */
