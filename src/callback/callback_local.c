/* SPDX-License-Identifier: MIT */
/*
 * Local callback lists: the default worker's local mode, in which
 * rcb_call*() queues with plain stores to a list of the calling thread's
 * own while callbacks arrive faster than grace periods complete.
 *
 * Why.  The queue's exchange (callback.c, [CB-Q]) is a locked
 * instruction: it waits for the caller's earlier stores, the new node's
 * line among them, and it was two thirds of rcb_call()'s cost.
 * ck_epoch's call is two plain stores to the caller's own record.  A
 * thread's own list needs no atomic instruction, but someone must take
 * it from the thread without a lock and without the thread's help (it
 * may never call again): the read-side critical section rcb_call*()
 * already runs in (callback.c, invariant 6), and a grace period, are
 * that handshake.
 *
 * Algorithm.  Each registered thread has two lists, by parity, in a
 * block of the library's (struct rcb__cb_lists, mapped in chunks,
 * attached at registration and freed as the thread leaves).
 * rcb__cb_local_mode holds a flip count (its parity names the list
 * threads append to) and the on bit.  The default worker's thread
 * enters local mode when a batch it invoked held RCB__CB_LOCAL_ENTER
 * callbacks or more, and then runs cycles: flip (next parity, on while
 * its last batch held RCB__CB_LOCAL_STAY or more and it is not told to
 * stop); rcb_synchronize(); invoke the batch formed by the previous
 * cycle; form the next batch: the lists of the previous parity, taken
 * from every registered thread and from threads that left, then what
 * was queued on the worker directly, then the barrier markers due.  It
 * leaves local mode after a flip to off whose cycle formed an empty
 * batch.  Outside local mode nothing changes: rcb_call*() queues on the
 * worker as before, and a callback waits one grace period, not two.
 *
 * Invariants.
 *  L1. A thread appends only inside its rcb_call*()'s read-side
 *      critical section, only with local mode on, and only to the list
 *      of the parity it read there (rcb__cb_local_append()).
 *  L2. The worker takes list p only after a flip away from p and a
 *      whole rcb_synchronize() that began after the flip: every section
 *      that read parity p (or read on, if the flip was to off) has
 *      ended, and a section that begins later reads the flip.  No
 *      thread touches list p again until the worker flips back to p,
 *      which comes after the take; the release of that flip ([CBL-F])
 *      publishes the emptied list to the threads' acquire ([CBL-M]).
 *      The take happens under the registry lock.
 *  L3. Outside its sections, a thread touches its lists only in
 *      leave_registry(), under the registry lock: it moves each to the
 *      orphans of its parity, and frees its block.  The worker takes
 *      only under the same lock, so the two never overlap, and the
 *      take after the next flip collects the orphans of the parity it
 *      takes: a list of the current parity, which may hold nodes newer
 *      than what sections of the previous mode queued directly, waits
 *      as its thread's list would have (L5).
 *  L4. A grace period after the queueing (callback.c, invariant 2): a
 *      node taken at a cycle's take is invoked after the next cycle's
 *      rcb_synchronize(), which begins after the take.
 *  L5. Order.  A thread's callbacks run in the order of its calls
 *      (a signal handler's, a callback's and an unregistered thread's
 *      calls queue directly, outside this order, as before).  At the
 *      take after flip k: the lists hold what sections that read flip
 *      k-1 appended; the queue holds direct nodes of sections that
 *      read an off mode, and those that read an off mode before flip
 *      k-1 ended before the previous cycle's splice.  So within one
 *      thread, a direct node in this splice is newer than every node
 *      taken now (it read flip k, off), and the batch "taken, then
 *      spliced" keeps the order.
 *  L6. Barriers.  While lists_live (from a flip to on until the take
 *      after the flip to off), rcb_barrier() hands its marker to the
 *      worker, tagged with the flip count, instead of queueing it.  A
 *      callback whose rcb_call*() returned before the barrier read a
 *      flip count <= the tag, so it is taken at the latest by the take
 *      after flip tag + 1; the marker goes at the end of the batch that
 *      take forms (after its spliced nodes, which hold the direct
 *      ones).  The take after a flip to off takes every marker: nothing
 *      is appended in its mode.  Otherwise the marker is queued, and
 *      counted (callback.c, queued_marker_since()): a batch that holds
 *      a marker, handed over or queued, is invoked without a wait
 *      before it (neither the coalescing wait nor a fixed one), as a
 *      barrier's bump cuts only the wait it finds, which may be the one
 *      before the batch formed earlier.
 *  L7. The worker neither sleeps on its queue nor exits while in local
 *      mode, so appends need no wake-up; booster mode (callback_boost.c)
 *      counts local mode as work ([CBL-BI]/[CBL-BK], as [CBB-K]/[CBB-I]).
 *  L8. fork().  The prepare handlers hold rcb__cb_splice_lock and the
 *      registry lock, under which every take and move happens.  In the
 *      child, every list and the orphans go to the default worker's
 *      queue, after the rest of the batch and before what was queued
 *      (callback.c, invariant 13); a list is followed from first to
 *      last only, so a thread caught between its link and its store of
 *      last loses that node in the child ([CBL-L]); markers are
 *      dropped; local mode is off.  The child finds the lists through
 *      the blocks, never through the other threads' records: those are
 *      in their TLS, on stacks that glibc reclaims in the child, and a
 *      child handler that runs before ours and starts a thread reuses
 *      one (the simulator's does: the records read as zeros).  Order
 *      in the child: a thread's callbacks keep their order except
 *      across the last change of mode before the fork.
 *
 * Following.  A callback is cheapest on the CPU whose thread queued
 * it: its node and what its function frees are in that CPU's cache,
 * and the allocator's lines are not fought over.  On another CPU each
 * node is a miss the list walk cannot overlap.  rcuboost-bench follow
 * measures it (replace + call_rcu(free) at 2 M/s, one reader pinned to
 * the other CPU; eight runs each way gave 11-23 ms of the thread's
 * time per 600,000 callbacks with following, 22-142 ms without), taken
 * from the reader: the thread lands on the reader's CPU, as the
 * reader's unlocks wake it from grace periods (it starts there when the
 * reader's first call started the library; rcuboost-bench follow).  So
 * before it invokes
 * a batch, the default worker's thread moves to the CPU of the thread
 * that queued most of it, as the kernel runs a CPU's callbacks on that
 * CPU, when all of these hold:
 *   - RCUBOOST_CALLBACK_FOLLOW is on (the default);
 *   - the lead's CPU is among those the library gave the thread
 *     (RCUBOOST_CPUS, else the initial thread's), and the thread's
 *     mask is still that one: a mask the application set is its
 *     placement, kept;
 *   - the worker is not real-time by the application's choice
 *     (RCUBOOST_CALLBACK_PRIO): it would preempt the thread it joins.
 *     Booster mode's raise (callback_boost.c) does not count: the
 *     raised thread preempts someone wherever it is, and beside its
 *     producer its work is shortest;
 *   - the lead runs at a normal policy: a real-time lead's CPU is its
 *     own (its callbacks would wait for it, or preempt it).
 * The move is sched_setaffinity() to that CPU, then back to the whole
 * mask at once: the thread stays until the scheduler moves it.  Cost:
 * four or five system calls per cycle that moves, one getcpu per cycle
 * otherwise; nothing on the callers' side (the kernel writes the rseq
 * cpu_id the take reads).  Worst case: the lead's CPU is busy and
 * another is idle; the callbacks then cost the lead their (local) time
 * instead of running in parallel.  An application that changes the
 * thread's mask within the two calls of a move loses that change.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 35)
#include <sys/rseq.h>
#define RCB__HAVE_RSEQ 1
#endif

#include "callback/callback.h"

_Alignas(RCB__CB_HOT) _Atomic unsigned long rcb__cb_local_mode;

/* Under the registry lock: lists may hold callbacks (L6); what threads
 * that left held (L3); markers handed over by rcb_barrier() (L6),
 * linked by head.next, in tag order. */
