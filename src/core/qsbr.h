/* SPDX-License-Identifier: MIT */
/*
 * The qsbr domain (src/core/qsbr.c) as the rest of the library sees it:
 * its counters, and the booster's test of whether a registered thread
 * holds up a waiting grace period of either domain.  Included at the end
 * of core/internal.h, whose struct rcb__thread it needs.
 */
#ifndef RCB_CORE_QSBR_H
#define RCB_CORE_QSBR_H

/* As rcb__gp_wait_start_ns, for the qsbr domain's grace periods. */
extern _Atomic unsigned long long rcb__qsbr_wait_start_ns;
extern _Atomic unsigned long long rcb__qsbr_stat[4];
enum { RCB__QSS_GP, RCB__QSS_BATCHED, RCB__QSS_QS, RCB__QSS_FUTEX };
void rcb__qsbr_thread_exit(void);
void rcb__qsbr_after_fork_child(void);

/* Does qsbr counter @ctr (0: offline) hold up grace period @gp? */
static inline bool rcb__qsbr_holds_ctr(unsigned long ctr, unsigned long gp)
{
	return ctr != 0 && ctr != gp;
}

/* Does thread @t hold up a grace period that is waiting: the default
 * domain's numbered @gp (a section that began before it), or the qsbr
 * domain's (online, no quiescent state since it began)?  The booster's
 * test of whom to boost and keep boosted.  Relaxed reads: the booster
 * re-checks after [BST-M] before acting on a true. */
static inline bool rcb__qsbr_thread_holds(const struct rcb__thread *t)
{
	struct rcb_qsbr_reader *q = rcb_load_relaxed(&t->qs);

	return q && rcb_load_relaxed(&rcb__qsbr_wait_start_ns) &&
	       rcb__qsbr_holds_ctr(rcb_load_relaxed(&q->ctr),
				   rcb_load_relaxed(&rcb__qsbr_gp.ctr));
}

static inline bool rcb__thread_holds(const struct rcb__thread *t,
				     unsigned long gp)
{
	return rcb__holds_gp(rcb_load_relaxed(&t->rd->ctr), gp) ||
	       rcb__qsbr_thread_holds(t);
}

/* The earliest start of waiting of either domain's grace period, 0 when
 * none waits. */
static inline unsigned long long rcb__wait_start_any(void)
{
	unsigned long long a = rcb_load_relaxed(&rcb__gp_wait_start_ns);
	unsigned long long b = rcb_load_relaxed(&rcb__qsbr_wait_start_ns);

	return !a ? b : !b ? a : a < b ? a : b;
}

#endif /* RCB_CORE_QSBR_H */
