/* SPDX-License-Identifier: MIT */
/*
 * Boosting internals shared by the files of src/boost/: queue.c (the
 * arrays, queueing and lists), the machines (machine3.c, machine8.c),
 * booster.c (the booster threads), the backends (backend_sched.c,
 * backend_pi.c) and boost_stats.c.  Names follow the reference article
 * so the code can be read against it.
 */
#ifndef RCB_BOOST_H
#define RCB_BOOST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "callback/callback.h"
#include "core/hooks.h"
#include "core/internal.h"
#include "core/states.h"

/* ---- scheduling backend (backend_sched.c) ---------------------------- */

int rcb__sched_get(pid_t tid, struct rcb__sched_attr *a);
int rcb__sched_set(pid_t tid, const struct rcb__sched_attr *a);
bool rcb__sched_same(const struct rcb__sched_attr *a,
		     const struct rcb__sched_attr *b);
/* Does @a already run at real-time priority @prio or above (or under
 * SCHED_DEADLINE, above every real-time priority)? */
bool rcb__sched_at_least(const struct rcb__sched_attr *a, int prio);
/* CPU that thread @tid last ran on, or -1. */
int rcb__sched_last_cpu(pid_t tid);

/* ---- the per-CPU arrays (article: "Data Structures") --------------- */

struct rcu_boost_dat {
	pthread_mutex_t rbs_mutex; /* PTHREAD_PRIO_INHERIT */
	struct rcb__list rbs_toboost;
	struct rcb__list rbs_boosted;
	long rbs_blocked;
	long rbs_boost_attempt;
	long rbs_boost;
	long rbs_unlock;
	long rbs_unboosted;
	long rbs_stats[N_RCU_BOOST_DAT_EVENTS][RCB_MAX_BOOST_STATES + 1];
	/* 8-state machine (article), same lock */
	long rbs_boost_wrongstate;
	long rbs_boost_cmpxchgfail;
	long rbs_boost_start;
	long rbs_boost_end;
	/* Exiting threads wait on it (futex) for RCU_EXIT_OK; bumped by the
	 * booster (article: rbs_target_wq/rbs_exit_done).  It lives as long
	 * as the arrays, so a waker never touches an exited thread. */
	_Atomic int rbs_exit_seq;
	/* userspace additions, same lock */
	long rbs_preempt_enqueued;
	long rbs_enqueue_reverted;
	/* Changed by the booster outside the lock in the 8-state machine:
	 * relaxed atomics. */
	_Atomic long rbs_boost_failed;
	_Atomic long rbs_boost_skipped_higher;
	_Atomic long rbs_restore_kept_app;
} __attribute__((aligned(64)));

/*
 * One booster thread per group of CPUs (booster.c, cpugroup.c).  Each
 * walks only the arrays of the CPUs mapped to it and has its own index:
 * a reader that blocks on CPU c joins element
 * rcb__boosters[rcb__cpu_booster[c]].idx of CPU c's array.  See
 * booster_pass.c for why per-booster indices are safe.
 */
struct rcb__booster {
	int id;
	int ncpus;               /* CPUs mapped to it */
	int *cpus;               /* [ncpus], increasing (cpugroup.c) */
	_Atomic int idx;         /* article: rcu_boost_idx; -1 until it runs */
	_Atomic int prio;        /* its current SCHED_RR priority */
	_Atomic pid_t tid;
	_Atomic long passes;
	_Atomic long cpu_ns;     /* its CPU time after its last pass */
	pthread_t thread;
	bool started;            /* created, not joined (rcb__booster_lock) */
} __attribute__((aligned(64)));

extern struct rcb__booster *rcb__boosters; /* [rcb__nboosters] */
extern int rcb__nboosters;
extern int *rcb__cpu_booster;              /* [rcb__boost_ncpus] */

/* For each CPU @cpu (an int lvalue) served by booster @b, in
 * increasing order (cpugroup.c invariant 1). */
