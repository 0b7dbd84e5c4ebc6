/* SPDX-License-Identifier: MIT */
/*
 * Scenario "poll": rcuboost's polled grace periods (liburcu 0.13 has
 * none: the other libraries are n/a).
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>

#include "bench.h"

#define POLL_BATCH 4096
#define COLD_MAX 100

static uint64_t cookie;

/* ns per call of rcb_poll_state(cookie) (@start: rcb_start_poll()), in
 * batches for @ms. */
static double batch(int start, unsigned int ms)
{
	uint64_t t0 = tool_now_ns(), end = t0 + (uint64_t)ms * 1000000,
		 done = 0;
	volatile int sink = 0;

	do {
		for (int i = 0; i < POLL_BATCH; i++)
			if (start)
				cookie = rcb_start_poll();
			else
				sink += rcb_poll_state(cookie);
		done += POLL_BATCH;
	} while (tool_now_ns() < end);
	(void)sink;
	return (double)(tool_now_ns() - t0) / (double)done;
}

/* Up to @max cold rcb_start_poll() calls (each once the last cookie has
 * elapsed, @gap_ns later), within 5 s: the median ns per call. */
static double cold(unsigned int max, uint64_t gap_ns)
{
	uint64_t end = tool_now_ns() + 5000000000ull, t0, lat[COLD_MAX];
	unsigned int n = 0;

	while (n < max && n < COLD_MAX && tool_now_ns() < end) {
		while (rcb_poll_state(cookie) != 1 && tool_now_ns() < end)
			tool_sleep_ns(20000);
		tool_sleep_ns(gap_ns);
		t0 = tool_now_ns();
		cookie = rcb_start_poll();
		lat[n++] = tool_now_ns() - t0;
	}
	while (rcb_poll_state(cookie) != 1 && tool_now_ns() < end)
		tool_sleep_ns(20000);
	return n ? tool_quantile_u64(lat, n, 0.5) : 0;
}

static unsigned int ncold(const struct bench_params *p, unsigned int max)
{
	return p->warmup ? 2 : p->quick ? 10 : max;
}

static int measure_poll(const struct tool_peer *f, const struct bench_params *p,
			int arg, double *out)
{
	struct rcb_worker_attr a = { .size = sizeof(a),
				     .flags = RCB_WORKER_RT };
	struct rcb_worker *w = NULL;

	if (arg || f != &tool_peer_rcuboost)
		return -1;
	/* Not elapsed: rcb_get_state() asks for no grace period. */
	cookie = rcb_get_state();
	out[0] = batch(0, p->duration_ms / 4);
	(void)rcb_synchronize();
	out[1] = batch(0, p->duration_ms / 4);
	/* The first call queues a request, the rest find it queued. */
	out[2] = batch(1, p->duration_ms / 4);
	out[3] = cold(ncold(p, COLD_MAX), 0);
	/* With the thread's callbacks going to a polling worker
	 * (RCB_WORKER_RT: its producers make no system call, so neither
	 * does the request): no wake-up of a sleeping callback thread. */
	out[4] = 0;
	if (rcb_worker_create(&a, &w) == 0 && rcb_worker_set_thread(w) == 0) {
		out[4] = cold(ncold(p, COLD_MAX), 0);
		(void)rcb_worker_set_thread(NULL);
	}
	if (w)
		(void)rcb_worker_destroy(w);
	return out[3] > 0 && out[4] > 0 ? 0 : -1;
}

/* A registered thread beside cold calls: asleep outside any section, or
 * in sections of about a microsecond back to back; 10 s at most. */
static atomic_int reader_stop, reader_busy;

