/*
 * boost8.pml -- the article's 8-state compare-and-exchange machine,
 * "RCU Priority Boosting With Minimal Scheduler-Path Overhead": boosting
 * is done outside the list lock, a state that both sides may leave is
 * changed only by compare-and-exchange, the side that may leave a state
 * does the priority change in it, and exit() waits for the booster
 * (RCU_UNBOOST_EXITING -> RCU_EXIT_OK; the C code's futex on the
 * element's rbs_exit_seq in place of the article's rbs_exit_done and two
 * wait queues).  The C code is src/boost/machine8.c; the transition table in
 * models/README.md ("boost8 transition table") is its specification, and
 * each step below names the article function it belongs to.
 *
 * Who may leave each state (double-walled = both, compare-and-exchange):
 *   RCU_BOOST_IDLE          task only      not listed
 *   RCU_BOOST_BLOCKED       task, booster  rbs_toboost of rcub_rbdp
 *   RCU_BOOSTING            task, booster  rbs_boosted of rcub_rbdp
 *   RCU_BOOSTED             task only      rbs_boosted of rcub_rbdp
 *   RCU_UNBOOST_IDLE        task, booster  not listed
 *   RCU_UNBOOST_BLOCKED     task, booster  rbs_toboost of rcub_rbdp
 *   RCU_UNBOOST_EXITING     booster only   not listed
 *   RCU_EXIT_OK             nobody (final) not listed
 * The booster can make at most three consecutive changes
 * (UNBOOST_BLOCKED -> BLOCKED -> BOOSTING -> BOOSTED) before reaching a
 * state only the task may leave, so a task-side compare-and-exchange
 * fails at most three times in a row; because the task holds the element
 * lock for its unlock transitions and BLOCKED -> BOOSTING needs that lock,
 * it fails at most once (claim (d)).
 *
 * Processes: task (two read-side critical sections, each may block, then
 * exit()), booster (rcu_booster() forever, two elements), monitor.
 *
 * Abstractions: one CPU, two elements, one task; lists as in boost3.pml
 * (lst, where); priorities as one bit (boosted); the exit wait as the C
 * code's futex (FUTEX_WAIT checks the value and sleeps in one step,
 * FUTEX_WAKE wakes the sleeper; a wake-up before the sleep is lost);
 * the element lock and compare-and-exchange are sequentially consistent
 * (the kernel's raw spinlock and cmpxchg are full barriers), so no store
 * buffer is modelled: the task's unlock here always takes the lock when
 * its state is not IDLE (the article's rcu_read_unlock_unboost()).
 *
 * Claims
 *   (a) no residual boost: the task is not boosted outside a read-side
 *       critical section unless the booster is still working on it
 *       (bwin: between its BLOCKED -> BOOSTING and its last transition
 *       for that boost); and not boosted when it exits.
 *   (b) RCU_EXIT_OK is final, and no booster step touches the task after
 *       it exited (TOUCH).
 *   (c) liveness (-DLIVENESS, pan -a -f): a task that stays blocked in a
 *       section is eventually boosted.
 *   (d) a task-side compare-and-exchange fails at most MAXFAIL times in a
 *       row: 1 with the article's locking; 3 with -DTASK_NOLOCK (the task
 *       changes state before taking the element lock), and that bound is
 *       reached (-DTASK_NOLOCK -DMAXFAIL=2 fails).
 *   (f) no lost exit wake-up: the exiting task never sleeps on
 *       rbs_exit_seq after the booster's wake-up for its exit (it would
 *       sleep forever, holding the registry lock in the C code).
 *
 * Results (spin 6.5.2, gcc -O2, models/run_model.sh: pan -m100000 -w20):
 *   safety:   errors 0; 6,938 states stored, depth 457, 13.8 MB, <0.01 s
 *   liveness: errors 0; 8,409 states stored, depth 1,172, 14.0 MB
 *   -DTASK_NOLOCK -DMAXFAIL=3: errors 0; 12,329 states, depth 589
 *   -DTASK_NOLOCK -DMAXFAIL=2: errors 1 (three failures in a row reached)
 *   --deep (NSEC=4, NELEM=4): errors 0; safety 48,279 states, depth
 *   1,493; liveness 58,912 states, depth 3,788
 *   mutations boost8_exit_seq_relaxed, boost8_exit_wait_state_first:
 *   errors 1, claim (f)
 */

