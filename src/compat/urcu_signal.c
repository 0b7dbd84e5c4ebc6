/* SPDX-License-Identifier: MIT */
/*
 * liburcu's signal flavor exported by librcuboost
 * (include/rcuboost/urcu_signal.h): the functions every memb-class
 * flavor has (urcu_flavor.h) over the signal domain, and its
 * unregistration.
 */
#define _GNU_SOURCE
#define RCB_URCU_STANDALONE /* never a liburcu header in the library */
#include "rcuboost/urcu_signal.h"

#define RCB__UF(name) urcu_signal_##name
#define UF_DOM RCB__DOM_SIGNAL
#include "compat/urcu_flavor.h"

RCB_API void urcu_signal_unregister_thread(void)
{
	int err;

	if (rcb__dom_read_ongoing(UF_DOM)) {
		rcb__misuse("rcu_unregister_thread",
			    "called inside a read-side critical section of the signal flavor; "
			    "the thread stays registered");
		return;
	}
	RCB__AS_LIBURCU("rcu_unregister_thread", err = rcb__dom_unregister(UF_DOM));
	/* liburcu asserts; its void call cannot return -ENOENT. */
	if (err == -ENOENT)
		rcb__misuse("rcu_unregister_thread",
			    "the thread is not registered with the signal flavor; nothing done");
}
