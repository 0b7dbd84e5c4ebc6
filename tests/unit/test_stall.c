/* Stall detector: a leaked read lock and a reader stopped by a debugger are
 * reported (thread ID, state, nesting), once per stall; rcb_stall_report()
 * contract. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rcuboost.h"
#include "tests/unit/harness.h"

static char report[16384];
static atomic_int reader_tid, in_section, release, synced;
static int release_pipe[2];

static void *reader(void *arg)
{
	(void)arg;
	rcbt_set_name("stall-reader");
	atomic_store(&reader_tid, (int)gettid());
	rcb_read_lock();
	rcb_read_lock();
	rcb_read_lock();
	atomic_store(&in_section, 1);
	/* Sleeps (state S) until released, whatever the scheduler does. */
	while (!atomic_load(&release)) {
		char b;

		if (read(release_pipe[0], &b, 1) < 0 && errno != EINTR)
			break;
	}
	rcb_read_unlock();
	rcb_read_unlock();
	rcb_read_unlock();
	return NULL;
}

static void *syncer(void *arg)
{
	(void)arg;
	rcbt_set_name("stall-updater");
	CHECK_EQ(rcb_synchronize(), 0);
	atomic_store(&synced, 1);
	return NULL;
}

static void init_stall(int ms)
{
	struct rcb_config cfg = { .misuse = RCB_MISUSE_WARN, .stall_ms = ms };

	CHECK(pipe(release_pipe) == 0);

	CHECK_EQ(rcb_init(&cfg), 0);
}

static void do_release(void)
{
	atomic_store(&release, 1);
	CHECK_EQ(write(release_pipe[1], "x", 1), 1);
}

/* Wait (bounded) for the detector's report; returns its length. */
static int wait_report(double bound_s)
{
	struct timespec t0, t;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = rcb_stall_report(report, sizeof(report), 0);
		CHECK(n >= 0);
		if (n > 0)
			return n;
		clock_gettime(CLOCK_MONOTONIC, &t);
		CHECK((double)(t.tv_sec - t0.tv_sec) +
			      (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 <
		      bound_s);
		usleep(10000);
	}
}

static int count(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
		n++;
	return n;
}

/* The reader line names the thread, its state and nesting 3. */
static void check_reader_line(const char *state)
{
	char want[64];
	const char *line;

	snprintf(want, sizeof(want), "reader %d \"stall-reader\": %s",
		 atomic_load(&reader_tid), state);
	line = strstr(report, want);
	if (!line)
		fprintf(stderr, "no \"%s\" in:\n%s", want, report);
	CHECK(line != NULL);
	CHECK(strstr(line, "nesting 3, holding grace periods for at least") != NULL);
	CHECK(strstr(report, "\"stall-updater\" leads the grace period") != NULL);
	CHECK(strstr(report, "rcuboost: stall: callback backlog") != NULL);
}

/* A leaked read lock: one report on stderr and from the API. */
static void t_leaked(const struct rcbt_case *c)
{
	char again[sizeof(report)];
	pthread_t r, s;
	int n;

	(void)c;
	init_stall(200);
	CHECK_EQ(rcb_stall_report(report, sizeof(report), 0), 0);
	CHECK_EQ(pthread_create(&r, NULL, reader, NULL), 0);
	rcbt_wait_flag(&in_section);
	CHECK_EQ(pthread_create(&s, NULL, syncer, NULL), 0);
	n = wait_report(10);
	CHECK_EQ(n, (int)strlen(report));
	check_reader_line("sleeping");
	/* Once per stall: still the same single report much later. */
	rcbt_sleep_ms(600);
	CHECK_EQ(rcb_stall_report(again, sizeof(again), 0), n);
	CHECK_EQ(count(again, "has waited"), 1);
	CHECK(!atomic_load(&synced));
	/* On demand, now: the same reader. */
	CHECK(rcb_stall_report(report, sizeof(report), RCB_STALL_NOW) > 0);
	check_reader_line("sleeping");
	/* Truncation as snprintf(). */
	CHECK_EQ(rcb_stall_report(again, 10, RCB_STALL_NOW) >= 10, 1);
	CHECK_EQ(strlen(again), 9);
	do_release();
	pthread_join(r, NULL);
	pthread_join(s, NULL);
	CHECK(atomic_load(&synced));
	CHECK_EQ(rcb_stall_report(report, sizeof(report), RCB_STALL_NOW), 0);
	/* The stderr copy: exactly one report (the harness checks lines). */
	rcbt_expect("rcuboost: stall: grace period |has waited|for 1 reader (stall timeout 200 ms)");
	rcbt_expect("rcuboost: stall: reader %d \"stall-reader\": sleeping|nesting 3",
		    atomic_load(&reader_tid));
}

/* A reader stopped by a debugger (ptrace) while the updater runs. */
static void t_stopped(const struct rcbt_case *c)
{
	int to_child[2], to_parent[2];
	pthread_t r, s;
	pid_t pid;
	char b;

	(void)c;
	init_stall(200);
	CHECK_EQ(pthread_create(&r, NULL, reader, NULL), 0);
	rcbt_wait_flag(&in_section);
	CHECK(pipe(to_child) == 0 && pipe(to_parent) == 0);
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		pid_t tid = atomic_load(&reader_tid);
		int st;

		/* Stop just that thread, as a debugger in non-stop mode. */
		if (ptrace(PTRACE_SEIZE, tid, 0, 0) != 0 ||
		    ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0 ||
		    waitpid(tid, &st, __WALL) != tid) {
			perror("ptrace");
			_exit(1);
		}
		b = 's';
		if (write(to_parent[1], &b, 1) != 1 ||
		    read(to_child[0], &b, 1) != 1)
			_exit(1);
		ptrace(PTRACE_DETACH, tid, 0, 0);
		_exit(0);
	}
	CHECK_EQ(read(to_parent[0], &b, 1), 1);
	CHECK_EQ(pthread_create(&s, NULL, syncer, NULL), 0);
	wait_report(10);
	check_reader_line("stopped");
	do_release();
	CHECK_EQ(write(to_child[1], &b, 1), 1);
	{
		int st;

		CHECK_EQ(waitpid(pid, &st, 0), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	pthread_join(r, NULL);
	pthread_join(s, NULL);
	CHECK(atomic_load(&synced));
}

/* Contract: arguments, nothing to report, the detector off. */
static void t_api(const struct rcbt_case *c)
{
	char buf[8] = "x";

	(void)c;
	init_stall(-1);
	CHECK_EQ(rcb_stall_report(NULL, 1, 0), -EINVAL);
	rcbt_expect_misuse("rcb_stall_report", "buf is NULL with len 1");
	CHECK_EQ(rcb_stall_report(buf, sizeof(buf), 2), -EINVAL);
	rcbt_expect_misuse("rcb_stall_report", "flags 0x2 has bits other than RCB_STALL_NOW");
	CHECK_EQ(rcb_stall_report(NULL, 0, 0), 0);
	CHECK_EQ(rcb_stall_report(buf, sizeof(buf), 0), 0);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(rcb_stall_report(buf, sizeof(buf), RCB_STALL_NOW), 0);
	CHECK_EQ(rcb_synchronize(), 0);
}

static const struct rcbt_case cases[] = {
	{ .name = "leaked", .fn = t_leaked },
	{ .name = "stopped", .fn = t_stopped },
	{ .name = "api", .fn = t_api, .reject = { "rcuboost: stall:" } },
};

int main(int argc, char **argv)
{
	return rcbt_main(argc, argv, cases,
			 (int)(sizeof(cases) / sizeof(cases[0])));
}
