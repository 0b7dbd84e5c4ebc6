/* SPDX-License-Identifier: MIT */
/*
 * Scenarios of readers: read (empty sections on one thread), readers
 * (readers pinned alternately to the two CPUs beside an unpinned updater:
 * bench_readers_run(), also for fifo64 and follow), scale.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <sys/prctl.h>

#include "bench.h"

struct worker {
	_Alignas(PEER_CACHELINE) const struct tool_peer *f;
	struct peer_shared *s;
	struct tool_gate *gate;
	const struct bench_params *p;
	enum bench_upd_mode mode;
	uint64_t ops, ns, cpu_ns; /* cpu_ns: the thread's own CPU time */
	uint64_t deadline;        /* UPD_FIFO */
	double extra; /* updater: median callback latency or worst sync, us */
};

static uint64_t cpu_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Synchronize back to back and keep the worst; UPD_FIFO: replace the
 * object around each, until the deadline, its hard time bound. */
static uint64_t worst_sync_loop(struct worker *w)
{
	uint64_t n = 0, worst = 0, t0;

	do { /* at least once: the updater may start late among readers */
		struct peer_obj *p, *old = NULL;

		if (w->mode == UPD_FIFO) {
			p = tool_xmalloc(sizeof(*p));
			memset(p, 0, sizeof(*p));
			p->seq = n + 1;
			old = __atomic_exchange_n(&w->s->ptr, p,
						  __ATOMIC_SEQ_CST);
		}
		t0 = tool_now_ns();
		w->f->synchronize();
		t0 = tool_now_ns() - t0;
		worst = t0 > worst ? t0 : worst;
		n++;
		if (old) {
			old->seq = PEER_POISON;
			free(old);
		}
	} while (w->mode == UPD_FIFO ? tool_now_ns() < w->deadline :
		 !atomic_load_explicit(&w->s->stop, memory_order_relaxed));
	w->extra = (double)worst / 1000.0;
	return n;
}

static void *worker_thread(void *arg)
{
	struct worker *w = arg;
	struct peer_retire r = { 0 };
	int reg = !w->p || w->mode <= UPD_RETIRE_RATE; /* readers, retirers */
	uint64_t t0, c0;

	/* Wake up on time for a 10 us period (the default slack: 50 us). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (w->p) {
		/* 2 M/s: below the back-to-back rate of every library here
		 * (2.7-4 M/s on the 2-CPU VM), the clock spun. */
		r.spin = w->mode == UPD_RETIRE_RATE;
		r.interval_ns = r.spin ? 500 : w->mode ? 0 : 10000;
		r.max = w->mode != UPD_RETIRE_ALL ? 0 :
			w->p->warmup ? w->p->calls / 8 + 1 : w->p->calls;
		r.cap = w->mode ? 0 : 4 * w->p->duration_ms * 100ul + 1;
		r.lat = r.cap ? tool_xmalloc(r.cap * sizeof(*r.lat)) : NULL;
	}
	if (w->p && w->mode == UPD_FIFO)
		w->f->synchronize(); /* the lazy initialisation, if any */
	if (reg)
		w->f->thread_register();
	tool_gate_wait(w->gate);
	t0 = tool_now_ns();
	c0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	if (!w->p)
		w->ops = w->f->reader_loop(w->s, NULL);
	else if (w->mode == UPD_SYNC_FREE)
		w->ops = w->f->updater_loop(w->s);
	else if (w->mode == UPD_SYNC_WORST || w->mode == UPD_FIFO)
		w->ops = worst_sync_loop(w);
	else
		w->ops = w->f->retire_loop(w->s, &r);
	w->cpu_ns = cpu_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	w->ns = tool_now_ns() - t0;
	if (r.lat)
		w->extra = tool_quantile_u64(r.lat, r.nlat, 0.5) / 1000.0;
	free(r.lat);
	if (reg)
		w->f->thread_unregister();
	return NULL;
}

