/* SPDX-License-Identifier: MIT */
/*
 * Scenarios of deferred callbacks: call, call_rcu_data (a private worker,
 * as liburcu's create_call_rcu_data() users have), defer (each
 * measurement in a fresh process: the bench executes itself again, as in
 * a fork of a process with threads registered with liburcu, liburcu's
 * grace periods die).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/wait.h>

#include <urcu/urcu-memb.h>

#include "bench.h"

#define LAT_INTERVAL_NS 100000ull

struct call_worker {
	_Alignas(PEER_CACHELINE) const struct tool_peer *f;
	struct tool_gate *gate;
	void *nodes;
	size_t n;
	int private, err; /* callbacks to a worker of the thread's own */
	uint64_t paced;   /* ns: one callback every LAT_INTERVAL_NS */
	uint64_t t_start, t_queued, t_done;
};

static void *call_thread(void *arg)
{
	struct call_worker *w = arg;
	int rcb = w->f == &tool_peer_rcuboost;
	struct rcb_worker *rw = NULL;
	struct call_rcu_data *crdp = NULL;

	w->f->thread_register();
	if (w->private && rcb && (w->err = rcb_worker_create(NULL, &rw)) == 0)
		w->err = rcb_worker_set_thread(rw);
	if (w->private && !rcb &&
	    !(crdp = urcu_memb_create_call_rcu_data(0, -1)))
		w->err = -1;
	if (crdp)
		urcu_memb_set_thread_call_rcu_data(crdp);
	tool_gate_wait(w->gate);
	w->t_start = tool_now_ns();
	if (w->paced)
		w->n = w->f->call_paced(w->nodes, w->n, LAT_INTERVAL_NS,
					w->t_start + w->paced);
	else
		w->f->call_queue(w->nodes, w->err ? 0 : w->n);
	w->t_queued = tool_now_ns();
	w->f->barrier();
	w->t_done = tool_now_ns();
	if (rw) {
		rcb_worker_set_thread(NULL);
		rcb_worker_destroy(rw);
	}
	if (crdp) {
		urcu_memb_set_thread_call_rcu_data(NULL);
		urcu_memb_call_rcu_data_free(crdp);
	}
	w->f->thread_unregister();
	return NULL;
}

/* @nthreads pinned one per CPU each queue --calls callbacks, then wait
 * in a barrier: out[0] callbacks/s from the first queue to the last
 * barrier's return, out[1] of the queueing loops alone. */
static int throughput(const struct tool_peer *f, const struct bench_params *p,
		      unsigned int nthreads, int private, double *out)
{
	struct call_worker w[2];
	struct tool_gate gate;
	pthread_t t[2];
	int cpus[2] = { p->cpu_a, p->cpu_b }, err = 0;
	size_t n = p->warmup ? p->calls / 8 + 1 : p->calls;
	uint64_t before = f->call_invoked(), first = UINT64_MAX, last = 0;

	tool_gate_init(&gate, nthreads);
	for (unsigned int i = 0; i < nthreads; i++) {
		w[i] = (struct call_worker){
			.f = f, .gate = &gate, .n = n, .private = private
		};
		w[i].nodes = f->call_alloc(n);
		tool_thread_start(&t[i], cpus[i], call_thread, &w[i]);
	}
	out[1] = 0;
	for (unsigned int i = 0; i < nthreads; i++) {
		tool_thread_join(t[i]);
		first = w[i].t_start < first ? w[i].t_start : first;
		last = w[i].t_done > last ? w[i].t_done : last;
		out[1] += (double)n * 1e9 /
			  (double)(w[i].t_queued - w[i].t_start + 1);
		f->call_free(w[i].nodes);
		err |= w[i].err;
	}
	tool_gate_destroy(&gate);
	if (err) {
		fprintf(stderr, "rcuboost-bench: %s: cannot create a worker\n",
			f->name);
		return -1;
	}
	if (f->call_invoked() - before != (uint64_t)n * nthreads)
		fprintf(stderr, "rcuboost-bench: call: %s: %llu of %llu "
			"callbacks ran before the barrier\n", f->name,
			(unsigned long long)(f->call_invoked() - before),
			(unsigned long long)n * nthreads);
	out[0] = (double)n * nthreads * 1e9 / (double)(last - first + 1);
	return 0;
}

/* @arg threads; 0: one, with a worker of its own (rcuboost, urcu-memb). */
static int measure_call(const struct tool_peer *f, const struct bench_params *p,
			int arg, double *out)
{
	if (!arg && f != &tool_peer_rcuboost && f != &tool_peer_urcu_memb)
		return -1;
	return throughput(f, p, arg ? (unsigned int)arg : 1, !arg, out);
}

/* One thread queues a callback every LAT_INTERVAL_NS that stamps its
 * invocation: median and p99 queue-to-invocation latency (us). */
static int measure_latency(const struct tool_peer *f,
			   const struct bench_params *p, int arg, double *out)
{
	struct tool_gate gate;
	struct call_worker w = { .f = f, .gate = &gate,
				 .paced = p->duration_ms * 1000000ull };
	uint64_t *lat;
	pthread_t t;

	w.n = p->duration_ms * 1000000ull / LAT_INTERVAL_NS + 1;
	w.nodes = f->call_alloc(w.n);
	tool_gate_init(&gate, 1);
	tool_thread_start(&t, p->cpu_a, call_thread, &w);
	tool_thread_join(t);
	tool_gate_destroy(&gate);
	lat = tool_xmalloc((w.n + 1) * sizeof(*lat));
	f->call_latencies(w.nodes, w.n, lat);
	out[0] = tool_quantile_u64(lat, w.n, 0.5) / 1000.0;
	out[1] = tool_quantile_u64(lat, w.n, 0.99) / 1000.0;
	free(lat);
	f->call_free(w.nodes);
	return arg;
}

