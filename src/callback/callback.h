/* SPDX-License-Identifier: MIT */
/*
 * State of the callback module, shared by its files: callback.c (the
 * queue, rcb_call(), the worker threads, rcb_barrier(), shutdown, the
 * backlog), callback_worker.c (creating, choosing and destroying
 * workers), callback_fork.c (the fork handlers) and callback_debug.c
 * (the debug set of queued heads).  The protocol and
 * its numbered invariants are atop callback.c.  Internal to the library.
 */
#ifndef RCB_CALLBACK_H
#define RCB_CALLBACK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/hooks.h"
#include "core/internal.h"

/* Alignment that keeps a worker's producer-side fields off the lines
 * its thread writes (two lines: the adjacent-line prefetcher). */
#define RCB__CB_HOT 128

/*
 * The end mark (callback.c invariant 15): the next of a node queued last
 * in its worker's queue or in its thread's local list, no successor
 * linked yet, is the node's own address XOR this key, not NULL.  A
 * user-space address has bits 47-63 (56-63 with 5-level paging) clear;
 * the key's top byte is neither 0 nor 0xff, so the mark is no canonical
 * address (a pointer the application keeps in a head's first word is
 * never one), and it depends on the node's address (a copy of a queued
 * head elsewhere, a struct assignment of the object, holds no mark of
 * its own).  Bit 0 makes it odd: never NULL, never a pointer to a head.
 * rcb_call*() refuses a head whose next holds its mark.
 */
#define RCB__CB_END_KEY 0xa5c3000000000001ull

static inline struct rcb_head *rcb__cb_end(const struct rcb_head *h)
{
	return (struct rcb_head *)((uintptr_t)h ^ (uintptr_t)RCB__CB_END_KEY);
}

/* The successor @next (read from @h->next) is not linked yet. */
static inline bool rcb__cb_unlinked(const struct rcb_head *h,
				    const struct rcb_head *next)
{
	return !next || next == rcb__cb_end(h);
}

/* The multi-producer, single-consumer queue with its stub node. */
struct rcb__cb_queue {
	struct rcb_head *_Atomic tail;
	struct rcb_head stub;
};

/*
 * The batch a worker's thread works on (invariant 11); written only by
 * that thread.  todo: the next node to invoke, NULL when none; last: the
 * batch's last node.  n, bytes: callbacks invoked and not yet subtracted
 * from the backlog (invariant 14).
 */
struct rcb__cb_batch {
	struct rcb_head *_Atomic todo, *_Atomic last;
	_Atomic unsigned long long n, bytes;
};

/*
 * A callback worker (invariants W1-W5 atop callback_worker.c): one queue,
 * one thread.  The default worker is rcb__cb_default, static; the others
 * are allocated by rcb_worker_create().  Every worker is on the list
 * rcb__cb_workers (the default first) while it lives.
 */
