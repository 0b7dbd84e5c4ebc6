/* SPDX-License-Identifier: MIT */
/*
 * /proc task state without stdio or malloc (procfs.c), for the stall
 * detector.  Internal to the library.
 */
#ifndef RCB_PROCFS_H
#define RCB_PROCFS_H

#include <pthread.h>
#include <stdbool.h>

struct task_info {
	int pid, tid;
	char comm[20];
	char state;    /* R, S, D, T, t, Z... */
	int cpu;       /* last CPU */
	int policy;    /* SCHED_* */
	int rt_prio;   /* sched_priority */
	int nice;
	long kprio;    /* the kernel's effective prio: < 0 for real-time */
};

/* Parse /proc/<pid>/task/<tid>/stat into *@ti; false if unreadable. */
bool rcb__proc_read_task(int pid, int tid, struct task_info *ti);

/* Time on CPU in ns of thread @tid of this process, or -1. */
long long rcb__proc_run_ns(int tid);

/* State letter of thread @tid of this process ('R', 'S'...), or 0.
 * Own function (not inlined into its callers) so that rcuboost-sim can
 * replace it with its simulated threads' states. */
char rcb__proc_task_state(int tid);

/* CPU time in ns of thread @t of this process (its thread CPU clock),
 * or -1.  Replaced by rcuboost-sim too. */
long long rcb__thread_cpu_ns(pthread_t t);

/*
 * Call @fn(@arg, number) for each numeric entry of directory @path,
 * at most *@budget times in all (decremented per call).
 */
void rcb__proc_for_each_number(const char *path, int *budget,
			       void (*fn)(void *arg, int num), void *arg);

#endif /* RCB_PROCFS_H */
