/* SPDX-License-Identifier: MIT */
/*
 * liburcu's urcu-memb flavor exported by librcuboost: the urcu_memb_*
 * functions of include/rcuboost/urcu.h, the flavor struct that
 * liburcu-cds calls through, the out-of-line pointer helpers, and the
 * atfork hook list of the hash table's resize worker.
 *
 * Invariants:
 *  1. urcu_memb_call_rcu() writes only the caller's two-word struct
 *     rcu_head (liburcu's layout: code compiled against liburcu, such as
 *     liburcu-cds and rculfqueue's dummy nodes, places other fields right
 *     after it).  When struct rcb_head is two words {next, func} the head
 *     is handed to rcb_call() as is; otherwise (a larger rcb_head) it goes
 *     to rcb_call() inside an allocated node, and the caller's head only
 *     keeps func.
 *  2. The atfork hooks run before rcuboost takes any of its own locks in
 *     its pthread_atfork prepare handler, and after it released (parent)
 *     or re-created (child) them: a resize worker that the hook pauses may
 *     itself be waiting for a grace period or a callback lock.
 *  3. Hooks run once per fork even when the fork helpers
 *     (call_rcu_before_fork() & co.) and rcuboost's pthread_atfork
 *     handlers both call the prepare/parent/child functions: a
 *     per-thread depth counter; the forking thread holds hooks_lock
 *     from the outermost prepare to the matching parent/child, so
 *     hooks never change or run twice meanwhile.
 *  4. A hook set is registered as often as it is unregistered, as in
 *     liburcu: liburcu-cds registers the same set once per hash table
 *     and unregisters it once per cds_lfht_destroy(), so the set stays
 *     while any table lives (a count per set, under hooks_lock).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "callback/callback.h"
#include "core/internal.h"
#include "compat/urcu_compat.h"
#include "core/hooks.h"

#define RCB_URCU_STANDALONE /* never a liburcu header in the library */
#include "rcuboost/urcu.h"

/* ---- read side, grace periods, registration --------------------- */

/* Parenthesised names: urcu.h maps calls of these names to the inline
 * read side by function-like macros. */
RCB_API void (urcu_memb_read_lock)(void)
{
	rcb_read_lock();
}

RCB_API void (urcu_memb_read_unlock)(void)
{
	rcb_read_unlock();
}

RCB_API int (urcu_memb_read_ongoing)(void)
{
	return rcb_read_ongoing();
}

RCB_API void urcu_memb_synchronize_rcu(void)
{
	RCB__AS_LIBURCU("synchronize_rcu", (void)rcb_synchronize());
}

RCB_API void urcu_memb_register_thread(void)
{
	RCB__AS_LIBURCU("rcu_register_thread", (void)rcb_register_thread());
}

RCB_API void urcu_memb_unregister_thread(void)
{
	int err;

	RCB__AS_LIBURCU("rcu_unregister_thread", err = rcb_unregister_thread());
	/* liburcu asserts; its void call cannot return -ENOENT. */
	if (err == -ENOENT)
		rcb__misuse("rcu_unregister_thread",
			    "the thread is not registered; nothing done");
}

RCB_API void urcu_memb_init(void)
{
	(void)rcb_init(NULL);
}

RCB_API void urcu_memb_exit(void)
{
}

/* rcb_call() or rcb_barrier() failed for want of a callback thread (its
 * start failed, said on stderr), not for a misuse or after
 * rcb_shutdown().  rcb_call()'s -EINVAL for a NULL argument is told
 * apart by the caller. */
static bool thread_failed(int err)
{
	return rcb__thread_start_failed(err);
}

RCB_API void urcu_memb_barrier(void)
{
	int err;

	RCB__AS_LIBURCU("rcu_barrier", err = rcb_barrier());
	/* A thread limit shared with other processes may free a slot in
	 * a moment: a second of tries before giving up. */
	for (int i = 0; i < 100 && err && thread_failed(err); i++) {
		struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		RCB__AS_LIBURCU("rcu_barrier", err = rcb_barrier());
	}
	/* liburcu's rcu_barrier() returns nothing and promises every
	 * callback queued before it has run, so the caller may free what
	 * they use.  A worker whose thread cannot start still holds some:
	 * returning would let the caller free memory a callback has yet
	 * to touch.  Stop, as liburcu does when it cannot start a thread. */
	if (err && thread_failed(err)) {
		fprintf(stderr,
			"rcuboost: fatal: rcu_barrier: a callback thread cannot start (%s, for 1 s), "
			"so callbacks queued before the barrier cannot run and it cannot return "
			"(liburcu stops the process when it cannot start a thread, too)\n",
			strerror(-err));
		abort();
	}
}

/* ---- call_rcu (invariant 1) ---------------------------------------- */

/* The head is handed over as is when rcb_head has rcu_head's layout. */
#define HEAD_AS_IS (sizeof(struct rcb_head) == sizeof(struct rcu_head))

