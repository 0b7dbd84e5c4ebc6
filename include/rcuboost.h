/* SPDX-License-Identifier: MIT */
/*
 * rcuboost.h - read-copy update for Linux threads whose readers may be
 * preempted or block, with priority boosting of stalled readers.  The
 * whole public API: a contract above each declaration (what, context,
 * ordering, returns); rationale, settings, examples in rcuboost(3).
 *
 * At a glance:
 *
 * Read side (inline; async-signal-safe once initialised)
 *   rcb_read_lock()                   begin a read-side critical section
 *   rcb_read_unlock()                 end it
 *   rcb_read_ongoing()                is the caller inside one?
 *   rcb_dereference(p)                load an RCU-protected pointer
 *   rcb_assign_pointer(p, v)          publish a pointer
 *   rcb_xchg_pointer(pp, v)           publish one, returning the old
 *   rcb_container_of(ptr, type, m)    the object around a member
 * Registration and lifecycle
 *   rcb_init(cfg)                     initialise (optional: lazy)
 *   rcb_shutdown()                    run queued callbacks, stop threads
 *   rcb_register_thread()             register the caller (optional)
 *   rcb_unregister_thread()           unregister it (optional: at exit)
 *   rcb_flavor()                      the read-side scheme in use
 *   rcb_flavor_name(flavor)           its name
 *   rcb_version()                     the library's version number
 *   rcb_version_string()              the same as "M.m.p"
 * Grace periods
 *   rcb_synchronize()                 wait for pre-existing readers
 *   rcb_synchronize_expedited()       the same, boosting them at once
 * Callbacks
 *   rcb_call(head, func)              func(head) after a grace period
 *   rcb_call_sized(head, func, bytes) the same, counting bytes
 *   rcb_barrier()                     wait for every queued callback
 *   rcb_worker_create(attr, out)      a callback thread with its queue
 *   rcb_worker_destroy(w)             stop it; its callbacks move on
 *   rcb_worker_set_thread(w)          the caller's callbacks go to w
 *   rcb_worker_assign_cpu(w, cpu)     callbacks queued on cpu go to w
 *   rcb_worker_default()              the library's own worker
 *   rcb_worker_of_cpu(cpu)            a CPU's worker
 *   rcb_worker_of_thread()            the caller's worker
 *   rcb_worker_current()              the worker rcb_call() uses now
 *   rcb_worker_thread(w, out)         a worker's pthread_t
 *   rcb_worker_tid(w)                 a worker's thread ID
 *   rcb_callback_tids(tids, n)        every worker's thread ID
 * Deferral (liburcu's defer_rcu)
 *   rcb_defer(fct, p)                 fct(p) after a grace period
 *   rcb_defer_register_thread()       give the caller a queue (optional)
 *   rcb_defer_unregister_thread()     run and release it
 *   rcb_defer_barrier_thread()        run what the caller queued
 *   rcb_defer_barrier()               run what every thread queued
 * Polling
 *   rcb_get_state()                   a cookie for "now"
 *   rcb_start_poll()                  the same; get a grace period going
 *   rcb_poll_state(cookie)            has a grace period elapsed since?
 *   rcb_cond_synchronize(cookie)      rcb_synchronize() unless it has
 * Boosting control
 *   rcb_note_block()                  about to block in a section
 *   rcb_mutex_lock(m)                 pthread_mutex_lock(), noting it
 *   rcb_condvar_wait(c, m)            pthread_cond_wait(), noting it
 *   rcb_condvar_timedwait(c, m, t)    pthread_cond_timedwait(), noting it
 *   rcb_nanosleep(req, rem)           nanosleep(), noting it
 *   rcb_fd_poll(fds, nfds, timeout)   poll(), noting it
 *   rcb_futex_wait(uaddr, val, t)     FUTEX_WAIT, noting it
 *   rcb_booster_set_prio(prio)        the boosters' SCHED_RR priority
 *   rcb_booster_tids(tids, n)         the boosters' thread IDs
 * Statistics
 *   rcb_stats(out)                    grace-period and misuse counters
 *   rcb_backlog(out)                  callbacks queued, bytes, peaks
 *   rcb_backlog_reset_peak()          restart the peaks
 *   rcb_boost_stats(out)              boosting's state and counters
 *   rcb_boost_stats_format(s, b, l, j) those as text or JSON
 *   rcb_stats_get(key, value)         one counter by name
 *   rcb_stats_key(index)              the names rcb_stats_get() knows
 * Diagnostics
 *   rcb_stall_report(buf, len, flags) the stall detector's report
 * Deprecated (renamed; exported one more release; see the end)
 *   rcb_cond_wait, rcb_cond_timedwait, rcb_poll, rcb_worker_set_cpu
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

/* Written here only; CMake reads these lines (CONTRIBUTING.md: what
 * bumps which).  ABI: the inline read side compiles struct rcb_reader and
 * rcb__gp into programs, and struct rcb_head sits in their objects: a
 * change of their layout, or of a public struct's but growth behind its
 * size, bumps RCB_SONAME_MAJOR (1: sizes added; 2: struct rcb_head lost
 * its bytes word to struct rcb_head_sized). */
