/* SPDX-License-Identifier: MIT */
/*
 * Scenario "sync": latency of one synchronize call made by a thread
 * pinned to the first CPU, back to back.
 *   idle: two registered readers that stay outside critical sections
 *         (blocked; QSBR readers offline);
 *   alone: the caller is registered and no other thread is;
 *   uperf: two unregistered updaters, one per CPU, call synchronize back
 *         to back with no reader at all (liburcu's rcutorture "uperf");
 *   busy: one reader, pinned to the second CPU, runs short critical
 *         sections without pause.  Only calls during which the reader made
 *         progress count: on a shared machine the reader is sometimes
 *         descheduled, and a grace period then needs no IPI to its CPU
 *         (fast) or waits for it to run again (slow), which would measure
 *         the other load rather than the library.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define NIDLE 2
#define MIN_SAMPLES 16
/* Enough for a thread that registers and blocks, and 10,000 of them. */
#define IDLE_STACK (64 * 1024)

struct sync_job {
	const struct tool_peer *f;
	int reg; /* register the caller */
	uint64_t duration_ns;
	_Atomic uint64_t *progress; /* busy reader's, or NULL */
	uint64_t *lat;
	size_t cap, n, skipped;
};

static void *sync_thread(void *arg)
{
	struct sync_job *j = arg;
	uint64_t start, t0, t1, p0 = 0;

	if (j->reg)
		j->f->thread_register();
	for (int i = 0; i < 4; i++)
		j->f->synchronize();
	start = tool_now_ns();
	j->n = j->skipped = 0;
	do {
		if (j->progress)
			p0 = atomic_load_explicit(j->progress, memory_order_relaxed);
		t0 = tool_now_ns();
		j->f->synchronize();
		t1 = tool_now_ns();
		if (j->progress &&
		    atomic_load_explicit(j->progress, memory_order_relaxed) == p0)
			j->skipped++;
		else
			j->lat[j->n++] = t1 - t0;
	} while (j->n < j->cap && t1 - start < 4 * j->duration_ns &&
		 (t1 - start < j->duration_ns || j->n < MIN_SAMPLES));
	if (j->reg)
		j->f->thread_unregister();
	return NULL;
}

static void sync_job_init(struct sync_job *j, const struct tool_peer *f,
			  const struct bench_params *p, _Atomic uint64_t *progress)
{
	j->f = f;
	j->reg = 0;
	j->progress = progress;
	j->duration_ns = (uint64_t)p->duration_ms * 1000000ull;
	/* Room for one call per 250 ns; a full array ends the measurement. */
	j->cap = (size_t)p->duration_ms * 4000 + MIN_SAMPLES;
	j->lat = tool_xmalloc(j->cap * sizeof(*j->lat));
	j->n = 0;
}

static int sync_job_finish(struct sync_job *j, double *out)
{
	int ret = 0;

	if (!j->n) {
		fprintf(stderr, "\nrcuboost-bench: sync: %s: the reader never ran during a call\n",
			j->f->name);
		ret = -1;
	}
	out[0] = tool_quantile_u64(j->lat, j->n, 0.5) / 1000.0;
	out[1] = tool_quantile_u64(j->lat, j->n, 0.99) / 1000.0;
	free(j->lat);
	return ret;
}

struct idle_reader {
	const struct tool_peer *f;
	struct tool_gate *ready, *quit;
};

static void *idle_thread(void *arg)
{
	struct idle_reader *r = arg;

	r->f->thread_register();
	r->f->idle_enter();
	tool_gate_wait(r->ready);
	tool_gate_wait(r->quit);
	r->f->idle_exit();
	r->f->thread_unregister();
	return NULL;
}

/* Synchronize latency with @nidle registered threads outside critical
 * sections (blocked; QSBR: offline); @reg: the caller registered too. */
int bench_sync_idle(const struct tool_peer *f, const struct bench_params *p,
		    unsigned int nidle, int reg, double *out)
{
	struct tool_gate ready, quit;
	struct idle_reader r = { .f = f, .ready = &ready, .quit = &quit };
	struct sync_job j;
	pthread_t *idle = tool_xmalloc((nidle ? nidle : 1) * sizeof(*idle)), t;
	pthread_attr_t attr;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, IDLE_STACK);
	tool_gate_init(&ready, nidle + 1);
	tool_gate_init(&quit, nidle + 1);
	for (unsigned int i = 0; i < nidle; i++) {
		err = pthread_create(&idle[i], &attr, idle_thread, &r);
		if (err) {
			fprintf(stderr, "rcuboost-bench: sync: thread %u of %u: %s\n", i + 1,
				nidle, strerror(err));
			exit(1);
		}
	}
	pthread_attr_destroy(&attr);
	tool_gate_wait(&ready);
	sync_job_init(&j, f, p, NULL);
	j.reg = reg;
	tool_thread_start(&t, p->cpu_a, sync_thread, &j);
	tool_thread_join(t);
	tool_gate_wait(&quit);
	for (unsigned int i = 0; i < nidle; i++)
		tool_thread_join(idle[i]);
	free(idle);
	tool_gate_destroy(&ready);
	tool_gate_destroy(&quit);
	return sync_job_finish(&j, out);
}

