/*
 * pertask.pml -- the article's per-task-lock variant, "RCU Priority
 * Boosting With Per-Task Lock", which the article says "cannot be made to
 * reliably boost tasks blocked in RCU read-side critical sections".  This
 * model must FAIL: spin finds the self-deadlock the article describes.
 *
 * The design: a task that blocks (or is preempted) inside a section takes
 * its own per-task PI lock in the scheduler path (rcu_preempt_boost) and
 * holds it while blocked.  The booster boosts a BLOCKED task by changing
 * its state to RCU_BOOSTING and only then acquiring the task's per-task
 * lock: blocking on a PI lock the task holds lends the task the booster's
 * priority.  The task ends its section, goes RCU_END_BOOST_IDLE and only
 * then releases its lock; the booster, holding the lock, moves
 * RCU_END_BOOST_IDLE -> RCU_BOOST_IDLE and releases it.
 *
 * The flaw (article: "It is possible for the target task to block waiting
 * for its own lock in the (unlikely, but possible) case where the
 * RCU-booster task has just boosted it, but not yet released the lock.
 * In this case, the target task will block waiting for the lock, and, if
 * it is sufficiently low priority, never get a chance to run again.
 * Since it does not yet hold the lock, the RCU-booster task is unable to
 * priority boost it."): after the booster took the lock in
 * END_BOOST_IDLE, the task enters a new section and is preempted; its
 * scheduler hook sleeps on its own lock; the booster releases it; the
 * task is runnable but, being low priority, never runs again while the
 * real-time hog runs, and nothing can boost it: it is on no list and
 * holds no lock the booster could block on.
 *
 * Priorities.  The task runs at low priority.  When it is preempted inside
 * a section (hog = 1: a real-time hog keeps its CPU for as long as the
 * section lasts) it runs again only while priority-inherited, i.e. while
 * the booster is blocked on the per-task lock the task holds
 * (PI_BOOSTED); its scheduler hook runs to completion as part of the
 * preemption unless it has to sleep on its lock.  Lists, elements and the
 * booster loop are as in boost8.pml; one CPU, one task, two elements.
 *
 * Claim (c), checked with -DLIVENESS and pan -a -f:
 *   ltl boosted_eventually: a task preempted inside a section (waiting)
 *   is eventually boosted.
 * Expected: acceptance cycle, whose trail shows the task asleep on its own
 * per-task lock (SELFWAIT) while the booster loops.
 *
 * Results (spin 6.5.2, gcc -O2, models/run_model.sh):
 *   safety (no claim):  errors 0; 1,194 states stored, depth 340, 13.5 MB
 *   liveness (-a -f):   errors 1, acceptance cycle at depth 248 (910
 *                       states stored, depth 647); the 308-step trail
 *                       replays: section 1 boosted through the lock,
 *                       section 2 preempted while the booster holds the
 *                       lock in RCU_END_BOOST_IDLE -> SELFWAIT forever.
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

#define FREE    0
#define TASK    1
#define BOOSTER 2

/* The state list; must match RCB_PERTASK_STATES in src/core/states.h. */
mtype = { RCU_BOOST_IDLE, RCU_BOOST_BLOCKED, RCU_BOOSTING,
	  RCU_END_BOOST_IDLE, RCU_END_BOOST_BLOCKED, RCU_UNBOOST_EXITING,
	  RCU_EXIT_OK };

mtype state = RCU_BOOST_IDLE;
byte rbdp = NIL;
byte lst = NIL;
byte where = 0;
bit elock[NELEM];             /* rbs_mutex */
byte idx = 0;
byte ptlock = FREE;           /* the per-task PI lock: owner */
bit bwait;                    /* the booster sleeps on ptlock */

/* ghosts */
bit incs, exited, hog, waiting;

#define PI_BOOSTED (ptlock == TASK && bwait)
#define TOUCH assert(!exited)

/*
 * rbs_mutex is a fair (ticket) spinlock: once the task waits for element
 * e (twant == e + 1) the booster does not take it again before the task
 * has had it.  Without this, weak fairness would let the booster starve
 * the task on the lock, a cycle the kernel's ticket locks rule out.
 */
byte twant;
inline task_lock(e)    { twant = e + 1; atomic { elock[e] == 0 -> elock[e] = 1; twant = 0 } }
inline booster_lock(e) { atomic { elock[e] == 0 && twant != e + 1 -> elock[e] = 1 } }
inline unlock(l) { l = 0 }

inline cmpxchg(old, new, ok)
{
	atomic {
		if
		:: state == old -> state = new; ok = 1
		:: else -> ok = 0
		fi
	}
}

