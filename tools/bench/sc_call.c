/* SPDX-License-Identifier: MIT */
/*
 * Scenario "call": deferred callbacks.
 *   throughput: one or two registered threads, pinned one per CPU, each
 *     queue --calls callbacks back to back and then wait for a barrier;
 *   latency: one thread queues a callback every LAT_INTERVAL_NS and the
 *     callback stamps its invocation time.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "bench.h"

#define LAT_INTERVAL_NS 100000ull

struct call_worker {
	_Alignas(PEER_CACHELINE) const struct tool_peer *f;
	struct tool_gate *gate;
	void *nodes;
	size_t n;
	uint64_t t_start, t_queued, t_done;
};

static void *call_thread(void *arg)
{
	struct call_worker *w = arg;

	w->f->thread_register();
	tool_gate_wait(w->gate);
	w->t_start = tool_now_ns();
	w->f->call_queue(w->nodes, w->n);
	w->t_queued = tool_now_ns();
	w->f->barrier();
	w->t_done = tool_now_ns();
	w->f->thread_unregister();
	return NULL;
}

static int call_throughput(const struct tool_peer *f,
			   const struct bench_params *p, unsigned int nthreads,
			   double *out)
{
	struct call_worker w[2];
	struct tool_gate gate;
	pthread_t t[2];
	int cpus[2] = { p->cpu_a, p->cpu_b };
	size_t n = p->warmup ? p->calls / 8 + 1 : p->calls;
	uint64_t before = f->call_invoked(), first = UINT64_MAX, last = 0;
	double total = 0, enqueue = 0;

	tool_gate_init(&gate, nthreads);
	for (unsigned int i = 0; i < nthreads; i++) {
		w[i] = (struct call_worker){ .f = f, .gate = &gate, .n = n };
		w[i].nodes = f->call_alloc(n);
	}
	for (unsigned int i = 0; i < nthreads; i++)
		tool_thread_start(&t[i], cpus[i], call_thread, &w[i]);
	for (unsigned int i = 0; i < nthreads; i++)
		tool_thread_join(t[i]);
	tool_gate_destroy(&gate);
	if (f->call_invoked() - before != (uint64_t)n * nthreads) {
		fprintf(stderr,
			"rcuboost-bench: call: %s: %llu callbacks ran, %llu queued before the barrier\n",
			f->name, (unsigned long long)(f->call_invoked() - before),
			(unsigned long long)n * nthreads);
	}
	for (unsigned int i = 0; i < nthreads; i++) {
		if (w[i].t_start < first)
			first = w[i].t_start;
		if (w[i].t_done > last)
			last = w[i].t_done;
		total += (double)n;
		enqueue += (double)n * 1e9 / (double)(w[i].t_queued - w[i].t_start + 1);
		f->call_free(w[i].nodes);
	}
	out[0] = total * 1e9 / (double)(last - first + 1);
	out[1] = enqueue;
	return 0;
}

static int measure_call1(const struct tool_peer *f,
			 const struct bench_params *p, double *out)
{
	return call_throughput(f, p, 1, out);
}

static int measure_call2(const struct tool_peer *f,
			 const struct bench_params *p, double *out)
{
	return call_throughput(f, p, 2, out);
}

struct lat_job {
	const struct tool_peer *f;
	void *nodes;
	size_t cap, n;
	uint64_t duration_ns;
};

static void *lat_thread(void *arg)
{
	struct lat_job *j = arg;

	j->f->thread_register();
	j->n = j->f->call_paced(j->nodes, j->cap, LAT_INTERVAL_NS,
				tool_now_ns() + j->duration_ns);
	j->f->barrier();
	j->f->thread_unregister();
	return NULL;
}

static int measure_latency(const struct tool_peer *f,
			   const struct bench_params *p, double *out)
{
	struct lat_job j = {
		.f = f,
		.duration_ns = (uint64_t)p->duration_ms * 1000000ull,
	};
	uint64_t *lat;
	pthread_t t;

	j.cap = (size_t)(j.duration_ns / LAT_INTERVAL_NS) + 1;
	j.nodes = f->call_alloc(j.cap);
	tool_thread_start(&t, p->cpu_a, lat_thread, &j);
	tool_thread_join(t);
	lat = tool_xmalloc((j.n ? j.n : 1) * sizeof(*lat));
	f->call_latencies(j.nodes, j.n, lat);
	out[0] = tool_quantile_u64(lat, j.n, 0.5) / 1000.0;
	out[1] = tool_quantile_u64(lat, j.n, 0.99) / 1000.0;
	free(lat);
	f->call_free(j.nodes);
	return 0;
}

static const struct bench_test call_tests[] = {
	{ "call (1 thread)", measure_call1, 2, { { "call", "calls/s", BENCH_HIGHER, 1.0, "ck-epoch" },
						 { "call.enqueue", "calls/s", BENCH_HIGHER, 0, NULL } } },
	{ "call (2 threads)", measure_call2, 2,
	  { { "call.2t", "calls/s", BENCH_HIGHER, 1.0, "ck-epoch" },
	    { "call.2t.enqueue", "calls/s", BENCH_HIGHER, 0, NULL } } },
	{ "call (latency)", measure_latency, 2, { { "call.lat", "us", BENCH_LOWER, 1.0, NULL },
						  { "call.lat.p99", "us", BENCH_LOWER, 1.0, NULL } } },
};

const struct bench_scenario bench_scenario_call = {
	.name = "call",
	.help = "call: deferred callbacks (rcb_call vs call_rcu).  call / call.2t: one\n"
		"  thread, or two pinned one per CPU, each queue --calls callbacks back to back,\n"
		"  then wait in a barrier (the library's callback thread shares the CPUs).\n"
		"  Figure: callbacks/s from the first queue to the last barrier's return\n"
		"  (goal: >= 1.0x ck-epoch); .enqueue: the queueing loop alone\n"
		"  (informational).  call.lat: one thread queues a callback every 100 us and\n"
		"  sleeps in between (QSBR: offline; ck-epoch polls after each); figures:\n"
		"  median and 99th percentile queue-to-invocation latency in us (goal: <= 1.0x\n"
		"  urcu-memb).",
	BENCH_TESTS(call_tests),
};