static int measure_idle(const struct tool_peer *f,
			const struct bench_params *p, double *out)
{
	return bench_sync_idle(f, p, NIDLE, 0, out);
}

static int measure_alone(const struct tool_peer *f,
			 const struct bench_params *p, double *out)
{
	return bench_sync_idle(f, p, 0, 1, out);
}

struct uperf_job {
	_Alignas(PEER_CACHELINE) const struct tool_peer *f;
	struct tool_gate *gate;
	uint64_t duration_ns, n, ns;
};

static void *uperf_thread(void *arg)
{
	struct uperf_job *u = arg;
	uint64_t t0, t1;

	u->f->synchronize();
	tool_gate_wait(u->gate);
	t0 = tool_now_ns();
	do {
		u->f->synchronize();
		u->n++;
		t1 = tool_now_ns();
	} while (t1 - t0 < u->duration_ns);
	u->ns = t1 - t0;
	return NULL;
}

/* Two updaters, no reader: time per update as rcutorture's uperf counts
 * it (elapsed time x updaters / updates). */
static int measure_uperf(const struct tool_peer *f,
			 const struct bench_params *p, double *out)
{
	struct uperf_job u[2];
	struct tool_gate gate;
	pthread_t t[2];
	int cpus[2] = { p->cpu_a, p->cpu_b };
	double ns = 0, n = 0;

	tool_gate_init(&gate, 2);
	for (int i = 0; i < 2; i++) {
		u[i] = (struct uperf_job){ .f = f, .gate = &gate,
					   .duration_ns = (uint64_t)p->duration_ms * 1000000ull };
		tool_thread_start(&t[i], cpus[i], uperf_thread, &u[i]);
	}
	for (int i = 0; i < 2; i++) {
		tool_thread_join(t[i]);
		ns += (double)u[i].ns;
		n += (double)u[i].n;
	}
	tool_gate_destroy(&gate);
	out[0] = ns / (n ? n : 1) / 1000.0;
	return 0;
}

struct busy_reader {
	const struct tool_peer *f;
	struct peer_shared *s;
	struct tool_gate *ready;
	_Alignas(PEER_CACHELINE) _Atomic uint64_t progress;
};

static void *busy_thread(void *arg)
{
	struct busy_reader *r = arg;

	r->f->thread_register();
	tool_gate_wait(r->ready);
	r->f->reader_loop(r->s, &r->progress);
	r->f->thread_unregister();
	return NULL;
}

static int measure_busy(const struct tool_peer *f,
			const struct bench_params *p, double *out)
{
	static struct peer_shared s;
	static struct peer_obj obj;
	struct tool_gate ready;
	static struct busy_reader r;
	struct sync_job j;
	pthread_t reader, t;

	r.f = f;
	r.s = &s;
	r.ready = &ready;
	atomic_store(&r.progress, 0);
	s.ptr = &obj;
	atomic_store(&s.stop, 0);
	atomic_store(&s.bad, 0);
	tool_gate_init(&ready, 2);
	tool_thread_start(&reader, p->cpu_b, busy_thread, &r);
	tool_gate_wait(&ready);
	sync_job_init(&j, f, p, &r.progress);
	tool_thread_start(&t, p->cpu_a, sync_thread, &j);
	tool_thread_join(t);
	atomic_store(&s.stop, 1);
	tool_thread_join(reader);
	tool_gate_destroy(&ready);
	return sync_job_finish(&j, out);
}

static const struct bench_test sync_tests[] = {
	{ "sync (idle readers)", measure_idle, 2, { { "sync", "us", BENCH_LOWER, 1.0, NULL },
						    { "sync.p99", "us", BENCH_LOWER, 0, NULL } } },
	{ "sync (caller alone)", measure_alone, 1,
	  { { "sync.alone", "us", BENCH_LOWER, 2.0, "ck-epoch" } } },
	{ "uperf (2 updaters)", measure_uperf, 1, { { "uperf", "us/update", BENCH_LOWER, 1.2, NULL } } },
	{ "sync (busy reader)", measure_busy, 2, { { "sync.busy", "us", BENCH_LOWER, 1.2, NULL },
						   { "sync.busy.p99", "us", BENCH_LOWER, 0, NULL } } },
};

const struct bench_scenario bench_scenario_sync = {
	.name = "sync",
	.help = "sync: a thread pinned to the first CPU calls synchronize back to back.\n"
		"  sync: two registered readers stay outside critical sections (blocked;\n"
		"  QSBR readers offline; goal <= 1.0x urcu-memb).  sync.alone: the caller is\n"
		"  the only registered thread (goal <= 2.0x ck-epoch).  uperf: two updaters,\n"
		"  one per CPU, no reader: time per update (goal <= 1.2x).  sync.busy: one\n"
		"  reader pinned to the second CPU runs short critical sections without\n"
		"  pause; only calls during which it made progress count (it may be\n"
		"  descheduled by other load; goal <= 1.2x).  Figures: median latency in us,\n"
		"  .p99 the 99th percentile.",
	BENCH_TESTS(sync_tests),
};
