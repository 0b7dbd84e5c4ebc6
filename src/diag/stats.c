/* SPDX-License-Identifier: MIT */
/*
 * Statistics: grace-period counters (rcb_stats()).  All counters are
 * relaxed: they are reports, not synchronisation; a snapshot may mix
 * values from slightly different instants.  The boosting statistics
 * are the boost layer's (boost/boost_stats.c).
 */
#include "core/internal.h"

RCB_API void rcb_stats(struct rcb__gp_stats_v0 *out)
{
	struct rcb__thread *t;
	uint64_t n = 0;

	if (RCB_UNLIKELY(!out)) {
		rcb__misuse("rcb_stats", "called with NULL; nothing stored");
		return;
	}
	out->grace_periods = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_GP]);
	out->synchronize_calls = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_SYNC]);
	out->batched = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_BATCHED]);
	out->futex_waits = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_FUTEX]);
	out->misuse = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_MISUSE]);
	rcb__construct(); /* callable before any initialisation */
	pthread_mutex_lock(&rcb__registry_lock);
	rcb__for_each_thread(t)
		n++;
	pthread_mutex_unlock(&rcb__registry_lock);
	out->registered_threads = n;
}
