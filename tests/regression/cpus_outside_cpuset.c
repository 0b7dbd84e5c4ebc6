/* Bug : RCUBOOST_CPUS naming only CPUs outside the
 * process's cpuset was accepted, then every library thread failed to
 * start with EINVAL: 0 of 10 call_rcu() callbacks ran, yet rcu_barrier()
 * returned, and rcb_init() returned -EINVAL without naming the variable.
 * The same held after init when the cpuset shrank (or a CPU went
 * offline): a thread started later failed, and work was lost.  Now init
 * refuses such a list naming the setting and the CPUs allowed, and a
 * thread started after the CPUs were lost runs where it would without
 * RCUBOOST_CPUS, after one warning.
 *
 * The test process moves itself into a cpuset cgroup of its own (v2 or
 * v1, whichever the machine has; exit 77 where neither is writable),
 * allowed CPUs 0-1, initialises with RCUBOOST_CPUS=1, then restricts the
 * cgroup to CPU 0: a new worker, the default callback thread's first
 * start, call_rcu() and rcb_call() callbacks, a barrier and a polled
 * cookie must all work, and a worker pinned to CPU 1 must restart after
 * re-initialisation.  Then rcb_init() must refuse RCUBOOST_CPUS=1 (and
 * thread_cpus with only CPU 1) naming it and CPU 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rcuboost.h"
#include "rcuboost/urcu.h"
#include "tests/check.h"

/* The cgroup made for the test, and the one the process came from. */
static char cg_root[256], cg_home[512], cg_dir[576];
static bool cg_v2, cg_enabled_cpuset, cg_moved;

/* Write @text to @path: 0 or an errno.  Async-signal-safe. */
static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		err = errno;
	close(fd);
	return err;
}

static int put_in(const char *dir, const char *file, const char *text)
{
	char path[640];

	snprintf(path, sizeof(path), "%.576s/%.60s", dir, file);
	return put(path, text);
}

static bool get_in(const char *dir, const char *file, char *buf, size_t len)
{
	char path[640];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%.576s/%.60s", dir, file);
	if (!(f = fopen(path, "re")))
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* Back to the cgroup we came from, and remove ours.  Also from the
 * SIGALRM handler: open/write/rmdir only (snprintf of a pid is not on
 * the list, so the pid text is made beforehand). */
static char pid_text[32];

static void cg_cleanup(void)
{
	char path[640];

	if (cg_moved) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg_home);
		(void)put(path, pid_text);
		cg_moved = false;
	}
	if (cg_dir[0]) {
		(void)rmdir(cg_dir);
		cg_dir[0] = '\0';
	}
	if (cg_enabled_cpuset) {
		/* Fails harmlessly if another cgroup uses it meanwhile. */
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", cg_root);
		(void)put(path, "-cpuset");
		cg_enabled_cpuset = false;
	}
}

static void on_alarm(int sig)
{
	(void)sig;
	cg_cleanup();
	(void)!write(2, "timed out\n", 10);
	_exit(1);
}

static int skip(const char *why)
{
	printf("skip: %s; no writable cpuset cgroup (v2 with the cpuset controller, or v1)\n", why);
	cg_cleanup();
	return 77;
}

/* The mount point of the cpuset hierarchy into @mnt and the process's
 * cgroup in it into @home.  v2 first (the unified hierarchy, if cpuset is
 * one of its controllers), else v1. */