#define RCB_VERSION_MAJOR 1
#define RCB_VERSION_MINOR 0
#define RCB_VERSION_PATCH 0
#define RCB_SONAME_MAJOR 2
/* A number in release order (parts below 256); "MAJOR.MINOR.PATCH". */
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

#define RCB_DEPRECATED(msg) __attribute__((deprecated(msg)))

/* A shared member; in C++ (no _Atomic) the plain type, same layout. */
#ifdef __cplusplus
#define RCB__ATOMIC(T) T
#else
#define RCB__ATOMIC(T) _Atomic(T)
#endif

#define RCB_LIKELY(x) __builtin_expect(!!(x), 1)
#define RCB_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- Types --------------------------------------------------------- */

/* Embed in an object freed through rcb_call(), which owns it until the
 * callback runs.  liburcu's struct rcu_head layout: heads laid out for
 * liburcu may be passed; nothing past them is written. */
struct rcb_head {
	RCB__ATOMIC(struct rcb_head *) next;
	void (*func)(struct rcb_head *head);
};

/* rcb_container_of - the struct @type whose @member is at @ptr (e.g. the
 * object around a callback's head).  @ptr is evaluated once, and must
 * point to @member's type (or be void *) or it does not compile. */
#define rcb_container_of(ptr, type, member)                        \
	((type *)(void *)((char *)(ptr) - offsetof(type, member) - \
			  0 * sizeof((ptr) == &((type *)0)->member)))

/* A head that counts the object's bytes in the backlog (rcb_call_sized();
 * head.func then holds a trampoline; the callback receives &head). */
struct rcb_head_sized {
	struct rcb_head head;
	void (*func)(struct rcb_head *head);
	size_t bytes;
};

/* The read-side ordering scheme; fixed at initialisation. */
enum rcb_flavor {
	RCB_FLAVOR_MEMBARRIER = 0, /* readers: compiler barriers only */
	RCB_FLAVOR_FENCE = 1,      /* no membarrier(2): readers fence */
};

/* What misuse does (rcuboost(3), MISUSE); RCUBOOST_MISUSE overrides. */
enum rcb_misuse_policy {
	RCB_MISUSE_DEFAULT = 0, /* ABORT in a debug library, else WARN */
	RCB_MISUSE_WARN = 1,    /* message on stderr, call refused */
	RCB_MISUSE_ABORT = 2,   /* message on stderr, abort() */
};

/* struct rcb_config.flavor. */
enum rcb_flavor_request {
	RCB_FLAVOR_AUTO = 0, /* membarrier if the kernel has it, else fence */
	RCB_FLAVOR_REQUIRE_MEMBARRIER = 1, /* fail rcb_init() without it */
	RCB_FLAVOR_REQUIRE_FENCE = 2,
};

/* struct rcb_config.boost_backend: how a reader is boosted. */
enum rcb_boost_backend {
	RCB_BACKEND_DEFAULT = 0,
	RCB_BACKEND_SCHED = 1, /* sched_setattr(2) on the reader */
	RCB_BACKEND_PI = 2,    /* a priority-inheritance futex proxy lock */
};

/* Configuration for rcb_init().  Zero it, set size to its sizeof (0:
 * RCB_CONFIG_SIZE_V1; sizes: rcuboost(3), "Structure sizes"), set what
 * you need: a zero field means the variable beside it, else the default
 * (rcuboost(3), ENVIRONMENT). */
struct rcb_config {
	size_t size; /* sizeof(struct rcb_config), or 0 */
	enum rcb_flavor_request flavor; /* RCUBOOST_FLAVOR */
	enum rcb_misuse_policy misuse;  /* RCUBOOST_MISUSE */
	unsigned int callback_batch_us; /* RCUBOOST_CALLBACK_BATCH_US */
	/* Boosting (ignored in a library built without it). */
	int boost;                     /* 1 on, -1 off; RCUBOOST_BOOST */
	int boost_prio;                /* booster SCHED_RR; RCUBOOST_PRIO */
	unsigned int boost_period_ms;  /* RCUBOOST_PERIOD_MS */
	unsigned int boost_elements;   /* power of two; RCUBOOST_ELEMENTS */
	unsigned int stats_interval_s; /* RCUBOOST_STATS_INTERVAL */
	int boost_machine;             /* 3 (default) or 8; RCUBOOST_MACHINE */
	unsigned long pressure_callbacks; /* RCUBOOST_PRESSURE_CALLBACKS */
	unsigned long pressure_bytes;     /* RCUBOOST_PRESSURE_BYTES */
	unsigned int pressure_psi;        /* RCUBOOST_PRESSURE_PSI */
	unsigned int pressure_low_pct;    /* RCUBOOST_PRESSURE_LOW */
	unsigned int escalate_periods;    /* RCUBOOST_ESCALATE */
	int boost_reader_prio;            /* RCUBOOST_READER_PRIO */
	int boost_ceiling;                /* RCUBOOST_CEILING */
	int booster_cpus;                 /* RCUBOOST_BOOSTER_CPUS */
	int boost_backend;                /* RCUBOOST_BACKEND */
	unsigned int pi_helpers;          /* RCUBOOST_PI_HELPERS */
	int stall_ms;                     /* RCUBOOST_STALL_MS; -1 off */
	int reserved_v1; /* SONAME 1 tail padding: leave 0 */
	/* Past RCB_CONFIG_SIZE_V1. */
	unsigned long long thread_cpus; /* bit n: CPU n; RCUBOOST_CPUS */
	int callback_prio;   /* RCUBOOST_CALLBACK_PRIO */
	int expedited;       /* RCUBOOST_EXPEDITED */
	int inherit;         /* RCUBOOST_INHERIT */
	int inherit_ceiling; /* RCUBOOST_INHERIT_CEILING */
	int callback_local;  /* RCUBOOST_CALLBACK_LOCAL */
	int callback_follow; /* RCUBOOST_CALLBACK_FOLLOW */
	int urcu_callback_delay_us; /* RCUBOOST_URCU_CALLBACK_DELAY_US */
};

