/* SPDX-License-Identifier: MIT */
/*
 * rcuboost/domain.h - grace-period domains of the program's own
 * (rcuboost-domain(3)).
 *
 * A domain has its own grace periods, callbacks and boost policy: a
 * grace period of one domain never waits for the sections of another.
 * A domain whose readers block for I/O can leave boosting off while a
 * domain of real-time readers boosts them after a delay of its own, and a
 * domain's callbacks can run in the thread that queued them, at points it
 * chooses (rcb_domain_poll()), instead of on a callback thread.  The
 * default domain (rcb_read_lock(), rcb_synchronize()...) is not one of
 * them and is unchanged.
 *
 *   rcb_domain_create(), rcb_domain_destroy()
 *   rcb_domain_read_lock(), rcb_domain_read_unlock(), rcb_domain_read_ongoing()
 *   rcb_domain_synchronize(), rcb_domain_synchronize_expedited()
 *   rcb_domain_call(), rcb_domain_barrier(), rcb_domain_poll()
 *   rcb_domain_start_poll(), rcb_domain_poll_state()
 *   qsbr kind: rcb_domain_register_thread(), rcb_domain_unregister_thread(),
 *     rcb_domain_quiescent_state(), rcb_domain_thread_offline(),
 *     rcb_domain_thread_online()
 *
 * The second half of the file is the inline read side's implementation
 * detail, shared with <rcuboost/qsbr.h> and the liburcu flavor headers
 * (<rcuboost/urcu_bp.h>, <rcuboost/urcu_mb.h>, <rcuboost/urcu_signal.h>):
 * not API, may change.
 */
#ifndef RCUBOOST_DOMAIN_H
#define RCUBOOST_DOMAIN_H

#include <stdint.h>

#include <rcuboost.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- API ------------------------------------------------------------ */

/* The read side of a domain. */
enum rcb_domain_kind {
	/* The default domain's read side: a snapshot and compiler barriers
	 * per outermost section; grace periods use membarrier(2).  Threads
	 * need no registration (the first section registers). */
	RCB_DOMAIN_MEMB = 0,
	/* liburcu qsbr's: sections are no code; registered threads are
	 * online and report quiescent states (rcuboost-qsbr(3)). */
	RCB_DOMAIN_QSBR = 1,
};

/* rcb_domain_attr.flags */
/* Callbacks run in the thread that queued them, from its
 * rcb_domain_poll(), rcb_domain_barrier() and later rcb_domain_call()s,
 * and when it unregisters or exits (Concurrency Kit's ck_epoch_poll()
 * model); without it, on a callback thread of the domain. */
#define RCB_DOMAIN_OWNER_CALLBACKS 0x1u

struct rcb_domain_attr {
	size_t size; /* sizeof(struct rcb_domain_attr), or 0 */
	enum rcb_domain_kind kind;
	/* 1 on, -1 off, 0 as the library (rcb_init()). */
	int boost;
	/* A reader that holds a grace period of this domain is queued for
	 * boosting only once the grace period has waited this long (and at
	 * least the library's boost period); 0: the library's. */
	unsigned int boost_delay_ms;
	unsigned int flags; /* RCB_DOMAIN_* */
	/* The SCHED_FIFO priority a thread is boosted to when only this
	 * domain's grace periods (or only those of domains with a reader
	 * priority of their own: the highest) have it boosted, escalation
	 * and expedited grace periods included; 1-98, never above the
	 * library's levels; 0: the library's (RCUBOOST_READER_PRIO). */
	int reader_prio;
	/* Callbacks queued on the domain's callback thread and not yet run
	 * from which its grace periods are expedited (their holders boosted
	 * at once); 0: never. */
	unsigned long pressure_callbacks;
};

/* sizeof(struct rcb_domain_attr) in its first layout (1.0). */
#define RCB_DOMAIN_ATTR_SIZE_V1 40

/* Handle; the member is the inline read side's. */
struct rcb_domain {
	int rcb__id;
	int rcb__qsbr;
};

/* rcb_domain_create - a new domain with @attr (NULL: a memb domain,
 * boosting as the library, callbacks on a callback thread) into *@out.
 * Returns 0, -EINVAL (a bad size or field), -E2BIG (a later layout's
 * field set), -ENOSPC (RCB_DOMAIN_MAX domains exist), or rcb_init()'s
 * error. */
#define RCB_DOMAIN_MAX 12
RCB_API int rcb_domain_create(struct rcb_domain **out,
			      const struct rcb_domain_attr *attr);

