/* SPDX-License-Identifier: MIT */
/*
 * The domains besides the default one (include/rcuboost/domain.h):
 * registration, grace periods, thread exit and fork.  The memb kind's
 * read side out of line is domain_read.c's; the qsbr kind's own calls
 * (quiescent states, online, offline) are qsbr.c's.
 *
 * Algorithm.  Each domain d has a counter rcb__dom_gp[d].ctr and, in
 * each thread, a record rcb__dom_reader[d].  A grace period advances the
 * counter and waits until no registered thread's record holds it
 * (rcb__dom_holds_ctr()): for the qsbr kind, until every online thread
 * has stored the new value (a quiescent state) or 0 (offline); for the
 * memb kind, until no reader is inside a section that began with an
 * older snapshot, exactly as the default domain's grace periods (gp.c
 * invariants 2 and 3).  The barriers around the counter advance and the
 * scans are full fences for the qsbr kind, whose quiescent states fence
 * too, and membarrier(2) for the memb kind, whose readers have compiler
 * barriers only (rcb__membarrier(): a fence in the fence flavor, whose
 * readers then fence on the slow path).
 *
 * The threads are found on the registry of the default domain
 * (registry.c): a domain registration puts the thread there too, so that
 * the booster, which walks that list, finds the threads that hold a
 * grace period of any domain up (rcb__thread_holds(), core/domain.h) and
 * boosts them with the same machines and backends as the default
 * domain's readers.  Their unboost comes with their next quiescent
 * state, offline call or outermost unlock.
 *
 * Invariants.
 *  1. Only the owning thread writes its records; only a grace period of
 *     domain d, under its gp_lock, writes rcb__dom_gp[d].ctr, which is
 *     never 0 (qsbr: odd; memb: a multiple of RCB__GP_STEP).
 *  2. t->dom[d] is non-NULL iff the thread is registered with domain d;
 *     it changes only under the registry lock, and while any is set the
 *     thread stays on the registry list (rcb_unregister_thread() leaves
 *     it there, registry.c), so a scan under the lock never reads a
 *     record of an exited thread.
 *  3. qsbr: a thread's ctr changes from one value to another only by a
 *     store between two full fences ([QS-A] before, [QS-W] after,
 *     qsbr.c), and the grace period advances the counter between two
 *     full fences ([DG-A] before, [DG-C] after, then the scans, then
 *     [DG-B]): a thread read holding the old value had not yet passed
 *     [QS-A], one read at the new value or 0 had passed it, so its
 *     references from before are dropped before the caller goes on.
 *     memb: gp.c invariants 2 and 3, with [DG-A]/[DG-B] as [GP-A]/[GP-B].
 *  4. rcb__dom_gp[d].futex is -1 only while a grace period may sleep; a
 *     quiescent state, offline call or outermost unlock that sees -1
 *     after its store wakes it ([QS-W] or [RD-W] against [DG-W],
 *     store buffering on both sides: full fences, or compiler barriers
 *     made full by the membarrier).
 *  5. Batching: as gp.c invariant 5, with seq_started/seq_done.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/hooks.h"
#include "core/internal.h"

RCB_API struct rcb__dom_gp rcb__dom_gp[RCB__DOM_MAX] = {
	[RCB__DOM_QSBR] = { .ctr = 1 },
	[RCB__DOM_BP] = { .ctr = RCB__GP_STEP },
	[RCB__DOM_MB] = { .ctr = RCB__GP_STEP },
	[RCB__DOM_SIGNAL] = { .ctr = RCB__GP_STEP },
};
RCB_API __thread struct rcb__dom_reader rcb__dom_reader[RCB__DOM_MAX]
	__attribute__((tls_model("initial-exec")));

#define LIB_DOM(id, nm, k)                                            \
	[id] = { .pub = { .rcb__id = id,                              \
			  .rcb__qsbr = k == RCB__DOM_KIND_QSBR },       \
		 .name = nm,                                          \
		 .kind = k,                                           \
		 .live = true }
struct rcb__dom rcb__doms[RCB__DOM_MAX] = {
	LIB_DOM(RCB__DOM_QSBR, "qsbr", RCB__DOM_KIND_QSBR),
	LIB_DOM(RCB__DOM_BP, "bp", RCB__DOM_KIND_MEMB),
	LIB_DOM(RCB__DOM_MB, "mb", RCB__DOM_KIND_MEMB),
	LIB_DOM(RCB__DOM_SIGNAL, "signal", RCB__DOM_KIND_MEMB),
};
_Atomic int rcb__dom_limit = RCB__DOM_N;
_Atomic int rcb__doms_waiting;

static pthread_once_t doms_once = PTHREAD_ONCE_INIT;

/* As gp.c: scans spun before sleeping, the sleep's re-check bound, and
 * tries of the grace-period lock before blocking. */
