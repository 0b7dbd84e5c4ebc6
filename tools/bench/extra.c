/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-bench: figures, text and JSON shared by the scenarios of the
 * enhancements (pressure, escalate, boosters).  Each scenario runs once
 * per configuration and fills a struct bench_xres; this file prints its
 * figures as a table with ratios against every peer, and writes them as
 * JSON entries in the shape of the inversion scenario's.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "inversion.h"

/* The build directory's plots/ unless --plot-dir says otherwise: never the
 * working directory, which is often the source tree. */
const char *bench_plot_dir = RCB_BENCH_PLOT_DIR;

struct bench_xres *bench_x_new(const char *scenario, size_t priv_size,
			       void (*print_detail)(FILE *out, const struct bench_xres *x),
			       void (*json_detail)(FILE *f, const struct bench_xres *x))
{
	struct bench_xres *x = tool_xmalloc(sizeof(*x));

	memset(x, 0, sizeof(*x));
	x->scenario = scenario;
	x->priv = tool_xmalloc(priv_size);
	memset(x->priv, 0, priv_size);
	x->print_detail = print_detail;
	x->json_detail = json_detail;
	return x;
}

unsigned int bench_x_env_num(const char *name, unsigned int def)
{
	const char *v = getenv(name);
	long u = v ? strtol(v, NULL, 10) : 0;

	return u > 0 && u < 100000 ? (unsigned int)u : def;
}

void *bench_x_shared(struct bench_xres *x, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		x->status = -ENOMEM;
		snprintf(x->why, sizeof(x->why), "mmap: %s", strerror(errno));
		return NULL;
	}
	memset(p, 0, size);
	return p;
}

void bench_x_free(struct bench_xres *x)
{
	if (!x)
		return;
	if (x->free_priv)
		x->free_priv(x->priv);
	free(x->priv);
	free(x);
}

struct bench_xfig *bench_x_fig(struct bench_xres *x, const char *unit,
			       double value, const char *fmt, ...)
{
	struct bench_xfig *g;
	va_list ap;

	if (x->nfigs == BENCH_X_MAX_FIGS) {
		fprintf(stderr, "rcuboost-bench: %s: too many figures\n", x->scenario);
		abort();
	}
	g = &x->figs[x->nfigs++];
	memset(g, 0, sizeof(*g));
	va_start(ap, fmt);
	vsnprintf(g->name, sizeof(g->name), fmt, ap);
	va_end(ap);
	g->unit = unit;
	g->value = value;
	return g;
}

void bench_x_peer(struct bench_xfig *g, const char *name, double value)
{
	if (g->npeers == BENCH_X_MAX_PEERS)
		abort();
	g->peer[g->npeers].name = name;
	g->peer[g->npeers].value = value;
	g->npeers++;
}

double bench_x_ratio(double a, double b)
{
	if (isnan(a) || isnan(b) || b == 0)
		return NAN;
	return a / b;
}

/* The values of the rounds that ran, into @tmp; their number. */
static size_t rounds_ran(const int *ran, const double *v, unsigned int rounds, double *tmp)
{
	size_t n = 0;

	for (unsigned int i = 0; i < rounds && i < BENCH_MAX_ROUNDS; i++)
		if (ran[i] && !isnan(v[i]))
			tmp[n++] = v[i];
	return n;
}

double bench_x_median(const int *ran, const double *v, unsigned int rounds)
{
	double tmp[BENCH_MAX_ROUNDS];
	size_t n = rounds_ran(ran, v, rounds, tmp);

	return n ? tool_quantile(tmp, n, 0.5) : NAN;
}

double bench_x_spread(const int *ran, const double *v, unsigned int rounds)
{
	double tmp[BENCH_MAX_ROUNDS], med;
	size_t n = rounds_ran(ran, v, rounds, tmp);

	if (!n)
		return NAN;
	med = tool_quantile(tmp, n, 0.5); /* sorts tmp */
	return med != 0 ? (tmp[n - 1] - tmp[0]) / med : NAN;
}

