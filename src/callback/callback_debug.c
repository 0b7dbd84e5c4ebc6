/* SPDX-License-Identifier: MIT */
/*
 * Debug builds (RCB_DEBUG) only: the set of rcb_heads queued and not yet
 * invoked, so that rcb_call() reports a head queued again before its
 * callback ran as misuse (it would corrupt the queue).  Every build
 * finds the head queued last by its end mark (callback.c invariant 15);
 * this set finds the others.  Release builds compile nothing here (the
 * no-ops are in callback.h).
 *
 * Invariant.  A head is in the set from its rcb_call(), before its
 * enqueue, until the callback thread takes it out of its batch to invoke
 * it; a forked child rebuilds the set from the nodes it keeps
 * (callback_fork.c, callback.c invariant 13).  The set never reports a
 * head that is not queued; it may miss one (best effort).
 */
#include <stdint.h>

#include "callback/callback.h"

#ifdef RCB_DEBUG
/*
 * The heads queued and not yet invoked, in an open-addressing set
 * searched over a window of DBG_WINDOW slots from the head's hash.
 * Lock-free and relaxed: it orders nothing (the queue does), and a
 * head's insertion precedes its enqueue, which precedes its removal by
 * the callback thread.  Best effort, never a false report: a head that
 * finds no free slot in its window is not tracked.
 */
#define DBG_SLOTS 16384u
#define DBG_WINDOW 32u
#define DBG_FREED ((uintptr_t)1) /* a slot whose head was removed */
static _Atomic uintptr_t dbg_queued[DBG_SLOTS];

static unsigned int dbg_hash(const struct rcb_head *h)
{
	uint64_t x = (uint64_t)(uintptr_t)h;

	x ^= x >> 29;
	x *= 0x9e3779b97f4a7c15ull;
	return (unsigned int)(x >> 40) % DBG_SLOTS;
}

/* Record @h as queued; true if it already was. */
bool rcb__cb_dbg_track(struct rcb_head *h)
{
	uintptr_t key = (uintptr_t)h;
	unsigned int base = dbg_hash(h);

	for (int attempt = 0; attempt < 4; attempt++) {
		_Atomic uintptr_t *slot = NULL;
		uintptr_t seen = 0;

		for (unsigned int i = 0; i < DBG_WINDOW; i++) {
			_Atomic uintptr_t *s =
				&dbg_queued[(base + i) % DBG_SLOTS];
			uintptr_t v = rcb_load_relaxed(s);

			if (v == key)
				return true;
			if ((v == 0 || v == DBG_FREED) && !slot) {
				slot = s;
				seen = v;
			}
			if (v == 0)
				/* no insertion goes past an empty slot */
				break;
		}
		if (!slot || rcb_cmpxchg_relaxed(slot, &seen, key))
			return false;
	}
	return false;
}

void rcb__cb_dbg_untrack(struct rcb_head *h)
{
	uintptr_t key = (uintptr_t)h;
	unsigned int base = dbg_hash(h);

	for (unsigned int i = 0; i < DBG_WINDOW; i++) {
		_Atomic uintptr_t *s = &dbg_queued[(base + i) % DBG_SLOTS];

		if (rcb_load_relaxed(s) == key) {
			rcb_store_relaxed(s, DBG_FREED);
			return;
		}
	}
}

void rcb__cb_dbg_forget_all(void)
{
	for (unsigned int i = 0; i < DBG_SLOTS; i++)
		rcb_store_relaxed(&dbg_queued[i], 0);
}
#endif /* RCB_DEBUG */
