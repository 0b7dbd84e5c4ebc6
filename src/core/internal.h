/* SPDX-License-Identifier: MIT */
/*
 * Declarations shared between the library's source files.  Everything
 * here is hidden (not exported); exported internals carry RCB_API and the
 * rcb__ prefix and are declared in include/rcuboost.h.
 */
#ifndef RCB_INTERNAL_H
#define RCB_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The exported symbols of the unsized layouts (rcuboost.h). */
#define RCB__V0_SYMBOLS 1
#include "rcuboost.h"
#include "rcuboost/qsbr.h"
#include "rcuboost/domain.h"
#include "core/atomic.h"
#include "core/list.h"

/* ---- cache-line placement ------------------------------------------ */

/*
 * The read side reads rcb__gp on every outermost lock and unlock: no
 * variable that is written often may share its cache line, or every
 * such write costs each running reader a cache miss (once,
 * rcb__cb_q, whose tail every rcb_call() exchanges, sat 16 bytes after
 * it).  128 bytes: the line and its neighbour, which x86's adjacent-line
 * prefetcher fetches in pairs.  rcb__gp and every often-written
 * variable of static storage start such a block; the lint test
 * tests/regression/gp_line_shared.sh checks that nothing else lies in
 * rcb__gp's block.
 */
#define RCB__HOT_ALIGN __attribute__((aligned(128)))

/* ---- sized public structs ---------------------------------------- */

/* struct rcb_backlog and struct rcb_gp_stats before they had a size:
 * what the symbols rcb_backlog and rcb_stats fill, for programs linked
 * against SONAME 2 before the change (src/stats_sized.c). */
struct rcb__backlog_v0 {
	uint64_t callbacks, bytes, peak_callbacks, peak_bytes, invoked;
};
struct rcb__gp_stats_v0 {
	uint64_t grace_periods, synchronize_calls, batched, futex_waits,
		misuse, registered_threads;
};

/*
 * Public structs that may grow start with a size_t size set by the caller
 * (0: the first sized layout, @v1).  Returns the number of bytes of the
 * caller's struct to use, or 0 for a size no layout of the struct has
 * had or will have, which is far more likely an uninitialised field
 * (`struct rcb_boost_stats bs; rcb_boost_stats(&bs);`) than a struct
 * from the future:
 *  - below @v1: every layout since the first sized one is at least
 *    that long (layouts only grow), and 1 to sizeof(size_t) cannot even
 *    hold the size;
 *  - not a multiple of _Alignof(size_t): a struct that starts with a
 *    size_t is aligned as one at least, and its sizeof is a multiple of
 *    its alignment;
 *  - above RCB__USER_SIZE_MAX: no layout will reach it (a struct that
 *    would needs a new call), so a caller from the future is below it.
 *    sched_setattr(2) bounds its struct sched_attr by a page, but a page
 *    let a garbage 3000 through.
 * A size that passes may still be garbage that happens to look like a
 * layout: so nothing is written past min(size, the library's sizeof)
 * (rcb__sized_out()), and the bytes past the library's sizeof are read
 * only to check that a longer input struct leaves them zero.
 */
#define RCB__USER_SIZE_MAX 1024
static inline size_t rcb__user_size(size_t size, size_t v1)
{
	if (size == 0)
		return v1;
	if (size < v1 || size > RCB__USER_SIZE_MAX || size % _Alignof(size_t))
		return 0;
	return size;
}

/* The size of a caller's sized struct *@what (NULL allowed) passed to
 * @call: rcb__user_size() of it, or 0 after a misuse report naming the
 * call, the NULL pointer or @what->size and the sizes accepted.  @known:
 * this library's sizeof of the struct. */
size_t rcb__sized_arg(const char *call, const char *what, const size_t *size,
		      size_t v1, size_t known);

/* rcb_booster_tids()'s arguments: @n above INT_MAX (a negative int
 * count converted, or from a program built when @n was an int), or
 * @tids NULL with @n > 0, is reported as misuse of @call (true: refuse
 * with -EINVAL). */
bool rcb__tids_args_bad(const char *call, const pid_t *tids, size_t n);

