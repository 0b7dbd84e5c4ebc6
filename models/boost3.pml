/*
 * boost3.pml -- the implemented 3-state boost machine
 * (src/boost/machine3.c, queue.c, booster.c, rcb_read_unlock() in
 * include/rcuboost.h), including the userspace addition: the booster's
 * on-behalf queueing of preempted readers, verified after a membarrier
 * and reverted if the reader left.
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
 * -DBOOSTERS=N (N >= 2; CTest runs 2): N booster processes, booster b
 * owning CPU b, its NELEM elements and its own index idx[b]; the reader
 * migrates between CPUs.  Adds claims (d) aging (a thread is boosted
 * only after NELEM - 1 advances of its element's booster since the index
 * load that chose the element) and (e) a booster changes the thread only
 * while it is queued on an element that booster owns, and never while
 * another booster is changing it.  Two reductions apply to this variant
 * only (models/README.md); with BOOSTERS=1 the model is unchanged.
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
 *   plus invariant 2 of queue.c: a thread on a list is never IDLE, and is
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
 *   -DBOOSTERS=2 (figures in models/README.md): errors 0, safety and
 *                        liveness, about 10 M states each
 */

#ifndef NELEM
#define NELEM 2       /* RCU_BOOST_ELEMENTS (a power of two) */
#endif
#ifndef NSEC
#define NSEC  2       /* read-side critical sections of the thread */
#endif
#ifndef BOOSTERS
#define BOOSTERS 1    /* booster threads, one CPU each (booster_cpus = 1) */
#endif
/* Elements: CPU c's array is elements c * NELEM .. c * NELEM + NELEM - 1;
 * with one booster, the one CPU's NELEM elements as before. */
#define NELEMS (BOOSTERS * NELEM)
#define NIL   NELEMS  /* no element (NULL rcub_rbdp, entry not listed) */

/* where the thread's rcub_entry sits, when lst != NIL */
#define ON_TOBOOST 1
#define ON_BOOSTED 2
#define ON_LOCAL   3  /* the booster's local list in rcu_boost_one_reader_list */

/* The state list; must match RCB_BOOST3_STATES in src/core/states.h. */
mtype = { RCU_BOOST_IDLE, RCU_BOOST_BLOCKED, RCU_BOOSTED };

mtype state = RCU_BOOST_IDLE; /* rcb_reader.boost_state */
byte rbdp = NIL;              /* rcb__thread.boost.rcub_rbdp */
byte lst = NIL;               /* element whose lists hold rcub_entry */
byte where = 0;
bit elock[NELEMS];            /* rcu_boost_dat.rbs_mutex */
bit reglock;                  /* rcb__registry_lock */
#if BOOSTERS == 1
byte idx = 0;                 /* rcu_boost_idx */
#else
/*
 * -DBOOSTERS=N (N >= 2): booster b (process _pid 2 + b) owns CPU b and
 * its NELEM elements, and ages them with its own index idx[b]
 * (rcb__boosters[b].idx); rcb__cpu_booster[c] == c.  The reader runs on
 * CPU cpu, which it may change (migrate) before each section and before
 * each rcu_rbd_new(); the boosters' rcb__sched_last_cpu() reads it.
 */
byte idx[BOOSTERS];           /* rcb__boosters[b].idx */
#define IDX(b)      idx[b]    /* per-booster index (the decision) */
#define ME          (_pid - 2) /* in a booster: its id b */
#define OWNER(el)   ((el) / NELEM) /* the booster whose CPU holds element el */
#define CPU_MINE(c) ((c) == ME) /* rcb__cpu_booster[c] == b->id */
byte cpu = 0;                 /* the reader's CPU (sched_getcpu, last CPU) */
/* ghosts for claims (d) and (e) */
byte actor;     /* 0, or 1 + the booster changing the thread (claim e) */
byte rcpu = BOOSTERS; /* CPU whose index the reader loaded last (none) */
byte rage;      /* advances of rcpu's booster since that load (<= NELEM) */
byte age;       /* advances of the owner of element lst since the
		 * index load the queueing used (<= NELEM) (claim d) */
