/* SPDX-License-Identifier: MIT */
/* The inversion scenario's outputs: backlog series as CSV, gnuplot. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inversion.h"

extern char **environ;

long inv_series_at(const struct inv_result *r, double t_ms)
{
	size_t lo = 0, hi = r->nseries;

	if (!r->nseries || t_ms < r->series[0].t_ms ||
	    t_ms > r->series[r->nseries - 1].t_ms)
		return -1;
	/* The last sample at or before @t_ms. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->series[mid].t_ms <= t_ms)
			lo = mid;
		else
			hi = mid;
	}
	return r->series[lo].backlog;
}

int inv_write_csv(FILE *f, const struct inv_result *const *runs, int nruns,
		  double step_ms)
{
	double t0 = 0, t1 = 0;
	bool any = false;
	long rows;

	if (step_ms <= 0)
		return -EINVAL;
	for (int i = 0; i < nruns; i++) {
		const struct inv_result *r = runs[i];

		if (!r->nseries)
			continue;
		if (!any || r->series[0].t_ms < t0)
			t0 = r->series[0].t_ms;
		if (!any || r->series[r->nseries - 1].t_ms > t1)
			t1 = r->series[r->nseries - 1].t_ms;
		any = true;
	}
	fprintf(f, "time_ms");
	for (int i = 0; i < nruns; i++)
		fprintf(f, ",%s", runs[i]->name);
	fprintf(f, "\n");
	/* A grid of whole steps, from the first step at or after the
	 * earliest sample. */
	t0 = ceil(t0 / step_ms) * step_ms;
	rows = any ? (long)floor((t1 - t0) / step_ms) + 1 : 0;
	for (long k = 0; k < rows; k++) {
		double t = t0 + (double)k * step_ms;

		fprintf(f, "%.0f", t);
		for (int i = 0; i < nruns; i++) {
			long v = inv_series_at(runs[i], t);

			if (v >= 0)
				fprintf(f, ",%ld", v);
			else
				fprintf(f, ",");
		}
		fprintf(f, "\n");
	}
	return ferror(f) ? -EIO : 0;
}

int inv_gnuplot(const char *script)
{
	char *const argv[] = { "gnuplot", (char *)script, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int err, status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	/* Keep the caller's stdout for its report. */
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	err = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		return err == ENOENT ? -ENOENT : -EIO;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -EIO;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOENT;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}
