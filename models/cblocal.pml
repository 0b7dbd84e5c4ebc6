/*
 * cblocal.pml -- local callback lists (src/callback/callback_local.c,
 * L1-L7) with the default worker's loop (src/callback/callback_thread.c:
 * rcb__cb_worker_thread(), take_batch(), local_cycle(),
 * form_local_batch(); callback_call.c: barrier_one()) and
 * the owner's append (rcb__cb_local_append(), src/callback/callback.h).
 *
 * NOWN owner threads make NCALL calls each; one thread runs NBAR
 * rcb_barrier()s; one worker.  Callback i * NCALL + s is owner i's call
 * number s; a marker is MARK + b.  Chains are channels (FIFO).
 * Accesses are sequentially consistent: the C code's ordering argument
 * is that rcb_synchronize() is a full grace period, and every other
 * shared step (flip, take, leave, hand-over of a marker) is under the
 * registry lock, so each is one atomic step here.  The Q splice is one
 * step (the tail exchange) and comes after the take, outside the
 * registry lock, as in form_local_batch().  The flip count c is kept
 * modulo CMOD (2; -DCMOD=4 also asserts that a pending marker's tag is
 * never more than one flip old, which makes tag < count the same as
 * (c - tag) mod CMOD == 1).
 *
 * Grace period: at its start the worker records which owners are inside
 * a section (gpblk) and which calls have completed (gpcand); an owner
 * clears its gpblk bit when it leaves its section, so a section that
 * begins later (and sees the flip) never holds the grace period.  This
 * is the generation snapshot of the brief with the generation folded
 * into the bit: only the section in progress at the start can clear
 * it, as the next one begins after the clear.  At its end every call
 * in gpcand has had a full grace period.
 *
 * Transitions (C function in brackets):
 *  owner:   rcb_read_lock() (registers the thread if it left); one or
 *           more rcb_call*()s in the section (a nested call reads the
 *           mode anew): read mode [CBL-M]; if on append to its list of
 *           that parity, else enqueue on Q; rcb_read_unlock(); maybe
 *           leave the registry [leave_registry -> rcb__cb_local_leave]
 *           and come back at its next section (a registering
 *           rcb_read_lock(), as rcb_call() after rcb_unregister_thread()).
 *  worker:  normal: wait for Q; splice Q; grace period; invoke.  Or
 *           enter local mode (the rate heuristic: any time Q has work):
 *           splice Q, then cycles: flip (on: see ON_RULE) [CBL-F];
 *           grace period; invoke the batch; take [rcb__cb_local_steal]:
 *           older-parity lists of registered threads appended to the
 *           orphans of that parity, all of which are taken, markers due,
 *           lists_live cleared after a flip to off; splice Q; batch =
 *           taken ++ Q ++ markers; leave local mode when the mode is off
 *           and the batch is empty.
 *  barrier: under the registry lock: hand the marker over tagged with
 *           c if lists_live [rcb__cb_local_barrier]; else, after the
 *           lock, enqueue it on Q; wait until it is invoked.
 *
 * Claims (assertions):
 *  (1) exactly once: no callback is invoked twice; when the owners and
 *      the barriers are done and the worker sleeps outside local mode,
 *      every callback was invoked and every chain is empty (a lost
 *      marker leaves the barrier thread blocked: invalid end state);
 *  (2) order: each owner's callbacks are invoked in the order of its
 *      calls (L5);
 *  (3) barrier: when a marker is invoked, every call completed before
 *      its barrier began has been invoked (L6);
 *  (4) L2: the worker never takes list p of an owner inside a section
 *      that read parity p with the mode on;
 *  (5) a grace period after queueing: a callback is invoked only after
 *      a grace period that began after its call completed (L4).
 *
 * Omits: signal handlers (cb_appending), callbacks that call, other
 * workers, stop and shutdown, the coalescing wait, fork() (L8), the
 * backlog counts, booster mode (L7).
 */
#ifndef NOWN
#define NOWN 2
#endif
#ifndef NCALL
#define NCALL 2
#endif
#ifndef NBAR
#define NBAR 1
#endif

#ifndef CMOD
#define CMOD 2
#endif

/* The worker's choice of on (local_cycle()): the entry cycle, or a rate
 * of callbacks taken from the registered threads' lists at the last
 * take, which needs one at least; off is always possible
 * (local_capable() false: told to stop).  -DFREE_ON: on at any flip. */
#ifdef FREE_ON
#define ON_RULE true
#else
#define ON_RULE (entry || taken)
#endif

#define NCB (NOWN * NCALL)          /* callbacks, at most 16 */
#define ALLCB ((1 << NCB) - 1)
#define ALLBAR ((1 << NBAR) - 1)
#define MARK 32                     /* marker b is MARK + b */
#define OLDER ((c + 1) & 1)         /* (c - 1) & 1 */

