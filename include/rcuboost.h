/* SPDX-License-Identifier: MIT */
/*
 * rcuboost.h - read-copy update for Linux threads whose readers may be
 * preempted or block, with priority boosting of stalled readers.
 *
 * The whole public API is in this file.  The read side is inline; its
 * implementation detail (the per-thread reader record) is at the end,
 * in the section marked "implementation detail", in the manner of
 * liburcu's static/ headers.
 *
 * ABI note: struct rcb_reader is visible so that rcb_read_lock() and
 * rcb_read_unlock() can be inlined.  Changing its layout, or the meaning
 * of rcb__gp, changes the ABI and bumps RCB_SONAME_MAJOR.  The public
 * structs that may grow (struct rcb_config, struct rcb_boost_stats,
 * struct rcb_worker_attr) start with a size the caller sets, and grow
 * only at their end.  struct rcb_head and struct rcb_head_sized are
 * embedded in the application's objects: their layout is ABI too.
 */
#ifndef RCUBOOST_H
#define RCUBOOST_H

#include <pthread.h>
#ifndef __cplusplus
#include <stdatomic.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <rcuboost/config.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RCB_VERSION_MAJOR 0
#define RCB_VERSION_MINOR 1
#define RCB_VERSION_PATCH 0
/* Bumped with every change of struct rcb_reader or of struct rcb__gp,
 * and of a public struct's layout other than growth at its end behind
 * its size field (1: struct rcb_config and struct rcb_boost_stats gained
 * their leading size; 2: struct rcb_head lost its bytes word, now in
 * struct rcb_head_sized, which rcb_call_sized() takes). */
#define RCB_SONAME_MAJOR 2
/* The version as one number that compares in release order (each part
 * below 256), and as "MAJOR.MINOR.PATCH". */
#define RCB_VERSION_NUM(major, minor, patch) \
	(((major) << 16) | ((minor) << 8) | (patch))
#define RCB_VERSION_NUMBER \
	RCB_VERSION_NUM(RCB_VERSION_MAJOR, RCB_VERSION_MINOR, RCB_VERSION_PATCH)
#define RCB__STR2(x) #x
#define RCB__STR(x) RCB__STR2(x)
#define RCB_VERSION_STRING                                          \
	RCB__STR(RCB_VERSION_MAJOR) "." RCB__STR(RCB_VERSION_MINOR) "." \
	RCB__STR(RCB_VERSION_PATCH)

#if defined(RCB_BUILDING_LIBRARY)
#define RCB_API __attribute__((visibility("default")))
#else
#define RCB_API
#endif

/*
 * RCB__ATOMIC(T): a member shared between threads.  C++ before C++23 has
 * no _Atomic: there it is the plain type, of the same size and
 * alignment, and the inline read side accesses it through the compiler's
 * __atomic builtins (see the rcb__ld/rcb__st helpers below).
 */
#ifdef __cplusplus
#define RCB__ATOMIC(T) T
#else
#define RCB__ATOMIC(T) _Atomic(T)
#endif

#define RCB_LIKELY(x) __builtin_expect(!!(x), 1)
#define RCB_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ------------------------------------------------------------------ */
/* Types                                                              */
/* ------------------------------------------------------------------ */

/*
 * Embed in an object that is freed through rcb_call().  The library owns
 * the head from rcb_call() until it invokes the callback.  Two words, the
 * layout of liburcu's struct rcu_head ({ next, func }): code compiled
 * against liburcu (its cds structures embed 16-byte heads) may hand its
 * heads to rcb_call(), which writes nothing past them.
 */
struct rcb_head {
	RCB__ATOMIC(struct rcb_head *) next;
	void (*func)(struct rcb_head *head);
};

/*
 * rcb_container_of - the struct @type whose @member is at @ptr, e.g.
 * the object around the struct rcb_head a callback receives.  @ptr is
 * evaluated once; a @ptr whose type is not a pointer to @member's type
 * (or void *) does not compile.
 */
#define rcb_container_of(ptr, type, member)                        \
	((type *)(void *)((char *)(ptr) - offsetof(type, member) - \
			  0 * sizeof((ptr) == &((type *)0)->member)))

/*
 * A head that also counts the object's size in the backlog
 * (rcb_call_sized()).  The library owns it from rcb_call_sized() until
 * it invokes the callback; head.func then holds a library trampoline,
 * func and bytes the caller's arguments.  The callback receives &head
 * (the first member: a callback may cast it back to the sized head).
 */
struct rcb_head_sized {
	struct rcb_head head;
	void (*func)(struct rcb_head *head);
	size_t bytes;
};

/* Which read-side ordering scheme is active; fixed at initialisation. */
enum rcb_flavor {
	/* Readers use compiler barriers only; updaters issue
	 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED). */
	RCB_FLAVOR_MEMBARRIER = 0,
	/* membarrier(2) unavailable: readers issue full fences. */
	RCB_FLAVOR_FENCE = 1,
};

/* What the library does when the API is misused. */
enum rcb_misuse_policy {
	/* Library default: RCB_MISUSE_ABORT in debug builds of the
	 * library, RCB_MISUSE_WARN otherwise; RCUBOOST_MISUSE overrides. */
	RCB_MISUSE_DEFAULT = 0,
	/* Print the message to stderr, refuse the call, return an error. */
	RCB_MISUSE_WARN = 1,
	/* Print the message to stderr and abort(). */
	RCB_MISUSE_ABORT = 2,
};

/* Flavor choice for struct rcb_config.flavor. */
enum rcb_flavor_request {
	RCB_FLAVOR_AUTO = 0, /* membarrier if the kernel has it, else fence */
	RCB_FLAVOR_REQUIRE_MEMBARRIER = 1, /* fail rcb_init() without it */
	RCB_FLAVOR_REQUIRE_FENCE = 2,
};

/*
 * Configuration for rcb_init().  Zero-initialise it, set size to
 * sizeof(struct rcb_config) and set what you need: a zero field means
 * "default".  Environment variables are read only for fields left at
 * zero.  A size of 0 stands for RCB_CONFIG_SIZE_V1 (the first layout with
 * a size field), so a zero-initialised config keeps meaning "defaults".
 * A shorter size (a program built against an older layout) leaves the
 * fields past it at their defaults; a longer one (built against a newer
 * library) is accepted if every byte this library does not know is zero,
 * else rcb_init() fails with -E2BIG, as sched_setattr(2) does.
 *
 * Every sized struct (this one, struct rcb_worker_attr, struct
 * rcb_boost_stats) takes a size of 0, or a multiple of sizeof(size_t)
 * from its SIZE_V1 to 1024: no layout has been shorter than its first,
 * the sizeof of a struct that starts with a size_t is such a multiple,
 * and no layout will pass 1024 bytes (one that would is a new struct).
 * Any other size is an uninitialised field far more often than a layout:
 * the call is refused (-EINVAL) and reported as misuse, naming the call
 * and the field, before it reads or writes anything else of the struct.
 * Whatever the size, the library never writes past min(size, its own
 * sizeof): a garbage size that passes the test (a multiple of 8 between
 * SIZE_V1 and 1024) is not caught, but makes it write at most the
 * library's own layout.
 */
struct rcb_config {
	size_t size; /* sizeof(struct rcb_config), or 0 */
	enum rcb_flavor_request flavor; /* RCUBOOST_FLAVOR=auto|membarrier|fence */
	enum rcb_misuse_policy misuse;  /* RCUBOOST_MISUSE=warn|abort */
	/* Microseconds the callback thread waits to batch callbacks before
	 * starting a grace period for them (default 0: start at once). */
	unsigned int callback_batch_us;
	/* Boosting (see the "Boosting" section); ignored when the library
	 * was built without RCB_CONFIG_BOOST. */
	int boost;                  /* 0 default (on), 1 on, -1 off; RCUBOOST_BOOST */
	int boost_prio;             /* booster SCHED_RR priority; RCUBOOST_PRIO */
	unsigned int boost_period_ms; /* RCUBOOST_PERIOD_MS */
	unsigned int boost_elements;  /* power of two; RCUBOOST_ELEMENTS */
	unsigned int stats_interval_s; /* RCUBOOST_STATS_INTERVAL */
	/* Boost state machine: 0 default (3), 3 = the article's recommended
	 * 3-state machine, 8 = its exit-safe 8-state compare-and-exchange
	 * machine; RCUBOOST_MACHINE. */
	int boost_machine;

	/* ---- Enhancements (doc/realtime.md, "Choosing a mode"); all off
	 * by default, each needs the 3-state machine. ---- */

	/* Boosting upon memory pressure: when the callback backlog reaches
	 * pressure_callbacks callbacks or pressure_bytes bytes, or (with
	 * pressure_psi) the kernel reports memory pressure, the booster
	 * boosts every reader holding up the grace period at once and
	 * checks again every millisecond, until the backlog is below
	 * pressure_low_pct percent of its threshold(s) and the kernel no
	 * longer reports pressure.  0 = no such trigger. */
	unsigned long pressure_callbacks; /* RCUBOOST_PRESSURE_CALLBACKS */
	unsigned long pressure_bytes;     /* RCUBOOST_PRESSURE_BYTES */
	/* PSI "some avg10" percent (1-100) of /proc/pressure/memory or the
	 * process's cgroup memory.pressure at which to boost; a new
	 * memory.events high/max/oom event counts too. */
	unsigned int pressure_psi;        /* RCUBOOST_PRESSURE_PSI */
	unsigned int pressure_low_pct;    /* RCUBOOST_PRESSURE_LOW, 1-99, default 50 */

