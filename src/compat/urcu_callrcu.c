/* SPDX-License-Identifier: MIT */
/*
 * liburcu's call_rcu worker API (include/rcuboost/urcu_callrcu.h) on top
 * of the callback workers (callback_worker.c).  A struct call_rcu_data
 * is a struct rcb_worker: the casts below are the whole mapping.
 * liburcu reports failures as NULL or -1 with errno; so do these.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/sysinfo.h>

#define RCB_URCU_NO_MAP
#include "rcuboost/urcu_callrcu.h"
#include "callback/callback.h"
#include "core/internal.h"
#include "compat/urcu_compat.h"

#define W(crdp) ((struct rcb_worker *)(crdp))
#define CRDP(w) ((struct call_rcu_data *)(w))

/*
 * The exported functions never call each other: in a process that also
 * loads liburcu-memb, which exports the same names, such a call could
 * reach liburcu's.  They share these static helpers instead.
 */

/* @flags of @call valid?  Else said, errno EINVAL.  liburcu takes any
 * flags, into the word that also holds its thread's own state (stop,
 * pause): a bit of those makes a worker that stops at once. */
static bool flags_valid(const char *call, unsigned long flags)
{
	if (!(flags & ~(unsigned long)URCU_CALL_RCU_RT))
		return true;
	fprintf(stderr, "rcuboost: %s: flags %#lx are invalid: expected 0 or URCU_CALL_RCU_RT\n",
		call, flags);
	errno = EINVAL;
	return false;
}

static struct rcb_worker *create(unsigned long flags, int cpu_affinity)
{
	struct rcb_worker_attr a = { .size = sizeof(a) };
	struct rcb_worker *w;
	int err;

	if (!flags_valid("create_call_rcu_data", flags))
		return NULL;
	if (flags & URCU_CALL_RCU_RT)
		a.flags |= RCB_WORKER_RT;
	if (cpu_affinity >= 0) {
		a.flags |= RCB_WORKER_PIN;
		a.cpu = cpu_affinity;
	}
	RCB__AS_LIBURCU("create_call_rcu_data", err = rcb_worker_create(&a, &w));
	if (err != 0) {
		errno = -err;
		return NULL;
	}
	return w;
}

static void data_free(struct rcb_worker *w)
{
	int err;

	/* liburcu ignores NULL and the default worker. */
	if (!w || w == rcb_worker_default())
		return;
	RCB__AS_LIBURCU("call_rcu_data_free", err = rcb_worker_destroy(w));
	if (err != 0)
		errno = -err;
}

/* liburcu's set_cpu_call_rcu_data() returns a negative errno value, and
 * sets errno too: its own create_all_cpu_call_rcu_data() tests for
 * -EEXIST, and so may a program. */
static int set_cpu(int cpu, struct rcb_worker *w)
{
	int err;

	RCB__AS_LIBURCU("set_cpu_call_rcu_data",
			err = rcb_worker_assign_cpu(w, cpu));
	if (err)
		errno = -err;
	return err;
}

RCB_API struct call_rcu_data *
urcu_memb_create_call_rcu_data(unsigned long flags, int cpu_affinity)
{
	return CRDP(create(flags, cpu_affinity));
}

RCB_API void urcu_memb_call_rcu_data_free(struct call_rcu_data *crdp)
{
	data_free(W(crdp));
}

RCB_API struct call_rcu_data *urcu_memb_get_default_call_rcu_data(void)
{
	return CRDP(rcb_worker_default());
}

RCB_API struct call_rcu_data *urcu_memb_get_cpu_call_rcu_data(int cpu)
{
	return CRDP(rcb_worker_of_cpu(cpu));
}

RCB_API struct call_rcu_data *urcu_memb_get_thread_call_rcu_data(void)
{
	return CRDP(rcb_worker_of_thread());
}

RCB_API struct call_rcu_data *urcu_memb_get_call_rcu_data(void)
{
	return CRDP(rcb_worker_current());
}

RCB_API pthread_t urcu_memb_get_call_rcu_thread(struct call_rcu_data *crdp)
{
	pthread_t th = 0;
	int err;

	RCB__AS_LIBURCU("get_call_rcu_thread", err = rcb_worker_thread(W(crdp), &th));
	if (err)
		errno = -err;
	return th;
}

RCB_API void urcu_memb_set_thread_call_rcu_data(struct call_rcu_data *crdp)
{
	int err;

	RCB__AS_LIBURCU("set_thread_call_rcu_data", err = rcb_worker_set_thread(W(crdp)));
	if (err)
		errno = -err;
}

RCB_API int urcu_memb_set_cpu_call_rcu_data(int cpu, struct call_rcu_data *crdp)
{
	return set_cpu(cpu, W(crdp));
}

/* liburcu's create_all_cpu_call_rcu_data() returns a negative errno
 * value, and sets errno too. */
RCB_API int urcu_memb_create_all_cpu_call_rcu_data(unsigned long flags)
{
	int n = get_nprocs_conf();

	/* Before the loop: a worker's EINVAL there means its CPU. */
	if (!flags_valid("create_all_cpu_call_rcu_data", flags))
		return -EINVAL;
	for (int cpu = 0; cpu < n; cpu++) {
		struct rcb_worker *w;

		if (rcb_worker_of_cpu(cpu))
			continue;
		w = create(flags, cpu);
		if (!w) {
			if (errno == EINVAL)
				/* CPU offline: no thread can run there */
				continue;
			return -errno;
		}
		if (set_cpu(cpu, w) != 0) {
			int e = errno;

			data_free(w);
			/* Another thread set the CPU since our look: theirs
			 * serves it, as liburcu has it ("created by another
			 * thread"). */
			if (e == EEXIST)
				continue;
			errno = e;
			return -e;
		}
	}
	return 0;
}

RCB_API void urcu_memb_free_all_cpu_call_rcu_data(void)
{
	int n = get_nprocs_conf();

	for (int cpu = 0; cpu < n; cpu++) {
		struct rcb_worker *w = rcb_worker_of_cpu(cpu);

		/* Destroying withdraws it from every CPU it serves. */
		if (w)
			RCB__AS_LIBURCU("free_all_cpu_call_rcu_data",
					(void)rcb_worker_destroy(w));
	}
}


/*
 * rcuboost's own pthread_atfork() handlers hold the callback locks across
 * fork() and rebuild every worker's queue in the child, so liburcu's
 * manual helpers have nothing to do for callbacks; taking the locks here
 * as well would deadlock the atfork handler that follows.  They run the
 * hooks liburcu-cds registered through the flavor, which rcuboost's own
 * handlers run too: nested calls run them once (src/compat/urcu_compat.h).
 */
RCB_API void urcu_memb_call_rcu_before_fork(void)
{
	rcb__urcu_atfork_prepare(); /* liburcu-cds's hooks (urcu_compat.c) */
}

RCB_API void urcu_memb_call_rcu_after_fork_parent(void)
{
	rcb__urcu_atfork_parent(); /* liburcu-cds's hooks (urcu_compat.c) */
}

RCB_API void urcu_memb_call_rcu_after_fork_child(void)
{
	rcb__urcu_atfork_child(); /* liburcu-cds's hooks (urcu_compat.c) */
}