/* rcb__cb_local_mode: flip count (mod CMOD) and the on bit */
byte c;
bit on;
bit lists_live;
chan lst[NOWN * 2] = [NCALL] of { byte };   /* owner i's list p: lst[2 * i + p] */
chan orph[2] = [NCB] of { byte };           /* orphans, by parity */
chan Q = [NCB + NBAR] of { byte };          /* the worker's queue */
chan M = [NBAR] of { byte, byte };          /* markers handed over: b, tag */
chan batch = [NCB + NBAR] of { byte };
chan tk = [NCB] of { byte };                /* the take's chain */
chan mk = [NBAR] of { byte };               /* the take's markers */
bit inlocal;                                /* the worker is in local mode */
byte reg;                                   /* registered owners, by bit */
byte insec;                                 /* owners inside a section */
byte rp[NOWN];                              /* parities read with on, this section */
byte gpblk;                                 /* sections the grace period waits for */
int done;                                   /* completed calls */
int gpcand;                                 /* completed when the grace period began */
int invoked;
byte nxt[NOWN];                             /* next call number to invoke, per owner */
int bsnap[NBAR];                            /* completed when barrier b began */
byte bardone;
byte odone;

/* Append chain @from to @to (splice, order kept); x is the caller's. */
inline move(from, to) {
	do
	:: from ? x -> to ! x
	:: empty(from) -> break
	od
}

/* rcb_synchronize() begins; it ends once every section in progress
 * then has ended (gpblk == 0). */
inline gp_begin() {
	gpblk = insec; gpcand = done
}

/* The end of rcb_synchronize() and invoke_batch(), one step (only the
 * worker reads the batch; the claims are checked at each node in turn).
 * Every batch is invoked right after a grace period, so (5) is checked
 * against that one: the call completed before it began. */
inline gp_end_invoke() {
	do
	:: batch ? x ->
		if
		:: x >= MARK ->
			assert((invoked & bsnap[x - MARK]) == bsnap[x - MARK]);  /* (3) */
			bardone = bardone | (1 << (x - MARK));
			bsnap[x - MARK] = 0
		:: else ->
			assert(((invoked >> x) & 1) == 0);                        /* (1) */
			assert(x % NCALL == nxt[x / NCALL]);                      /* (2) */
			assert((gpcand >> x) & 1);                                 /* (5) */
			invoked = invoked | (1 << x);
			nxt[x / NCALL]++
		fi
	:: empty(batch) -> break
	od;
	x = 0; gpcand = 0
}

/* rcb_read_lock(), which registers a thread that left, merged with the
 * first call's load of the mode: a flip between them only makes a grace
 * period wait for a section that reads the flip, a delay. */
inline read_mode() {
	on_ = on; p = c & 1;
	if
	:: on_ -> rp[i] = rp[i] | (1 << p)
	:: else -> skip
	fi;
	st = 1
}

/* rcb__cb_local_append() (L1) or enqueue() */
inline append() {
	if
	:: on_ -> lst[2 * i + p] ! i * NCALL + n
	:: else -> Q ! i * NCALL + n	/* [CB-Q] */
	fi;
	done = done | (1 << (i * NCALL + n));
	n++; on_ = 0; p = 0
}

/*
 * The last call of a section and rcb_read_unlock() are one step.  The
 * window between them adds nothing: a grace period that begins in it
 * waits for the unlock, a delay; a take in it follows a grace period
 * that began before the section, so it takes the parity before the one
 * the section read (L2), and the read-to-append window above is where
 * a take of the wrong list shows.
 */
proctype owner(byte i)
{
	byte n, x, p;
	byte st; /* 0: outside a section, 1: mode read, 2: between nested calls */
	bit on_;

	do
	:: d_step { st == 0 && n < NCALL -> /* rcb_read_lock(); [CBL-M] */
		reg = reg | (1 << i); insec = insec | (1 << i);
		read_mode()
	   }
	:: d_step { st == 1 -> /* the call returns; rcb_read_unlock() */
		append();
		insec = insec & ~(1 << i); gpblk = gpblk & ~(1 << i);
		rp[i] = 0; st = 0
	   }
	:: d_step { st == 1 && n + 1 < NCALL -> append(); st = 2 } /* more calls nest */
	:: d_step { st == 2 -> read_mode() } /* nested call, [CBL-M] */
	:: d_step { st == 0 && (reg >> i) & 1 -> /* leave_registry(), L3: older first */
		reg = reg & ~(1 << i);
		move(lst[2 * i + OLDER], orph[OLDER]);
		move(lst[2 * i + (c & 1)], orph[c & 1]);	/* [LV-NEW] */
		x = 0
	   }
	:: d_step { st == 0 && n == NCALL -> odone++ };
		break
	od
}