	/* Successive boosting: a boosted reader whose grace period has not
	 * ended escalate_periods booster periods after its last boost is
	 * raised one priority further, up to boost_ceiling.  Priorities are
	 * kept relative to the booster's: raising the booster (chrt, or
	 * rcb_booster_set_prio()) raises first boost and ceiling alike.
	 * 1 <= boost_reader_prio <= boost_ceiling < boost_prio. */
	unsigned int escalate_periods;    /* RCUBOOST_ESCALATE, 0 = off */
	int boost_reader_prio; /* first boost, RCUBOOST_READER_PRIO, default boost_prio - 1 */
	int boost_ceiling;     /* RCUBOOST_CEILING, default boost_prio - 1 */

	/* Multiple boosters: CPUs per booster.  0 default (one booster per
	 * NUMA node, or one for all CPUs on a single-node machine), -1 one
	 * booster for all CPUs, N: CPUs 0..N-1, N..2N-1, ... per booster.
	 * RCUBOOST_BOOSTER_CPUS=node|all|N. */
	int booster_cpus;

	/* How a reader is boosted: RCB_BACKEND_SCHED (default) sets its
	 * scheduling attributes with sched_setattr(2); RCB_BACKEND_PI makes
	 * it the owner of a priority-inheritance futex a booster helper
	 * thread then waits on (the Linux kernel's rt_mutex proxy lock).
	 * RCUBOOST_BACKEND=sched|pi. */
	int boost_backend;
	unsigned int pi_helpers; /* RCUBOOST_PI_HELPERS, 1-64, default 4 */

	/* Stall detector (see rcb_stall_report()): a grace period that has
	 * waited for readers longer than stall_ms milliseconds is reported
	 * once on stderr.  0 default (RCUBOOST_STALL_MS, else 10000; the
	 * variable's 0 turns it off), -1 off, 1 to 3600000. */
	int stall_ms;
	/* The SONAME 1 layout's tail padding, named so that the fields
	 * below start past RCB_CONFIG_SIZE_V1 (a size of 0 or
	 * RCB_CONFIG_SIZE_V1 leaves them at their defaults).  Leave 0: with
	 * a size past RCB_CONFIG_SIZE_V1, rcb_init() refuses anything else. */
	int reserved_v1;

	/* ---- Placement of the library's threads (doc/realtime.md,
	 * "CPU placement") ---- */

	/* CPUs the library's threads (boosters, pi helpers, the callback
	 * thread) run on, bit n for CPU n (CPUs 0 to 63): keep them off
	 * the CPUs isolated for real-time work.  0 (default): the
	 * RCUBOOST_CPUS list (e.g. "0-1,3"), else wherever the thread that
	 * starts them may run.  rcb_init() refuses (-EINVAL, naming the
	 * setting and the CPUs allowed) a set with no CPU the process may
	 * use (its cpuset, the CPUs online); threads run on the usable part
	 * of one that has some.  If the set loses its last usable CPU later
	 * (a cpuset change, CPU hot-unplug), threads started meanwhile run
	 * where they would without it (said once on stderr): no callback
	 * waits for a thread that cannot start. */
	unsigned long long thread_cpus;
	/* Callback workers: SCHED_FIFO priority (1-99) of the default
	 * worker and of workers created without a policy of their own, so
	 * that real-time work on their CPU does not stop callbacks.  0
	 * default (RCUBOOST_CALLBACK_PRIO, else the normal attributes of
	 * the thread that started them), -1: normal attributes. */
	int callback_prio;

	/* ---- Expedited grace periods and priority inheritance (past
	 * RCB_CONFIG_SIZE_V1; set size to sizeof(struct rcb_config); see
	 * rcb_synchronize_expedited()) ---- */

	/* 1: every rcb_synchronize() is expedited, like the kernel's
	 * rcupdate.rcu_expedited; 0 default (RCUBOOST_EXPEDITED, else
	 * off), -1 off. */
	int expedited;
	/* 1: a real-time thread waiting in rcb_synchronize*() or
	 * rcb_barrier() lends its priority to the readers holding its
	 * grace period (at once when expedited, else after one booster
	 * period); 0 default (RCUBOOST_INHERIT, else off), -1 off. */
	int inherit;
	/* Highest priority lent, 1-99; 0 default (RCUBOOST_INHERIT_CEILING,
	 * else 99: no cap). */
	int inherit_ceiling;

	/* ---- Callbacks (past RCB_CONFIG_SIZE_V1) ---- */

	/* Local mode: while callbacks arrive at a million a second or more,
	 * registered threads queue them with plain stores to lists of their
	 * own, taken by the callback thread after a grace period (each
	 * callback then waits two).  0 default (RCUBOOST_CALLBACK_LOCAL,
	 * else on), 1 on, -1 off: every callback goes through the queue,
	 * and callbacks of different threads run in the order of their
	 * queueing (rcb_call()). */
	int callback_local;
	/* In local mode, before it invokes a batch, the callback thread
	 * moves to the CPU of the thread that queued most of it (within
	 * the CPUs the library gave it; not if the application set its
	 * mask, nor with a real-time thread on either side): the
	 * callbacks then run where their memory is.  0 default
	 * (RCUBOOST_CALLBACK_FOLLOW, else on), 1 on, -1 off. */
	int callback_follow;
	/* liburcu's callback timing, once the process has queued a
	 * callback through liburcu's call_rcu() (<rcuboost/urcu.h>, or
	 * liburcu-cds through the flavor): every callback thread then
	 * waits this many microseconds before each batch, as liburcu's
	 * call_rcu thread sleeps 10 ms, and batches of the native API on
	 * the same threads wait too.  Programs written against liburcu can
	 * depend on that delay without knowing it (an object used outside
	 * a read-side section just after its call_rcu(): rcuboost-urcu(7),
	 * "Callback timing").  0 default (RCUBOOST_URCU_CALLBACK_DELAY_US,
	 * else 10000; the variable's 0 turns it off), -1 off: rcuboost's
	 * own grace-period start policy for every callback, 1 to 1000000.
	 * callback_batch_us, when set, applies instead. */
	int urcu_callback_delay_us;
};

/* sizeof(struct rcb_config) in the first layout with a size field
 * (SONAME 1); what a size of 0 stands for. */
#define RCB_CONFIG_SIZE_V1 104

enum rcb_boost_backend {
	RCB_BACKEND_DEFAULT = 0,
	RCB_BACKEND_SCHED = 1,
	RCB_BACKEND_PI = 2,
};

/* Callbacks awaiting a grace period or their invocation (rcb_backlog()). */
struct rcb_backlog {
	size_t size;             /* set by rcb_backlog() */
	uint64_t callbacks;      /* queued by rcb_call*(), not yet invoked */
	uint64_t bytes;          /* sum of their sizes (rcb_call_sized) */
	uint64_t peak_callbacks; /* high-water mark since rcb_backlog_reset_peak() */
	uint64_t peak_bytes;
	uint64_t invoked;        /* callbacks invoked since initialisation */
};

#define RCB_BACKLOG_SIZE_V1 48

/* Grace-period and misuse counters (rcb_stats()). */
struct rcb_gp_stats {
	size_t size;                /* set by rcb_stats() */
	uint64_t grace_periods;     /* grace periods completed that had
				     * other registered threads to look
				     * at; one that found none (no system
				     * call, no scan) is not counted,
				     * though poll cookies elapse with it */
	uint64_t synchronize_calls; /* rcb_synchronize() calls that returned 0 */
	uint64_t batched;           /* calls satisfied by another's grace period */
	uint64_t futex_waits;       /* times an updater slept waiting for readers */
	uint64_t misuse;            /* misuse reports (see rcb_misuse_policy) */
	uint64_t registered_threads; /* threads currently registered */
};

#define RCB_GP_STATS_SIZE_V1 56

/* ------------------------------------------------------------------ */
/* Lifecycle                                                          */
/* ------------------------------------------------------------------ */

/*
 * rcb_init - initialise the library with @cfg (NULL: defaults and the
 * environment).  Optional: every entry point initialises lazily with
 * rcb_init(NULL).  Context: not inside a read-side critical section,
 * not from a callback (rcb_shutdown() may be draining its worker, and
 * would stop what it started); not async-signal-safe.  -EDEADLK there
 * (reported as misuse).
 * Returns 0 on success, including a repeated call whose settings equal
 * the active ones; -EBUSY if already initialised with other settings
 * (the message names the first differing setting); -EINVAL for a bad
 * setting or environment variable (the message names it and the accepted
 * range), or a cfg->size no layout has (see struct rcb_config; reported
 * as misuse); -E2BIG for a cfg->size past this library's struct with a
 * non-zero byte there;
 * -ENOSYS if RCB_FLAVOR_REQUIRE_MEMBARRIER and the kernel lacks
 * membarrier; -ENOMEM; -EAGAIN if a library thread cannot be created.
 * Nothing is started when it fails.
 */
