/*
 * boost3.pml -- the implemented 3-state boost machine (src/boost.c,
 * src/booster.c, rcb_read_unlock() in include/rcuboost.h), including the
 * userspace addition: the booster's on-behalf queueing of preempted
 * readers, verified after a membarrier and reverted if the reader left.
 *
 * article: "RCU Explicit Priority Boosting" (the recommended design);
 * design: doc/design.md, "The on-behalf queueing, and why it cannot leave
 * a thread boosted".
 *
 * Processes
 *   reader   one target thread: two read-side critical sections, each of
 *            which may block (rcb_note_block) or not, then thread exit.
 *   booster  rcu_booster(): advance rcu_boost_idx, boost the most-aged
 *            element (rcu_boost_one_reader_list), queue preempted readers
 *            on their behalf (enqueue_preempted_readers), forever.
 *   drain    the reader's store buffer draining to memory.
 *   monitor  claim (a), checked in every reachable state.
 *
 * Memory model.  Everything protected by an element lock, and every
 * compare-and-exchange, is sequentially consistent here.  The one relaxed
 * pattern that matters is store buffering between the reader's outermost
 * unlock ("ctr = 0; compiler barrier; load boost_state", [RD-W]) and the
 * booster's "cmpxchg state; load ctr": the reader's ctr stores go to a
 * two-entry FIFO store buffer that drains nondeterministically (process
 * drain); the booster's membarrier ([BST-M]) drains it, as the IPI runs a
 * full barrier on the reader's CPU.  Element-lock operations do not drain
 * it (C11 acquire/release do not order an earlier relaxed store before a
 * later relaxed load), which is the conservative choice.  The booster's
 * own side of the pattern (its ctr load moving before its cmpxchg under
 * C11) is not modelled separately: membarrier(2) is a full barrier for the
 * caller too, and dropping it already yields a counterexample through the
 * reader's buffer alone (mutation no_membarrier).
 *
 * Abstractions.  One CPU, two elements (aging: a thread queued at index k
 * is boosted right after the next advance, instead of after
 * boost_elements - 1 advances).  One target thread, so each list is "does
 * it hold the thread": lst (which element's list holds rcub_entry) and
 * where (its toboost, its boosted, or the booster's local list).  ctr is
 * 0 or 1 (outside / inside).  holds_gp(ctr, gp): in the safety run any
 * ctr != 0 may or may not hold the grace period (nondeterministic, which
 * over-approximates every grace-period history the booster can see); in
 * the liveness run (-DLIVENESS) a grace period is always waiting, so
 * holds_gp == (ctr != 0).  Priorities are one bit, boosted.  Statistics,
 * the period check and sched_getattr details are omitted.
 *
 * Claims
 *   (a) no residual boost: the thread is never boosted outside a
 *       read-side critical section; a section counts until its outermost
 *       unlock has returned (process monitor; and at exit).  In this
 *       machine no booster step is pending on a thread outside a section
 *       (the booster never boosts between queueing and verifying), so the
 *       claim needs no "booster done" escape.
 *   (b) no booster access to the thread after it exited: every booster
 *       step that reads or writes the thread asserts !exited (TOUCH), and
 *       the thread exits dequeued and IDLE.
 *   (c) liveness (-DLIVENESS, ltl boosted_eventually, pan -a -f): a reader
 *       that stays blocked or preempted in a section (waiting) is
 *       eventually boosted.
 *   plus invariant 2 of boost.c: a thread on a list is never IDLE, and is
 *   never added to a second list.
 *
 * Results (spin 6.5.2, gcc -O2, models/run_model.sh: pan -m100000 -w20;
 * memory is mostly pan's 8 MB hash table and its DFS stack; time is
 * pan's, spin -a and the compile add about 1.2 s):
 *   safety (-DSAFETY):   errors 0; 75,443 states stored, depth 1,365,
 *                        17.5 MB, 0.02 s
 *   liveness (-a -f):    errors 0; 76,780 states stored, depth 3,059,
 *                        18.2 MB, 0.03 s
 *   -DCHECK_SELF_QUEUE:  errors 1 (the finding in models/README.md)
 *   -DREVERT_OWN_ONLY -DCHECK_SELF_QUEUE (the fix): errors 0; 99,314
 *                        states, depth 1,661, 18.8 MB
 *   --deep (NSEC=4, NELEM=4, -w24, COLLAPSE): errors 0; safety 575,843
 *                        states, depth 4,571; liveness 584,547 states,
 *                        depth 10,257; about 0.5 s each
 */
 */