/* sizeof(struct rcb_config) in its first sized layout (SONAME 1). */
#define RCB_CONFIG_SIZE_V1 104

/* Callbacks awaiting a grace period or their invocation (rcb_backlog()). */
struct rcb_backlog {
	size_t size;             /* set by rcb_backlog() */
	uint64_t callbacks;      /* queued by rcb_call*(), not yet invoked */
	uint64_t bytes;          /* sum of their sizes (rcb_call_sized) */
	uint64_t peak_callbacks; /* since rcb_backlog_reset_peak() */
	uint64_t peak_bytes;
	uint64_t invoked;        /* callbacks invoked since initialisation */
};

#define RCB_BACKLOG_SIZE_V1 48

/* Grace-period and misuse counters (rcb_stats()). */
struct rcb_gp_stats {
	size_t size;                /* set by rcb_stats() */
	uint64_t grace_periods;     /* that had other threads to look at */
	uint64_t synchronize_calls; /* rcb_synchronize() calls returning 0 */
	uint64_t batched;           /* served by another's grace period */
	uint64_t futex_waits;       /* times an updater slept for readers */
	uint64_t misuse;            /* misuse reports (see rcb_misuse_policy) */
	uint64_t registered_threads; /* threads currently registered */
};

#define RCB_GP_STATS_SIZE_V1 56

/* ---- Registration and lifecycle ------------------------------------ */

/* rcb_init - initialise with @cfg (NULL: defaults and the environment);
 * optional, every call initialises lazily.  Context: not in a section, a
 * callback or a deferred function (-EDEADLK, misuse); not
 * async-signal-safe.  Returns 0 (also again, same settings); -EBUSY
 * (other settings, the first named); -EINVAL (a bad setting, variable or
 * size, named); -E2BIG (non-zero fields unknown here); -ENOSYS
 * (membarrier required); -ENOMEM; -EAGAIN.  Nothing started on failure. */
RCB_API int rcb_init(const struct rcb_config *cfg);

/* rcb_shutdown - run every queued callback (as rcb_barrier()), stop the
 * library's threads; rcb_call() then fails with -ESHUTDOWN until
 * rcb_init().  Readers and rcb_synchronize() keep working.  Context: not
 * in a section, a callback or a deferred function.  Returns 0, -EDEADLK
 * (from there), -EALREADY (not running), or, as rcb_barrier(), the error
 * of a worker whose thread cannot start (the others are stopped). */
RCB_API int rcb_shutdown(void);

/* rcb_register_thread - make the calling thread known to grace periods.
 * Optional (the first rcb_read_lock() registers, exit unregisters): it
 * moves that cost out of the first section.  Context: outside sections;
 * not async-signal-safe.  Returns 0 (also when registered), -ENOMEM, or
 * -EDEADLK from a handler that interrupted the thread's registry lock. */
RCB_API int rcb_register_thread(void);

/* rcb_unregister_thread - remove the calling thread from the registry.
 * Returns 0, -EBUSY inside a read-side critical section (it stays
 * registered; misuse), -ENOENT if not registered. */
RCB_API int rcb_unregister_thread(void);

/* The active read-side flavor (initialises the library if needed). */
RCB_API enum rcb_flavor rcb_flavor(void);
/* "membarrier" or "fence". */
RCB_API const char *rcb_flavor_name(enum rcb_flavor flavor);

/* The library's version: RCB_VERSION_NUMBER and RCB_VERSION_STRING of
 * the header it was built with (a program may run with a newer one).
 * Any context, async-signal-safe; never fails. */
RCB_API unsigned int rcb_version(void);
RCB_API const char *rcb_version_string(void);

/* ---- Read side (inline: implementation detail at the end) ---------- */

/* rcb_read_lock - begin a read-side critical section; nestable to
 * 2^32 - 1 (one more is reported).  The thread may be preempted or block
 * inside.  Any thread (registered on first use); async-signal-safe once
 * initialised, with rcb_read_unlock(), rcb_read_ongoing(),
 * rcb_dereference() (not over its own lock/unlock or rcb_init()).
 * Cost: thread-local loads and one thread-local store. */
static inline void rcb_read_lock(void);

/* rcb_read_unlock - end a read-side critical section; the outermost lets
 * grace periods proceed.  An unmatched one is reported and ignored.  A
 * system call only to wake a waiting grace period, to unboost the
 * thread, or to wake or start a worker for an rcb_call*() nested in the
 * section (rcuboost(3), "Callback order and local mode"). */
static inline void rcb_read_unlock(void);

