/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-bench: helpers of the scenarios, and configurations run in
 * child processes that report through shared memory.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "bench.h"

double bench_median(const double *v, unsigned int n)
{
	double tmp[BENCH_MAX_ROUNDS];
	unsigned int k = 0;

	for (unsigned int i = 0; i < n && i < BENCH_MAX_ROUNDS; i++)
		if (!isnan(v[i]))
			tmp[k++] = v[i];
	return k ? tool_median(tmp, k) : NAN;
}

double bench_status_kb(const char *name)
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

int bench_rt_check(struct bench_res *x, int prio)
{
	struct inv_params p;

	inv_params_default(&p);
	p.hog_prio = prio;
	x->status = inv_rt_check(&p, x->why, sizeof(x->why));
	if (x->status)
		tool_progress("rcuboost-bench: %s: n/a: %s\n", x->sc->name,
			      x->why);
	return x->status;
}

void bench_futex_wait(_Atomic int *w, int val, long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	syscall(SYS_futex, (int *)w, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

void bench_freed_nop(void *payload UNUSED, size_t bytes UNUSED)
{
}

unsigned int bench_parse_hogs(const char *arg, int *hog_ms)
{
	unsigned int n = 0, i;
	int v, len;

	/* Up to BENCH_MAX_HOGS distinct durations, inserted sorted. */
	for (const char *s = arg; n < BENCH_MAX_HOGS; s += len + 1) {
		if (sscanf(s, "%d%n", &v, &len) != 1 || v < 1 ||
		    v > INV_HOG_MS_MAX || (s[len] && s[len] != ',') ||
		    *s < '0' || *s > '9')
			break;
		for (i = n; i > 0 && hog_ms[i - 1] > v; i--)
			hog_ms[i] = hog_ms[i - 1];
		if (i > 0 && hog_ms[i - 1] == v)
			break;
		hog_ms[i] = v;
		if (++n, !s[len])
			return n;
	}
	fprintf(stderr, "rcuboost-bench: --hog-ms: expected 1 to %d distinct "
		"durations in ms from 1 to %d, comma-separated, got '%s'\n",
		BENCH_MAX_HOGS, INV_HOG_MS_MAX, arg);
	return 0;
}

/* @child in a child process for @timeout_s at most; 0, or -1 with the
 * reason in r->error unless it gave one (a hang overrides it). */
static int fork_one(void (*child)(int, unsigned int, struct bench_cres *),
		    int conf, unsigned int round, struct bench_cres *r,
		    unsigned int timeout_s)
{
	uint64_t end = tool_now_ns() + (uint64_t)timeout_s * 1000000000ull;
	int status;
	pid_t pid, w;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		child(conf, round, r);
		fflush(NULL);
		_exit(0);
	}
	while (pid > 0 && (w = waitpid(pid, &status, WNOHANG)) != pid) {
		if (w < 0 && errno != EINTR)
			break;
		if (tool_now_ns() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			snprintf(r->error, sizeof(r->error),
				 "the child hung; killed after %u s",
				 timeout_s);
			return -1;
		}
		tool_sleep_ns(10000000);
	}
	if (pid > 0 && w == pid && WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (!r->error[0])
		snprintf(r->error, sizeof(r->error), "fork, or the child died");
	return -1;
}

struct bench_cres *bench_confs(struct bench_res *x,
			       void (*child)(int, unsigned int,
					     struct bench_cres *),
			       int nconf, const char *const *names,
			       const struct bench_cfig *figs, int nfig,
			       unsigned int rounds, unsigned int timeout_s)
{
	struct bench_cres *res = mmap(NULL, (size_t)nconf * sizeof(*res),
				      PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (res == MAP_FAILED) {
		x->status = -ENOMEM;
		snprintf(x->why, sizeof(x->why), "mmap: %s", strerror(errno));
		return NULL;
	}
	for (int c = 0; c < nconf; c++) {
		res[c].na = res[c].error[0] = 0;
		for (int f = 0; f < BENCH_CONF_FIGS; f++)
			for (unsigned int r = 0; r < BENCH_MAX_ROUNDS; r++)
				res[c].v[f][r] = NAN;
	}
	for (unsigned int r = 0; r < rounds; r++) {
		tool_progress("rcuboost-bench: %s: round %u/%u:", x->sc->name,
			      r + 1, rounds);
		for (int i = 0; i < nconf; i++) {
			int c = r % 2 ? nconf - 1 - i : i;

			tool_progress(" %s", names[c]);
			fork_one(child, c, r, &res[c], timeout_s);
		}
		tool_progress("\n");
	}
	for (int c = 0; c < nconf; c++) {
		if (res[c].na)
			x->status = -EPERM;
		x->failed |= res[c].error[0] != 0;
		if (res[c].error[0])
			snprintf(x->why, sizeof(x->why), "%s: %.200s",
				 names[c], res[c].error);
	}
	x->vname = names[0];
	for (int f = 0; !x->status && f < nfig; f++) {
		struct bench_fig *g =
			bench_fig(x, figs[f].unit,
				  bench_median(res[0].v[f], rounds), "%s",
				  figs[f].name);

		g->higher = figs[f].higher;
		for (int c = 1; c < nconf; c++)
			bench_peer(g, names[c],
				   bench_median(res[c].v[f], rounds));
		if (figs[f].bound)
			bench_bound(g, figs[f].bound);
	}
	return res;
}