/* Copy the caller's @usize-byte struct @src into the library's @known-byte
 * @dst: fields past @usize are zero.  Returns whether every byte of @src
 * past @known is zero (fields of a newer layout left unset). */
bool rcb__sized_in(void *dst, size_t known, const void *src, size_t usize);
/* Copy the library's @known-byte struct @src out to the caller's
 * @usize-byte @dst: min(@usize, @known) bytes, and not one past them
 * (sched_getattr(2)).  @dst's size field is left as the caller set it,
 * unless it is past @known: then it becomes @known, which tells a caller
 * built against a newer layout where the fields this library filled end
 * (the bytes past them are left alone). */
void rcb__sized_out(void *dst, size_t usize, const void *src, size_t known);

/* ---- fatal errors ------------------------------------------------ */

/* Abort for a failure that cannot happen (a futex or pthread call
 * returning what it never should): prints file:line, function and
 * strerror(@err). */
#define RCB_DIE(what, err) rcb__die(__FILE__, __LINE__, __func__, (what), (err))
__attribute__((noreturn, cold)) void rcb__die(const char *file, int line,
					      const char *func,
					      const char *what, int err);

/* ---- misuse ------------------------------------------------------- */

/*
 * Report a misuse of the API by the calling thread: prints
 * "rcuboost: <call>: <problem> (thread <tid> "<name>")" on stderr, counts
 * it, and aborts when the policy is RCB_MISUSE_ABORT.  Returns only under
 * RCB_MISUSE_WARN; the caller then refuses the call.
 */
__attribute__((format(printf, 2, 3), cold)) void
rcb__misuse(const char *call, const char *fmt, ...);
/*
 * The liburcu name the calling thread's current drop-in call goes by:
 * misuse reports (rcb__misuse(), init.c) name it beside the rcb_* call
 * that found the misuse, so that a liburcu program's author sees the
 * call in their own source.  NULL outside the drop-in (compat/ sets it:
 * RCB__AS_LIBURCU()).
 */
extern __thread const char *rcb__misuse_as;
/* A warning that boosting is or will be off: stderr, and syslog(3)
 * too when stderr is closed or /dev/null (init.c). */
__attribute__((format(printf, 1, 2))) void rcb__warn(const char *fmt, ...);

/* ---- per-thread private state ------------------------------------ */

/* Linux struct sched_attr (sched_setattr(2)); glibc 2.36 has no wrapper. */
struct rcb__sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

/* Per-thread boost fields (article: task_struct's rcub_* fields). */
struct rcu_boost_dat;
struct rcb__pi_slot;

struct rcb__boost_thread {
	/* on rbs_toboost/rbs_boosted */
	struct rcb__list rcub_entry;
	struct rcu_boost_dat *_Atomic rcub_rbdp; /* element it is queued on */
	/* The boost this library applied, under rcub_rbdp's lock. */
	bool applied;
	/* Queued by the booster on the thread's behalf and not yet adopted
	 * by the thread: only such a queueing may be reverted.  Under the
	 * lock of *rcub_rbdp. */
	bool on_behalf;
	struct rcb__sched_attr orig; /* attributes to restore */
	struct rcb__sched_attr set;  /* attributes the booster set */
	/* 8-state: the element whose rbs_exit_seq an exiting thread waits
	 * on (article: rcub_rbdp_wq); set by the booster in BOOSTING. */
	struct rcu_boost_dat *_Atomic rcub_rbdp_wq;
	/* Enhancements, under the lock of *rcub_rbdp: the level (priority)
	 * the library boosted the thread to, the booster pass of its last
	 * raise (escalation), when it was queued (boost latency), and its
	 * proxy-lock slot (pi backend). */
	int level;
	/* 0, or the highest level this queueing may boost to
	 * (booster_pass.c, dom_due_cap()). */
	_Atomic int level_cap;
	long esc_pass;
	uint64_t queued_ns;
	struct rcb__pi_slot *pi_slot;
	/* For the stall detector (src/diag/stall.c), which reads them without
	 * the element lock: when the booster first boosted the thread in
	 * its current queueing, and the level of its latest boost.  Valid
	 * only while the reader word's boost state says boosted. */
	_Atomic unsigned long long stall_boost_ns;
	_Atomic int stall_boost_level;
	/* Per-task-lock variant (test-only build): the thread's own PI
	 * mutex, which the booster locks to boost it. */
	pthread_mutex_t *pt_lock;
};