#ifndef NELEM
#define NELEM 2       /* RCU_BOOST_ELEMENTS (a power of two) */
#endif
#ifndef NSEC
#define NSEC  2       /* read-side critical sections of the thread */
#endif
#define NIL   NELEM   /* no element (NULL rcub_rbdp, entry not listed) */

#define ON_TOBOOST 1
#define ON_BOOSTED 2
#define ON_LOCAL   3

/* The task takes the element lock before its unlock transitions (the
 * article's locking); -DTASK_NOLOCK: it changes state first, then locks
 * to dequeue. */
#ifdef TASK_NOLOCK
#define TASK_LOCK_FIRST 0
#else
#define TASK_LOCK_FIRST 1
#endif

#ifndef MAXFAIL
#define MAXFAIL 1
#endif

/*
 * The exit wait of src/boost/machine8.c (rcb__boost8_exit(), back_out()): the
 * booster stores EXIT_OK, then bumps the element's rbs_exit_seq and wakes
 * its futex; the exiting task loads rbs_exit_seq, then the state, and
 * sleeps (FUTEX_WAIT: only if rbs_exit_seq still has the value it loaded)
 * until woken.  Spin's interleavings are sequentially consistent, so the
 * C11 orders [BST8-W] (release add) and [BST8-X] (acquire load) appear as
 * program order.  The two switches below (each a mutation) model what a
 * weakly ordered CPU may do without them:
 *   EXIT_SEQ_FIRST   the booster's add is relaxed: the new sequence may
 *                    be visible before EXIT_OK (the bug of issue 11);
 *   EXIT_STATE_FIRST the task's sequence load is relaxed: its state load
 *                    may be satisfied first.
 * Either way the task can sleep on the new sequence after the booster's
 * only wake-up: claim (f).
 */
#define EXIT_SEQ_FIRST 0
#define EXIT_STATE_FIRST 0

/* The state list; must match RCB_BOOST8_STATES in src/core/states.h. */
mtype = { RCU_BOOST_IDLE, RCU_BOOST_BLOCKED, RCU_BOOSTING, RCU_BOOSTED,
	  RCU_UNBOOST_IDLE, RCU_UNBOOST_BLOCKED, RCU_UNBOOST_EXITING,
	  RCU_EXIT_OK };

mtype state = RCU_BOOST_IDLE; /* task_struct.rcub_state */
byte rbdp = NIL;              /* task_struct.rcub_rbdp */
byte lst = NIL;               /* element whose lists hold rcub_entry */
byte where = 0;
bit elock[NELEM];             /* rbs_mutex */
byte idx = 0;                 /* rcu_boost_idx */
byte xseq;                    /* the element's rbs_exit_seq */
bit xsleep;                   /* the task sleeps in FUTEX_WAIT on it */

/* ghosts */
bit incs, boosted, exited, waiting;
bit bwin;       /* the booster is working on a boost of the task */
bit xseen;      /* RCU_EXIT_OK was reached */
bit xwoken;     /* the booster made its exit wake-up (it makes one) */

#define TOUCH assert(!exited)

inline lock(l)   { atomic { l == 0 -> l = 1 } }
inline unlock(l) { l = 0 }

/* ok := compare-and-exchange(&state, old, new) succeeded */
inline cmpxchg(old, new, ok)
{
	atomic {
		if
		:: state == old -> state = new; ok = 1
		:: else -> ok = 0
		fi
	}
}

inline dequeue()
{
	atomic { lst = NIL; where = 0; rbdp = NIL }
}

inline failed()
{
	fails++;
	assert(fails <= MAXFAIL) /* claim (d) */
}

/* rcu_preempt_boost() -> __rcu_preempt_boost() */
inline preempt_boost()
{
	e = idx; /* rcu_rbd_new() */
	lock(elock[e]);
	fails = 0;
	do
	:: s = state;
		if
		:: s == RCU_BOOST_IDLE ->
			/* task-only state: plain store */
			atomic {
				state = RCU_BOOST_BLOCKED;
				assert(lst == NIL);
				lst = e; where = ON_TOBOOST; rbdp = e
			};
			break
		:: s == RCU_UNBOOST_IDLE ->
			cmpxchg(RCU_UNBOOST_IDLE, RCU_UNBOOST_BLOCKED, ok);
			if
			:: ok ->
				atomic {
					assert(lst == NIL);
					lst = e; where = ON_TOBOOST; rbdp = e
				};
				break
			:: else -> failed() /* booster: UNBOOST_IDLE -> IDLE */
			fi
		:: else -> break /* already queued in this section */
		fi
	od;
	unlock(elock[e]);
	e = NIL; ok = 0; fails = 0; s = RCU_BOOST_IDLE
}