void bench_x_json_runs(FILE *f, int nconf, const char *const *names,
		       const char *const *keys, int nkeys, const double *med,
		       int stride, const char *const *errors)
{
	fprintf(f, "\"runs\": [");
	for (int c = 0; c < nconf; c++) {
		const double *m = med + (size_t)c * (size_t)stride;

		fprintf(f, "%s\n      {\"name\": \"%s\", \"ok\": %s", c ? "," : "", names[c],
			!errors[c][0] && !isnan(m[0]) ? "true" : "false");
		for (int k = 0; k < nkeys; k++) {
			fprintf(f, ", \"%s\": ", keys[k]);
			tool_json_num(f, m[k]);
		}
		fprintf(f, ", \"error\": ");
		tool_json_str(f, errors[c]);
		fprintf(f, "}");
	}
	fprintf(f, "\n    ]");
}

static const struct bench_xpeer_goal {
	double bound;
	int have;
} no_goal;

static struct bench_xpeer_goal goal_of(const struct bench_xfig *g)
{
	struct bench_xpeer_goal r = no_goal;

	for (unsigned int k = 0; k < g->npeers; k++) {
		if (!strcmp(g->peer[k].name, BENCH_X_GOAL)) {
			r.bound = g->peer[k].value;
			r.have = 1;
		}
	}
	return r;
}

int bench_x_met(const struct bench_xfig *g)
{
	struct bench_xpeer_goal gl = goal_of(g);

	if (!gl.have || isnan(g->value) || isnan(gl.bound))
		return -1;
	return g->value <= gl.bound;
}

void bench_x_print_summary(FILE *out, const struct bench_xres *x,
			   unsigned int *met, unsigned int *goals)
{
	char buf[32];

	for (unsigned int i = 0; i < x->nfigs; i++) {
		const struct bench_xfig *g = &x->figs[i];

		if (!goal_of(g).have)
			continue;
		fprintf(out, " %s=%s%s", g->name, bench_num_str(g->value, buf, sizeof(buf)),
			isnan(g->value) ? "" : g->unit);
		(*goals)++;
		*met += bench_x_met(g) == 1;
	}
}

const char *bench_x_num_str(double v, char *buf, size_t len)
{
	if (v > 0 && v < 1)
		snprintf(buf, len, "%.3g", v);
	else
		bench_num_str(v, buf, len);
	return buf;
}

void bench_x_print_table(FILE *out, const struct bench_xres *x)
{
	char a[32], b[96], c[32];
	const struct bench_xfig *h = x->nfigs ? &x->figs[0] : NULL;

	if (x->print_detail)
		x->print_detail(out, x);
	if (x->status)
		return;
	fprintf(out, "\n%-34s %-9s %9s", "figure", "unit", "value");
	/* Columns: the peers of the first figure; a figure whose peers
	 * differ prints its own names in the cells. */
	for (unsigned int k = 0; h && k < h->npeers; k++)
		fprintf(out, " | %10s %7s", h->peer[k].name, "ratio");
	fprintf(out, " %4s\n", "met");
	for (unsigned int i = 0; i < x->nfigs; i++) {
		const struct bench_xfig *g = &x->figs[i];
		int m = bench_x_met(g);

		fprintf(out, "%-34s %-9s %9s", g->name, g->unit,
			bench_x_num_str(g->value, a, sizeof(a)));
		for (unsigned int k = 0; k < g->npeers; k++) {
			if (h && k < h->npeers && !strcmp(h->peer[k].name, g->peer[k].name))
				snprintf(b, sizeof(b), "%s",
					 bench_x_num_str(g->peer[k].value, c, sizeof(c)));
			else
				snprintf(b, sizeof(b), "%s=%s", g->peer[k].name,
					 bench_x_num_str(g->peer[k].value, c, sizeof(c)));
			fprintf(out, " | %10s %7s", b,
				bench_ratio_str(bench_x_ratio(g->value, g->peer[k].value), c,
						sizeof(c)));
		}
		for (unsigned int k = g->npeers; h && k < h->npeers; k++)
			fprintf(out, " | %10s %7s", "-", "-");
		fprintf(out, " %4s\n", m < 0 ? "-" : m ? "yes" : "no");
	}
	fprintf(out, "value = the enhancement's run; ratio = value / peer; \"goal\" = the bound\n"
		     "(met: value <= bound).\n");
	fprintf(out, "plot: %s\n%.1f s for the %s runs.\n", x->plot[0] ? x->plot : "none",
		x->elapsed_s, x->scenario);
}

