/* SPDX-License-Identifier: MIT */
/*
 * Blocking wrappers: each notes a block inside a read-side critical
 * section (rcb_note_block(), the article's rcu_preempt_boost()) and then
 * calls what it wraps, with the same arguments, results and errno.  Only
 * a call that may actually block notes it; outside critical sections the
 * note costs one thread-local load.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"

RCB_API int rcb_mutex_lock(pthread_mutex_t *mutex)
{
	int err = pthread_mutex_trylock(mutex);

	if (err != EBUSY)
		return err;
	rcb_note_block();
	return pthread_mutex_lock(mutex);
}

RCB_API int rcb_condvar_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
	rcb_note_block();
	return pthread_cond_wait(cond, mutex);
}

RCB_API int rcb_condvar_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
				  const struct timespec *abstime)
{
	rcb_note_block();
	return pthread_cond_timedwait(cond, mutex, abstime);
}

RCB_API int rcb_nanosleep(const struct timespec *req, struct timespec *rem)
{
	rcb_note_block();
	return nanosleep(req, rem);
}

RCB_API int rcb_fd_poll(struct pollfd *fds, unsigned long nfds, int timeout)
{
	if (timeout != 0)
		rcb_note_block();
	return poll(fds, (nfds_t)nfds, timeout);
}

RCB_API int rcb_futex_wait(uint32_t *uaddr, uint32_t val,
			   const struct timespec *timeout)
{
	rcb_note_block();
	return (int)syscall(SYS_futex, uaddr, FUTEX_WAIT_PRIVATE, val, timeout,
			    NULL, 0);
}