#ifndef NELEM
#define NELEM 2       /* RCU_BOOST_ELEMENTS (a power of two) */
#endif
#ifndef NSEC
#define NSEC  2       /* read-side critical sections of the thread */
#endif
#define NIL   NELEM   /* no element (NULL rcub_rbdp, entry not listed) */

/* where the thread's rcub_entry sits, when lst != NIL */
#define ON_TOBOOST 1
#define ON_BOOSTED 2
#define ON_LOCAL   3  /* the booster's local list in rcu_boost_one_reader_list */

/* The state list; must match RCB_BOOST3_STATES in src/states.h. */
mtype = { RCU_BOOST_IDLE, RCU_BOOST_BLOCKED, RCU_BOOSTED };

mtype state = RCU_BOOST_IDLE; /* rcb_reader.boost_state */
byte rbdp = NIL;              /* rcb__thread.boost.rcub_rbdp */
byte lst = NIL;               /* element whose lists hold rcub_entry */
byte where = 0;
bit elock[NELEM];             /* rcu_boost_dat.rbs_mutex */
bit reglock;                  /* rcb__registry_lock */
byte idx = 0;                 /* rcu_boost_idx */

/* the reader's ctr: memory value and store buffer */
bit ctr;
bit sb0, sb1;
byte nsb;

/* ghosts */
bit incs;       /* the thread is in a section (until its unlock returns) */
bit boosted;    /* its priority is raised */
bit registered = 1;
bit exited;
bit waiting;    /* LIVENESS: blocked or preempted in a section */

#define TOUCH assert(!exited)  /* claim (b) */

/*
 * -DCHECK_SELF_QUEUE: once the reader's rcb_note_block() has queued it
 * (or found it queued), the booster's revert does not dequeue it before
 * the reader's own unlock.  The implemented code breaks this (README,
 * "Finding"): the revert of a stale on-behalf queueing removes the
 * queueing the reader made in its next section.
 */
/*
 * -DREVERT_OWN_ONLY: a proposed fix.  The booster's queueing marks the
 * thread (t->boost.on_behalf, under the element lock); the reader's own
 * rcb_note_block() clears it (adopts the queueing) under the lock of the
 * element it is queued on, any dequeue clears it, and rcb__boost_revert()
 * undoes only a queueing still marked.  With it -DCHECK_SELF_QUEUE holds.
 */
/* The C code has the fix (boost.c, rcb__boost_revert() and
 * rcb__boost_adopt()); -DREVERT_ANY models the code before it. */
#ifndef REVERT_ANY
#define REVERT_OWN_ONLY
#endif

#ifdef REVERT_OWN_ONLY
bit obq;        /* t->boost.on_behalf */
#define OBQ_SET(v)  obq = v
#define OBQ_TEST    && obq
#else
#define OBQ_SET(v)  skip
#define OBQ_TEST
#endif

#ifdef CHECK_SELF_QUEUE
bit selfq;      /* the reader's own rcb__boost_enqueue() queued it */
#define SELFQ_SET(v)  selfq = v
#define SELFQ_CHECK   assert(!selfq)
#else
#define SELFQ_SET(v)  skip
#define SELFQ_CHECK   skip
#endif

inline lock(l)   { atomic { l == 0 -> l = 1 } }
inline unlock(l) { l = 0 }

/* The reader's relaxed store to its own ctr: into the store buffer. */
inline rstore(v)
{
	atomic {
		nsb < 2 ->
		if
		:: nsb == 0 -> sb0 = v
		:: else -> sb1 = v
		fi;
		nsb++
	}
}

/* membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED): a full barrier on the
 * reader's CPU drains its store buffer. */
inline membarrier()
{
	atomic {
		if
		:: nsb == 2 -> ctr = sb1
		:: nsb == 1 -> ctr = sb0
		:: else
		fi;
		sb0 = 0; sb1 = 0; nsb = 0
	}
}

/*
 * rcb__boost_enqueue(t, rbdp): queue the thread on element e as BLOCKED
 * if it is IDLE.  Called by the reader (rcb__preempt_boost) and by the
 * booster (enqueue_preempted_readers).  ok := "this call queued it".
 */
