/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-torture: an rcutorture-style stress test of rcuboost.
 * Command line, start-up, the run, the final checks.  See torture.h for
 * what is checked.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "torture.h"

struct torture_state tstate;

static const char usage_text[] =
	"Usage: rcuboost-torture [OPTION]...\n"
	"Stress rcuboost in the manner of Linux rcutorture: readers check that no\n"
	"object they hold ages past one grace period; writers retire objects through\n"
	"rcb_synchronize() and rcb_call() chains; fake writers and a barrier thread\n"
	"add concurrent grace periods and rcb_barrier() calls.\n"
	"\n"
	"  -d, --duration-ms=MS     run for MS milliseconds (default 10000)\n"
	"  -r, --readers=N          reader threads (default: number of CPUs, at least 2)\n"
	"  -w, --writers=N          writer threads (default 1)\n"
	"  -f, --fake-writers=N     threads that only call rcb_synchronize() (default 2)\n"
	"  -p, --pipe-len=N         grace periods from removal to free, 2..64 (default 10)\n"
	"  -s, --seed=N             random seed (default: from the clock; printed)\n"
	"  -j, --json=FILE          also write the results as JSON to FILE\n"
	"      --expect-flavor=NAME fail unless the active flavor is NAME\n"
	"                           (membarrier or fence; RCUBOOST_FLAVOR selects it)\n"
	"      --progress-s=S       progress line on stderr every S seconds (default 5, 0: off)\n"
	"      --watchdog-s=S       abort if the run lasts longer than S seconds\n"
	"                           (default 60 + 10 x duration)\n"
	"      --quarantine=N       freed objects kept poisoned before free() (default 4096)\n"
	"      --no-churn           no short-lived reader threads (by default one thread\n"
	"                           after another registers, reads and exits)\n"
	"  -h, --help               show this help\n"
	"\n"
	"Boost phase (needs real-time priority; exit status 77 without it):\n"
	"      --boost              also run, for the whole duration, low-priority\n"
	"                           readers pinned to the first CPU, a SCHED_FIFO hog\n"
	"                           there in bounded bursts, short-lived readers, and\n"
	"                           updaters on the last CPU that require every callback\n"
	"                           within a bound; check exact unboosting and the\n"
	"                           boost statistics (RCUBOOST_MACHINE selects 3 or 8)\n"
	"      --boost-readers=N    readers on the hog CPU (default 4; SCHED_OTHER and\n"
	"                           SCHED_FIFO 1..10 in turn)\n"
	"      --boost-updaters=N   callback updaters (default 1); their grace-period\n"
	"                           waits rotate: rcb_synchronize(), _expedited(),\n"
	"                           rcb_start_poll() polled to completion, and\n"
	"                           rcb_cond_synchronize() on rcb_get_state()\n"
	"      --boost-updater-prio=P  updaters run SCHED_FIFO P (default 0: normal;\n"
	"                           with RCUBOOST_INHERIT=1 they lend P to readers)\n"
	"      --boost-hog-prio=P   the hog's SCHED_FIFO priority (default 40; must be\n"
	"                           below the boosted priority, booster's minus one)\n"
	"      --boost-on-ms=MS     longest hog burst, 10..1000 (default 500; bursts\n"
	"                           last 2/5..1 of it)\n"
	"      --boost-off-ms=MS    longest pause between bursts (default 500; pauses\n"
	"                           last 1/2..1 of it)\n"
	"      --boost-bound-ms=MS  a callback not invoked, or an rcb_synchronize()\n"
	"                           not returned, within MS is an error (default 2000)\n"
	"      --boost-app-changes=PCT  percentage of the long sections that find\n"
	"                           themselves boosted and then change their own\n"
	"                           attributes (default 33; 0: none, and no coverage\n"
	"                           check)\n"
	"      --expect-machine=N   fail unless the boost state machine is N (3 or 8)\n"
	"\n"
	"Debugging the checker:\n"
	"      --inject-bug=BUG     make the run FAIL on purpose (repeatable):\n"
	"                           early-free: free objects at removal, without\n"
	"                           a grace period;  no-sync: updaters skip\n"
	"                           rcb_synchronize() but count a grace period;\n"
	"                           boost-off: with --boost, initialise the library\n"
	"                           with boosting off (nothing boosted, late callbacks)\n"
	"\n"
	"Output: a summary line \"rcuboost-torture: PASS|FAIL errors=N ...\", then the\n"
	"Reader Pipe histogram (ages seen by readers: any count past index 1 is an\n"
	"error), the Reader Batch histogram (chained grace periods that ended during\n"
	"a read-side critical section: past index 1 is an error), and counters.\n"
	"Exit status: 0 pass, 1 fail, 2 usage error.\n";

