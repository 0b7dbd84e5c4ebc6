/* SPDX-License-Identifier: MIT */
/*
 * The flavor: membarrier(2), or fences.  With membarrier, a grace period
 * makes every running thread of the process execute a full barrier
 * (MEMBARRIER_CMD_PRIVATE_EXPEDITED), which lets the readers' fast path
 * go without one (gp.c invariants 1-3).  Fence flavor (no membarrier):
 * readers call the library on every outermost lock and unlock, which
 * issue the fences, and rcb__membarrier() is a plain fence.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/internal.h"

/* Read by every grace period, written at initialisation and fork only.
 * RCB__HOT_ALIGN: linked right after gp.c, it would otherwise land in
 * rcb__gp's cache-line block (regression_gp_line_shared). */
static enum rcb_flavor active_flavor RCB__HOT_ALIGN = RCB_FLAVOR_FENCE;

static int membarrier(int cmd, unsigned int flags)
{
	return (int)syscall(__NR_membarrier, cmd, flags, 0);
}

int rcb__membarrier_setup(enum rcb_flavor_request req, enum rcb_flavor *out)
{
	int mask;

	if (req == RCB_FLAVOR_REQUIRE_FENCE) {
		active_flavor = RCB_FLAVOR_FENCE;
		*out = active_flavor;
		return 0;
	}
	mask = membarrier(MEMBARRIER_CMD_QUERY, 0);
	if (mask >= 0 && (mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0) {
		active_flavor = RCB_FLAVOR_MEMBARRIER;
	} else {
		if (req == RCB_FLAVOR_REQUIRE_MEMBARRIER)
			return -ENOSYS;
		active_flavor = RCB_FLAVOR_FENCE;
	}
	*out = active_flavor;
	return 0;
}

void rcb__membarrier(void)
{
	if (active_flavor == RCB_FLAVOR_MEMBARRIER) {
		if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) != 0)
			RCB_DIE("membarrier(PRIVATE_EXPEDITED)", errno);
	} else {
		/* [GP-M] The fence flavor's membarrier: readers fence
		 * themselves ([RD-AF], [RD-BF], [RD-WF]). */
		rcb_fence_seq_cst();
	}
}

/* fork() child (gp.c's handler): membarrier registration belongs to
 * the mm; make sure the child's new mm has it.  The child is
 * single-threaded, so falling back to the fence flavor here is safe. */
void rcb__membarrier_after_fork_child(void)
{
	enum rcb_flavor f;

	if (active_flavor != RCB_FLAVOR_MEMBARRIER)
		return;
	if (rcb__membarrier_setup(RCB_FLAVOR_AUTO, &f) == 0)
		rcb__settings.flavor = f;
}
