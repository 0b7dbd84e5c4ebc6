/* SPDX-License-Identifier: MIT */
/*
 * The boosters' control calls: the lazy initialisation's start (or its
 * word that boosting will be off), rcb_booster_set_prio() and
 * rcb_booster_tids(), and the boosters' pass and CPU-time totals.  The
 * threads themselves, their start, stop and fork are booster.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>

#include "boost/boost.h"

/*
 * The first, lazy initialisation (a first use, not rcb_init()) starts
 * the boosters at once when a thread it creates could take real-time
 * priority.  Left to the first grace period that waits for a blocked
 * reader, they would be created by whichever thread runs that grace
 * period, possibly after the application dropped its privileges: Knot
 * DNS makes its first RCU call as root, then changes to its own user
 * with setuid(), which clears every thread's capabilities but those of
 * a booster already running (PR_SET_KEEPCAPS, libthread.c).  Idle
 * boosters sleep without timeout (invariant 3), so starting them early
 * costs their threads and nothing per second.  Without the permission,
 * it says at once that boosting will be off and how to keep it, rather
 * than when (or if) a grace period first waits.  A failed start is
 * retried by that grace period, as before.  Context: rcb__init_slow(),
 * the first initialisation, after its settings are committed, no lock
 * held.
 */
void rcb__booster_start_lazy(void)
{
	struct rlimit rl;
	rlim_t rtprio = 0;

	if (!rcb__settings.boost)
		return;
	if (rcb__lib_thread_may_boost(rcb__settings.boost_prio) ||
	    rcb__keeper_available()) {
		(void)rcb__booster_start();
		return;
	}
	if (getrlimit(RLIMIT_RTPRIO, &rl) == 0)
		rtprio = rl.rlim_cur;
	if (!rcb__booster_first_to_report())
		return;
	rcb__warn("rcuboost: priority boosting will be off: no permission for real-time "
		  "priority in the thread that made the first RCU call (no CAP_SYS_NICE, "
		  "RLIMIT_RTPRIO %llu < %d). Give the process CAP_SYS_NICE or "
		  "RLIMIT_RTPRIO >= %d; a daemon that drops its privileges keeps boosting "
		  "if it initialises rcuboost before the drop (rcb_init(), or "
		  "RCUBOOST_EARLY=1). RCUBOOST_BOOST=0 turns boosting off without this "
		  "message. RCU keeps working unboosted.\n",
		  (unsigned long long)rtprio, rcb__settings.boost_prio,
		  rcb__settings.boost_prio);
}

RCB_API int rcb_booster_set_prio(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int err = 0, n = 0;

	if (prio < 2 || prio > 99) {
		fprintf(stderr, "rcuboost: rcb_booster_set_prio: priority %d is invalid: "
			"expected 2 to 99 (boosted readers run below the booster)\n", prio);
		return -EINVAL;
	}
	pthread_mutex_lock(&rcb__booster_lock);
	/* Every booster, even after a failure, so that they stay alike
	 * where the kernel allows it; the first error is returned. */
	for (int i = 0; rcb__boosters && i < rcb__nboosters; i++) {
		int e;

		if (!rcb__boosters[i].started)
			continue;
		n++;
		e = pthread_setschedparam(rcb__boosters[i].thread, SCHED_RR,
					  &sp);
		if (e && !err)
			err = e;
	}
	pthread_mutex_unlock(&rcb__booster_lock);
	if (!n)
		return -ESRCH;
	return -err;
}

RCB_API int rcb_booster_tids(pid_t *tids, size_t n)
{
	int found = 0;

	if (rcb__tids_args_bad("rcb_booster_tids", tids, n))
		return -EINVAL;
	pthread_mutex_lock(&rcb__booster_lock);
	for (int i = 0; rcb__boosters && i < rcb__nboosters; i++) {
		pid_t tid = rcb_load_relaxed(&rcb__boosters[i].tid);

		if (!rcb__boosters[i].started || !tid)
			continue;
		if ((size_t)found < n)
			tids[found] = tid;
		found++;
	}
	pthread_mutex_unlock(&rcb__booster_lock);
	return found;
}

long rcb__booster_passes(void)
{
	long n = 0;

	for (int i = 0; i < rcb__boosters_known(); i++)
		n += rcb_load_relaxed(&rcb__boosters[i].passes);
	return n;
}

/* CPU time of the boosters, as each published it after its last pass
 * (no lock: rcb_boost_stats() runs on booster 0 too). */
long rcb__booster_cpu_ns(void)
{
	long total = 0;

	for (int i = 0; i < rcb__boosters_known(); i++)
		total += rcb_load_relaxed(&rcb__boosters[i].cpu_ns);
	return total;
}