/* Non-zero if the calling thread is inside a read-side critical section. */
static inline int rcb_read_ongoing(void);

/* rcb_dereference - load an RCU-protected pointer inside a read-side
 * critical section (consume ordering, implemented as acquire). */
#define rcb_dereference(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)

/* rcb_assign_pointer - publish @v at @p: every store that initialised
 * *v is visible to a reader that sees @v.  Returns nothing. */
#define rcb_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

/* rcb_xchg_pointer - publish @v at *@pp and return the old value, with
 * the ordering of rcb_assign_pointer() plus acquire on the old value. */
#define rcb_xchg_pointer(pp, v) __atomic_exchange_n((pp), (v), __ATOMIC_ACQ_REL)

/* ---- Grace periods ------------------------------------------------- */

/* rcb_synchronize - wait until every read-side critical section begun
 * before the call has ended; concurrent callers share grace periods.
 * Ordering: full barrier on both sides.  Context: outside sections; may
 * be called from a callback; not async-signal-safe.  Returns 0, or
 * -EDEADLK in a section or from a handler that interrupted its thread's
 * grace period (misuse: it would wait for itself). */
RCB_API int rcb_synchronize(void);

/* rcb_synchronize_expedited - rcb_synchronize(), the readers holding the
 * grace period boosted at once (no aging) until they leave their
 * sections.  With boosting off or no permission, a plain grace period
 * (said once).  Ordering, context, returns: as rcb_synchronize(). */
RCB_API int rcb_synchronize_expedited(void);

/* ---- Callbacks ----------------------------------------------------- */

/* rcb_call - queue @func(@head) to run on a callback worker after a grace
 * period; wait-free.  A thread's callbacks to one worker run in order
 * (rcuboost(3), "Callback order and local mode").  Ordering: accesses
 * before the call happen before @func.  Context: anywhere, also in a
 * section or a callback; not async-signal-safe.  @func must end the
 * sections it begins and not end its thread.  Returns 0; -EINVAL (NULL
 * argument), -ESHUTDOWN, -EBUSY (@head still queued: "Callback heads"),
 * each misuse, nothing queued; -EAGAIN, -ENOMEM or -EPERM (the worker's
 * thread cannot start; said on stderr). */
RCB_API int rcb_call(struct rcb_head *head,
		     void (*func)(struct rcb_head *head));

/* rcb_call_sized - rcb_call(), and count @bytes in the backlog (and its
 * memory-pressure threshold) until @func, which receives &@head->head,
 * has run.  Context and returns: as rcb_call(). */
RCB_API int rcb_call_sized(struct rcb_head_sized *head,
			   void (*func)(struct rcb_head *head), size_t bytes);

/* rcb_barrier - wait until every callback queued (any thread, any
 * worker) before the call has run.  Context: outside sections, callbacks
 * and deferred functions.  Returns 0, -EDEADLK (from there; misuse), or
 * -EAGAIN, -ENOMEM or -EPERM when a worker holding callbacks has no
 * thread and none can start (its callbacks have not run; others have). */
RCB_API int rcb_barrier(void);

/* A callback worker: a thread with its own queue (liburcu's
 * call_rcu_data).  rcb_call*() uses the caller's worker, else its CPU's,
 * else the default one.  The calls below refuse to run in a section, a
 * callback or a deferred function (-EDEADLK), and a dead worker
 * (-ENOENT), reporting misuse.  Opaque. */
struct rcb_worker;

/* struct rcb_worker_attr.flags: poll the queue every millisecond instead
 * of sleeping, so rcb_call() never wakes it (liburcu's URCU_CALL_RCU_RT). */
#define RCB_WORKER_RT 1u
/* struct rcb_worker_attr.flags: pin the worker to attr->cpu. */
#define RCB_WORKER_PIN 2u

/* A new worker's attributes; sized as struct rcb_config (0:
 * RCB_WORKER_ATTR_SIZE_V1).  policy 0, prio 0: the callback priority
 * (struct rcb_config.callback_prio). */
struct rcb_worker_attr {
	size_t size;
	unsigned int flags; /* RCB_WORKER_RT, RCB_WORKER_PIN */
	int cpu;            /* with RCB_WORKER_PIN */
	int policy;         /* SCHED_OTHER (0), SCHED_FIFO or SCHED_RR */
	int prio;           /* 1-99 with SCHED_FIFO/SCHED_RR, else 0 */
};

#define RCB_WORKER_ATTR_SIZE_V1 24

/* rcb_worker_create - start a worker (@attr NULL: defaults), running when
 * the call returns, into *@out.  Returns 0, -EDEADLK, -EINVAL (@out NULL
 * or a bad size: misuse; a bad flag, CPU, policy or priority: named on
 * stderr), -E2BIG (unknown non-zero fields), -ENOMEM, -ESHUTDOWN, or
 * pthread_create()'s negative errno (-EPERM: no real-time permission). */
RCB_API int rcb_worker_create(const struct rcb_worker_attr *attr,
			      struct rcb_worker **out);

/* rcb_worker_destroy - withdraw @w from its threads and CPUs, let it
 * finish its batch, move its queued callbacks to the default worker (in
 * order, behind those there) and free it.  Returns 0, or (misuse)
 * -EINVAL (NULL or the default worker), -ENOENT (freed already),
 * -EDEADLK (also from @w's own thread). */
