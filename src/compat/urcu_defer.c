/* SPDX-License-Identifier: MIT */
/*
 * liburcu's defer_rcu() family under its urcu-memb names (declared in
 * include/rcuboost/urcu_defer.h), on top of src/callback/defer.c.
 */
#include <errno.h>

#include "core/internal.h"
#include "compat/urcu_compat.h"
#include "rcuboost/urcu_defer.h"

RCB_API void urcu_memb_defer_rcu(void (*fct)(void *p), void *p)
{
	/* -EINVAL and -EDEADLK were reported as misuse: nothing to do.
	 * Without a queue, do what liburcu does when its queue is full:
	 * wait for a grace period and run the function here. */
	int err;

	RCB__AS_LIBURCU("defer_rcu", err = rcb_defer(fct, p));
	if (err == -ENOMEM && rcb_synchronize() == 0) {
		fct(p);
		if (RCB_UNLIKELY(rcb_read_ongoing()))
			rcb__end_leaked_section("defer_rcu",
						(const void *)(uintptr_t)fct);
	}
}

RCB_API int urcu_memb_defer_register_thread(void)
{
	return rcb_defer_register_thread();
}

RCB_API void urcu_memb_defer_unregister_thread(void)
{
	(void)rcb_defer_unregister_thread();
}

RCB_API void urcu_memb_defer_barrier(void)
{
	RCB__AS_LIBURCU("defer_barrier", (void)rcb_defer_barrier());
}

RCB_API void urcu_memb_defer_barrier_thread(void)
{
	RCB__AS_LIBURCU("defer_barrier_thread", (void)rcb_defer_barrier_thread());
}

RCB_API void urcu_memb_defer_exit(void)
{
	/* Deferred functions run on the callback threads, which
	 * rcb_shutdown() stops; liburcu's destructor freed a thread of its
	 * own here. */
}
