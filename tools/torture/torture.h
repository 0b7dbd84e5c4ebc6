/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-torture: shared declarations.
 *
 * The test keeps one RCU-protected pointer, torture_current, to the
 * newest object of a pipeline.  Writers replace it and retire the old
 * object through grace periods; the object's age (pipe_count) is
 * 0 while it is current, 1 once it has been removed, and grows by one
 * per grace period that ends after its removal.  At age pipe_len it is
 * poisoned and freed.  A reader can legitimately see ages 0 and 1 only:
 * it found the object before its removal, so every grace period that
 * starts after the removal must wait for the reader.  Seeing age 2 or
 * more inside one critical section is a grace period that ended too
 * early, which is the bug this program hunts.
 *
 * With --boost, a boost phase runs alongside (boost.c, boost_update.c,
 * boost_check.c), after rcutorture's boost test: readers pinned to one
 * CPU with a real-time hog in bounded bursts, updaters on another CPU
 * that require their callbacks within a bound, exact unboosting checked
 * after every outermost unlock, and the library's boost statistics.
 */
#ifndef RCB_TORTURE_H
#define RCB_TORTURE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rcuboost.h"
#include "tool.h"

#define TORTURE_MAX_PIPE 64
#define TORTURE_MAGIC_LIVE 0x52434254u /* "RCBT" */
#define TORTURE_MAGIC_FREED 0xdeadf4eeu
#define TORTURE_NDATA 4

enum torture_retire {
	/* age bumped after each writer rcb_synchronize() */
	TORTURE_RETIRE_SYNC,
	/* age bumped by a self-requeueing rcb_call() chain */
	TORTURE_RETIRE_CALL,
	TORTURE_RETIRE_EARLY, /* injected bug: freed at removal */
};

struct torture_obj {
	struct rcb_head_sized rh; /* rcb_call() takes &rh.head */
	_Atomic unsigned int magic;
	_Atomic int pipe_count;
	_Atomic unsigned long gen;     /* bumped when the object is poisoned */
	unsigned long id;              /* allocation number, written once */
	unsigned long data[TORTURE_NDATA]; /* derived from id: init check */
	enum torture_retire retire;
	struct torture_obj *next;      /* writer's sync list (writer only) */
};

/* Error kinds; each is counted and any non-zero count fails the run. */
#define TORTURE_ERRORS(X)                                                   \
	X(pipe, "a reader saw age > 1 inside its critical section")          \
	X(batch, "a reader saw two chained grace periods end inside its critical section") \
	X(poison, "a reader saw a poisoned (freed) object")                  \
	X(corrupt, "a reader saw an object with bad magic or data")          \
	X(null, "a reader found no current object")                          \
	X(nesting, "rcb_read_ongoing() disagreed with the nesting depth")    \
	X(double_free, "an object was freed twice")                          \
	X(premature_free, "an object was freed before reaching the pipeline end") \
	X(leak, "objects allocated and freed do not match")                  \
	X(barrier, "rcb_barrier() returned before an earlier callback ran")  \
	X(api, "an rcuboost call returned an error")                         \
	X(misuse, "the library reported a misuse")                           \
	X(backlog, "callbacks still queued after the final rcb_barrier()")   \
	X(flavor, "the active flavor is not the one --expect-flavor asked for") \
	X(registry, "exited threads are still registered at the end")        \
	X(boost_residual, "a reader's scheduling attributes after its outermost unlock were not its own (residual boost)") \
	X(boost_app_lost, "an attribute change a boosted reader made itself was not in force after its unlock") \
	X(boost_late, "a callback or grace period took longer than --boost-bound-ms") \
	X(boost_stats, "boost statistics: no boost, a failed boost, an impossible state, too many cmpxchg failures, or the wrong machine") \
	X(boost_rt, "a boost-phase thread could not set or restore its own scheduling attributes") \
	X(boost_coverage, "the boost phase never saw a boosted reader change its own attributes")

#define X(name, desc) TORTURE_ERR_##name,
enum torture_error { TORTURE_ERRORS(X) TORTURE_NERR };
#undef X

struct torture_opts {
	unsigned long duration_ms;
	unsigned int readers;
	unsigned int writers;
	unsigned int fake_writers;
	unsigned int pipe_len;
	unsigned int quarantine;
	unsigned int progress_s;
	unsigned int watchdog_s; /* 0: 60 s + 10 x duration */
	uint64_t seed;
	const char *json;
	const char *expect_flavor;
	bool churn;             /* short-lived reader threads (--no-churn) */
	bool inject_early_free; /* --inject-bug=early-free */
	bool inject_no_sync;    /* --inject-bug=no-sync */
	/* Boost phase (--boost): see boost.c. */
	bool boost;
	bool inject_boost_off;  /* --inject-bug=boost-off */
	unsigned int boost_readers;
	unsigned int boost_updaters;
	unsigned int boost_hog_prio;
	unsigned int boost_on_ms;
	unsigned int boost_off_ms;
	unsigned int boost_bound_ms;
	/* boosted long sections that change attrs */
	unsigned int boost_app_pct;
	/* updaters' SCHED_FIFO priority, 0: normal */
	unsigned int boost_upd_prio;
	int expect_machine;     /* 0: any */
};

