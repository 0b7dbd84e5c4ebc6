/* SPDX-License-Identifier: MIT */
/*
 * Thread registry and the read side's out-of-line paths.
 *
 * Every thread that uses the read side has two thread-local records: the
 * public struct rcb_reader (inlined by rcb_read_lock/unlock) and the
 * private struct rcb__thread that links it into the registry, the list
 * that grace periods scan (and, with boosting, that finds readers).
 *
 * Invariants.
 *  1. A thread is on the registry list iff its rcb__thread.registered is
 *     true; both change only under rcb__registry_lock.
 *  2. rcb_reader.fast is 1 only while the thread is registered and the
 *     membarrier flavor is active; every other case takes the slow path
 *     on the outermost lock and unlock.  A thread leaving the registry
 *     clears it before it unlinks itself, so a signal handler's section
 *     in between is on the list (slow path, still scanned), never a fast
 *     path section of an unlisted thread.
 *  3. A thread never leaves the registry inside a critical section:
 *     rcb_unregister_thread() refuses, and the exit destructor ends an
 *     abandoned critical section first (reporting it, and waking a
 *     sleeping updater as any outermost unlock does), so a grace period
 *     never scans a freed record and never waits for a dead thread.
 *  4. Signal handlers (async-signal-safety of the read side).  The read
 *     side of a thread that is not registered takes the registry lock to
 *     register it, and the interrupted code of that same thread may hold
 *     the lock (rcb_synchronize()'s scans, rcb_stats(), registration,
 *     fork, a library thread's pass): taking it again would deadlock.
 *     So the slow path never takes the lock when its own thread holds
 *     it; it runs that section unregistered instead, which is safe
 *     because the whole section lies inside its thread's hold of the
 *     lock: a grace period's last scan comes before that hold (and its
 *     [GP-A] before the scan, so the section sees the updater's
 *     unpublishing through the lock's release/acquire) or after it (and
 *     the section's loads come before the lock's release, so before the
 *     scan and the free).  The lock is an error-checking PI mutex, so
 *     taking it while holding it returns EDEADLK: registration then
 *     returns -EDEADLK and the slow path knows it runs inside its own
 *     thread's hold.  glibc answers from the PI futex word, which holds
 *     the owner's thread id from the very instruction that acquires it
 * to the one that releases it, so there is no window. Everything else on the
 * registration path is reentrant:
 *     exit_key exists from load time (no pthread_once), registration
 *     re-checks "registered" under the lock, and the steps that a
 *     handler's registration could undo (the exit key, the fast bit) are
 *     done under the lock or before it.
  */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "core/hooks.h"
#include "core/internal.h"

RCB_API __thread struct rcb_reader rcb__reader
	__attribute__((tls_model("initial-exec")));
/* initial-exec as rcb__reader: the library's TLS block is static
 * already (one initial-exec variable puts all of it there), so this
 * costs nothing more, and rcb__self() (inline, every rcb_call*()) is
 * one %fs-relative address, not a __tls_get_addr() call. */
__thread struct rcb__thread rcb__self_rec __attribute__((tls_model("initial-exec")));
/* The user function the thread runs for the library (internal.h): set
 * by the callback layer, read here when that function ends the thread. */
__thread const void *rcb__cb_current;
#define self rcb__self_rec

pthread_mutex_t rcb__registry_lock; /* PI; made by rcb__construct() */
struct rcb__thread rcb__registry = { .prev = &rcb__registry,
				     .next = &rcb__registry };

/* Its destructor unregisters a thread that exits registered.  Created at
 * load time, so that registration from a signal handler never waits in a
 * pthread_once() its own thread is running (invariant 4). */
static pthread_key_t exit_key;

void rcb__thread_label(char *buf, size_t len)
{
	char comm[17] = "?";

	prctl(PR_GET_NAME, comm, 0, 0, 0);
	comm[16] = '\0';
	snprintf(buf, len, "%d \"%s\"", (int)gettid(), comm);
}