#define DOM_SPIN_SCANS 100
#define DOM_SLEEP_NS (10ull * 1000 * 1000)
#define DOM_LOCK_TRIES 64

static void dom_lock_init(struct rcb__dom *dom)
{
	/* Priority inheritance, as the default domain's lock: a real-time
	 * caller lends its priority to the grace period it waits behind. */
	int err = rcb__pi_errorcheck_mutex_init(&dom->gp_lock);

	if (err)
		RCB_DIE("pthread_mutex_init(domain gp, PRIO_INHERIT)", -err);
}

static void doms_init(void)
{
	for (int d = 0; d < RCB__DOM_MAX; d++)
		dom_lock_init(&rcb__doms[d]);
}

void rcb__doms_init_once(void)
{
	pthread_once(&doms_once, doms_init);
}

/* A full barrier on every CPU running a reader of @dom: a fence where
 * the readers fence (qsbr), membarrier(2) where they do not. */
static void dom_barrier(const struct rcb__dom *dom)
{
	if (dom->kind == RCB__DOM_KIND_QSBR)
		rcb_fence_seq_cst(); /* [DG-A], [DG-B], [DG-W]: callers' */
	else
		rcb__membarrier(); /* [DG-A], [DG-B], [DG-W]: callers' */
}

/* Wake a grace period of domain @d asleep waiting for its readers. */
static void dom_gp_wake(int d)
{
	int expect = -1;

	if (rcb_cmpxchg_relaxed(&rcb__dom_gp[d].futex, &expect, 0))
		rcb__futex_wake(&rcb__dom_gp[d].futex, 1);
}

/* The calling thread is inside no section of the default domain or of a
 * memb-kind domain. */
static bool outside_every_section(void)
{
	if (rcb_read_ongoing())
		return false;
	for (int d = 0; d < rcb_load_relaxed(&rcb__dom_limit); d++)
		if (rcb__doms[d].kind == RCB__DOM_KIND_MEMB &&
		    rcb__dom_read_ongoing(d))
			return false;
	return true;
}

/*
 * After a record's store that may end the thread's hold on domain @d:
 * wake a grace period asleep, and give back a boost that no section of
 * the thread still needs.  Context: the thread itself, after [QS-W] or
 * [RD-W].
 */
void rcb__dom_after_store(int d)
{
	if (RCB_UNLIKELY(rcb_load_relaxed(&rcb__dom_gp[d].futex) == -1))
		dom_gp_wake(d);
	/* The boost check: one load and a predicted branch.  A boost lent
	 * for a section still running elsewhere stays until its end. */
	if (RCB_UNLIKELY(rcb__bstate_relaxed(&rcb__reader) != 0) &&
	    outside_every_section())
		rcb__boost_hooks.unlock_unboost();
}

int rcb__dom_register(int d)
{
	struct rcb__thread *self = rcb__self();
	struct rcb__dom_reader *r = &rcb__dom_reader[d];
	bool was_listed;
	int err;

	if (r->registered)
		return 0;
	if ((err = rcb__ensure_init()) != 0)
		return err;
	rcb__doms_init_once();
	was_listed = self->registered;
	if ((err = rcb__register_self()) != 0)
		return err;
	pthread_mutex_lock(&rcb__registry_lock);
	if (!self->dom_regs)
		self->dom_own_reg = !was_listed;
	self->dom_regs |= 1u << d;
	rcb_store_relaxed(&self->dom[d], r);
	rcb_add_relaxed(&rcb__doms[d].nregs, 1);
	r->registered =
		rcb__doms[d].kind == RCB__DOM_KIND_MEMB &&
				rcb__settings.flavor == RCB_FLAVOR_MEMBARRIER ?
			RCB__DOMR_FAST :
			RCB__DOMR_REG;
	pthread_mutex_unlock(&rcb__registry_lock);
	return 0;
}

