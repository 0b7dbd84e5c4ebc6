/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-bench: shared declarations.
 *
 * Every figure is measured on several "sides": rcuboost and the liburcu
 * flavors, the peer table of tools/common/peer.h.  A per-side scenario
 * (sc_read.c ... sc_call.c) is a list of tests; a test measures one side
 * once and yields up to BENCH_MAX_VALUES figures.  The runner (main.c)
 * alternates the sides over several rounds and keeps the median of each
 * figure.  The scenarios run only when named (inversion, boosters, pi,
 * pressure, escalate) return a struct bench_xres: figures, each with its
 * peers' values from the same run.  One reporter (report.c, extra.c)
 * writes both kinds as the summary line, tables, JSON and plots.
 */
#ifndef RCB_BENCH_H
#define RCB_BENCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "inversion.h"
#include "peer.h"
#include "tool.h"

#define BENCH_MAX_VALUES 4
#define BENCH_MAX_SIDES 5
#define BENCH_MAX_ROUNDS 101
#define BENCH_MAX_RESULTS 96
#define BENCH_IR_MAX_HOGS 4

/* ---- scenarios ------------------------------------------------------ */

/* Run parameters, fixed after option parsing. */
struct bench_params {
	unsigned int rounds;
	unsigned int duration_ms; /* per timed measurement */
	unsigned long calls;      /* callbacks per thread in call throughput */
	int quick;
	int warmup;               /* non-zero during the discarded warm-up */
	int cpu_a, cpu_b;         /* the two CPUs worker threads are pinned to */
	int hog_ms;               /* pi: --hog-ms (the longest); 0: its default */
	unsigned int nhogs;       /* --hog-ms, ascending (inversion; 0: default) */
	int hogs[BENCH_IR_MAX_HOGS];
};

enum bench_better { BENCH_LOWER, BENCH_HIGHER };

struct bench_figure {
	const char *name; /* entry name; also the key in the summary line */
	const char *unit;
	enum bench_better better;
	double goal;      /* ratio rcuboost/peer to meet; 0: none */
	const char *goal_peer; /* that peer's name; NULL: urcu-memb */
};

struct bench_test {
	const char *name; /* progress label */
	/* Measure @f once, storing one value per figure in @out.  Returns 0,
	 * or -1 if the side cannot run this test (values are then absent). */
	int (*measure)(const struct tool_peer *f,
		       const struct bench_params *p, double *out);
	unsigned int nfig;
	struct bench_figure fig[BENCH_MAX_VALUES];
};

struct bench_scenario {
	const char *name;
	const char *help; /* one paragraph for --help */
	int named_only;   /* not run by default nor by "all" */
	unsigned int ntests;
	const struct bench_test *tests;
};

/* The ntests and tests members of a scenario from its array of tests. */
#define BENCH_TESTS(a) .ntests = sizeof(a) / sizeof((a)[0]), .tests = (a)

/*
 * The scenarios, in default run order.  To add one: write sc_NAME.c
 * defining "const struct bench_scenario bench_scenario_NAME", add
 * X(NAME) here and the file to CMakeLists.txt.
 */
#define BENCH_SCENARIOS(X) \
	X(read)            \
	X(readers)         \
	X(sync)            \
	X(call)            \
	X(call_rcu_data)   \
	X(defer)           \
	X(poll)            \
	X(scale)

#define BENCH_DECLARE_SCENARIO(n) extern const struct bench_scenario bench_scenario_##n;
BENCH_SCENARIOS(BENCH_DECLARE_SCENARIO)
#undef BENCH_DECLARE_SCENARIO

/* main() of the bench executed again for one "defer" measurement
 * (argv: --defer-child RCUBOOST N FD; sc_defer.c). */
int bench_defer_child_main(char **argv);

/* What the updater of bench_readers_run() does. */
enum bench_upd_mode {
	UPD_SYNC_FREE,  /* replace, synchronize, free */
	UPD_CALL_PACED, /* replace and retire with call_rcu every 10 us */
	UPD_RETIRE_ALL, /* --calls replace+retire back to back, barrier */
	UPD_SYNC_WORST, /* synchronize back to back, keep the worst */
	UPD_RETIRE_RATE, /* replace+retire at a fixed rate, the clock spun */
};
#define BENCH_MAX_READERS 256
/* @nreaders (<= BENCH_MAX_READERS) readers pinned alternately to the two
 * CPUs and an unpinned updater in @mode (sc_readers.c).  out[0] reads/s,
 * out[1] updates/s, out[2] median callback latency (us, UPD_CALL_PACED),
 * total time (ms, UPD_RETIRE_ALL) or worst synchronize (us,
 * UPD_SYNC_WORST), out[3] peak RSS growth (MiB, UPD_RETIRE_ALL), out[4]
 * reads per second of the readers' own CPU time, out[5] CPU time of
 * every other thread (the library's own: its callback thread, booster)
 * in ms per second of the run (out[4] and out[5]: UPD_RETIRE_ALL,
 * UPD_RETIRE_RATE). */
