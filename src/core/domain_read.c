/* SPDX-License-Identifier: MIT */
/*
 * The memb kind's read side out of line (include/rcuboost/domain.h's
 * rcb__dom_read_lock() and rcb__dom_read_unlock()): a first section that
 * registers the thread, the fence flavor's sections, the unlock that
 * wakes a grace period or gives a boost back, and misuse.  The grace
 * periods these pair with, and the invariants, are domain.c's.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "core/hooks.h"
#include "core/internal.h"

RCB_API void rcb__dom_read_misuse(int d, const char *what)
{
	char call[48];

	snprintf(call, sizeof(call), "%s read side (%s)", rcb__doms[d].name,
		 what);
	if (rcb__dom_read_ongoing(d))
		rcb__misuse(
			call,
			"nesting depth would wrap; the section stays at its depth");
	else
		rcb__misuse(call,
			    "unlock without a matching read lock; ignored");
}

/* A thread unregistered with a memb-kind domain (bp: every thread until
 * its first section) takes this path: it registers, then begins its
 * section as the inline lock would.  The fence flavor's readers come
 * here for every outermost lock. */
RCB_API void rcb__dom_read_lock_slow(int d)
{
	struct rcb__dom_reader *r = &rcb__dom_reader[d];
	int err;

	if (!r->registered && (err = rcb__dom_register(d)) != 0)
		RCB_DIE("registering the thread with a domain (first read lock)",
			-err);
	rcb__tsan_acquire(&rcb__dom_gp[d].ctr);
	rcb_store_relaxed(&r->ctr, rcb_load_relaxed(&rcb__dom_gp[d].ctr) +
					   RCB__NEST_ONE);
	/* [RD-A] A full fence in the fence flavor; in the membarrier flavor
	 * the inline path's compiler barrier would do, and this is the rare
	 * first section. */
	rcb_fence_seq_cst();
}

RCB_API void rcb__dom_read_unlock_special(int d)
{
	/* [RD-W] The fence flavor's store-buffering fence (the inline
	 * path's compiler barrier is full only with membarrier).  Pairs
	 * with [DG-W]. */
	if (rcb__dom_reader[d].registered != RCB__DOMR_FAST)
		rcb_fence_seq_cst();
	rcb__dom_after_store(d);
}