RCB_API int rcb_worker_destroy(struct rcb_worker *w);

/* rcb_worker_set_thread - the calling thread's callbacks go to @w (NULL:
 * undo) until it unregisters or @w dies.  Registers the caller.  Returns
 * 0, -ENOENT, -EDEADLK, or the error of rcb_register_thread(). */
RCB_API int rcb_worker_set_thread(struct rcb_worker *w);

/* rcb_worker_assign_cpu - callbacks of threads on @cpu without a worker
 * of their own go to @w; NULL withdraws it (its queue stays).  Returns 0,
 * -EINVAL (@cpu out of range), -ENOENT, -EDEADLK (each misuse), -EEXIST
 * (@cpu has one: withdraw it first; not misuse, a race), -ENOMEM. */
RCB_API int rcb_worker_assign_cpu(struct rcb_worker *w, int cpu);

/* The default worker (NULL only if initialisation fails). */
RCB_API struct rcb_worker *rcb_worker_default(void);
/* The worker of @cpu, or NULL (none, or @cpu out of range). */
RCB_API struct rcb_worker *rcb_worker_of_cpu(int cpu);
/* The calling thread's own worker, or NULL. */
RCB_API struct rcb_worker *rcb_worker_of_thread(void);
/* The worker rcb_call() of the calling thread would use now. */
RCB_API struct rcb_worker *rcb_worker_current(void);

/* rcb_worker_thread - store @w's thread in *@out, starting it if needed,
 * so that its attributes can be set (from a callback: only its own
 * worker).  Returns 0, -EINVAL (NULL), -ENOENT, -EDEADLK (each misuse),
 * -ESHUTDOWN, or pthread_create()'s negative errno. */
RCB_API int rcb_worker_thread(struct rcb_worker *w, pthread_t *out);

/* As rcb_worker_thread(), returning @w's thread ID or a negative errno. */
RCB_API pid_t rcb_worker_tid(struct rcb_worker *w);

/* rcb_callback_tids - up to @n running workers' thread IDs into @tids
 * (the default's first).  Returns how many run (may exceed @n), -EINVAL
 * (@tids NULL, @n > 0) or -EDEADLK, both misuse. */
RCB_API int rcb_callback_tids(pid_t *tids, size_t n);

/* ---- Deferral: a bounded queue per thread (liburcu's defer_rcu) ---- */

/* A thread's defer queue; one found full is run by its thread. */
#define RCB_DEFER_QUEUE_LEN 4096

/* rcb_defer - run @fct(@p) after a grace period, from the calling
 * thread's queue: by the callback thread, or by this one when the queue
 * is full or no callback thread runs (so it may block).  A thread's
 * entries run in order.  Ordering: as rcb_call().  Context: outside
 * sections; not async-signal-safe.  @fct must not wait for defer queues
 * or callback threads (-EDEADLK there) nor end its thread.  Returns 0,
 * -EINVAL (@fct NULL), -EDEADLK (in a section; both misuse) or -ENOMEM. */
RCB_API int rcb_defer(void (*fct)(void *p), void *p);

/* rcb_defer_register_thread - give the caller its queue (optional; exit
 * flushes it).  Any context.  Returns 0 (also when registered) or
 * -ENOMEM. */
RCB_API int rcb_defer_register_thread(void);

/* rcb_defer_unregister_thread - after a grace period, run the caller's
 * queue and release it.  Context: outside sections.  Returns 0, -ENOENT
 * (no queue), or -EDEADLK in a section or from an entry of this queue. */
RCB_API int rcb_defer_unregister_thread(void);

/* rcb_defer_barrier_thread - after a grace period, run every entry the
 * caller queued before, returning once all have finished.  Context,
 * returns: as rcb_defer_unregister_thread(), but 0 without a queue. */
RCB_API int rcb_defer_barrier_thread(void);

/* rcb_defer_barrier - the same for every thread's queue (exited threads',
 * a forked child's parent's).  Context: outside sections and deferred
 * functions.  Returns 0, or -EDEADLK from there (misuse; nothing done). */
RCB_API int rcb_defer_barrier(void);

/* ---- Polling ------------------------------------------------------- */

/* A cookie names a grace period: a 64-bit sequence number that never
 * wraps; 0 reads as elapsed.  These calls take no lock another thread
 * may hold (but rcb_start_poll() when no callback thread can start). */

/* rcb_get_state - a cookie for "now", starting nothing.  Full barrier
 * before the snapshot.  Any thread, also in a section; never blocks. */
RCB_API uint64_t rcb_get_state(void);

/* rcb_start_poll - rcb_get_state(), and make sure a grace period that
 * satisfies the cookie will run (the caller's own when that needs no
 * wait, else the callback thread's).  Any thread, also in a section.
 * Never blocks but for a first call (registration, the callback thread's
 * start) and, with no callback thread able to start, outside a section
 * (it runs the grace period).  Details: rcuboost(3), POLLED GRACE PERIODS. */
RCB_API uint64_t rcb_start_poll(void);