static const struct bench_test call_tests[] = {
	{ "call (1 thread)", measure_call, 1, 2,
	  { { "call", "calls/s", BENCH_HIGHER, 1.0, "ck-epoch" },
	    { "call.enqueue", "calls/s", BENCH_HIGHER, 0, NULL } } },
	{ "call (2 threads)", measure_call, 2, 2,
	  { { "call.2t", "calls/s", BENCH_HIGHER, 1.0, "ck-epoch" },
	    { "call.2t.enqueue", "calls/s", BENCH_HIGHER, 0, NULL } } },
	{ "call (latency)", measure_latency, 0, 2,
	  { { "call.lat", "us", BENCH_LOWER, 1.0, NULL },
	    { "call.lat.p99", "us", BENCH_LOWER, 1.0, NULL } } },
};

const struct bench_scenario bench_sc_call = { "call",
	"callbacks from 1 or 2 threads, then a barrier; latency",
	0, BENCH_TESTS(call_tests) };

static const struct bench_test call_data_tests[] = {
	{ "call_rcu_data (private worker)", measure_call, 0, 1,
	  { { "call_rcu_data", "calls/s", BENCH_HIGHER, 0, NULL } } },
};

const struct bench_scenario bench_sc_call_rcu_data = { "call_rcu_data",
	"callbacks through a private worker", 0, BENCH_TESTS(call_data_tests) };

/* The defer child: n deferred frees, then a barrier; ns per call and the
 * peak resident set's growth into @o. */
static int defer_child(int rcuboost, unsigned long n, double *o)
{
	double before;
	uint64_t t0;

	if (rcuboost &&
	    (rcb_init(NULL) != 0 || rcb_defer_register_thread() != 0))
		return 3;
	if (!rcuboost) {
		urcu_memb_register_thread();
		if (urcu_memb_defer_register_thread() != 0)
			return 3;
	}
	before = bench_status_kb("VmHWM");
	t0 = tool_now_ns();
	for (unsigned long i = 0; i < n; i++) {
		void *obj = malloc(64);

		if (!obj)
			return 4;
		memset(obj, 0x5a, 64);
		if (!rcuboost)
			urcu_memb_defer_rcu(free, obj);
		else if (rcb_defer(free, obj) != 0)
			return 5;
	}
	rcuboost ? (void)rcb_defer_barrier() : urcu_memb_defer_barrier();
	o[0] = (double)(tool_now_ns() - t0) / (double)n;
	o[1] = bench_status_kb("VmHWM") - before;
	if (rcuboost) {
		(void)rcb_defer_unregister_thread();
		return 0;
	}
	urcu_memb_defer_unregister_thread();
	urcu_memb_unregister_thread();
	return 0;
}

/* main() with --defer-child RCUBOOST N FD: one measurement, its result
 * written to FD.  Returns the exit status. */
int bench_defer_child_main(char **argv)
{
	double o[2];
	int err = defer_child(atoi(argv[2]), strtoul(argv[3], NULL, 10), o);

	if (err)
		return err;
	return write(atoi(argv[4]), o, sizeof(o)) == sizeof(o) ? 0 : 6;
}

static int measure_defer(const struct tool_peer *f,
			 const struct bench_params *p, int arg, double *out)
{
	int rcuboost = f == &tool_peer_rcuboost, fd[2], ok;
	unsigned long n = p->warmup ? p->calls / 8 + 1 : p->calls;
	Dl_info info;
	void *sym = dlsym(RTLD_DEFAULT, "urcu_memb_defer_barrier_thread");
	char nbuf[32], fdbuf[16];
	pid_t pid;

	/* liburcu's own defer_rcu() calls its urcu_memb_defer_barrier_thread()
	 * through the PLT: the name must resolve to liburcu, not to rcuboost's
	 * export of the same name (link order: liburcu first). */
	if (arg || (!rcuboost && (f != &tool_peer_urcu_memb || !sym ||
				  !dladdr(sym, &info) || !info.dli_fname ||
				  !strstr(info.dli_fname, "liburcu-memb"))))
		return -1;
	if (pipe(fd) != 0)
		return -1;
	snprintf(nbuf, sizeof(nbuf), "%lu", n);
	snprintf(fdbuf, sizeof(fdbuf), "%d", fd[1]);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", tool_prog, "--defer-child",
		      rcuboost ? "1" : "0", nbuf, fdbuf, (char *)NULL);
		_exit(7);
	}
	close(fd[1]);
	ok = pid > 0 &&
	     read(fd[0], out, 2 * sizeof(*out)) == (ssize_t)(2 * sizeof(*out));
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (!ok)
		fprintf(stderr, "rcuboost-bench: defer: %s: the child failed\n",
			f->name);
	return ok ? 0 : -1;
}

static const struct bench_test defer_tests[] = {
	{ "defer", measure_defer, 0, 2,
	  { { "defer", "ns/call", BENCH_LOWER, 0, NULL },
	    { "defer.rss", "kB", BENCH_LOWER, 0, NULL } } },
};

const struct bench_scenario bench_sc_defer = { "defer",
	"deferred frees, in a child process each",
	0, BENCH_TESTS(defer_tests) };
