/* SPDX-License-Identifier: MIT */
/*
 * Scenario "defer": defer_rcu(free, obj) of --calls 64-byte objects in a
 * loop, then a defer barrier: rcuboost's rcb_defer() beside liburcu's own
 * defer_rcu() (urcu-memb).  Each measurement runs in a process of its
 * own, so that its peak resident set (VmHWM) is its own: the bench
 * executes itself again (--defer-child), not a bare fork() of a process
 * whose earlier scenarios left threads registered with liburcu.  Such a
 * child's liburcu registry still lists the parent's threads, whose
 * stacks glibc unmaps in the child, and liburcu's grace periods there
 * died of SIGSEGV (the urcu-memb side after the call_rcu_data scenario,
 * every time).  Figures: ns per call (malloc and free included) and the
 * growth of the peak resident set.
 *
 * Scenario "poll": rcuboost's polled grace periods (liburcu 0.13 has
 * none): rcb_poll_state() on a cookie not yet elapsed and on one elapsed,
 * rcb_start_poll() back to back (a grace period already requested), and
 * a "cold" rcb_start_poll() that must queue the request (the previous
 * cookie elapsed first).  Goals from issue 13: poll_state <= 20 ns,
 * start_poll <= 1 us.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <urcu/urcu-memb.h>

#include "bench.h"

/* ---- defer ------------------------------------------------------------ */

static long vm_hwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return kb;
}

/* liburcu's own defer_rcu() calls its urcu_memb_defer_barrier_thread()
 * through the PLT: the name must resolve to liburcu, not to rcuboost's
 * export of the same name (link order: liburcu first). */
static int urcu_defer_is_liburcu(void)
{
	Dl_info info;
	void *sym = dlsym(RTLD_DEFAULT, "urcu_memb_defer_barrier_thread");

	if (!sym || !dladdr(sym, &info) || !info.dli_fname ||
	    !strstr(info.dli_fname, "liburcu-memb")) {
		fprintf(stderr, "rcuboost-bench: defer: urcu_memb_defer_barrier_thread resolves to %s, not liburcu-memb: liburcu side skipped\n",
			sym && dladdr(sym, &info) && info.dli_fname ? info.dli_fname : "nothing");
		return 0;
	}
	return 1;
}

struct defer_out {
	double ns_per_call;
	double hwm_kb;
};

static void defer_child(int rcuboost, unsigned long n, struct defer_out *o)
{
	long before;
	uint64_t t0, t1;

	if (rcuboost) {
		if (rcb_init(NULL) != 0 || rcb_defer_register_thread() != 0)
			_exit(3);
	} else {
		urcu_memb_register_thread();
		if (urcu_memb_defer_register_thread() != 0)
			_exit(3);
	}
	before = vm_hwm_kb();
	t0 = tool_now_ns();
	for (unsigned long i = 0; i < n; i++) {
		void *obj = malloc(64);

		if (!obj)
			_exit(4);
		memset(obj, 0x5a, 64);
		if (rcuboost) {
			if (rcb_defer(free, obj) != 0)
				_exit(5);
		} else {
			urcu_memb_defer_rcu(free, obj);
		}
	}
	if (rcuboost)
		(void)rcb_defer_barrier();
	else
		urcu_memb_defer_barrier();
	t1 = tool_now_ns();
	o->ns_per_call = (double)(t1 - t0) / (double)n;
	o->hwm_kb = (double)(vm_hwm_kb() - before);
	if (rcuboost) {
		(void)rcb_defer_unregister_thread();
	} else {
		urcu_memb_defer_unregister_thread();
		urcu_memb_unregister_thread();
	}
}

static int measure_defer(const struct tool_peer *f, const struct bench_params *p,
			 double *out)
{
	int rcuboost = f == &tool_peer_rcuboost, fd[2], st;
	unsigned long n = p->warmup ? p->calls / 8 + 1 : p->calls;
	struct defer_out o;
	pid_t pid;

	if (!rcuboost && (f != &tool_peer_urcu_memb || !urcu_defer_is_liburcu()))
		return -1;
	if (pipe(fd) != 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		char nbuf[32], fdbuf[16];

		close(fd[0]);
		snprintf(nbuf, sizeof(nbuf), "%lu", n);
		snprintf(fdbuf, sizeof(fdbuf), "%d", fd[1]);
		execl("/proc/self/exe", tool_prog, "--defer-child", rcuboost ? "1" : "0",
		      nbuf, fdbuf, (char *)NULL);
		_exit(7);
	}
	close(fd[1]);
	st = read(fd[0], &o, sizeof(o)) == (ssize_t)sizeof(o);
	close(fd[0]);
	if (!st) {
		waitpid(pid, &st, 0);
		fprintf(stderr, "rcuboost-bench: defer: %s: the child failed (status %d)\n",
			f->name, st);
		return -1;
	}
	waitpid(pid, &st, 0);
	out[0] = o.ns_per_call;
	out[1] = o.hwm_kb;
	return 0;
}