static void thread_exit(void *arg);

/* The thread-exit key (rcb__construct(), once). */
void rcb__exit_key_create(void)
{
	int err = pthread_key_create(&exit_key, thread_exit);

	if (err)
		RCB_DIE("pthread_key_create", err);
}

/* Keep RCB__READER_FAST in the reader word true iff registered and in
 * the membarrier flavor (invariant 2).  An atomic or/and: the booster may
 * change the boost-state bits concurrently. */
static void update_fast(void)
{
	if (self.registered && rcb__settings.flavor == RCB_FLAVOR_MEMBARRIER)
		atomic_fetch_or_explicit(&rcb__reader.special, RCB__READER_FAST,
					 memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&rcb__reader.special,
					  ~RCB__READER_FAST,
					  memory_order_relaxed);
}

/* Runs of thread_exit() on this thread (glibc runs key destructors in
 * at most PTHREAD_DESTRUCTOR_ITERATIONS rounds). */
static __thread unsigned exit_runs;

/* A registration after thread_exit() ran in the last round of key
 * destructors could never be undone: the thread would leave its record
 * (in its static TLS, freed or reused with its stack) on the registry,
 * for every later grace period to read.  Stop, saying why. */
static void registered_after_last_exit_round(void)
{
	char who[48];

	rcb__thread_label(who, sizeof(who));
	fprintf(stderr,
		"rcuboost: fatal: thread %s entered a read-side critical section after "
		"rcuboost's thread-exit handling ran in the last of the %d rounds of "
		"thread-specific-data destructors: the thread could not be unregistered, "
		"and every later grace period would read its freed record.  A destructor "
		"that reads under RCU must not re-arm itself into the last round.\n",
		who, PTHREAD_DESTRUCTOR_ITERATIONS);
	abort();
}

int rcb__register_self(void)
{
	pid_t tid;
	int err;

	if (self.registered)
		return 0;
	if (RCB_UNLIKELY(exit_runs >= PTHREAD_DESTRUCTOR_ITERATIONS))
		registered_after_last_exit_round();
	if ((err = rcb__ensure_init()) != 0)
		return err;
	tid = gettid();
	/* EDEADLK: a signal handler that interrupted its own thread inside
	 * the registry lock (invariant 4); the caller decides. */
	if (pthread_mutex_lock(&rcb__registry_lock) == EDEADLK)
		return -EDEADLK;
	/* A signal handler may have registered us since the test above
	 * (invariant 4): linking twice would corrupt the list, and even
	 * the record's fields are written only while off the list. */
	if (!self.registered) {
		self.rd = &rcb__reader;
		self.tid = tid;
		if ((err = pthread_setspecific(exit_key, &self)) != 0) {
			pthread_mutex_unlock(&rcb__registry_lock);
			return -err;
		}
		rcb__boost_hooks.thread_start(&self);
		rcb__cb_hooks.thread_attach(&self);
		self.next = &rcb__registry;
		self.prev = rcb__registry.prev;
		rcb__registry.prev->next = &self;
		rcb__registry.prev = &self;
		self.registered = true;
	}
	pthread_mutex_unlock(&rcb__registry_lock);
	update_fast();
	return 0;
}

RCB_API int rcb_register_thread(void)
{
	/* The default domain holds the thread now, whoever listed it. */
	self.memb_left = self.dom_own_reg = false;
	return rcb__register_self();
}

/*
 * Leave the registry.  The fast bit goes first (invariant 2): a signal
 * handler's section that begins after it takes the slow path, and is
 * either scanned (we are still on the list), or runs inside our hold of
 * the lock (invariant 4), or registers us again after the unlock.  The
 * exit key is cleared under the lock, before a handler's registration
 * can set it again.  Context: the thread itself, outside any section.
 */