/* rcb_poll_state - has a grace period elapsed since @cookie was taken?
 * Returns 1 (yes, ordered as a return from rcb_synchronize()), 0 (not
 * yet), or -EINVAL for a cookie from the future (misuse).  Any thread,
 * also in a section or a signal handler.  Wait-free: two loads. */
RCB_API int rcb_poll_state(uint64_t cookie);

/* rcb_cond_synchronize - rcb_synchronize() unless rcb_poll_state(@cookie)
 * is 1.  Ordering: as rcb_synchronize().  Context: outside sections.
 * Returns 0, -EINVAL (a cookie from the future; misuse, no wait), or
 * -EDEADLK in a section (misuse even when elapsed: it might wait). */
RCB_API int rcb_cond_synchronize(uint64_t cookie);

/* ---- Boosting control ---------------------------------------------- */

/* A reader blocked or preempted in a section for about boost_elements - 1
 * booster periods is raised to SCHED_FIFO below the booster and restored
 * by its outermost unlock (rcuboost(3)).  No-ops with boosting off. */

/* Out-of-line part of rcb_note_block().  article: __rcu_preempt_boost() */
RCB_API void rcb__preempt_boost(void);

/* rcb_note_block - the caller is about to block: in a section, queue it
 * for boosting should the block last.  article: rcu_preempt_boost().
 * Outside a section: one thread-local load. */
static inline void rcb_note_block(void);

/* Blocking calls that call rcb_note_block() when they would block in a
 * section, then behave exactly as the call they wrap (arguments, results,
 * errno).  rcb_mutex_lock() notes only a contended mutex. */
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

/* rcb_booster_set_prio - every booster's SCHED_RR priority to @prio
 * (2-99); boost levels follow it.  Returns 0, -EINVAL, -ESRCH (no
 * booster), or sched_setscheduler(2)'s negative errno. */
RCB_API int rcb_booster_set_prio(int prio);

/* rcb_booster_tids - up to @n booster thread IDs into @tids (NULL with
 * @n 0: count).  Returns the number running (may exceed @n), or -EINVAL
 * (@n above INT_MAX, or @tids NULL with @n > 0; misuse). */
RCB_API int rcb_booster_tids(pid_t *tids, size_t n);

/* ---- Statistics ---------------------------------------------------- */

/* Out-of-line parts of rcb_backlog() and rcb_stats(): out->size as for
 * struct rcb_boost_stats (0 is the V1 layout). */
RCB_API int rcb__backlog_sized(struct rcb_backlog *out);
RCB_API int rcb__gp_stats_sized(struct rcb_gp_stats *out);

#ifdef RCB__V0_SYMBOLS
/* The library's own build: the unsized layouts' symbols (old programs). */
struct rcb__backlog_v0;
struct rcb__gp_stats_v0;
RCB_API void rcb_backlog(struct rcb__backlog_v0 *out);
RCB_API void rcb_stats(struct rcb__gp_stats_v0 *out);
#else
/* rcb_backlog - fill @out with the callback backlog, after setting
 * out->size to the caller's sizeof (a newer library then writes only the
 * fields it knows).  Any thread, also in a section or a callback; not
 * async-signal-safe; O(registered threads).  Returns 0, or -EINVAL for
 * @out NULL (misuse). */
static inline int rcb_backlog(struct rcb_backlog *out)
{
	if (out)
		out->size = sizeof(*out);
	return rcb__backlog_sized(out);
}

/* rcb_stats - the grace-period counters into @out, as rcb_backlog(). */
static inline int rcb_stats(struct rcb_gp_stats *out)
{
	if (out)
		out->size = sizeof(*out);
	return rcb__gp_stats_sized(out);
}
#endif

/* Restart the backlog high-water marks from the current backlog. */
RCB_API void rcb_backlog_reset_peak(void);

/* struct rcb_boost_stats, written once: each X(type, name, kind) is a
 * field, a JSON key of rcb_boost_stats_format() and a "boost.NAME" key of
 * rcb_stats_get(); new ones go at the end.  kind: COUNT only grows, PEAK
 * a maximum or total, INT current state, SHAPE not printed.  Which
 * fields stay in the struct after the next SONAME: rcuboost(3), STATISTICS. */
#define RCB_STAT_COUNT 0
#define RCB_STAT_PEAK 1
#define RCB_STAT_INT 2
#define RCB_STAT_BOOL 3
#define RCB_STAT_BACKEND 4
#define RCB_STAT_SHAPE 5

/* The article's counters (rbs_*, summed over every element). */
#define RCB_BOOST_STATS_ARTICLE(X) \
	X(int, machine, RCB_STAT_INT) /* 3 or 8 states */ \
	X(int, nstates, RCB_STAT_SHAPE) /* columns of stats[][] */ \
	X(int, enabled, RCB_STAT_BOOL) /* compiled in, configured on */ \
	X(int, booster_running, RCB_STAT_BOOL) \
	X(int, no_permission, RCB_STAT_BOOL) /* real-time refused */ \
	X(int, booster_prio, RCB_STAT_INT) /* SCHED_RR priority */ \
	X(int, idx, RCB_STAT_INT) /* rcu_boost_idx, -1 before */ \
	X(long, blocked, RCB_STAT_COUNT) /* rbs_blocked */ \
	X(long, unlock, RCB_STAT_COUNT) /* rbs_unlock */ \
	X(long, unboosted, RCB_STAT_COUNT) /* rbs_unboosted */ \
	X(long, boost_attempt, RCB_STAT_COUNT) /* rbs_boost_attempt */ \
	X(long, boost, RCB_STAT_COUNT) /* rbs_boost: boosts done */