static bool lists_live;
static struct rcb_head *orphans_first[2], *orphans_last[2]; /* by parity */
static struct rcb_head *markers_first, *markers_last;
/* Every block, and the free ones; blocks are mapped in chunks and never
 * unmapped.  Registry lock. */
static struct rcb__cb_lists *blocks, *free_blocks;

#define BLOCKS_PER_CHUNK 256

/* Take @l, of parity @p, whole into the orphans of that parity;
 * returns its length.  Registry lock held (L2, L3). */
static unsigned long take_list(struct rcb__cb_local *l, unsigned long p)
{
	unsigned long n = rcb_load_relaxed(&l->n);

	rcb__cb_chain_append(&orphans_first[p], &orphans_last[p],
		     rcb_load_relaxed(&l->first), rcb_load_relaxed(&l->last));
	rcb_store_relaxed(&l->first, NULL);
	rcb_store_relaxed(&l->last, NULL);
	rcb_store_relaxed(&l->n, 0);
	return n;
}

void rcb__cb_local_flip(bool on)
{
	unsigned long mode;

	pthread_mutex_lock(&rcb__registry_lock);
	mode = ((rcb_load_relaxed(&rcb__cb_local_mode) >> 1) + 1) << 1;
	if (on) {
		mode |= RCB__CB_LOCAL_ON;
		lists_live = true;
	}
	/* [CBL-F] Release: the lists emptied by earlier takes read as
	 * empty to a thread that reads this flip.  Pairs with [CBL-M].
	 * seq_cst for booster mode: pairs with [CBL-BI]. */
	rcb_store_seq_cst(&rcb__cb_local_mode, mode);
	pthread_mutex_unlock(&rcb__registry_lock);
	/* [CBL-BK] A booster asleep without timeout learns of the work
	 * (callback.c [CBB-K], B5 of callback_boost.c). */
	if (on && rcb_load_seq_cst(&rcb__cb_hot.boost_idle))
		rcb__boost_hooks.cb_boost_kick();
}