static void leave_registry(void)
{
	atomic_fetch_and_explicit(&rcb__reader.special, ~RCB__READER_FAST,
				  memory_order_relaxed);
	pthread_mutex_lock(&rcb__registry_lock);
	if (self.registered) {
		rcb__boost_hooks.thread_exit(&self);
		self.prev->next = self.next;
		self.next->prev = self.prev;
		self.prev = self.next = NULL;
		self.registered = false;
		/* [REG-SF] A signal handler's rcb_call*() that sees
		 * registered false counts in the global count; one that came
		 * before left its count in the record, which the fold takes:
		 * the compiler keeps the store before the fold.  Pairs with
		 * the handler's load of registered in call()
		 * (src/callback/callback.c, invariant 5). */
		atomic_signal_fence(memory_order_seq_cst); /* [REG-SF] */
		rcb__cb_hooks.thread_leave(&self);
		/* rcb_worker_destroy() clears the choice of registered
		 * threads only (callback_worker.c, invariant W3). */
		rcb_store_relaxed(&self.cb_worker, NULL);
		pthread_setspecific(exit_key, NULL);
	}
	pthread_mutex_unlock(&rcb__registry_lock);
}

RCB_API int rcb_unregister_thread(void)
{
	if (!self.registered)
		return -ENOENT;
	if (rcb_read_ongoing()) {
		rcb__misuse("rcb_unregister_thread",
			    "called inside a read-side critical section; the thread stays registered");
		return -EBUSY;
	}
	/* Registered with another domain too: the thread stays on the
	 * list for it (domain.c invariant 2), whose unregistration takes
	 * it off.  Sections of this domain would register it again anyway. */
	if (self.dom_regs) {
		self.memb_left = true;
		return 0;
	}
	leave_registry();
	return 0;
}

void rcb__registry_leave_self(void)
{
	leave_registry();
}

/* An rcb_call*() nested in the section the thread just left found the
 * callback thread asleep and left its wake-up to the outermost unlock
 * (callback.c invariant 4).  The thread's own bit; the booster may
 * change the word's boost state meanwhile, hence the atomic clear. */
static void wake_left_to_unlock(void)
{
	struct rcb_worker *w;

	if (RCB_UNLIKELY(rcb_load_relaxed(&rcb__reader.special) &
			 RCB__READER_WAKE_CB)) {
		/* The bit first: a handler's nested call that sets both
		 * after this point is seen by the exchange or by the next
		 * outermost unlock, never by neither. */
		atomic_fetch_and_explicit(&rcb__reader.special,
					  ~RCB__READER_WAKE_CB,
					  memory_order_relaxed);
		w = rcb_xchg_relaxed(&self.cb_wake_later, NULL);
		if (w)
			rcb__cb_hooks.wake_late(w);
		if (rcb_xchg_relaxed(&self.cb_start_later, false))
			rcb__cb_hooks.start_later();
	}
}

/*
 * pthread key destructor: the thread exits while registered.  A thread
 * that exits inside a critical section would stall every grace period
 * forever; end the section (reporting the bug) before leaving, and wake
 * an updater asleep waiting for it, as its outermost unlock would have.
 */
static void thread_exit(void *arg)
{
	sigset_t all;

	(void)arg;
	/* The thread is leaving: a signal handler's rcb_read_lock() after
	 * the unregistration below would register it again, and if that
	 * came after the last round of key destructors (glibc blocks
	 * signals only after them), nothing would unregister it.  Its
	 * signals wait from here on (a process-directed one goes to
	 * another thread). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	exit_runs++;
	if (rcb_read_ongoing()) {
		rcb__misuse(
			"thread exit",
			"thread exits inside a read-side critical section (nesting %lu); ending it",
			rcb_load_relaxed(&rcb__reader.ctr) & RCB__NEST_MASK);
		/* [REG-X] pairs with [GP-B] */
		rcb_store_release(&rcb__reader.ctr, 0);
		/* [REG-XW] The ctr store is ordered before the futex load
		 * (store buffering, as [RD-W]): either the updater's scan
		 * sees us out or we see its -1 and wake it.  Pairs with
		 * [GP-W] in src/core/gp.c. */
		rcb_fence_seq_cst();
		if (rcb_load_relaxed(&rcb__gp.futex) == -1)
			rcb__gp_wake();
	}
	/* As the outermost unlock would have. */
	wake_left_to_unlock();
	/* Out of the other domains, so that no grace period waits for the
	 * thread and no scan reads its records after they are gone. */
	rcb__dom_thread_exit();
	/* Dequeue (and unboost) before the thread's id can be reused. */
	rcb__boost_hooks.unlock_unboost();
	if (self.registered)
		leave_registry();
}

