/* SPDX-License-Identifier: MIT */
/*
 * Scenario "readers": readers, pinned alternately to the two CPUs, read a
 * shared object in short critical sections while an unpinned updater
 * replaces it:
 *   readers:        2 readers; the updater publishes the new object, waits
 *                   for a grace period, poisons and frees the old one;
 *   readers.call:   2 readers; the updater retires the old object with
 *                   call_rcu, one replacement every CALL_INTERVAL_NS;
 *   retire:         1 reader; the updater does --calls replace+retire back
 *                   to back, then a barrier: total time and peak RSS;
 *   retire.paced:   1 reader; the updater does replace+retire at a rate
 *                   below every library's back-to-back rate, so the
 *                   reader's cache misses (one or two per replacement)
 *                   are the same for all: reads/s then compare what each
 *                   library itself costs the reader;
 * and, for the scenario "scale", N readers while the updater calls
 * synchronize back to back and keeps the worst.
 */
#define _GNU_SOURCE /* malloc_trim */
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "bench.h"

#define CALL_INTERVAL_NS 10000ull
/* retire.paced: 2 M replacements/s, below the back-to-back rate of every
 * library here (2.7-4 M/s on the 2-CPU VM). */
#define RETIRE_RATE_INTERVAL_NS 500ull

struct readers_worker {
	_Alignas(PEER_CACHELINE) const struct tool_peer *f;
	struct peer_shared *s;
	struct tool_gate *gate;
	const struct bench_params *p;
	enum bench_upd_mode mode;
	uint64_t ops, ns, cpu_ns; /* cpu_ns: the thread's own CPU time */
	double extra; /* updater: median callback latency or worst sync (us) */
};

static uint64_t cpu_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	return cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void *reader_thread(void *arg)
{
	struct readers_worker *w = arg;
	uint64_t t0, c0;

	w->f->thread_register();
	tool_gate_wait(w->gate);
	t0 = tool_now_ns();
	c0 = thread_cpu_ns();
	w->ops = w->f->reader_loop(w->s, NULL);
	w->cpu_ns = thread_cpu_ns() - c0;
	w->ns = tool_now_ns() - t0;
	w->f->thread_unregister();
	return NULL;
}

static uint64_t worst_sync_loop(struct readers_worker *w)
{
	uint64_t n = 0, worst = 0;

	do { /* at least once: the updater may start late among many readers */
		uint64_t t0 = tool_now_ns(), d;

		w->f->synchronize();
		d = tool_now_ns() - t0;
		worst = d > worst ? d : worst;
		n++;
	} while (!atomic_load_explicit(&w->s->stop, memory_order_relaxed));
	w->extra = (double)worst / 1000.0;
	return n;
}

static void *updater_thread(void *arg)
{
	struct readers_worker *w = arg;
	struct peer_retire r = { 0 };
	uint64_t t0, c0;

	/* Wake up on time for a 10 us period (the default slack is 50 us). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (w->mode == UPD_CALL_PACED) {
		r.interval_ns = CALL_INTERVAL_NS;
		r.cap = (size_t)(4ull * w->p->duration_ms * 1000000ull / CALL_INTERVAL_NS) + 1;
		r.lat = tool_xmalloc(r.cap * sizeof(*r.lat));
	} else if (w->mode == UPD_RETIRE_ALL) {
		r.max = w->p->warmup ? w->p->calls / 8 + 1 : w->p->calls;
	} else if (w->mode == UPD_RETIRE_RATE) {
		r.interval_ns = RETIRE_RATE_INTERVAL_NS;
		r.spin = 1;
	}
	if (w->mode != UPD_SYNC_FREE && w->mode != UPD_SYNC_WORST)
		w->f->thread_register();
	tool_gate_wait(w->gate);
	t0 = tool_now_ns();
	c0 = thread_cpu_ns();
	if (w->mode == UPD_SYNC_FREE)
		w->ops = w->f->updater_loop(w->s);
	else if (w->mode == UPD_SYNC_WORST)
		w->ops = worst_sync_loop(w);
	else
		w->ops = w->f->retire_loop(w->s, &r);
	w->cpu_ns = thread_cpu_ns() - c0;
	w->ns = tool_now_ns() - t0;
	if (r.lat)
		w->extra = tool_quantile_u64(r.lat, r.nlat, 0.5) / 1000.0;
	free(r.lat);
	if (w->mode != UPD_SYNC_FREE && w->mode != UPD_SYNC_WORST)
		w->f->thread_unregister();
	return NULL;
}

/* kB of a "Name:   N kB" line of /proc/self/status; NaN if absent. */
static double status_kb(const char *name)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	double v = NAN;
	size_t len = strlen(name);

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':')
			v = strtod(line + len + 1, NULL);
	if (f)
		fclose(f);
	return v;
}