RCB_API int rcb_init(const struct rcb_config *cfg);

/*
 * rcb_shutdown - run every queued callback (as rcb_barrier()) and stop
 * the library's threads.  Afterwards rcb_call() fails with -ESHUTDOWN
 * until rcb_init() is called again; readers and rcb_synchronize() keep
 * working.  Context: not in a read-side critical section, not from a
 * callback or a deferred function.  Returns 0, -EDEADLK (called in a
 * read-side critical section, from a callback or a deferred function),
 * -EALREADY (not running), or, as rcb_barrier(), the error of a worker
 * whose callbacks could not run because its thread could not be
 * started; every other worker is drained and stopped all the same.
 */
RCB_API int rcb_shutdown(void);

/* The library's version: RCB_VERSION_NUMBER and RCB_VERSION_STRING of
 * the header it was built with (a program may run with a newer one).
 * Any thread, any context, async-signal-safe; never fails. */
RCB_API unsigned int rcb_version(void);
RCB_API const char *rcb_version_string(void);

/* The active read-side flavor (initialises the library if needed). */
RCB_API enum rcb_flavor rcb_flavor(void);
/* "membarrier" or "fence". */
RCB_API const char *rcb_flavor_name(enum rcb_flavor flavor);

/* ------------------------------------------------------------------ */
/* Registration                                                       */
/* ------------------------------------------------------------------ */

/*
 * rcb_register_thread - make the calling thread known to grace periods.
 * A thread that calls rcb_read_lock() without registering is registered
 * automatically on its first outermost rcb_read_lock(), and every
 * registered thread is unregistered automatically when it exits.
 * Registering explicitly moves that cost (a mutex) out of the first
 * critical section.  Context: outside read-side critical sections; not
 * async-signal-safe itself (the automatic registration of a handler's
 * rcb_read_lock() is, see there).  Returns 0 (also when already
 * registered), -ENOMEM, or -EDEADLK when called from a signal handler
 * that interrupted the same thread inside the library's registry lock.
 */
RCB_API int rcb_register_thread(void);

/*
 * rcb_unregister_thread - remove the calling thread from the registry.
 * Returns 0, -EBUSY inside a read-side critical section (the thread stays
 * registered; a misuse report names it), -ENOENT if not registered.
 */
RCB_API int rcb_unregister_thread(void);

/* ------------------------------------------------------------------ */
/* Read side (inline; see the implementation detail at the end)        */
/* ------------------------------------------------------------------ */

/*
 * rcb_read_lock - begin a read-side critical section.  Nestable up to
 * 2^32 - 1 deep; one more nested lock is reported as misuse (once per
 * thread) and leaves the depth where it is, so the section never ends
 * early.  The thread may be preempted or block inside it; a grace period
 * waits for it.  Context: any registered or registrable thread.
 * Async-signal-safe, with rcb_read_unlock(), rcb_read_ongoing() and
 * rcb_dereference(), once the library is initialised (rcb_init() or any
 * other call has returned before the handler can run): a handler may use
 * them on a thread that never registered, whatever library call it
 * interrupted, except the thread's own rcb_read_lock/unlock and
 * rcb_init().  Cost in the common case: thread-local loads and one
 * thread-local store; no atomic read-modify-write, no fence.
 */
static inline void rcb_read_lock(void);

/*
 * rcb_read_unlock - end a read-side critical section.  The outermost
 * unlock lets grace periods proceed.  An unlock without a matching lock
 * is reported as misuse and ignored.  The outermost unlock makes a
 * system call only to wake a waiting grace period, to unboost the thread,
 * or for what an rcb_call*() (or, in a forked child, rcb_start_poll())
 * nested in the section left to it: waking a callback worker, or, for a
 * worker with no thread yet, starting it under the library's worker lock,
 * which may wait for another thread's rcb_worker_destroy() or
 * rcb_shutdown().
 */
static inline void rcb_read_unlock(void);

/* Non-zero if the calling thread is inside a read-side critical section. */
static inline int rcb_read_ongoing(void);

/*
 * rcb_dereference - load an RCU-protected pointer inside a read-side
 * critical section (consume ordering, implemented as acquire).
 */
#define rcb_dereference(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)

/*
 * rcb_assign_pointer - publish @v at @p: every store that initialised
 * *v is visible to a reader that sees @v.  Returns nothing.
 */
#define rcb_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

/*
 * rcb_xchg_pointer - publish @v at *@pp and return the old value, with
 * the ordering of rcb_assign_pointer() plus acquire on the old value.
 */
#define rcb_xchg_pointer(pp, v) __atomic_exchange_n((pp), (v), __ATOMIC_ACQ_REL)

/* ------------------------------------------------------------------ */
/* Update side                                                        */
/* ------------------------------------------------------------------ */

/*
 * rcb_synchronize - wait until every read-side critical section that
 * began before the call has ended.  Concurrent callers share grace
 * periods.  Waiting spins briefly, then sleeps on a futex.
 * Ordering: everything before the call happens before the end of those
 * critical sections' visibility, and every store the readers made is
 * visible after the return (full barrier semantics on both sides).
 * Context: outside read-side critical sections; may be called from a
 * callback; not async-signal-safe.  Returns 0, or -EDEADLK inside a
 * read-side critical section, or from a signal handler that interrupted
 * its own thread's grace period (both reported as misuse; it would wait
 * for itself forever).
 */
RCB_API int rcb_synchronize(void);

/*
 * rcb_call - queue @func(@head) to run after a grace period, on the
 * library's callback thread.  The enqueue is wait-free: one atomic
 * exchange, or, while callbacks arrive at a million a second or more,
 * plain stores to the calling thread's own list (local mode; a callback
 * then waits two grace periods).  A thread's callbacks to one worker run
 * in the order of its calls; callbacks of different threads, or to
 * different workers (rcb_worker_set_thread(), per-CPU workers and a
 * thread that moves between CPUs), may not.  A sleeping
 * callback thread is woken (one futex call) after the call's own
 * read-side critical section, or, inside a section of the caller's, at
 * its outermost rcb_read_unlock().  Context:
 * anywhere a thread may run, including inside a
 * read-side critical section and inside a callback; not async-signal-safe
 * (it may have to start the worker's thread: at the first call, after
 * fork(), after a failed start).
 * Returns 0, -EINVAL (@head or @func NULL; reported as misuse; nothing is
 * queued), -ESHUTDOWN (after rcb_shutdown(); reported as misuse; nothing
 * is queued, the caller still owns @head), or -EBUSY when @head is
 * still queued from an earlier rcb_call*() whose callback has not run
 * (reported as misuse; nothing is queued or written, and the earlier
 * callback runs once, as queued).  Every build finds a head queued again
 * while it is the last one queued (in its worker's queue, in the batch
 * waiting for its grace period, or in the thread's own list in local
 * mode): the usual double rcb_call() of one object.  One queued again
 * after other callbacks were is found only by a debug build of the
 * library (RCB_DEBUG); a release build accepts it, and it corrupts the
 * queue: callbacks queued between the two may never run, the head's may
 * run twice, and the backlog count stays too high (build with
 * -DRCB_DEBUG=ON to find one).  Also -EAGAIN, -ENOMEM or -EPERM when
 * the worker's thread has to be started and cannot be (said on stderr;
 * nothing is queued; a later call tries again).  liburcu's call_rcu()
 * then waits for a grace period and runs the callback itself.  Inside
 * a section of the caller's own, a worker with no thread is started at
 * the section's outermost rcb_read_unlock() instead (starting it inside
 * could wait for that very section): the call returns 0, and if the
 * start at the unlock fails, the callback waits in the worker's queue
 * until the worker's next use starts it (rcb_barrier() included).
 * @func may use read-side critical sections but must end them: one it
 * returns inside would hold every later grace period, so it is reported
 * as misuse, naming @func, and ended at once (as is one a deferred
 * function of rcb_defer() leaves open).  @func must not end the thread
 * it runs on (pthread_exit()): the process is stopped, naming it.
 */
RCB_API int rcb_call(struct rcb_head *head, void (*func)(struct rcb_head *head));

/*
 * rcb_call_sized - as rcb_call(), and count @bytes in the backlog (struct
 * rcb_backlog.bytes, the byte threshold of memory pressure) until @func
 * has run.  @func receives &@head->head.  Same context and return values
 * as rcb_call().
 */
RCB_API int rcb_call_sized(struct rcb_head_sized *head,
			   void (*func)(struct rcb_head *head), size_t bytes);

/*
 * rcb_barrier - wait until every callback queued (by any thread) before
 * this call has been invoked.  Context: outside read-side critical
 * sections, callbacks and deferred functions (rcb_defer(): a callback
 * may be waiting for the function's queue).  Returns 0, -EDEADLK
 * (reported), or -EAGAIN, -ENOMEM or -EPERM when a worker holding
 * callbacks has no thread (after fork(), or after a failed start) and
 * its thread cannot be started (said on stderr): those callbacks have
 * not run; every other worker was waited for all the same.
 */
