/*
 * gppoll.pml -- polled grace periods with the inline attempt: a cold
 * rcb_start_poll() runs the grace period itself and may give up
 * (src/core/gp.c invariants 5 and 8: lead_grace_period(), do_grace_period(),
 * readers_hold(), no_other_reader(), look_at_others(), rcb__gp_try_now(),
 * synchronize(); src/callback/gp_poll.c invariants 1, 4 and 6:
 * rcb_start_poll(), poll_arm(), poll_cb(), rcb_poll_state()), with the
 * callback thread that serves the requests (rcb__cb_worker_thread() in
 * src/callback/callback_thread.c: take the batch, rcb_synchronize(),
 * invoke).
 *
 * NRD reader threads run NSEC read-side critical sections each; NPOLL
 * poller threads call rcb_start_poll() NCALLS times each; NSYNC (0 or 1)
 * thread calls rcb_synchronize() once; one callback thread.  Grace
 * periods are numbered as in the C code: started (gp_seq_started) and
 * done (gp_seq_done), written only under the grace-period lock (lk,
 * one holder); a completing grace period sets done = started, its own
 * number.  The values are exact (bytes; the runs are bounded).
 *
 * Reader counter.  rcb__gp.ctr advances by one step per grace period
 * that reaches do_grace_period() (one that gives up advances it too);
 * a reader's ctr is 0 outside a section and its snapshot inside.  A
 * grace period scans only while it holds the lock it took before its
 * advance, so the gp it scans for is always the current rcb__gp.ctr,
 * and rcb__holds_gp(ctr, gp) ("inside, snapshot != gp") is "inside with
 * a snapshot older than the current counter".  So a ctr is abstracted
 * to OUT, OLD or CUR, and an advance turns every CUR into OLD, in the
 * readers' ctr and in a value a reader loaded and has not stored yet.
 * This is the counter of gp.c invariant 2 without its wrap (the wrap
 * after 2^32 grace periods is invariant 2's, outside this model).  The
 * nesting depth is left out: a nested lock does not change the snapshot.
 *
 * Memory model: sequentially consistent.  Every fence of the C code
 * ([GP-A], [GP-C], [GP-N2], [PO-S], [PO-W], [PO-K], [GP-D]/[PO-D]) is
 * implied; doc/ordering.md argues the weak-memory side, membarrier
 * included.  What this model checks is the protocol: the numbering, the
 * give-up, the request it leaves, the hand-over to the callback thread,
 * and that every cookie handed out completes.
 *
 * Transitions (C function in brackets):
 *  reader:   load rcb__gp.ctr [rcb_read_lock()]; store the snapshot in
 *            its ctr, the section begins [RD-A]; store 0, the section
 *            ends [rcb_read_unlock(), RD-B].  The load and the store are
 *            two steps: a grace period may advance the counter and scan
 *            between them, and the reader then runs a section with an
 *            old snapshot, which the next grace period waits for.
 *  poller:   [rcb_start_poll()] cookie = started + 1 [rcb_get_state(),
 *            PO-S]; return at once if started >= cookie (a second load:
 *            invariant 4, a grace period numbered >= cookie has begun)
 *            [SP-BEGUN].  Otherwise [rcb__gp_try_now()]: trylock (EBUSY:
 *            NONE); done >= cookie: DONE; the plain look may leave the
 *            grace period to the callback thread (NONE); else lead
 *            number n = started + 1 and advance the counter
 *            [lead_grace_period(true), do_grace_period(true)]; scan the
 *            readers once [readers_hold()]: one holds n: give up, the
 *            request is n [*owed = gp_seq_started, under the lock:
 *            HANDED]; none: done = n, DONE.  On NONE the request is the
 *            cookie.  A request is poll_req = max(poll_req, request)
 *            [rcb_max_relaxed()], [PO-W], and poll_arm() if poll_queued
 *            is clear.
 *  poll_arm: the compare-and-swap poll_queued 0 -> 1 [PO-A]; its winner
 *            puts the poll head on the callback thread's queue
 *            [rcb_call()].
 *  syncer:   [synchronize()] snap = started [GP-S]; lock (blocking);
 *            batched if done >= snap + 1, else lead number started + 1
 *            [lead_grace_period(false)]: advance the counter, wait until
 *            no reader holds it [wait_for_readers()], done = started;
 *            unlock.
 *  callback: wait for the poll head on its queue; take it (the splice of
 *            take_batch()); rcb_synchronize() as the syncer (its snap is
 *            read after the splice: invariant 4 of gp_poll.c); then
 *            poll_cb(): poll_queued = 0 [PO-K]; if poll_req > done,
 *            poll_arm() [PO-RE].
 *
 * Nondeterminism.  look_at_others() is a hint (relaxed loads: a ctr
 * store still in a store buffer reads as 0, a stale ctr as inside), and
 * the "4 ms" gap rule (RCB_GP_INLINE_GAP_NS) and OTHERS_LOCKED depend on
 * time and other threads: the attempt leaves the grace period to the
 * callback thread (NONE) or starts, by a free choice, whatever the
 * readers do.  -DREGBUSY=1: readers_hold()'s registry trylock may fail
 * too (a give-up with no reader holding; more states, no new outcome:
 * the scan's give-up already covers "numbered, counter advanced, not
 * completed").  no_other_reader(true)'s -1 (give up before the counter
 * advance) is that give-up without the advance: only a scan tells OLD
 * from CUR, and every scan follows an advance, which makes them alike.
 * Readers are always
 * registered: invariant 7 (nobody else registered: no scan) is not
 * modelled.
 *
 * Step granularity.  A blocking wait is one pass over the readers that
 * waits at each until it does not hold the grace period: the C code's
 * repeated scans end with one scan that reads each reader once, in turn,
 * not holding, and every such scan is a run of this pass (the earlier
 * scans are delays).  The inline scan is that pass without waiting.  The
 * lock, the test of done, the look, the numbering and the counter
 * advance are one step, and so are the publication of done and the
 * unlock: done and started change only under the lock, and a lock step
 * commutes with every step that does not use the lock (a poller whose
 * trylock would fail in the window takes the NONE way, which the free
 * choice covers).  The hint load [SP-BEGUN] stays a step of its own, after
 * the cookie's: between them a give-up can number the cookie, which is
 * how a caller returns on a grace period that an attempt then abandons.
 * Other merged steps are justified where they are.
 *
 * Claims (assertions):
 *  (1) safety: when done reaches a cookie, every read-side critical
 *      section in progress when that cookie was taken has ended: ghost
 *      blk[k] holds the readers inside a section at cookie k's [PO-S]
 *      (with ck[k], kept while blk[k] != 0), a reader clears its bit when
 *      it leaves; checked when done is published (the only step that can
 *      break it) and when a poller returns (rcb_poll_state() of its
 *      cookie).  Likewise sblk for the syncer's return;
 *  (2) done <= started at all times (gp_poll.c invariant 1), checked at
 *      each publication (the only write of done);
 *  (3) progress: once every reader, poller and syncer has finished and
 *      the callback thread is idle with nothing queued, done >= every
 *      cookie handed out (maxck) and poll_queued is 0.  A process left
 *      blocked there (a lost lock, a wait that cannot end) is an
 *      invalid end state.
 *
 * -DREQ_COOKIE: on giving up, request the cookie instead of n.  No
 * counterexample (also with -DNPOLL=3 -DNSYNC=0, where a caller returns
 * on seeing the abandoned n begun): a request is needed, but any request
 * above gp_seq_done at the give-up serves, because a grace period that
 * completes after the give-up numbered itself after n and publishes
 * done = its own number > n, and the cookie is above done (it was
 * tested under the lock).
 *
 * Omits: nesting, registration and invariant 7, membarrier and store
 * buffers (doc/ordering.md), the futex sleep and wake-up (gp.c invariant
 * 4; the wait is a guard here), the spin of trylocks before the blocking
 * lock (a delay), the callback thread's other callbacks and its start
 * policy (gp_policy.c only delays a grace period), expedited grace
 * periods and inheritance (inherit.pml), rcb_shutdown() (no inline
 * attempt, poll_arm() clears poll_queued), fork().
 */