/* rcu_read_unlock_unboost() -> __rcu_read_unlock_unboost() */
inline read_unlock_unboost()
{
	s = state;
	if
	:: s == RCU_BOOST_IDLE || s == RCU_UNBOOST_IDLE ->
		skip /* not queued in this section */
	:: else ->
		r = rbdp; /* set by this task only: stable */
#if TASK_LOCK_FIRST
		lock(elock[r]);
#endif
		fails = 0;
		do
		:: s = state;
			if
			:: s == RCU_BOOST_BLOCKED ->
				cmpxchg(RCU_BOOST_BLOCKED, RCU_BOOST_IDLE, ok)
			:: s == RCU_BOOSTING ->
				/* the booster backs the boost out */
				cmpxchg(RCU_BOOSTING, RCU_UNBOOST_IDLE, ok)
			:: s == RCU_BOOSTED ->
				/* task-only state: the task unboosts, after
				 * releasing the lock (the C code's order) */
				ub = 1;
				state = RCU_BOOST_IDLE;
				ok = 1
			:: s == RCU_UNBOOST_BLOCKED ->
				cmpxchg(RCU_UNBOOST_BLOCKED, RCU_UNBOOST_IDLE, ok)
			:: else -> assert(false)
			fi;
			if
			:: ok -> break
			:: else -> failed()
			fi
		od;
#if !TASK_LOCK_FIRST
		lock(elock[r]);
#endif
		dequeue(); /* list_del_init(); rcub_rbdp = NULL */
		unlock(elock[r]);
		if
		:: ub -> boosted = 0; ub = 0 /* rcu_unboost_prio(current) */
		:: else
		fi;
		r = NIL; ok = 0; fails = 0
	fi;
	s = RCU_BOOST_IDLE
}

/* rcb__boost8_exit(): wait in UNBOOST_EXITING for the booster's EXIT_OK. */
inline exit_wait()
{
	do
	::
#if EXIT_STATE_FIRST
		s = state; sq = xseq;   /* MUTATION */
#else
		sq = xseq;              /* [BST8-X] acquire */
		s = state;
#endif
		if
		:: s == RCU_EXIT_OK -> break
		:: else ->
			/* FUTEX_WAIT(&rbs_exit_seq, sq) */
			atomic { if :: xseq == sq -> xsleep = 1 :: else fi };
			(xsleep == 0) /* woken, or the value had changed */
		fi
	od;
	sq = 0
}

active proctype task()
{
	byte e = NIL, r = NIL, sec = 0, fails = 0, sq = 0;
	mtype s = RCU_BOOST_IDLE;
	bit ok, ub;

	do
	:: sec < NSEC ->
		incs = 1; /* rcu_read_lock(), outermost */
		if
		:: preempt_boost() /* blocks (or is preempted) in the section */
		:: skip
		fi;
#ifdef LIVENESS
		if
		:: state != RCU_BOOST_IDLE && state != RCU_UNBOOST_IDLE ->
			/* queued and staying blocked until boosted */
			waiting = 1;
			atomic { boosted -> waiting = 0 }
		:: skip
		fi;
#endif
		/* rcu_read_unlock(), outermost */
		read_unlock_unboost();
		incs = 0;
		sec++
	:: else -> break
	od;

	/* exit(): wait for the booster to finish with us */
	fails = 0;
	do
	:: s = state;
		if
		:: s == RCU_BOOST_IDLE ->
			atomic { state = RCU_EXIT_OK; xseen = 1 }; /* task-only */
			break
		:: s == RCU_UNBOOST_IDLE ->
			cmpxchg(RCU_UNBOOST_IDLE, RCU_UNBOOST_EXITING, ok);
			if
			:: ok ->
				exit_wait(); /* EXITWAIT */
				break
			:: else -> failed() /* booster: UNBOOST_IDLE -> IDLE */
			fi
		:: else -> assert(false) /* exits queued */
		fi
	od;
	atomic {
		exited = 1;
		assert(!boosted);     /* claim (a) */
		assert(lst == NIL)    /* claim (b) */
	}
}