static void usage(FILE *out)
{
	fputs(usage_text, out);
}

static void expect_flavor(const char *arg, void *var)
{
	if (strcmp(arg, "membarrier") && strcmp(arg, "fence"))
		tool_usage_error("--expect-flavor=%s: expected membarrier or fence", arg);
	*(const char **)var = arg;
}

static void inject_bug(const char *arg, void *var)
{
	struct torture_opts *o = var;

	if (!strcmp(arg, "early-free"))
		o->inject_early_free = true;
	else if (!strcmp(arg, "no-sync"))
		o->inject_no_sync = true;
	else if (!strcmp(arg, "boost-off"))
		o->inject_boost_off = true;
	else
		tool_usage_error("--inject-bug=%s: expected early-free, no-sync or boost-off", arg);
}

static void expect_machine(const char *arg, void *var)
{
	if (strcmp(arg, "3") && strcmp(arg, "8"))
		tool_usage_error("--expect-machine=%s: expected 3 or 8", arg);
	*(int *)var = arg[0] - '0';
}

static void parse_args(int argc, char **argv, struct torture_opts *o)
{
	const struct tool_opt opts[] = {
		TOOL_OPT_NUM("duration-ms", 'd', o->duration_ms, 1,
			     7ull * 24 * 3600 * 1000),
		TOOL_OPT_NUM("readers", 'r', o->readers, 1, 1024),
		TOOL_OPT_NUM("writers", 'w', o->writers, 1, 64),
		TOOL_OPT_NUM("fake-writers", 'f', o->fake_writers, 0, 64),
		TOOL_OPT_NUM("pipe-len", 'p', o->pipe_len, 2, TORTURE_MAX_PIPE),
		TOOL_OPT_NUM("seed", 's', o->seed, 0, ULLONG_MAX),
		TOOL_OPT_STR("json", 'j', o->json),
		TOOL_OPT_FN("expect-flavor", 0, o->expect_flavor,
			    expect_flavor),
		TOOL_OPT_NUM("progress-s", 0, o->progress_s, 0, 86400),
		TOOL_OPT_NUM("watchdog-s", 0, o->watchdog_s, 1,
			     30ull * 24 * 3600),
		TOOL_OPT_NUM("quarantine", 0, o->quarantine, 1, 1u << 24),
		TOOL_OPT_FN("inject-bug", 0, *o, inject_bug),
		TOOL_OPT_CLEAR("no-churn", 0, o->churn),
		TOOL_OPT_FLAG("boost", 0, o->boost),
		TOOL_OPT_NUM("boost-readers", 0, o->boost_readers, 1, 16),
		TOOL_OPT_NUM("boost-updaters", 0, o->boost_updaters, 1, 8),
		TOOL_OPT_NUM("boost-updater-prio", 0, o->boost_upd_prio, 0, 98),
		TOOL_OPT_NUM("boost-hog-prio", 0, o->boost_hog_prio, 1, 98),
		TOOL_OPT_NUM("boost-on-ms", 0, o->boost_on_ms, 10, 1000),
		TOOL_OPT_NUM("boost-off-ms", 0, o->boost_off_ms, 10, 10000),
		TOOL_OPT_NUM("boost-bound-ms", 0, o->boost_bound_ms, 1, 600000),
		TOOL_OPT_NUM("boost-app-changes", 0, o->boost_app_pct, 0, 100),
		TOOL_OPT_FN("expect-machine", 0, o->expect_machine,
			    expect_machine),
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int first;

	memset(o, 0, sizeof(*o));
	o->duration_ms = 10000;
	o->readers = ncpu > 2 ? (unsigned int)(ncpu < 64 ? ncpu : 64) : 2;
	o->writers = 1;
	o->fake_writers = 2;
	o->pipe_len = 10;
	o->quarantine = 4096;
	o->progress_s = 5;
	o->churn = true;
	o->boost_readers = 4;
	o->boost_updaters = 1;
	o->boost_hog_prio = 40;
	o->boost_on_ms = 500;
	o->boost_off_ms = 500;
	o->boost_bound_ms = 2000;
	o->boost_app_pct = 33;
	o->seed = tool_now_ns() ^ ((uint64_t)getpid() << 32);

	first = tool_getopt(argc, argv, opts, sizeof(opts) / sizeof(opts[0]),
			    usage);
	if (first < argc)
		tool_usage_error("unexpected argument '%s'", argv[first]);
	if (o->inject_boost_off && !o->boost)
		tool_usage_error("--inject-bug=boost-off needs --boost");
	/* xorshift needs a non-zero state. */
	if (o->seed == 0)
		o->seed = 1;
}

static __attribute__((noreturn)) void fatal_create(const char *what, int err)
{
	fprintf(stderr, "rcuboost-torture: cannot create %s thread: %s\n", what,
		strerror(err));
	exit(1);
}

/* The update-side threads of the run. */
struct workers {
	pthread_t *writers, *fakes, barrier, churn;
};

static void start(pthread_t *t, const char *what, void *(*fn)(void *),
		  void *arg)
{
	int err = pthread_create(t, NULL, fn, arg);

	if (err)
		fatal_create(what, err);
}

/* Initialise the library and the run's state; returns the number of
 * threads registered before any worker exists (this one and any library
 * thread: exited workers must not add to it), or -1. */
static long long setup(struct workers *w)
{
	struct rcb_config cfg = { 0 };
	struct rcb_gp_stats st;
	const char *flavor;
	int err;

	if (tstate.opt.boost)
		torture_boost_require_rt();
	if (tstate.opt.inject_boost_off)
		cfg.boost = -1;
	err = rcb_init(&cfg);
	if (err) {
		fprintf(stderr, "rcuboost-torture: rcb_init: %s\n", strerror(-err));
		return -1;
	}
	flavor = rcb_flavor_name(rcb_flavor());
	if (tstate.opt.expect_flavor &&
	    strcmp(flavor, tstate.opt.expect_flavor))
		torture_error(TORTURE_ERR_flavor, "active flavor is %s, expected %s",
			      flavor, tstate.opt.expect_flavor);
	tstate.boost_rd0 = tstate.opt.readers + (tstate.opt.churn ? 1 : 0);
	tstate.nrd = tstate.boost_rd0 +
		     (tstate.opt.boost ? tstate.opt.boost_readers + 1 : 0);
	tstate.rd = aligned_alloc(64, sizeof(*tstate.rd) * tstate.nrd);
	w->writers = calloc(tstate.opt.writers, sizeof(*w->writers));
	w->fakes = calloc(tstate.opt.fake_writers + 1, sizeof(*w->fakes));
	if (torture_objects_init() != 0 || rcb_register_thread() != 0 ||
	    !tstate.rd || !w->writers || !w->fakes) {
		fprintf(stderr, "rcuboost-torture: out of memory\n");
		return -1;
	}
	memset(tstate.rd, 0, sizeof(*tstate.rd) * tstate.nrd);
	for (unsigned int i = 0; i < tstate.nrd; i++)
		tstate.rd[i].idx = i;
	rcb_stats(&st);
	fprintf(stderr,
		"rcuboost-torture: start duration=%lums flavor=%s readers=%u writers=%u fake_writers=%u pipe_len=%u seed=%llu inject=%s boost=%s\n",
		tstate.opt.duration_ms, flavor, tstate.opt.readers,
		tstate.opt.writers, tstate.opt.fake_writers,
		tstate.opt.pipe_len, (unsigned long long)tstate.opt.seed,
		torture_inject_name(), tstate.opt.boost ? "on" : "off");
	return (long long)st.registered_threads;
}

static void start_workers(struct workers *w)
{
	for (unsigned int i = 0; i < tstate.opt.readers; i++)
		start(&tstate.rd[i].thread, "reader", torture_reader_fn,
		      &tstate.rd[i]);
	for (unsigned int i = 0; i < tstate.opt.writers; i++)
		start(&w->writers[i], "writer", torture_writer_fn,
		      (void *)(uintptr_t)i);
	for (unsigned int i = 0; i < tstate.opt.fake_writers; i++)
		start(&w->fakes[i], "fake writer", torture_fake_writer_fn,
		      (void *)(uintptr_t)i);
	start(&w->barrier, "barrier", torture_barrier_fn, NULL);
	if (tstate.opt.churn)
		start(&w->churn, "churn", torture_churn_fn,
		      &tstate.rd[tstate.opt.readers]);
}

static void join_workers(struct workers *w)
{
	for (unsigned int i = 0; i < tstate.opt.readers; i++)
		pthread_join(tstate.rd[i].thread, NULL);
	for (unsigned int i = 0; i < tstate.opt.fake_writers; i++)
		pthread_join(w->fakes[i], NULL);
	pthread_join(w->barrier, NULL);
	if (tstate.opt.churn)
		pthread_join(w->churn, NULL);
	for (unsigned int i = 0; i < tstate.opt.writers; i++)
		pthread_join(w->writers[i], NULL);
}

/* After the final barriers: nothing leaked, queued, misused or left
 * registered (beyond @registered_base). */
static void final_checks(unsigned long long registered_base)
{
	struct rcb_gp_stats st;
	struct rcb_backlog bl;
	int err;

	if (torture_get(&tstate.freed) != torture_get(&tstate.allocated))
		torture_error(
			TORTURE_ERR_leak,
			"%lu objects allocated, %lu freed after the final barriers",
			torture_get(&tstate.allocated),
			torture_get(&tstate.freed));
	rcb_backlog(&bl);
	if (bl.callbacks || bl.bytes)
		torture_error(TORTURE_ERR_backlog,
			      "%llu callbacks (%llu bytes) still queued",
			      (unsigned long long)bl.callbacks,
			      (unsigned long long)bl.bytes);
	err = rcb_shutdown();
	if (err)
		torture_error(TORTURE_ERR_api, "rcb_shutdown returned %d (%s)", err,
			      strerror(-err));
	rcb_stats(&st);
	if (st.misuse)
		torture_error(TORTURE_ERR_misuse, "rcb_stats() counts %llu misuse reports",
			      (unsigned long long)st.misuse);
	if (st.registered_threads > registered_base)
		torture_error(
			TORTURE_ERR_registry,
			"%llu threads registered after every worker exited, %llu before any started",
			(unsigned long long)st.registered_threads,
			registered_base);
}

int main(int argc, char **argv)
{
	struct workers w = { 0 };
	long long registered_base;
	uint64_t watchdog_ns;
	bool pass;

	tool_prog = "rcuboost-torture";
	parse_args(argc, argv, &tstate.opt);
	setvbuf(stdout, NULL, _IOLBF, 0);
	registered_base = setup(&w);
	if (registered_base < 0)
		return 1;
	if (tstate.opt.watchdog_s)
		watchdog_ns = tstate.opt.watchdog_s * 1000000000ull;
	else
		watchdog_ns = (60000ull + 10ull * tstate.opt.duration_ms) *
			      1000000ull;
	if (tstate.opt.boost && torture_boost_setup(watchdog_ns) != 0)
		return 1;
	rcb_assign_pointer(torture_current, torture_obj_alloc());
	tstate.start_ns = tool_now_ns();
	if (torture_monitor_start(watchdog_ns) != 0)
		return 1;
	atomic_store(&tstate.phase, TORTURE_PHASE_RUN);
	start_workers(&w);
	if (tstate.opt.boost && torture_boost_start() != 0)
		return 1;

	tool_sleep_ns(tstate.opt.duration_ms * 1000000ull);
	tstate.end_ns = tool_now_ns();
	atomic_store_explicit(&tstate.stop, true, memory_order_release);
	atomic_store(&tstate.phase, TORTURE_PHASE_STOP);
	join_workers(&w);
	if (tstate.opt.boost)
		torture_boost_finish();
	atomic_store(&tstate.phase, TORTURE_PHASE_DRAIN);
	torture_final_drain();
	final_checks((unsigned long long)registered_base);

	atomic_store(&tstate.phase, TORTURE_PHASE_REPORT);
	pass = torture_total_errors() == 0;
	torture_report(stdout, pass);
	if (tstate.opt.json && torture_report_json(tstate.opt.json, pass) != 0)
		pass = false;
	torture_quarantine_drain();
	atomic_store(&tstate.phase, TORTURE_PHASE_DONE);
	torture_monitor_stop();
	free(tstate.rd);
	free(w.writers);
	free(w.fakes);
	return pass ? 0 : 1;
}