/* main() with --defer-child RCUBOOST N FD: one measurement, its result
 * written to FD.  Returns the exit status. */
int bench_defer_child_main(char **argv)
{
	struct defer_out o;
	int fd = atoi(argv[4]);

	defer_child(atoi(argv[2]), strtoul(argv[3], NULL, 10), &o);
	return write(fd, &o, sizeof(o)) == (ssize_t)sizeof(o) ? 0 : 6;
}

static const struct bench_test defer_tests[] = {
	{ "defer", measure_defer, 2,
	  { { "defer", "ns/call", BENCH_LOWER, 0, NULL },
	    { "defer.rss", "kB", BENCH_LOWER, 0, NULL } } },
};

const struct bench_scenario bench_scenario_defer = {
	.name = "defer",
	.help = "defer: one thread, in a forked child per measurement, defers the free of\n"
		"  --calls 64-byte objects back to back, then a defer barrier (rcuboost's\n"
		"  rcb_defer(), liburcu's defer_rcu()).  Figures: ns per call (malloc and free\n"
		"  included), growth of the peak resident set (VmHWM, kB).",
	BENCH_TESTS(defer_tests),
};

/* ---- poll ------------------------------------------------------------- */

#define POLL_BATCH 4096

/* Cold rcb_start_poll() with the calling thread's callbacks going to a
 * polling worker (RCB_WORKER_RT: its producers make no system call, so
 * neither does the request): the cost without the futex wake-up of a
 * sleeping callback thread.  0 if the worker cannot be made. */
static double measure_cold_rtworker(unsigned int cold_max, uint64_t *c)
{
	struct rcb_worker_attr a = { .size = sizeof(a), .flags = RCB_WORKER_RT };
	struct rcb_worker *w;
	uint64_t end, t0, ns = 0, n = 0;

	if (rcb_worker_create(&a, &w) != 0)
		return 0;
	if (rcb_worker_set_thread(w) != 0) {
		(void)rcb_worker_destroy(w);
		return 0;
	}
	end = tool_now_ns() + 2000000000ull;
	while (n < cold_max && tool_now_ns() < end) {
		while (rcb_poll_state(*c) != 1 && tool_now_ns() < end)
			tool_sleep_ns(20000);
		t0 = tool_now_ns();
		*c = rcb_start_poll();
		ns += tool_now_ns() - t0;
		n++;
	}
	while (rcb_poll_state(*c) != 1 && tool_now_ns() < end)
		tool_sleep_ns(20000);
	(void)rcb_worker_set_thread(NULL);
	(void)rcb_worker_destroy(w);
	return n ? (double)ns / (double)n : 0;
}

static int measure_poll_rtworker(const struct tool_peer *f,
				 const struct bench_params *p, double *out)
{
	uint64_t c = rcb_start_poll();

	if (f != &tool_peer_rcuboost)
		return -1;
	out[0] = measure_cold_rtworker(p->warmup ? 2 : p->quick ? 10 : 100, &c);
	return out[0] > 0 ? 0 : -1;
}

/* A registered thread beside a cold rcb_start_poll(): idle (asleep
 * outside any section) or busy (sections of about a microsecond back to
 * back on the other CPU).  Stops by itself after 10 s at most. */
struct poll_reader {
	atomic_int stop;
	int busy;
};

static void *poll_reader_thread(void *arg)
{
	struct poll_reader *r = arg;
	uint64_t end = tool_now_ns() + 10000000000ull;
	volatile unsigned int spin;

	rcb_register_thread();
	while (!atomic_load(&r->stop) && tool_now_ns() < end) {
		if (!r->busy) {
			tool_sleep_ns(1000000);
			continue;
		}
		for (int i = 0; i < 1000; i++) {
			rcb_read_lock();
			for (spin = 0; spin < 300; spin++)
				;
			rcb_read_unlock();
			for (spin = 0; spin < 300; spin++)
				;
		}
	}
	rcb_unregister_thread();
	return NULL;
}

/* Cold calls 5 ms apart (past gp.c's RCB_GP_INLINE_GAP_NS, so each may
 * run its grace period itself), with a registered reader @busy or not:
 * the median, as a SCHED_OTHER caller may be preempted by the callback
 * thread it wakes (milliseconds in a few calls). */