struct rcb__thread {
	struct rcb__thread *prev, *next; /* registry list; registry lock */
	struct rcb_reader *rd;           /* this thread's rcb__reader */
	pid_t tid;
	bool registered;
	bool in_callback;  /* the callback thread while invoking callbacks */
	/* The worker whose thread this is (callback workers), or NULL. */
	struct rcb_worker *cb_running;
	/* rcb_worker_set_thread(); cleared by rcb_worker_destroy() under
	 * the registry lock and when the thread unregisters. */
	struct rcb_worker *_Atomic cb_worker;
	/* The worker an rcb_call*() nested in this thread's section found
	 * asleep, woken at the outermost unlock (RCB__READER_WAKE_CB,
	 * src/callback/callback.c invariant 4).  The thread's own; atomic
	 * for its signal handlers. */
	struct rcb_worker *_Atomic cb_wake_later;
	/* Another worker with no thread got a nested call while
	 * cb_wake_later was taken, or a forked child's inherited request
	 * was met inside a section (rcb__cb_start_inherited()): start them
	 * at the outermost unlock (rcb__cb_start_later()).  The thread's
	 * own, as above. */
	_Atomic bool cb_start_later;
	/* Callbacks this thread queued while registered
	 * (src/callback/callback.c, invariant 5): written by the thread
	 * alone, by a plain load and store in an outermost rcb_call*() and
	 * one exchange to 0 when it leaves the registry; summed by others
	 * under the registry lock. */
	_Atomic unsigned long long cb_queued, cb_queued_bytes;
	/* Local callback lists (src/callback/callback_local.c, invariants
	 * L1-L8): the thread's block, attached while it is registered
	 * (NULL: none could be mapped, and the thread queues directly).
	 * Written by the thread under the registry lock.  cb_appending: an
	 * append is in progress (a signal handler's rcb_call*() queues
	 * directly). */
	struct rcb__cb_lists *cb_lists;
	_Atomic bool cb_appending;
	/* The other domains (src/core/domain.c, invariant 2): dom[d] is
	 * the thread's record of domain d while it is registered with it,
	 * else NULL; dom_regs has bit d set then.  Changed under the
	 * registry lock.  dom_own_reg: a domain's registration put the
	 * thread on this list; memb_left: rcb_unregister_thread() ran while
	 * a domain held it, so the last domain's unregistration takes the
	 * thread off the list. */
	struct rcb__dom_reader *_Atomic dom[RCB__DOM_MAX];
	unsigned int dom_regs;
	bool dom_own_reg, memb_left;
	struct rcb__boost_thread boost;
};

/* ---- the reader word's boost state (bits 0-7 of rcb_reader.special) */

static inline int rcb__bstate_relaxed(struct rcb_reader *rd)
{
	return (int)(rcb_load_relaxed(&rd->special) & RCB__BOOST_STATE_MASK);
}

static inline int rcb__bstate_acquire(struct rcb_reader *rd)
{
	/* [BST-Q] pairs with the acq_rel changes below. */
	return (int)(rcb_load_acquire(&rd->special) & RCB__BOOST_STATE_MASK);
}

/*
 * Compare-and-exchange of the boost state, keeping the other bits (the
 * owner may change RCB__READER_FAST concurrently: then retry).  On
 * failure *@old is the state found.
 */
static inline bool rcb__bstate_cas(struct rcb_reader *rd, int *old, int new)
{
	unsigned int w = rcb_load_relaxed(&rd->special);

	for (;;) {
		if ((int)(w & RCB__BOOST_STATE_MASK) != *old) {
			*old = (int)(w & RCB__BOOST_STATE_MASK);
			return false;
		}
		/* [BST-X] Every boost-state change is acq_rel: what one
		 * side did before it is visible to the side that acts on
		 * the new state. */
		if (rcb_cmpxchg_acq_rel(&rd->special, &w,
					(w & ~RCB__BOOST_STATE_MASK) |
						(unsigned int)new))
			return true;
	}
}

