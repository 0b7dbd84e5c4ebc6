/* SPDX-License-Identifier: MIT */
/*
 * Polled grace periods: rcb_get_state(), rcb_start_poll(),
 * rcb_poll_state(), rcb_cond_synchronize() (the kernel's
 * get_state_synchronize_rcu() family).
 *
 * Algorithm.  gp.c numbers grace periods (its invariant 5):
 * gp_seq_started is the number of the latest grace period begun,
 * gp_seq_done that of the latest one completed, both 64-bit and only
 * growing.  A cookie is "gp_seq_started + 1" read after a full barrier:
 * the first grace period that is sure to begin after the caller's
 * earlier accesses.  It has elapsed once gp_seq_done >= cookie.
 *
 * Invariants.
 *  1. gp_seq_done <= gp_seq_started at all times, and each only grows, so
 *     a cookie never reads as elapsed before its grace period completed,
 *     and any cookie > gp_seq_started + 1 was never handed out.
 *  2. Grace period number c begins (its [GP-A]) after the increment of
 *     gp_seq_started to c; a snapshot that read c - 1 after [PO-S] read
 *     before that increment, so the caller's accesses before [PO-S] are
 *     ordered before grace period c's [GP-A] (the argument of [GP-S]).
 *  3. Completion is published with a release ([GP-D]) after [GP-B]; a
 *     poller's acquire ([PO-D]) that sees it orders its later accesses
 *     after every pre-existing reader's critical section, as a return
 *     from rcb_synchronize() does.
 *  4. rcb_start_poll() needs a grace period numbered >= its cookie.  If
 *     gp_seq_started already reached the cookie, one began after the
 *     snapshot; otherwise it raises poll_req to the cookie and makes sure
 *     the poll head is queued with rcb_call(): the callback thread's next
 *     grace period starts after the enqueue, hence after the snapshot
 *     (rcb_synchronize() there reads gp_seq_started after the splice).
 *     The poll callback clears poll_queued, then re-queues the head if
 *     poll_req is still ahead of gp_seq_done; store-buffering with a
 *     requester's "raise poll_req; load poll_queued" ([PO-W]/[PO-K]):
 *     one of the two sees the other, so no request is left without a
 *     grace period to come.
 *  5. No lock anywhere on these paths: poll_req is raised with a
 *     compare-and-swap loop, the head is queued by the single winner of
 *     the poll_queued compare-and-swap, and rcb_call()'s enqueue is one
 *     atomic exchange.  (rcb__gp_try_now() only tries its locks.)
 *  6. A cold rcb_start_poll() first tries to run the grace period
 *     itself (gp.c invariant 8): when no other thread is inside a
 *     section, no grace period runs, and no other thread is registered
 *     or the last grace period is 4 ms old, it completes one numbered
 *     >= the cookie before returning (no system call without another
 *     registered thread; one or two membarriers otherwise) and queues
 *     nothing.  The wake-up of a sleeping callback thread it spares is
 *     the cost of a cold call (10-12 us on a VM).  If the attempt gives
 *     up after numbering grace period n (n >= cookie), a request must
 *     follow: a caller whose cookie is <= n may have returned on seeing
 *     n begun (invariant 4) and counts on it completing.  The request
 *     is n; the cookie would do as well (any grace period completing
 *     later numbers itself above n), but not the number last done
 *     (models/gppoll.pml, mutations gppoll_giveup_no_request and
 *     gppoll_owed_done).
 *  7. A request that cannot be queued because no callback thread can
 *     start (RLIMIT_NPROC, a pids cgroup: any error of the start,
 *     rcb__thread_start_failed()) is served by the caller: an
 *     rcb_synchronize() before it returns (outside a section; inside
 *     one, rcb_call() queues and the thread starts at the unlock, or,
 *     if that start fails too, at the worker's next use, as for any
 *     callback queued there: the header says so).
 *     The only case where rcb_start_poll() blocks for a grace period.
 *  8. fork().  The child keeps the poll head if the parent had it
 *     queued (callback_fork.c), and with it the requests.  poll_queued
 *     true with no head kept (poll_cb() was running in the parent's
 *     callback thread, before its clear, or another thread had won the
 *     compare-and-swap and not yet queued) would make every request of
 *     the child count on a head nobody queues: the child's fork handler
 *     looks for the head among what its workers kept
 *     (rcb__poll_after_fork_child()) and clears the flag if it is not
 *     there.  A fork() from a signal handler that interrupted this
 *     thread's own poll_arm() between the two leaves the flag to the
 *     interrupted call (poll_arming).
 */
#include <errno.h>

#include "callback/callback.h"
#include "core/internal.h"

static struct rcb_head poll_head;
static _Atomic bool poll_queued;
static _Atomic unsigned long long poll_req;
/* This thread won poll_queued and has not yet queued the head: a fork()
 * from a signal handler here leaves the child to queue it. */
static __thread volatile bool poll_arming;

static void poll_cb(struct rcb_head *head);

/* Queue the poll head unless it is queued (invariant 4).  Returns 0,
 * or rcb_call()'s error when the head could not be queued (poll_queued
 * false again). */