struct fn_where {
	uintptr_t addr;
	const char *object;
	uintptr_t offset;
};

static int fn_where_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct fn_where *w = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && w->addr >= start &&
		    w->addr - start < ph->p_memsz) {
			w->object = info->dlpi_name && *info->dlpi_name ?
					    info->dlpi_name :
					    program_invocation_name;
			w->offset = w->addr - info->dlpi_addr;
			return 1;
		}
	}
	return 0;
}

/*
 * "0x7f.. (libfoo.so+0x1234)": function @fn, and the object and offset
 * where addr2line(1) finds its source.  From dl_iterate_phdr(), not
 * dladdr(): dladdr() takes the loader's lock that dlopen() and dlclose()
 * hold while they run constructors and destructors, and one of those may
 * be waiting in rcb_barrier() for the very thread that reports.
 */
void rcb__fn_where(const void *fn, char *buf, size_t len)
{
	struct fn_where w = { .addr = (uintptr_t)fn };

	if (fn && dl_iterate_phdr(fn_where_object, &w) && w.object)
		snprintf(buf, len, "%p (%s+0x%lx)", fn, w.object, (unsigned long)w.offset);
	else
		snprintf(buf, len, "%p", fn);
}

void rcb__fn_ended_thread(const char *what, const char *thread,
			  const char *consequence)
{
	char where[320];

	rcb__fn_where(rcb__cb_current, where, sizeof(where));
	fprintf(stderr,
		"rcuboost: fatal: %s %s ended %s (pthread_exit() or cancellation "
		"inside a %s)%s\n",
		what, where, thread, what, consequence);
	abort();
}

/*
 * @fn, a callback or deferred function this thread ran outside any
 * read-side critical section, returned inside one (an rcb_read_lock()
 * without its unlock).  Left so, every later grace period would wait
 * for this thread forever, and whatever it invokes next would run
 * without one.  Reported, naming @fn (@what: "callback", "deferred
 * function"); the section ends as its outermost rcb_read_unlock() ends
 * one (boost, wake-ups), at depth 1 first: the depth is the thread's
 * own, and any depth >= 1 reads as "inside" to a scan.
 */
void rcb__end_leaked_section(const char *what, const void *fn)
{
	unsigned long ctr = rcb_load_relaxed(&rcb__reader.ctr);
	char where[320];

	/* Ended before the report, which may block on stderr, or abort. */
	rcb_store_relaxed(&rcb__reader.ctr,
			  (ctr & ~(unsigned long)RCB__NEST_MASK) |
				  RCB__NEST_ONE);
	rcb_read_unlock();
	rcb__fn_where(fn, where, sizeof(where));
	rcb__misuse(what,
		    "function %s returned inside a read-side critical section "
		    "(nesting %lu); ended it",
		    where, ctr & RCB__NEST_MASK);
}

/*
 * Called by an outermost rcb_read_unlock() that saw rcb__gp.futex == -1
 * after ending its critical section.  Context: reader, any.
 */
RCB_API void rcb__gp_wake(void)
{
	int expect = -1;

	if (rcb_cmpxchg_relaxed(&rcb__gp.futex, &expect, 0))
		rcb__futex_wake(&rcb__gp.futex, 1);
}

