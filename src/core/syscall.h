/* SPDX-License-Identifier: MIT */
/*
 * The system-call helpers of src/core/syscall.c: PI mutexes, futexes,
 * the monotonic clock, small /proc reads.  Included by core/internal.h.
 */
#ifndef RCB_CORE_SYSCALL_H
#define RCB_CORE_SYSCALL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

/* Initialise @m as a PTHREAD_PRIO_INHERIT mutex; 0 or negative errno. */
int rcb__pi_mutex_init(pthread_mutex_t *m);
/* The same, error-checking: locking it while holding it returns EDEADLK
 * (the owner is the PI futex word itself, so the answer is exact). */
int rcb__pi_errorcheck_mutex_init(pthread_mutex_t *m);

/* Wait while *@uaddr == @val, at most @timeout_ns (0: forever).  Returns
 * 0 on wake-up or value change, -ETIMEDOUT, or -EINTR. */
int rcb__futex_wait(_Atomic int *uaddr, int val, uint64_t timeout_ns);
void rcb__futex_wake(_Atomic int *uaddr, int nr);

uint64_t rcb__now_ns(void);
/* Read the small file @path into @buf (NUL-terminated, at most @len - 1
 * bytes); returns the length or -1. */
ssize_t rcb__read_small(const char *path, char *buf, size_t len);

#endif /* RCB_CORE_SYSCALL_H */