/* Off domain @d's list (invariant 2).  @leave: and off the registry when
 * no registration holds the thread there any more. */
static void dom_unlist(int d, bool leave)
{
	struct rcb__thread *self = rcb__self();
	bool last;

	/* Callbacks the thread runs itself go before it leaves: nobody
	 * else would. */
	rcb__cb_hooks.dom_leave(d);
	pthread_mutex_lock(&rcb__registry_lock);
	rcb_store_relaxed(&self->dom[d], NULL);
	rcb__dom_reader[d].registered = 0;
	self->dom_regs &= ~(1u << d);
	rcb_add_relaxed(&rcb__doms[d].nregs, -1);
	last = !self->dom_regs && (self->dom_own_reg || self->memb_left);
	if (!self->dom_regs)
		self->dom_own_reg = self->memb_left = false;
	pthread_mutex_unlock(&rcb__registry_lock);
	/* The default domain's registration, if only domains made it (or
	 * rcb_unregister_thread() left it to us: registry.c). */
	if (leave && last && !rcb_read_ongoing())
		rcb__registry_leave_self();
}

int rcb__dom_unregister(int d)
{
	struct rcb__dom_reader *r = &rcb__dom_reader[d];

	if (!r->registered)
		return -ENOENT;
	if (rcb__doms[d].kind == RCB__DOM_KIND_QSBR &&
	    rcb_load_relaxed(&r->ctr))
		rcb__qsbr_store(d, 0);
	dom_unlist(d, true);
	return 0;
}

/* True if some registered thread still holds grace period @gp of domain
 * @d.  Context: the grace-period leader. */
static bool readers_hold(int d, unsigned long gp)
{
	enum rcb__dom_kind kind = rcb__doms[d].kind;
	struct rcb__thread *t;
	bool held = false;

	pthread_mutex_lock(&rcb__registry_lock);
	rcb__for_each_thread(t)
	{
		struct rcb__dom_reader *r = rcb_load_relaxed(&t->dom[d]);

		if (r &&
		    rcb__dom_holds_ctr(kind, rcb_load_relaxed(&r->ctr), gp)) {
			held = true;
			break;
		}
		/* The edge [RD-B] -> [DG-B] that membarrier provides. */
		if (r)
			rcb__tsan_acquire(&r->ctr);
	}
	pthread_mutex_unlock(&rcb__registry_lock);
	return held;
}

/* Has domain @d's callback backlog reached its pressure threshold
 * (rcb_domain_attr.pressure_callbacks)? */
static bool dom_pressured(const struct rcb__dom *dom)
{
	unsigned long limit = rcb_load_relaxed(&dom->pressure_callbacks);

	return limit && rcb_load_relaxed(&dom->backlog) >= (long)limit;
}

/* Wait until no thread holds @gp of domain @d: spin, then sleep on the
 * futex.  The booster is kicked when the spin ends, as by the default
 * domain's grace periods; an @expedited or inheriting leader asks the
 * boosters to lend its level to the holders at once (src/core/
 * inherit.c, src/boost/expedite.c), and a leader whose domain is under
 * callback pressure turns expedited.  Context: leader, the domain's
 * gp_lock held. */