RCB_API int rcb_barrier(void);

/* ---- Expedited grace periods (rtexp) -------------------------------- */

/*
 * rcb_synchronize_expedited - rcb_synchronize(), but the readers holding
 * the grace period are boosted at once (no aging): a booster queues
 * every reader found inside a pre-existing critical section and raises
 * it to the first boost level (booster priority - 1 by default) or, with
 * inheritance (RCUBOOST_INHERIT), to the priority of the highest
 * real-time waiter if that is higher, and the grace period ends as soon
 * as they leave their sections.  Each boost ends when its reader leaves
 * its section; its attributes are restored exactly (sched backend) or
 * its proxy lock released (pi backend).  Concurrent rcb_synchronize()
 * callers that share the grace period are expedited with it.  With
 * boosting off (RCUBOOST_BOOST=0, or a library built without it) or
 * without permission for real-time priority, it waits as
 * rcb_synchronize() does and says so once on stderr.
 * Ordering: as rcb_synchronize().
 * Context: as rcb_synchronize(): outside read-side critical sections;
 * may be called from a callback.  Returns 0, or -EDEADLK inside a
 * read-side critical section (reported as misuse).
 */
RCB_API int rcb_synchronize_expedited(void);

/* Out-of-line parts of rcb_backlog() and rcb_stats(): out->size as
 * for struct rcb_boost_stats (0 is the V1 layout). */
RCB_API int rcb__backlog_sized(struct rcb_backlog *out);
RCB_API int rcb__gp_stats_sized(struct rcb_gp_stats *out);

#ifdef RCB__V0_SYMBOLS
/* The library's own build: the symbols of the unsized layouts, which
 * programs linked before the structs had a size call. */
struct rcb__backlog_v0;
struct rcb__gp_stats_v0;
RCB_API void rcb_backlog(struct rcb__backlog_v0 *out);
RCB_API void rcb_stats(struct rcb__gp_stats_v0 *out);
#else
/*
 * rcb_backlog - fill @out with the callback backlog; sets out->size to
 * the caller's sizeof first, so that a newer library writes only the
 * fields the caller knows.  Callable from any thread, also inside
 * read-side critical sections and from callbacks; not async-signal-safe.
 * O(registered threads) under the registry lock.  Returns 0, or -EINVAL
 * for @out NULL (reported as misuse).
 */
static inline int rcb_backlog(struct rcb_backlog *out)
{
	if (out)
		out->size = sizeof(*out);
	return rcb__backlog_sized(out);
}

/* rcb_stats - fill @out with the grace-period counters, as rcb_backlog()
 * does (same context and returns). */
static inline int rcb_stats(struct rcb_gp_stats *out)
{
	if (out)
		out->size = sizeof(*out);
	return rcb__gp_stats_sized(out);
}
#endif

/* Restart the backlog high-water marks from the current backlog. */
RCB_API void rcb_backlog_reset_peak(void);

/* ------------------------------------------------------------------ */
/* Callback workers (src/callback_worker.c)                            */
/* ------------------------------------------------------------------ */

/*
 * A callback worker is a thread with its own queue that waits for grace
 * periods and invokes the callbacks queued to it.  The library's own
 * callback thread is the default worker; an application may create more
 * (liburcu's call_rcu_data), give one to a thread (every rcb_call*() of
 * that thread goes to it) or to a CPU (rcb_call*() of a thread running
 * there and without a worker of its own goes to it), pin them, and run
 * them at a real-time priority.  rcb_barrier() waits for every worker's
 * callbacks; rcb_backlog() counts them all.  Opaque.
 */
struct rcb_worker;

/* struct rcb_worker_attr.flags: the worker polls its queue every
 * millisecond instead of sleeping on a futex, so rcb_call() never makes a
 * system call to wake it (liburcu's URCU_CALL_RCU_RT). */
#define RCB_WORKER_RT 1u
/* struct rcb_worker_attr.flags: pin the worker to attr->cpu.  A worker
 * whose thread restarts (after rcb_shutdown() and rcb_init(), or fork())
 * once the process may no longer use that CPU (a cpuset change, CPU
 * hot-unplug) runs unpinned, said once on stderr. */
#define RCB_WORKER_PIN 2u

/*
 * Attributes of a new worker.  Zero-initialise, set size to
 * sizeof(struct rcb_worker_attr) (0 stands for RCB_WORKER_ATTR_SIZE_V1;
 * the sizes accepted: see struct rcb_config).
 * policy 0 (SCHED_OTHER) with prio 0 means the library's callback
 * priority (struct rcb_config.callback_prio, RCUBOOST_CALLBACK_PRIO;
 * default: the creator's normal attributes); SCHED_FIFO or SCHED_RR with
 * prio 1-99 set the worker's own.
 */
struct rcb_worker_attr {
	size_t size;
	unsigned int flags; /* RCB_WORKER_RT, RCB_WORKER_PIN */
	int cpu;            /* with RCB_WORKER_PIN */
	int policy;         /* SCHED_OTHER (0), SCHED_FIFO or SCHED_RR */
	int prio;           /* 1-99 with SCHED_FIFO/SCHED_RR, else 0 */
};

#define RCB_WORKER_ATTR_SIZE_V1 24

/*
 * rcb_worker_create - start a new worker thread with its own queue and
 * store it in *@out.  @attr NULL: defaults.  The thread runs (and its
 * rcb_worker_tid() is known) when the call returns.  Context: outside
 * read-side critical sections and callbacks; not async-signal-safe.
 * Returns 0, -EDEADLK (inside a read-side critical section, a callback
 * or a deferred function, reported as misuse), -EINVAL (@out NULL or an
 * attr->size no layout has, reported as misuse; unknown flags, a CPU out
 * of range, a bad policy/priority: the field is named on stderr; with
 * RCB_WORKER_PIN, a CPU the process may not use, as its cpuset or the
 * CPU being offline says: the message names the CPU), -E2BIG (@attr
 * longer than this library knows with non-zero bytes past it, said on
 * stderr), -ENOMEM, -ESHUTDOWN (after rcb_shutdown()),
 * or the negative errno of pthread_create() (-EPERM: no permission for
 * the real-time policy asked, -EAGAIN).
 */
RCB_API int rcb_worker_create(const struct rcb_worker_attr *attr,
			      struct rcb_worker **out);

/*
 * rcb_worker_destroy - stop worker @w and free it.  It is first
 * withdrawn from every thread and CPU it served (their rcb_call*() go
 * elsewhere from then on) and a grace period waits out rcb_call*() calls
 * that chose it; its thread finishes the batch it is invoking, and the
 * callbacks still queued on it move to the default worker, in order,
 * behind those queued there already (liburcu's call_rcu_data_free()):
 * they may run after later callbacks of the same thread.  Context:
 * outside read-side critical sections and callbacks.  Every error is
 * reported as misuse (rcb_misuse_policy): -EINVAL (@w NULL or the
 * default worker), -ENOENT (@w is not a live worker: freed already),
 * -EDEADLK (inside a read-side critical section, from a callback or a
 * deferred function, from @w's own thread).  Returns 0 otherwise.  The calls
 * below that take a worker or list them also refuse to run in a
 * callback, a deferred function or a read-side critical section
 * (-EDEADLK, reported): rcb_shutdown() and
 * rcb_worker_destroy() hold the lock they need while joining a worker's
 * thread, which may be waiting for a grace period, so for the caller's
 * section.
 */
RCB_API int rcb_worker_destroy(struct rcb_worker *w);

/*
 * rcb_worker_set_thread - callbacks queued by the calling thread go to
 * @w (NULL: back to its CPU's or the default worker).  Registers the
 * calling thread; the choice ends when the thread unregisters or @w is
 * destroyed.  Returns 0, -ENOENT (@w not a live worker), -EDEADLK (from
 * a callback or a read-side critical section), both reported as misuse,
 * or the error of rcb_register_thread().
 */
RCB_API int rcb_worker_set_thread(struct rcb_worker *w);

/*
 * rcb_worker_assign_cpu - callbacks queued by threads running on @cpu that
 * have no worker of their own go to @w; NULL withdraws the CPU's worker
 * (callbacks queued on it stay there).  Returns 0, -EINVAL (@cpu out of
 * range), -ENOENT (@w not a live worker), -EDEADLK (from a callback or
 * a read-side critical section), each reported as misuse; -EEXIST (@cpu
 * has a worker already: withdraw it first, as liburcu's
 * set_cpu_call_rcu_data(); not reported: two threads may race to set
 * it), -ENOMEM.
 */
RCB_API int rcb_worker_assign_cpu(struct rcb_worker *w, int cpu);

/* The default worker (never NULL once the library initialised; NULL if
 * initialisation fails). */
