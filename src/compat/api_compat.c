/* SPDX-License-Identifier: MIT */
/*
 * Deprecated names of renamed calls, kept for one release (the header
 * marks each one deprecated, naming its replacement).  They are real
 * exported functions, not static inline wrappers in the header: a program
 * linked against the previous release calls them by these names, and
 * must keep loading and working with this SONAME.  Each one only passes
 * its arguments on, in the new order.
 */
#include "core/internal.h"

RCB_API int rcb_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
	return rcb_condvar_wait(cond, mutex);
}

RCB_API int rcb_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
			       const struct timespec *abstime)
{
	return rcb_condvar_timedwait(cond, mutex, abstime);
}

RCB_API int rcb_poll(struct pollfd *fds, unsigned long nfds, int timeout)
{
	return rcb_fd_poll(fds, nfds, timeout);
}

RCB_API int rcb_worker_set_cpu(int cpu, struct rcb_worker *w)
{
	return rcb_worker_assign_cpu(w, cpu);
}