/* rcb_domain_destroy - end domain @d: its callback thread's callbacks
 * run first.  Every thread must have left it: a memb domain's readers
 * stay registered from their first section until they exit or call
 * rcb_domain_unregister_thread(), an owner-run domain's callers from
 * their first call.  Returns 0, -EBUSY (a thread is still registered:
 * nothing done, reported), -EDEADLK (from a domain's callback), or
 * -EINVAL (not a live domain). */
RCB_API int rcb_domain_destroy(struct rcb_domain *d);

static inline void rcb_domain_read_lock(struct rcb_domain *d);
static inline void rcb_domain_read_unlock(struct rcb_domain *d);
static inline int rcb_domain_read_ongoing(struct rcb_domain *d);

/* rcb_domain_synchronize - a grace period of @d: waits for @d's
 * sections begun before (memb), or for every thread online in @d to
 * pass a quiescent state (qsbr; an online caller is offline while it
 * waits).  Returns 0 or -EDEADLK (inside one of @d's sections). */
RCB_API int rcb_domain_synchronize(struct rcb_domain *d);

/* rcb_domain_synchronize_expedited - as rcb_domain_synchronize(), the
 * threads holding the grace period boosted at once, without the boost
 * delay (a domain with boosting off: a plain grace period). */
RCB_API int rcb_domain_synchronize_expedited(struct rcb_domain *d);

/* rcb_domain_call - @func(@head) after a grace period of @d: on the
 * domain's callback thread, or (RCB_DOMAIN_OWNER_CALLBACKS) in the
 * calling thread, later.  Returns 0, -EINVAL (NULL), -EAGAIN (no
 * callback thread could start: queued).  A macro over an inline append
 * for owner-run domains; (rcb_domain_call) is the function. */
RCB_API int rcb_domain_call(struct rcb_domain *d, struct rcb_head *head,
			    void (*func)(struct rcb_head *head));

/* rcb_domain_barrier - wait until the callbacks queued before have run:
 * every thread's, or (RCB_DOMAIN_OWNER_CALLBACKS) the calling thread's,
 * run here.  Returns 0 or -EDEADLK (inside a section of @d, or from a
 * callback of @d's callback thread). */
RCB_API int rcb_domain_barrier(struct rcb_domain *d);

/* rcb_domain_start_poll - a cookie naming a grace period of @d that
 * begins after the call, and make sure one runs (the caller's own when
 * it is alone in the domain, else the domain's callback thread's).
 * Full barrier before the snapshot.  Any thread, also in a section;
 * never blocks but for the callback thread's start.  0 for a handle
 * that is not a live domain (reported). */
RCB_API uint64_t rcb_domain_start_poll(struct rcb_domain *d);

/* rcb_domain_poll_state - has that grace period of @d ended?  1 (yes,
 * ordered as a return from rcb_domain_synchronize()), 0 (not yet), or
 * -EINVAL (a cookie from the future, a dead handle: reported).  Any
 * thread, also in a section; wait-free. */
RCB_API int rcb_domain_poll_state(struct rcb_domain *d, uint64_t cookie);

/* rcb_domain_poll - RCB_DOMAIN_OWNER_CALLBACKS: run the calling thread's
 * callbacks whose grace period has ended, and start or advance a grace
 * period for the others when enough are waiting; never blocks.  Returns
 * the number of callbacks run (0 for a domain without the flag). */
RCB_API int rcb_domain_poll(struct rcb_domain *d);

/* The qsbr kind (rcuboost-qsbr(3) for the contract).  Registration:
 * 0, or -ENOENT / -EBUSY (unregister: not registered / inside a section).
 * On a memb domain they are its optional registration and no-ops. */
RCB_API int rcb_domain_register_thread(struct rcb_domain *d);
RCB_API int rcb_domain_unregister_thread(struct rcb_domain *d);
RCB_API void rcb_domain_thread_offline(struct rcb_domain *d);
RCB_API void rcb_domain_thread_online(struct rcb_domain *d);
static inline void rcb_domain_quiescent_state(struct rcb_domain *d);

/* ---- Implementation detail (inline read side): not API, may change -- */

/* The library's domains (qsbr's, then one per liburcu memb-class
 * flavor), then the slots of rcb_domain_create()'s. */
enum { RCB__DOM_QSBR, RCB__DOM_BP, RCB__DOM_MB, RCB__DOM_SIGNAL, RCB__DOM_N };
#define RCB__DOM_MAX (RCB__DOM_N + RCB_DOMAIN_MAX)

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