RCB_API struct rcb_worker *rcb_worker_default(void);
/* The worker of @cpu, or NULL (none, or @cpu out of range). */
RCB_API struct rcb_worker *rcb_worker_of_cpu(int cpu);
/* The calling thread's own worker, or NULL. */
RCB_API struct rcb_worker *rcb_worker_of_thread(void);
/* The worker rcb_call() of the calling thread would use now: its own,
 * else its CPU's, else the default worker. */
RCB_API struct rcb_worker *rcb_worker_current(void);

/*
 * rcb_worker_thread - store @w's thread in *@out, starting it if it does
 * not run (lazily started default worker, or a child after fork()), so
 * that the application can set its scheduling attributes.  Returns 0,
 * -EINVAL (NULL argument), -ENOENT (@w not a live worker), -EDEADLK
 * (inside a read-side critical section, or from a callback unless @w is
 * the callback's own worker), each reported as misuse; -ESHUTDOWN
 * (after rcb_shutdown()), or the negative errno of pthread_create().
 */
RCB_API int rcb_worker_thread(struct rcb_worker *w, pthread_t *out);

/* As rcb_worker_thread(), returning @w's thread ID or a negative errno. */
RCB_API pid_t rcb_worker_tid(struct rcb_worker *w);

/*
 * rcb_callback_tids - store the thread IDs of up to @n running callback
 * worker threads (the default worker's first) in @tids, so that a
 * real-time application can place and prioritise them.  Returns how many
 * run (may exceed @n), -EINVAL (@tids NULL with @n > 0) or -EDEADLK
 * (from a callback or a read-side critical section), both reported as
 * misuse.
 */
RCB_API int rcb_callback_tids(pid_t *tids, size_t n);

/* ------------------------------------------------------------------ */
/* Stall detector                                                     */
/* ------------------------------------------------------------------ */

/* rcb_stall_report() flag: build a report now (see below). */
#define RCB_STALL_NOW 1u

/*
 * rcb_stall_report - the stall detector's report, as text.  When a grace
 * period has waited for readers longer than the stall timeout (struct
 * rcb_config.stall_ms, RCUBOOST_STALL_MS, default 10 s), the thread that
 * waits for it prints one report on stderr, once per stalled grace
 * period, and fires the USDT probe rcuboost:stall (arg0: thread ID of
 * the first reader holding it, arg1: milliseconds waited, arg2: readers
 * holding it, arg3: the report text).  The report names, per reader
 * holding the grace period: thread ID and name, scheduling policy and
 * priority (and whether rcuboost boosted it, to what, since when), the
 * CPU it last ran on and its state (running, runnable, sleeping,
 * stopped), how long it has held up grace periods (at least; a section's
 * start is not recorded, the read side has no clock) and its nesting
 * depth; for a runnable reader, the threads of this process and, where
 * /proc lets us read them, of the system, found runnable on its CPU;
 * then the waiting updaters and the callback backlog.  Every line starts
 * with "rcuboost: stall:".
 * @flags 0: copy the last report printed (none yet: returns 0).
 * @flags RCB_STALL_NOW: build a report now for the grace period that is
 * waiting for readers, however long it has waited, also with the
 * detector off; returns 0 if no grace period is held up by a reader.
 * This reads /proc and may take some milliseconds.
 * Context: any thread, also inside a read-side critical section (the
 * report then names the caller); not async-signal-safe; no lock a reader
 * may hold is taken.  Returns the report's length, as snprintf() would
 * (truncated to @len - 1 bytes and NUL-terminated when @len > 0), 0, or
 * -EINVAL (@buf NULL with @len > 0, or an unknown flag).
 */
RCB_API int rcb_stall_report(char *buf, size_t len, unsigned int flags);

/* ------------------------------------------------------------------ */
/* Boosting                                                           */
/* ------------------------------------------------------------------ */

/*
 * A reader that stays blocked or preempted inside a read-side critical
 * section for about (boost_elements - 1) booster periods (30 ms at the
 * defaults) is raised to SCHED_FIFO at one notch below the booster's
 * SCHED_RR priority, and lowered again by its own outermost
 * rcb_read_unlock(), which restores exactly the attributes it had (unless
 * the application changed them meanwhile: then the application's
 * attributes stay).  Readers are found two ways: a thread about to block
 * inside a critical section calls rcb_note_block() (or one of the rcb_*
 * blocking wrappers below), and the booster enqueues, on their behalf,
 * registered readers that have held up a grace period for a booster
 * period (preempted readers, which cannot announce themselves).
 * Everything here is a no-op when the library was built without
 * RCB_CONFIG_BOOST or boosting is configured off.
 */

/*
 * Boost statistics, written once: each X(type, name, kind) entry below
 * is one field of struct rcb_boost_stats, in this order, and one key of
 * rcb_boost_stats_format()'s JSON object, in this order (the stats[][]
 * matrix and its "states" sit between the two lists).  kind says how a
 * field is printed and compared: RCB_STAT_COUNT, a counter that only
 * grows (two snapshots subtract); RCB_STAT_PEAK, a maximum or total
 * that does not; RCB_STAT_INT, a number describing the current state;
 * RCB_STAT_BOOL, 0 or 1 (JSON true/false); RCB_STAT_BACKEND, an enum
 * rcb_boost_backend (JSON "sched"/"pi"); RCB_STAT_SHAPE, not printed
 * (the matrix's width).  A new field goes at the end of
 * RCB_BOOST_STATS_MORE, so that the struct only grows.
 */
#define RCB_STAT_COUNT 0
#define RCB_STAT_PEAK 1
#define RCB_STAT_INT 2
#define RCB_STAT_BOOL 3
#define RCB_STAT_BACKEND 4
#define RCB_STAT_SHAPE 5

/* The article's counters (rbs_*, summed over every element). */
#define RCB_BOOST_STATS_ARTICLE(X) \
	/* 3 or 8: the boost state machine in use */ \
	X(int, machine, RCB_STAT_INT) \
	/* its number of states: columns of stats[][] */ \
	X(int, nstates, RCB_STAT_SHAPE) \
	/* compiled in and configured on */ \
	X(int, enabled, RCB_STAT_BOOL) \
	X(int, booster_running, RCB_STAT_BOOL) \
	/* real-time priority refused: readers stay unboosted */ \
	X(int, no_permission, RCB_STAT_BOOL) \
	/* the booster's current SCHED_RR priority */ \
	X(int, booster_prio, RCB_STAT_INT) \
	/* rcu_boost_idx, -1 until the booster runs */ \
	X(int, idx, RCB_STAT_INT) \
	/* rbs_blocked: blocked critical sections */ \
	X(long, blocked, RCB_STAT_COUNT) \
	/* rbs_unlock: unlocks ending a blocked section */ \
	X(long, unlock, RCB_STAT_COUNT) \
	/* rbs_unboosted: unlocks that unboosted */ \
	X(long, unboosted, RCB_STAT_COUNT) \
	/* rbs_boost_attempt */ \
	X(long, boost_attempt, RCB_STAT_COUNT) \
	/* rbs_boost: boosts done */ \
	X(long, boost, RCB_STAT_COUNT)

/* The rest: the 8-state machine's counters, userspace additions and
 * the enhancements (doc/realtime.md, "Choosing a mode"). */
