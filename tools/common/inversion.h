/* SPDX-License-Identifier: MIT */
/*
 * The priority-inversion scenario, shared by rcuboost-demo and
 * rcuboost-bench.
 *
 * A SCHED_FIFO reader (priority 10) pinned to CPU 0 enters a read-side
 * critical section and is preempted there by a SCHED_FIFO CPU hog
 * (priority 40) pinned to CPU 0 for a bounded time.  Meanwhile, on CPU 1,
 * an updater replaces an object every cb_period_us and retires the old
 * one through the library's call_rcu, and a second thread times the
 * library's synchronize in a loop.  Without boosting, every grace period
 * waits for the hog to finish and the callback backlog grows for its
 * whole duration; with boosting the reader is raised above the hog, ends
 * its section, and the backlog stays small.
 *
 * Each RCU implementation is a table of operations (struct
 * inv_flavor_ops) in its own file, because liburcu's headers map rcu_*
 * names that must not meet rcuboost's in one translation unit.
 *
 * Real-time safety: every real-time thread inv_run() starts has a hard
 * time bound and drops to SCHED_OTHER before it exits; the hog runs on
 * CPU 0 only, never on CPU 1; every other thread, the library's own
 * included (they inherit the affinity of the thread that starts them),
 * runs on CPU 1.  Callers should still install a watchdog (alarm()).
 */
#ifndef RCB_INVERSION_H
#define RCB_INVERSION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rcuboost.h"

/* The CPU of the reader and the hog, and the CPU of everything else. */
#define INV_RT_CPU 0
#define INV_OTHER_CPU 1
/* Upper bound of inv_params.hog_ms. */
#define INV_HOG_MS_MAX 10000

/* Backlog as the library counts it (rcuboost's rcb_backlog()). */
struct inv_lib_backlog {
	uint64_t callbacks, bytes, peak_callbacks, peak_bytes;
};

/*
 * One RCU implementation.  A run is one table: the rcuboost tables differ
 * only in the boost setting they initialise the library with.
 */
struct inv_flavor_ops {
	const char *name;    /* run label: "boost-off", "boost-on", "urcu-memb" */
	const char *library; /* "rcuboost", "liburcu urcu-memb" */
	/*
	 * Start the library.  @freed is called on the library's callback
	 * thread with each retired object's payload and total size, just
	 * before the flavor frees it.  Returns 0 or a negative errno, with a
	 * message on stderr.
	 */
	int (*init)(void (*freed)(void *payload, size_t bytes));
	/* Stop what init started (every queued callback has run). */
	void (*fini)(void);
	int (*register_thread)(void);
	void (*unregister_thread)(void);
	void (*read_lock)(void);
	void (*read_unlock)(void);
	/* Wait for a grace period; 0 or a negative errno. */
	int (*synchronize)(void);
	/* Allocate an object of @bytes bytes in all, the flavor's callback
	 * head included, and return its payload (suitably aligned, at least
	 * @bytes - INV_OBJ_OVERHEAD bytes long); NULL without memory. */
	void *(*obj_new)(size_t bytes);
	/* Free the object of @payload after a grace period (call_rcu);
	 * 0 or a negative errno. */
	int (*obj_retire)(void *payload);
	/* Wait until every retired object has been freed. */
	void (*barrier)(void);
	/* Optional (NULL): the library's own backlog count. */
	void (*lib_backlog)(struct inv_lib_backlog *out);
	void (*lib_backlog_reset_peak)(void);
	/* Optional (NULL): boost statistics; 0 or -ENOTSUP. */
	int (*boost_stats)(struct rcb_boost_stats *out);
	/* rcuboost tables made by inv_flavor_rcuboost_cfg(): the full
	 * configuration to initialise with (else NULL), and the init that
	 * uses it; inv_run() calls init_cfg instead of init when set. */
	const struct rcb_config *config;
	int (*init_cfg)(const struct rcb_config *cfg,
			void (*freed)(void *payload, size_t bytes));
};

/* Bytes of an object the flavor keeps for itself (its callback head). */
#define INV_OBJ_OVERHEAD 64

extern const struct inv_flavor_ops inv_flavor_rcuboost_off;
extern const struct inv_flavor_ops inv_flavor_rcuboost_on;
extern const struct inv_flavor_ops inv_flavor_urcu_memb;

/*
 * inv_flavor_rcuboost_cfg - fill @out as inv_flavor_rcuboost_on, named
 * @name, but initialising the library with *@cfg (every field, the
 * enhancements' included).  @name and @cfg must outlive the table.
 */
void inv_flavor_rcuboost_cfg(struct inv_flavor_ops *out, const char *name,
			     const struct rcb_config *cfg);

