/* The library's threads as /proc sees them: their TIDs (named
 * "rcuboost-..."), and their context switches (every wake-up of a
 * sleeping thread is one). */
#ifndef RCB_TEST_LIBTHREADS_H
#define RCB_TEST_LIBTHREADS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "tests/check.h"

#define LT_MAX 128

/* TIDs of this process's threads named rcuboost-*; returns how many. */
static inline int lt_list(pid_t *tids, char names[][16], int max)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	CHECK(d != NULL);
	while ((e = readdir(d)) && n < max) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* exited meanwhile */
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		if (strncmp(comm, "rcuboost", 8) != 0)
			continue;
		tids[n] = (pid_t)atoi(e->d_name);
		if (names)
			snprintf(names[n], 16, "%.15s", comm);
		n++;
	}
	closedir(d);
	return n;
}

/* voluntary + nonvoluntary context switches of @tid, or -1. */
static inline long lt_ctxt(pid_t tid)
{
	char path[64], line[128];
	long total = 0, v;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1) {
			total += v;
			found++;
		}
	}
	fclose(f);
	return found == 2 ? total : -1;
}

#endif