#define rcb__for_each_booster_cpu(b, cpu)                                    \
	for (int cpu##_i_ = 0;                                               \
	     cpu##_i_ < (b)->ncpus && ((cpu) = (b)->cpus[cpu##_i_], 1);      \
	     cpu##_i_++)

extern struct rcu_boost_dat *rcb__boost_dat; /* [ncpus][nelem] */
/* The arrays are initialised (release after rcb__boost_early_init()). */
extern _Atomic bool rcb__boost_dat_ready;
extern int rcb__boost_ncpus;
extern int rcb__boost_nelem;
extern _Atomic long rcb__boost_too_early;

static inline struct rcu_boost_dat *rcb__rbd(int cpu, int idx)
{
	return &rcb__boost_dat[cpu * rcb__boost_nelem + idx];
}

/* queue.c */
int rcb__boost_early_init(void);
void rcb__boost_early_publish(void);
void rcb__boost_early_undo(void);
bool rcb__boost_enqueue(struct rcb__thread *t, struct rcu_boost_dat *rbdp,
			bool on_behalf, int level_cap);
void rcb__boost_adopt(struct rcb__thread *self);
struct rcu_boost_dat *rcb__boost_lock_own(struct rcb__thread *self);
void rcb__boost_revert(struct rcb__thread *t, struct rcu_boost_dat *rbdp);
void rcb__boost_stat(struct rcu_boost_dat *rbdp, int event, int oldstate);
void rcb__boost_lock(struct rcu_boost_dat *rbdp);
void rcb__boost_unlock(struct rcu_boost_dat *rbdp);
/* Booster lock-hold accounting: *t0 = 0 when no hold is being timed. */
void rcb__hold_begin(uint64_t *t0);
void rcb__hold_end(uint64_t *t0);
extern _Atomic long rcb__hold_count, rcb__hold_max_ns, rcb__hold_total_ns;
extern _Atomic long rcb__escalations;
extern _Atomic long rcb__sched_syscalls; /* backend_sched.c */

/* boost_prio.c */
void rcb__boost_prio(struct rcb__thread *t, struct rcu_boost_dat *rbdp,
		     int rcuprio);
/* Boost levels for a booster at @booster_prio (they follow it). */
int rcb__boost_first_level(int booster_prio);
int rcb__boost_ceiling_level(int booster_prio);
extern _Atomic long rcb__boost_lat_count, rcb__boost_lat_max_ns,
	rcb__boost_lat_total_ns;
void rcb__unboost_prio(struct rcb__thread *t, struct rcu_boost_dat *rbdp);
struct rcb__unboost {
	struct rcb__sched_attr orig, set;
};
bool rcb__unboost_take(struct rcb__thread *t, struct rcb__unboost *u);
void rcb__unboost_apply(pid_t tid, const struct rcb__unboost *u,
			struct rcu_boost_dat *rbdp);

/* Most consecutive compare-and-exchange failures of a thread-side
 * state change so far (8-state machine). */
extern _Atomic long rcb__boost_max_task_fail;
void rcb__boost_note_task_fail(long fails);
static inline bool rcb__machine8(void)
{
	return rcb__settings.boost_machine == 8;
}

/* machine_pertask.c (test-only library, RCB_PERTASK_LOCK). */
bool rcb__boost_pt_note_block(struct rcb__thread *self,
			      struct rcu_boost_dat *rbdp);
void rcb__boost_pt_unlock(struct rcb__thread *self);
void rcb__boost_pt_exit(struct rcb__thread *self);
void rcb__boost_pt_one_reader_list(struct rcu_boost_dat *rbdp, int prio);

/* 1 in the test-only per-task-lock library (a constant, so the unused
 * paths still compile in both builds). */
#ifdef RCB_PERTASK_LOCK
#define RCB_PERTASK 1
#else
#define RCB_PERTASK 0
#endif

/*
 * One boost state machine: the 3-state one (machine3.c, article: "RCU
 * Explicit Priority Boosting"), the 8-state one (machine8.c, article: "RCU
 * Priority Boosting With Minimal Scheduler-Path Overhead"), or the
 * per-task-lock variant of the test-only library (machine_pertask.c).
 * Arrays, queueing on behalf, priorities and the booster's sequencing are
 * shared; these four steps are each machine's own.
 */
struct rcb__machine_ops {
	/* article: __rcu_preempt_boost().  The thread blocks inside a
	 * critical section: queue it on @rbdp.  False if it was already
	 * queued (the caller adopts the queueing).  Context: the thread,
	 * no lock held. */
	bool (*note_block)(struct rcb__thread *self,
			   struct rcu_boost_dat *rbdp);
	/* article: __rcu_read_unlock_unboost().  The outermost unlock of
	 * a thread whose boost state is not IDLE.  Context: the thread,
	 * outside critical sections, no lock held. */
	void (*unlock)(struct rcb__thread *self);
	/* The thread leaves the registry (NULL: nothing to do).  Context:
	 * the thread, registry lock held, outside critical sections. */
	void (*exit)(struct rcb__thread *self);
	/* article: rcu_boost_one_reader_list().  Boost the threads queued
	 * on @rbdp to @prio.  Context: the booster, no lock held. */
	void (*one_reader_list)(struct rcu_boost_dat *rbdp, int prio);
};

/* machine3.c: the 3-state machine's steps. */
bool rcb__boost3_note_block(struct rcb__thread *self,
			    struct rcu_boost_dat *rbdp);
void rcb__boost3_unlock(struct rcb__thread *self);
void rcb__boost3_one_reader_list(struct rcu_boost_dat *rbdp, int prio);

/* machine8.c: the 8-state machine's thread and booster sides. */
bool rcb__boost8_note_block(struct rcb__thread *self,
			    struct rcu_boost_dat *rbdp);
void rcb__boost8_unlock(struct rcb__thread *self);
void rcb__boost8_exit(struct rcb__thread *self);
void rcb__boost8_one_reader_list(struct rcu_boost_dat *rbdp, int prio);

/*
 * The machine in use.  Chosen once, at rcb_init() (boost_machine; the
 * per-task variant at compile time, in its test-only library), and this
 * is the only place that chooses.  The tables are constants visible to
 * every caller, so a call through them is a test of boost_machine and a
 * call to a known function: GCC 12 at -O2 emits, for the outermost
 * unlock's slow path, a select of one of two fixed targets and one
 * indirect tail jump, whose target never changes after rcb_init() (it
 * is always predicted).  The read-side fast path never gets here.
 */
static inline const struct rcb__machine_ops *rcb__machine(void)
{
#ifdef RCB_PERTASK_LOCK
	static const struct rcb__machine_ops pertask = {
		.note_block = rcb__boost_pt_note_block,
		.unlock = rcb__boost_pt_unlock,
		.exit = rcb__boost_pt_exit,
		.one_reader_list = rcb__boost_pt_one_reader_list,
	};

	return &pertask;
#else
	static const struct rcb__machine_ops boost3 = {
		.note_block = rcb__boost3_note_block,
		.unlock = rcb__boost3_unlock,
		.exit = NULL,
		.one_reader_list = rcb__boost3_one_reader_list,
	};
	static const struct rcb__machine_ops boost8 = {
		.note_block = rcb__boost8_note_block,
		.unlock = rcb__boost8_unlock,
		.exit = rcb__boost8_exit,
		.one_reader_list = rcb__boost8_one_reader_list,
	};

	return rcb__machine8() ? &boost8 : &boost3;
#endif
}

/*
 * The list walk every machine's one_reader_list() starts with (article:
 * rcu_boost_one_reader_list()): rcb__walk_begin() locks @rbdp and moves
 * every queued thread to the walker's local @list; rcb__walk_next() drops
 * the lock and yields before each target (booster_pass.c invariant 2),
 * then returns it removed from @list, or NULL when none is left, with
 * the lock held either way; rcb__walk_end() unlocks.  A target that ends
 * its section meanwhile removes itself from @list.  @t0: lock-hold
 * timing (rcb__hold_begin()), or NULL for none.
 */
void rcb__walk_begin(struct rcu_boost_dat *rbdp, struct rcb__list *list);
struct rcb__thread *rcb__walk_next(struct rcu_boost_dat *rbdp,
				   struct rcb__list *list, uint64_t *t0);
void rcb__walk_end(struct rcu_boost_dat *rbdp, uint64_t *t0);

/* cpugroup.c: map CPUs to boosters; 0 or negative errno. */
int rcb__boosters_init(int ncpus);

/* booster_pass.c: one pass of booster @b at priority @prio (pass number
 * @pass).  Context: booster @b. */
void rcb__booster_pass(struct rcb__booster *b, int prio, uint64_t now,
		       uint64_t period_ns, long pass);

int rcb__booster_enqueue_now(struct rcb__booster *b, uint64_t now);
/* expedite.c: booster @b (at priority @prio) serves the current
 * expedited or inheritance request, if any. */
void rcb__expedite_pass(struct rcb__booster *b, int prio, uint64_t now);
extern _Atomic long rcb__exp_requests, rcb__exp_lends;

/* keeper.c (RCUBOOST_KEEPER=1): a process that keeps CAP_SYS_NICE
 * and makes, on request, the scheduling changes this process is
 * refused.  Set thread @tid's attributes (a real thread ID, not 0):
 * 0, or -EPERM when no keeper serves this process, or the keeper's
 * -errno. */
int rcb__keeper_sched_set(pid_t tid, const struct rcb__sched_attr *a);
/* The same, to real-time @policy at @prio. */
int rcb__keeper_set_rt(pid_t tid, int policy, int prio);
/* A keeper serves this process; one was asked for (RCUBOOST_KEEPER=1). */
bool rcb__keeper_available(void);
bool rcb__keeper_asked(void);
void rcb__keeper_after_fork_child(void);
extern _Atomic long rcb__keeper_requests;

/* booster.c: rcb__booster_lock guards starting, stopping and the
 * control calls (booster_ctl.c); the first caller that finds no
 * permission for real-time priority says so (true once per process). */
extern pthread_mutex_t rcb__booster_lock;
bool rcb__booster_first_to_report(void);
bool rcb__booster_running(void);
int rcb__booster_prio(void);
bool rcb__booster_no_permission(void);
/* The boosters in the table, 0 before it is built (booster.c). */
int rcb__boosters_known(void);
long rcb__booster_passes(void);
long rcb__booster_cpu_ns(void);
/* A reader queued itself: wake the idle boosters (booster.c inv. 3). */
void rcb__booster_note_queued(void);
/* Wake every booster now (a pressure kick, entering pressure, stop). */
void rcb__boosters_wake(void);

/* pressure.c */
bool rcb__pressure_active(void);
long rcb__pressure_entries(void);
long rcb__pressure_kicks(void);
/* Find the process's cgroup v2 directory.  Context: rcb__boosters_init(). */
void rcb__pressure_init(void);
/* Update and return the pressure verdict.  Context: a booster. */
bool rcb__pressure_update(uint64_t now);
void rcb__pressure_stop(void);
void rcb__pressure_after_fork_child(void);

/*
 * backend_pi.c: the proxy-lock backend (RCB_BACKEND_PI).  A boosted reader
 * owns a PI futex word (a "slot") that a helper thread waits on with
 * FUTEX_LOCK_PI at the boost level, so the kernel's priority inheritance
 * boosts the reader and its own FUTEX_UNLOCK_PI unboosts it.
 */
struct rcb__pi_slot;
int rcb__pi_start(void);  /* helpers; 0 or negative errno */
void rcb__pi_stop(void);
/* Boost @t to @rcuprio through a slot (raise it if it has one).
 * Context: the booster, @rbdp (@t's element) locked, @t BLOCKED or
 * BOOSTED.  Returns true if @t is now proxy-locked at >= @rcuprio. */
bool rcb__pi_boost(struct rcb__thread *t, struct rcu_boost_dat *rbdp,
		   int rcuprio);
/* The thread's outermost unlock, under its element lock: detach its
 * slot (NULL if none).  Then, after dropping the lock, release it. */
struct rcb__pi_slot *rcb__pi_take(struct rcb__thread *self);
void rcb__pi_release(struct rcb__pi_slot *slot);
void rcb__pi_after_fork_child(void);
extern _Atomic long rcb__pi_boosts, rcb__pi_handoffs, rcb__pi_syscalls;
extern _Atomic long rcb__pi_deadlocks, rcb__pi_failures;
/* Raises of a reader already boosted by the sched backend (stats). */
extern _Atomic long rcb__reraises;
static inline bool rcb__backend_pi(void)
{
	return rcb__settings.boost_backend == RCB_BACKEND_PI;
}

/* ---- entry points of the boosting layer (core/hooks.h: the table
 * through which core and the callback layer reach them) ------------- */

/* keeper.c: with RCUBOOST_KEEPER=1, start the keeper process (boost.h).
 * Context: the first initialisation, settings committed. */
void rcb__keeper_start(void);

/* The out-of-line outermost unlock's unboost (queue.c; core calls it
 * as rcb__boost_hooks.unlock_unboost): dequeue the calling thread and
 * restore its attributes if it was queued for boosting.
 * article: __rcu_read_unlock_unboost() */
void rcb__read_unlock_unboost(void);

/* expedite.c: the first boost level, 0 if
 * no booster runs (starting it if needed); whether an expedited grace
 * period can boost at all; ask the boosters to lend @level to the
 * readers holding @gp; withdraw the request. */
int rcb__expedite_first_level(void);
bool rcb__expedite_possible(void);
void rcb__expedite_request(unsigned long gp, int level);
void rcb__expedite_end(void);
void rcb__dom_expedite_request(int d, unsigned long gp, int level);
void rcb__dom_expedite_end(int d);

void rcb__booster_kick(void);
void rcb__pressure_kick(void);
int rcb__booster_start(void);
/* The same for rcb_init(), before it sets rcb__running (init_lock held). */
int rcb__booster_start_init(void);
/* The first, lazy initialisation: starts the boosters if a thread the
 * caller creates could take real-time priority, else says at once that
 * boosting will be off. */
void rcb__booster_start_lazy(void);
void rcb__booster_stop(void);
void rcb__boost_after_fork_child(void);
/* Last in the fork() child handler: with RCUBOOST_EARLY=1, the child
 * of a parent whose boosters ran starts its own, if its thread may
 * boost. */
void rcb__booster_restart_after_fork(void);
/* The calling thread registers / leaves the registry (registry lock
 * held): the 8-state machine's IDLE <-> EXIT_OK steps. */
void rcb__boost_thread_start(struct rcb__thread *self);
void rcb__boost_thread_exit(struct rcb__thread *self);

/* Booster mode of the callback workers (callback_boost.c).
 * rcb__cb_boost_pass(): booster 0 samples the workers and raises one
 * held up by preemption; true if any worker has work (or it could not
 * look).  rcb__cb_boost_any_work(): the same look, without sampling.
 * rcb__cb_unboost_self(): the worker, after announcing its sleep on an
 * empty queue or as its thread ends, restores a boost it has.
 * rcb__cb_boost_kick(): wake booster 0 sleeping in booster mode
 * (rcb__cb_hot.boost_idle, callback/callback.h). */
bool rcb__cb_boost_pass(int prio, uint64_t now, uint64_t period_ns);
bool rcb__cb_boost_any_work(void);
void rcb__cb_unboost_self(struct rcb_worker *w);
void rcb__cb_boost_kick(void);
extern _Atomic long rcb__cb_boosts, rcb__cb_unboosts;
extern _Atomic long rcb__cb_sched_syscalls; /* counted in sched_syscalls too */

#endif /* RCB_BOOST_H */