/* Set the boost state of a state only the caller may leave. */
static inline void rcb__bstate_store(struct rcb_reader *rd, int new)
{
	int old = rcb__bstate_relaxed(rd);

	while (!rcb__bstate_cas(rd, &old, new))
		;
}

/* The calling thread's private record (never NULL); registry.c's. */
extern __thread struct rcb__thread rcb__self_rec
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

static inline struct rcb__thread *rcb__self(void)
{
	struct rcb__thread *t = &rcb__self_rec;

	/* The address as a plain pointer in a register: linked into an
	 * executable (local-exec TLS), gcc 12's -fsanitize=null checks
	 * the %fs-relative offset, not the address, and reports every
	 * member access through it as a null pointer (unit_callback_local
	 * against the static debug build under ASan+UBSan).  One lea. */
	__asm__("" : "+r"(t));
	return t;
}

/* Name of the calling thread for messages: "<tid> \"<comm>\"". */
void rcb__thread_label(char *buf, size_t len);
/* A callback or deferred function @fn returned inside a read-side
 * critical section: report it, end the section (registry.c). */
void rcb__end_leaked_section(const char *what, const void *fn);
/* write(2) all of @p, retrying EINTR; gives up on an error (init.c). */
void rcb__write_all(int fd, const char *p, size_t n);
/* Function @fn as "address (object+offset)" into @buf (registry.c).
 * Takes no lock that dlopen()/dlclose() hold across constructors. */
void rcb__fn_where(const void *fn, char *buf, size_t len);
/* The user function rcb__cb_current (@what: "callback", "deferred
 * function") ended @thread, the thread running it, which leaves
 * @consequence (appended as is): said, naming the function, and the
 * process stopped (registry.c).  For the cleanup handlers around the
 * library's calls of user functions. */
__attribute__((noreturn)) void rcb__fn_ended_thread(const char *what,
						    const char *thread,
						    const char *consequence);
/* The user function the calling thread runs for the library (a callback,
 * a deferred function): named if it ends the thread (callback.c). */
extern __thread const void *rcb__cb_current
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* ---- library state (init.c) -------------------------------------- */

#include "core/settings.h"

#define RCB__SETTING_FIELD(type, name, env, lo, hi, range, fixed, boost, spec) \
	type name;
/* The settings in force, one field per entry of src/core/settings.h. */
struct rcb__settings {
	RCB__SETTINGS(RCB__SETTING_FIELD)
};
#undef RCB__SETTING_FIELD

#ifdef RCB_DEBUG
#define RCB_DEFAULT_MISUSE RCB_MISUSE_ABORT
#else
#define RCB_DEFAULT_MISUSE RCB_MISUSE_WARN
#endif

/* Fill @s from @cfg (NULL: none), the environment for zero fields, then
 * defaults; *@req: the flavor asked for.  0 or -EINVAL/-E2BIG, with a
 * message on stderr naming the setting. */
int rcb__build_settings(const struct rcb_config *cfg, struct rcb__settings *s,
			enum rcb_flavor_request *req);
/* Name of the first setting in which @a (in force) and @b differ, given
 * the flavor request @req, or NULL. */
/* An on/off variable's value @v: 1, 0, or -1 when it is neither (the
 * rules of every numeric setting: decimal digits only, so "01" is 1
 * and " 1" or "1 " are refused).  RCUBOOST_EARLY, RCUBOOST_KEEPER. */
int rcb__env_flag(const char *v);

const char *rcb__settings_differ(const struct rcb__settings *a,
				 const struct rcb__settings *b,
				 enum rcb_flavor_request req);
/* Of settings differing in @diff (from rcb__settings_differ()), the one
 * that cannot change for the life of the process, as named in the
 * message, or NULL. */
