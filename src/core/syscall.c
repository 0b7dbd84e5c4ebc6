/* SPDX-License-Identifier: MIT */
/*
 * System-call helpers shared by every part of the library: the futex
 * wait and wake, the monotonic clock, priority-inheritance mutexes.
 * Each is a thin checked wrapper: a failure that can only be a bug (a
 * futex call returning what it never should) dies through RCB_DIE().
 * No ordering here: the callers' labels say what a wake-up publishes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"

static int pi_mutex_init_type(pthread_mutex_t *m, int type)
{
	pthread_mutexattr_t a;
	int err;

	pthread_mutexattr_init(&a);
	err = pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	if (!err)
		err = pthread_mutexattr_settype(&a, type);
	if (!err)
		err = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return -err;
}

int rcb__pi_mutex_init(pthread_mutex_t *m)
{
	return pi_mutex_init_type(m, PTHREAD_MUTEX_NORMAL);
}

int rcb__pi_errorcheck_mutex_init(pthread_mutex_t *m)
{
	return pi_mutex_init_type(m, PTHREAD_MUTEX_ERRORCHECK);
}

uint64_t rcb__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int rcb__futex_wait(_Atomic int *uaddr, int val, uint64_t timeout_ns)
{
	struct timespec ts, *tsp = NULL;

	if (timeout_ns) {
		ts.tv_sec = (time_t)(timeout_ns / 1000000000ull);
		ts.tv_nsec = (long)(timeout_ns % 1000000000ull);
		tsp = &ts;
	}
	if (syscall(SYS_futex, (int *)uaddr, FUTEX_WAIT_PRIVATE, val, tsp,
		    NULL, 0) == 0)
		return 0;
	switch (errno) {
	case EAGAIN:
		return 0;
	case ETIMEDOUT:
		return -ETIMEDOUT;
	case EINTR:
		return -EINTR;
	default:
		RCB_DIE("futex(FUTEX_WAIT_PRIVATE)", errno);
	}
}

void rcb__futex_wake(_Atomic int *uaddr, int nr)
{
	if (syscall(SYS_futex, (int *)uaddr, FUTEX_WAKE_PRIVATE, nr, NULL,
		    NULL, 0) < 0)
		RCB_DIE("futex(FUTEX_WAKE_PRIVATE)", errno);
}

ssize_t rcb__read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}