/* The booster's back-out after a failed BOOSTING -> BOOSTED: it may leave
 * the UNBOOST_* states, so it undoes the boost. */
inline booster_unboost()
{
	TOUCH;
	boosted = 0; /* rcu_unboost_prio(taskp) */
	do
	:: TOUCH;
		s = state;
		if
		:: s == RCU_UNBOOST_IDLE ->
			atomic {
				cmpxchg(RCU_UNBOOST_IDLE, RCU_BOOST_IDLE, ok);
				if :: ok -> bwin = 0 :: else fi
			};
			if :: ok -> break :: else fi
		:: s == RCU_UNBOOST_BLOCKED ->
			atomic {
				cmpxchg(RCU_UNBOOST_BLOCKED, RCU_BOOST_BLOCKED, ok);
				if :: ok -> bwin = 0 :: else fi
			};
			if :: ok -> break :: else fi
		:: s == RCU_UNBOOST_EXITING ->
			/* booster-only state: plain store, then [BST8-W]
			 * (release add) and the futex wake-up; the sequence
			 * lives in the element, so the booster never waits
			 * for the task (the article's rbs_exit_done) */
#if EXIT_SEQ_FIRST
			xseq++; /* MUTATION: visible before EXIT_OK */
#endif
			atomic { state = RCU_EXIT_OK; xseen = 1; bwin = 0 };
#if !EXIT_SEQ_FIRST
			xseq++;
#endif
			atomic { xsleep = 0; xwoken = 1 }; /* FUTEX_WAKE */
			break
		:: else -> assert(false)
		fi
	od
}

/* rcu_boost_one_reader_list(rbdp) */
inline boost_one_reader_list(e)
{
	lock(elock[e]);
	atomic {
		if
		:: lst == e && (where == ON_TOBOOST || where == ON_BOOSTED) ->
			where = ON_LOCAL
		:: else
		fi
	}
	do
	:: !(lst == e && where == ON_LOCAL) -> break
	:: else ->
		unlock(elock[e]);
		lock(elock[e]);
		if
		:: !(lst == e && where == ON_LOCAL) -> break
		:: else
		fi;
		TOUCH;
		s = state;
		if
		:: s == RCU_BOOST_BLOCKED ->
			atomic {
				cmpxchg(RCU_BOOST_BLOCKED, RCU_BOOSTING, ok);
				if :: ok -> bwin = 1 :: else fi
			};
			if
			:: ok ->
				where = ON_BOOSTED; /* list_add_tail(rbs_boosted) */
				unlock(elock[e]);
				/* boost outside the lock */
				TOUCH;
				boosted = 1; /* rcu_boost_prio(taskp) */
				TOUCH;
				atomic {
					cmpxchg(RCU_BOOSTING, RCU_BOOSTED, ok);
					if :: ok -> bwin = 0 :: else fi
				};
				if
				:: ok -> skip
				:: else -> booster_unboost()
				fi;
				lock(elock[e])
			:: else ->
				/* rbs_boost_cmpxchgfail (only when the task
				 * changes state outside the lock) */
				where = ON_TOBOOST
			fi
		:: s == RCU_BOOSTED ->
			where = ON_BOOSTED /* wrong state: no reboost */
		:: else ->
#if !TASK_LOCK_FIRST
			where = ON_TOBOOST /* the task is dequeueing itself */
#else
			assert(false) /* listed in an unlisted state */
#endif
		fi;
		s = RCU_BOOST_IDLE; ok = 0
	od;
	unlock(elock[e])
}

active proctype booster()
{
	byte e = NIL;
	mtype s = RCU_BOOST_IDLE;
	bit ok;

end:	do
	:: idx = (idx + 1) % NELEM;
		e = (idx + 1) % NELEM; /* rcu_rbd_boosting() */
		boost_one_reader_list(e);
		e = NIL
	od
}

active proctype monitor()
{
end:	atomic {
		((boosted && !incs && !bwin) ||
		 (xseen && state != RCU_EXIT_OK) || (xsleep && xwoken)) ->
		assert(!(boosted && !incs && !bwin));  /* claim (a) */
		assert(!(xseen && state != RCU_EXIT_OK)); /* claim (b) */
		assert(!(xsleep && xwoken))             /* claim (f) */
	}
}

#ifdef LIVENESS
ltl boosted_eventually { [] (waiting -> <> boosted) }
#endif
