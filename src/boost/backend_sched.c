/* SPDX-License-Identifier: MIT */
/*
 * Scheduling backend: the userspace stand-in for the kernel's
 * rt_mutex_setprio().  Boosting is sched_setattr(2) on the target's
 * thread ID; reading is sched_getattr(2), which reports the attributes
 * the thread was given (its normal policy and priority), not a priority
 * it inherits through a PI mutex: the kernel keeps an inherited priority
 * in force whatever normal priority we set, so "never lower a thread
 * that runs higher" needs checking only against the normal attributes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boost/boost.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

_Atomic long rcb__sched_syscalls;

int rcb__sched_get(pid_t tid, struct rcb__sched_attr *a)
{
	rcb_add_relaxed(&rcb__sched_syscalls, 1);
	memset(a, 0, sizeof(*a));
	if (syscall(SYS_sched_getattr, tid, a, sizeof(*a), 0) != 0)
		return -errno;
	return 0;
}

int rcb__sched_set(pid_t tid, const struct rcb__sched_attr *a)
{
	struct rcb__sched_attr c = *a;

	c.size = sizeof(c);
	rcb_add_relaxed(&rcb__sched_syscalls, 1);
	if (syscall(SYS_sched_setattr, tid, &c, 0) != 0) {
		/* Refused: a keeper may do it for us (keeper.c). */
		if (errno == EPERM && rcb__keeper_available())
			return rcb__keeper_sched_set(tid ? tid : gettid(), &c);
		return -errno;
	}
	return 0;
}

static bool is_rt(uint32_t policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

bool rcb__sched_same(const struct rcb__sched_attr *a,
		     const struct rcb__sched_attr *b)
{
	if (a->sched_policy != b->sched_policy)
		return false;
	if (is_rt(a->sched_policy))
		return a->sched_priority == b->sched_priority;
	if (a->sched_policy == SCHED_DEADLINE)
		return a->sched_runtime == b->sched_runtime &&
		       a->sched_deadline == b->sched_deadline &&
		       a->sched_period == b->sched_period;
	return a->sched_nice == b->sched_nice;
}

bool rcb__sched_at_least(const struct rcb__sched_attr *a, int prio)
{
	if (a->sched_policy == SCHED_DEADLINE)
		return true;
	return is_rt(a->sched_policy) && (int)a->sched_priority >= prio;
}

int rcb__sched_last_cpu(pid_t tid)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, field, cpu = -1;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The command name may hold spaces; fields count from its ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* After ')' comes field 3 (state); "processor" is field 39. */
	for (field = 2; *p && field < 39; p++)
		if (*p == ' ')
			field++;
	if (field == 39)
		cpu = atoi(p);
	return cpu;
}