const char *rcb__settings_fixed(const struct rcb__settings *a,
				const struct rcb__settings *b,
				const char *diff);

/* libthread.c: the library's threads.  Create one on the CPUs of
 * rcb__settings.thread_cpus (pthread_create()'s result); a booster's
 * capabilities: keep CAP_SYS_NICE across a setuid() of the process and
 * drop the capabilities it does not need (trim), then before each pass
 * drop CAP_SETUID and CAP_SETGID once the initial thread lost them and
 * raise CAP_SYS_NICE back into the effective set if still permitted
 * (refresh: true if it is effective on return). */
int rcb__lib_thread_create(pthread_t *thread, void *(*fn)(void *), void *arg);
/* pthread_create() with @attr from rcb__lib_thread_attr(); if the kernel
 * refuses the CPU set (EINVAL): with RCUBOOST_CPUS, again on the initial
 * thread's CPUs (said once), then again without a CPU set; if the
 * creator may not give SCHED_OTHER (EPERM), again with its own policy. */
int rcb__lib_thread_spawn(pthread_t *thread, pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg);
/* Set in @attr what a library thread gets whoever starts it: SCHED_OTHER
 * (explicit, not inherited) and the CPUs of rcb__settings.thread_cpus,
 * else the process's initial thread's.  Returns 0 or a pthread error. */
int rcb__lib_thread_attr(pthread_attr_t *attr);
/* The CPUs 0-63 that the process's threads may run on now (its cpuset,
 * online), into *@mask, asked by a short-lived thread.  0, or a negative
 * errno when unknown (no thread could start). */
int rcb__lib_thread_cpus_allowed(unsigned long long *mask);
/* @mask (CPUs 0-63) as a list such as "0-1,3" in @buf ("" if empty). */
void rcb__cpulist(unsigned long long mask, char *buf, size_t len);
/* The CPUs of a library thread: rcb__settings.thread_cpus, else the
 * initial thread's; false if they do not fit in a cpu_set_t. */
bool rcb__lib_thread_cpus(cpu_set_t *set);
/* pthread_join() of a library thread, not a cancellation point: every
 * caller holds a lock across it (pthread_join()'s result). */
int rcb__lib_thread_join(pthread_t thread);
void rcb__lib_thread_trim_caps(void);
bool rcb__lib_thread_caps_refresh(void);
/* A thread the caller creates could raise threads to @prio: CAP_SYS_NICE
 * in the caller's permitted set, or RLIMIT_RTPRIO >= @prio. */
bool rcb__lib_thread_may_boost(int prio);
extern _Atomic long rcb__caps_raised;

/* Settings in force; stable once rcb__initialized is true. */
extern struct rcb__settings rcb__settings;

/* Any memory-pressure trigger configured. */
static inline bool rcb__pressure_on(void)
{
	return rcb__settings.pressure_callbacks ||
	       rcb__settings.pressure_bytes || rcb__settings.pressure_psi;
}
extern _Atomic bool rcb__initialized;
/* true between rcb_init() (explicit or lazy) and rcb_shutdown(). */
extern _Atomic bool rcb__running;

int rcb__init_slow(void);

/* What the library needs before any use (init.c): its locks and
 * thread-exit key, made once, by the constructor or by the first use,
 * whichever comes first (a static library's constructors may run after
 * those of the program, which may already use it). */
void rcb__construct(void);
void rcb__gp_locks_create(void);
void rcb__exit_key_create(void);

/* Initialise with defaults unless already done.  Cheap when done. */
static inline int rcb__ensure_init(void)
{
	/* [INIT-A] pairs with [INIT-R] in rcb_init(): settings are visible. */
	if (__builtin_expect(rcb_load_acquire(&rcb__initialized), 1))
		return 0;
	return rcb__init_slow();
}

/* ---- registry (registry.c) ---------------------------------------- */

extern pthread_mutex_t rcb__registry_lock;
extern struct rcb__thread rcb__registry; /* list head (sentinel) */

#define rcb__for_each_thread(t)                                   \
	for ((t) = rcb__registry.next; (t) != &rcb__registry; \
	     (t) = (t)->next)

