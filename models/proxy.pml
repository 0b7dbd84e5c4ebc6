/*
 * proxy.pml -- the pi backend's proxy lock (src/boost/backend_pi.c).
 *
 * One reader thread (TID R, reused by a second thread after the first
 * exits), one booster, one helper, one slot, one element lock.  The
 * kernel's PI futex is abstracted to the word (0, R or H) plus its
 * FUTEX_WAITERS bit (waiters) and "the helper is a kernel waiter"
 * (hwait); while hwait holds, the kernel boosts the thread whose TID the
 * word names.  Each d_step/atomic block is one kernel futex operation
 * (under the hash-bucket lock) or one compare-and-exchange.
 *
 * Transitions (C function in brackets):
 *  reader:  enter section; maybe block (queued under the lock
 *           [rcb_note_block]); leave: phase UNLOCKING (ctr = 0), then
 *           under the lock detach the slot and dequeue [rcb__pi_take],
 *           then release the word: cas R -> 0, or FUTEX_UNLOCK_PI
 *           (hands the lock to a waiting helper) [rcb__pi_release];
 *           only then OUT.  After NSEC sections the thread may exit
 *           and a new thread reuses TID R.
 *  booster: under the lock, a queued reader without a slot, a free
 *           slot and a free helper: word := R, refs := 2, job
 *           [rcb__pi_boost].
 *  helper:  cas 0 -> H, else FUTEX_LOCK_PI (set waiters, wait);
 *           handed over, or time out (retry unless stopping, else give
 *           up leaving waiters set); unlock if locked; drop its ref
 *           [pi_run_job].
 *  stopper: shutdown at any time: the booster stops and is joined,
 *           then the helpers are told to stop [rcb__booster_stop,
 *           rcb__pi_stop]; the helper gives up.
 *
 * Claims:
 *  (1) never boost a thread outside its critical section, nor a reused
 *      TID: hwait && word == R implies the thread named R is in its
 *      section or in its unlock path (monitor, assertion);
 *  (2) the word is 0 or the helper's whenever the reader is OUT;
 *  (3) no slot leaked: at the end refs == 0, word == 0, no slot held;
 *  (4) liveness (-DLIVENESS, pan -a -f): a helper given a job always
 *      finishes it (ltl helper_done).
 */
#ifndef NSEC
#define NSEC 2
#endif

#define R 1     /* the reader's TID (and its successor's) */
#define H 9     /* the helper's TID */
#define OUT 0
#define INCS 1
#define UNLOCKING 2

byte word;       /* the slot's futex word: 0, R or H */
bit waiters;     /* FUTEX_WAITERS */
bit hwait;       /* the helper waits in the kernel (boosting the owner) */
byte refs;       /* slot references (invariant 1) */
bit job;         /* helper bound to the slot, busy */
bit rslot;       /* the reader's t->boost.pi_slot */
bit queued;      /* reader BLOCKED or BOOSTED */
bit elock;       /* the element lock */
byte rphase;     /* OUT, INCS, UNLOCKING */
bit stopreq;     /* rcb__booster_stop(): the boosters stop */
bit stop;        /* rcb__pi_stop(), after the boosters are joined */
bit rdone, hdone, bdone;

inline lock() { atomic { !elock -> elock = 1 } }
inline unlock() { elock = 0 }

active proctype reader()
{
	byte n = 0, g = 0;
	bit s;

	do
	:: n < NSEC ->
		rphase = INCS;
		if
		:: lock(); queued = 1; unlock()	/* blocks in the section */
		:: skip
		fi;
		rphase = UNLOCKING; /* leave */
		lock();
		s = rslot; rslot = 0; queued = 0;
		unlock();
		if
		:: s ->
			d_step {
				if
				:: word == R && !waiters -> word = 0	/* [PI-R] cas */
				:: else ->	/* FUTEX_UNLOCK_PI by the owner */
					assert(word == R);
					if
					:: hwait -> word = H; hwait = 0; waiters = 0	/* handoff */
					:: else -> word = 0; waiters = 0
					fi
				fi
			}
			refs--
		:: else -> skip
		fi;
		rphase = OUT;
		n++
	:: n == NSEC && g == 0 -> n = 0; g = 1	/* exit; a new thread reuses R */
	:: n == NSEC && g == 1 -> break
	od;
	rdone = 1
}

active proctype booster()
{
	do
	:: rdone || stopreq -> break
	:: !rdone && !stopreq && queued && !rslot && !job ->
		/* A pass that finds a target (the C booster sleeps a period
		 * between passes: it cannot starve the reader of the lock). */
		lock();
		if
		:: queued && !rslot && refs == 0 && !job ->
			word = R; refs = 2; rslot = 1; job = 1
		:: else -> skip
		fi;
		unlock()
	od;
	bdone = 1
}

active proctype helper()
{
	bit locked;

	do
	:: job ->
		locked = 0;
		d_step { if :: word == 0 -> word = H; locked = 1 :: else -> skip fi }	/* [PI-W] */
		do
		:: locked -> break
		:: else ->
			d_step {	/* FUTEX_LOCK_PI */
				if
				:: word == 0 -> word = H; locked = 1
				:: else -> waiters = 1; hwait = 1
				fi
			}
			if
			:: locked -> break
			:: else ->
				if
				:: atomic { !hwait && word == H -> locked = 1 }	/* handed over */
				:: atomic { hwait -> hwait = 0 }	/* timed out */
					if
					:: stop -> break	/* give up, waiters stays */
					:: else -> skip
					fi
				fi
			fi
		od;
		if
		:: locked -> d_step { assert(word == H); word = 0; waiters = 0 }
		:: else -> skip
		fi;
		refs--;
		job = 0
	:: !job && (stop || (rdone && bdone)) -> break
	od;
	hdone = 1
}

active proctype stopper()
{
	/* rcb__booster_stop(): join the boosters, then rcb__pi_stop().
	 * Stopping the helpers first would let a booster hand a job to a
	 * helper that has left: spin finds that leaked slot (claim 3). */
	if
	:: stopreq = 1; bdone -> stop = 1
	:: skip
	fi
}

/* Claims (1) and (2): checked in every state. */
active proctype monitor()
{
end:	atomic {
		((hwait && word == R && rphase == OUT) ||
		 (rphase == OUT && word == R)) -> assert(false)
	}
}

/* Claim (3). */
active proctype final()
{
	(rdone && hdone && bdone) -> assert(refs == 0 && word == 0 && !rslot && !job)
}

#ifdef LIVENESS
ltl helper_done { [] (job -> <> !job) }
#endif