struct rcb_worker {
	/* Up to RCB__CB_HOT: what every rcb_call*() reads or writes.  The
	 * thread's per-callback and per-batch writes live past it, on
	 * their own lines: sharing one cost rcb_call() two thirds of its
	 * throughput once callbacks did any work of their own (every
	 * invocation took the line back from the producer). */
	struct rcb__cb_queue q;
	/* -1 while the thread may sleep on an empty queue (invariant 4). */
	_Atomic int futex;
	/* CPU of the last producer that found the thread asleep there
	 * (wake_thread()), -1 if none: a hint for the grace-period policy
	 * (woke_beside_producer()), relaxed. */
	_Atomic int waker_cpu;
	/* Thread created and not joined (invariant 7). */
	_Atomic bool started;
	_Atomic bool stop;
	/* With stop: exit after the current batch, leaving the queue to
	 * rcb_worker_destroy() (invariant W4). */
	_Atomic bool abandon;
	/* Publishes tid to the starter. */
	_Atomic int tid_ready;
	pthread_t thread;
	_Atomic pid_t tid;
	/* Creation order; the default worker is 0 (rcb_barrier()). */
	unsigned long id;
	/* Attributes, fixed at creation. */
	unsigned int flags;
	int cpu, policy, prio;
	/* rcb_worker_destroy() began (invariant W4); rcb__cb_lock. */
	bool dying;
	/* RCB_WORKER_PIN's CPU could not be had at a start, which then
	 * left it unpinned (said once: start_pinned()); rcb__cb_lock. */
	bool pin_lost;
	/* rcb_call*() calls that decided inside their section to wake the
	 * thread and wake it after (callback.c invariant 4): the worker is
	 * freed only once none is left (callback_worker.c, W4). */
	_Atomic int late_wakers;
	/* A call nested in a section queued here while the thread did not
	 * run and another worker held the caller's cb_wake_later: started
	 * at that caller's outermost unlock by rcb__cb_start_later()
	 * (callback.c invariant 9).  Set inside the section ([CB-SL]):
	 * rcb_worker_destroy() waits a grace period after withdrawing the
	 * worker from its threads and CPUs (W2), so no call sets it after
	 * the worker is unlisted and freed; read and cleared only on the
	 * list, under rcb__cb_lock. */
	_Atomic bool start_later;
	struct rcb_worker *next; /* rcb__cb_workers; rcb__cb_lock */
	/* Booster mode applies (neither RCB_WORKER_RT nor a real-time
	 * policy): set under rcb__cb_lock before each start creates the
	 * thread (its first callback may call rcb_call()); read without
	 * the lock (relaxed: a call that races with a start may read the
	 * old value, and kick the boosters once too few or too many). */
	_Atomic bool cbboost;
	/* Written by the thread for every callback it invokes. */
	_Alignas(RCB__CB_HOT) struct rcb__cb_batch batch;
	/* When the thread starts a grace period (gp_policy.c); the
	 * thread's alone.  invoked: callbacks it ran, for the policy. */
	struct rcb__gp_policy gpp;
	_Atomic unsigned long long invoked;
	/* Booster mode (callback_boost.c, invariants B1-B5): the boost
	 * state, what to restore and what was set (owned by whoever
	 * moved bstate to BUSY), and booster 0's last sample. */
	_Atomic int bstate;
	struct rcb__sched_attr borig, bset;
	bool bs_work;
	uint64_t bs_ns;
	long long bs_run_ns;
};

extern struct rcb_worker rcb__cb_default;
/* Every live worker, the default first; under rcb__cb_lock. */
extern struct rcb_worker *rcb__cb_workers;
/* Guards the worker list, the per-CPU table's writers, and every
 * worker's started and stop (invariant 7). */
extern pthread_mutex_t rcb__cb_lock;
/* Held across a splice and the publication of its batch, and across
 * fork() (invariant 11); one for all workers. */
extern pthread_mutex_t rcb__cb_splice_lock;
/* The backlog of all workers together (invariant 5): queued by threads
 * no longer registered, or recounted after fork(); and invoked. */
extern _Atomic unsigned long long rcb__cb_queued_gone,
	rcb__cb_queued_gone_bytes;
extern _Atomic unsigned long long rcb__cb_invoked, rcb__cb_invoked_bytes;
void rcb__cb_recount(unsigned long long n, unsigned long long bytes);

/* Trampoline in head.func of every struct rcb_head_sized: how a sized
 * head is known (one compare). */
void rcb__cb_sized_invoke(struct rcb_head *h);

/* Bytes a queued node counts in the backlog (0 for plain heads). */
static inline size_t rcb__cb_bytes(const struct rcb_head *h)
{
	if (h->func == rcb__cb_sized_invoke)
		return ((const struct rcb_head_sized *)h)->bytes;
	return 0;
}

/* ---- the queue (callback.c) ---------------------------------------- */

/* Append @first..@last (linked, @last's next unset) to @w's queue. */
static inline void rcb__cb_push(struct rcb_worker *w, struct rcb_head *first,
				struct rcb_head *last)
{
	struct rcb_head *prev;

	rcb_store_relaxed(&last->next, rcb__cb_end(last)); /* invariant 15 */
	/* [CB-Q] The exchange orders the nodes' initialisation (func,
	 * next) before their publication, and is sequentially
	 * consistent for the handshake with the sleeping consumer:
	 * pairs with [CB-S] in wait_for_work() (callback_thread.c). */
	prev = rcb_xchg_seq_cst(&w->q.tail, last);
	/* [CB-L] Link after publishing the tail; pairs with [CB-N] in
	 * rcb__cb_next_of(), which waits for this store. */
	rcb_store_release(&prev->next, first);
}

/* Successor of @n in a batch; waits for a producer that exchanged the
 * tail but has not linked yet (it is between two stores): @n's next is
 * still its end mark, or NULL (the stub; a forked child's last node). */
static inline struct rcb_head *rcb__cb_next_of(struct rcb_head *n)
{
	struct rcb_head *next;
	int spins = 0;

	/* [CB-N] pairs with [CB-L] in rcb__cb_push(). */
	while (rcb__cb_unlinked(n, next = rcb_load_acquire(&n->next))) {
		if (++spins < 100)
			rcb_cpu_relax();
		else
			sched_yield();
	}
	return next;
}