#ifndef NRD
#define NRD 1         /* reader threads */
#endif
#ifndef NSEC
#define NSEC 2        /* sections per reader */
#endif
#ifndef NPOLL
#define NPOLL 2       /* poller threads */
#endif
#ifndef NCALLS
#define NCALLS 1      /* rcb_start_poll() calls per poller */
#endif
#ifndef NSYNC
#define NSYNC 1       /* rcb_synchronize() callers, 0 or 1 */
#endif
#ifndef REGBUSY
#define REGBUSY 0     /* 1: the registry trylock of readers_hold() may fail */
#endif

#define NK (NPOLL * NCALLS)   /* cookies, slot k = p * NCALLS + call */

/*
 * A reader's ctr, abstracted: outside a section, or a snapshot older
 * than rcb__gp.ctr, or equal to it.  Every grace period that scans
 * holds the lock from its counter advance to the end of its scans, so
 * the gp it scans for is always the current rcb__gp.ctr, and
 * rcb__holds_gp(ctr, gp) is "ctr is OLD".  A counter advance turns
 * every CUR into OLD, also in a value loaded but not yet stored.
 */
#define OUT 0
#define OLD 1
#define CUR 2
#define HOLDS(r) (rctr[r] == OLD)

byte started;         /* gp_seq_started */
byte done;            /* gp_seq_done */
bit lk;               /* rcb__gp_lock held */
byte rctr[NRD];       /* each reader's ctr: OUT, OLD or CUR */
byte rld[NRD];        /* its load of rcb__gp.ctr not yet stored: OUT, OLD, CUR */
bit queued;           /* poll_queued */
byte req;             /* poll_req */
bit onq;              /* poll_head on the callback thread's queue */

