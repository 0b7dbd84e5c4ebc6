/* SPDX-License-Identifier: MIT */
/*
 * What the defer queue's files share (defer.c: the queues, their
 * drains and the API; defer_fork.c: fork()).  The protocol and its
 * invariants are atop defer.c.  Internal to src/callback/.
 */
#ifndef RCB_CALLBACK_DEFER_H
#define RCB_CALLBACK_DEFER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/internal.h"

#define DEFER_MASK ((uint64_t)RCB_DEFER_QUEUE_LEN - 1)
_Static_assert((RCB_DEFER_QUEUE_LEN & (RCB_DEFER_QUEUE_LEN - 1)) == 0,
	       "RCB_DEFER_QUEUE_LEN must be a power of two");

struct defer_entry {
	void (*fct)(void *p);
	void *p;
};

struct defer_queue {
	struct rcb_head head;        /* the drain callback's (invariant 4) */
	/* all_queues; written before publication */
	struct defer_queue *next;
	_Atomic bool in_use;         /* owned by a thread */
	_Atomic bool cb_pending;     /* head queued, callback not yet begun */
	bool child_kept;             /* a fork()'s child kept the head */
	_Atomic uint64_t cb_snap;    /* the pending callback's snapshot */
	uint64_t bar_snap;           /* rcb_defer_barrier(); barrier_lock */
	pthread_mutex_t lock;        /* drainers (invariant 3) */
	_Alignas(64) _Atomic uint64_t qhead; /* owner */
	_Alignas(64) _Atomic uint64_t qtail; /* drainers, under lock */
	struct defer_entry e[RCB_DEFER_QUEUE_LEN];
};

/* Every queue ever allocated, newest first (prepend only). */
extern struct defer_queue *_Atomic rcb__defer_queues;
/* The calling thread's own queue (NULL: not registered). */
extern __thread struct defer_queue *rcb__defer_mine
	__attribute__((tls_model("initial-exec"), visibility("hidden")));
/* This thread won a queue's cb_pending and has not yet queued its head
 * (arm()): a fork() from a signal handler here leaves the child to
 * queue it. */
extern __thread volatile bool rcb__defer_arming
	__attribute__((tls_model("initial-exec"), visibility("hidden")));
/* Serialises rcb_defer_barrier() (its snapshots live in the queues). */
extern pthread_mutex_t rcb__defer_barrier_lock;
/* Set in a forked child: inherited queues wait for an armed drain. */
extern _Atomic bool rcb__defer_fork_orphans;
/* The drain callback of every queue's head (invariant 4). */
void rcb__defer_drain_cb(struct rcb_head *head);
/* The pthread_atfork() child handler of the defer queues. */
void rcb__defer_fork_child(void);

#endif /* RCB_CALLBACK_DEFER_H */
