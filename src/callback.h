/* SPDX-License-Identifier: MIT */
/*
 * State of the callback module, shared by its three files: callback.c
 * (the queue, rcb_call(), the callback thread, rcb_barrier(), shutdown,
 * the backlog), callback_fork.c (the fork handlers) and
 * callback_debug.c (the debug set of queued heads).  The protocol and
 * its numbered invariants are atop callback.c.  Internal to the library.
 */
#ifndef RCB_CALLBACK_H
#define RCB_CALLBACK_H

#include <pthread.h>
#include <stdbool.h>

#include "internal.h"

/* The multi-producer, single-consumer queue with its stub node. */
struct rcb__cb_queue {
	struct rcb_head *_Atomic tail;
	struct rcb_head stub;
};

/*
 * The batch the callback thread works on (invariant 11); written only by
 * that thread.  todo: the next node to invoke, NULL when none; last: the
 * batch's last node.  n, bytes: callbacks invoked and not yet subtracted
 * from the backlog (invariant 14).
 */
struct rcb__cb_batch {
	struct rcb_head *_Atomic todo, *_Atomic last;
	_Atomic unsigned long long n, bytes;
};

extern struct rcb__cb_queue rcb__cb_q;
extern struct rcb__cb_batch rcb__cb_batch;
extern _Atomic int rcb__cb_futex;
extern _Atomic bool rcb__cb_started; /* thread created and not joined */
extern _Atomic bool rcb__cb_stop;
extern pthread_mutex_t rcb__cb_lock;
/* Held across a splice and the publication of its batch, and across
 * fork() (invariant 11). */
extern pthread_mutex_t rcb__cb_splice_lock;
/* The backlog (invariant 5). */
extern _Atomic unsigned long long rcb__cb_pending, rcb__cb_pending_bytes;

/* The function of every barrier marker: how a node is known as one. */
void rcb__cb_barrier_reached(struct rcb_head *h);

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

#endif /* RCB_CALLBACK_H */