static void wait_for_readers(int d, unsigned long gp, bool expedited)
{
	struct rcb__dom *dom = &rcb__doms[d];
	unsigned long long start = rcb__now_ns();
	int lent = 0;

	rcb_add_relaxed(&rcb__doms_waiting, 1);
	rcb_store_relaxed(&dom->wait_start_ns, start);
	for (int scan = 0;; scan++) {
		if (scan == DOM_SPIN_SCANS)
			rcb__boost_hooks.kick();
		if (scan >= DOM_SPIN_SCANS) {
			rcb_store_relaxed(&rcb__dom_gp[d].futex, -1);
			/* [DG-W] The futex store before the scan.  Pairs
			 * with [QS-W] and [RD-W] (invariant 4). */
			dom_barrier(dom);
		}
		if (!readers_hold(d, gp))
			break;
		if (!expedited && dom_pressured(dom))
			expedited = true;
		/* At once, then after each [DG-W]. */
		if ((scan == 0 || scan >= DOM_SPIN_SCANS) &&
		    (expedited || rcb__settings.inherit) &&
		    rcb__dom_boosts(d)) {
			int level = rcb__dom_loan_level(expedited, start);

			if (level > lent) {
				lent = level;
				rcb__boost_hooks.dom_expedite_request(d, gp,
								      level);
			}
		}
		if (scan < DOM_SPIN_SCANS) {
			rcb_cpu_relax();
			continue;
		}
		rcb__futex_wait(&rcb__dom_gp[d].futex, -1, DOM_SLEEP_NS);
		/* A stall report at most once per grace period. */
		rcb__diag_hooks.dom_stall_check(d, gp, start);
	}
	if (lent)
		rcb__boost_hooks.dom_expedite_end(d);
	rcb_store_relaxed(&rcb__dom_gp[d].futex, 0);
	rcb_store_relaxed(&dom->wait_start_ns, 0);
	rcb_add_relaxed(&rcb__doms_waiting, -1);
}

/*
 * Is a thread other than the caller registered with domain @d?  If not,
 * no section of the domain can be in progress anywhere and a grace period
 * has nothing to wait for and nobody to order (as gp.c invariant 7:
 * [DG-N] the registry lock orders this look against every registration,
 * which a thread makes before its first section, and every
 * unregistration, which follows its last).
 */
static bool others_registered(int d)
{
	struct rcb__thread *t, *self = rcb__self();
	bool any = false;

	pthread_mutex_lock(&rcb__registry_lock); /* [DG-N] */
	rcb__for_each_thread(t) {
		if (t != self && rcb_load_relaxed(&t->dom[d])) {
			any = true;
			break;
		}
	}
	pthread_mutex_unlock(&rcb__registry_lock);
	return any;
}

/* Advance domain @d's counter for a new grace period, after [DG-A]: the
 * counter value its readers must pass.  Context: its gp_lock held. */
static unsigned long dom_advance(int d)
{
	struct rcb__dom *dom = &rcb__doms[d];
	unsigned long gp;

	/* [DG-A] The caller's unpublishing before the advance and the
	 * scans.  Pairs with [QS-O] and [QS-A] (qsbr.c), [RD-A]
	 * (include/rcuboost/domain.h). */
	dom_barrier(dom);
	rcb__tsan_release(&rcb__dom_gp[d].ctr); /* the edge [DG-A] -> [RD-A] */
	gp = rcb_load_relaxed(&rcb__dom_gp[d].ctr) +
	     (dom->kind == RCB__DOM_KIND_QSBR ? 2 : RCB__GP_STEP);
	rcb_store_relaxed(&rcb__dom_gp[d].ctr, gp);
	/* [DG-C] The advance before the scans: a thread that comes online
	 * or begins a section after a scan missed it reads the new value
	 * or is ordered after [DG-A].  Pairs with [QS-O] and [RD-A]. */
	rcb_fence_seq_cst();
	return gp;
}

/* One grace period of domain @d.  Context: its gp_lock held. */
static void dom_grace_period(int d, bool expedited)
{
	struct rcb__dom *dom = &rcb__doms[d];
	unsigned long gp;

	/* A try's grace period in flight is overtaken by this one. */
	dom->attempt_pending = false;
	if (!others_registered(d))
		return;

	gp = dom_advance(d);
	wait_for_readers(d, gp, expedited);
	/* [DG-B] The scans that saw every thread past its quiescent state
	 * or out of its old section, before what the caller does next
	 * (the free).  Pairs with [QS-A] and [RD-B]. */
	dom_barrier(dom);
}