int rcb__register_self(void);
/* Take the calling thread off the registry (outside any section). */
void rcb__registry_leave_self(void);
void rcb__registry_after_fork_child(void);

/* ---- grace periods (gp.c) ----------------------------------------- */

/* Full barrier on every thread of the process that is running: the
 * membarrier syscall, or a plain fence in the fence flavor. */
void rcb__membarrier(void);
/* Does reader counter @ctr show a critical section that began before
 * grace period @gp (invariant 2 of gp.c)?  Used by the grace period's
 * scans and the booster's search for preempted readers. */
static inline bool rcb__holds_gp(unsigned long ctr, unsigned long gp)
{
	return (ctr & RCB__NEST_MASK) && (ctr & ~RCB__NEST_MASK) != gp;
}

/* membarrier.c: choose the flavor for @req (*@out), registering with
 * membarrier(2) if it is used; 0 or -ENOSYS (membarrier required and
 * missing).  The fork() child registers its new mm again. */
int rcb__membarrier_setup(enum rcb_flavor_request req, enum rcb_flavor *out);
void rcb__membarrier_after_fork_child(void);
void rcb__gp_after_fork_child(void);
/* Polled grace periods: the counters of gp.c's invariant 5. */
unsigned long long rcb__gp_seq_snap(void);
/*
 * rcb_start_poll(): run the grace period for @cookie in the caller
 * without waiting (gp.c invariant 8).  RCB__GP_NOW_DONE: one numbered
 * @cookie or later has completed (the caller's later accesses follow
 * it); RCB__GP_NOW_NONE: nothing started, queue the request as usual;
 * RCB__GP_NOW_HANDED: grace period *@owed (>= @cookie) began and was
 * left, and the caller must request it.  Context: any thread, outside
 * or inside a section (NONE there).
 */
enum { RCB__GP_NOW_NONE, RCB__GP_NOW_DONE, RCB__GP_NOW_HANDED };
int rcb__gp_try_now(unsigned long long cookie, unsigned long long *owed);
unsigned long long rcb__gp_seq_started_hint(void);
unsigned long long rcb__gp_seq_done(void);
extern _Atomic unsigned long long rcb__gp_stat[5];
enum { RCB__GPS_GP, RCB__GPS_SYNC, RCB__GPS_BATCHED, RCB__GPS_FUTEX,
       RCB__GPS_MISUSE };
/* Membarriers skipped (gp.c invariants 6 and 7): grace periods that
 * ended without [GP-B], and rcb_synchronize() calls that found no other
 * registered thread.  Kept apart from rcb__gp_stat, whose entries map to
 * the public struct rcb_gp_stats. */
extern _Atomic unsigned long long rcb__gp_stat_skip[2];
enum { RCB__GPS_SKIP_B, RCB__GPS_SKIP_ALL };

/* CLOCK_MONOTONIC ns at which the current grace period started waiting
 * for readers, 0 when none waits.  Read by the booster. */
extern _Atomic unsigned long long rcb__gp_wait_start_ns;

/* ---- grace-period start policy (gp_policy.c) ---------------------- */

/* One callback worker's policy state: its thread's alone (gp_policy.c
 * invariant 1); set up by rcb__gp_policy_init() when the thread starts,
 * so a forked child's restarted worker starts over at idle. */
struct rcb__gp_policy {
	int urgent_seen;       /* urgent word when last looked at */
	uint64_t wait_ns;      /* current back-to-back wait, 0 when idle */
	uint64_t cost_ns;      /* moving average of a grace period's cost */
	bool stream;           /* the last batch was a stream's */
	uint64_t last_done_ns; /* when the previous batch was done */
};

/* Start @p at idle.  Context: the worker's starter, rcb__cb_lock held,
 * before it creates the thread. */
void rcb__gp_policy_init(struct rcb__gp_policy *p);
/* The worker has callbacks queued and is about to take a batch for a
 * grace period: wait as the policy says.  @back_to_back: callbacks
 * were queued while the thread worked on its previous batch.
 * @beside_producer: a producer calling at full speed on the thread's
 * own CPU woke it (callback.c, woke_beside_producer()).  Context: the
 * worker's thread only. */