unsigned long rcb__cb_local_steal(struct rcb_head **first,
				  struct rcb_head **last,
				  struct rcb_head **mfirst,
				  struct rcb_head **mlast,
				  struct rcb__cb_lead *lead)
{
	unsigned long mode, count, p, n = 0, most = 0;
	struct rcb__cb_lists *b;

	pthread_mutex_lock(&rcb__registry_lock);
	mode = rcb_load_relaxed(&rcb__cb_local_mode);
	count = mode >> 1;
	p = (count - 1) & 1;
	/* After the orphans of the same parity (L5 orders each thread's
	 * callbacks, not different threads'). */
	*lead = (struct rcb__cb_lead){ .cpu = -1 };
	for (b = blocks; b; b = b->next) {
		unsigned long k;

		if (!b->used)
			continue;
		k = take_list(&b->l[p], p);
		n += k;
		if (k > most && b->cpu_id) {
			/* A hint: the kernel writes it as the thread returns
			 * to user space (RSEQ_CPU_ID_* values are huge). */
			uint32_t cpu = rcb_load_relaxed(b->cpu_id);

			most = k;
			lead->cpu = cpu < CPU_SETSIZE ? (int)cpu : -1;
			lead->tid = b->tid;
		}
	}
	*first = orphans_first[p];
	*last = orphans_last[p];
	orphans_first[p] = orphans_last[p] = NULL;
	/* L6: markers tagged before this flip, or all after a flip to off. */
	*mfirst = *mlast = NULL;
	while (markers_first) {
		struct rcb__cb_marker *m =
			(struct rcb__cb_marker *)markers_first;

		if ((mode & RCB__CB_LOCAL_ON) && m->tag >= count)
			break;
		markers_first = rcb_load_relaxed(&m->head.next);
		if (!markers_first)
			markers_last = NULL;
		rcb__cb_chain_append(mfirst, mlast, &m->head, &m->head);
	}
	if (!(mode & RCB__CB_LOCAL_ON))
		lists_live = false;
	pthread_mutex_unlock(&rcb__registry_lock);
	return n;
}