#define RCB_BOOST_STATS_MORE(X) \
	/* rcb_note_block() before the booster ran */ \
	X(long, too_early, RCB_STAT_COUNT) \
	/* readers enqueued on their behalf */ \
	X(long, preempt_enqueued, RCB_STAT_COUNT) \
	/* of those, undone: the reader had left */ \
	X(long, enqueue_reverted, RCB_STAT_COUNT) \
	/* sched_setattr() refused a boost */ \
	X(long, boost_failed, RCB_STAT_COUNT) \
	/* target already ran at or above */ \
	X(long, boost_skipped_higher, RCB_STAT_COUNT) \
	/* unboosts that kept the application's change */ \
	X(long, restore_kept_app, RCB_STAT_COUNT) \
	/* booster passes */ \
	X(long, passes, RCB_STAT_COUNT) \
	/* 8-state machine (article: rbs_boost_wrongstate, \
	 * rbs_boost_cmpxchgfail, rbs_boost_start, rbs_boost_end) */ \
	X(long, boost_wrongstate, RCB_STAT_COUNT) \
	X(long, boost_cmpxchgfail, RCB_STAT_COUNT) \
	X(long, boost_start, RCB_STAT_COUNT) \
	X(long, boost_end, RCB_STAT_COUNT) \
	/* the most consecutive compare-and-exchange failures any \
	 * thread-side state change met (the article's bound: one) */ \
	X(long, max_task_cmpxchg_fail, RCB_STAT_PEAK) \
	/* The booster's element-lock hold per target examined (from the \
	 * lock after its yield to the next unlock): the 3-state machine \
	 * changes priorities inside it, the 8-state machine outside. */ \
	X(long, lock_holds, RCB_STAT_COUNT) \
	X(long, lock_hold_ns_max, RCB_STAT_PEAK) \
	X(long, lock_hold_ns_total, RCB_STAT_COUNT) \
	/* booster threads (one per CPU group) */ \
	X(int, boosters, RCB_STAT_INT) \
	/* RCB_BACKEND_SCHED or RCB_BACKEND_PI */ \
	X(int, backend, RCB_STAT_BACKEND) \
	/* Boost levels at the booster's current priority: a boosted \
	 * reader runs SCHED_FIFO between them (equal without escalation). */ \
	X(int, first_level, RCB_STAT_INT) \
	X(int, ceiling_level, RCB_STAT_INT) \
	/* boosting upon memory pressure right now */ \
	X(int, pressure_active, RCB_STAT_BOOL) \
	/* times memory pressure was entered */ \
	X(long, pressure_entries, RCB_STAT_COUNT) \
	/* booster woken early by rcb_call*() */ \
	X(long, pressure_kicks, RCB_STAT_COUNT) \
	/* one-step raises of still-stalled readers */ \
	X(long, escalations, RCB_STAT_COUNT) \
	/* from a thread's queueing to its first boost */ \
	X(long, boost_latency_count, RCB_STAT_COUNT) \
	X(long, boost_latency_ns_max, RCB_STAT_PEAK) \
	X(long, boost_latency_ns_total, RCB_STAT_COUNT) \
	/* CPU time of the running booster threads (not a counter since \
	 * the process started: restarts with them) */ \
	X(long, booster_cpu_ns, RCB_STAT_PEAK) \
	/* sched_getattr/sched_setattr (sched backend) */ \
	X(long, sched_syscalls, RCB_STAT_COUNT) \
	/* proxy locks made for a reader (pi backend) */ \
	X(long, pi_boosts, RCB_STAT_COUNT) \
	/* unlocks that handed the lock to a helper */ \
	X(long, pi_handoffs, RCB_STAT_COUNT) \
	/* futex calls of the pi backend */ \
	X(long, pi_syscalls, RCB_STAT_COUNT) \
	/* The kernel refused a helper's lock: a cycle (or a chain too \
	 * deep) through the application's PI mutexes (EDEADLK, retried \
	 * after 10 ms), or another error (the reader is not boosted). */ \
	X(long, pi_deadlocks, RCB_STAT_COUNT) \
	X(long, pi_failures, RCB_STAT_COUNT) \
	/* Raises of a reader the sched backend had already boosted \
	 * (escalation, an expedited or inherited loan above its level, \
	 * a raised booster priority): each reads, then sets, the thread's \
	 * attributes, the window of rcuboost(3) BUGS.  Past layout V1. */ \
	X(long, reraises, RCB_STAT_COUNT) \
	/* A keeper process serves this process (RCUBOOST_KEEPER=1), and \
	 * the scheduling changes it made for it, which this process was \
	 * refused (after it dropped CAP_SYS_NICE and forked). */ \
	X(int, keeper, RCB_STAT_BOOL) \
	X(long, keeper_requests, RCB_STAT_COUNT)

#define RCB__STAT_FIELD(type, name, kind) type name;

/*
 * Boost statistics.  Set size to sizeof(struct rcb_boost_stats) before
 * rcb_boost_stats() (0 means RCB_BOOST_STATS_SIZE_V1): a program built
 * against an older, shorter layout keeps working with a newer library.
 * The sizes accepted: see struct rcb_config.
 */
struct rcb_boost_stats {
	size_t size;
	RCB_BOOST_STATS_ARTICLE(RCB__STAT_FIELD)
	/* rbs_stats[event][state]: events block, boost, unlock; columns
	 * 0..nstates-1 are the machine's states in its order (3-state:
	 * IDLE, BLOCKED, BOOSTED; 8-state: IDLE, BLOCKED, BOOSTING,
	 * BOOSTED, UNBOOST_IDLE, UNBOOST_BLOCKED, UNBOOST_EXITING, EXIT_OK),
	 * column nstates counts invalid states. */
	long stats[3][9];
	RCB_BOOST_STATS_MORE(RCB__STAT_FIELD)
};

/* sizeof(struct rcb_boost_stats) in the first layout with a size field
 * (SONAME 1); what a size of 0 stands for. */
#define RCB_BOOST_STATS_SIZE_V1 544

/*
 * rcb_booster_set_prio - set every booster thread's SCHED_RR priority to
 * @prio (2-99), as `chrt -r -p PRIO TID` on each would.  Boost levels
 * follow the booster's priority (struct rcb_config: boost_reader_prio,
 * boost_ceiling), so raising it raises boosted readers at their next
 * reboost; lowering it applies to later boosts (a reader boosted above
 * the new ceiling keeps its level until it leaves its section).
 * Returns 0, -EINVAL, -ESRCH (no booster running) or the negative errno
 * of sched_setscheduler(2).
 */
RCB_API int rcb_booster_set_prio(int prio);

/*
 * rcb_booster_tids - store up to @n booster thread IDs in @tids (NULL
 * with @n 0: count only).  Returns the number of boosters running (may
 * exceed @n), or -EINVAL (@n above INT_MAX, or @tids NULL with @n > 0;
 * reported as misuse).
 */
RCB_API int rcb_booster_tids(pid_t *tids, size_t n);

/*
 * rcb_boost_stats - fill @out, whose size the caller set: its fields up
 * to min(out->size, sizeof this library's struct) are written (size 0:
 * RCB_BOOST_STATS_SIZE_V1), and not one byte past them, as
 * sched_getattr(2) does; fields past out->size (a caller built against
 * an older layout) are left alone.  A caller built against a newer,
 * longer layout finds out->size lowered to this library's sizeof (as
 * sched_getattr(2) sets its size): the fields past it, which this library
 * does not know, are left as the caller had them (and
 * rcb_boost_stats_format() then ignores them).  Otherwise out->size is
 * left as set.  Callable from any thread, also inside a read-side
 * critical section.  Returns 0, -EINVAL (@out NULL, or an out->size no
 * layout has, see struct rcb_config; reported as misuse, nothing
 * written), or -ENOTSUP when the library was built without boosting
 * (then @out is zeroed as above, idx -1).
 */
RCB_API int rcb_boost_stats(struct rcb_boost_stats *out);

/*
 * rcb_boost_stats_format - write @s into @buf (@len bytes) as the
 * article's rcu_boost_dat_stat_print() lines (@json == 0) or as one JSON
 * object (@json != 0).  @s->size is honoured as by rcb_boost_stats():
 * fields past it print as 0.  Returns the length snprintf() would, or
 * -EINVAL (@s NULL or with a size no layout has, see struct rcb_config,
 * or @buf NULL with @len > 0; reported as misuse).
 */
RCB_API int rcb_boost_stats_format(const struct rcb_boost_stats *s, char *buf,
				   size_t len, int json);

/*
 * rcb_stats_get - the counter named @key in *@value: "gp.NAME" and
 * "backlog.NAME" for the fields of struct rcb_gp_stats and struct
 * rcb_backlog, "boost.NAME" for those of struct rcb_boost_stats.  A key
 * keeps its name and meaning for good; keys are added in minor releases
 * and may go in a major one.  Any thread, also in a read-side critical
 * section; not async-signal-safe.  Returns 0, -ENOENT (no such key in
 * this library), -ENOTSUP (a "boost." key, boosting compiled out: *@value
 * as rcb_boost_stats() leaves it) or -EINVAL (a NULL argument; misuse).
 */
RCB_API int rcb_stats_get(const char *key, int64_t *value);
/* rcb_stats_key - the @index-th key rcb_stats_get() knows (0, 1, ...),
 * NULL past the last: a program lists the keys of the library it runs
 * with.  Any context; never fails. */
RCB_API const char *rcb_stats_key(size_t index);

/*
 * rcb__preempt_boost - out of line part of rcb_note_block().
 * article: __rcu_preempt_boost()
 */
RCB_API void rcb__preempt_boost(void);

/*
 * rcb_note_block - the calling thread is about to block; if it is inside
 * a read-side critical section, queue it for boosting should the block
 * last.  article: rcu_preempt_boost().  Cheap outside critical sections.
 */
static inline void rcb_note_block(void);

/*
 * Blocking calls that call rcb_note_block() first when they would block
 * inside a read-side critical section, then behave exactly as the call
 * they wrap (same arguments, same return values and errno).
 * rcb_mutex_lock() notes the block only when the mutex is contended.
 */
RCB_API int rcb_mutex_lock(pthread_mutex_t *mutex);
RCB_API int rcb_condvar_wait(pthread_cond_t *cond, pthread_mutex_t *mutex);
RCB_API int rcb_condvar_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
				  const struct timespec *abstime);
RCB_API int rcb_nanosleep(const struct timespec *req, struct timespec *rem);
struct pollfd;
RCB_API int rcb_fd_poll(struct pollfd *fds, unsigned long nfds, int timeout);
/* FUTEX_WAIT_PRIVATE on @uaddr while it holds @val; 0 or -1/errno. */
RCB_API int rcb_futex_wait(uint32_t *uaddr, uint32_t val,
			   const struct timespec *timeout);

/* ------------------------------------------------------------------ */
/* Deferred reclamation with a bounded queue (defer_rcu) (src/defer.c) */
/* ------------------------------------------------------------------ */