static bool cg_find(void)
{
	char line[1024], mnt[256] = "", home[512] = "";
	bool v2 = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char root[256], point[256], *dash = strstr(line, " - "),
					    type[32], opts[512];

		if (!dash || sscanf(line, "%*s %*s %*s %255s %255s", root, point) != 2 ||
		    sscanf(dash + 3, "%31s %*s %511s", type, opts) != 2 ||
		    strcmp(root, "/") != 0)
			continue;
		if (strcmp(type, "cgroup2") == 0) {
			char ctl[512];

			if (get_in(point, "cgroup.controllers", ctl, sizeof(ctl)) &&
			    strstr(ctl, "cpuset")) {
				snprintf(mnt, sizeof(mnt), "%s", point);
				v2 = true;
				break;
			}
		} else if (strcmp(type, "cgroup") == 0 && !mnt[0]) {
			for (char *o = strtok(opts, ","); o;
			     o = strtok(NULL, ","))
				if (strcmp(o, "cpuset") == 0)
					snprintf(mnt, sizeof(mnt), "%s", point);
		}
	}
	fclose(f);
	if (!mnt[0] || !(f = fopen("/proc/self/cgroup", "re")))
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'),
		     *path = ctl ? strchr(ctl + 1, ':') : NULL;

		if (!path)
			continue;
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
		if (v2 ? strcmp(ctl + 1, "") == 0 : strstr(ctl + 1, "cpuset") != NULL)
			snprintf(home, sizeof(home), "%s%.250s", mnt,
				 strcmp(path, "/") ? path : "");
	}
	fclose(f);
	if (!home[0])
		return false;
	snprintf(cg_root, sizeof(cg_root), "%s", mnt);
	snprintf(cg_home, sizeof(cg_home), "%s", home);
	cg_v2 = v2;
	return true;
}

/* Restrict our cgroup to @cpus ("0", "0-1"). */
static void cg_cpus(const char *cpus)
{
	int err = put_in(cg_dir, "cpuset.cpus", cpus);

	if (err)
		fprintf(stderr, "cpuset.cpus <- %s: %s\n", cpus, strerror(err));
	CHECK_EQ(err, 0);
	printf("cgroup: CPUs %s\n", cpus);
}

/* Make the cgroup and move this process into it.  0, or 77 (skip). */
static int cg_setup(void)
{
	char mems[256], ctl[512];
	int err;

	if (geteuid() != 0)
		return skip("not root");
	if (!cg_find())
		return skip("no cpuset hierarchy mounted");
	snprintf(pid_text, sizeof(pid_text), "%d", (int)getpid());
	if (cg_v2) {
		/* Under the hierarchy's root: a non-root cgroup that holds
		 * processes (ours) may not enable controllers below it. */
		if (!get_in(cg_root, "cgroup.subtree_control", ctl, sizeof(ctl)))
			return skip("cgroup v2: cgroup.subtree_control unreadable");
		if (!strstr(ctl, "cpuset")) {
			if ((err = put_in(cg_root, "cgroup.subtree_control", "+cpuset")))
				return skip(strerror(err));
			cg_enabled_cpuset = true;
		}
		snprintf(cg_dir, sizeof(cg_dir), "%s/rcb_cpus_%d", cg_root,
			 (int)getpid() & 0xfffffff);
	} else {
		snprintf(cg_dir, sizeof(cg_dir), "%s/rcb_cpus_%d", cg_home,
			 (int)getpid() & 0xfffffff);
	}
	if (mkdir(cg_dir, 0755) != 0) {
		err = errno;
		cg_dir[0] = '\0';
		return skip(strerror(err));
	}
	if (cg_v2 ? put_in(cg_dir, "cpuset.cpus", "0-1") != 0 :
		    (!get_in(cg_home, "cpuset.mems", mems, sizeof(mems)) ||
		     put_in(cg_dir, "cpuset.cpus", "0-1") != 0 ||
		     put_in(cg_dir, "cpuset.mems", mems) != 0))
		return skip("cannot set the new cgroup's cpuset.cpus or cpuset.mems");
	if ((err = put_in(cg_dir, "cgroup.procs", pid_text)) != 0)
		return skip(strerror(err));
	cg_moved = true;
	printf("in cpuset cgroup %s (v%d)\n", cg_dir, cg_v2 ? 2 : 1);
	return 0;
}

/* ---- the library ------------------------------------------------- */

static atomic_int ran;
static struct rcu_head uheads[10];
static struct rcb_head heads[10];

static void ucb(struct rcu_head *h)
{
	(void)h;
	atomic_fetch_add(&ran, 1);
}

static void cb(struct rcb_head *h)
{
	(void)h;
	atomic_fetch_add(&ran, 1);
}

/* @call's result, its stderr kept in @text. */
static int with_stderr(int (*call)(const struct rcb_config *),
		       const struct rcb_config *cfg, char *text, size_t len)
{
	FILE *f = tmpfile();
	int saved = dup(2), r;
	size_t n;

	CHECK(f && saved >= 0);
	fflush(stderr);
	CHECK(dup2(fileno(f), 2) == 2);
	r = call(cfg);
	fflush(stderr);
	CHECK(dup2(saved, 2) == 2);
	close(saved);
	rewind(f);
	n = fread(text, 1, len - 1, f);
	text[n] = '\0';
	fclose(f);
	fprintf(stderr, "%s", text);
	return r;
}