void bench_x_print_runs(FILE *out, const struct bench_xtable *t)
{
	fprintf(out, "\n%-*s", t->label + 2, t->head);
	for (unsigned int c = 0; c < t->ncols; c++)
		fprintf(out, " %*s", t->width, t->cols[c]);
	fprintf(out, "\n");
	for (unsigned int i = 0; i < t->nrows; i++) {
		fprintf(out, "  %-*s", t->label, t->rows[i]);
		for (unsigned int c = 0; c < t->ncols; c++) {
			if (!t->ran[c])
				fprintf(out, " %*s", t->width, "not run");
			else
				t->cell(out, t->width, i, c, t->arg);
		}
		fprintf(out, "\n");
	}
	for (unsigned int c = 0; c < t->ncols; c++)
		if (t->errors[c] && t->errors[c][0])
			fprintf(out, "  %s: %s\n", t->cols[c], t->errors[c]);
}

void bench_x_cell_long(FILE *out, int width, int have, long v)
{
	if (have)
		fprintf(out, " %*ld", width, v);
	else
		fprintf(out, " %*s", width, "n/a");
}

unsigned int bench_x_json_count(const struct bench_xres *x)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < x->nfigs; i++)
		n += x->figs[i].npeers;
	return n;
}

static void rounds1(FILE *f, double v)
{
	fprintf(f, "[");
	if (!isnan(v))
		tool_json_num(f, v);
	fprintf(f, "]");
}

void bench_x_json_entry(FILE *f, const char *scenario, const char *name, const char *unit,
			double value, const char *peer, double peer_value, int met, int last)
{
	int is_goal = !strcmp(peer, BENCH_X_GOAL);
	int m = is_goal ? met : -1;

	fprintf(f, "    {\"name\": ");
	tool_json_str(f, name);
	fprintf(f, ", \"scenario\": ");
	tool_json_str(f, scenario);
	fprintf(f, ", \"unit\": ");
	tool_json_str(f, unit);
	fprintf(f, ", \"better\": \"lower\",\n     \"rcuboost\": ");
	tool_json_num(f, value);
	fprintf(f, ", \"rcuboost_spread\": null, \"rcuboost_rounds\": ");
	rounds1(f, value);
	fprintf(f, ",\n     \"peer\": ");
	tool_json_str(f, peer);
	fprintf(f, ", \"peer_value\": ");
	tool_json_num(f, peer_value);
	fprintf(f, ", \"peer_spread\": null, \"peer_rounds\": ");
	rounds1(f, is_goal ? NAN : peer_value);
	fprintf(f, ",\n     \"ratio\": ");
	tool_json_num(f, bench_x_ratio(value, peer_value));
	fprintf(f, ", \"goal\": %s, \"goal_met\": %s}%s\n", is_goal ? "\"<=1.00\"" : "null",
		m < 0 ? "null" : m ? "true" : "false", last ? "" : ",");
}

void bench_x_write_entries(FILE *f, const struct bench_xres *x, unsigned int *n,
			   unsigned int total)
{
	for (unsigned int i = 0; i < x->nfigs; i++) {
		const struct bench_xfig *g = &x->figs[i];

		for (unsigned int k = 0; k < g->npeers; k++)
			bench_x_json_entry(f, x->scenario, g->name, g->unit, g->value,
					   g->peer[k].name, g->peer[k].value, bench_x_met(g),
					   ++*n == total);
	}
}

void bench_x_write_detail(FILE *f, const struct bench_xres *x)
{
	fprintf(f, "{\n    \"status\": \"%s\", \"detail\": ",
		!x->status ? (x->failed ? "failed" : "ran") :
		x->status == -EPERM || x->status == -ENODEV ? "n/a" : "error");
	tool_json_str(f, x->why);
	fprintf(f, ", \"plot\": ");
	tool_json_str(f, x->plot);
	fprintf(f, ", \"elapsed_s\": ");
	tool_json_num(f, x->elapsed_s);
	if (x->json_detail) {
		fprintf(f, ",\n");
		x->json_detail(f, x);
	}
	fprintf(f, "\n  }");
}