_Static_assert(sizeof(struct rcu_head) == 2 * sizeof(void *) &&
		       offsetof(struct rcu_head, func) == sizeof(void *),
	       "struct rcu_head must be liburcu's two words {next, func}");
/* A two-word rcb_head must be {next, func} in this order, so that the
 * callback thread's h->func(h) is the caller's func on the caller's head. */
_Static_assert(sizeof(struct rcb_head) != 2 * sizeof(void *) ||
		       (offsetof(struct rcb_head, next) == 0 &&
			offsetof(struct rcb_head, func) ==
				offsetof(struct rcu_head, func)),
	       "a two-word struct rcb_head must be {next, func}");

/* A larger rcb_head: the caller's head rides in an allocated node. */
struct urcu_node {
	struct rcb_head head;
	struct rcu_head *user;
};

static void urcu_node_invoke(struct rcb_head *h)
{
	struct urcu_node *n = (struct urcu_node *)(void *)
		((char *)h - offsetof(struct urcu_node, head));
	struct rcu_head *user = n->user;
	void (*func)(struct rcu_head *) = user->func;

	free(n);
	rcb__cb_current = (const void *)(uintptr_t)func;
	func(user);
	/* Named here: invoke_batch() sees only this function. */
	if (RCB_UNLIKELY(rcb_read_ongoing()))
		rcb__end_leaked_section("callback", (const void *)(uintptr_t)func);
}


RCB_API void urcu_memb_call_rcu(struct rcu_head *head,
				void (*func)(struct rcu_head *head))
{
	struct urcu_node *n;
	int err;

	/* liburcu's callback timing from here on (callback.c): before the
	 * enqueue, which orders it for the callback thread. */
	rcb__cb_urcu_timing_on();
	if (HEAD_AS_IS) {
		/*
		 * Same layout and the callback thread calls h->func(h):
		 * @func is called with the caller's head, through a pointer
		 * type that differs only in the pointee of its argument.
		 */
		RCB__AS_LIBURCU(
			"call_rcu",
			err = rcb_call((struct rcb_head *)(void *)head,
				       (void (*)(struct rcb_head *))func));
		/* A NULL argument: reported by rcb_call(), nothing to run. */
		if (!head || !func || !thread_failed(err))
			return;
	} else {
		if (!func) {
			rcb__misuse("call_rcu", "NULL callback function");
			return;
		}
		head->func = func;
		n = (struct urcu_node *)malloc(sizeof(*n));
		if (n) {
			n->user = head;
			RCB__AS_LIBURCU(
				"call_rcu",
				err = rcb_call(&n->head, urcu_node_invoke));
			if (err == 0)
				return;
			free(n);
			if (!thread_failed(err))
				/* after rcb_shutdown(): reported, dropped */
				return;
		}
	}
	/* No memory, or no callback thread could start (liburcu's
	 * call_rcu() cannot fail, and liburcu would stop the process):
	 * wait for the grace period here, as liburcu's defer_rcu() does
	 * when its queue is full.  Inside a read-side critical section
	 * that is reported and the callback is not run: leaked, never
	 * run early. */
	RCB__AS_LIBURCU("call_rcu", err = rcb_synchronize());
	if (err == 0) {
		func(head);
		if (RCB_UNLIKELY(rcb_read_ongoing()))
			rcb__end_leaked_section("call_rcu",
						(const void *)(uintptr_t)func);
	}
}

/* ---- the flavor ---------------------------------------------------- */

static void memb_read_lock(void)
{
	rcb_read_lock();
}

static void memb_read_unlock(void)
{
	rcb_read_unlock();
}

static int memb_read_ongoing(void)
{
	return rcb_read_ongoing();
}

RCB_API const struct rcu_flavor_struct urcu_memb_flavor = {
	.read_lock = memb_read_lock,
	.read_unlock = memb_read_unlock,
	.read_ongoing = memb_read_ongoing,
	.read_quiescent_state = urcu_memb_quiescent_state,
	.update_call_rcu = urcu_memb_call_rcu,
	.update_synchronize_rcu = urcu_memb_synchronize_rcu,
	.update_defer_rcu = urcu_memb_defer_rcu,
	.thread_offline = urcu_memb_thread_offline,
	.thread_online = urcu_memb_thread_online,
	.register_thread = urcu_memb_register_thread,
	.unregister_thread = urcu_memb_unregister_thread,
	.barrier = urcu_memb_barrier,
	.register_rculfhash_atfork = urcu_memb_register_rculfhash_atfork,
	.unregister_rculfhash_atfork = urcu_memb_unregister_rculfhash_atfork,
};

/* ---- atfork hooks (invariants 2 and 3) ----------------------------- */

#define MAX_HOOKS 16

static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct urcu_atfork *hooks[MAX_HOOKS]; /* under hooks_lock */
static unsigned long hook_refs[MAX_HOOKS];    /* invariant 4 */
static int nhooks;
/* prepare calls of this thread not yet matched by parent/child; this
 * thread holds hooks_lock while it is positive (invariant 3). */
static __thread int fork_depth;

