/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-torture: what the boost-phase files share (boost.c: the
 * readers, short-lived threads, hog and ticker; boost_update.c: the
 * updaters; boost_check.c: scheduling attributes, the statistics check
 * and the output).  Not part of torture.h: nothing else needs it.
 */
#ifndef RCB_TORTURE_BOOST_H
#define RCB_TORTURE_BOOST_H

#include <sys/types.h>

#include "torture.h"

#define NS_PER_MS 1000000ull

/* The hog and the boost readers run on boost_hog_cpu; the updaters,
 * the ticker and the spawner on boost_upd_cpu. */
extern int boost_hog_cpu, boost_upd_cpu;

static inline bool boost_stopping(void)
{
	return atomic_load_explicit(&tstate.stop, memory_order_acquire);
}

pid_t boost_tid(void);
int boost_sched_set(uint32_t policy, int prio, int nice);
int boost_sched_set_attr(const struct tool_sattr *a);
/* SCHED_FIFO at the booster's priority minus one. */
bool boost_is_boosted(const struct tool_sattr *a);
/* Read thread @tid's attributes into *@cur until they equal *@want or
 * @ms milliseconds passed (a restore that another thread makes); 0 or
 * sched_getattr's negative errno. */
int boost_wait_attrs(pid_t tid, const struct tool_sattr *want,
		     struct tool_sattr *cur, unsigned int ms);
/* Pin the caller to @cpu alone; true if its mask is then exactly it. */
bool boost_pin_self(int cpu);
/* Count a TORTURE_ERR_boost_rt error: @what failed with -@err. */
void boost_rt_error(const char *who, unsigned int idx, const char *what,
		    int err);

void *boost_updater_fn(void *arg);
/* Take the boost statistics into tstate.boost.stats and check them. */
void boost_check_stats(void);

#endif