/*
 * Entries a thread's defer queue holds.  A thread that finds its queue
 * full waits for one grace period and runs the queue itself before it
 * queues more (liburcu's defer_rcu() throttles the same way), so the
 * memory a thread's deferred work holds is bounded by this many objects.
 */
#define RCB_DEFER_QUEUE_LEN 4096

/*
 * rcb_defer_register_thread - give the calling thread its defer queue.
 * Optional: rcb_defer() registers a thread that did not.  The queue is
 * flushed (rcb_defer_unregister_thread()) when the thread exits.
 * Context: any thread, outside or inside read-side critical sections.
 * Returns 0 (also when already registered) or -ENOMEM.
 */
RCB_API int rcb_defer_register_thread(void);

/*
 * rcb_defer_unregister_thread - wait for a grace period, run every entry
 * of the calling thread's queue, and release the queue (another thread
 * may reuse it).  Context: outside read-side critical sections.
 * Returns 0, -ENOENT (no queue), or -EDEADLK inside a read-side critical
 * section or from an entry's function that runs this queue (reported as
 * misuse; the queue stays registered).
 */
RCB_API int rcb_defer_unregister_thread(void);

/*
 * rcb_defer - run @fct(@p) after a grace period: every read-side
 * critical section that began before the call has ended first.  The
 * entry goes into the calling thread's queue (registered on first use);
 * the callback thread runs it after a grace period, or the thread itself
 * when its queue is full, after rcb_shutdown() or when no callback
 * thread can start (it then waits for one grace period: defer may
 * block, like liburcu's defer_rcu()).  Entries of one thread run in
 * queue order (except one queued by a function of the thread's own
 * full queue, which runs in place); @fct runs on the callback thread or
 * on a thread calling
 * rcb_defer*() and must not itself wait for the defer queue it runs
 * from (rcb_defer_barrier*()), nor for the callback threads: there
 * rcb_barrier(), rcb_shutdown() and the worker calls return -EDEADLK
 * (reported), as a callback may be waiting for @fct's queue.
 * Ordering: as rcb_call(): the caller's accesses before the call happen
 * before @fct runs, after the end of those critical sections.
 * Context: outside read-side critical sections (it may wait for a grace
 * period); not async-signal-safe (a handler's call that interrupts the
 * thread's own rcb_defer() may lose entries).  @fct must not end its
 * thread (pthread_exit(); cancellation is held off while entries run):
 * that stops the process with a message naming it.  Returns 0, -EINVAL
 * (@fct NULL), -EDEADLK inside a read-side critical section (both
 * reported as misuse; nothing is queued, @fct is never called), or
 * -ENOMEM (no queue could be allocated; nothing done).
 */
RCB_API int rcb_defer(void (*fct)(void *p), void *p);

/*
 * rcb_defer_barrier_thread - wait for a grace period and run every entry
 * the calling thread queued before the call.  Returns when every one of
 * them has finished, also one the callback thread (or a barrier) had
 * already begun to run.  Context and returns: as
 * rcb_defer_unregister_thread(), except 0 for a thread without a queue.
 */
RCB_API int rcb_defer_barrier_thread(void);

/*
 * rcb_defer_barrier - run every entry any thread queued before the call
 * (after one grace period), including the queues of exited threads and,
 * in a forked child, those inherited from the parent's threads (except
 * an entry another thread of the parent was running at the fork: it
 * ran there, and is not run again in the child).  Returns
 * when every one of them has finished, wherever it runs.
 * Context: outside read-side critical sections and deferred functions.
 * Returns 0, or -EDEADLK inside a read-side critical section or from a
 * deferred function, of any queue (reported as misuse; nothing done).
 */
RCB_API int rcb_defer_barrier(void);

/* ------------------------------------------------------------------ */
/* Polled grace periods (src/gp_poll.c)                                */
/* ------------------------------------------------------------------ */

/*
 * A cookie names a grace period: rcb_poll_state() reports whether a full
 * grace period has elapsed since the cookie was taken.  Cookies are
 * 64-bit grace-period sequence numbers: they never wrap (at one grace
 * period a nanosecond, 584 years).  0 is never returned and always
 * reads as elapsed (a "nothing to wait for" initialiser).  A cookie
 * passed to another thread needs the usual happens-before (a lock, a
 * release/acquire pair) like any other datum.  None of these calls takes
 * a lock that another thread may hold (callable from real-time threads),
 * except rcb_start_poll() when no callback thread can start (below).
 * In a forked child the parent's requests are not running: a cookie
 * taken before the fork elapses once a grace period starts in the child
 * (its rcb_start_poll(), rcb_synchronize(), rcb_cond_synchronize(), or
 * the callback thread started by another call); rcb_poll_state() alone
 * starts none.
 */

/*
 * rcb_get_state - a cookie for "now", without starting a grace period.
 * Full barrier before the snapshot: accesses before the call are ordered
 * before the grace period the cookie waits for.  Context: any thread,
 * also inside a read-side critical section.  Lock-free, never blocks.
 */
RCB_API uint64_t rcb_get_state(void);

/*
 * rcb_start_poll - rcb_get_state(), and make sure a grace period that
 * satisfies the cookie will run: if none has started since the
 * snapshot, the caller runs one itself when that needs no wait (no
 * other thread inside a section, and no other thread registered or the
 * last grace period 4 ms old: no system call, or one or two
 * membarrier() calls; the cookie has then elapsed on return), else the
 * callback thread is asked for one (the caller never waits for it).
 * Context: any thread, also inside a
 * read-side critical section.  Never blocks, except that a thread's
 * first call may register it and the first call after an
 * initialisation (the process's first, or one after rcb_shutdown() and
 * rcb_init()) may start the callback thread (as rcb_call()), and so may a forked child's
 * first call if the parent's request was still queued at the fork; and
 * when no callback thread can start (said on stderr), a call outside a
 * read-side critical section that queues the request runs the grace
 * period itself (blocking, as rcb_synchronize()), so that its cookie
 * still elapses.  A request queued inside a section whose thread start
 * at the unlock fails too waits, as any callback queued there, for the
 * worker's next start (the next rcb_call() to it or rcb_barrier()).
 * After rcb_shutdown() no grace
 * period is started; the cookie stays valid and elapses with the next
 * rcb_synchronize().
 */
RCB_API uint64_t rcb_start_poll(void);

/*
 * rcb_poll_state - has a full grace period elapsed since @cookie was
 * taken?  Returns 1 (yes: like a return from rcb_synchronize(), every
 * read-side critical section that began before the cookie was taken has
 * ended, and the caller's later accesses are ordered after them, full
 * barrier), 0 (not yet), or -EINVAL for a cookie no rcb_get_state() has
 * returned yet (from the future: forged or corrupted; reported as
 * misuse; never reads as elapsed).  Context: any thread, also inside a read-side critical
 * section and from a signal handler.  Wait-free: two loads (and a fence
 * when it returns 1).
 */
RCB_API int rcb_poll_state(uint64_t cookie);

/*
 * rcb_cond_synchronize - rcb_synchronize() unless rcb_poll_state(@cookie)
 * says a grace period has already elapsed.  Same ordering as
 * rcb_synchronize().  Context: outside read-side critical sections.
 * Returns 0, -EINVAL (a cookie from the future, reported as misuse; it
 * does not wait), or
 * -EDEADLK inside a read-side critical section (reported as misuse even
 * when the cookie has elapsed: the call may wait).
 */
RCB_API int rcb_cond_synchronize(uint64_t cookie);

/* ------------------------------------------------------------------ */
/* Deprecated names, removed with the next SONAME                      */
/* ------------------------------------------------------------------ */

#define RCB_DEPRECATED(msg) __attribute__((deprecated(msg)))

/* Same calls under their old names (exported: programs linked against
 * the previous release keep working). */
RCB_API int rcb_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
	RCB_DEPRECATED("use rcb_condvar_wait");
RCB_API int rcb_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
			       const struct timespec *abstime)
	RCB_DEPRECATED("use rcb_condvar_timedwait");
RCB_API int rcb_poll(struct pollfd *fds, unsigned long nfds, int timeout)
	RCB_DEPRECATED("use rcb_fd_poll");
/* The worker comes first in rcb_worker_assign_cpu(), as in every call
 * that takes one. */
RCB_API int rcb_worker_set_cpu(int cpu, struct rcb_worker *w)
	RCB_DEPRECATED("use rcb_worker_assign_cpu (worker first)");

/* ------------------------------------------------------------------ */
/* Implementation detail: the inline read side.  Not part of the API;  */
/* the names below may change with RCB_SONAME_MAJOR.                   */
/* ------------------------------------------------------------------ */