static void *poll_reader(void *arg UNUSED)
{
	uint64_t end = tool_now_ns() + 10000000000ull;
	volatile unsigned int spin;

	rcb_register_thread();
	while (!atomic_load(&reader_stop) && tool_now_ns() < end) {
		if (!atomic_load(&reader_busy))
			tool_sleep_ns(1000000);
		for (int i = 0; atomic_load(&reader_busy) && i < 1000; i++) {
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

/* The floor under a cold call with a sleeping callback thread: a bare
 * FUTEX_WAKE of a thread asleep in FUTEX_WAIT, timed the same way. */
static _Atomic int floor_word, floor_stop;

static void *floor_sleeper(void *arg UNUSED)
{
	while (!atomic_load(&floor_stop)) {
		if (atomic_load(&floor_word) == 0)
			syscall(SYS_futex, (int *)&floor_word,
				FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		atomic_store(&floor_word, 0);
	}
	return NULL;
}

static void floor_wake(void)
{
	atomic_store(&floor_word, 1);
	syscall(SYS_futex, (int *)&floor_word, FUTEX_WAKE_PRIVATE, 1, NULL,
		NULL, 0);
}

/* @cpu: the sleeper's CPU, the caller's or another (where the kernel
 * wakes it with an inter-processor interrupt, costly in a VM). */
static double wake_floor(unsigned int max, int caller, int cpu)
{
	uint64_t t0, ns = 0, n = 0, end = tool_now_ns() + 2000000000ull;
	pthread_t t;

	atomic_store(&floor_word, 0);
	atomic_store(&floor_stop, 0);
	tool_pin_self(caller);
	tool_thread_start(&t, cpu, floor_sleeper, NULL);
	for (; n < max && tool_now_ns() < end; n++) {
		/* Asleep again: its word back at 0, and 200 us to reach
		 * the futex wait. */
		while (atomic_load(&floor_word) != 0)
			tool_sleep_ns(20000);
		tool_sleep_ns(200000);
		t0 = tool_now_ns();
		floor_wake();
		ns += tool_now_ns() - t0;
	}
	atomic_store(&floor_stop, 1);
	floor_wake();
	tool_thread_join(t);
	return n ? (double)ns / (double)n : 0;
}

/* Cold calls 5 ms apart (past RCB_GP_INLINE_GAP_NS, so each may run its
 * grace period itself) beside a registered thread asleep, then busy (the
 * median: the caller may be preempted by the callback thread it wakes);
 * then the floor, beside a sleeper on another CPU and on the caller's. */
static int measure_reader(const struct tool_peer *f,
			  const struct bench_params *p, int arg, double *out)
{
	cpu_set_t saved;
	pthread_t t;

	if (arg || f != &tool_peer_rcuboost || p->cpu_a == p->cpu_b ||
	    sched_getaffinity(0, sizeof(saved), &saved) != 0)
		return -1;
	for (int busy = 0; busy < 2; busy++) {
		atomic_store(&reader_stop, 0);
		atomic_store(&reader_busy, busy);
		tool_thread_start(&t, p->cpu_b, poll_reader, NULL);
		tool_sleep_ns(10000000);
		cookie = rcb_get_state() - 1;
		out[busy] = cold(ncold(p, 40), 5000000);
		atomic_store(&reader_stop, 1);
		tool_thread_join(t);
	}
	out[2] = wake_floor(ncold(p, COLD_MAX), p->cpu_a, p->cpu_b);
	out[3] = wake_floor(ncold(p, COLD_MAX), p->cpu_a, p->cpu_a);
	sched_setaffinity(0, sizeof(saved), &saved);
	return out[0] > 0 && out[1] > 0 && out[2] > 0 && out[3] > 0 ? 0 : -1;
}

static const struct bench_test poll_tests[] = {
	{ "poll", measure_poll, 0, 5,
	  { { "poll.state", "ns/op", BENCH_LOWER, 0, NULL },
	    { "poll.state.done", "ns/op", BENCH_LOWER, 0, NULL },
	    { "poll.start", "ns/op", BENCH_LOWER, 0, NULL },
	    { "poll.start.cold", "ns/op", BENCH_LOWER, 0, NULL },
	    { "poll.start.cold.rtworker", "ns/op", BENCH_LOWER, 0, NULL } } },
	{ "poll.reader", measure_reader, 0, 4,
	  { { "poll.start.cold.idlereader", "ns/op", BENCH_LOWER, 0, NULL },
	    { "poll.start.cold.busyreader", "ns/op", BENCH_LOWER, 0, NULL },
	    { "poll.wake.floor.othercpu", "ns/op", BENCH_LOWER, 0, NULL },
	    { "poll.wake.floor.samecpu", "ns/op", BENCH_LOWER, 0, NULL } } },
};

const struct bench_scenario bench_sc_poll = { "poll",
	"polled grace periods, and a bare futex wake-up",
	0, BENCH_TESTS(poll_tests) };