void bench_readers_run(const struct tool_peer *f, const struct bench_params *p,
		       unsigned int nreaders, enum bench_upd_mode mode, double *out);
/* Median and 99th percentile synchronize latency (us) with @nidle
 * registered threads blocked outside critical sections; @reg: the caller
 * registered too (sc_sync.c).  0, or -1 with a message. */
int bench_sync_idle(const struct tool_peer *f, const struct bench_params *p,
		    unsigned int nidle, int reg, double *out);

/* ---- scenarios of the enhancements (extra.c, sc_pressure.c, ...) ---- */

/*
 * Like "inversion", run only when named, before any side is set up, each
 * with its own report: a scenario compares an enhancement's run with the
 * plain design and with urcu-memb in the same invocation.  A figure's
 * value is the enhancement's run; each peer is another run, or "goal"
 * (peer_value the bound, ratio value / bound, goal "<=1.00").
 */
#define BENCH_X_MAX_PEERS 5
#define BENCH_X_MAX_FIGS 40
#define BENCH_X_GOAL "goal"

struct bench_xfig {
	char name[56];
	const char *unit;
	double value;  /* NaN: n/a */
	unsigned int npeers;
	struct {
		const char *name;
		double value;
	} peer[BENCH_X_MAX_PEERS];
};

struct bench_xres {
	const char *scenario;
	int status;     /* 0 ran; -EPERM, -ENODEV: n/a; else could not run */
	int failed;     /* a run failed its checks */
	char why[512];
	unsigned int nfigs;
	struct bench_xfig figs[BENCH_X_MAX_FIGS];
	char plot[512]; /* the plot written, or why none */
	double elapsed_s; /* set by the runner */
	/* The scenario's own tables (after the figures' header) and the
	 * members of its JSON detail object (without braces). */
	void (*print_detail)(FILE *out, const struct bench_xres *x);
	void (*json_detail)(FILE *f, const struct bench_xres *x);
	void *priv;     /* freed with the result, after free_priv(priv) */
	void (*free_priv)(void *priv);
};

struct bench_xscenario {
	const struct bench_scenario *sc;
	struct bench_xres *(*run)(const struct bench_params *p);
};

extern const struct bench_xscenario bench_x_pressure;
extern const struct bench_xscenario bench_x_escalate;
extern const struct bench_xscenario bench_x_expedited;
extern const struct bench_xscenario bench_x_boosters;
extern const struct bench_xscenario bench_x_pi;
extern const struct bench_xscenario bench_x_inversion;
extern const struct bench_xscenario bench_x_fifo64;
extern const struct bench_xscenario bench_x_follow;