/* Give freed memory back and restart the peak RSS count (clear_refs 5,
 * Linux 4.0); returns the RSS now, in kB. */
static double rss_reset(void)
{
	FILE *f;

	malloc_trim(0);
	f = fopen("/proc/self/clear_refs", "w");
	if (f) {
		fputs("5", f);
		fclose(f);
	}
	return status_kb("VmRSS");
}

/* @nreaders readers and an updater in @mode; out[0] reads/s, out[1]
 * updates/s, out[2] the updater's extra, out[3] peak RSS growth (MiB,
 * UPD_RETIRE_ALL only), out[4] reads per second of the readers' own CPU
 * time (UPD_RETIRE_ALL and UPD_RETIRE_RATE only). */
void bench_readers_run(const struct tool_peer *f, const struct bench_params *p,
		       unsigned int nreaders, enum bench_upd_mode mode, double *out)
{
	static struct peer_shared s;
	static struct readers_worker w[BENCH_MAX_READERS + 1];
	static pthread_t t[BENCH_MAX_READERS + 1];
	struct readers_worker *u = &w[nreaders];
	struct tool_gate gate;
	int cpus[2] = { p->cpu_a, p->cpu_b };
	double reads = 0, rss0 = 0, reads_cpu = 0;
	uint64_t wall0, proc0, main0, others;

	s.ptr = tool_xmalloc(sizeof(*s.ptr));
	memset(s.ptr, 0, sizeof(*s.ptr));
	atomic_store(&s.stop, 0);
	atomic_store(&s.bad, 0);
	if (mode == UPD_RETIRE_ALL)
		rss0 = rss_reset();
	tool_gate_init(&gate, nreaders + 2);
	for (unsigned int i = 0; i <= nreaders; i++) {
		w[i] = (struct readers_worker){ .f = f, .s = &s, .gate = &gate, .p = p,
						.mode = mode };
		if (i < nreaders)
			tool_thread_start(&t[i], cpus[i % 2], reader_thread, &w[i]);
		else
			tool_thread_start(&t[i], -1, updater_thread, &w[i]);
	}
	tool_gate_wait(&gate);
	wall0 = tool_now_ns();
	proc0 = cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	main0 = thread_cpu_ns();
	if (mode == UPD_RETIRE_ALL)
		tool_thread_join(t[nreaders]);
	else
		tool_sleep_ns((uint64_t)p->duration_ms * 1000000ull);
	atomic_store(&s.stop, 1);
	for (unsigned int i = 0; i < nreaders + (mode != UPD_RETIRE_ALL); i++)
		tool_thread_join(t[i]);
	/* The process's CPU time but this thread's and the workers' loops:
	 * the library's threads (and the workers' few steps outside their
	 * loops). */
	others = cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - proc0 - (thread_cpu_ns() - main0);
	for (unsigned int i = 0; i <= nreaders; i++)
		others -= others > w[i].cpu_ns ? w[i].cpu_ns : others;
	tool_gate_destroy(&gate);
	if (mode == UPD_RETIRE_ALL)
		out[3] = (status_kb("VmHWM") - rss0) / 1024.0;
	free(s.ptr);
	s.ptr = NULL;
	if (atomic_load(&s.bad)) {
		fprintf(stderr, "rcuboost-bench: readers: %s: %lu reads saw a freed object\n",
			f->name, atomic_load(&s.bad));
	}
	for (unsigned int i = 0; i < nreaders; i++) {
		reads += (double)w[i].ops * 1e9 / (double)(w[i].ns ? w[i].ns : 1);
		reads_cpu += (double)w[i].ops * 1e9 / (double)(w[i].cpu_ns ? w[i].cpu_ns : 1);
	}
	if (mode == UPD_RETIRE_ALL || mode == UPD_RETIRE_RATE) {
		out[4] = reads_cpu;
		out[5] = (double)others / 1e6 / ((double)(tool_now_ns() - wall0) / 1e9);
	}
	out[0] = reads;
	out[1] = (double)u->ops * 1e9 / (double)(u->ns ? u->ns : 1);
	out[2] = mode == UPD_RETIRE_ALL ? (double)u->ns / 1e6 : u->extra;
}