/* ghosts */
byte insec;           /* readers inside a section (since their ctr store) */
byte blk[NK];         /* sections in progress at cookie k's [PO-S], not ended */
byte ck[NK];          /* cookie k while blk[k] != 0, else 0 */
byte sblk;            /* sections in progress at the syncer's [GP-S] */
byte maxck;           /* the largest cookie handed out */
byte fin;             /* readers, pollers and syncers finished */
bit cbbusy;           /* the callback thread has taken the head */

/*
 * [GP-D]: the grace period is complete; done = started (the holder of
 * the lock numbered it).  Claims (1) and (2) are checked here, the only
 * step that raises done (blk only loses bits otherwise, and a cookie is
 * taken > started >= done).  q is the caller's.
 */
inline publish_done() {
	assert(done <= started);                                  /* (2) */
	done = started;
	q = 0;
	do
	:: q < NK ->
		assert(ck[q] == 0 || done < ck[q] || blk[q] == 0);   /* (1) */
		q++
	:: else -> break
	od;
	q = 0
}

/* [GP-A], the counter advance, [GP-C]; j is the caller's. */
inline advance() {
	j = 0;
	do
	:: j < NRD ->
		if
		:: rctr[j] == CUR -> rctr[j] = OLD
		:: else -> skip
		fi;
		if
		:: rld[j] == CUR -> rld[j] = OLD
		:: else -> skip
		fi;
		j++
	:: else -> break
	od;
	j = 0
}

/*
 * poll_arm(): [PO-A] the compare-and-swap winner puts the head on the
 * callback thread's queue [rcb_call()]; a loser returns (the winner's
 * head serves its request: the callback reads poll_req after it).  The
 * compare-and-swap and the enqueue are one step: only the callback
 * thread reads onq, and only once the winner's enqueue is done, so the
 * enqueue commutes with every step that could come between.
 */
