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
unsigned long long tool_parse_num(const char *opt, const char *s, unsigned long long lo,
				  unsigned long long hi);

#endif /* RCB_TOOL_H */
