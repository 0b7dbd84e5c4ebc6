/* SPDX-License-Identifier: MIT */
/*
 * The layer shared by rcuboost's tools (bench, demo, torture, boostcost):
 * clock and sleeps, random numbers, threads and CPU pinning, statistics,
 * a start gate, JSON output and option-value parsing.  Written once here
 * so that every tool measures time, pins threads and writes JSON the same
 * way.  Functions that "exit" print "PROG: what: why" on stderr first.
 */
#ifndef RCB_TOOL_H
#define RCB_TOOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The program name in messages ("rcuboost-bench"); set it in main(). */
extern const char *tool_prog;

/* ---- time ---------------------------------------------------------- */

/* CLOCK_MONOTONIC in ns. */
uint64_t tool_now_ns(void);
/* Sleep @ns (relative) or until @deadline_ns (CLOCK_MONOTONIC); signals
 * do not cut either short. */
void tool_sleep_ns(uint64_t ns);
void tool_sleep_until(uint64_t deadline_ns);

/* xorshift64*: small, fast, good enough to pick delays; @state != 0. */
uint64_t tool_rand(uint64_t *state);

/* ---- threads and pinning ------------------------------------------ */

/* The first two CPUs this process may run on (b == a with one CPU; both
 * -1 if the affinity cannot be read). */
void tool_pick_cpus(int *a, int *b);
/* Pin the calling thread to @cpu: 0 or -errno. */
int tool_pin_self(int cpu);
/* Make threads created with @attr start on @cpu: 0 or an errno. */
int tool_attr_pin(pthread_attr_t *attr, int cpu);
/* Make threads created with @attr start with @policy and @prio instead of
 * inheriting the creator's: 0 or an errno. */
int tool_attr_sched(pthread_attr_t *attr, int policy, int prio);
/* Start @fn(@arg) pinned to @cpu (-1: not pinned).  Exits on failure. */
void tool_thread_start(pthread_t *t, int cpu, void *(*fn)(void *), void *arg);
/* Join @t.  Exits on failure. */
void tool_thread_join(pthread_t t);
/* Name the calling thread PREFIX or PREFIXidx (idx < 0: no index), as
 * shown by ps and gdb. */
void tool_name_thread(const char *prefix, int idx);

/* sched_setattr(2) / sched_getattr(2) attributes (glibc has no wrapper). */
struct tool_sattr {
	uint32_t size;
	uint32_t policy;
	uint64_t flags;
	int32_t nice;
	uint32_t prio;
	uint64_t runtime, deadline, period;
};

/* The attributes of thread @tid (0: the caller): 0 or -errno. */
int tool_sattr_get(int tid, struct tool_sattr *a);
/* Set the caller's policy, priority and nice from @a: 0 or -errno. */
int tool_sattr_set(const struct tool_sattr *a);
/* Same policy, and same priority (real-time) or nice (otherwise). */
int tool_sattr_same(const struct tool_sattr *a, const struct tool_sattr *b);
/* Poll @flag every 100 us for up to @ms; returns its last value. */
int tool_wait_flag(_Atomic int *flag, int ms);

/* A start gate: every party (workers and the main thread) waits in it. */
struct tool_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int parties, arrived;
	int open;
};

void tool_gate_init(struct tool_gate *g, unsigned int parties);
void tool_gate_wait(struct tool_gate *g);
void tool_gate_destroy(struct tool_gate *g);

/* ---- statistics and memory ----------------------------------------- */

/* Sorts @v in place; q in [0, 1]; 0 when @n is 0. */
double tool_quantile_u64(uint64_t *v, size_t n, double q);
/* Sorts @v in place; q in [0, 1]; 0 when @n is 0. */
double tool_quantile(double *v, size_t n, double q);
/* The median of @v[0..n) (left unchanged; mean of the middle two when @n
 * is even); 0 when @n is 0. */