struct inv_params {
	int hog_ms;        /* how long the hog runs (1..INV_HOG_MS_MAX) */
	int hog_prio;      /* its SCHED_FIFO priority */
	int reader_prio;   /* the reader's SCHED_FIFO priority (< hog_prio) */
	int cb_period_us;  /* the updater retires one object per period */
	int obj_bytes;     /* size of each object */
	int sync_pause_us; /* pause between two timed synchronize calls */
	int sync_prio;     /* the synchronize loop's SCHED_FIFO priority;
			    * 0: SCHED_OTHER */
	int warmup_ms;     /* workload alone before the reader and the hog */
	int tail_ms;       /* workload after the reader left its section */
	int sample_ms;     /* backlog sampling period */
	/* Optional (NULL): called once by inv_run() from its own thread
	 * (SCHED_OTHER, CPU 1) hook_ms after the hog started, if the hog
	 * still runs then (e.g. to change the booster's priority). */
	void (*hook)(void *arg);
	void *hook_arg;
	int hook_ms;
	/* Optional progress messages (one line, no newline), e.g. to
	 * stderr; inv_run() prints nothing itself. */
	void (*progress)(void *arg, const char *msg);
	void *progress_arg;
};

/* One backlog sample. */
struct inv_sample {
	double t_ms;         /* since the hog started (negative before) */
	long backlog;        /* retired and not yet freed, counted by us */
	long backlog_bytes;
	long lib_backlog;    /* the library's own count; -1 if it has none */
};

struct inv_result {
	char name[32];      /* ops->name */
	char library[32];   /* ops->library */
	int ok;             /* the scenario ran as planned (else see error) */
	char error[256];
	/* The inversion. */
	double hog_ms;          /* how long the hog really ran */
	double reader_held_ms;  /* hog start to the reader's unlock */
	double hook_ran_ms;     /* hog start to the hook's return; 0: no hook */
	int reader_restored;    /* the reader's attributes after its unlock
				 * were those it had before (no boost left) */
	int threads_restored;   /* reader and hog back at SCHED_OTHER */
	int cpu0_threads;       /* other threads allowed on CPU 0 (want 0) */
	long rcu_violations;    /* reader's object freed under it (want 0) */
	/* Grace periods timed by the synchronize loop. */
	double gp_max_ms, gp_p99_ms, gp_median_ms;
	long gp_count;
	/* Callbacks, counted the same way for every flavor. */
	long queued, invoked, call_errors;
	long peak_backlog, peak_backlog_bytes;
	/* The library's own count, when it has one. */
	int have_lib_backlog;
	struct inv_lib_backlog lib;
	/* Boost statistics of this run (counters are differences between
	 * the run's end and its start), when the flavor has them. */
	int have_boost_stats;
	struct rcb_boost_stats bs;
	char boost_stats_text[1024];
	/* Backlog over time; free with inv_result_free(). */
	struct inv_sample *series;
	size_t nseries;
};

/* Fill @p with the scenario's defaults (hog 3000 ms, priorities 10 and
 * 40, one 4 KiB object per millisecond, ...). */
void inv_params_default(struct inv_params *p);

/* 0 if @p is usable, else -EINVAL with the reason in @why. */
int inv_params_check(const struct inv_params *p, char *why, size_t len);

/*
 * inv_rt_check - can this process run the scenario?  Tries SCHED_FIFO at
 * the higher of @p's priorities on a short-lived thread.  Returns 0;
 * -EPERM (no real-time permission) or -ENODEV (CPUs 0 and 1 are not both
 * available), with an explanation for the user in @why.
 */
int inv_rt_check(const struct inv_params *p, char *why, size_t len);

/*
 * inv_run - run the scenario once with @ops and fill @res (which the
 * caller frees with inv_result_free()).  Takes about warmup_ms + hog_ms +
 * tail_ms plus a few milliseconds.  Not reentrant; not with another
 * inv_run() in the process.  The calling thread runs on CPU 1 during the
 * call; its affinity is restored on return.  Returns 0 when the scenario
 * ran (res->ok then says whether everything held), or a negative errno
 * if it could not start (res->error says why).
 */
int inv_run(const struct inv_flavor_ops *ops, const struct inv_params *p,
	    struct inv_result *res);

void inv_result_free(struct inv_result *res);

/* Backlog of @r at @t_ms (the last sample at or before it); -1 outside
 * the series. */
long inv_series_at(const struct inv_result *r, double t_ms);

/*
 * inv_write_csv - write "time_ms,<name>,<name>..." and one row every
 * @step_ms covering every run's series, each run's backlog in its
 * column (empty outside its series).  Returns 0 or -EIO.
 */
int inv_write_csv(FILE *f, const struct inv_result *const *runs, int nruns,
		  double step_ms);

/*
 * inv_gnuplot - run "gnuplot @script" with stdin from /dev/null and wait.
 * Returns 0, -ENOENT if gnuplot is not installed, or -EIO if it failed
 * (its messages went to stderr).
 */
int inv_gnuplot(const char *script);

/*
 * A hang kills the process, its real-time threads with it: after
 * @seconds, SIGALRM prints "@prog: watchdog: ..." and terminates, unless
 * inv_watchdog_off() came first.  @prog must outlive the watchdog.
 */
void inv_watchdog(const char *prog, unsigned int seconds);
void inv_watchdog_off(void);

#endif