/* The backlog (invariant 5): counts of rcb_call*() while the pressure
 * kick is armed, the peaks, and the sum now (any thread but one
 * holding the registry lock, which gets the previous sum). */
/* rcb_call*() wakes the boosters when the callback count reaches
 * rcb__cb_hot.kick_at, or the bytes of rcb_call_sized() callbacks
 * rcb__cb_hot.kick_bytes (0: no such threshold, or no booster). */
/*
 * What every rcb_call*() reads and almost nothing writes, alone on its
 * cache lines (RCB__HOT_ALIGN, padded to 128 bytes, the pair the
 * adjacent-line prefetcher fetches together): beside the worker's
 * counters, each batch the worker invoked would take the line from
 * every calling CPU.
 *   kick_at, kick_bytes: the pressure thresholds above; written by the
 *     boost layer (boost/booster.c) only while no booster runs (start,
 *     stop, fork).
 *   boost_idle: booster mode's sleeping booster 0 (below).
 */
struct rcb__cb_hot {
	_Atomic unsigned long long kick_at;
	_Atomic unsigned long long kick_bytes;
	_Atomic int boost_idle;
	char pad_[128 - 2 * sizeof(unsigned long long) - sizeof(int)];
};
extern struct rcb__cb_hot rcb__cb_hot;
extern _Atomic long long rcb__cb_kick_count, rcb__cb_kick_bytes;
extern _Atomic unsigned long long rcb__cb_peak, rcb__cb_peak_bytes;
/* The pressure kick is armed: rcb_call*() counts the backlog. */
static inline bool rcb__cb_kick_armed(void)
{
	return rcb_load_relaxed(&rcb__cb_hot.kick_at) ||
	       rcb_load_relaxed(&rcb__cb_hot.kick_bytes);
}
void rcb__cb_backlog_now(unsigned long long *n, unsigned long long *bytes);
/* Barrier markers: advanced after each is reached (invariant 10); those
 * rcb_barrier() queued on the default worker itself. */
extern _Atomic int rcb__cb_barrier_seq;
extern _Atomic unsigned long rcb__cb_default_markers;
/* Wake @w's thread if it sleeps on its empty queue (invariant 4). */
void rcb__cb_wake_thread(struct rcb_worker *w);
/* callback_thread.c: a worker's thread.  callback_start.c: start the
 * thread of a listed worker (taking rcb__cb_lock). */
void *rcb__cb_worker_thread(void *arg);
int rcb__cb_start_listed(struct rcb_worker *w);

/* callback.c: start @w's thread unless it runs (@drain: also after
 * shutdown); stop it, draining its queue, or (@abandon) after its
 * current batch.  Context: rcb__cb_lock held, not a callback of @w. */
int rcb__cb_start_locked(struct rcb_worker *w, bool drain);
int rcb__cb_stop_locked(struct rcb_worker *w, bool abandon);
/* Append the chain @first..@last (linked, complete) to @w's queue and
 * wake its thread. */
void rcb__cb_enqueue_chain(struct rcb_worker *w, struct rcb_head *first,
			   struct rcb_head *last);
/* Take everything queued on @w (no thread consuming it). */
bool rcb__cb_splice(struct rcb_worker *w, struct rcb_head **first,
		    struct rcb_head **last);
bool rcb__cb_queue_empty(struct rcb_worker *w);
/* Set in a forked child whose workers kept callbacks without a thread
 * (callback_fork.c); cleared when rcb__cb_start_inherited() starts them. */
extern _Atomic bool rcb__cb_inherited;

/* callback_worker.c: the table of rcb_worker_assign_cpu(), and the worker
 * of the CPU the caller runs on in table @t (else the default). */
extern _Atomic(struct rcb_worker *_Atomic *) rcb__cb_cpu_table;
struct rcb_worker *rcb__cb_pick_cpu(struct rcb_worker *_Atomic *t);

/* The worker rcb_call*() of the calling thread uses (its own, its
 * CPU's, the default).  Context: inside a read-side critical section
 * (callback_worker.c, invariant W2). */
