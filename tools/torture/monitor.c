/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-torture: the monitor thread.  It prints progress on stderr
 * every --progress-s seconds and is the watchdog: if the run is still
 * going at its deadline (by default 60 s + 10 x duration after the
 * start), it prints the state and aborts, so a hang becomes a failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "torture.h"

static pthread_t mon_thread;
static pthread_mutex_t mon_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mon_cond;
static bool mon_done;
static uint64_t deadline_ns;

static unsigned long sum_reads(void)
{
	unsigned long n = 0;

	for (unsigned int i = 0; i < tstate.nrd; i++)
		n += torture_get(&tstate.rd[i].reads);
	return n;
}

void torture_print_state(FILE *f, const char *why)
{
	struct rcb_gp_stats st;
	struct rcb_backlog bl;
	double t = (double)(tool_now_ns() - tstate.start_ns) / 1e9;

	rcb_stats(&st);
	rcb_backlog(&bl);
	fprintf(f, "rcuboost-torture: %s: t=%.1fs phase=%s\n", why, t,
		torture_phase_name(atomic_load(&tstate.phase)));
	fprintf(f,
		"  reads=%lu updates=%lu allocated=%lu freed=%lu writer_syncs=%lu fake_syncs=%lu barriers=%lu\n",
		sum_reads(), torture_get(&tstate.updates),
		torture_get(&tstate.allocated), torture_get(&tstate.freed),
		torture_get(&tstate.writer_syncs),
		torture_get(&tstate.fake_syncs), torture_get(&tstate.barriers));
	fprintf(f, "  calls_queued=%lu calls_invoked=%lu errors=%lu\n",
		torture_get(&tstate.calls_queued),
		torture_get(&tstate.calls_invoked), torture_total_errors());
	fprintf(f, "  rcb_stats: grace_periods=%llu synchronize_calls=%llu batched=%llu futex_waits=%llu misuse=%llu registered_threads=%llu\n",
		(unsigned long long)st.grace_periods,
		(unsigned long long)st.synchronize_calls,
		(unsigned long long)st.batched,
		(unsigned long long)st.futex_waits,
		(unsigned long long)st.misuse,
		(unsigned long long)st.registered_threads);
	fprintf(f, "  rcb_backlog: callbacks=%llu bytes=%llu peak_callbacks=%llu peak_bytes=%llu invoked=%llu\n",
		(unsigned long long)bl.callbacks, (unsigned long long)bl.bytes,
		(unsigned long long)bl.peak_callbacks,
		(unsigned long long)bl.peak_bytes,
		(unsigned long long)bl.invoked);
	for (unsigned int i = 0; i < tstate.nrd; i++)
		fprintf(f, "  reader %u (%s): reads=%lu blocked=%lu\n", i,
			torture_reader_kind(i),
			torture_get(&tstate.rd[i].reads),
			torture_get(&tstate.rd[i].blocked));
	fprintf(f, "  churn_threads=%lu\n", torture_get(&tstate.churn_threads));
	if (tstate.opt.boost)
		torture_boost_progress(f);
	fflush(f);
}

static void progress(void)
{
	struct rcb_gp_stats st;
	double t = (double)(tool_now_ns() - tstate.start_ns) / 1e9;

	rcb_stats(&st);
	fprintf(stderr,
		"rcuboost-torture: progress t=%.0f/%.0fs phase=%s reads=%lu updates=%lu gps=%llu errors=%lu\n",
		t, (double)tstate.opt.duration_ms / 1e3,
		torture_phase_name(atomic_load(&tstate.phase)), sum_reads(),
		torture_get(&tstate.updates),
		(unsigned long long)st.grace_periods, torture_total_errors());
	if (tstate.opt.boost)
		torture_boost_progress(stderr);
}

static void to_timespec(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / 1000000000ull);
	ts->tv_nsec = (long)(ns % 1000000000ull);
}

static void *monitor_fn(void *arg)
{
	uint64_t step = (uint64_t)tstate.opt.progress_s * 1000000000ull;
	uint64_t next = step ? tstate.start_ns + step : UINT64_MAX;
	struct timespec ts;
	uint64_t now;

	(void)arg;
	tool_name_thread("rcbt-monitor", -1);
	pthread_mutex_lock(&mon_lock);
	while (!mon_done) {
		now = tool_now_ns();
		if (now >= deadline_ns) {
			pthread_mutex_unlock(&mon_lock);
			torture_print_state(stderr, "WATCHDOG: run overran its time bound, aborting");
			abort();
		}
		if (now >= next) {
			pthread_mutex_unlock(&mon_lock);
			progress();
			pthread_mutex_lock(&mon_lock);
			next += step;
			continue;
		}
		to_timespec(next < deadline_ns ? next : deadline_ns, &ts);
		pthread_cond_timedwait(&mon_cond, &mon_lock, &ts);
	}
	pthread_mutex_unlock(&mon_lock);
	return NULL;
}

int torture_monitor_start(uint64_t watchdog_ns)
{
	pthread_condattr_t a;
	int err;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&mon_cond, &a);
	pthread_condattr_destroy(&a);
	deadline_ns = tstate.start_ns + watchdog_ns;
	err = pthread_create(&mon_thread, NULL, monitor_fn, NULL);
	if (err)
		fprintf(stderr, "rcuboost-torture: cannot start the monitor: %s\n",
			strerror(err));
	return -err;
}

void torture_monitor_stop(void)
{
	pthread_mutex_lock(&mon_lock);
	mon_done = true;
	pthread_cond_signal(&mon_cond);
	pthread_mutex_unlock(&mon_lock);
	pthread_join(mon_thread, NULL);
	pthread_cond_destroy(&mon_cond);
}