/* Upper bounds of the boost callback latency histogram, in ms; the last
 * bucket counts the rest. */
#define TORTURE_BOOST_LAT_BUCKETS 9

/* Boost-phase counters (boost.c).  Bumped with atomic adds: several
 * threads share most of them. */
struct torture_boost_state {
	_Atomic unsigned long sections;      /* boost readers' sections */
	_Atomic unsigned long long_sections; /* held 40 ms or more */
	_Atomic unsigned long blocked_sections; /* of those, blocked inside */
	_Atomic unsigned long blocks;        /* rcb_* blocking calls inside */
	_Atomic unsigned long boosted_seen;  /* found itself boosted inside */
	/* changed its own attributes then */
	_Atomic unsigned long app_changes;
	/* attribute checks after unlocks */
	_Atomic unsigned long attr_checks;
	/* 8-state machine: unlocks met mid-boost, restored by the booster's
	 * back-out a moment later (torture_boost_check_unlocked()). */
	_Atomic unsigned long late_backouts;
	/* Escalation on: application changes overwritten by a raise in the
	 * middle of them (the sched backend's known race). */
	_Atomic unsigned long app_lost_escalation;
	_Atomic unsigned long exiters;       /* short-lived threads joined */
	_Atomic unsigned long exiters_boosted;
	_Atomic unsigned long exiters_unregistered;
	_Atomic unsigned long bursts;        /* hog bursts */
	_Atomic unsigned long hog_ms;        /* total hog on-time */
	_Atomic int hog_on;
	_Atomic unsigned long cb_queued;
	_Atomic unsigned long cb_invoked;
	_Atomic unsigned long cb_lat[TORTURE_BOOST_LAT_BUCKETS];
	_Atomic unsigned long cb_max_us;
	_Atomic unsigned long syncs;
	_Atomic unsigned long sync_max_us;
	/* The updaters' grace-period waits by kind (boost_update.c). */
	_Atomic unsigned long sync_modes[4];
	_Atomic unsigned long worker_checks; /* callback workers checked */
	int booster_prio;  /* the booster's priority when the phase began */
	/* SCHED_FIFO priority of a boosted reader (first level) */
	int boosted_prio;
	int boosted_ceiling; /* highest, with escalation */
	int stats_err;     /* rcb_boost_stats() result at the end */
	struct rcb_boost_stats stats; /* taken when the phase ends */
};

/* Per-reader counters: written by the reader only (relaxed), read by the
 * monitor while running and by main after the join. */
struct torture_reader {
	pthread_t thread;
	unsigned int idx;
	_Atomic unsigned long reads;
	_Atomic unsigned long blocked; /* sections that slept inside */
	_Atomic unsigned long pipe[TORTURE_MAX_PIPE + 1];
	_Atomic unsigned long batch[TORTURE_MAX_PIPE + 1];
} __attribute__((aligned(64)));

struct torture_state {
	struct torture_opts opt;
	_Atomic bool stop;
	_Atomic int phase; /* enum torture_phase */
	uint64_t start_ns;
	uint64_t end_ns;

	_Atomic unsigned long errors[TORTURE_NERR];

	/* Objects. */
	_Atomic unsigned long allocated;
	_Atomic unsigned long freed;
	_Atomic unsigned long retired_sync;
	_Atomic unsigned long retired_call;
	_Atomic unsigned long freed_at_age[TORTURE_MAX_PIPE + 1];

	/* Update side. */
	_Atomic unsigned long updates;
	_Atomic unsigned long writer_syncs;
	_Atomic unsigned long fake_syncs;
	/* rcb_synchronize() from a callback */
	_Atomic unsigned long cb_syncs;
	_Atomic unsigned long barriers;
	_Atomic unsigned long calls_queued;  /* rcb_call() returned 0 */
	_Atomic unsigned long calls_invoked; /* our callbacks that ran */
	_Atomic unsigned long churn_threads; /* short-lived readers that ran */
	/* Chained grace-period counter: see torture_gp_advance(). */
	_Atomic unsigned long gp_seq;