bool rcb__cb_local_markers_pending(void)
{
	bool pending;

	pthread_mutex_lock(&rcb__registry_lock);
	pending = markers_first != NULL;
	pthread_mutex_unlock(&rcb__registry_lock);
	return pending;
}

bool rcb__cb_local_barrier(struct rcb__cb_marker *m)
{
	bool handed;

	pthread_mutex_lock(&rcb__registry_lock);
	handed = lists_live;
	if (handed) {
		m->tag = rcb_load_relaxed(&rcb__cb_local_mode) >> 1;
		rcb__cb_chain_append(&markers_first, &markers_last, &m->head,
				     &m->head);
	}
	pthread_mutex_unlock(&rcb__registry_lock);
	return handed;
}

/* The calling thread's rseq cpu_id, or NULL (no rseq: glibc before
 * 2.35, registration failed or turned off by its tunable). */
static const _Atomic uint32_t *own_cpu_id(void)
{
#if defined(RCB__HAVE_RSEQ) && !defined(RCB_SIM)
	if (__rseq_size >= offsetof(struct rseq, cpu_id) + sizeof(uint32_t))
		return (const _Atomic uint32_t
				*)((char *)__builtin_thread_pointer() +
				   __rseq_offset +
				   offsetof(struct rseq, cpu_id));
#endif
	return NULL;
}