static inline struct rcb_worker *rcb__cb_pick(void)
{
	struct rcb_worker *w = rcb_load_relaxed(&rcb__self()->cb_worker);
	struct rcb_worker *_Atomic *t;

	if (w)
		return w;
	/* [CBW-TA] pairs with [CBW-TR] in rcb_worker_assign_cpu(): the table
	 * is initialised. */
	t = rcb_load_acquire(&rcb__cb_cpu_table);
	if (RCB_UNLIKELY(t != NULL))
		return rcb__cb_pick_cpu(t);
	return &rcb__cb_default;
}
/* Is @w a live worker?  rcb__cb_lock held. */
bool rcb__cb_listed(struct rcb_worker *w);

/* Booster mode (boost/callback_boost.c, invariant B5): booster 0
 * sleeps without timeout; a producer that sees it after its enqueue
 * calls rcb__boost_hooks.cb_boost_kick().  Written by the boost layer
 * only; 0 without boosting. */

/* The function of every barrier marker: how a node is known as one. */
void rcb__cb_barrier_reached(struct rcb_head *h);

/* A barrier's marker, in the waiter's stack frame (invariant 10).  tag:
 * the local-mode flip count when it was handed to callback_local.c
 * (invariant L6). */
struct rcb__cb_marker {
	struct rcb_head head;
	_Atomic int done;
	unsigned long tag;
};

/*
 * callback_local.c: local callback lists, the default worker's local
 * mode (invariants L1-L8 there).
 *
 * rcb__cb_local_mode: bit 0 set while threads append to their own
 * lists, bits 1 and up the flip count; its parity (bit 1) names the
 * list a thread appends to.  Written under the registry lock by the
 * default worker's thread; read by rcb_call*() inside its section.
 */
extern _Atomic unsigned long rcb__cb_local_mode;
#define RCB__CB_LOCAL_ON 1UL

/* One list: first..last linked by next, n nodes (how busy local mode
 * is).  Appended by its thread alone with plain stores inside its
 * rcb_call*() critical section; emptied by the default worker's thread
 * under the registry lock after a grace period, or as its thread leaves
 * the registry (L2, L3). */
struct rcb__cb_local {
	struct rcb_head *_Atomic first, *_Atomic last;
	_Atomic unsigned long n;
};

/* A registered thread's two lists, by parity, in memory of the library's
 * own (not the thread's TLS, which a fork() child cannot read reliably:
 * L8).  next, used: the list of every block, registry lock. */
struct rcb__cb_lists {
	struct rcb__cb_local l[2];
	/* For following (callback_local.c): the thread's rseq cpu_id,
	 * which the kernel keeps at the CPU the thread last ran on (NULL
	 * without rseq), and its thread ID.  Set as the thread attaches
	 * (a fork() child's: as it harvests); read under the registry
	 * lock while used. */
	const _Atomic uint32_t *cpu_id;
	pid_t tid;
	struct rcb__cb_lists *next, *next_free;
	bool used;
};

/* The thread whose lists held the most callbacks at a take, and the CPU
 * it ran on then (-1: none, or not known). */
struct rcb__cb_lead {
	int cpu;
	pid_t tid;
};

/*
 * Append @h to @self's list of the current parity if local mode is on
 * and no append of @self's is in progress (a signal handler's call
 * interrupting one).  True if appended: nothing else to do, the
 * default worker's thread takes the list after its next flip and grace
 * period.  Context: rcb_call*() of a registered thread, inside its
 * read-side critical section, the default worker picked, not a callback.
 */
static inline bool rcb__cb_local_append(struct rcb__thread *self,
					struct rcb_head *h)
{
	/* [CBL-M] pairs with [CBL-F] in rcb__cb_local_flip(): the lists
	 * the worker emptied before the flip read as empty here. */
	unsigned long mode = rcb_load_acquire(&rcb__cb_local_mode);
	struct rcb__cb_local *l;
	struct rcb_head *last;

	if (!(mode & RCB__CB_LOCAL_ON) || !self->cb_lists ||
	    rcb_load_relaxed(&self->cb_appending))
		return false;
	rcb_store_relaxed(&self->cb_appending, true);
	/* [CBL-SF] A signal handler that runs from here on sees the
	 * append in progress (same thread: a compiler barrier). */
	atomic_signal_fence(memory_order_seq_cst);
	l = &self->cb_lists->l[(mode >> 1) & 1];
	last = rcb_load_relaxed(&l->last);
	rcb_store_relaxed(&h->next, rcb__cb_end(h)); /* invariant 15 */
	/* [CBL-L] Store-store order for fork()'s copy of memory: a child
	 * that sees last at @h sees the link to it and @h's next
	 * (invariant L8).  Plain stores on x86. */
	if (last)
		rcb_store_release(&last->next, h);
	else
		rcb_store_release(&l->first, h); /* [CBL-L] */
	rcb_store_release(&l->last, h); /* [CBL-L] */
	rcb_store_relaxed(&l->n, rcb_load_relaxed(&l->n) + 1);
	/* [CBL-SF] */
	atomic_signal_fence(memory_order_seq_cst);
	rcb_store_relaxed(&self->cb_appending, false);
	return true;
}

