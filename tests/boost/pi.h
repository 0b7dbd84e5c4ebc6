/* Helpers for the pi backend's tests: the kernel's effective priority
 * of a thread (what priority inheritance changes), next to the normal
 * attributes that sched_getattr reports (which the pi backend never
 * changes). */
#ifndef RCB_TEST_PI_H
#define RCB_TEST_PI_H

#include "tests/boost/rt.h"

/* Field 18 of /proc/self/task/TID/stat: -1 - rtprio for real-time
 * priority rtprio, 20 + nice otherwise.  Effective (inherited)
 * priority included.  -1000 if unreadable. */
static inline int pi_kernel_prio(pid_t tid)
{
	char path[64], buf[512], *p;
	int prio = -1000;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1000;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* Fields after the name: 3 (state) ... 18 (priority). */
		int field = 2;

		for (p++; *p && field < 18; p++)
			if (*p == ' ')
				field++;
		if (field == 18)
			prio = atoi(p);
	}
	fclose(f);
	return prio;
}

static inline int pi_prio_of_rt(int rtprio)
{
	return -1 - rtprio;
}

#endif