/* The 8-state machine's counters, userspace additions, enhancements. */
#define RCB_BOOST_STATS_MORE(X) \
	X(long, too_early, RCB_STAT_COUNT) /* before the booster ran */ \
	X(long, preempt_enqueued, RCB_STAT_COUNT) /* by the booster */ \
	X(long, enqueue_reverted, RCB_STAT_COUNT) /* reader had left */ \
	X(long, boost_failed, RCB_STAT_COUNT) /* sched_setattr refused */ \
	X(long, boost_skipped_higher, RCB_STAT_COUNT) /* ran above */ \
	X(long, restore_kept_app, RCB_STAT_COUNT) /* app's change kept */ \
	X(long, passes, RCB_STAT_COUNT) /* booster passes */ \
	X(long, boost_wrongstate, RCB_STAT_COUNT) /* 8-state machine */ \
	X(long, boost_cmpxchgfail, RCB_STAT_COUNT) \
	X(long, boost_start, RCB_STAT_COUNT) \
	X(long, boost_end, RCB_STAT_COUNT) \
	X(long, max_task_cmpxchg_fail, RCB_STAT_PEAK) /* article: 1 */ \
	X(long, lock_holds, RCB_STAT_COUNT) /* booster element lock */ \
	X(long, lock_hold_ns_max, RCB_STAT_PEAK) \
	X(long, lock_hold_ns_total, RCB_STAT_COUNT) \
	X(int, boosters, RCB_STAT_INT) /* booster threads */ \
	X(int, backend, RCB_STAT_BACKEND) /* enum rcb_boost_backend */ \
	X(int, first_level, RCB_STAT_INT) /* boost levels now */ \
	X(int, ceiling_level, RCB_STAT_INT) \
	X(int, pressure_active, RCB_STAT_BOOL) /* memory pressure now */ \
	X(long, pressure_entries, RCB_STAT_COUNT) \
	X(long, pressure_kicks, RCB_STAT_COUNT) /* by rcb_call*() */ \
	X(long, escalations, RCB_STAT_COUNT) /* one-step raises */ \
	X(long, boost_latency_count, RCB_STAT_COUNT) /* queued to boost */ \
	X(long, boost_latency_ns_max, RCB_STAT_PEAK) \
	X(long, boost_latency_ns_total, RCB_STAT_COUNT) \
	X(long, booster_cpu_ns, RCB_STAT_PEAK) /* running boosters' */ \
	X(long, sched_syscalls, RCB_STAT_COUNT) /* sched backend */ \
	X(long, pi_boosts, RCB_STAT_COUNT) /* pi backend: proxy locks */ \
	X(long, pi_handoffs, RCB_STAT_COUNT) /* unlocks to a helper */ \
	X(long, pi_syscalls, RCB_STAT_COUNT) \
	X(long, pi_deadlocks, RCB_STAT_COUNT) /* EDEADLK, retried */ \
	X(long, pi_failures, RCB_STAT_COUNT) /* not boosted */ \
	X(long, reraises, RCB_STAT_COUNT) /* of a boosted reader */ \
	X(int, keeper, RCB_STAT_BOOL) /* RCUBOOST_KEEPER serves us */ \
	X(long, keeper_requests, RCB_STAT_COUNT) \
	X(long, cb_boosts, RCB_STAT_COUNT) /* callback workers raised */ \
	X(long, cb_sched_syscalls, RCB_STAT_COUNT) /* in sched_syscalls */

#define RCB__STAT_FIELD(type, name, kind) type name;

/* Boost statistics; size set by the caller as in struct rcb_config.
 * stats[event][state]: block, boost, unlock by the machine's states in
 * order, column nstates invalid states. */
struct rcb_boost_stats {
	size_t size;
	RCB_BOOST_STATS_ARTICLE(RCB__STAT_FIELD)
	long stats[3][9];
	RCB_BOOST_STATS_MORE(RCB__STAT_FIELD)
};

/* sizeof(struct rcb_boost_stats) in its first sized layout (SONAME 1). */
#define RCB_BOOST_STATS_SIZE_V1 544

/* rcb_boost_stats - fill @out up to min(out->size, our sizeof), not a
 * byte past (a longer size is lowered to ours).  Any thread, also in a
 * section.  Returns 0, -EINVAL (NULL or bad size; misuse, nothing
 * written), or -ENOTSUP (boosting compiled out: zeroed, idx -1). */
RCB_API int rcb_boost_stats(struct rcb_boost_stats *out);

/* rcb_boost_stats_format - @s into @buf as the article's
 * rcu_boost_dat_stat_print() lines (@json 0) or a JSON object (fields
 * past @s->size as 0).  Returns the length snprintf() would, or -EINVAL
 * (@s NULL or bad size, @buf NULL with @len > 0; misuse). */
RCB_API int rcb_boost_stats_format(const struct rcb_boost_stats *s, char *buf,
				   size_t len, int json);