int rcb__dom_synchronize(int d, const char *call, bool expedited)
{
	struct rcb__dom *dom = &rcb__doms[d];
	struct rcb__dom_reader *me = &rcb__dom_reader[d];
	unsigned long long snap;
	bool was_online = false;
	int err;

	if (dom->kind == RCB__DOM_KIND_MEMB &&
	    RCB_UNLIKELY(rcb__dom_read_ongoing(d))) {
		rcb__misuse(
			call,
			"called inside a read-side critical section of the %s "
			"domain; it would wait for itself forever",
			dom->name);
		return -EDEADLK;
	}
	if ((err = rcb__ensure_init()) != 0)
		return err;
	rcb__doms_init_once();
	if (dom->kind == RCB__DOM_KIND_QSBR) {
		was_online = rcb_load_relaxed(&me->ctr) != 0;
		if (was_online)
			rcb__qsbr_store(
				d, 0); /* as liburcu: the caller is offline */
	}
	/* [DG-S] Our accesses before the read of the started count, as
	 * [GP-S] in gp.c.  Pairs with the leader's unlock. */
	rcb_fence_seq_cst();
	snap = rcb_load_relaxed(&dom->seq_started);
	/* As gp.c: a few tries before blocking, since a grace period with
	 * nobody to wait for holds the lock for well under a microsecond
	 * and blocking on a PI mutex is a system call and a hand-over. */
	err = pthread_mutex_trylock(&dom->gp_lock);
	for (int i = 0; err == EBUSY && i < DOM_LOCK_TRIES; i++) {
		rcb_cpu_relax();
		err = pthread_mutex_trylock(&dom->gp_lock);
	}
	if (err == EBUSY)
		err = pthread_mutex_lock(&dom->gp_lock);
	if (err == EDEADLK) {
		rcb__misuse(
			call,
			"called from a signal handler that interrupted this thread's own "
			"grace period; it would wait for itself forever");
		if (was_online)
			rcb__qsbr_online(d);
		return -EDEADLK;
	}
	if (err)
		RCB_DIE("pthread_mutex_lock(domain gp)", err);
	if (rcb_load_relaxed(&dom->seq_done) < snap + 1) {
		rcb_store_relaxed(&dom->seq_started,
				  rcb_load_relaxed(&dom->seq_started) + 1);
		dom_grace_period(d, expedited || rcb__settings.expedited);
		/* [DG-D] The grace period ([DG-B]) is complete before a
		 * lock-free poller sees it counted.  Pairs with [DG-PD]. */
		rcb_store_release(&dom->seq_done,
				  rcb_load_relaxed(&dom->seq_started));
	}
	pthread_mutex_unlock(&dom->gp_lock);
	/* [DG-E] A batched caller's later accesses follow the leader's
	 * [DG-B] (the lock's acquire), made a full barrier.  Pairs with
	 * [DG-B]. */
	rcb_fence_seq_cst();
	if (was_online)
		rcb__qsbr_online(d);
	return 0;
}

unsigned long long rcb__dom_cookie(int d)
{
	/* [DG-PS] As [DG-S]: the caller's accesses before the read of the
	 * started count, so a grace period numbered higher began after
	 * them.  Pairs with the leader's [DG-A], which follows its count. */
	rcb_fence_seq_cst();
	return rcb_load_relaxed(&rcb__doms[d].seq_started) + 1;
}

bool rcb__dom_cookie_done(int d, unsigned long long cookie)
{
	/* [DG-PD] pairs with [DG-D]: the caller's later accesses (the
	 * callbacks' frees) follow that grace period's [DG-B]. */
	return rcb_load_acquire(&rcb__doms[d].seq_done) >= cookie;
}

/*
 * A grace period of domain @d that never blocks: it takes the grace-
 * period lock only if it is free, and scans once.  A scan that finds a
 * reader holding it leaves the grace period in flight (attempt_pending):
 * the next try scans again for the same counter value instead of
 * advancing it again, so a stream of tries costs the readers one
 * [DG-A] per grace period, not one per try.  The number is counted done
 * only once a scan found nobody holding it, after [DG-B].
 */