/* Add a figure to @x; returns it (peers added with bench_x_peer()). */
struct bench_xfig *bench_x_fig(struct bench_xres *x, const char *unit,
			       double value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void bench_x_peer(struct bench_xfig *g, const char *name, double value);
/* 1 met, 0 missed, -1 no goal or no value. */
int bench_x_met(const struct bench_xfig *g);
/* A result for @scenario whose priv is a zeroed block of @priv_size bytes,
 * with the scenario's report callbacks. */
struct bench_xres *bench_x_new(const char *scenario, size_t priv_size,
			       void (*print_detail)(FILE *out, const struct bench_xres *x),
			       void (*json_detail)(FILE *f, const struct bench_xres *x));
void bench_x_free(struct bench_xres *x);
void bench_x_print_summary(FILE *out, const struct bench_xres *x,
			   unsigned int *met, unsigned int *goals);
void bench_x_print_table(FILE *out, const struct bench_xres *x);
/* A table of a scenario's runs: a header line starting with @head
 * (@label + 2 wide), then a row per label in @rows (@label wide, after two
 * spaces) with a column per run in @cols (@width wide each, after a
 * space): "not run" unless @ran[col], else what cell() prints, " " and
 * @width characters. */
struct bench_xtable {
	const char *head;
	const char *const *cols;
	const int *ran;
	unsigned int ncols;
	int width;
	const char *const *rows;
	unsigned int nrows;
	int label;
	void (*cell)(FILE *out, int width, unsigned int row, unsigned int col, const void *arg);
	const void *arg;
	const char *errors[BENCH_X_MAX_PEERS]; /* per column, after the rows
						* as "  COL: ERROR" unless empty */
};
void bench_x_print_runs(FILE *out, const struct bench_xtable *t);
/* A cell of such a table: @v, or "n/a" unless @have. */
void bench_x_cell_long(FILE *out, int width, int have, long v);
unsigned int bench_x_json_count(const struct bench_xres *x);
/* One entry of the JSON "entries" array, as every scenario run only when
 * named writes them: @value against @peer (BENCH_X_GOAL: the bound, and
 * @met says whether it is met: 1, 0 or -1 for no value), "better":
 * "lower"; a comma after it unless @last. */
void bench_x_json_entry(FILE *f, const char *scenario, const char *name, const char *unit,
			double value, const char *peer, double peer_value, int met, int last);
/* Entries, each followed by a comma unless ++*@n == @total. */
void bench_x_write_entries(FILE *f, const struct bench_xres *x, unsigned int *n,
			   unsigned int total);
void bench_x_write_detail(FILE *f, const struct bench_xres *x);
/* bench_num_str(), but three significant figures below 1 (0.005 ms). */
const char *bench_x_num_str(double v, char *buf, size_t len);
/* @a / @b, NaN when either is missing or @b is 0. */
double bench_x_ratio(double a, double b);
/* Median and spread ((max - min) / median) of @v[i] over the rounds
 * i < @rounds with @ran[i] set and @v[i] not NaN; NaN if none. */
double bench_x_median(const int *ran, const double *v, unsigned int rounds);
double bench_x_spread(const int *ran, const double *v, unsigned int rounds);
/* The "runs" array of a scenario whose configurations each ran in child
 * processes: for configuration c < @nconf, {"name": names[c], "ok": no
 * error and a first figure, keys[k]: med[c * stride + k] for k < @nkeys,
 * "error": errors[c]}.  Writes `"runs": [...]` without a newline after. */
void bench_x_json_runs(FILE *f, int nconf, const char *const *names,
		       const char *const *keys, int nkeys, const double *med,
		       int stride, const char *const *errors);
/* Where plots go (--plot-dir; default RCB_BENCH_PLOT_DIR, set by the
 * build: plots/ in the build directory); created on first use. */
extern const char *bench_plot_dir;
/* Open @name in bench_plot_dir for writing (its path in @path); NULL
 * with "none (cannot write PATH)" in @x->plot if it cannot. */
FILE *bench_x_plot_file(struct bench_xres *x, const char *name, char *path, size_t len);
/* Write the gnuplot script NAME.gp for the image NAME.png in
 * bench_plot_dir (pngcairo, @width x @height, then @fmt), run gnuplot on
 * it and note the outcome in @x->plot. */
void bench_x_gnuplot(struct bench_xres *x, const char *name, int width, int height,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* An unsigned setting from the environment (e.g. RCUBOOST_PERIOD_MS):
 * @def unless it is set to 1..99999. */
unsigned int bench_x_env_num(const char *name, unsigned int def);
/* Zeroed shared anonymous memory that a child process can write results
 * into (never unmapped); NULL with x->status and x->why set. */
void *bench_x_shared(struct bench_xres *x, size_t size);
/* The rt check of the inversion scenario, for real-time scenarios:
 * 0, or the status with x->why filled and "n/a" on stderr. */
int bench_x_rt_check(struct bench_xres *x, int prio);
/* Run @fn(@arg) in a child process (stdio flushed on both sides of the
 * fork; the child exits with 0 once @fn returns, so it reports through
 * shared memory) and wait for it, killing it once it outlives @timeout_s.
 * Returns 0 if it exited with status 0; else a negative errno with the
 * reason in @why: fork's or waitpid's error, -ETIMEDOUT (killed), or
 * -ECHILD (killed by a signal or a non-zero exit status). */
int bench_x_run_child(void (*fn)(void *), void *arg, unsigned int timeout_s, char *why,
		      size_t len);

/* For the scenarios that run each configuration in a child process
 * (boosters, pi): wait on the futex @w while it holds @val, at most @ms;
 * a freed-object callback that does nothing; and the child's outcome
 * (bench_x_run_child()'s @err and @why) into @error: a hang overrides the
 * child's own reason, a death does not.  Returns @err. */
void bench_x_futex_wait(_Atomic int *w, int val, long ms);
/* What such a child gets: its configuration, the scenario's priv, and
 * its result in shared memory. */
struct bench_child {
	int conf;
	const void *pv;
	void *r;
};
/* Run @child for configuration @conf in a child process (timeout
 * @timeout_s); its error, if any, into @error (bench_x_child_error()).
 * Returns 0 if it exited normally. */
int bench_x_conf_child(void (*child)(void *arg), int conf, const void *pv, void *r,
		       unsigned int timeout_s, char *error, size_t len);
/* Run configurations 0 to @nconf - 1 @rounds times each, each run in a
 * child process (bench_x_conf_child(), @timeout_s), alternating their
 * order between rounds; *@round is the round under way when a child
 * starts.  Configuration c's error text goes to @errors + c * @stride
 * (@len bytes: the error member of an array of result structures).
 * Progress "@scenario: round r/n: name..." on stderr.  Returns 1 if any
 * child failed, else 0. */
int bench_x_conf_rounds(const char *scenario, void (*child)(void *arg), const void *pv,
			unsigned int *round, unsigned int rounds, int nconf,
			const char *const *names, unsigned int timeout_s, char *errors,
			size_t stride, size_t len);
void bench_x_freed_nop(void *payload, size_t bytes);
int bench_x_child_error(int err, const char *why, char *error, size_t len);

/* ---- runs of the inversion engine (invruns.c) ---------------------- */

/*
 * The scenarios inversion, pressure and escalate run the engine of
 * tools/common/inversion.h once per hog duration and run (a run: rcuboost
 * in some configuration, or urcu-memb), before any side is set up.
 */
#define BENCH_IR_MAX_RUNS 4
#define BENCH_INV_DEFAULT_HOGS "1000,3000"

enum bench_ir_what { IR_HELD, IR_GP_MAX, IR_GP_P99, IR_BACKLOG, IR_BYTES, IR_STEPS };

/* The rows of a run table. */
enum bench_ir_row {
	IRC_HELD, IRC_GP_MAX, IRC_GP_P99, IRC_GP_MEDIAN, IRC_GP_COUNT, IRC_BACKLOG,
	IRC_BYTES, IRC_PR_ENTRIES, IRC_PR_KICKS, IRC_STEPS, IRC_PERIODS, IRC_BOOSTS,
	IRC_RESULT,
};

struct bench_ir {
	struct inv_params prm;
	unsigned int nhogs, nruns;
	int hog_ms[BENCH_IR_MAX_HOGS];            /* ascending */
	const char *name[BENCH_IR_MAX_RUNS];      /* run labels */
	struct rcb_config cfg[BENCH_IR_MAX_RUNS]; /* of an rcuboost run */
	struct inv_flavor_ops ops[BENCH_IR_MAX_RUNS];
	int ran[BENCH_IR_MAX_HOGS][BENCH_IR_MAX_RUNS];
	struct inv_result res[BENCH_IR_MAX_HOGS][BENCH_IR_MAX_RUNS];
	/* RCUBOOST_PERIOD_MS and RCUBOOST_ELEMENTS (library defaults 10, 4). */
	unsigned int period_ms, elements;
};

struct bench_ir_cells {
	const struct bench_ir *ir;
	unsigned int h;
	const enum bench_ir_row *rows;
};

/* Parse "--hog-ms" (@arg: comma-separated durations in ms) into @hog_ms,
 * sorted; returns the count, or 0 with a message on stderr. */
unsigned int bench_inv_parse_hogs(const char *arg, int *hog_ms);
/* The engine's defaults, @nhogs hog durations, no runs yet. */
void bench_ir_init(struct bench_ir *ir, const int *hog_ms, unsigned int nhogs);
/* Add a run named @name: @ops, or (NULL) rcuboost initialised with
 * ir->cfg[its index], which the caller fills before or after. */
void bench_ir_add(struct bench_ir *ir, const char *name, const struct inv_flavor_ops *ops);
/* Check real-time permission (for priority @prio; 0: the hog's), save
 * every thread's affinity, start the watchdog for the runs and @extra
 * more per hog.  0, or x->status (n/a, reason in x->why, on stderr). */
int bench_ir_begin(struct bench_xres *x, struct bench_ir *ir, int prio, unsigned int extra);
/* One run with progress on stderr (number @k of @n); a failure sets
 * x->failed.  Returns 1 if it ran. */
int bench_ir_one(struct bench_xres *x, const struct inv_flavor_ops *ops,
		 const struct inv_params *p, struct inv_result *res, const char *label,
		 unsigned int k, unsigned int n);
/* Every hog and run, numbered 1.. of @n. */
void bench_ir_run_all(struct bench_xres *x, struct bench_ir *ir, unsigned int n);
/* Stop the watchdog, give every thread its saved affinity back. */
void bench_ir_end(struct bench_ir *ir);
/* A value of run @r at hog @h; NaN if it did not run or has none. */
double bench_ir_val(const struct bench_ir *ir, unsigned int h, unsigned int r,
		    enum bench_ir_what w);
/* Peak backlog of run @r at the longest hog / at the shortest. */
double bench_ir_growth(const struct bench_ir *ir, unsigned int r);
/* A figure: @w of run runs[0] at hog @h, peers the runs runs[1..] up to
 * a -1. */
struct bench_xfig *bench_ir_fig(struct bench_xres *x, const struct bench_ir *ir,
				const char *unit, unsigned int h, enum bench_ir_what w,
				const int *runs, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
void bench_ir_cell(FILE *out, int w, unsigned int row, unsigned int col, const void *arg);
/* Per hog: a table of @rows with a column per run (@width wide), the
 * errors of the runs that failed, then @after (may be NULL). */
void bench_ir_print(FILE *out, const struct bench_ir *ir, int width,
		    const enum bench_ir_row *rows, unsigned int nrows,
		    void (*after)(FILE *out, const struct bench_ir *ir, unsigned int h));
/* JSON: "runs": [ and an object per run (bench_ir_json_run(), a comma
 * before it unless @first); returns how many.  Close the array with
 * bench_ir_json_end() (@any: a run was written). */
int bench_ir_json_runs(FILE *f, const struct bench_xres *x, const struct bench_ir *ir);
void bench_ir_json_run(FILE *f, int hog_ms, const char *name, int ran,
		       const struct inv_result *res, int first);
void bench_ir_json_end(FILE *f, int any);
void bench_ir_free(struct bench_ir *ir);
/* bench_x_new() for a scenario whose priv starts with its struct
 * bench_ir, freed with it. */
struct bench_xres *bench_ir_new(const char *scenario, size_t priv_size,
				void (*print_detail)(FILE *out, const struct bench_xres *x),
				void (*json_detail)(FILE *f, const struct bench_xres *x));

/* ---- results -------------------------------------------------------- */

struct bench_result {
	const char *scenario;
	const struct bench_figure *fig;
	unsigned int nrounds;
	int have[BENCH_MAX_SIDES];
	double round[BENCH_MAX_SIDES][BENCH_MAX_ROUNDS];
	double median[BENCH_MAX_SIDES];
	double spread[BENCH_MAX_SIDES]; /* (max - min) / median */
};

struct bench_report {
	const struct bench_params *params;
	unsigned int nsides;
	const struct tool_peer *const *sides; /* [0] rcuboost, [1] main peer */
	int sides_set_up;  /* else describe() is not called */
	unsigned int nresults;
	struct bench_result *results;
	unsigned int nx;             /* enhancement scenarios that ran */
	struct bench_xres *const *x;
	double elapsed_s;
};

/* rcuboost / peer; NaN when either is missing or the peer is 0. */
double bench_ratio(const struct bench_result *r, unsigned int side);
/* 1 met, 0 missed, -1 no goal, no ratio, or @side is not the goal's peer. */
int bench_goal_met(const struct bench_report *rep, const struct bench_result *r,
		   unsigned int side);
/* The side a figure's goal is against (MAIN_PEER unless goal_peer). */
unsigned int bench_goal_side(const struct bench_report *rep, const struct bench_result *r);
/* The side other than rcuboost with the best median; 0 if none. */
unsigned int bench_best_side(const struct bench_report *rep, const struct bench_result *r);
void bench_print_summary(FILE *out, const struct bench_report *rep);
void bench_print_table(FILE *out, const struct bench_report *rep);
int bench_write_json(const char *path, const struct bench_report *rep);
/* Four significant figures at most, k/M/G for large values, "n/a" for NaN. */
const char *bench_num_str(double v, char *buf, size_t len);
/* "1.23x", or "n/a" for NaN. */
const char *bench_ratio_str(double ratio, char *buf, size_t len);

#endif /* RCB_BENCH_H */