inline poll_arm() {
	if
	:: !queued -> queued = 1; onq = 1
	:: else -> skip
	fi
}

/*
 * synchronize() after its [GP-S] snap (the caller's step, into snap).
 * The lock, the batching test and, when leading, the numbering and the
 * counter advance are one step: done and started change only under the
 * lock, and the steps the lock excludes are the only ones that could
 * tell the difference (a poller whose trylock fails in the window goes
 * the NONE way, which the nondeterministic look covers anyway).  The
 * wait [wait_for_readers()] is a pass over the readers (see above); the
 * publication [GP-D] and the unlock are one step.  A batched caller
 * holds the lock for the pass's last step (i == NRD) only.
 */
inline synchronize() {
	atomic {
		lk == 0 -> lk = 1;	/* pthread_mutex_lock(&rcb__gp_lock) */
		if
		:: done >= snap + 1 -> i = NRD	/* batched (invariant 5) */
		:: else ->	/* lead_grace_period(false) */
			started++; advance(); g = 1; i = 0	/* [GP-N2] [GP-A] [GP-C] */
		fi
	};
	do
	:: d_step { i < NRD && !HOLDS(i) -> i++ }
	:: atomic { i == NRD ->
		if
		:: g -> publish_done()	/* [GP-D] */
		:: else -> skip
		fi;
		lk = 0; snap = 0; g = 0; i = 0;
		break
	   }
	od
}

/* rcb_start_poll() returns cookie k; the caller's rcb_poll_state(). */
inline returned() {
	if
	:: done >= cookie -> assert(blk[k] == 0)	/* (1) */
	:: else -> skip
	fi;
	cookie = 0; k = 0; n++
}

/* rcb__gp_try_now() gave up after numbering (RCB__GP_NOW_HANDED):
 * unlock, and the owed number is read under the lock. */
inline give_up() {
#ifdef REQ_COOKIE
	rq = cookie;	/* -DREQ_COOKIE: request the cookie instead */
#else
	rq = started;	/* [TRY-OWED] *owed = gp_seq_started */
#endif
	lk = 0; i = 0
}
/* rcb_start_poll() on RCB__GP_NOW_HANDED: req = owed, then request it */
#define HANDED goto request	/* [SP-HANDED] */

proctype reader(byte r)
{
	byte s, j;

	do
	:: s < NSEC ->
		rld[r] = CUR;	/* rcb_read_lock(): load rcb__gp.ctr */
		d_step {	/* its ctr store [RD-A]: the section begins */
			rctr[r] = rld[r]; rld[r] = OUT;
			insec = insec | (1 << r)
		};
		d_step {	/* rcb_read_unlock(): ctr = 0 [RD-B] */
			rctr[r] = OUT;
			insec = insec & ~(1 << r);
			sblk = sblk & ~(1 << r);
			j = 0;
			do
			:: j < NK ->
				blk[j] = blk[j] & ~(1 << r);
				if
				:: blk[j] == 0 -> ck[j] = 0	/* nothing left to check */
				:: else -> skip
				fi;
				j++
			:: else -> break
			od;
			j = 0; s++
		}
	:: else -> break
	od;
	fin++
}

