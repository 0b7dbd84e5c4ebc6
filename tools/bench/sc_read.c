/* SPDX-License-Identifier: MIT */
/*
 * Scenario "read": the cost of an empty read-side critical section
 * (lock + unlock), one registered thread pinned to one CPU.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#define READ_CHUNK (1u << 20)

struct read_job {
	const struct tool_peer *f;
	uint64_t duration_ns;
	double ns_per_op;
};

static void *read_worker(void *arg)
{
	struct read_job *j = arg;
	uint64_t t0, t1, done = 0;

	j->f->thread_register();
	j->f->read_pairs(READ_CHUNK / 4); /* warm the caches and the branch predictor */
	t0 = tool_now_ns();
	do {
		j->f->read_pairs(READ_CHUNK);
		done += READ_CHUNK;
		t1 = tool_now_ns();
	} while (t1 - t0 < j->duration_ns);
	j->f->thread_unregister();
	j->ns_per_op = (double)(t1 - t0) / (double)done;
	return NULL;
}

static int measure_read(const struct tool_peer *f,
			const struct bench_params *p, double *out)
{
	struct read_job j = {
		.f = f,
		.duration_ns = (uint64_t)p->duration_ms * 1000000ull,
	};
	pthread_t t;

	tool_thread_start(&t, p->cpu_a, read_worker, &j);
	tool_thread_join(t);
	out[0] = j.ns_per_op;
	return 0;
}

static const struct bench_test read_tests[] = {
	{ "read", measure_read, 1, { { "read", "ns/op", BENCH_LOWER, 1.0, NULL } } },
};

const struct bench_scenario bench_scenario_read = {
	.name = "read",
	.help = "read: one thread, pinned, runs empty read-side critical sections\n"
		"  (lock + unlock) back to back.  Figure: ns per pair.  Goal: <= 1.0x urcu-memb.",
	BENCH_TESTS(read_tests),
};