int main(void)
{
	struct rcb_config cfg = { .size = sizeof(cfg),
				  .thread_cpus = 1ull << 1 };
	struct rcb_worker_attr pin = { .size = sizeof(pin),
				       .flags = RCB_WORKER_PIN,
				       .cpu = 1 };
	struct rcb_worker *w, *pw;
	char text[2048];
	uint64_t cookie;
	int r;

	signal(SIGALRM, on_alarm);
	alarm(60);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("skip: needs CPUs 0 and 1 online\n");
		return 77;
	}
	if ((r = cg_setup()) != 0)
		return r;
	atexit(cg_cleanup);

	/* CPU 1 allowed at init, lost afterwards. */
	setenv("RCUBOOST_CPUS", "1", 1);
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_worker_create(&pin, &pw), 0);
	cg_cpus("0");
	r = rcb_worker_create(NULL, &w);
	printf("rcb_worker_create() after CPU 1 was lost: %d\n", r);
	CHECK_EQ(r, 0);
	CHECK_EQ(rcb_worker_set_thread(w), 0);
	for (int i = 0; i < 10; i++)
		CHECK_EQ(rcb_call(&heads[i], cb), 0);
	CHECK_EQ(rcb_worker_set_thread(NULL), 0);
	/* The default worker's thread starts here, for the first time. */
	for (int i = 0; i < 10; i++)
		call_rcu(&uheads[i], ucb);
	cookie = rcb_start_poll();
	rcu_barrier();
	printf("after rcu_barrier(): %d of 20 callbacks ran, cookie %s\n",
	       atomic_load(&ran), rcb_poll_state(cookie) == 1 ? "elapsed" : "NOT elapsed");
	CHECK_EQ(atomic_load(&ran), 20);
	CHECK_EQ(rcb_poll_state(cookie), 1);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(rcb_worker_destroy(w), 0);
	CHECK_EQ(rcb_shutdown(), 0);

	/* A worker pinned to CPU 1 restarts after re-initialisation
	 * (without RCUBOOST_CPUS, which init now refuses: below). */
	unsetenv("RCUBOOST_CPUS");
	CHECK_EQ(rcb_init(NULL), 0);
	CHECK_EQ(rcb_worker_set_thread(pw), 0);
	r = rcb_call(&heads[0], cb);
	printf("rcb_call() to a worker pinned to the lost CPU 1: %d\n", r);
	CHECK_EQ(r, 0);
	CHECK_EQ(rcb_worker_set_thread(NULL), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&ran), 21);
	/* A new worker pinned there is refused (no callback lost). */
	CHECK_EQ(rcb_worker_create(&pin, &w), -EINVAL);
	CHECK_EQ(rcb_worker_destroy(pw), 0);
	CHECK_EQ(rcb_shutdown(), 0);
	setenv("RCUBOOST_CPUS", "1", 1);

	/* Named at init: the variable, then the field. */
	r = with_stderr(rcb_init, NULL, text, sizeof(text));
	CHECK_EQ(r, -EINVAL);
	CHECK(strstr(text, "RCUBOOST_CPUS=\"1\"") != NULL);
	CHECK(strstr(text, "may use CPUs 0)") != NULL);
	unsetenv("RCUBOOST_CPUS");
	r = with_stderr(rcb_init, &cfg, text, sizeof(text));
	CHECK_EQ(r, -EINVAL);
	CHECK(strstr(text, "thread_cpus") != NULL);
	CHECK(strstr(text, "may use CPUs 0)") != NULL);

	/* Partly allowed: accepted, the threads run on CPU 0. */
	cfg.thread_cpus = 3;
	CHECK_EQ(rcb_init(&cfg), 0);
	CHECK_EQ(rcb_call(&heads[0], cb), 0);
	CHECK_EQ(rcb_barrier(), 0);
	CHECK_EQ(atomic_load(&ran), 22);
	CHECK_EQ(rcb_shutdown(), 0);
	return 0;
}