/* rcb_stats_get - the counter @key into *@value: "gp.", "backlog.",
 * "boost." and a field of struct rcb_gp_stats, rcb_backlog,
 * rcb_boost_stats.  A key keeps its meaning; keys are added in minor
 * releases, may go in major ones.  Any thread, also in a section; not
 * async-signal-safe.  Returns 0, -ENOENT (unknown here), -ENOTSUP
 * ("boost.", compiled out) or -EINVAL (NULL argument; misuse). */
RCB_API int rcb_stats_get(const char *key, int64_t *value);

/* rcb_stats_key - the @index-th key of rcb_stats_get() (0, 1, ...), NULL
 * past the last.  Any context; never fails. */
RCB_API const char *rcb_stats_key(size_t index);

/* ---- Diagnostics --------------------------------------------------- */

/* rcb_stall_report() flag: build a report now. */
#define RCB_STALL_NOW 1u

/* rcb_stall_report - the stall detector's report (rcuboost(3), STALL
 * DETECTOR).  @flags 0: the last one printed; RCB_STALL_NOW: one built
 * now for the grace period readers hold, also with the detector off
 * (reads /proc).  Any thread, also in a section; not async-signal-safe;
 * takes no lock a reader may hold.  Returns the length as snprintf(), 0
 * (nothing to report), or -EINVAL (@buf NULL with @len > 0, bad flags). */
RCB_API int rcb_stall_report(char *buf, size_t len, unsigned int flags);

/* ---- Deprecated names, removed with the next SONAME ---------------- */

/* Still exported for programs linked before (rcuboost(3), DEPRECATED). */
RCB_API int rcb_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
	RCB_DEPRECATED("use rcb_condvar_wait");
RCB_API int rcb_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
			       const struct timespec *abstime)
	RCB_DEPRECATED("use rcb_condvar_timedwait");
RCB_API int rcb_poll(struct pollfd *fds, unsigned long nfds, int timeout)
	RCB_DEPRECATED("use rcb_fd_poll");
RCB_API int rcb_worker_set_cpu(int cpu, struct rcb_worker *w)
	RCB_DEPRECATED("use rcb_worker_assign_cpu (worker first)");

/* ---- Implementation detail (inline read side): not API, may change -- */

/* A reader's ctr: 0 outside sections; inside, a snapshot of rcb__gp.ctr
 * taken by the outermost lock (high bits) and the nesting depth (low
 * RCB__NEST_BITS).  rcb__gp.ctr advances by RCB__GP_STEP per grace
 * period: a reader whose snapshot differs began before the current one.
 * The one window where the snapshot's wrap matters: rcuboost(3), BUGS. */
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
	/* Bits 0-7: the boost state (compare-and-exchange of the whole
	 * word).  RCB__READER_FAST: registered, membarrier flavor; the
	 * unlock stays inline only when the word is exactly that.
	 * RCB__READER_WAKE_CB: a wake-up left by a nested rcb_call*(). */
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
/* initial-exec: one %fs-relative access even from PIC code (the library
 * is loaded with the program; dlopen() relies on the static TLS surplus). */
RCB_API extern __thread struct rcb_reader rcb__reader
	__attribute__((tls_model("initial-exec")));

RCB_API void rcb__read_lock_slow(void);
RCB_API void rcb__read_unlock_slow(unsigned long ctr);
RCB_API void rcb__gp_wake(void);
RCB_API void rcb__read_unlock_special(void);
RCB_API void rcb__read_lock_nest_overflow(void);

/* The read side's accesses: C11 atomics in C, builtins in C++. */
#ifdef __cplusplus
#define rcb__ld_relaxed(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define rcb__st_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define rcb__st_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define rcb__compiler_barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#else
#define rcb__ld_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define rcb__st_relaxed(p, v) atomic_store_explicit(p, v, memory_order_relaxed)
#define rcb__st_release(p, v) atomic_store_explicit(p, v, memory_order_release)
#define rcb__compiler_barrier() atomic_signal_fence(memory_order_seq_cst)
#endif

/* TSan does not know that membarrier() makes the read side's compiler
 * barriers fences: those edges are told to it in TSan builds only. */
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

/* Simulation build (tools/sim/, -DRCB_SIM): points where the simulator
 * may preempt the reader.  Normal builds: no code at all. */
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
		/* [RD-A] The ctr store before the section's loads: a
		 * compiler barrier, which every membarrier() an updater
		 * issues makes a full one.  Pairs with [GP-A] and [GP-W]
		 * in src/core/gp.c. */
		rcb__compiler_barrier();
	} else {
		unsigned long next = tmp + RCB__NEST_ONE;

		/* Nested.  A depth wrapping to 0 would end the section:
		 * reported, depth kept (tested on the incremented value:
		 * the outermost test keeps its instructions). */
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
		/* [RD-B] The section's loads before the store that ends
		 * it: a compiler barrier (membarrier makes it full) and a
		 * release store for the fence flavor.  Pairs with [GP-B]
		 * in src/core/gp.c. */
		rcb__compiler_barrier();
		rcb__st_release(&r->ctr, 0); /* [RD-B] */
		/* [RD-W] The ctr store before the loads below (store buffering
		 * with the updater's futex and the booster).  Pairs with [GP-W]
		 * in src/core/gp.c, [BST-M] in src/boost/booster.c. */
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
