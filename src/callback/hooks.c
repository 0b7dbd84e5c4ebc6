/* SPDX-License-Identifier: MIT */
/*
 * The callback layer's side of core/hooks.h: the table through which
 * core, which may not name this layer's functions, tells it that a
 * thread registers or leaves, that an outermost unlock has a wake-up
 * to do, that the library shuts down, and fork().
 */
#include "callback/callback.h"
#include "callback/dom_owner.h"
#include "core/hooks.h"

/* fork() child, after the registry is rebuilt: the workers' queues and
 * backlog first, then the library's own heads flagged as queued but
 * not kept (polled grace periods, defer queues), as init.c's handler
 * ran them before the table existed. */
static void cb_fork_child(void)
{
	rcb__callbacks_after_fork_child();
	rcb__poll_after_fork_child();
	rcb__defer_after_fork_child();
	rcb__dom_cb_after_fork_child();
}

/* rcb_shutdown() and the like would wait for the calling thread: from a
 * deferred function, or from a callback of another domain. */
static bool cb_refuses(const char *call)
{
	return rcb__defer_refuses(call) || rcb__dom_cb_refuses(call);
}

/* rcb_shutdown(): every worker, then the other domains' threads. */
static int cb_stop(void)
{
	int err = rcb__callbacks_stop();
	int qerr = rcb__dom_cb_stop();

	return err ? err : qerr;
}

/* A thread leaves the registry: its counts, and its owner-run lists
 * (empty: no domain holds it any more). */
static void cb_thread_leave(struct rcb__thread *t)
{
	rcb__cb_fold_thread(t);
	rcb__dom_owner_free();
}

const struct rcb__cb_hooks rcb__cb_hooks = {
	.thread_attach = rcb__cb_local_attach,
	.thread_leave = cb_thread_leave,
	.dom_leave = rcb__dom_owner_flush,
	.wake_late = rcb__cb_wake_late,
	.start_later = rcb__cb_start_later,
	.stop = cb_stop,
	.refuses = cb_refuses,
	.fork_prepare = rcb__callbacks_fork_prepare,
	.fork_parent = rcb__callbacks_fork_parent,
	.fork_harvest = rcb__cb_local_fork_harvest,
	.fork_child = cb_fork_child,
};