/* Append the chain @f..@l (NULL: none) to the chain *@first..*@last,
 * ending it at @l.  Context: nodes no other thread links. */
static inline void rcb__cb_chain_append(struct rcb_head **first,
					struct rcb_head **last,
					struct rcb_head *f, struct rcb_head *l)
{
	if (!f)
		return;
	if (*last)
		rcb_store_relaxed(&(*last)->next, f);
	else
		*first = f;
	*last = l;
	rcb_store_relaxed(&l->next, NULL);
}

/* The default worker's thread: flip to the other parity, local mode
 * @on (registry lock). */
void rcb__cb_local_flip(bool on);
/* The default worker's thread, after the grace period that followed its
 * last flip, under rcb__cb_splice_lock: take the lists of the parity
 * before the flip, the orphans, and the markers due (*@m...).  Chains
 * are NULL when empty.  Returns how many nodes the registered threads'
 * lists held; *@lead: the thread whose lists held most. */
unsigned long rcb__cb_local_steal(struct rcb_head **first,
				  struct rcb_head **last,
				  struct rcb_head **mfirst,
				  struct rcb_head **mlast,
				  struct rcb__cb_lead *lead);
/* The default worker's thread: as it starts, note the CPUs the library
 * gave it; before it invokes a batch whose lead is @lead, move to the
 * lead's CPU when following applies (callback_local.c, "Following"). */
void rcb__cb_local_follow_start(void);
void rcb__cb_local_follow(const struct rcb__cb_lead *lead);
/* Moves made by following (written by the worker's thread alone). */
extern _Atomic unsigned long rcb__cb_follow_moves;
/* rcb_barrier() on the default worker, rcb__cb_lock held: hand @m to
 * the worker's next steals if threads may hold local callbacks (true),
 * else false: the caller enqueues it. */
bool rcb__cb_local_barrier(struct rcb__cb_marker *m);
/* A barrier's marker waits for a take (no coalescing wait then). */
bool rcb__cb_local_markers_pending(void);
/* leave_registry(), registry lock held: @t's lists become orphans,
 * its block free. */
void rcb__cb_local_leave(struct rcb__thread *t);
/* fork() child, after rcb__cb_local_fork_harvest() (internal.h): the
 * orphans, for the default worker's rebuilt queue; markers dropped,
 * local mode off. */
void rcb__cb_local_fork_take(struct rcb_head **first, struct rcb_head **last);
/* callback_boost.c: local mode is on (work the booster must watch). */
static inline bool rcb__cb_local_on(void)
{
	/* [CBL-BI] */
	return rcb_load_seq_cst(&rcb__cb_local_mode) & RCB__CB_LOCAL_ON;
}

/*
 * Debug builds (RCB_DEBUG): the set of queued heads (callback_debug.c).
 * rcb__cb_dbg_track() records @h as queued and returns true if it
 * already was; rcb__cb_dbg_untrack() forgets @h; rcb__cb_dbg_forget_all()
 * empties the set.  Release builds: no-ops.
 */
#ifdef RCB_DEBUG
bool rcb__cb_dbg_track(struct rcb_head *h);
void rcb__cb_dbg_untrack(struct rcb_head *h);
void rcb__cb_dbg_forget_all(void);
#else
static inline bool rcb__cb_dbg_track(struct rcb_head *h)
{
	(void)h;
	return false;
}

static inline void rcb__cb_dbg_untrack(struct rcb_head *h)
{
	(void)h;
}

static inline void rcb__cb_dbg_forget_all(void)
{
}
#endif

/* ---- what the rest of the library calls (core/hooks.h for core) --- */

/* liburcu's callback timing (callback.c, fixed_wait_us()): turned on
 * for good by the first call_rcu() through the liburcu API, before its
 * enqueue. */
void rcb__cb_urcu_timing_on(void);


