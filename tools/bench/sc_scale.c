/* SPDX-License-Identifier: MIT */
/*
 * Scenario "scale", run only when named: how each library's costs grow
 *   with readers: N (1 ... 256) readers pinned alternately to the two
 *     CPUs read while an unpinned updater calls synchronize back to back
 *     (bench_readers_run()): reads/s and the worst synchronize;
 *   with the registry: the grace-period latency (median synchronize) with
 *     N (10 ... 10,000) registered threads blocked outside critical
 *     sections (bench_sync_idle()), each on a 64 KiB stack.
 * --quick stops at 16 readers and 100 registered threads (the larger
 * runs are then absent), to keep the smoke test short.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#define QUICK_MAX_READERS 16
#define QUICK_MAX_IDLE 100

static int scale_readers(const struct tool_peer *f, const struct bench_params *p,
			 unsigned int n, double *out)
{
	double v[4];

	if (p->quick && n > QUICK_MAX_READERS)
		return -1;
	bench_readers_run(f, p, n, UPD_SYNC_WORST, v);
	out[0] = v[0];
	out[1] = v[2];
	return 0;
}

static int scale_idle(const struct tool_peer *f, const struct bench_params *p,
		      unsigned int n, double *out)
{
	if (p->quick && n > QUICK_MAX_IDLE)
		return -1;
	return bench_sync_idle(f, p, n, 0, out);
}

/* X(count, tag) */
#define SCALE_READERS(X) X(1, 1) X(2, 2) X(4, 4) X(16, 16) X(64, 64) X(256, 256)
#define SCALE_IDLE(X) X(10, 10) X(100, 100) X(1000, 1k) X(10000, 10k)

#define SCALE_FN(kind, n, tag)                                                        \
	static int measure_##kind##tag(const struct tool_peer *f,                    \
				       const struct bench_params *p, double *out)    \
	{                                                                             \
		return scale_##kind(f, p, n, out);                                    \
	}
#define READERS_FN(n, tag) SCALE_FN(readers, n, tag)
#define IDLE_FN(n, tag) SCALE_FN(idle, n, tag)
SCALE_READERS(READERS_FN)
SCALE_IDLE(IDLE_FN)

#define READERS_TEST(n, tag)                                                          \
	{ #n " readers", measure_readers##tag, 2,                                     \
	  { { "scale.r" #tag, "reads/s", BENCH_HIGHER, 0, NULL },                     \
	    { "scale.r" #tag ".sync.max", "us", BENCH_LOWER, 0, NULL } } },
#define IDLE_TEST(n, tag)                                                             \
	{ #n " registered", measure_idle##tag, 2,                                     \
	  { { "scale.gp" #tag, "us", BENCH_LOWER, 0, NULL },                          \
	    { "scale.gp" #tag ".p99", "us", BENCH_LOWER, 0, NULL } } },

static const struct bench_test scale_tests[] = {
	SCALE_READERS(READERS_TEST)
	SCALE_IDLE(IDLE_TEST)
};

const struct bench_scenario bench_scenario_scale = {
	.name = "scale",
	.help = "scale (run only when named): scale.rN: N readers (1, 2, 4, 16, 64, 256),\n"
		"  pinned alternately to the two CPUs, read while an unpinned thread calls\n"
		"  synchronize back to back: reads/s and the worst synchronize (us).\n"
		"  scale.gpN: median and 99th percentile synchronize (us) with N (10, 100,\n"
		"  1k, 10k) registered threads blocked outside critical sections.  Informational\n"
		"  (no goal).  --quick stops at 16 readers and 100 threads.",
	.named_only = 1,
	BENCH_TESTS(scale_tests),
};
