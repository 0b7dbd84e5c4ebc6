/*
 * cbboost.pml -- booster mode for callback workers
 * (src/boost/callback_boost.c): booster 0 raises a worker that has
 * work, the worker lowers itself before it sleeps on an empty queue.
 *
 * One worker, one producer, booster 0.  The worker's attributes are one
 * bit (prio: 0 its own, 1 the boost level); the queue is a count; the
 * worker's futex word is -1 (here 1) while it may sleep on an empty
 * queue.  Accesses are sequentially consistent, as the C code's pairs
 * are: [CB-Q]/[CB-S] (seq_cst exchange of the tail, seq_cst store of
 * -1) and [CBB-B]/[CBB-S] (seq_cst store of BOOSTED, seq_cst loads).
 *
 * Transitions (C function in brackets):
 *  producer: NPROD times: enqueue [rcb__cb_push]; if the futex reads
 *            -1, set it to 0 and wake the worker [rcb__cb_wake_thread].
 *  worker:   take a callback while the queue is not empty; else store
 *            futex = -1, look at the queue again (work: futex = 0, go on)
 *            [wait_for_work]; lower itself [rcb__cb_unboost_self]: read
 *            bstate, wait while BUSY, and if BOOSTED take it (BOOSTED ->
 *            BUSY), store NONE, then restore its attributes if they
 *            still are the boost's (B2); sleep until woken; futex = 0.
 *  booster:  NBOOST times, whenever it likes (its "held up" test is a
 *            heuristic: the claims must hold whatever it decides)
 *            [watch, boost]: take bstate NONE -> BUSY; a worker already
 *            at a real-time level is left alone (NONE); else set the boost
 *            level, store BOOSTED, then read the futex: -1 means the
 *            worker may be asleep, so take BOOSTED -> BUSY again and
 *            restore at once [B3].
 *
 * Claims (assertions):
 *  (1) no residual boost: a worker asleep on its futex runs at its own
 *      attributes whenever the booster is not half-way through a boost;
 *      at the end (producer and booster done, worker asleep) the worker
 *      is at its own attributes and bstate is NONE;
 *  (2) one restore per boost (B1): restores never exceed boosts, and
 *      they are equal at the end;
 *  (3) no callback left behind: at the end the queue is empty (no lost
 *      wake-up).
 */
#ifndef NPROD
#define NPROD 3
#endif
#ifndef NBOOST
#define NBOOST 3
#endif

#define NONE 0
#define BUSY 1
#define BOOSTED 2

byte queue;          /* callbacks queued, not yet taken */
bit futex;           /* 1: the worker's futex word is -1 */
bit asleep;          /* the worker waits in FUTEX_WAIT */
byte bstate = NONE;  /* w->bstate */
bit prio;            /* 1: the worker runs at the boost level */
bit inboost;         /* the booster is between its raise and its end */
byte boosts, restores;
bit pdone, bdone;

/* The booster's restore [restore()]: B2, the attributes are put back
 * only if they still are the boost's; then bstate is released. */
inline restore() {
	if
	:: prio == 1 -> prio = 0
	:: else -> skip
	fi;
	restores++;
	assert(restores <= boosts);                                    /* (2) */
	bstate = NONE
}

active proctype producer()
{
	byte n = 0;

	do
	:: n < NPROD ->
		queue++; /* [CB-Q] */
		if
		:: atomic { futex == 1 -> futex = 0; asleep = 0 } /* [CB-F], wake */
		:: else -> skip
		fi;
		n++
	:: else -> break
	od;
	pdone = 1
}

active proctype worker()
{
	byte s;

end_idle:
	do
	:: queue > 0 -> queue-- /* invoke */
	:: queue == 0 ->
		futex = 1; /* [CB-S] */
		if
		:: queue > 0 -> futex = 0
		:: else ->
			/* rcb__cb_unboost_self() [CBB-S] */
			s = bstate;
			do
			:: s == BUSY -> s = bstate
			:: else -> break
			od;
			if
			:: atomic { s == BOOSTED && bstate == BOOSTED -> bstate = BUSY };
				/* The boost is given up before the lowering:
				 * a boost applied meanwhile finds the worker
				 * at the boost level (real-time) and leaves. */
				bstate = NONE;
				restores++;
				assert(restores <= boosts);                /* (2) */
				if
				:: prio == 1 -> prio = 0
				:: else -> skip
				fi
			:: else -> skip
			fi;
			/* rcb__futex_wait(-1): sleeps only if still -1 */
			atomic {
				if
				:: futex == 1 -> asleep = 1
				:: else -> skip
				fi
			};
			assert(!(asleep && prio == 1 && !inboost));      /* (1) */
end_sleep:
			!asleep;
			futex = 0
		fi
	od
}

active proctype booster()
{
	byte n = 0;

	do
	:: n < NBOOST ->
		if
		:: atomic { bstate == NONE -> bstate = BUSY; inboost = 1 };
			if
			:: prio == 1 -> /* real-time already: left alone */
				bstate = NONE
			:: else ->
				prio = 1;
				boosts++;
				bstate = BOOSTED; /* [CBB-B] */
				if
				:: futex == 1 -> /* [CBB-B] */
					if
					:: atomic { bstate == BOOSTED -> bstate = BUSY };
						restore()
					:: else -> skip /* the worker took it */
					fi
				:: else -> skip
				fi
			fi;
			inboost = 0
		:: else -> skip
		fi;
		n++
	:: else -> break
	od;
	bdone = 1
}

active proctype monitor()
{
	assert(!(asleep && prio == 1 && !inboost));                      /* (1) */
	assert(restores <= boosts)                                       /* (2) */
}

active proctype final()
{
	(pdone && bdone && asleep);
	assert(prio == 0 && bstate == NONE);                             /* (1) */
	assert(restores == boosts);                                      /* (2) */
	assert(queue == 0)                                               /* (3) */
}
