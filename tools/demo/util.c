/* SPDX-License-Identifier: MIT */
/* rcuboost-demo: output helpers. */
#include "demo.h"

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