static int poll_arm(void)
{
	bool idle = false;
	int err;

	/* [PO-A] One winner queues the head; acq_rel so that it follows
	 * the previous callback's last use.  Pairs with [PO-K]. */
	poll_arming = true;
	if (!rcb_cmpxchg_acq_rel(&poll_queued, &idle, true)) {
		poll_arming = false;
		return 0;
	}
	err = rcb_load_relaxed(&rcb__running) ?
		      rcb__call_own(&poll_head, poll_cb) :
		      -ESHUTDOWN;
	if (err)
		rcb_store_relaxed(&poll_queued, false);
	poll_arming = false;
	return err;
}

static void find_poll_head(struct rcb_head *h, void *found)
{
	if (h == &poll_head)
		*(bool *)found = true;
}

#ifdef RCB_SIM
/* The simulator's fork workload (tools/sim): in the child, after the
 * fork handlers, is poll_queued true only with the head kept? */
bool rcb__sim_poll_head_consistent(void);
bool rcb__sim_poll_head_consistent(void)
{
	bool found = false;

	if (!rcb_load_relaxed(&poll_queued))
		return true;
	rcb__cb_child_each(find_poll_head, &found);
	return found;
}
#endif

/* Invariant 8. */
void rcb__poll_after_fork_child(void)
{
	bool found = false;

	if (!rcb_load_relaxed(&poll_queued) || poll_arming)
		return;
	rcb__cb_child_each(find_poll_head, &found);
	if (!found)
		rcb_store_relaxed(&poll_queued, false);
}

static void poll_cb(struct rcb_head *head)
{
	(void)head;
	/* [PO-K] Clear, then look at the requests: store-buffering with
	 * rcb_start_poll()'s "raise poll_req; load poll_queued".  Pairs
	 * with [PO-W]. */
	rcb_store_seq_cst(&poll_queued, false);
	/* [PO-K] (the fence half, as [DF-K] in src/callback/defer.c). */
	rcb_fence_seq_cst();
	if (rcb_load_relaxed(&poll_req) > rcb__gp_seq_done())
		(void)poll_arm(); /* on the callback thread: it runs */
}

RCB_API uint64_t rcb_get_state(void)
{
	return rcb__gp_seq_snap() + 1;
}

RCB_API uint64_t rcb_start_poll(void)
{
	uint64_t cookie = rcb_get_state();
	unsigned long long owed, req;
	int err;

	/* Invariant 4: a grace period numbered >= cookie has begun. */
	if (rcb__gp_seq_started_hint() >= cookie)
		return cookie;
	if (rcb__ensure_init() != 0)
		return cookie;
	/* Invariant 6: the grace period run here, or left to the callback
	 * thread with a number to request (none after rcb_shutdown()). */
	switch (!rcb_load_relaxed(&rcb__running) ?
			RCB__GP_NOW_NONE :
			rcb__gp_try_now(cookie, &owed)) {
	case RCB__GP_NOW_DONE:
		return cookie;
	case RCB__GP_NOW_HANDED:
		req = owed;
		break;
	default:
		req = cookie;
	}
	rcb_max_relaxed(&poll_req, req);
	/* [PO-W] The request is visible before poll_queued is read.
	 * Pairs with [PO-K] in poll_cb(). */
	rcb_fence_seq_cst();
	if (!rcb_load_relaxed(&poll_queued)) {
		err = poll_arm();
		/* No callback thread could start (said on stderr): nobody
		 * would run the request, and the cookie would never elapse.
		 * The grace period here instead, blocking, as liburcu's
		 * call_rcu() over rcuboost does then (invariant 7). */
		if (RCB_UNLIKELY(rcb__thread_start_failed(err)) &&
		    !rcb_read_ongoing())
			(void)rcb_synchronize();
	} else
		/* queued in a forked child's parent */
		rcb__cb_start_inherited();
	return cookie;
}

/* rcb_poll_state() for @call. */
static int poll_state(uint64_t cookie, const char *call)
{
	unsigned long long next;

	/* [PO-D] inside rcb__gp_seq_done(), pairs with [GP-D]. */
	if (rcb__gp_seq_done() >= cookie) {
		/* [PO-E] Full-barrier contract, as [GP-E]: the caller's
		 * later non-atomic accesses follow.  Pairs with [GP-B]. */
		rcb_fence_seq_cst();
		return 1;
	}
	/* Invariant 1: never handed out yet. */
	next = rcb__gp_seq_started_hint() + 1;
	if (RCB_UNLIKELY(cookie > next)) {
		rcb__misuse(call,
			    "cookie %llu was never handed out (the newest is %llu): "
			    "forged or corrupted",
			    (unsigned long long)cookie, next);
		return -EINVAL;
	}
	return 0;
}

RCB_API int rcb_poll_state(uint64_t cookie)
{
	return poll_state(cookie, "rcb_poll_state");
}

RCB_API int rcb_cond_synchronize(uint64_t cookie)
{
	int r;

	if (RCB_UNLIKELY(rcb_read_ongoing())) {
		rcb__misuse("rcb_cond_synchronize",
			    "called inside a read-side critical section; it would wait for itself forever");
		return -EDEADLK;
	}
	r = poll_state(cookie, "rcb_cond_synchronize");
	if (r < 0)
		return r;
	if (r)
		return 0;
	return rcb_synchronize();
}
