/* Capability helpers for the privilege-drop tests: set the calling
 * thread's own sets (capset(2) on itself, as libcap-ng's capng_apply()
 * and libcap without libpsx do: the other threads keep theirs), and read
 * a thread's sets back from /proc. */
#ifndef RCB_TEST_CAPS_H
#define RCB_TEST_CAPS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/check.h"

#define CAP_BIT(cap) (1ull << (cap))

/* The calling thread's permitted and effective sets become @mask, its
 * inheritable set empty; 0 or -1 (errno). */
static inline int caps_set_self(uint64_t mask)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	for (int w = 0; w < 2; w++)
		d[w].permitted = d[w].effective = (uint32_t)(mask >> (32 * w));
	return (int)syscall(SYS_capset, &hdr, d);
}

/* Thread @tid's set @field ("CapPrm", "CapEff", ...) from
 * /proc/self/task/TID/status; the test fails if it cannot be read. */
static inline uint64_t caps_of_task(int tid, const char *field)
{
	char path[64], line[256];
	unsigned long long v = 0;
	size_t n = strlen(field);
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	CHECK(f != NULL);
	while (!found && fgets(line, sizeof(line), f))
		if (strncmp(line, field, n) == 0 && line[n] == ':')
			found = sscanf(line + n + 1, "%llx", &v) == 1;
	fclose(f);
	CHECK(found);
	return v;
}

#endif