proctype poller(byte p)
{
	byte n, k, q, j, cookie, rq, i;

next:
	do
	:: d_step { n < NCALLS ->	/* rcb_get_state(): [PO-S], gp_seq_started + 1 */
		k = p * NCALLS + n;
		cookie = started + 1;
		if	/* ghosts of claim (1), kept only while a section is in progress */
		:: insec != 0 -> ck[k] = cookie; blk[k] = insec
		:: else -> skip
		fi;
		if
		:: cookie > maxck -> maxck = cookie
		:: else -> skip
		fi
	   };
		atomic {
			if
			:: started >= cookie -> returned(); goto next	/* [SP-BEGUN] invariant 4 */
			:: else -> skip
			fi
		};
		/* rcb__gp_try_now(cookie, &owed): the trylock, the test of
		 * done, the look, and lead_grace_period(true)'s numbering
		 * [GP-N2] and counter advance [GP-A] [GP-C] are one step (done
		 * and started change only under the lock; the look is
		 * nondeterministic).  DONE and NONE hold the lock for no step. */
		atomic {
			if
			:: lk == 0 ->	/* pthread_mutex_trylock(&rcb__gp_lock) */
				if
				:: done >= cookie -> returned(); goto next	/* RCB__GP_NOW_DONE */
				:: else ->
					if
					:: rq = cookie; goto request	/* look_at_others(), gap: NONE */
					:: lk = 1; started++; advance(); i = 0	/* [TRY-ADV] */
					fi
				fi
			:: else -> rq = cookie; goto request	/* EBUSY: RCB__GP_NOW_NONE */
			fi
		};
		do	/* readers_hold(n, &all_out, true): one scan */
		:: d_step { i < NRD && !HOLDS(i) -> i++ }
		:: atomic { i < NRD && HOLDS(i) -> give_up(); HANDED }	/* [TRY-SCAN] */
		:: atomic { REGBUSY && i == 0 -> give_up(); HANDED }	/* registry trylock fails */
		:: atomic { i == NRD ->	/* none holds n: RCB__GP_NOW_DONE */
			publish_done(); lk = 0; i = 0;	/* [GP-D] */
			returned(); goto next
		   }
		od;
request:
		/* rcb_max_relaxed(&poll_req, req); [PO-W]; the load of
		 * poll_queued; poll_arm().  One step under sequential
		 * consistency: poll_cb()'s clear and test ([PO-K]) come wholly
		 * before it (the callback sees the raised request, or the
		 * poller sees the head unqueued) or after (the callback sees
		 * it); a load that saw poll_queued clear and a later
		 * compare-and-swap only add a grace period. */
		atomic {
			if
			:: rq > req -> req = rq
			:: else -> skip
			fi;
			rq = 0;
			poll_arm();
			returned()
		}
	:: n == NCALLS -> break
	od;
	fin++
}

#if NSYNC > 0
active proctype syncer()
{
	byte snap, i, q, j;
	bit g;

	d_step { snap = started; sblk = insec };	/* [GP-S] */
	synchronize();
	atomic {
		assert(sblk == 0);	/* (1): every section in progress at [GP-S] ended */
		fin++
	}
}
#endif

/* rcb__cb_worker_thread(): take_batch(), rcb_synchronize(), invoke poll_cb().
 * The splice and the [GP-S] read of started are one step: nothing
 * between them could write onq (a poll_arm() winner needs poll_queued
 * clear, which only this thread's poll_cb() does, later), so the splice
 * commutes with every step that could come between. */
active proctype callback()
{
	byte snap, i, q, j;
	bit g;

end_idle:
	do
	:: d_step {	/* take_batch(): the splice; rcb_synchronize(): [GP-S] */
		onq -> onq = 0; cbbusy = 1; snap = started
	   };
		synchronize();
		queued = 0;	/* poll_cb(): [PO-K] */
		/* poll_req, then done ([PO-D]), then the compare-and-swap: one
		 * step; a done read later could only be larger and covers the
		 * request read, and a poller's win in between is the loss of
		 * ours, as after it */
		d_step {
			if
			:: req > done -> poll_arm()	/* [PO-RE] re-arm */
			:: else -> skip
			fi;
			cbbusy = 0
		}
	od
}

init {
	byte i;

	atomic {
		i = 0;
		do
		:: i < NRD -> run reader(i); i++
		:: else -> break
		od;
		i = 0;
		do
		:: i < NPOLL -> run poller(i); i++
		:: else -> break
		od
	}
}

/* Claim (3): nothing left to run, the callback thread idle. */
active proctype final()
{
	(fin == NRD + NPOLL + NSYNC && !onq && !cbbusy);
	assert(!queued);	/* (3) the head is not left marked queued */
	assert(done >= maxck)	/* (3) every cookie handed out has elapsed */
}
