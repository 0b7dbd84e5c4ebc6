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
	/* The handle rcb_domain_create() returns (id, kind). */
	struct rcb_domain pub;
	/* "qsbr", "bp", "mb", "signal", "domain N": messages and the stall
	 * report. */
	const char *name;
	char name_buf[16];
	enum rcb__dom_kind kind;
	/* A created domain's slot is in use (domain_api.c); the library's
	 * are always. */
	_Atomic bool live;
	/* Policy (struct rcb_domain_attr): boost -1 off, else as the
	 * library; boost_delay_ns: a grace period waits at least this long
	 * before its readers are queued for boosting; RCB_DOMAIN_* flags.
	 * Atomic: the boosters read them while rcb_domain_create() fills a
	 * slot that a destroyed domain left. */
	_Atomic int boost;
	_Atomic unsigned long long boost_delay_ns;
	unsigned int flags;
	/* reader_prio: 0, or the level its holders are capped at (boost/
	 * booster_pass.c); pressure_callbacks: 0, or the backlog (callbacks
	 * on the callback thread, counted only then) from which its grace
	 * periods are expedited. */
	_Atomic int reader_prio;
	_Atomic unsigned long pressure_callbacks;
	_Atomic long backlog;
	/* Serialises the domain's grace periods; priority inheritance and
	 * error checking, as the default domain's lock (gp.c). */
	pthread_mutex_t gp_lock;
	pthread_once_t once;
	/* Batching: as gp.c invariant 5. */
	_Atomic unsigned long long seq_started, seq_done;
	/* As rcb__gp_wait_start_ns: when the running grace period began to
	 * wait for readers, 0 when none waits.  Read by the booster. */
	_Atomic unsigned long long wait_start_ns;
	/* Threads registered with the domain (a hint: the authority is the
	 * registry, under its lock). */
	_Atomic int nregs;
	/* rcb__dom_try_gp(): a grace period numbered attempt_seq, counter
	 * attempt_gp, advanced and not yet seen complete.  Under gp_lock. */
	bool attempt_pending;
	unsigned long attempt_gp;
	unsigned long long attempt_seq;
};

extern struct rcb__dom rcb__doms[RCB__DOM_MAX];
/* 1 + the highest slot ever used: the bound of every loop over the
 * domains (slots above it were never live). */
extern _Atomic int rcb__dom_limit;
/* Grace periods of these domains now waiting for readers: the
 * boosters' loops over the domains run only while it is not 0, so that
 * the default domain's boosting costs what it did before they existed.
 * A hint, as wait_start_ns: raised before the wait starts. */
extern _Atomic int rcb__doms_waiting;

/* The bound of the boosters' loops over the domains: 0 while none
 * waits. */
static inline int rcb__doms_to_scan(void)
{
	return rcb_load_relaxed(&rcb__doms_waiting) ?
		       rcb_load_relaxed(&rcb__dom_limit) :
		       0;
}

/* Does domain @d boost its readers? */
static inline bool rcb__dom_boosts(int d)
{
	return rcb_load_relaxed(&rcb__doms[d].boost) >= 0;
}

void rcb__dom_thread_exit(void);
/* The domains' grace-period locks, once. */
void rcb__doms_init_once(void);
void rcb__dom_after_fork_child(void);
/* Register the calling thread with domain @d, or unregister it: 0,
 * -ENOENT (not registered), or rcb__register_self()'s error. */
int rcb__dom_register(int d);
int rcb__dom_unregister(int d);
/* A grace period of domain @d; @call names the caller for misuse
 * reports; @expedited: its holders boosted at once (also with
 * RCUBOOST_EXPEDITED).  0 or -EDEADLK (misuse, reported). */
int rcb__dom_synchronize(int d, const char *call, bool expedited);
/* Polled grace periods of domain @d, for owner-run callbacks
 * (src/callback/dom_owner.c): a cookie that a grace period begun after
 * the caller's earlier accesses satisfies; whether it is satisfied; and
 * a try that never blocks (true: satisfied, the caller's later accesses
 * ordered after that grace period). */
unsigned long long rcb__dom_cookie(int d);
bool rcb__dom_cookie_done(int d, unsigned long long cookie);
bool rcb__dom_try_gp(int d, unsigned long long cookie);
/* After a store to the caller's record of domain @d that may end its
 * hold: wake a sleeping grace period, give back a boost. */
void rcb__dom_after_store(int d);
/* qsbr.c: the calling thread's ctr in qsbr domain @d becomes @ctr (0:
 * offline), between full fences; rcb__qsbr_online(): back online. */
void rcb__qsbr_store(int d, unsigned long ctr);
void rcb__qsbr_online(int d);
/* qsbr.c: register (and go online), offline and online for domain @d,
 * the last two reporting a thread not registered, as @call. */
int rcb__qsbr_register(int d);
void rcb__qsbr_offline(int d, const char *call);
void rcb__qsbr_online_checked(int d, const char *call);

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

	return r && rcb__dom_boosts(d) &&
	       rcb_load_relaxed(&rcb__doms[d].wait_start_ns) &&
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
	int n = rcb__doms_to_scan();

	for (int d = 0; d < n; d++)
		if (rcb__dom_thread_holds(t, d))
			return true;
	return false;
}

/* The earliest start of waiting of a grace period of any domain that
 * boosts, 0 when none waits. */
static inline unsigned long long rcb__wait_start_any(void)
{
	unsigned long long m = rcb_load_relaxed(&rcb__gp_wait_start_ns);
	int n = rcb__doms_to_scan();

	for (int d = 0; d < n; d++) {
		if (!rcb__dom_boosts(d))
			continue;
		unsigned long long s =
			rcb_load_relaxed(&rcb__doms[d].wait_start_ns);

		if (s && (!m || s < m))
			m = s;
	}
	return m;
}

#endif /* RCB_CORE_DOMAIN_H */