/*
 * Take hooks_lock for @call.  A thread that called call_rcu_before_fork()
 * without the matching call_rcu_after_fork_parent() or _child() holds it
 * for good (liburcu's helpers deadlock the same way): said on stderr
 * after a second, as callback_fork.c's lock_for_fork() does, so that the
 * hang is named.
 */
static void hooks_lock_take(const char *call)
{
	struct timespec until;

	if (pthread_mutex_trylock(&hooks_lock) == 0)
		return;
#ifndef RCB_SIM /* the simulator schedules lock and trylock only */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	if (pthread_mutex_timedlock(&hooks_lock, &until) == 0)
		return;
	fprintf(stderr,
		"rcuboost: %s has waited 1 s for liburcu's fork hooks: a thread called "
		"call_rcu_before_fork() without call_rcu_after_fork_parent() or "
		"call_rcu_after_fork_child(), or is forking; each call_rcu_before_fork() "
		"must be followed by one of them, in the same thread\n",
		call);
#else
	(void)until;
	(void)call;
#endif
	pthread_mutex_lock(&hooks_lock);
}

RCB_API void urcu_memb_register_rculfhash_atfork(struct urcu_atfork *atfork)
{
	int i;

	/* rcuboost's pthread_atfork handlers are installed at init. */
	(void)rcb__ensure_init();
	hooks_lock_take("urcu_register_rculfhash_atfork");
	for (i = 0; i < nhooks; i++)
		if (hooks[i] == atfork)
			break;
	if (i < nhooks) {
		hook_refs[i]++;
	} else if (nhooks < MAX_HOOKS) {
		hooks[nhooks] = atfork;
		hook_refs[nhooks++] = 1;
	} else {
		rcb__misuse("urcu_register_rculfhash_atfork",
			    "more than %d hook sets", MAX_HOOKS);
	}
	pthread_mutex_unlock(&hooks_lock);
}

RCB_API void urcu_memb_unregister_rculfhash_atfork(struct urcu_atfork *atfork)
{
	int i;

	hooks_lock_take("urcu_unregister_rculfhash_atfork");
	for (i = 0; i < nhooks; i++) {
		if (hooks[i] == atfork) {
			/* Invariant 4: the last unregistration removes it. */
			if (--hook_refs[i] == 0) {
				nhooks--;
				hooks[i] = hooks[nhooks];
				hook_refs[i] = hook_refs[nhooks];
			}
			break;
		}
	}
	pthread_mutex_unlock(&hooks_lock);
}

void rcb__urcu_atfork_prepare(void)
{
	int i;

	if (fork_depth++ > 0)
		return;
	hooks_lock_take("fork() or call_rcu_before_fork()");
	for (i = nhooks - 1; i >= 0; i--)
		hooks[i]->before_fork(hooks[i]->priv);
}

void rcb__urcu_atfork_parent(void)
{
	int i;

	if (fork_depth == 0 || --fork_depth > 0)
		return;
	for (i = 0; i < nhooks; i++)
		hooks[i]->after_fork_parent(hooks[i]->priv);
	pthread_mutex_unlock(&hooks_lock);
}

void rcb__urcu_atfork_child(void)
{
	int i;

	if (fork_depth == 0 || --fork_depth > 0)
		return;
	for (i = 0; i < nhooks; i++)
		hooks[i]->after_fork_child(hooks[i]->priv);
	/* Single-threaded child: a fresh, unlocked mutex. */
	pthread_mutex_init(&hooks_lock, NULL);
}

/* ---- pointer helpers ------------------------------------------------ */

RCB_API void *rcu_dereference_sym(void *p)
{
	/*
	 * [URCU-D] The caller loaded @p; loads through it come after this
	 * fence.  Pairs with [URCU-S] below and with rcb_assign_pointer()'s
	 * release store.
	 */
	atomic_thread_fence(memory_order_acquire);
	return p;
}

RCB_API void *rcu_set_pointer_sym(void **p, void *v)
{
	/* [URCU-S] Stores that initialised *@v come before its publication.
	 * Pairs with [URCU-D] above and rcb_dereference(). */
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
	return v;
}

RCB_API void *rcu_xchg_pointer_sym(void **p, void *v)
{
	/* [URCU-S] as rcu_set_pointer_sym(), plus acquire on the old value. */
	return __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL);
}

RCB_API void *rcu_cmpxchg_pointer_sym(void **p, void *old, void *_new)
{
	/* [URCU-S] as rcu_xchg_pointer_sym(), when the exchange happens. */
	__atomic_compare_exchange_n(p, &old, _new, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE); /* [URCU-S] */
	return old;
}

/* liburcu-cds's atfork hooks for rcuboost's fork handlers (init.c,
 * through core/hooks.h). */
const struct rcb__compat_hooks rcb__compat_hooks = {
	.fork_prepare = rcb__urcu_atfork_prepare,
	.fork_parent = rcb__urcu_atfork_parent,
	.fork_child = rcb__urcu_atfork_child,
};