inline boost_enqueue(e, ok, self)
{
	lock(elock[e]);
	/* [BST-E] compare-and-exchange IDLE -> BLOCKED */
	atomic {
		if
		:: state == RCU_BOOST_IDLE -> state = RCU_BOOST_BLOCKED; ok = 1
		:: else -> ok = 0
		fi
	}
	if
	:: ok ->
		/* list_add_tail(rbs_toboost); [BST-P] rcub_rbdp = rbdp */
		atomic {
			assert(lst == NIL); /* never on two lists */
			lst = e; where = ON_TOBOOST;
			rbdp = e;
			SELFQ_SET(self);
			OBQ_SET(!self)
		}
	:: else
	fi;
	unlock(elock[e])
}

/*
 * rcb__read_unlock_unboost(): the reader dequeues itself, unboosts if
 * BOOSTED, goes IDLE.  Called from rcb_read_unlock() (via
 * rcb__read_unlock_special()) and from thread_exit().
 */
inline read_unlock_unboost()
{
	do
	:: /* [BST-Q] load acquire boost_state */
		if
		:: state == RCU_BOOST_IDLE -> break
		:: else
		fi;
		r = rbdp;
		if
		:: r == NIL -> skip /* booster is queueing us: nanosleep, retry */
		:: else ->
			lock(elock[r]);
			if
			:: rbdp != r -> unlock(elock[r]) /* moved: retry */
			:: else ->
				s = state;
				/* list_del_init(); rcub_rbdp = NULL */
				atomic { lst = NIL; where = 0; rbdp = NIL; SELFQ_SET(0); OBQ_SET(0) };
				if
				:: s == RCU_BOOSTED -> ub = 1
				:: else
				fi;
				state = RCU_BOOST_IDLE; /* [BST-U] store release */
				unlock(elock[r]);
				/* rcu_unboost_prio(self), after the lock, as the
				 * C code does: dequeued and IDLE, out of the
				 * booster's reach */
				if
				:: ub -> boosted = 0; ub = 0
				:: else
				fi;
				break
			fi
		fi;
		r = NIL
	od;
	r = NIL; s = RCU_BOOST_IDLE
}

active proctype reader()
{
	byte e = NIL, r = NIL, sec = 0;
	mtype s = RCU_BOOST_IDLE;
	bit ok, ub;

	do
	:: sec < NSEC ->
		/* rcb_read_lock(), outermost: ctr = rcb__gp.ctr + 1 */
		atomic { incs = 1; rstore(1) };
		if
		:: /* rcb_note_block() -> rcb__preempt_boost():
		    * rcu_rbd_new() loads rcu_boost_idx, then queues */
			e = idx;
			boost_enqueue(e, ok, 1);
#ifdef REVERT_OWN_ONLY
			/* the fix, continued: a reader that finds itself
			 * already queued (by the booster) adopts the queueing
			 * under that element's lock, so the revert leaves it */
			do
			:: ok -> break
			:: else ->
				r = rbdp;
				if
				:: state == RCU_BOOST_IDLE -> /* reverted: retry */
					boost_enqueue(e, ok, 1)
				:: else ->
					if
					:: r == NIL -> skip /* being queued: retry */
					:: else ->
						lock(elock[r]);
						atomic {
							if
							:: rbdp == r -> OBQ_SET(0); SELFQ_SET(1); ok = 1
							:: else
							fi
						};
						unlock(elock[r])
					fi
				fi;
				r = NIL
			od;
#endif
			e = NIL; ok = 0
		:: skip /* never blocks, or is preempted without noting it */
		fi;
#ifdef LIVENESS
		if
		:: /* stays blocked/preempted (a low-priority thread under a
		    * real-time hog) until it is boosted */
			waiting = 1;
			atomic { boosted -> waiting = 0 }
		:: skip
		fi;
#endif
		/* rcb_read_unlock(), outermost: ctr = 0; compiler barrier;
		 * load boost_state ([RD-W]) */
		rstore(0); s = state; /* [RD-W] */
		if
		:: s != RCU_BOOST_IDLE ->
			/* rcb__read_unlock_special() */
			read_unlock_unboost()
		:: else -> s = RCU_BOOST_IDLE
		fi;
		incs = 0;
		sec++
	:: else -> break
	od;

	/* thread_exit(): dequeue (and unboost) before the id can be reused,
	 * then unregister under the registry lock */
	read_unlock_unboost();
	lock(reglock);
	registered = 0;
	unlock(reglock);
	atomic {
		exited = 1;
		assert(!boosted);                       /* claim (a) */
		assert(state == RCU_BOOST_IDLE && lst == NIL && rbdp == NIL); /* (b) */
	}
}