FILE *bench_x_plot_file(struct bench_xres *x, const char *name, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", bench_plot_dir, name);
	if (mkdir(bench_plot_dir, 0777) != 0 && errno != EEXIST) {
		snprintf(x->plot, sizeof(x->plot), "none (cannot create %s: %s)", bench_plot_dir,
			 strerror(errno));
		return NULL;
	}
	f = fopen(path, "w");
	if (!f)
		snprintf(x->plot, sizeof(x->plot), "none (cannot write %s)", path);
	return f;
}

void bench_x_gnuplot(struct bench_xres *x, const char *name, int width, int height,
		     const char *fmt, ...)
{
	char file[64], gp[400], png[400];
	va_list ap;
	FILE *f;
	int err;

	snprintf(png, sizeof(png), "%s/%s.png", bench_plot_dir, name);
	snprintf(file, sizeof(file), "%s.gp", name);
	f = bench_x_plot_file(x, file, gp, sizeof(gp));
	if (!f)
		return;
	fprintf(f, "set terminal pngcairo size %d,%d\nset output '%s'\n", width, height, png);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	err = inv_gnuplot(gp);
	if (!err)
		snprintf(x->plot, sizeof(x->plot), "%s", png);
	else
		snprintf(x->plot, sizeof(x->plot), "none (%s; script %s)",
			 err == -ENOENT ? "gnuplot is not installed" : "gnuplot failed", gp);
}

void bench_x_futex_wait(_Atomic int *w, int val, long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	syscall(SYS_futex, (int *)w, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

void bench_x_freed_nop(void *payload, size_t bytes)
{
	(void)payload;
	(void)bytes;
}

int bench_x_child_error(int err, const char *why, char *error, size_t len)
{
	/* A hang overrides the child's own reason; a death does not. */
	if (err && (err == -ETIMEDOUT || !error[0]))
		snprintf(error, len, "%s", why);
	return err;
}

int bench_x_conf_child(void (*child)(void *arg), int conf, const void *pv, void *r,
		       unsigned int timeout_s, char *error, size_t len)
{
	struct bench_child c = { conf, pv, r };
	char why[256];

	return bench_x_child_error(bench_x_run_child(child, &c, timeout_s, why, sizeof(why)),
				   why, error, len);
}

int bench_x_conf_rounds(const char *scenario, void (*child)(void *arg), const void *pv,
			unsigned int *round, unsigned int rounds, int nconf,
			const char *const *names, unsigned int timeout_s, char *errors,
			size_t stride, size_t len)
{
	int failed = 0;

	for (unsigned int r = 0; r < rounds; r++) {
		tool_progress("rcuboost-bench: %s: round %u/%u:", scenario, r + 1, rounds);
		for (int i = 0; i < nconf; i++) {
			int c = r % 2 ? nconf - 1 - i : i;

			*round = r;
			if (bench_x_conf_child(child, c, pv, NULL, timeout_s,
					       errors + (size_t)c * stride, len))
				failed = 1;
			tool_progress(" %s", names[c]);
		}
		tool_progress("\n");
	}
	return failed;
}

int bench_x_rt_check(struct bench_xres *x, int prio)
{
	struct inv_params p;

	inv_params_default(&p);
	p.hog_prio = prio;
	x->status = inv_rt_check(&p, x->why, sizeof(x->why));
	if (x->status)
		tool_progress("rcuboost-bench: %s: n/a: %s\n", x->scenario, x->why);
	return x->status;
}

int bench_x_run_child(void (*fn)(void *), void *arg, unsigned int timeout_s, char *why,
		      size_t len)
{
	uint64_t deadline = tool_now_ns() + (uint64_t)timeout_s * 1000000000ull;
	int status, err;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		snprintf(why, len, "fork: %s", strerror(-err));
		return err;
	}
	if (pid == 0) {
		fn(arg);
		fflush(NULL);
		_exit(0);
	}
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			err = -errno;
			snprintf(why, len, "waitpid: %s", strerror(-err));
			return err;
		}
		if (tool_now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			snprintf(why, len, "the child hung; killed after %u s", timeout_s);
			return -ETIMEDOUT;
		}
		tool_sleep_ns(10000000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(why, len, "the child died (status 0x%x)", (unsigned int)status);
		return -ECHILD;
	}
	return 0;
}
