/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/domain.h - the grace-period domains besides the default one,
 * as their inline read sides see them.  Implementation detail of
 * <rcuboost/qsbr.h> and the liburcu flavor headers (<rcuboost/urcu_bp.h>,
 * <rcuboost/urcu_mb.h>, <rcuboost/urcu_signal.h>): not API, may change.
 *
 * A domain has its own grace-period counter and, in every thread, its
 * own reader record, so that a grace period of one domain never waits
 * for the sections of another (liburcu's flavors are independent in the
 * same way).  Two kinds of read side:
 *   qsbr  no code in sections; the thread's quiescent states and offline
 *         calls end what it read (src/core/qsbr.c);
 *   memb  the default domain's read side over the domain's own record:
 *         the outermost lock stores a snapshot of the domain's counter
 *         plus the nesting depth, with compiler barriers only, which the
 *         domain's grace periods make full barriers with membarrier(2)
 *         (src/core/domain.c).
 * The records are static TLS: one %fs-relative access, as rcb__reader.
 */
#ifndef RCUBOOST_DOMAIN_H
#define RCUBOOST_DOMAIN_H

#include <rcuboost.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The domains: qsbr's, then one per liburcu memb-class flavor. */
enum { RCB__DOM_QSBR, RCB__DOM_BP, RCB__DOM_MB, RCB__DOM_SIGNAL, RCB__DOM_N };

/* rcb__dom_reader.registered: registered; and, memb kind, the fast path
 * may run (membarrier flavor, rcb__dom_read_lock()). */
#define RCB__DOMR_REG 1u
#define RCB__DOMR_FAST 3u

struct rcb__dom_reader {
	/* qsbr: 0 offline (or not registered), else the domain's counter
	 * at the thread's last quiescent state.  memb: as rcb_reader.ctr.
	 * Written only by the owning thread; read by grace periods and
	 * boosters. */
	RCB__ATOMIC(unsigned long) ctr;
	/* qsbr: read-side nesting, counted by code built with RCB_DEBUG. */
	unsigned int depth;
	unsigned int registered;
};

struct rcb__dom_gp {
	/* Never 0; advanced by each grace period of the domain. */
	RCB__ATOMIC(unsigned long) ctr;
	/* -1 while a grace period sleeps waiting for the domain's readers. */
	RCB__ATOMIC(int) futex;
} __attribute__((aligned(128)));

RCB_API extern struct rcb__dom_gp rcb__dom_gp[RCB__DOM_N];
RCB_API extern __thread struct rcb__dom_reader rcb__dom_reader[RCB__DOM_N]
	__attribute__((tls_model("initial-exec")));

RCB_API void rcb__dom_read_lock_slow(int dom);
RCB_API void rcb__dom_read_unlock_special(int dom);
RCB_API void rcb__dom_read_misuse(int dom, const char *call);

/* The memb kind's read side for domain @dom (a constant at every call,
 * so the record's address is one %fs-relative operand).  The same
 * instructions as rcb_read_lock() and rcb_read_unlock() (include/
 * rcuboost.h, whose comments give the pairings: [RD-A] here pairs with
 * [DG-A] and [DG-W] in src/core/domain.c, [RD-B] with [DG-B]). */
static inline void rcb__dom_read_lock(int dom)
{
	struct rcb__dom_reader *r = &rcb__dom_reader[dom];
	unsigned long tmp = rcb__ld_relaxed(&r->ctr);

	if (RCB_LIKELY(!(tmp & RCB__NEST_MASK))) {
		if (RCB_UNLIKELY(r->registered != RCB__DOMR_FAST)) {
			rcb__dom_read_lock_slow(dom);
			return;
		}
		rcb__tsan_acquire(&rcb__dom_gp[dom].ctr);
		rcb__st_relaxed(&r->ctr,
				rcb__ld_relaxed(&rcb__dom_gp[dom].ctr) +
					RCB__NEST_ONE);
		rcb__compiler_barrier(); /* [RD-A] */
	} else if (RCB_LIKELY((tmp + RCB__NEST_ONE) & RCB__NEST_MASK)) {
		rcb__st_relaxed(&r->ctr, tmp + RCB__NEST_ONE);
	} else {
		rcb__dom_read_misuse(dom, "read_lock"); /* depth would wrap */
	}
}

static inline void rcb__dom_read_unlock(int dom)
{
	struct rcb__dom_reader *r = &rcb__dom_reader[dom];
	unsigned long tmp = rcb__ld_relaxed(&r->ctr);

	if (RCB_LIKELY((tmp & RCB__NEST_MASK) == RCB__NEST_ONE)) {
		rcb__compiler_barrier(); /* [RD-B] */
		rcb__st_release(&r->ctr, 0); /* [RD-B] */
		rcb__compiler_barrier(); /* [RD-W] */
		/* A grace period asleep, the fence flavor, or a boost to
		 * give back (the thread's boost state lives in its default
		 * record, whichever domain it was boosted for). */
		if (RCB_UNLIKELY(rcb__ld_relaxed(&rcb__dom_gp[dom].futex) ==
					 -1 ||
				 r->registered != RCB__DOMR_FAST ||
				 (rcb__ld_relaxed(&rcb__reader.special) &
				  RCB__BOOST_STATE_MASK)))
			rcb__dom_read_unlock_special(dom);
	} else if (RCB_LIKELY(tmp & RCB__NEST_MASK)) {
		rcb__st_relaxed(&r->ctr, tmp - RCB__NEST_ONE);
	} else {
		rcb__dom_read_misuse(dom, "read_unlock"); /* unbalanced */
	}
}

static inline int rcb__dom_read_ongoing(int dom)
{
	return (rcb__ld_relaxed(&rcb__dom_reader[dom].ctr) & RCB__NEST_MASK) !=
	       0;
}

#ifdef __cplusplus
}
#endif

#endif /* RCUBOOST_DOMAIN_H */