int rcb__callbacks_stop(void);
/* dom_call.c: the other domains' callback threads.  rcb__dom_call()
 * and rcb__dom_barrier(): call and barrier of domain @d (0, -EINVAL,
 * -EAGAIN, -EDEADLK; @call names the caller in reports).
 * rcb__dom_cb_stop(): drained and stopped by rcb_shutdown(); the fork
 * child's queues keep their callbacks; rcb__dom_cb_thread(): domain
 * @d's thread (started if need be) into *@out, 0 or -EAGAIN.
 * rcb__dom_cb_refuses(): true (reported) when the caller is a callback
 * thread of a domain, which rcb_shutdown() and the default domain's
 * barrier would wait for. */
int rcb__dom_call(int d, struct rcb_head *head,
		  void (*func)(struct rcb_head *head), const char *call);
int rcb__dom_barrier(int d, const char *call);
int rcb__dom_cb_stop(void);
void rcb__dom_cb_after_fork_child(void);
int rcb__dom_cb_thread(int d, pthread_t *out);
bool rcb__dom_cb_refuses(const char *call);
/* Polled grace periods of domain @d: a cookie, with a grace period that
 * satisfies it sure to run (here when it costs nothing, else on the
 * domain's callback thread). */
uint64_t rcb__dom_start_poll(int d);
/* Stop domain @d's callback thread, after running what it has queued
 * (rcb_domain_destroy()). */
void rcb__dom_cb_stop_one(int d);
/* The calling thread @t leaves the registry, marked unregistered
 * already: its queued counts join the global ones.  Context: registry
 * lock held. */
void rcb__cb_fold_thread(struct rcb__thread *t);
/* fork() child: every thread's local callback lists become orphans,
 * found through their blocks, and only the forking thread keeps its
 * block (callback_local.c, L8). */
void rcb__cb_local_fork_harvest(void);
/* rcb__register_self(), registry lock held: attach a block of local
 * lists to @t (callback_local.c). */
void rcb__cb_local_attach(struct rcb__thread *t);
/* The pressure kick counter restarts from the backlog; before the kick
 * thresholds are published (booster.c).  Not under the registry lock. */
void rcb__cb_kick_rebase(void);
/* Wake @w's thread if it sleeps on its empty queue, and, for a private
 * worker, end the caller's count in its late_wakers: the wake-up an
 * rcb_call*() decided inside its section (callback.c invariant 4). */
void rcb__cb_wake_late(struct rcb_worker *w);
/* Start every listed worker marked start_later (callback.c invariant 9),
 * and the workers holding inherited requests (rcb__cb_start_inherited()),
 * at an outermost unlock.  Context: outside read-side critical sections
 * and callbacks. */
void rcb__cb_start_later(void);
void rcb__callbacks_fork_prepare(void);
void rcb__callbacks_fork_parent(void);
void rcb__callbacks_after_fork_child(void);
/* In the child of fork(), after rcb__callbacks_after_fork_child(): call
 * @fn on every head the child's workers kept (callback_fork.c). */
void rcb__cb_child_each(void (*fn)(struct rcb_head *h, void *arg), void *arg);
/* In the child of fork(), after the callbacks are rebuilt: a library
 * head flagged as queued but not kept (its callback was running in
 * another thread at the fork, or its rcb_call() had not happened yet)
 * is flagged free again, else no request would ever queue it
 * (gp_poll.c, defer.c). */
void rcb__poll_after_fork_child(void);
void rcb__defer_after_fork_child(void);

/* In a forked child, start the threads of the workers that kept
 * callbacks from the parent, for a caller whose own request (the poll
 * or a defer queue's head) is among them.  One load otherwise; not
 * from a callback (callback.c). */
void rcb__cb_start_inherited(void);
/* rcb_call() for the library's own heads: -ESHUTDOWN unreported
 * (callback.c). */
int rcb__call_own(struct rcb_head *h, void (*func)(struct rcb_head *h));
/* @err from rcb_call*(), rcb_barrier() or a worker's start says that a
 * callback thread could not start (said on stderr: pthread_create()'s
 * EAGAIN, EPERM or EINVAL, or ENOMEM), not a misuse or -ESHUTDOWN.
 * rcb_call*() also returns -EINVAL for a NULL argument: a caller that
 * may pass one tells the two apart itself. */
static inline bool rcb__thread_start_failed(int err)
{
	return err == -EAGAIN || err == -ENOMEM || err == -EPERM ||
	       err == -EINVAL;
}
/* A deferred function runs on this thread: @call, which waits for the
 * callback threads, is reported and refused (defer.c). */
bool rcb__defer_refuses(const char *call);

#endif /* RCB_CALLBACK_H */
