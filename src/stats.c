/* SPDX-License-Identifier: MIT */
/*
 * Statistics: grace-period counters.  All counters are relaxed: they are
 * reports, not synchronisation; a snapshot may mix values from slightly
 * different instants.
 */
#include "internal.h"

RCB_API void rcb_stats(struct rcb_gp_stats *out)
{
	struct rcb__thread *t;
	uint64_t n = 0;

	out->grace_periods = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_GP]);
	out->synchronize_calls = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_SYNC]);
	out->batched = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_BATCHED]);
	out->futex_waits = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_FUTEX]);
	out->misuse = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_MISUSE]);
	pthread_mutex_lock(&rcb__registry_lock);
	rcb__for_each_thread(t)
		n++;
	pthread_mutex_unlock(&rcb__registry_lock);
	out->registered_threads = n;
}
