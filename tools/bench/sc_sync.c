/* SPDX-License-Identifier: MIT */
/*
 * Scenario "sync": back-to-back synchronize on the first CPU beside two
 * idle readers, nothing, a second caller (uperf), or a busy reader (whose
 * progress a call must see: a descheduled reader needs no IPI).
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sys/syscall.h>

#include "bench.h"

#define MIN_SAMPLES 16

enum { IDLE, ALONE, UPERF, BUSY };

struct job {
	const struct tool_peer *f;
	int reg;
	uint64_t dur, ns;
	_Atomic uint64_t *progress; /* the busy reader's, or NULL */
	uint64_t *lat;
	size_t cap, n;
};

static void *caller(void *arg)
{
	struct job *j = arg;
	uint64_t start, t0, t1, p0 = 0;

	if (j->reg)
		j->f->thread_register();
	for (int i = 0; i < 4; i++)
		j->f->synchronize();
	start = t1 = tool_now_ns();
	while (j->n < j->cap && t1 - start < 4 * j->dur &&
	       (t1 - start < j->dur || j->n < MIN_SAMPLES)) {
		if (j->progress)
			p0 = atomic_load_explicit(j->progress,
						  memory_order_relaxed);
		t0 = tool_now_ns();
		j->f->synchronize();
		t1 = tool_now_ns();
		if (!j->progress ||
		    atomic_load_explicit(j->progress, memory_order_relaxed) !=
			    p0)
			j->lat[j->n++] = t1 - t0;
	}
	j->ns = t1 - start;
	if (j->reg)
		j->f->thread_unregister();
	return NULL;
}

/* What runs beside the callers. */
static struct {
	const struct tool_peer *f;
	struct tool_gate ready;
	struct peer_shared s;
	_Alignas(PEER_CACHELINE) _Atomic uint64_t progress;
	_Atomic int quit;
} bg;

static void *idle_thread(void *arg UNUSED)
{
	bg.f->thread_register();
	bg.f->idle_enter();
	tool_gate_wait(&bg.ready);
	while (!atomic_load(&bg.quit))
		bench_futex_wait(&bg.quit, 0, 1000);
	bg.f->idle_exit();
	bg.f->thread_unregister();
	return NULL;
}

static void *busy_thread(void *arg UNUSED)
{
	bg.f->thread_register();
	tool_gate_wait(&bg.ready);
	bg.f->reader_loop(&bg.s, &bg.progress);
	bg.f->thread_unregister();
	return NULL;
}

/* @kind beside @nidle idle threads: median and p99 latency in us (uperf:
 * the time per update), or -1 if no call counted. */
static int sync_run(const struct tool_peer *f, const struct bench_params *p,
		    int kind, unsigned int nidle, double *out)
{
	static struct peer_obj obj;
	unsigned int nbg = kind == BUSY ? 1 : nidle,
		     ncall = 1 + (kind == UPERF);
	pthread_t *th = tool_xmalloc((nbg + 1) * sizeof(*th)), t[2];
	int cpus[2] = { p->cpu_a, p->cpu_b };
	struct job j[2];
	pthread_attr_t attr;

	memset(&bg, 0, sizeof(bg));
	bg.f = f;
	bg.s.ptr = &obj;
	tool_gate_init(&bg.ready, nbg + 1);
	pthread_attr_init(&attr);
	/* Enough for a thread that registers and blocks; 10,000 of them. */
	pthread_attr_setstacksize(&attr, 64 * 1024);
	if (kind == BUSY)
		tool_attr_pin(&attr, p->cpu_b);
	for (unsigned int i = 0; i < nbg; i++) {
		if (pthread_create(&th[i], &attr,
				   kind == BUSY ? busy_thread : idle_thread,
				   NULL)) {
			fprintf(stderr, "rcuboost-bench: sync: no thread %u\n",
				i + 1);
			exit(1);
		}
	}
	pthread_attr_destroy(&attr);
	tool_gate_wait(&bg.ready);
	for (unsigned int c = 0; c < ncall; c++) {
		j[c] = (struct job){ .f = f, .reg = kind == ALONE,
				     .dur = p->duration_ms * 1000000ull,
				     .progress = kind == BUSY ? &bg.progress :
								NULL };
		/* Room for a call per 250 ns; a full array ends the run. */
		j[c].cap = (size_t)p->duration_ms * 4000 + MIN_SAMPLES;
		j[c].lat = tool_xmalloc(j[c].cap * sizeof(*j[c].lat));
		tool_thread_start(&t[c], cpus[c], caller, &j[c]);
	}
	for (unsigned int c = 0; c < ncall; c++)
		tool_thread_join(t[c]);
	atomic_store(&bg.s.stop, 1);
	atomic_store(&bg.quit, 1);
	syscall(SYS_futex, (int *)&bg.quit, FUTEX_WAKE_PRIVATE, INT_MAX, NULL,
		NULL, 0);
	for (unsigned int i = 0; i < nbg; i++)
		tool_thread_join(th[i]);
	tool_gate_destroy(&bg.ready);
	free(th);
	out[0] = tool_quantile_u64(j[0].lat, j[0].n, 0.5) / 1000.0;
	out[1] = tool_quantile_u64(j[0].lat, j[0].n, 0.99) / 1000.0;
	if (kind == UPERF)
		out[0] = (double)(j[0].ns + j[1].ns) / 1000.0 /
			 (double)(j[0].n + j[1].n);
	for (unsigned int c = 0; c < ncall; c++)
		free(j[c].lat);
	if (!j[0].n)
		fprintf(stderr, "\nrcuboost-bench: sync: %s: the reader never "
				"ran during a call\n", f->name);
	return j[0].n ? 0 : -1;
}

/* @arg: a kind, or (scale) a number of idle threads, at most 100 with
 * --quick. */
int bench_sync_measure(const struct tool_peer *f, const struct bench_params *p,
		       int arg, double *out)
{
	if (arg > BUSY)
		return p->quick && arg > 100 ? -1 :
		       sync_run(f, p, IDLE, (unsigned int)arg, out);
	return sync_run(f, p, arg, arg == IDLE ? 2 : 0, out);
}

static const struct bench_test sync_tests[] = {
	{ "sync (idle readers)", bench_sync_measure, IDLE, 2,
	  { { "sync", "us", BENCH_LOWER, 1.0, NULL },
	    { "sync.p99", "us", BENCH_LOWER, 0, NULL } } },
	{ "sync (caller alone)", bench_sync_measure, ALONE, 1,
	  { { "sync.alone", "us", BENCH_LOWER, 2.0, "ck-epoch" } } },
	{ "uperf (2 updaters)", bench_sync_measure, UPERF, 1,
	  { { "uperf", "us/update", BENCH_LOWER, 1.2, NULL } } },
	{ "sync (busy reader)", bench_sync_measure, BUSY, 2,
	  { { "sync.busy", "us", BENCH_LOWER, 1.2, NULL },
	    { "sync.busy.p99", "us", BENCH_LOWER, 0, NULL } } },
};

const struct bench_scenario bench_sc_sync = { "sync",
	"synchronize beside idle, no, busy readers; two updaters",
	0, BENCH_TESTS(sync_tests) };