double tool_median(const double *v, size_t n);
/* Kruskal-Wallis test: do @n values @v, each in group @group[i] (0 to
 * @ngroups - 1), come from one distribution?  The p-value from the
 * chi-square approximation (ties get average ranks); NaN when fewer
 * than two groups hold values.  Small p: the groups differ by more than
 * their spread explains. */
double tool_kruskal_wallis_p(const double *v, const int *group, size_t n,
			     int ngroups);
/* malloc that exits when out of memory. */
void *tool_xmalloc(size_t n);
/* vfprintf on stderr, flushed (progress of long runs). */
__attribute__((format(printf, 1, 2))) void tool_progress(const char *fmt, ...);

/* ---- JSON ---------------------------------------------------------- */

/* A JSON string (NULL: empty) and number (NaN, inf: null; %.6g). */
void tool_json_str(FILE *f, const char *s);
void tool_json_num(FILE *f, double v);
/* Open @path for writing; NULL with the reason on stderr. */
FILE *tool_json_open(const char *path);
/* Close it: 0, or -errno with the reason on stderr. */
int tool_json_close(FILE *f, const char *path);

/* ---- option values -------------------------------------------------- */

/* The integer value @s of option --@opt (decimal, or 0x hex), in
 * [@lo, @hi].  Exits with status 2 (usage error) and
 * "PROG: --OPT=S: expected an integer LO..HI" otherwise. */
unsigned long long tool_parse_num(const char *opt, const char *s,
				  unsigned long long lo, unsigned long long hi);

/*
 * The options of a tool, one row each; tool_getopt() parses them all.
 * FLAG sets a bool or int to 1, CLEAR to 0; CALL (no argument) calls
 * fn(NULL, var); STR stores optarg; NUM
 * stores tool_parse_num() of it in an unsigned or signed integer of 4 or
 * 8 bytes; FN calls fn(optarg, var), which exits with status 2 on a bad
 * value (tool_usage_error()).
 */
enum tool_opt_kind {
	TOOL_FLAG,
	TOOL_CLEAR,
	TOOL_CALL,
	TOOL_STR,
	TOOL_NUM,
	TOOL_FN
};

struct tool_opt {
	const char *name;  /* long option */
	int key;           /* its short option, or 0 */
	enum tool_opt_kind kind;
	void *var;
	size_t size;       /* sizeof(*var) */
	unsigned long long lo, hi;
	void (*fn)(const char *arg, void *var);
};

#define TOOL_OPT_FLAG(n, k, v) { n, k, TOOL_FLAG, &(v), sizeof(v), 0, 0, NULL }
#define TOOL_OPT_CLEAR(n, k, v)                               \
	{                                                     \
		n, k, TOOL_CLEAR, &(v), sizeof(v), 0, 0, NULL \
	}
#define TOOL_OPT_STR(n, k, v) { n, k, TOOL_STR, &(v), sizeof(v), 0, 0, NULL }
#define TOOL_OPT_NUM(n, k, v, lo, hi)                         \
	{                                                     \
		n, k, TOOL_NUM, &(v), sizeof(v), lo, hi, NULL \
	}
#define TOOL_OPT_FN(n, k, v, f) { n, k, TOOL_FN, &(v), sizeof(v), 0, 0, f }
#define TOOL_OPT_CALL(n, k, f) { n, k, TOOL_CALL, NULL, 0, 0, 0, f }

/*
 * Parse the options of @argv with the @n rows of @opts, and --help/-h,
 * which prints @usage on stdout and exits 0.  An unknown option or a bad
 * value exits with status 2.  Returns the index of the first operand.
 */
int tool_getopt(int argc, char **argv, const struct tool_opt *opts, size_t n,
		void (*usage)(FILE *out));
/* "PROG: MESSAGE" and "Try 'PROG --help'." on stderr, then exit 2. */
__attribute__((noreturn, format(printf, 1, 2))) void
tool_usage_error(const char *fmt, ...);

#endif /* RCB_TOOL_H */