long bench_readers_run(const struct tool_peer *f, const struct bench_params *p,
		       unsigned int nreaders, enum bench_upd_mode mode,
		       double *out)
{
	static struct peer_shared s;
	static struct worker w[BENCH_MAX_READERS + 1];
	static pthread_t t[BENCH_MAX_READERS + 1];
	struct worker *u = &w[nreaders]; /* the updater; readers: p NULL */
	struct tool_gate gate;
	pthread_attr_t attr;
	int cpus[2] = { p->cpu_a, p->cpu_b }, fifo = mode == UPD_FIFO, err = 0;
	int all = mode == UPD_RETIRE_ALL || fifo; /* the updater stops */
	double rss0 = 0, dt;
	uint64_t wall0, proc0, main0, others;

	s.ptr = tool_xmalloc(sizeof(*s.ptr));
	memset(s.ptr, 0, sizeof(*s.ptr));
	atomic_store(&s.stop, 0);
	atomic_store(&s.bad, 0);
	if (mode == UPD_RETIRE_ALL) {
		/* Give freed memory back and restart the peak RSS count
		 * (clear_refs 5, Linux 4.0). */
		FILE *cr = fopen("/proc/self/clear_refs", "w");

		malloc_trim(0);
		if (cr && fputs("5", cr) >= 0)
			fclose(cr);
		rss0 = bench_status_kb("VmRSS");
	}
	tool_gate_init(&gate, nreaders + 2);
	for (unsigned int i = 0; i <= nreaders; i++)
		w[i] = (struct worker){ .f = f, .s = &s, .gate = &gate,
					.p = i < nreaders ? NULL : p,
					.mode = mode };
	/* The updater first: UPD_FIFO's is SCHED_FIFO 10 on CPU 0. */
	pthread_attr_init(&attr);
	if (fifo && (err = tool_attr_pin(&attr, 0)) == 0)
		err = tool_attr_sched(&attr, SCHED_FIFO, 10);
	if (!err)
		err = pthread_create(&t[nreaders], &attr, worker_thread, u);
	pthread_attr_destroy(&attr);
	if (err) {
		tool_gate_destroy(&gate);
		return -1;
	}
	for (unsigned int i = 0; i < nreaders; i++)
		tool_thread_start(&t[i], fifo ? -1 : cpus[i % 2], worker_thread,
				  &w[i]);
	/* Before the gate opens; the updater reads it after (gate mutex). */
	u->deadline = tool_now_ns() + p->duration_ms * 1000000ull;
	tool_gate_wait(&gate);
	wall0 = tool_now_ns();
	proc0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	main0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	if (all)
		tool_thread_join(t[nreaders]);
	else
		tool_sleep_ns(p->duration_ms * 1000000ull);
	atomic_store(&s.stop, 1);
	for (unsigned int i = 0; i < nreaders + !all; i++)
		tool_thread_join(t[i]);
	/* The process's CPU time but this thread's and the workers' loops:
	 * the library's threads (and the workers' steps outside them). */
	others = cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - proc0 -
		 (cpu_ns(CLOCK_THREAD_CPUTIME_ID) - main0);
	dt = (double)(tool_now_ns() - wall0) / 1e9;
	out[0] = out[4] = 0;
	for (unsigned int i = 0; i <= nreaders; i++) {
		others -= others > w[i].cpu_ns ? w[i].cpu_ns : others;
		out[0] += i < nreaders ? (double)w[i].ops * 1e9 /
						 (double)(w[i].ns + !w[i].ns) :
					 0;
		out[4] += i < nreaders ? (double)w[i].ops * 1e9 /
						 (double)(w[i].cpu_ns + 1) : 0;
	}
	out[1] = (double)u->ops * 1e9 / (double)(u->ns + !u->ns);
	out[2] = mode == UPD_RETIRE_ALL ? (double)u->ns / 1e6 : u->extra;
	out[3] = (bench_status_kb("VmHWM") - rss0) / 1024.0;
	out[5] = (double)others / 1e6 / dt;
	tool_gate_destroy(&gate);
	free(s.ptr);
	s.ptr = NULL;
	if (atomic_load(&s.bad))
		fprintf(stderr, "rcuboost-bench: %s: %lu reads saw a freed "
				"object\n", f->name, atomic_load(&s.bad));
	return (long)atomic_load(&s.bad);
}

/* The tests of bench_readers_run(): readers, mode, the out[] they keep;
 * @arg: the index, or the number of readers negated for the last (at
 * most 16 with --quick). */
static const struct {
	unsigned int n;
	enum bench_upd_mode mode;
	const char *keep;
} rr[] = { { 2, UPD_SYNC_FREE, "01" },	 { 2, UPD_CALL_PACED, "012" },
	   { 1, UPD_RETIRE_ALL, "0234" }, { 1, UPD_RETIRE_RATE, "0145" },
	   { 0, UPD_SYNC_WORST, "02" } };