/*
 * A reader's ctr is 0 outside critical sections.  Inside, its high bits
 * are a snapshot of rcb__gp.ctr taken by the outermost rcb_read_lock()
 * and its low RCB__NEST_BITS bits are the nesting depth (a nested lock
 * at the full depth is reported, never carried into the snapshot).
 * rcb__gp.ctr advances by RCB__GP_STEP per grace period, so a reader
 * whose snapshot differs from rcb__gp.ctr started before the current
 * grace period.
 *
 * The snapshot has 32 bits, and they do wrap: 2^32 back-to-back grace
 * periods (one updater, no reader in a section) take 280-460 s in the
 * fence flavor (65-110 ns each) and 1.2-2.9 h with membarrier (1-2.4 us
 * each), measured on a 2-core machine; days or years at realistic
 * update rates.
 * A wrap matters in one case only: a thread preempted inside the
 * outermost rcb_read_lock(), between its load of rcb__gp.ctr and its
 * store of ctr (two instructions, ctr still 0, so no grace period waits
 * for it and the booster cannot see it) while k grace periods complete,
 * k >= 2^32 - 1 and k = -1 or 0 modulo 2^32, stores a snapshot equal to
 * the counter of the next (or the current) grace period, which then
 * takes it for a reader that began after it and does not wait: the
 * section may use memory that grace period frees.  Any other stale
 * snapshot is merely waited for.
 * The window cannot be closed without a second counter flip per grace
 * period (liburcu's two phases, twice the grace-period cost) or a wider
 * snapshot (fewer depth bits: other read-side instructions); the residual
 * risk is documented in rcuboost(3), BUGS.
 */
#define RCB__NEST_BITS 32
#define RCB__NEST_ONE 1UL
#define RCB__NEST_MASK ((1UL << RCB__NEST_BITS) - 1)
#define RCB__GP_STEP (1UL << RCB__NEST_BITS)

#ifdef __cplusplus
static_assert(sizeof(unsigned long) == 8, "rcuboost needs an LP64 target");
#else
_Static_assert(sizeof(unsigned long) == 8, "rcuboost needs an LP64 target");
#endif

struct rcb_reader {
	/* Written only by the owning thread; read by grace periods. */
	RCB__ATOMIC(unsigned long) ctr;
	/*
	 * Bits 0-7: the thread's boost state (RCU_BOOST_IDLE == 0), changed
	 * by the thread and the booster, always by compare-and-exchange of
	 * the whole word.  RCB__READER_FAST: the thread is registered and
	 * the membarrier flavor is active (set and cleared by the thread).
	 * The outermost unlock stays inline only when the word is exactly
	 * RCB__READER_FAST, so one test covers the fence flavor and a
	 * queued (blocked or boosted) thread alike: compiling boosting in
	 * adds no instruction to the read side.  RCB__READER_WAKE_CB: set
	 * by the thread's own rcb_call*() nested in one of its sections,
	 * which leaves the callback thread's wake-up to the outermost
	 * unlock (src/callback.c, invariant 4).
	 */
	RCB__ATOMIC(unsigned int) special;
	unsigned int pad_;
};

#define RCB__READER_FAST 0x100u
#define RCB__READER_WAKE_CB 0x200u
#define RCB__BOOST_STATE_MASK 0xffu

struct rcb__gp {
	/* Current grace-period counter; written only by grace periods. */
	RCB__ATOMIC(unsigned long) ctr;
	/* -1 while an updater sleeps waiting for readers, else 0. */
	RCB__ATOMIC(int) futex;
};

RCB_API extern struct rcb__gp rcb__gp;
/* initial-exec: one %fs-relative access even from position-independent
 * code, as librcuboost is loaded with the program (not for dlopen()ing
 * after threads started; glibc's static TLS surplus usually covers it). */
RCB_API extern __thread struct rcb_reader rcb__reader
	__attribute__((tls_model("initial-exec")));

RCB_API void rcb__read_lock_slow(void);
RCB_API void rcb__read_unlock_slow(unsigned long ctr);
RCB_API void rcb__gp_wake(void);
RCB_API void rcb__read_unlock_special(void);
RCB_API void rcb__read_lock_nest_overflow(void);

/* The read side's accesses: C11 atomics in C (the instructions the
 * disassembly tests check), the same builtins in C++. */
#ifdef __cplusplus
#define rcb__ld_relaxed(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define rcb__st_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define rcb__st_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define rcb__compiler_barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#else
#define rcb__ld_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define rcb__st_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define rcb__st_release(p, v) atomic_store_explicit((p), (v), memory_order_release)
#define rcb__compiler_barrier() atomic_signal_fence(memory_order_seq_cst)
#endif

/*
 * ThreadSanitizer does not know that membarrier() turns the read side's
 * compiler barriers into fences; tell it about those edges.  Compiled
 * only into -fsanitize=thread builds.
 */
#if defined(__SANITIZE_THREAD__)
#define RCB__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RCB__TSAN 1
#endif
#endif
#ifdef RCB__TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define rcb__tsan_acquire(p) __tsan_acquire((void *)(p))
#define rcb__tsan_release(p) __tsan_release((void *)(p))
#else
#define rcb__tsan_acquire(p) ((void)0)
#define rcb__tsan_release(p) ((void)0)
#endif

/*
 * Simulation build (tools/sim/, -DRCB_SIM, never installed): a simulation
 * point between the outermost lock's snapshot load and its ctr store, and
 * between the outermost unlock's ctr store and its loads, where the
 * simulator may preempt the reader.  Normal builds: no code at all.
 */
#ifdef RCB_SIM
void rcb__sim_point(const char *file, int line);
static inline unsigned long rcb__sim_pass(unsigned long v)
{
	rcb__sim_point("rcuboost.h", __LINE__);
	return v;
}
#define RCB__SIM_RD(e) rcb__sim_pass(e)
#define RCB__SIM_POINT() rcb__sim_point("rcuboost.h", __LINE__)
#else
#define RCB__SIM_RD(e) (e)
#define RCB__SIM_POINT() ((void)0)
#endif

static inline void rcb_read_lock(void)
{
	struct rcb_reader *r = &rcb__reader;
	unsigned long tmp = rcb__ld_relaxed(&r->ctr);

	if (RCB_LIKELY(!(tmp & RCB__NEST_MASK))) {
		if (RCB_UNLIKELY(!(rcb__ld_relaxed(&r->special) &
				   RCB__READER_FAST))) {
			rcb__read_lock_slow();
			return;
		}
		rcb__tsan_acquire(&rcb__gp.ctr);
		rcb__st_relaxed(&r->ctr,
				RCB__SIM_RD(rcb__ld_relaxed(&rcb__gp.ctr)) +
					RCB__NEST_ONE);
		/*
		 * [RD-A] The ctr store above is ordered before the critical
		 * section's loads: a compiler barrier here, which every
		 * membarrier() an updater issues turns into a full barrier.
		 * Pairs with [GP-A] and [GP-W] in src/gp.c.
		 */
		rcb__compiler_barrier();
	} else {
		unsigned long next = tmp + RCB__NEST_ONE;

		/*
		 * Nested.  A depth that wraps to 0 would carry into the
		 * snapshot and end the section under the reader: reported,
		 * depth kept.  Tested on the incremented value, so that the
		 * outermost test above keeps its own instructions.
		 */
		if (RCB_LIKELY(next & RCB__NEST_MASK))
			rcb__st_relaxed(&r->ctr, next);
		else
			rcb__read_lock_nest_overflow();
	}
}

static inline void rcb_read_unlock(void)
{
	struct rcb_reader *r = &rcb__reader;
	unsigned long tmp = rcb__ld_relaxed(&r->ctr);

	if (RCB_LIKELY((tmp & RCB__NEST_MASK) == RCB__NEST_ONE)) {
		/*
		 * [RD-B] The critical section's loads are ordered before the
		 * store that ends it: a compiler barrier, made a full barrier
		 * by the updater's membarrier, and a release store (a plain
		 * store on x86) for the fence flavor, whose slow path comes
		 * after the store.  Pairs with [GP-B] in src/gp.c.
		 */
		rcb__compiler_barrier();
		rcb__st_release(&r->ctr, 0); /* [RD-B] */
		/*
		 * [RD-W] The ctr store is ordered before the loads below
		 * (store-buffering with the updater's futex and the booster's
		 * boost state).  Pairs with [GP-W] in src/gp.c and [BST-M]
		 * in src/booster.c.
		 */
		rcb__compiler_barrier();
		RCB__SIM_POINT();
		if (RCB_UNLIKELY(rcb__ld_relaxed(&r->special) !=
				 RCB__READER_FAST))
			rcb__read_unlock_special();
		else if (RCB_UNLIKELY(rcb__ld_relaxed(&rcb__gp.futex) == -1))
			rcb__gp_wake();
	} else if (RCB_LIKELY(tmp & RCB__NEST_MASK)) {
		rcb__st_relaxed(&r->ctr, tmp - RCB__NEST_ONE);
	} else {
		rcb__read_unlock_slow(tmp); /* unbalanced: reported */
	}
}

static inline int rcb_read_ongoing(void)
{
	return (rcb__ld_relaxed(&rcb__reader.ctr) & RCB__NEST_MASK) != 0;
}

static inline void rcb_note_block(void)
{
#if RCB_CONFIG_BOOST
	if (RCB_UNLIKELY(rcb_read_ongoing()))
		rcb__preempt_boost();
#endif
}

#ifdef __cplusplus
}
#endif

#endif /* RCUBOOST_H */
