/*
 * inherit.pml -- expedited grace periods and priority inheritance from
 * waiters (src/core/inherit.c, src/boost/expedite.c), on the 3-state machine.
 *
 * One reader thread, one grace-period leader (the waiter), one booster,
 * one element lock.  Levels: 0 none, 1 the first boost level (an
 * expedited grace period), 2 a higher priority lent by a real-time
 * waiter.  The on-behalf queueing and its verification are boost3.pml's
 * (a queued reader is modelled as queueing itself inside its section);
 * the reader's counter snapshot and the grace period's counter advance
 * are one step each (their ordering is [GP-A]/[RD-A]'s).
 *
 * Transitions (C function in brackets):
 *  reader:  enter: snapshot gp, ctr != 0 [rcb_read_lock]; maybe queue
 *           under the lock [rcb_note_block, or the booster on its
 *           behalf]; leave: ctr = 0, then if queued, under the lock,
 *           dequeue and unboost [rcb__boost3_unlock, rcb__unboost_take];
 *           only then out of the section.  After NSEC sections it exits.
 *  leader:  NGP grace periods: advance gp [do_grace_period]; lend level
 *           1 or 2 and publish the request (gp, level), maybe raise it
 *           to 2 later [rcb__loan_update]; wait until the reader does
 *           not hold gp [readers_hold]; withdraw the request
 *           [rcb__loan_end]; stop waiting.
 *  booster: read the request; under the lock, if the reader is queued,
 *           the request is unchanged, the reader holds its gp and runs
 *           below its level: boost it to that level [lend_list].
 *
 * Claims (monitor, assertions):
 *  (1) no residual boost: boosted implies inside the section (until the
 *      outermost unlock has returned);
 *  (2) no loan outliving its waiter: a reader inside its section
 *      (ctr != 0) runs at a lent level only while a waiter waits for
 *      it (the reader holds the waiter's gp) lending at least as much;
 *  (3) no boost of an exited thread (and the booster never touches one).
 */
#ifndef NSEC
#define NSEC 2
#endif
#ifndef NGP
#define NGP 2
#endif

byte gp = 1;      /* rcb__gp.ctr, in steps */
bit inctr;        /* the reader's ctr != 0 */
byte rgp;         /* its snapshot */
bit incs;         /* in its section, until rcb_read_unlock() returned */
bit queued;       /* BLOCKED or BOOSTED, on an element list */
byte boost;       /* level applied to the reader, 0: none */
bit elock;        /* the element lock */
bit exited;
byte reqgp, reqlvl; /* exp_req: (gp, level), 0: none */
bit waiting;      /* the leader waits for wgp's readers */
byte wgp, wlvl;   /* its grace period, the level it lends */
bit rdone, ldone;

inline lock() { atomic { !elock -> elock = 1 } }
inline unlock() { elock = 0 }

active proctype reader()
{
	byte n = 0;

	do
	:: n < NSEC ->
		atomic { rgp = gp; inctr = 1; incs = 1 };
		if
		:: lock(); queued = 1; unlock()
		:: skip
		fi;
		inctr = 0; /* leave: ctr = 0 */
		if
		:: queued -> lock(); boost = 0; queued = 0; unlock() /* dequeue, unboost */
		:: else -> skip
		fi;
		incs = 0;
		n++
	:: else -> break
	od;
	exited = 1;
	rdone = 1
}

active proctype leader()
{
	byte g = 0;

	do
	:: g < NGP ->
		gp++;
		atomic { waiting = 1; wgp = gp; wlvl = 0 };
		if
		:: wlvl = 1
		:: wlvl = 2
		fi;
		atomic { reqgp = gp; reqlvl = wlvl };
		if
		:: wlvl == 1 -> wlvl = 2; reqlvl = 2 /* a higher waiter came */
		:: skip
		fi;
		!(inctr && rgp != gp); /* no reader holds gp */
		atomic { reqgp = 0; reqlvl = 0 }; /* loan end */
		waiting = 0;
		g++
	:: else -> break
	od;
	ldone = 1
}

active proctype booster()
{
	byte rg, rl;

	do
	:: atomic { rg = reqgp; rl = reqlvl };
		if
		:: rl > 0 ->
			lock();
			if
			:: queued && reqgp == rg && reqlvl == rl && inctr && rgp != rg && boost < rl -> /* LEND */
				assert(!exited);
				boost = rl
			:: else -> skip
			fi;
			unlock()
		:: else -> skip
		fi
	:: rdone && ldone -> break
	od
}

active proctype monitor()
{
	assert(!(boost > 0 && !incs));                                  /* (1) */
	assert(!(boost > 0 && inctr &&
		 !(waiting && rgp != wgp && wlvl >= boost)));           /* (2) */
	assert(!(exited && boost > 0))                                   /* (3) */
}