static int measure_rr(const struct tool_peer *f, const struct bench_params *p,
		      int arg, double *out)
{
	unsigned int k = arg < 0 ? 4 : (unsigned int)arg;
	unsigned int n = arg < 0 ? (unsigned int)-arg : rr[k].n;
	double v[6];

	if (p->quick && n > 16)
		return -1;
	bench_readers_run(f, p, n, rr[k].mode, v);
	for (int i = 0; rr[k].keep[i]; i++)
		out[i] = v[rr[k].keep[i] - '0'];
	return 0;
}

#define HI BENCH_HIGHER
#define LO BENCH_LOWER

static const struct bench_test readers_tests[] = {
	{ "readers", measure_rr, 0, 2,
	  { { "readers", "reads/s", HI, 0.95, NULL },
	    { "readers.updates", "updates/s", HI, 0, NULL } } },
	{ "readers (call_rcu updater)", measure_rr, 1, 3,
	  { { "readers.call", "reads/s", HI, 0.95, NULL },
	    { "readers.call.upd", "updates/s", HI, 0, NULL },
	    { "readers.call.lat", "us", LO, 0, NULL } } },
	{ "retire (1 reader)", measure_rr, 2, 4,
	  { { "retire.reads", "reads/s", HI, 0.95, NULL },
	    { "retire.total", "ms", LO, 1.0, "ck-epoch" },
	    { "retire.rss", "MiB", LO, 1.0, NULL },
	    { "retire.reads.cpu", "reads/cpu-s", HI, 0, NULL } } },
	{ "retire, paced (1 reader)", measure_rr, 3, 4,
	  { { "retire.paced", "reads/s", HI, 0.95, NULL },
	    { "retire.paced.upd", "updates/s", HI, 0, NULL },
	    { "retire.paced.cpu", "reads/cpu-s", HI, 0, NULL },
	    { "retire.paced.lib", "ms/s", LO, 0, NULL } } },
};

const struct bench_scenario bench_sc_readers = { "readers",
	"readers beside an updater: synchronize, call_rcu, retire",
	0, BENCH_TESTS(readers_tests) };

struct read_job {
	const struct tool_peer *f;
	double v; /* in: the duration in ns; out: ns per pair */
};

static void *read_worker(void *arg)
{
	struct read_job *j = arg;
	uint64_t t0, t1, done = 0;

	j->f->thread_register();
	j->f->read_pairs(1u << 18); /* warm the caches, branch predictor */
	t0 = tool_now_ns();
	do {
		j->f->read_pairs(1u << 20);
		done += 1u << 20;
		t1 = tool_now_ns();
	} while ((double)(t1 - t0) < j->v);
	j->f->thread_unregister();
	j->v = (double)(t1 - t0) / (double)done;
	return NULL;
}

static int measure_read(const struct tool_peer *f, const struct bench_params *p,
			int arg, double *out)
{
	struct read_job j = { f, p->duration_ms * 1e6 };
	pthread_t t;

	tool_thread_start(&t, p->cpu_a, read_worker, &j);
	tool_thread_join(t);
	out[0] = j.v;
	return arg;
}

static const struct bench_test read_tests[] = {
	{ "read", measure_read, 0, 1, { { "read", "ns/op", LO, 1.0, NULL } } },
};

const struct bench_scenario bench_sc_read = { "read",
	"empty read-side critical sections on one thread",
	0, BENCH_TESTS(read_tests) };

#define SCALE_R(n)                                              \
	{ #n " readers", measure_rr, -n, 2,                    \
	  { { "scale.r" #n, "reads/s", HI, 0, NULL },          \
	    { "scale.r" #n ".sync.max", "us", LO, 0, NULL } } }
#define SCALE_GP(n, tag)                                         \
	{ #n " registered", bench_sync_measure, n, 2,                 \
	  { { "scale.gp" #tag, "us", LO, 0, NULL },             \
	    { "scale.gp" #tag ".p99", "us", LO, 0, NULL } } }

static const struct bench_test scale_tests[] = {
	SCALE_R(1),	    SCALE_R(2),		 SCALE_R(4),
	SCALE_R(16),	    SCALE_R(64),	 SCALE_R(256),
	SCALE_GP(10, 10),   SCALE_GP(100, 100), SCALE_GP(1000, 1k),
	SCALE_GP(10000, 10k),
};

const struct bench_scenario bench_sc_scale = { "scale",
	"1 to 256 readers; 10 to 10k idle registered threads",
	1, BENCH_TESTS(scale_tests) };