#endif

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
/* The C code has the fix (queue.c, rcb__boost_revert() and
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
#if BOOSTERS > 1
			;
			/* (e): a booster queues only on its own elements */
			assert(self || OWNER(e) == ME);
			assert(actor == 0);
			/* (d): the reader's queueing is as old as its index
			 * load; the booster's uses the index it alone moves */
			age = (self -> rage : 0)
#endif
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
				atomic {
					lst = NIL; where = 0; rbdp = NIL; SELFQ_SET(0); OBQ_SET(0)
#if BOOSTERS > 1
					; age = 0
#endif
				};
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

#if BOOSTERS > 1
/* The reader migrates (or not) to another CPU. */
inline migrate()
{
	if
	:: cpu = (cpu + 1) % BOOSTERS
	:: skip
	fi
}

/* rcu_rbd_new(sched_getcpu()): the element of the reader's CPU at that
 * CPU's booster's index (after a possible migration). */
inline rd_pick()
{
	atomic {
		migrate();
		e = cpu * NELEM + IDX(cpu);
		rcpu = cpu; rage = 0
	}
}
#endif

active proctype reader()
{
	byte e = NIL, r = NIL, sec = 0;
	mtype s = RCU_BOOST_IDLE;
	bit ok, ub;

	do
	:: sec < NSEC ->
#if BOOSTERS > 1
		atomic { migrate() };	/* between sections */
#endif
		/* rcb_read_lock(), outermost: ctr = rcb__gp.ctr + 1 */
		atomic { incs = 1; rstore(1) };
		if
		:: /* rcb_note_block() -> rcb__preempt_boost():
		    * rcu_rbd_new() loads rcu_boost_idx, then queues */
#if BOOSTERS == 1
			e = idx;
#else
			rd_pick();
#endif
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
#if BOOSTERS > 1
					/* rcb__boost_adopt(): rcu_rbd_new(sched_getcpu())
					 * again, possibly on another CPU */
					rd_pick();
#endif
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
#if BOOSTERS > 1
			; atomic { rcpu = BOOSTERS; rage = 0 }
#endif
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

#if BOOSTERS > 1
/*
 * Claim (e): a booster changes the thread (priority, state, lists) only
 * while it is queued on element e that this booster owns, and no other
 * booster is changing it meanwhile.
 */
inline act_begin(e)
{
	atomic {
		assert(lst == e && OWNER(e) == ME);
		assert(actor == 0);
		actor = ME + 1
	}
}
inline act_end() { actor = 0 }
#endif

/* rcu_boost_one_reader_list(rbdp) */
inline boost_one_reader_list(e)
{
#if BOOSTERS == 1
	lock(elock[e]);
	/* list_splice_tail_init(rbs_toboost) and (rbs_boosted) onto list */
	atomic {
		if
		:: lst == e && (where == ON_TOBOOST || where == ON_BOOSTED) ->
			where = ON_LOCAL
		:: else
		fi
	}
#else
	/* Reduction (BOOSTERS > 1 only, see models/README.md): taking the
	 * lock and splicing are one step (the splice touches only data
	 * under that lock), and a walk that finds both lists empty (lock,
	 * splice nothing, unlock) is that one step. */
	atomic {
		elock[e] == 0 ->
		if
		:: lst == e && (where == ON_TOBOOST || where == ON_BOOSTED) ->
			elock[e] = 1; held = 1; where = ON_LOCAL
		:: else
		fi
	}
	if
	:: held ->
	held = 0;
#endif
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
#if BOOSTERS > 1
			act_begin(e);
			assert(age >= NELEM - 1); /* (d) aged before boosted */
#endif
			TOUCH;
			boosted = 1; /* rcb__boost_prio() (reboost if BOOSTED) */
			TOUCH;
			state = RCU_BOOSTED;
			where = ON_BOOSTED /* list_add_tail(rbs_boosted) */
#if BOOSTERS > 1
			; act_end()
#endif
		fi;
		s = RCU_BOOST_IDLE
	od;
	unlock(elock[e])
#if BOOSTERS > 1
	:: else
	fi
#endif
}

/* rcb__boost_revert(t, rbdp) */
inline boost_revert(e)
{
	lock(elock[e]);
	TOUCH;
	if
	:: rbdp == e && state == RCU_BOOST_BLOCKED OBQ_TEST ->
#if BOOSTERS > 1
		act_begin(e);
#endif
		atomic { SELFQ_CHECK; lst = NIL; where = 0; rbdp = NIL; OBQ_SET(0) };
#if BOOSTERS == 1
		state = RCU_BOOST_IDLE /* [BST-R] store release */
#else
		atomic { state = RCU_BOOST_IDLE; age = 0; act_end() } /* [BST-R] */
#endif
	:: else
	fi;
	unlock(elock[e])
}

#if BOOSTERS > 1
/*
 * enqueue_preempted_readers(b).  Reduction (see models/README.md): the
 * registry lock, the scan's loads of ctr, boost_state and the reader's
 * last CPU, and (if they select nothing) the unlock are one step.
 */
inline enqueue_preempted_readers()
{
	atomic {
		reglock == 0 -> reglock = 1;
		if
		:: registered && ctr && state == RCU_BOOST_IDLE && CPU_MINE(cpu) ->
			TOUCH;
			e = cpu * NELEM + IDX(ME) /* rcb__rbd(cpu, b->idx) */
#ifndef LIVENESS
		:: true -> /* ctr != 0 but does not hold this grace period */
			reglock = 0
#endif
		:: else -> reglock = 0
		fi
	}
	if
	:: e != NIL ->
		boost_enqueue(e, ok, 0);
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
		unlock(reglock)
	:: else
	fi;
	c = 0; ok = 0; e = NIL
}
#else
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
#endif

#if BOOSTERS == 1
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
#else
/* booster_pass(): advance b->idx (ghosts: age the queueing and the
 * reader's pending index load if they are this booster's) */
inline advance()
{
	atomic {
		IDX(ME) = (IDX(ME) + 1) % NELEM;
		if
		:: rcpu == ME && rage < NELEM -> rage++
		:: else
		fi;
		if
		:: lst != NIL && OWNER(lst) == ME && age < NELEM -> age++
		:: else
		fi
	}
}

#ifndef SHARED_WALK
#define SHARED_WALK 0 /* 1: also walk the other CPUs' elements */
#endif

active [BOOSTERS] proctype booster()
{
	byte e = NIL, k;
	mtype s = RCU_BOOST_IDLE;
	bit c, ok, held;

end:	do
	:: advance();
		/* the most-aged element of each CPU mapped to this booster
		 * (rcu_rbd_boosting(b, cpu)): its own CPU ME */
		atomic { e = ME * NELEM + (IDX(ME) + 1) % NELEM };
		boost_one_reader_list(e);
		e = NIL;
#if SHARED_WALK
		/* no CPU_MINE() test: every CPU's most-aged element */
		k = 0;
		do
		:: k < BOOSTERS ->
			if
			:: !CPU_MINE(k) ->
				e = k * NELEM + (IDX(ME) + 1) % NELEM;
				boost_one_reader_list(e);
				e = NIL
			:: else
			fi;
			k++
		:: else -> k = 0; break
		od;
#endif
		enqueue_preempted_readers()
	od
}
#endif

/* claim (a): never boosted outside a section */
active proctype monitor()
{
end:	atomic { (boosted && !incs) -> assert(!(boosted && !incs)) }
}

#ifdef LIVENESS
/* claim (c) */
ltl boosted_eventually { [] (waiting -> <> boosted) }
#endif