/*
 * Outermost rcb_read_lock() when rcb_reader.fast is 0: the thread is
 * not registered yet (register it), or the fence flavor is active.
 */
RCB_API void rcb__read_lock_slow(void)
{
	if (!self.registered) {
		int err = rcb__register_self();

		/* -EDEADLK: a handler that interrupted its own thread inside
		 * the registry lock runs its section unregistered
		 * (invariant 4). */
		if (err && err != -EDEADLK) {
			char who[48];

			rcb__thread_label(who, sizeof(who));
			fprintf(stderr,
				"rcuboost: rcb_read_lock: cannot register thread %s: %s\n",
				who, strerror(-err));
			RCB_DIE("rcb_read_lock: automatic registration", -err);
		}
	}
	rcb__tsan_acquire(&rcb__gp.ctr);
	rcb_store_relaxed(&rcb__reader.ctr,
			  rcb_load_relaxed(&rcb__gp.ctr) + RCB__NEST_ONE);
	/* [RD-AF] Fence flavor's [RD-A]: the ctr store is ordered before
	 * the critical section.  Pairs with [GP-A]/[GP-C] in gp.c. */
	rcb_fence_seq_cst();
}

/* rcb_read_unlock() without a matching lock (@ctr has nesting 0). */
RCB_API void rcb__read_unlock_slow(unsigned long ctr)
{
	(void)ctr;
	rcb__misuse("rcb_read_unlock",
		    "unlock without a matching rcb_read_lock(); ignored");
}

/*
 * A nested rcb_read_lock() at depth RCB__NEST_MASK (2^32 - 1): one more
 * would carry into the grace-period snapshot, turn the depth to 0 and let
 * grace periods end under the reader.  The depth stays where it is (the
 * section lasts until as many unlocks, or the thread's exit, end it) and
 * the misuse is reported, once per thread: a loop that forgets an unlock
 * would otherwise print on every pass.  Only reachable by a missing
 * unlock, so the saturated depth never shortens a correct program.
 */
RCB_API void rcb__read_lock_nest_overflow(void)
{
	static __thread bool reported;

	if (reported)
		return;
	reported = true;
	rcb__misuse("rcb_read_lock",
		    "nesting deeper than %lu (a missing rcb_read_unlock()?); depth kept at %lu",
		    RCB__NEST_MASK, RCB__NEST_MASK);
}

/*
 * The outermost unlock has ended its section (release store of ctr = 0)
 * and found its reader word other than RCB__READER_FAST: the fence
 * flavor, or its thread queued for boosting, or both.
 */
RCB_API void rcb__read_unlock_special(void)
{
	if (!(rcb_load_relaxed(&rcb__reader.special) & RCB__READER_FAST)) {
		/* [RD-WF] Fence flavor's [RD-W]: the ctr store is ordered
		 * before the futex load (and [RD-B] was the release store).
		 * Pairs with [GP-W]. */
		rcb_fence_seq_cst();
	}
	if (rcb_load_relaxed(&rcb__gp.futex) == -1)
		rcb__gp_wake();
	if (rcb__bstate_relaxed(&rcb__reader) != 0)
		rcb__boost_hooks.unlock_unboost();
	/* Last: it may take the worker lock and start a thread, which a
	 * boost lent for the section has no business speeding up. */
	wake_left_to_unlock();
}

void rcb__registry_after_fork_child(void)
{
	/* Only the forking thread exists in the child; drop the others'
	 * records (their memory is stale copies of other threads' TLS). */
	rcb__pi_errorcheck_mutex_init(&rcb__registry_lock);
	rcb__registry.next = rcb__registry.prev = &rcb__registry;
	if (self.registered) {
		self.registered = false;
		self.tid = gettid();
		self.next = &rcb__registry;
		self.prev = &rcb__registry;
		rcb__registry.next = rcb__registry.prev = &self;
		self.registered = true;
	}
	rcb__dom_after_fork_child();
	update_fast();
}