active proctype drain()
{
end:	do
	:: atomic {
		nsb > 0 ->
		ctr = sb0; sb0 = sb1; sb1 = 0; nsb--
	   }
	od
}

/* rcu_boost_one_reader_list(rbdp) */
inline boost_one_reader_list(e)
{
	lock(elock[e]);
	/* list_splice_tail_init(rbs_toboost) and (rbs_boosted) onto list */
	atomic {
		if
		:: lst == e && (where == ON_TOBOOST || where == ON_BOOSTED) ->
			where = ON_LOCAL
		:: else
		fi
	}
	do
	:: !(lst == e && where == ON_LOCAL) -> break /* list empty */
	:: else ->
		unlock(elock[e]);
		/* sched_yield() */
		lock(elock[e]);
		if
		:: !(lst == e && where == ON_LOCAL) -> break /* LISTCHECK: target left meanwhile */
		:: else
		fi;
		/* list_del_init(); state = t->rd->boost_state */
		TOUCH;
		s = state;
		if
		:: s != RCU_BOOST_BLOCKED && s != RCU_BOOSTED ->
			/* wrong state: back on rbs_toboost, counted as '!'.
			 * An IDLE thread on a list breaks invariant 2. */
			assert(s == RCU_BOOST_BLOCKED || s == RCU_BOOSTED);
			where = ON_TOBOOST
		:: else ->
			TOUCH;
			boosted = 1; /* rcb__boost_prio() (reboost if BOOSTED) */
			TOUCH;
			state = RCU_BOOSTED;
			where = ON_BOOSTED /* list_add_tail(rbs_boosted) */
		fi;
		s = RCU_BOOST_IDLE
	od;
	unlock(elock[e])
}

/* rcb__boost_revert(t, rbdp) */
inline boost_revert(e)
{
	lock(elock[e]);
	TOUCH;
	if
	:: rbdp == e && state == RCU_BOOST_BLOCKED OBQ_TEST ->
		atomic { SELFQ_CHECK; lst = NIL; where = 0; rbdp = NIL; OBQ_SET(0) };
		state = RCU_BOOST_IDLE /* [BST-R] store release */
	:: else
	fi;
	unlock(elock[e])
}

/* enqueue_preempted_readers() */
inline enqueue_preempted_readers()
{
	lock(reglock);
	if
	:: registered ->
		TOUCH;
		c = ctr;  /* holds_gp(ctr, gp) */
		TOUCH;
		s = state;
		if
		:: c && s == RCU_BOOST_IDLE ->
			e = idx; /* rcb__rbd(last cpu, rcu_boost_idx) */
			boost_enqueue(e, ok, 0)
#ifdef LIVENESS
		:: else
#else
		:: skip /* ctr != 0 but does not hold this grace period */
#endif
		fi
	:: else
	fi;
	if
	:: ok ->
		membarrier(); /* [BST-M] */
		TOUCH;
		c = ctr;
		if
		:: c -> skip /* still in (the) section: keep it queued */
#ifdef LIVENESS
		:: else ->
#else
		:: true -> /* left it, or a section that does not hold gp */
#endif
			boost_revert(e)
		fi
	:: else
	fi;
	unlock(reglock);
	c = 0; ok = 0; e = NIL; s = RCU_BOOST_IDLE
}

active proctype booster()
{
	byte e = NIL;
	mtype s = RCU_BOOST_IDLE;
	bit c, ok;

end:	do
	:: /* rcu_booster(): advance the index, age every element */
		idx = (idx + 1) % NELEM;
		e = (idx + 1) % NELEM; /* rcu_rbd_boosting() */
		boost_one_reader_list(e);
		e = NIL;
		enqueue_preempted_readers()
	od
}

/* claim (a): never boosted outside a section */
active proctype monitor()
{
end:	atomic { (boosted && !incs) -> assert(!(boosted && !incs)) }
}

#ifdef LIVENESS
/* claim (c) */
ltl boosted_eventually { [] (waiting -> <> boosted) }
#endif