active proctype task()
{
	byte e = NIL, r = NIL, sec = 0;
	mtype s = RCU_BOOST_IDLE;
	bit ok;

	do
	:: sec < NSEC ->
		incs = 1; /* rcu_read_lock() */
		if
		:: /* preempted in the section by a real-time hog: the
		    * scheduler calls rcu_preempt_boost() on the way out */
			atomic { hog = 1; waiting = 1 };
			if
			:: atomic { ptlock == FREE -> ptlock = TASK }
			:: atomic {
				ptlock != FREE ->
				printf("SELFWAIT: task sleeps on its own per-task lock, held by the booster\n")
			   };
				/* woken when it is released; must then get
				 * the CPU back to finish the hook */
SELFWAIT:			atomic { ptlock == FREE && (!hog || PI_BOOSTED) -> ptlock = TASK }
			fi;
			e = idx; /* rcu_rbd_new() */
			/* the hook's list update, under rbs_mutex (taken,
			 * updated and released in one step) */
			twant = e + 1;
			atomic {
				elock[e] == 0 -> twant = 0;
				if
				:: state == RCU_END_BOOST_IDLE ->
					/* the booster cannot leave END_BOOST_IDLE
					 * without our lock: a plain store is safe */
					state = RCU_END_BOOST_BLOCKED
				:: else ->
					assert(state == RCU_BOOST_IDLE);
					state = RCU_BOOST_BLOCKED
				fi;
				assert(lst == NIL);
				lst = e; where = ON_TOBOOST; rbdp = e
			};
			e = NIL; ok = 0;
			/* switched out: runs again only when the hog is
			 * gone or it inherits the booster's priority */
			(!hog || PI_BOOSTED);
			/* rcu_read_unlock(): end the blocked section */
			r = rbdp;
			task_lock(r);
			s = state;
			if
			:: s == RCU_BOOST_BLOCKED ->
				cmpxchg(RCU_BOOST_BLOCKED, RCU_BOOST_IDLE, ok);
				assert(ok) /* BLOCKED -> BOOSTING needs elock too */
			:: s == RCU_BOOSTING ->
				cmpxchg(RCU_BOOSTING, RCU_END_BOOST_IDLE, ok);
				assert(ok)
			:: s == RCU_END_BOOST_BLOCKED ->
				state = RCU_END_BOOST_IDLE /* task only */
			:: else -> assert(false)
			fi;
			atomic { lst = NIL; where = 0; rbdp = NIL };
			unlock(elock[r]);
			r = NIL; ok = 0;
			/* release the per-task lock: ends any inherited boost */
			atomic { ptlock = FREE; hog = 0; waiting = 0 }
		:: skip /* not preempted */
		fi;
		s = RCU_BOOST_IDLE;
		incs = 0;
		sec++
	:: else -> break
	od;

	/* exit() */
	do
	:: s = state;
		if
		:: s == RCU_BOOST_IDLE -> state = RCU_EXIT_OK; break
		:: s == RCU_END_BOOST_IDLE ->
			cmpxchg(RCU_END_BOOST_IDLE, RCU_UNBOOST_EXITING, ok);
			if
			:: ok -> (state == RCU_EXIT_OK); break
			:: else
			fi
		:: else -> assert(false)
		fi
	od;
	exited = 1
}

/* rcu_boost_one_reader_list(rbdp) */
inline boost_one_reader_list(e)
{
	booster_lock(e);
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
		booster_lock(e);
		if
		:: !(lst == e && where == ON_LOCAL) -> break
		:: else
		fi;
		TOUCH;
		s = state;
		if
		:: s == RCU_BOOST_BLOCKED ->
			/* state first, then the lock */
			cmpxchg(RCU_BOOST_BLOCKED, RCU_BOOSTING, ok);
			assert(ok);
			where = ON_BOOSTED;
			unlock(elock[e]);
			/* acquire the task's per-task lock: sleeping on it
			 * lends the task our priority */
			bwait = 1;
			atomic { ptlock == FREE -> ptlock = BOOSTER; bwait = 0 };
			TOUCH;
			s = state;
			if
			:: s == RCU_END_BOOST_IDLE ->
				cmpxchg(RCU_END_BOOST_IDLE, RCU_BOOST_IDLE, ok);
				if
				:: ok
				:: else ->
					/* the task is exiting */
					assert(state == RCU_UNBOOST_EXITING);
					state = RCU_EXIT_OK
				fi
			:: s == RCU_UNBOOST_EXITING -> state = RCU_EXIT_OK
			:: else -> assert(false)
			fi;
			ptlock = FREE;
			booster_lock(e)
		:: else ->
			where = ON_TOBOOST /* wrong state */
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
		e = (idx + 1) % NELEM;
		boost_one_reader_list(e);
		e = NIL
	od
}

#ifdef LIVENESS
ltl boosted_eventually { [] (waiting -> <> PI_BOOSTED) }
#endif