bool rcb__dom_try_gp(int d, unsigned long long cookie)
{
	struct rcb__dom *dom = &rcb__doms[d];

	if (rcb__dom_cookie_done(d, cookie))
		return true;
	if (dom->kind == RCB__DOM_KIND_MEMB && rcb__dom_read_ongoing(d))
		return false; /* the caller would hold it */
	rcb__doms_init_once();
	if (pthread_mutex_trylock(&dom->gp_lock) != 0)
		return false;
	if (rcb_load_relaxed(&dom->seq_done) < cookie) {
		if (!dom->attempt_pending) {
			dom->attempt_seq =
				rcb_load_relaxed(&dom->seq_started) + 1;
			rcb_store_relaxed(&dom->seq_started,
					  dom->attempt_seq);
			if (others_registered(d)) {
				dom->attempt_gp = dom_advance(d);
				dom->attempt_pending = true;
			} else {
				/* [DG-D] as in rcb__dom_synchronize(). */
				rcb_store_release(&dom->seq_done,
						  dom->attempt_seq);
			}
		}
		if (dom->attempt_pending && !readers_hold(d, dom->attempt_gp)) {
			/* [DG-B] as in dom_grace_period(). */
			dom_barrier(dom);
			dom->attempt_pending = false;
			/* [DG-D] as in rcb__dom_synchronize(). */
			rcb_store_release(&dom->seq_done, dom->attempt_seq);
		}
	}
	pthread_mutex_unlock(&dom->gp_lock);
	return rcb__dom_cookie_done(d, cookie);
}

/* The thread exits still registered (registry.c's thread_exit()): out
 * of every domain, so that no grace period waits for it and no scan
 * reads its records after they are gone.  A thread online in a qsbr
 * domain is reported once per process (programs that never unregister
 * their threads would otherwise print at every exit); one inside a
 * section, every time, as the default domain's. */
void rcb__dom_thread_exit(void)
{
	for (int d = 0; d < rcb_load_relaxed(&rcb__dom_limit); d++) {
		struct rcb__dom_reader *r = &rcb__dom_reader[d];
		unsigned long ctr = rcb_load_relaxed(&r->ctr);

		if (!r->registered)
			continue;
		if (rcb__doms[d].kind == RCB__DOM_KIND_QSBR && ctr) {
			static _Atomic bool reported;

			if (!rcb_xchg_relaxed(&reported, true))
				rcb__misuse(
					"thread exit",
					"thread exits online in the %s domain without "
					"unregistering; unregistering it (said once per "
					"process)",
					rcb__doms[d].name);
			rcb__qsbr_store(d, 0);
		} else if (rcb__doms[d].kind == RCB__DOM_KIND_MEMB &&
			   (ctr & RCB__NEST_MASK)) {
			rcb__misuse(
				"thread exit",
				"thread exits inside a read-side critical section of the "
				"%s domain (nesting %lu); ending it",
				rcb__doms[d].name, ctr & RCB__NEST_MASK);
			/* [REG-X] pairs with [DG-B] */
			rcb_store_release(&r->ctr, 0);
			/* [REG-XW] As [RD-W].  Pairs with [DG-W]. */
			rcb_fence_seq_cst();
			rcb__dom_after_store(d);
		}
		dom_unlist(d, false);
	}
}

/* fork(): the child's one thread keeps its registrations and state; a
 * grace period in flight in the parent is abandoned (its counter advance
 * is harmless: the next one advances again). */
void rcb__dom_after_fork_child(void)
{
	/* The parent's waiting grace periods are not the child's. */
	rcb_store_relaxed(&rcb__doms_waiting, 0);
	for (int d = 0; d < RCB__DOM_MAX; d++) {
		rcb_store_relaxed(&rcb__dom_gp[d].futex, 0);
		rcb_store_relaxed(&rcb__doms[d].wait_start_ns, 0);
		rcb__doms[d].attempt_pending = false;
		/* Only the forking thread's registrations remain. */
		rcb_store_relaxed(&rcb__doms[d].nregs,
				  rcb__dom_reader[d].registered ? 1 : 0);
		dom_lock_init(&rcb__doms[d]);
	}
}
