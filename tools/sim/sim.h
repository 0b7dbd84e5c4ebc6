/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-sim's scheduler (sched.c) as the workloads (main.c) see it.
 *
 * Every simulated thread is a real pthread, but only one runs at a time:
 * it holds the baton until its next simulation point (a shared access of
 * the library through src/core/atomic.h, a wrapped blocking call, or a point a
 * workload asks for), where the scheduler picks, from a pseudo-random
 * generator seeded once, which thread of the highest-priority ones that
 * fit on the virtual CPUs runs next.  The schedule is therefore a pure
 * function of the seed and the options.
 */
#ifndef RCB_SIM_H
#define RCB_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct sim_opts {
	unsigned long long seed;
	int ncpu;              /* virtual CPUs, at most 16 */
	unsigned int switch_pm; /* per-mille chance to switch at a point */
	uint64_t vtime_limit;  /* virtual ns before "hang" */
	unsigned long long max_points; /* points before "hang" (livelock) */
	int trace_lines;       /* trace shown on failure */
	bool verbose;          /* print every event */
	/* Cost model (doc/scale.md): virtual ns charged per simulation
	 * point and per simulated system call.  Defaults: 50 ns a point,
	 * calls free (the schedules of the sweeps do not change). */
	uint64_t step_ns;
	uint64_t cost_membarrier;     /* no other CPU runs a thread of ours */
	uint64_t cost_membarrier_ipi; /* one does (plus ipi_send each more) */
	uint64_t cost_ipi_send;
	uint64_t cost_getattr, cost_setattr; /* one call each */
	uint64_t cost_proc;           /* the /proc read of a last CPU */
	uint64_t cost_futex_wake;
	/* Systematic mode (CHESS-style): no random choice in the scheduler;
	 * the running thread keeps its CPU except at the preemptions
	 * listed, each (opportunity number, which other on-CPU thread). */
	bool systematic;
	int npreempt;
	struct sim_preempt {
		unsigned int at;  /* preemption opportunity, counted from 1 */
		unsigned int alt; /* index among the other on-CPU threads */
	} preempt[8];
	int report_fd; /* where a run reports its opportunities, -1: none */
	/* RT throttling (--rt-throttle R/P, as the kernel's
	 * sched_rt_runtime_us/sched_rt_period_us per CPU): real-time
	 * threads get at most rt_runtime_ns of each rt_period_ns on a
	 * virtual CPU.  0: off. */
	uint64_t rt_runtime_ns, rt_period_ns;
};

extern struct sim_opts sim_opts;

/* Become simulated thread 0 (the driver) and start the schedule. */
void sim_start(void);
/* A simulation point in workload code. */
#define sim_point() rcb__sim_point(__FILE__, __LINE__)
void rcb__sim_point(const char *file, int line);
/* A simulation point after @ns of work without shared accesses. */
void sim_busy(uint64_t ns);
/* Uniform pseudo-random number below @n from the seeded generator. */
unsigned int sim_rand(unsigned int n);
/* Virtual time, ns. */
uint64_t sim_now(void);
/* Report a failed check: trace, seed, exit status 1. */
__attribute__((noreturn, format(printf, 1, 2))) void sim_fail(const char *fmt,
							       ...);
/* End a passing run: prints the summary line, exits 0. */
__attribute__((noreturn)) void sim_pass(void);
/* Simulated thread id of the caller (0: driver), -1 if not simulated. */
int sim_self(void);
/* Give thread @id a pending simulated signal: @handler runs on its stack
 * at its next simulation point (not inside another handler). */
void sim_signal(int id, void (*handler)(void));
/* Hold back (true) or allow simulated signals to the caller. */
void sim_sigmask(bool blocked);
/* Name the calling simulated thread in traces. */
void sim_name(const char *name);
/* Scheduling class of the caller, as the simulated kernel sees it:
 * 0 for SCHED_OTHER, else the real-time priority. */
int sim_prio_of(int id);
/* The same with what it inherits through PI mutexes and PI futexes (the
 * pi backend's boost). */
int sim_effprio_of(int id);
/* The same for the simulated thread of kernel thread id @tid, -1 if
 * none (a library thread named by rcb_callback_tids()). */
int sim_prio_of_tid(pid_t tid);
/* Set the caller's simulated policy and priority (a hog's SCHED_FIFO). */
void sim_setprio(int policy, int prio);
/* Pin the caller to virtual CPU @cpu (-1: any). */
void sim_pin(int cpu);
/* fork(2) from the calling simulated thread: the real fork, so the
 * library's atfork handlers run as this thread (and may block on
 * simulated mutexes).  Returns the child's pid in the parent; in the
 * child, 0, with the caller the only simulated thread left (the others
 * are gone, as on Linux) and the schedule going on from the same
 * generator state.  The parent must reap the child (waitpid) before it
 * reaches another point: no other thread runs meanwhile, so both
 * schedules stay functions of the seed. */
int sim_fork(void);
/* A simulated thread exited, then the library tried sched_setattr on it. */
extern unsigned long sim_boost_after_exit;
/* Hash of the whole schedule so far (replay check). */
uint64_t sim_trace_hash(void);
unsigned long long sim_points(void);

#endif