	/* Reader slots: opt.readers long-lived readers, then, with churn,
	 * one slot that the short-lived readers use one after another, then
	 * with --boost the boost readers from boost_rd0 and one slot for the
	 * short-lived boosted threads. */
	struct torture_reader *rd;
	unsigned int nrd;
	unsigned int boost_rd0;

	struct torture_boost_state boost;
};

enum torture_phase {
	TORTURE_PHASE_INIT,
	TORTURE_PHASE_RUN,
	TORTURE_PHASE_STOP,
	TORTURE_PHASE_DRAIN,
	TORTURE_PHASE_REPORT,
	TORTURE_PHASE_DONE,
};

extern struct torture_state tstate;
/* The RCU-protected pointer to the current object. */
extern struct torture_obj *torture_current;

/* ---- util ---- */
const char *torture_phase_name(int phase);
const char *torture_error_name(enum torture_error e);
const char *torture_error_desc(enum torture_error e);
/* Count an error; the first few of each kind are described on stderr. */
__attribute__((format(printf, 2, 3))) void
torture_error(enum torture_error e, const char *fmt, ...);
unsigned long torture_total_errors(void);
/* The injected bugs: "none" or a comma-separated list. */
const char *torture_inject_name(void);
/* What reader slot @i is: "reader", "churn", "boost" or "exiter". */
const char *torture_reader_kind(unsigned int i);

/* Single-writer counter bump (no read-modify-write needed). */
static inline void torture_inc(_Atomic unsigned long *c)
{
	atomic_store_explicit(c,
			      atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static inline unsigned long torture_get(_Atomic unsigned long *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

static inline void torture_add(_Atomic unsigned long *c, unsigned long n)
{
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

/* ---- objects (objects.c) ---- */
int torture_objects_init(void);
struct torture_obj *torture_obj_alloc(void);
/* Poison @o and move it to the quarantine; the oldest quarantined object
 * is really freed once the quarantine is full. */
void torture_obj_free(struct torture_obj *o);
/* Really free everything quarantined.  Context: no reader runs. */
void torture_quarantine_drain(void);
/* Check an object a reader found; returns false (and counts the error)
 * if it is poisoned or corrupt. */
bool torture_obj_check(const struct torture_obj *o, unsigned int reader);

/* ---- grace-period chain ---- */
unsigned long torture_gp_snapshot(void);
void torture_gp_advance(unsigned long snap);

/* ---- threads (workers.c) ---- */
/* A delay inside a critical section; returns true if it blocked.  It is
 * called once or twice per section (twice when inner sections end
 * halfway). */
typedef bool (*torture_delay_fn)(void *ctx, uint64_t *rng);
/* One checked critical section of reader slot @rd (pipeline and batch
 * checks); @delay NULL: the normal random delays. */
void torture_read_section(struct torture_reader *rd, uint64_t *rng,
			  torture_delay_fn delay, void *ctx);
void *torture_reader_fn(void *arg);
void *torture_writer_fn(void *arg);
void *torture_fake_writer_fn(void *arg);
void *torture_barrier_fn(void *arg);
void *torture_churn_fn(void *arg);
/* Retire the last current object and wait until every object is freed. */
void torture_final_drain(void);

/* ---- monitor (monitor.c): progress and watchdog ---- */
int torture_monitor_start(uint64_t watchdog_ns);
void torture_monitor_stop(void);
void torture_print_state(FILE *f, const char *why);

/* ---- boost phase (boost.c) ---- */
/* Before rcb_init(): exits 77 without real-time permission. */
void torture_boost_require_rt(void);
/* After rcb_init(): picks the CPUs, reads the booster's priority, checks
 * the options, arms an alarm(2) behind the watchdog.  Returns 0, or -1
 * after printing why (exits 77 if the booster lacks permission). */
int torture_boost_setup(uint64_t watchdog_ns);
/* Start the hog, boost readers, short-lived threads and updaters. */
int torture_boost_start(void);
/* After tstate.stop and every other worker's join: join the phase's
 * threads, take the boost statistics and check them. */
void torture_boost_finish(void);
/* Read the caller's attributes; 0 or -errno. */
/* Count error @kind unless the caller's attributes are @want. */
bool torture_boost_check_unlocked(const struct tool_sattr *want,
				  const char *who, unsigned int idx);
bool torture_boost_check_attrs(const struct tool_sattr *want,
			       enum torture_error kind, const char *who,
			       unsigned int idx, const char *when);
void torture_boost_progress(FILE *f);
void torture_boost_report(FILE *f);
void torture_boost_report_json(FILE *f);

/* ---- report (report.c) ---- */
void torture_report(FILE *f, bool pass);
int torture_report_json(const char *path, bool pass);

#endif
