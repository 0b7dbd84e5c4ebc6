/* SPDX-License-Identifier: MIT */
/*
 * The domains besides the default one (src/core/domain.c) as the rest of
 * the library sees them: their grace-period state, and the booster's test
 * of whether a registered thread holds up a waiting grace period of any
 * domain.  Included at the end of core/internal.h, whose struct
 * rcb__thread it needs.
 */
#ifndef RCB_CORE_DOMAIN_H
#define RCB_CORE_DOMAIN_H

enum rcb__dom_kind { RCB__DOM_KIND_QSBR, RCB__DOM_KIND_MEMB };

struct rcb__dom {
	/* "qsbr", "bp", "mb", "signal": messages and the stall report. */
	const char *name;
	enum rcb__dom_kind kind;
	/* Serialises the domain's grace periods; priority inheritance and
	 * error checking, as the default domain's lock (gp.c). */
	pthread_mutex_t gp_lock;
	pthread_once_t once;
	/* Batching: as gp.c invariant 5. */
	_Atomic unsigned long long seq_started, seq_done;
	/* As rcb__gp_wait_start_ns: when the running grace period began to
	 * wait for readers, 0 when none waits.  Read by the booster. */
	_Atomic unsigned long long wait_start_ns;
};

extern struct rcb__dom rcb__doms[RCB__DOM_N];

void rcb__dom_thread_exit(void);
void rcb__dom_after_fork_child(void);
/* Register the calling thread with domain @d, or unregister it: 0,
 * -ENOENT (not registered), or rcb__register_self()'s error. */
int rcb__dom_register(int d);
int rcb__dom_unregister(int d);
/* A grace period of domain @d; @call names the caller for misuse
 * reports.  0 or -EDEADLK (misuse, reported). */
int rcb__dom_synchronize(int d, const char *call);
/* After a store to the caller's record of domain @d that may end its
 * hold: wake a sleeping grace period, give back a boost. */
void rcb__dom_after_store(int d);
/* qsbr.c: the calling thread's ctr in qsbr domain @d becomes @ctr (0:
 * offline), between full fences; rcb__qsbr_online(): back online. */
void rcb__qsbr_store(int d, unsigned long ctr);
void rcb__qsbr_online(int d);

/* Does a reader record's @ctr hold up grace period @gp of a domain of
 * kind @kind?  qsbr: online (non-zero) and not at @gp; memb: as the
 * default domain's test (inside a section begun before @gp). */
static inline bool rcb__dom_holds_ctr(enum rcb__dom_kind kind,
				      unsigned long ctr, unsigned long gp)
{
	return kind == RCB__DOM_KIND_QSBR ? ctr != 0 && ctr != gp :
					    rcb__holds_gp(ctr, gp);
}

/* Does thread @t hold up a waiting grace period of domain @d?  Relaxed
 * reads: the booster re-checks after [BST-M] before acting on a true. */
static inline bool rcb__dom_thread_holds(const struct rcb__thread *t, int d)
{
	struct rcb__dom_reader *r = rcb_load_relaxed(&t->dom[d]);

	return r && rcb_load_relaxed(&rcb__doms[d].wait_start_ns) &&
	       rcb__dom_holds_ctr(rcb__doms[d].kind, rcb_load_relaxed(&r->ctr),
				  rcb_load_relaxed(&rcb__dom_gp[d].ctr));
}

/* Does thread @t hold up a grace period that is waiting: the default
 * domain's numbered @gp (a section that began before it), or another
 * domain's?  The booster's test of whom to boost and keep boosted. */
static inline bool rcb__thread_holds(const struct rcb__thread *t,
				     unsigned long gp)
{
	if (rcb__holds_gp(rcb_load_relaxed(&t->rd->ctr), gp))
		return true;
	for (int d = 0; d < RCB__DOM_N; d++)
		if (rcb__dom_thread_holds(t, d))
			return true;
	return false;
}

/* The earliest start of waiting of any domain's grace period, 0 when
 * none waits. */
static inline unsigned long long rcb__wait_start_any(void)
{
	unsigned long long m = rcb_load_relaxed(&rcb__gp_wait_start_ns);

	for (int d = 0; d < RCB__DOM_N; d++) {
		unsigned long long s =
			rcb_load_relaxed(&rcb__doms[d].wait_start_ns);

		if (s && (!m || s < m))
			m = s;
	}
	return m;
}

#endif /* RCB_CORE_DOMAIN_H */
