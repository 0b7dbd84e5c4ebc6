/* SPDX-License-Identifier: MIT */
/*
 * Scenario "readers": two readers, pinned one per CPU, read a shared
 * object in short critical sections while an unpinned updater replaces it
 * in a loop (publish the new object, wait for a grace period, poison and
 * free the old one).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define NREADERS 2

struct readers_worker {
	_Alignas(PEER_CACHELINE) const struct tool_peer *f;
	struct peer_shared *s;
	struct tool_gate *gate;
	uint64_t ops, ns;
};

static void *reader_thread(void *arg)
{
	struct readers_worker *w = arg;
	uint64_t t0;

	w->f->thread_register();
	tool_gate_wait(w->gate);
	t0 = tool_now_ns();
	w->ops = w->f->reader_loop(w->s, NULL);
	w->ns = tool_now_ns() - t0;
	w->f->thread_unregister();
	return NULL;
}

static void *updater_thread(void *arg)
{
	struct readers_worker *w = arg;
	uint64_t t0;

	tool_gate_wait(w->gate);
	t0 = tool_now_ns();
	w->ops = w->f->updater_loop(w->s);
	w->ns = tool_now_ns() - t0;
	return NULL;
}

static int measure_readers(const struct tool_peer *f,
			   const struct bench_params *p, double *out)
{
	static struct peer_shared s;
	struct readers_worker w[NREADERS + 1];
	struct tool_gate gate;
	pthread_t t[NREADERS + 1];
	int cpus[NREADERS] = { p->cpu_a, p->cpu_b };
	double reads = 0;

	s.ptr = tool_xmalloc(sizeof(*s.ptr));
	memset(s.ptr, 0, sizeof(*s.ptr));
	atomic_store(&s.stop, 0);
	atomic_store(&s.bad, 0);
	tool_gate_init(&gate, NREADERS + 2);
	for (int i = 0; i <= NREADERS; i++) {
		w[i] = (struct readers_worker){ .f = f, .s = &s, .gate = &gate };
		if (i < NREADERS)
			tool_thread_start(&t[i], cpus[i], reader_thread, &w[i]);
		else
			tool_thread_start(&t[i], -1, updater_thread, &w[i]);
	}
	tool_gate_wait(&gate);
	tool_sleep_ns((uint64_t)p->duration_ms * 1000000ull);
	atomic_store(&s.stop, 1);
	for (int i = 0; i <= NREADERS; i++)
		tool_thread_join(t[i]);
	tool_gate_destroy(&gate);
	free(s.ptr);
	s.ptr = NULL;
	if (atomic_load(&s.bad)) {
		fprintf(stderr, "rcuboost-bench: readers: %s: %lu reads saw a freed object\n",
			f->name, atomic_load(&s.bad));
	}
	for (int i = 0; i < NREADERS; i++)
		reads += (double)w[i].ops * 1e9 / (double)(w[i].ns ? w[i].ns : 1);
	out[0] = reads;
	out[1] = (double)w[NREADERS].ops * 1e9 /
		 (double)(w[NREADERS].ns ? w[NREADERS].ns : 1);
	return 0;
}

static const struct bench_test readers_tests[] = {
	{ "readers", measure_readers, 2, { { "readers", "reads/s", BENCH_HIGHER, 0.95 },
					   { "readers.updates", "updates/s", BENCH_HIGHER, 0 } } },
};

const struct bench_scenario bench_scenario_readers = {
	.name = "readers",
	.help = "readers: two readers, pinned one per CPU, load a shared object in short\n"
		"  critical sections while an unpinned updater replaces it in a loop (publish,\n"
		"  synchronize, poison and free the old one): three busy threads on two CPUs,\n"
		"  so how the updater waits for readers shapes both figures.  Figures: reads/s\n"
		"  of both readers together (goal: >= 0.95x urcu-memb) and the updater's\n"
		"  replacements/s (informational).  QSBR readers report a quiescent state\n"
		"  every 256 critical sections.",
	BENCH_TESTS(readers_tests),
};
