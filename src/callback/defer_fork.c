/* SPDX-License-Identifier: MIT */
/*
 * The defer queues across fork() (defer.c, "fork()"): the child
 * re-creates the locks, releases the other threads' queues for its
 * first rcb_defer() to drain, and frees a queue whose drain callback
 * the child's workers did not keep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "callback/callback.h"
#include "core/internal.h"
#include "callback/defer.h"

static void mark_kept(struct rcb_head *h, void *arg)
{
	(void)arg;
	if (h->func == rcb__defer_drain_cb)
		((struct defer_queue *)(void *)((char *)h -
						offsetof(struct defer_queue,
							 head)))
			->child_kept = true;
}

#ifdef RCB_SIM
/* The simulator's fork workload (tools/sim): in the child, after the
 * fork handlers, is cb_pending set only on queues whose head the child
 * kept? */
bool rcb__sim_defer_heads_consistent(void);
bool rcb__sim_defer_heads_consistent(void)
{
	struct defer_queue *first = rcb_load_relaxed(&rcb__defer_queues);

	for (struct defer_queue *q = first; q; q = q->next)
		q->child_kept = false;
	rcb__cb_child_each(mark_kept, NULL);
	for (struct defer_queue *q = first; q; q = q->next)
		if (rcb_load_relaxed(&q->cb_pending) && !q->child_kept)
			return false;
	return true;
}
#endif

/* Child of fork(), after the callbacks are rebuilt (init.c): a queue
 * whose cb_pending is set but whose head the child did not keep gets
 * it cleared, so that its first drain is armed (fork section above). */
void rcb__defer_after_fork_child(void)
{
	struct defer_queue *first = rcb_load_relaxed(&rcb__defer_queues);

	if (!first || rcb__defer_arming)
		return;
	for (struct defer_queue *q = first; q; q = q->next)
		q->child_kept = false;
	rcb__cb_child_each(mark_kept, NULL);
	for (struct defer_queue *q = first; q; q = q->next)
		if (!q->child_kept)
			rcb_store_relaxed(&q->cb_pending, false);
}

/* Child of fork(), single-threaded: re-create the locks (their owners
 * may not exist here), release the other threads' queues and have the
 * first rcb_defer() arm their drains (see the fork section above). */
void rcb__defer_fork_child(void)
{
	if (rcb__pi_errorcheck_mutex_init(&rcb__defer_barrier_lock) != 0)
		RCB_DIE("pthread_mutex_init(defer barrier)", ENOMEM);
	for (struct defer_queue *q = rcb_load_relaxed(&rcb__defer_queues); q;
	     q = q->next) {
		if (rcb__pi_errorcheck_mutex_init(&q->lock) != 0)
			RCB_DIE("pthread_mutex_init(defer queue)", ENOMEM);
		if (q != rcb__defer_mine)
			rcb_store_relaxed(&q->in_use, false);
	}
	rcb_store_relaxed(&rcb__defer_fork_orphans, true);
}