#define COLD_MAX 40
static double cold_with_reader(const struct bench_params *p, unsigned int max, int busy)
{
	struct poll_reader r = { .busy = busy };
	uint64_t end, t0, n = 0, c, lat[COLD_MAX];
	pthread_t t;

	tool_thread_start(&t, p->cpu_b, poll_reader_thread, &r);
	tool_sleep_ns(10000000);
	c = rcb_get_state() - 1;
	end = tool_now_ns() + 5000000000ull;
	while (n < max && n < COLD_MAX && tool_now_ns() < end) {
		while (rcb_poll_state(c) != 1 && tool_now_ns() < end)
			tool_sleep_ns(20000);
		tool_sleep_ns(5000000);
		t0 = tool_now_ns();
		c = rcb_start_poll();
		lat[n++] = tool_now_ns() - t0;
	}
	while (rcb_poll_state(c) != 1 && tool_now_ns() < end)
		tool_sleep_ns(20000);
	atomic_store(&r.stop, 1);
	tool_thread_join(t);
	return n ? tool_quantile_u64(lat, n, 0.5) : 0;
}

static int measure_poll_reader(const struct tool_peer *f,
			       const struct bench_params *p, double *out)
{
	unsigned int max = p->warmup ? 2 : p->quick ? 5 : COLD_MAX;

	if (f != &tool_peer_rcuboost)
		return -1;
	out[0] = cold_with_reader(p, max, 0);
	out[1] = cold_with_reader(p, max, 1);
	return out[0] > 0 && out[1] > 0 ? 0 : -1;
}

static int measure_poll(const struct tool_peer *f, const struct bench_params *p,
			double *out)
{
	uint64_t end, t0, done = 0, c, cold_ns = 0, ncold = 0;
	unsigned int cold_max = p->warmup ? 2 : p->quick ? 10 : 100;
	volatile int sink = 0;

	if (f != &tool_peer_rcuboost)
		return -1;
	/* rcb_poll_state(), a cookie not yet elapsed (no grace period
	 * starts: rcb_get_state() does not ask for one). */
	c = rcb_get_state();
	end = tool_now_ns() + (uint64_t)p->duration_ms * 1000000ull / 4;
	t0 = tool_now_ns();
	do {
		for (int i = 0; i < POLL_BATCH; i++)
			sink += rcb_poll_state(c);
		done += POLL_BATCH;
	} while (tool_now_ns() < end);
	out[0] = (double)(tool_now_ns() - t0) / (double)done;
	/* An elapsed cookie (the fence of the full-barrier contract). */
	(void)rcb_synchronize();
	done = 0;
	end = tool_now_ns() + (uint64_t)p->duration_ms * 1000000ull / 4;
	t0 = tool_now_ns();
	do {
		for (int i = 0; i < POLL_BATCH; i++)
			sink += rcb_poll_state(c);
		done += POLL_BATCH;
	} while (tool_now_ns() < end);
	out[1] = (double)(tool_now_ns() - t0) / (double)done;
	/* rcb_start_poll() back to back: the first queues a request, the
	 * rest find a grace period requested or started. */
	done = 0;
	end = tool_now_ns() + (uint64_t)p->duration_ms * 1000000ull / 4;
	t0 = tool_now_ns();
	do {
		for (int i = 0; i < POLL_BATCH; i++)
			c = rcb_start_poll();
		done += POLL_BATCH;
	} while (tool_now_ns() < end);
	out[2] = (double)(tool_now_ns() - t0) / (double)done;
	/* Cold: each call must queue its request (the last cookie has
	 * elapsed and no grace period runs). */
	end = tool_now_ns() + 2000000000ull;
	while (ncold < cold_max && tool_now_ns() < end) {
		while (rcb_poll_state(c) != 1 && tool_now_ns() < end)
			tool_sleep_ns(20000);
		t0 = tool_now_ns();
		c = rcb_start_poll();
		cold_ns += tool_now_ns() - t0;
		ncold++;
	}
	while (rcb_poll_state(c) != 1 && tool_now_ns() < end)
		tool_sleep_ns(20000);
	out[3] = ncold ? (double)cold_ns / (double)ncold : 0;
	(void)sink;
	return 0;
}

/* The floor under a cold rcb_start_poll() with a sleeping callback
 * thread: a bare FUTEX_WAKE of a thread asleep in FUTEX_WAIT, the one
 * system call such a call makes, timed the same way (each wake-up after
 * the sleeper is back asleep).  No library call. */
static _Atomic int floor_word, floor_stop;

static void *floor_sleeper(void *arg)
{
	(void)arg;
	while (!atomic_load(&floor_stop)) {
		if (atomic_load(&floor_word) == 0)
			syscall(SYS_futex, (int *)&floor_word, FUTEX_WAIT_PRIVATE, 0,
				NULL, NULL, 0);
		atomic_store(&floor_word, 0);
	}
	return NULL;
}