init {
	byte i;

	atomic {
		do
		:: i < NOWN -> run owner(i); i++
		:: else -> break
		od
	}
}

/* barrier_one(): the registry lock is held while the marker is handed
 * over, not across the enqueue of a marker that was not. */
active proctype barrier()
{
	byte b;
	byte bs; /* 0: before, 1: to enqueue, 2: waiting */

	do
	:: d_step { bs == 0 && b < NBAR -> /* rcb__cb_local_barrier() */
		bsnap[b] = done;
		if
		:: lists_live -> M ! b, c; bs = 2	/* [BAR-HAND] L6 */
		:: else -> bs = 1
		fi
	   }
	:: d_step { bs == 1 -> Q ! MARK + b; bs = 2 } /* enqueue() */
	:: d_step { bs == 2 && (bardone >> b) & 1 -> b++; bs = 0 }
	:: bs == 0 && b == NBAR -> break
	od
}

/*
 * The worker's step boundaries: a flip and the start of the grace period
 * that follows it are one step, as are the end of a grace period and
 * the invocation of the batch.  Neither merge loses a behaviour that
 * matters to the claims: an owner step between a flip and the start of
 * rcb_synchronize() only makes the grace period wait longer (a section
 * that read the flip) or marks fewer calls as covered by it (stricter
 * for (5)); and the invocation reads and writes only the batch and the
 * claims' ghosts, which no owner step touches.
 */
active proctype worker()
{
	byte x, i, k, t, p;
	bit entry, taken;

normal:
end_idle:
	do
	:: d_step { nempty(Q) -> /* take_batch(), then rcb_synchronize() */
		move(Q, batch); x = 0;
		gp_begin()
	   };
		d_step { gpblk == 0 -> gp_end_invoke() }
	:: d_step { nempty(Q) -> /* local mode: local_cycle(entry) */
		inlocal = 1; entry = 1;
		move(Q, batch); x = 0	/* take_batch() */
	   };
		goto cycle
	od;

cycle:
	atomic { /* rcb__cb_local_flip() [CBL-F], then rcb_synchronize() */
		if
		:: d_step { ON_RULE ->
			c = (c + 1) % CMOD; on = 1; lists_live = 1; gp_begin();
			entry = 0; taken = 0
		   }
		:: d_step { c = (c + 1) % CMOD; on = 0; gp_begin(); entry = 0; taken = 0 }
		fi
	};
	d_step { gpblk == 0 -> gp_end_invoke() };	/* [LC-GP] */
	d_step { /* rcb__cb_local_steal(), registry lock */
		p = OLDER;
		i = 0;
		do
		:: i < NOWN ->
			if
			:: (reg >> i) & 1 ->
				assert(!(((insec >> i) & 1) && ((rp[i] >> p) & 1)));  /* (4) */
				taken = taken || len(lst[2 * i + p]) > 0;
				move(lst[2 * i + p], orph[p])
			:: else -> skip
			fi;
			i++
		:: else -> break
		od;
		move(orph[p], tk);
		do
		:: M ? <k, t> ->
			assert((c + CMOD - t) % CMOD <= 1);
			if
			:: on && (c + CMOD - t) % CMOD < 1 -> break	/* [MK-DUE] tag >= count */
			:: else -> M ? k, t; mk ! MARK + k
			fi
		:: empty(M) -> break
		od;
		if
		:: !on -> lists_live = 0
		:: else -> skip
		fi;
		i = 0; k = 0; t = 0; p = 0; x = 0
	};
	/* form_local_batch(): the take, then the queue, then the markers;
	 * local mode ends after a flip to off whose batch is empty. */
	if
	:: d_step { !on && len(tk) == 0 && len(Q) == 0 && len(mk) == 0 ->
		inlocal = 0
	   };
		goto normal
	:: d_step { on || len(tk) > 0 || len(Q) > 0 || len(mk) > 0 ->
		move(tk, batch); move(Q, batch);	/* [FORM-ORDER] */
		move(mk, batch);
		x = 0
	   };
		goto cycle
	fi
}

active proctype final()
{
	byte i;

	(odone == NOWN && bardone == ALLBAR && !inlocal && len(Q) == 0 &&
	 len(batch) == 0);
	assert(invoked == ALLCB);                                          /* (1) */
	assert(len(orph[0]) == 0 && len(orph[1]) == 0 && len(M) == 0 &&
	       len(tk) == 0 && len(mk) == 0);                               /* (1) */
	do
	:: i < NOWN ->
		assert(len(lst[2 * i]) == 0 && len(lst[2 * i + 1]) == 0);    /* (1) */
		i++
	:: else -> break
	od
}