void rcb__cb_local_attach(struct rcb__thread *t)
{
	struct rcb__cb_lists *b = free_blocks;

	if (!b) {
		/* mmap(), not malloc(): a signal handler's first
		 * rcb_read_lock() may register its thread. */
		b = mmap(NULL, BLOCKS_PER_CHUNK * sizeof(*b),
			 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (b == MAP_FAILED) {
			t->cb_lists = NULL; /* this thread queues directly */
			return;
		}
		for (int i = 0; i < BLOCKS_PER_CHUNK; i++) {
			b[i].next = blocks;
			blocks = &b[i];
			b[i].next_free = free_blocks;
			free_blocks = &b[i];
		}
		b = free_blocks;
	}
	free_blocks = b->next_free;
	b->used = true;
	b->tid = t->tid;
	b->cpu_id = own_cpu_id();
	t->cb_lists = b;
}

void rcb__cb_local_leave(struct rcb__thread *t)
{
	unsigned long count = rcb_load_relaxed(&rcb__cb_local_mode) >> 1;
	struct rcb__cb_lists *b = t->cb_lists;

	if (!b)
		return;
	(void)take_list(&b->l[(count - 1) & 1], (count - 1) & 1);
	(void)take_list(&b->l[count & 1], count & 1);
	b->used = false;
	b->next_free = free_blocks;
	free_blocks = b;
	t->cb_lists = NULL;
}

/* fork() child: @l, of parity @p, from first to last, a missing link
 * ending it (L8). */
static void harvest_list(struct rcb__cb_local *l, unsigned long p)
{
	struct rcb_head *n = rcb_load_relaxed(&l->first);
	struct rcb_head *end = rcb_load_relaxed(&l->last);

	rcb_store_relaxed(&l->first, NULL);
	rcb_store_relaxed(&l->last, NULL);
	rcb_store_relaxed(&l->n, 0);
	while (n && end) {
		struct rcb_head *next =
			n == end ? NULL : rcb_load_relaxed(&n->next);

		rcb__cb_chain_append(&orphans_first[p], &orphans_last[p], n, n);
		n = next;
	}
}

void rcb__cb_local_fork_harvest(void)
{
	unsigned long count = rcb_load_relaxed(&rcb__cb_local_mode) >> 1;
	struct rcb__cb_lists *own = rcb__self()->cb_lists;

	/* The blocks, not the registry: the other threads' records are in
	 * their TLS, which a child handler that runs before ours may have
	 * reused with their stacks (a new thread takes a cached stack). */
	free_blocks = NULL;
	for (struct rcb__cb_lists *b = blocks; b; b = b->next) {
		if (b->used) {
			harvest_list(&b->l[(count - 1) & 1], (count - 1) & 1);
			harvest_list(&b->l[count & 1], count & 1);
		}
		/* Only the forking thread stays registered, with the
		 * child's thread ID. */
		b->used = b == own;
		if (b->used)
			b->tid = gettid();
		if (!b->used) {
			b->next_free = free_blocks;
			free_blocks = b;
		}
	}
}

void rcb__cb_local_fork_take(struct rcb_head **first, struct rcb_head **last)
{
	unsigned long count = rcb_load_relaxed(&rcb__cb_local_mode) >> 1;
	unsigned long older = (count - 1) & 1;

	*first = *last = NULL;
	rcb__cb_chain_append(first, last, orphans_first[older],
			     orphans_last[older]);
	rcb__cb_chain_append(first, last, orphans_first[older ^ 1],
			     orphans_last[older ^ 1]);
	orphans_first[0] = orphans_last[0] = NULL;
	orphans_first[1] = orphans_last[1] = NULL;
	markers_first = markers_last = NULL;
	lists_live = false;
	rcb_store_relaxed(&rcb__cb_local_mode,
			  rcb_load_relaxed(&rcb__cb_local_mode) &
				  ~RCB__CB_LOCAL_ON);
}

/* Moves made (tests read it in the static build). */
_Atomic unsigned long rcb__cb_follow_moves;

#ifndef RCB_SIM
/* The worker's thread alone: the mask the library gave it. */
static cpu_set_t follow_home;
static bool follow_home_known;

void rcb__cb_local_follow_start(void)
{
	/* More CPUs than CPU_SETSIZE: no following. */
	follow_home_known =
		sched_getaffinity(0, sizeof(follow_home), &follow_home) == 0;
}

/* A policy that shares CPUs by weight: following may join its thread. */
static bool normal_policy(int policy)
{
	policy &= ~SCHED_RESET_ON_FORK;
	return policy == SCHED_OTHER || policy == SCHED_BATCH ||
	       policy == SCHED_IDLE;
}

void rcb__cb_local_follow(const struct rcb__cb_lead *lead)
{
	cpu_set_t now, one;
	int here;

	if (!rcb__settings.callback_follow || !follow_home_known ||
	    lead->cpu < 0 || !CPU_ISSET(lead->cpu, &follow_home))
		return;
	here = sched_getcpu();
	if (here < 0 || here == lead->cpu)
		return;
	if (rcb__settings.callback_prio > 0 ||
	    rcb__cb_default.policy != SCHED_OTHER ||
	    !normal_policy(sched_getscheduler(lead->tid)))
		/* -1: the lead has exited (a reused ID: a wrong hint) */
		return;
	if (sched_getaffinity(0, sizeof(now), &now) ||
	    !CPU_EQUAL(&now, &follow_home))
		return; /* the application's placement */
	CPU_ZERO(&one);
	CPU_SET(lead->cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) == 0) {
		(void)sched_setaffinity(0, sizeof(follow_home), &follow_home);
		rcb_store_relaxed(&rcb__cb_follow_moves,
				  rcb_load_relaxed(&rcb__cb_follow_moves) + 1);
	}
}
#else
/* The simulator has no CPUs to move between. */
void rcb__cb_local_follow_start(void)
{
}

void rcb__cb_local_follow(const struct rcb__cb_lead *lead)
{
	(void)lead;
}
#endif