static int measure_readers(const struct tool_peer *f,
			   const struct bench_params *p, double *out)
{
	bench_readers_run(f, p, 2, UPD_SYNC_FREE, out);
	return 0;
}

static int measure_call(const struct tool_peer *f,
			const struct bench_params *p, double *out)
{
	bench_readers_run(f, p, 2, UPD_CALL_PACED, out);
	return 0;
}

static int measure_retire(const struct tool_peer *f,
			  const struct bench_params *p, double *out)
{
	double v[6];

	bench_readers_run(f, p, 1, UPD_RETIRE_ALL, v);
	out[0] = v[0];
	out[1] = v[2];
	out[2] = v[3];
	out[3] = v[4];
	return 0;
}

static int measure_retire_paced(const struct tool_peer *f,
				const struct bench_params *p, double *out)
{
	double v[6];

	bench_readers_run(f, p, 1, UPD_RETIRE_RATE, v);
	out[0] = v[0];
	out[1] = v[1];
	out[2] = v[4];
	out[3] = v[5];
	return 0;
}

static const struct bench_test readers_tests[] = {
	{ "readers", measure_readers, 2, { { "readers", "reads/s", BENCH_HIGHER, 0.95, NULL },
					   { "readers.updates", "updates/s", BENCH_HIGHER, 0,
					     NULL } } },
	{ "readers (call_rcu updater)", measure_call, 3,
	  { { "readers.call", "reads/s", BENCH_HIGHER, 0.95, NULL },
	    { "readers.call.upd", "updates/s", BENCH_HIGHER, 0, NULL },
	    { "readers.call.lat", "us", BENCH_LOWER, 0, NULL } } },
	{ "retire (1 reader)", measure_retire, 4,
	  { { "retire.reads", "reads/s", BENCH_HIGHER, 0.95, NULL },
	    { "retire.total", "ms", BENCH_LOWER, 1.0, "ck-epoch" },
	    { "retire.rss", "MiB", BENCH_LOWER, 1.0, NULL },
	    { "retire.reads.cpu", "reads/cpu-s", BENCH_HIGHER, 0, NULL } } },
	{ "retire, paced (1 reader)", measure_retire_paced, 4,
	  { { "retire.paced", "reads/s", BENCH_HIGHER, 0.95, NULL },
	    { "retire.paced.upd", "updates/s", BENCH_HIGHER, 0, NULL },
	    { "retire.paced.cpu", "reads/cpu-s", BENCH_HIGHER, 0, NULL },
	    { "retire.paced.lib", "ms/s", BENCH_LOWER, 0, NULL } } },
};

const struct bench_scenario bench_scenario_readers = {
	.name = "readers",
	.help = "readers: readers, pinned alternately to the two CPUs, load a shared object\n"
		"  in short critical sections while an unpinned updater replaces it.\n"
		"  readers: 2 readers; the updater publishes, synchronizes, poisons and frees\n"
		"  the old object (three busy threads on two CPUs).  Figures: reads/s of both\n"
		"  readers (goal: >= 0.95x urcu-memb), replacements/s.  readers.call: the\n"
		"  updater retires the old object with call_rcu, one every 10 us (reads/s,\n"
		"  goal >= 0.95x; updates/s; .lat: median queue-to-callback latency, goal\n"
		"  <= 100 us).  retire: 1 reader while the updater does --calls\n"
		"  replace+retire back to back then a barrier: reads/s, total ms (goal <= 1.0x\n"
		"  ck-epoch), peak RSS growth in MiB (goal <= 1.0x).  retire.paced: the same\n"
		"  at 2 M replacements/s for every library (the clock spun), below each one's\n"
		"  back-to-back rate: reads/s (goal >= 0.95x) at equal cache misses per second\n"
		"  (a faster back-to-back updater costs its reader more misses), and the\n"
		"  updates/s reached.  QSBR readers report a quiescent state every 256\n"
		"  critical sections; ck-epoch's updater polls.  .cpu: the reader's reads per\n"
		"  second of its own CPU time (how much each read costs, whatever share of\n"
		"  the CPU the scheduler left it).  retire.paced.lib: CPU time of the\n"
		"  library's own threads (callback thread, booster), ms per second of the\n"
		"  run: the share the reader and updater could not have.",
	BENCH_TESTS(readers_tests),
};
