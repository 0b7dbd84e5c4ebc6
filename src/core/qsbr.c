/* SPDX-License-Identifier: MIT */
/*
 * The qsbr domain's own calls (include/rcuboost/qsbr.h): quiescent
 * states, online and offline, and the register, unregister and
 * synchronize calls over the domain engine (domain.c, whose header
 * comment gives the algorithm and the invariants this file keeps).
 *
 * A thread's record holds 0 while it is offline and otherwise the value
 * of the domain's counter at its last quiescent state.  The read side
 * has no code at all, so the barriers sit in the quiescent-state and
 * offline paths, which are full fences (liburcu's qsbr flavor does the
 * same): no membarrier(2) is involved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

#include "core/hooks.h"
#include "core/internal.h"

#define me rcb__qsbr_reader
#define QSBR RCB__DOM_QSBR

RCB_API void rcb__qsbr_nest_misuse(const char *call)
{
	if (rcb__qsbr_reader.depth == 0)
		rcb__misuse(call, "unlock without a matching rcb_qsbr_read_lock(); ignored");
	else
		rcb__misuse(call, "called inside a qsbr read-side critical section "
				  "(nesting %u): the thread's references may be freed",
			    rcb__qsbr_reader.depth);
}

/*
 * The thread's ctr in qsbr domain @d becomes @ctr (a new grace-period
 * value, or 0 for offline), then what a grace period or booster left
 * for it: a wake-up, an unboost.  Context: the thread itself,
 * registered.
 */
void rcb__qsbr_store(int d, unsigned long ctr)
{
	/* [QS-A] Everything the thread read before (its references) is
	 * ordered before the store that lets a grace period end.  Pairs
	 * with [DG-B] in domain.c. */
	rcb_fence_seq_cst();
	rcb_store_relaxed(&rcb__dom_reader[d].ctr, ctr);
	/* [QS-W] The store before the loads below: store buffering against
	 * a grace period's "futex = -1; scan" ([DG-W]) and the booster's
	 * "state = queued; scan" ([BST-M] in src/boost/booster_pass.c). */
	rcb_fence_seq_cst();
	rcb__dom_after_store(d);
}

void rcb__qsbr_online(int d)
{
	struct rcb__dom_reader *r = &rcb__dom_reader[d];

	if (rcb_load_relaxed(&r->ctr))
		return;
	rcb_store_relaxed(&r->ctr, rcb_load_relaxed(&rcb__dom_gp[d].ctr));
	/* [QS-O] The online store before the thread's first reference: a
	 * grace period whose counter advance the store missed ([DG-C]) is
	 * ordered before the reads that follow.  Pairs with [DG-A]. */
	rcb_fence_seq_cst();
}

RCB_API void rcb__dom_quiescent_slow(int d, unsigned long gp)
{
	struct rcb__dom_reader *r = &rcb__dom_reader[d];

	if (RCB_UNLIKELY(rcb_load_relaxed(&r->ctr) == 0)) {
		static __thread bool reported;

		if (!reported) {
			reported = true;
			rcb__misuse("quiescent state",
				    r->registered ?
					    "called while the thread is offline in the %s domain; "
					    "it goes online, as liburcu's does (go online first)" :
					    "called by a thread not registered with the %s domain; "
					    "ignored",
				    rcb__doms[d].name);
		}
		/* liburcu's quiescent state puts an offline thread online,
		 * and code written for it may read right after: the safe
		 * direction is to protect those reads. */
		if (r->registered)
			rcb__qsbr_online(d);
		return;
	}
	rcb__qsbr_store(d, gp);
}

RCB_API void rcb__qsbr_quiescent_slow(unsigned long gp)
{
	rcb__dom_quiescent_slow(QSBR, gp);
}

int rcb__qsbr_register(int d)
{
	int err;

	if (rcb__dom_reader[d].registered) {
		/* A created domain lists a thread offline when it queues
		 * owner-run callbacks (dom_owner.c): registering puts it
		 * online. */
		if (d >= RCB__DOM_N)
			rcb__qsbr_online(d);
		return 0;
	}
	if ((err = rcb__dom_register(d)) != 0)
		return err;
	rcb__qsbr_online(d);
	return 0;
}

RCB_API int rcb_qsbr_register_thread(void)
{
	return rcb__qsbr_register(QSBR);
}

RCB_API int rcb_qsbr_unregister_thread(void)
{
	if (!me.registered)
		return -ENOENT;
	if (me.depth) {
		rcb__misuse("rcb_qsbr_unregister_thread",
			    "called inside a qsbr read-side critical section (nesting %u); "
			    "the thread stays registered",
			    me.depth);
		return -EBUSY;
	}
	return rcb__dom_unregister(QSBR);
}

void rcb__qsbr_offline(int d, const char *call)
{
	if (RCB_UNLIKELY(!rcb__dom_reader[d].registered)) {
		rcb__misuse(call, "the thread is not registered with the %s domain; ignored",
			    rcb__doms[d].name);
		return;
	}
	if (rcb_load_relaxed(&rcb__dom_reader[d].ctr))
		rcb__qsbr_store(d, 0);
}

void rcb__qsbr_online_checked(int d, const char *call)
{
	if (RCB_UNLIKELY(!rcb__dom_reader[d].registered)) {
		rcb__misuse(call, "the thread is not registered with the %s domain "
				  "(register it first); ignored",
			    rcb__doms[d].name);
		return;
	}
	rcb__qsbr_online(d);
}

RCB_API void rcb_qsbr_thread_offline(void)
{
	if (RCB_UNLIKELY(me.depth))
		rcb__qsbr_nest_misuse("rcb_qsbr_thread_offline");
	rcb__qsbr_offline(QSBR, "rcb_qsbr_thread_offline");
}

RCB_API void rcb_qsbr_thread_online(void)
{
	rcb__qsbr_online_checked(QSBR, "rcb_qsbr_thread_online");
}

RCB_API int rcb_qsbr_thread_is_online(void)
{
	return me.registered && rcb_load_relaxed(&me.ctr) != 0;
}

static int qsbr_synchronize(const char *call, bool expedited)
{
	if (RCB_UNLIKELY(me.depth)) {
		rcb__qsbr_nest_misuse(call);
		return -EDEADLK;
	}
	return rcb__dom_synchronize(QSBR, call, expedited);
}

RCB_API int rcb_qsbr_synchronize(void)
{
	return qsbr_synchronize("rcb_qsbr_synchronize", false);
}

RCB_API int rcb_qsbr_synchronize_expedited(void)
{
	return qsbr_synchronize("rcb_qsbr_synchronize_expedited", true);
}