void rcb__gp_policy_wait(struct rcb__gp_policy *p, bool back_to_back,
			 bool beside_producer);
/* The worker is about to take a batch: bumps of rcb__gp_policy_urgent()
 * made so far cut no later wait (gp_policy.c invariant 2). */
void rcb__gp_policy_taking(struct rcb__gp_policy *p);
/* A fixed wait of @us microseconds before a batch (callback.c,
 * fixed_wait_us()), cut short as the policy's own waits are.  Context:
 * the worker's thread only. */
void rcb__gp_policy_wait_fixed(struct rcb__gp_policy *p, unsigned int us);
/* The worker's grace period took @gp_ns, for a batch of @ncallbacks
 * callbacks (barrier markers included). */
void rcb__gp_policy_done(struct rcb__gp_policy *p, uint64_t gp_ns,
			 unsigned long long ncallbacks);
/* Cut every worker's current or next wait short (rcb_barrier(), the
 * stop of a worker).  Context: any, after the enqueue or store that
 * needs the thread. */
void rcb__gp_policy_urgent(void);
/* Coalescing waits (back to back, or beside the producer), and waits
 * cut short by rcb__gp_policy_urgent(). */
extern _Atomic unsigned long long rcb__gp_policy_stat[2];
enum { RCB__GPP_WAITS, RCB__GPP_URGENT };

/* ---- lifecycle (init.c, early.c) --------------------------------- */

/* Register the library's fork handlers once (init.c): from the shared
 * library's last constructor, else at the first initialisation. */
int rcb__atfork_register(void);
/* RCUBOOST_EARLY=1 started the library (early.c). */
extern bool rcb__early_start;

/* ---- expedited grace periods, inheritance (inherit.c) ------------ */

/* A thread waiting for a grace period, from rcb__waiter_enter() to
 * rcb__waiter_leave(): whether it asked for an expedited one, and the
 * priority it lends (0: none; inheritance off or not real-time). */
struct rcb__waiter {
	bool expedited;
	bool announced; /* its priority was read (rcb__waiter_announce()) */
	int prio;
	/* The thread's waiter before this one: a signal handler's wait
	 * nested in its thread's own (refused, -EDEADLK) restores it. */
	struct rcb__waiter *outer;
};
/* Announce / withdraw the calling thread as a waiter (inherit.c
 * invariant 1).  Every wait for a grace period goes between the two:
 * rcb_synchronize*(), rcb_barrier(), and the hook for later waiters
 * (a polled grace period's rcb_cond_synchronize()). */
void rcb__waiter_enter(struct rcb__waiter *w, bool expedited);
void rcb__waiter_leave(struct rcb__waiter *w);
/* The wait will be long: lend the waiter's priority from now on (once).
 * Context: the waiter, between enter and leave. */
void rcb__waiter_announce(struct rcb__waiter *w);
/* The leader's loan for the grace period it waits for. */
struct rcb__loan {
	int level; /* requested so far, 0: none */
};
/* The leader looks at its readers of grace period @gp, waiting since
 * @start: request a higher loan if the waiters call for one.  Context:
 * rcb__gp_lock held. */
void rcb__loan_update(struct rcb__loan *l, unsigned long gp,
		      unsigned long long start);
/* How long the leader may sleep (at most @dflt) before its loan is due. */
/* inherit.c: what a leader of another domain lends (domain.c). */
int rcb__dom_loan_level(bool expedited, unsigned long long start);
uint64_t rcb__loan_sleep_ns(const struct rcb__loan *l, unsigned long long start,
			    uint64_t dflt);
/* The grace period ends: withdraw the request. */
void rcb__loan_end(struct rcb__loan *l);
void rcb__expedite_report_plain(const char *call);
void rcb__inherit_after_fork_child(void);
/* System-call helpers: futexes, PI mutexes, the clock (syscall.c). */
#include "core/syscall.h"
/* The other domains' side of the registry and the booster (domain.c). */
#include "core/domain.h"

#endif