/* @same: the sleeper on the caller's CPU, else on another one (where the
 * kernel wakes it with an inter-processor interrupt, costly in a VM). */
static double wake_floor(unsigned int max, bool same)
{
	uint64_t t0, ns = 0, n = 0, end = tool_now_ns() + 2000000000ull;
	cpu_set_t saved, one;
	int cpu = sched_getcpu(), other = -1;
	pthread_t t;

	if (pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved) != 0 || cpu < 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE && other < 0; c++)
		if (c != cpu && CPU_ISSET(c, &saved))
			other = c;
	if (!same && other < 0)
		return 0;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	atomic_store(&floor_word, 0);
	atomic_store(&floor_stop, 0);
	if (pthread_create(&t, NULL, floor_sleeper, NULL) != 0) {
		(void)pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
		return 0;
	}
	if (!same) {
		CPU_ZERO(&one);
		CPU_SET(other, &one);
	}
	(void)pthread_setaffinity_np(t, sizeof(one), &one);
	while (n < max && tool_now_ns() < end) {
		/* Asleep again: its word is back at 0, and 200 us is ample
		 * for it to reach the futex wait. */
		while (atomic_load(&floor_word) != 0)
			tool_sleep_ns(20000);
		tool_sleep_ns(200000);
		t0 = tool_now_ns();
		atomic_store(&floor_word, 1);
		syscall(SYS_futex, (int *)&floor_word, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
		ns += tool_now_ns() - t0;
		n++;
	}
	atomic_store(&floor_stop, 1);
	atomic_store(&floor_word, 1);
	syscall(SYS_futex, (int *)&floor_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(t, NULL);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	return n ? (double)ns / (double)n : 0;
}

static int measure_wake_floor(const struct tool_peer *f,
			      const struct bench_params *p, double *out)
{
	unsigned int max = p->warmup ? 2 : p->quick ? 10 : 100;

	if (f != &tool_peer_rcuboost)
		return -1;
	out[0] = wake_floor(max, false);
	out[1] = wake_floor(max, true);
	return out[0] > 0 && out[1] > 0 ? 0 : -1;
}

static const struct bench_test poll_tests[] = {
	{ "poll", measure_poll, 4,
	  { { "poll.state", "ns/op", BENCH_LOWER, 0, NULL },
	    { "poll.state.done", "ns/op", BENCH_LOWER, 0, NULL },
	    { "poll.start", "ns/op", BENCH_LOWER, 0, NULL },
	    { "poll.start.cold", "ns/op", BENCH_LOWER, 0, NULL } } },
	{ "poll.rtworker", measure_poll_rtworker, 1,
	  { { "poll.start.cold.rtworker", "ns/op", BENCH_LOWER, 0, NULL } } },
	{ "poll.reader", measure_poll_reader, 2,
	  { { "poll.start.cold.idlereader", "ns/op", BENCH_LOWER, 0, NULL },
	    { "poll.start.cold.busyreader", "ns/op", BENCH_LOWER, 0, NULL } } },
	{ "poll.wakefloor", measure_wake_floor, 2,
	  { { "poll.wake.floor.othercpu", "ns/op", BENCH_LOWER, 0, NULL },
	    { "poll.wake.floor.samecpu", "ns/op", BENCH_LOWER, 0, NULL } } },
};

const struct bench_scenario bench_scenario_poll = {
	.name = "poll",
	.help = "poll: rcuboost's polled grace periods (liburcu 0.13 has none): rcb_poll_state()\n"
		"  on a cookie not elapsed and on one elapsed, rcb_start_poll() back to back, and\n"
		"  a cold rcb_start_poll() that queues its request (to the default callback\n"
		"  thread, asleep: one futex wake-up; to a polling RCB_WORKER_RT worker of the\n"
		"  calling thread: no system call), beside a bare FUTEX_WAKE of a sleeping\n"
		"  thread on another CPU and on the caller's (poll.wake.floor.*: the floor\n"
		"  of a cold call with a sleeping thread; no library call).  A cold call\n"
		"  runs the grace period itself when it can (no other thread inside a\n"
		"  section, none registered or the last grace period 4 ms old):\n"
		"  poll.start.cold.idlereader / .busyreader: cold calls 5 ms apart with a\n"
		"  registered thread asleep outside any section (one membarrier) / in\n"
		"  back-to-back sections of about 1 us on the other CPU (medians of 40).\n"
		"  Figures: ns per call.\n"
		"  Goals (absolute): poll_state <= 20 ns, start_poll <= 1 us.",
	BENCH_TESTS(poll_tests),
};