RCB_API extern struct rcb__dom_gp rcb__dom_gp[RCB__DOM_MAX];
RCB_API extern __thread struct rcb__dom_reader rcb__dom_reader[RCB__DOM_MAX]
	__attribute__((tls_model("initial-exec")));

RCB_API void rcb__dom_read_lock_slow(int dom);
RCB_API void rcb__dom_read_unlock_special(int dom);
RCB_API void rcb__dom_read_misuse(int dom, const char *call);
RCB_API void rcb__dom_quiescent_slow(int dom, unsigned long gp);

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

/* The qsbr kind's quiescent state: two loads and a branch when no grace
 * period of the domain began since the last one. */
static inline void rcb__dom_quiescent_state(int dom)
{
	unsigned long gp = rcb__ld_relaxed(&rcb__dom_gp[dom].ctr);

	if (RCB_LIKELY(gp == rcb__ld_relaxed(&rcb__dom_reader[dom].ctr)))
		return;
	rcb__dom_quiescent_slow(dom, gp);
}

/* A thread's owner-run callbacks of one domain (src/callback/
 * dom_owner.c, whose invariants hold them): "next" is a list through
 * rcb_head.next not yet given a grace period, *next_tailp its end,
 * next_n its length; "wait" the batch waiting for grace period
 * "cookie".  ready_for is the domain's handle once the thread may
 * append inline.  64 bytes, so that indexing is a shift. */
struct rcb__dom_own {
	struct rcb_domain *ready_for;
	RCB__ATOMIC(struct rcb_head *) *next_tailp;
	unsigned long next_n;
	RCB__ATOMIC(struct rcb_head *) next; /* atomic only for its type */
	unsigned long long next_since_ns;
	struct rcb_head *wait;
	unsigned long long cookie;
	unsigned long rcb__reserved;
};

/* Callbacks worth a grace period. */
#define RCB__OWN_BATCH 16384

/* The thread's RCB__DOM_MAX lists, allocated at its first owner-run
 * call (a TLS array would take 1 KiB of every thread's static TLS,
 * which dlopen() may not find). */
RCB_API extern __thread struct rcb__dom_own *rcb__dom_own
	__attribute__((tls_model("initial-exec")));

/* Everything rcb__domain_call() does not do inline. */
RCB_API int rcb__domain_call_slow(struct rcb_domain *d, struct rcb_head *head,
				  void (*func)(struct rcb_head *head));

/* rcb_domain_call(): on a domain with owner-run callbacks whose lists
 * the thread has, an append to them with no call, so that the cost per
 * callback is ck_epoch_call()'s; the checks it skips are implied by
 * ready_for == @d (dom_owner.c invariant 2).  A list about to fill (a
 * grace period to ask for), and every other case, go out of line. */
static inline int rcb__domain_call(struct rcb_domain *d, struct rcb_head *head,
				   void (*func)(struct rcb_head *head))
{
	struct rcb__dom_own *own = rcb__dom_own;

	if (RCB_LIKELY(own && d && head && func)) {
		unsigned int i = (unsigned int)d->rcb__id;

		if (RCB_LIKELY(i < RCB__DOM_MAX && own[i].ready_for == d &&
			       own[i].next_n < RCB__OWN_BATCH - 1)) {
			head->func = func;
			rcb__st_relaxed(&head->next, (struct rcb_head *)0);
			rcb__st_relaxed(own[i].next_tailp, head);
			own[i].next_tailp = &head->next;
			own[i].next_n++;
			return 0;
		}
	}
	return rcb__domain_call_slow(d, head, func);
}
#define rcb_domain_call(d, head, func) rcb__domain_call(d, head, func)

static inline void rcb_domain_read_lock(struct rcb_domain *d)
{
	if (!d->rcb__qsbr)
		rcb__dom_read_lock(d->rcb__id);
}

static inline void rcb_domain_read_unlock(struct rcb_domain *d)
{
	if (!d->rcb__qsbr)
		rcb__dom_read_unlock(d->rcb__id);
}

/* qsbr kind: 1 while the thread is online. */
static inline int rcb_domain_read_ongoing(struct rcb_domain *d)
{
	return d->rcb__qsbr ?
		       rcb__ld_relaxed(&rcb__dom_reader[d->rcb__id].ctr) != 0 :
		       rcb__dom_read_ongoing(d->rcb__id);
}

static inline void rcb_domain_quiescent_state(struct rcb_domain *d)
{
	if (d->rcb__qsbr)
		rcb__dom_quiescent_state(d->rcb__id);
}

#ifdef __cplusplus
}
#endif

#endif /* RCUBOOST_DOMAIN_H */
