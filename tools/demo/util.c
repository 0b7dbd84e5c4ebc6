/* SPDX-License-Identifier: MIT */
/* rcuboost-demo: time, random numbers, output helpers. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>
#include <time.h>

#include "demo.h"

uint64_t demo_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void demo_sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* xorshift64*; @state must not be 0. */
uint64_t demo_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

FILE *demo_json_open(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, "rcuboost-demo: cannot write %s: %s\n", path,
			strerror(errno));
	return f;
}

int demo_json_close(FILE *f, const char *path)
{
	if (fclose(f) != 0) {
		int err = errno;

		fprintf(stderr, "rcuboost-demo: cannot write %s: %s\n", path,
			strerror(err));
		return -err;
	}
	return 0;
}

const char *demo_bytes(uint64_t bytes, char *buf, size_t len)
{
	if (bytes < 1024)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else if (bytes < 1024 * 1024)
		snprintf(buf, len, "%.1f KiB", (double)bytes / 1024);
	else
		snprintf(buf, len, "%.1f MiB", (double)bytes / (1024 * 1024));
	return buf;
}
