/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-demo, scenario "inversion": the priority inversion that RCU
 * priority boosting exists for, run three ways in one invocation
 * (rcuboost with boosting off, with boosting on, liburcu urcu-memb) by
 * the scenario engine in tools/common/inversion.c.  This file prints the
 * comparison and writes the CSV, the gnuplot script, the SVG and the
 * JSON.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inversion.h"
#include "demo.h"

#define NRUNS 3

static const struct inv_flavor_ops *const run_ops[NRUNS] = {
	&inv_flavor_rcuboost_off,
	&inv_flavor_rcuboost_on,
	&inv_flavor_urcu_memb,
};

/* Plot colours and legend titles, in run_ops order. */
static const char *const run_colour[NRUNS] = { "#d62728", "#2ca02c", "#1f77b4" };
static const char *const run_title[NRUNS] = {
	"rcuboost, boosting off", "rcuboost, boosting on", "liburcu urcu-memb",
};

static void progress(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "rcuboost-demo: %s\n", msg);
}

/* mkdir -p @dir; 0 or -errno. */
static int make_dir(const char *dir)
{
	char path[4096];
	size_t len = strlen(dir);

	if (len == 0 || len >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			return -errno;
		path[i] = dir[i];
	}
	return 0;
}

/* Write @s as a gnuplot double-quoted string. */
static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void path_join(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s%s%s", dir,
		 dir[strlen(dir) - 1] == '/' ? "" : "/", name);
}

static int write_csv(const char *path, const struct inv_result *res,
		     const struct inv_params *p)
{
	const struct inv_result *runs[NRUNS];
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -errno;
	for (int i = 0; i < NRUNS; i++)
		runs[i] = &res[i];
	err = inv_write_csv(f, runs, NRUNS, p->sample_ms);
	if (fclose(f) != 0 && !err)
		err = -errno;
	return err;
}

/* The main plot's area, in screen coordinates. */
#define GP_L 0.09
#define GP_R 0.97
#define GP_B 0.11
#define GP_T 0.87

static double gp_sx(double x, double xmin, double xmax)
{
	return GP_L + (GP_R - GP_L) * (x - xmin) / (xmax - xmin);
}

/* Plot order: the boosted run last, on top of the two that coincide. */
static const int plot_order[NRUNS] = { 0, 2, 1 };

static void gp_plot(FILE *f, const char *csv, const struct inv_result *res,
		    bool titles)
{
	char title[160];

	fprintf(f, "plot ");
	for (int k = 0; k < NRUNS; k++) {
		int i = plot_order[k];

		fprintf(f, "%s", k ? ", \\\n     " : "");
		gp_str(f, k ? "" : csv);
		fprintf(f, " using 1:%d with lines lw %s lc rgb '%s'%s ", i + 2,
			i == 1 ? "3" : "2.5", run_colour[i], i == 2 ? " dt 2" : "");
		if (titles) {
			snprintf(title, sizeof(title),
				 "%s: peak %ld, longest grace period %.0f ms", run_title[i],
				 res[i].peak_backlog, res[i].gp_max_ms);
			fprintf(f, "title ");
			gp_str(f, title);
		} else {
			fprintf(f, "notitle");
		}
	}
	fprintf(f, "\n");
}

/* The inset's time span: the boosted run's section and as much again. */
static int zoom_ms(const struct inv_result *res, const struct inv_params *p)
{
	int ms = ((int)(res[1].reader_held_ms * 2.5) + 49) / 50 * 50;

	ms = ms < 100 ? 100 : ms;
	return ms > p->hog_ms ? p->hog_ms : ms;
}

/* The inset's height: what the unboosted runs reach in its span. */
static long zoom_max(const struct inv_result *res, const struct inv_params *p)
{
	long m = (long)zoom_ms(res, p) * 1000 / p->cb_period_us + 10;

	return m > res[1].peak_backlog ? m : res[1].peak_backlog + 10;
}

static int write_gp(const char *path, const char *csv, const char *svg,
		    const struct inv_result *res, const struct inv_params *p)
{
	double xmin = -p->warmup_ms, xmax = p->hog_ms + p->tail_ms;
	long ymax = 10;
	FILE *f = fopen(path, "w");
	double ix0, ix1, iy0, iy1;
	char title[256];

	if (!f)
		return -errno;
	for (int i = 0; i < NRUNS; i++)
		if (res[i].peak_backlog * 13 / 10 > ymax)
			ymax = res[i].peak_backlog * 13 / 10;
	fprintf(f, "# rcuboost-demo: callback backlog over time; run: gnuplot %s\n", path);
	fprintf(f, "set terminal svg size 1000,640 dynamic noenhanced font 'sans,13' "
		   "background rgb 'white'\n");
	fprintf(f, "set output ");
	gp_str(f, svg);
	fprintf(f, "\nset datafile separator ','\n");
	snprintf(
		title, sizeof(title),
		"Priority inversion: a SCHED_FIFO %d reader preempted in its read-side "
		"critical section\\nby a SCHED_FIFO %d hog on CPU %d for %d ms; "
		"one %d-byte object retired every %d us",
		p->reader_prio, p->hog_prio, INV_RT_CPU, p->hog_ms,
		p->obj_bytes, p->cb_period_us);
	fprintf(f, "set title \"%s\"\n", title);
	fprintf(f, "set xlabel 'time since the hog started (ms)'\n");
	fprintf(f, "set ylabel 'callbacks waiting (retired, not yet freed)'\n");
	fprintf(f, "set key top right box opaque\n");
	fprintf(f, "set grid\n");
	/* Fixed margins, so that the inset can be placed in data terms. */
	fprintf(f, "set lmargin at screen %.2f\nset rmargin at screen %.2f\n", GP_L, GP_R);
	fprintf(f, "set bmargin at screen %.2f\nset tmargin at screen %.2f\n", GP_B, GP_T);
	fprintf(f, "set xrange [%.0f:%.0f]\nset yrange [0:%ld]\n", xmin, xmax, ymax);
	fprintf(f, "set object 1 rect from 0, graph 0 to %d, graph 1 behind "
		   "fillcolor rgb '#fbe3e3' fillstyle solid 1.0 noborder\n", p->hog_ms);
	/* Bottom right of the hog's span, under the rising lines. */
	fprintf(f, "set label 1 'the hog runs on CPU %d' at %d, graph 0.05 right offset -1,0\n",
		INV_RT_CPU, p->hog_ms);
	fprintf(f, "set multiplot\n");
	gp_plot(f, csv, res, true);

	/*
	 * An inset on the first moments of the hog, where the boosted run's
	 * backlog rises with the others, then falls.  It sits above the
	 * rising lines: left of 45% of the hog, the unboosted backlog stays
	 * under 45% of its peak, i.e. under 35% of the y range.
	 */
	ix0 = gp_sx(xmin + 0.05 * (xmax - xmin), xmin, xmax);
	ix1 = gp_sx(0.45 * p->hog_ms, xmin, xmax);
	iy0 = GP_B + (GP_T - GP_B) * 0.42;
	iy1 = GP_B + (GP_T - GP_B) * 0.82;
	fprintf(f, "unset title\nunset label 1\nunset key\n");
	fprintf(f, "set lmargin at screen %.3f\nset rmargin at screen %.3f\n",
		ix0 + 0.05, ix1 - 0.01);
	fprintf(f, "set bmargin at screen %.3f\nset tmargin at screen %.3f\n",
		iy0 + 0.07, iy1 - 0.02);
	fprintf(f, "set xrange [%d:%d]\n", -p->sample_ms * 5, zoom_ms(res, p));
	fprintf(f, "set yrange [0:%ld]\n", zoom_max(res, p));
	fprintf(f, "set xlabel 'zoom: first %d ms of the hog' font ',11' offset 0,0.6\n",
		zoom_ms(res, p));
	fprintf(f, "unset ylabel\nset tics font ',10'\nset xtics offset 0,0.3\n");
	/* "behind": the inset's white ground covers the main plot. */
	fprintf(f, "set object 1 rect from screen %.3f, screen %.3f to screen %.3f, "
		   "screen %.3f behind fillcolor rgb 'white' fillstyle solid 1.0 "
		   "border lc rgb '#808080'\n", ix0, iy0, ix1, iy1);
	fprintf(f, "set object 2 rect from 0, graph 0 to %d, graph 1 behind "
		   "fillcolor rgb '#fbe3e3' fillstyle solid 1.0 noborder\n", p->hog_ms);
	gp_plot(f, csv, res, false);
	fprintf(f, "unset multiplot\n");
	if (fclose(f) != 0)
		return -errno;
	return 0;
}

static void json_run(FILE *j, const struct inv_result *r)
{
	char bs[2048];

	fprintf(j, "    {\"name\": ");
	tool_json_str(j, r->name);
	fprintf(j, ", \"library\": ");
	tool_json_str(j, r->library);
	fprintf(j, ", \"ok\": %s, \"error\": ", r->ok ? "true" : "false");
	tool_json_str(j, r->error);
	fprintf(j, ",\n     \"hog_ms\": %.3f, \"reader_held_ms\": %.3f, "
		   "\"reader_restored\": %s, \"threads_restored\": %s, \"cpu0_threads\": %d,\n",
		r->hog_ms, r->reader_held_ms, r->reader_restored ? "true" : "false",
		r->threads_restored ? "true" : "false", r->cpu0_threads);
	fprintf(j, "     \"gp_max_ms\": %.3f, \"gp_p99_ms\": %.3f, \"gp_median_ms\": %.3f, "
		   "\"gp_count\": %ld,\n",
		r->gp_max_ms, r->gp_p99_ms, r->gp_median_ms, r->gp_count);
	fprintf(j, "     \"queued\": %ld, \"invoked\": %ld, \"peak_backlog\": %ld, "
		   "\"peak_backlog_bytes\": %ld,\n",
		r->queued, r->invoked, r->peak_backlog, r->peak_backlog_bytes);
	if (r->have_lib_backlog)
		fprintf(j, "     \"lib_backlog\": {\"peak_callbacks\": %llu, \"peak_bytes\": %llu, "
			   "\"callbacks\": %llu},\n",
			(unsigned long long)r->lib.peak_callbacks,
			(unsigned long long)r->lib.peak_bytes,
			(unsigned long long)r->lib.callbacks);
	else
		fprintf(j, "     \"lib_backlog\": null,\n");
	if (r->have_boost_stats) {
		size_t n;

		rcb_boost_stats_format(&r->bs, bs, sizeof(bs), 1);
		n = strlen(bs);
		while (n && bs[n - 1] == '\n')
			bs[--n] = '\0';
		fprintf(j, "     \"boost_stats\": %s}", bs[0] == '{' ? bs : "null");
	} else {
		fprintf(j, "     \"boost_stats\": null}");
	}
}

static int write_json(const char *path, const struct inv_result *res,
		      const struct inv_params *p, bool ok, const char *csv,
		      const char *gp, const char *svg)
{
	FILE *j = tool_json_open(path);

	if (!j)
		return -EIO;
	fprintf(j, "{\n  \"tool\": \"rcuboost-demo\",\n  \"scenario\": \"inversion\",\n");
	fprintf(j, "  \"result\": \"%s\",\n", ok ? "OK" : "FAIL");
	fprintf(j,
		"  \"params\": {\"hog_ms\": %d, \"hog_prio\": %d, \"reader_prio\": %d, "
		"\"rt_cpu\": %d, \"other_cpu\": %d, \"cb_period_us\": %d, "
		"\"obj_bytes\": %d, \"sync_pause_us\": %d, \"warmup_ms\": %d, "
		"\"tail_ms\": %d, \"sample_ms\": %d},\n",
		p->hog_ms, p->hog_prio, p->reader_prio, INV_RT_CPU,
		INV_OTHER_CPU, p->cb_period_us, p->obj_bytes, p->sync_pause_us,
		p->warmup_ms, p->tail_ms, p->sample_ms);
	fprintf(j, "  \"runs\": [\n");
	for (int i = 0; i < NRUNS; i++) {
		json_run(j, &res[i]);
		fprintf(j, "%s\n", i < NRUNS - 1 ? "," : "");
	}
	fprintf(j, "  ],\n  \"files\": {\"csv\": ");
	tool_json_str(j, csv);
	fprintf(j, ", \"gnuplot\": ");
	tool_json_str(j, gp);
	fprintf(j, ", \"svg\": ");
	if (svg)
		tool_json_str(j, svg);
	else
		fprintf(j, "null");
	fprintf(j, "}\n}\n");
	return tool_json_close(j, path);
}

/* One row of the side-by-side table. */
#define ROW(label, fmt, expr)                                         \
	do {                                                          \
		printf("  %-34s", label);                             \
		for (int i_ = 0; i_ < NRUNS; i_++) {                  \
			const struct inv_result *r = &res[i_];        \
			printf(" %13" fmt, expr);                     \
		}                                                     \
		printf("\n");                                         \
	} while (0)

static const char *yes_no(int v)
{
	return v ? "yes" : "NO";
}

static void print_report(const struct inv_result *res,
			 const struct inv_params *p)
{
	const struct inv_result *off = &res[0], *on = &res[1], *urcu = &res[2];
	char b[NRUNS][32], b2[NRUNS][32];

	printf("\nA SCHED_FIFO %d reader on CPU %d was preempted inside its read-side critical\n"
	       "section by a SCHED_FIFO %d CPU hog on CPU %d for %d ms.  Meanwhile, on CPU %d, an\n"
	       "updater replaced a %d-byte object every %d us and retired the old one\n"
	       "through call_rcu (rcb_call_sized), and another thread timed synchronize in a\n"
	       "loop.  Backlog = objects retired and not yet freed, counted the same way for\n"
	       "every run.\n\n",
	       p->reader_prio, INV_RT_CPU, p->hog_prio, INV_RT_CPU, p->hog_ms,
	       INV_OTHER_CPU, p->obj_bytes, p->cb_period_us);
	printf("  %-34s", "");
	for (int i = 0; i < NRUNS; i++)
		printf(" %13s", res[i].name);
	printf("\n");
	ROW("library", "s", r->library[0] == 'l' ? "liburcu" : r->library);
	ROW("reader held its section (ms)", ".1f", r->reader_held_ms);
	ROW("grace period max (ms)", ".1f", r->gp_max_ms);
	ROW("grace period p99 (ms)", ".3f", r->gp_p99_ms);
	ROW("grace period median (ms)", ".3f", r->gp_median_ms);
	ROW("grace periods timed", "ld", r->gp_count);
	ROW("peak backlog (callbacks)", "ld", r->peak_backlog);
	for (int i = 0; i < NRUNS; i++)
		demo_bytes((uint64_t)res[i].peak_backlog_bytes, b[i],
			   sizeof(b[i]));
	ROW("peak backlog (bytes)", "s", b[r - res]);
	for (int i = 0; i < NRUNS; i++) {
		snprintf(b[i], sizeof(b[i]), "-");
		snprintf(b2[i], sizeof(b2[i]), "-");
		if (res[i].have_lib_backlog) {
			snprintf(b[i], sizeof(b[i]), "%llu",
				 (unsigned long long)res[i].lib.peak_callbacks);
			demo_bytes(res[i].lib.peak_bytes, b2[i], sizeof(b2[i]));
		}
	}
	ROW("rcb_backlog() peak (callbacks)", "s", b[r - res]);
	ROW("rcb_backlog() peak (bytes)", "s", b2[r - res]);
	ROW("callbacks queued", "ld", r->queued);
	ROW("callbacks invoked", "ld", r->invoked);
	ROW("reader attributes restored", "s", yes_no(r->reader_restored));
	ROW("RT threads' attributes restored", "s", yes_no(r->threads_restored));
	ROW("result", "s", r->ok ? "OK" : "FAIL");
	for (int i = 0; i < NRUNS; i++)
		if (!res[i].ok)
			printf("  %s: %s\n", res[i].name, res[i].error);

	if (on->have_boost_stats) {
		printf("\nBoost statistics of the %s run (rcb_boost_stats_format; this run's "
		       "counters):\n", on->name);
		for (const char *s = on->boost_stats_text; *s;) {
			const char *nl = strchr(s, '\n');
			int n = nl ? (int)(nl - s) : (int)strlen(s);

			printf("  %.*s\n", n, s);
			s += n + (nl ? 1 : 0);
		}
		if (!on->bs.enabled)
			printf("  (boosting is not enabled: RCUBOOST_BOOST or the "
			       "configuration turned it off)\n");
		else if (on->bs.no_permission)
			printf("  (the booster was refused real-time priority: nothing was "
			       "boosted)\n");
	} else {
		printf("\nNo boost statistics: this librcuboost was built without boosting "
		       "(RCB_BOOST=OFF),\nso the %s run could not boost.\n", on->name);
	}

	printf("\n");
	if (on->gp_max_ms > 0 && off->gp_max_ms > 0)
		printf("Boosting cut the longest grace period from %.0f ms to %.0f ms (%.0fx shorter)\n"
		       "and the peak backlog from %ld to %ld callbacks (%s to %s).\n",
		       off->gp_max_ms, on->gp_max_ms,
		       off->gp_max_ms / on->gp_max_ms, off->peak_backlog,
		       on->peak_backlog,
		       demo_bytes((uint64_t)off->peak_backlog_bytes, b[0],
				  sizeof(b[0])),
		       demo_bytes((uint64_t)on->peak_backlog_bytes, b[1],
				  sizeof(b[1])));
	printf("liburcu urcu-memb, which does not boost, waited %.0f ms and queued up to %ld\n"
	       "callbacks: without boosting, the backlog grows for as long as the hog runs.\n",
	       urcu->gp_max_ms, urcu->peak_backlog);
}

/* Print @s word-wrapped at @width columns, each line indented. */
static void print_wrapped(const char *s, int indent, int width)
{
	while (*s) {
		int n = (int)strlen(s), cut = n;

		if (n > width - indent) {
			cut = width - indent;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = width - indent;
		}
		printf("%*s%.*s\n", indent, "", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
}

/* Without real-time permission or CPUs 0 and 1 (@err): say why, and run
 * 'routing' instead unless --require-rt (77: skipped). */
static int cannot_stage(int err, const char *why, const struct demo_opts *opt)
{
	printf("rcuboost-demo: inversion SKIPPED reason=%s\n",
	       err == -EPERM ? "no-realtime-permission" : "cpus");
	if (!opt->quiet) {
		printf("\nThis demonstration cannot show the priority inversion:\n");
		print_wrapped(why, 2, 78);
		if (err == -EPERM)
			printf("Without real-time threads there is no inversion to show (a "
			       "SCHED_OTHER\nhog does not starve a reader), so no figures are "
			       "printed for it.\n");
		else
			printf("The hog must never share a CPU with the updater and the "
			       "library's threads,\nso the inversion cannot be staged here.\n");
	}
	if (opt->require_rt)
		return 77;
	if (!opt->quiet)
		printf("Running the 'routing' scenario instead.\n\n");
	return demo_routing.run(opt);
}

/* The three runs, then the summary line; true if every run held. */
static bool run_all(struct inv_result *res, const struct inv_params *p,
		    const struct demo_opts *opt)
{
	bool ok = true;

	for (int i = 0; i < NRUNS; i++) {
		int err;

		if (!opt->quiet)
			fprintf(stderr, "rcuboost-demo: run %d/%d: %s (%s)\n", i + 1, NRUNS,
				run_ops[i]->name, run_ops[i]->library);
		err = inv_run(run_ops[i], p, &res[i]);
		if (err) {
			fprintf(stderr, "rcuboost-demo: %s: %s\n", run_ops[i]->name,
				res[i].error);
			if (!res[i].error[0])
				snprintf(res[i].error, sizeof(res[i].error),
					 "%s", strerror(-err));
		}
		ok = ok && res[i].ok;
	}
	printf("rcuboost-demo: inversion hog=%dms", p->hog_ms);
	for (int i = 0; i < NRUNS; i++)
		printf("%s %s gp_max=%.0fms backlog_peak=%ld", i ? " |" : "", res[i].name,
		       res[i].gp_max_ms, res[i].peak_backlog);
	printf(" | result=%s\n", ok ? "OK" : "FAIL");
	return ok;
}

/* backlog.csv, backlog.gp and (gnuplot) backlog.svg in --out, then the
 * JSON; false if one could not be written. */
static bool write_files(const struct inv_result *res,
			const struct inv_params *p, const struct demo_opts *opt,
			bool ok)
{
	char csv[4096], gp[4096], svg[4096];
	const char *svg_done = NULL;
	int err;

	path_join(csv, sizeof(csv), opt->out_dir, "backlog.csv");
	path_join(gp, sizeof(gp), opt->out_dir, "backlog.gp");
	path_join(svg, sizeof(svg), opt->out_dir, "backlog.svg");
	err = make_dir(opt->out_dir);
	if (!err && (err = write_csv(csv, res, p)) == 0)
		err = write_gp(gp, csv, svg, res, p);
	if (err) {
		fprintf(stderr, "rcuboost-demo: cannot write in %s: %s\n", opt->out_dir,
			strerror(-err));
		ok = false;
	} else {
		err = inv_gnuplot(gp);
		if (err == -ENOENT)
			fprintf(stderr, "rcuboost-demo: gnuplot is not installed, so no SVG "
					"(apt-get install gnuplot-nox); the CSV and the script are "
					"written\n");
		else if (err)
			fprintf(stderr, "rcuboost-demo: gnuplot %s failed\n", gp);
		else
			svg_done = svg;
		if (err == -EIO)
			ok = false;
		if (!opt->quiet) {
			printf("\nFiles:\n  %-9s %s\n  %-9s %s\n", "CSV", csv, "gnuplot", gp);
			printf("  %-9s %s\n", "SVG", svg_done ? svg_done : "(not written)");
		}
	}
	if (opt->json) {
		if (write_json(opt->json, res, p, ok, csv, gp, svg_done) != 0)
			ok = false;
		else if (!opt->quiet)
			printf("  %-9s %s\n", "JSON", opt->json);
	}
	return ok;
}

static int inversion_run(const struct demo_opts *opt)
{
	struct inv_result res[NRUNS];
	struct inv_params p;
	char why[512];
	bool ok;
	int err;

	inv_params_default(&p);
	p.hog_ms = (int)opt->hog_ms;
	p.cb_period_us = (int)opt->period_us;
	p.obj_bytes = (int)opt->obj_bytes;
	if (!opt->quiet)
		p.progress = progress;
	if (inv_params_check(&p, why, sizeof(why)) != 0) {
		fprintf(stderr, "rcuboost-demo: %s\n", why);
		return 2;
	}
	err = inv_rt_check(&p, why, sizeof(why));
	if (err)
		return cannot_stage(err, why, opt);
	/* Generous: three runs of warm-up + hog + tail, plus every
	 * internal timeout, plus gnuplot. */
	inv_watchdog(
		"rcuboost-demo",
		3 * ((unsigned int)(p.warmup_ms + p.hog_ms + p.tail_ms) / 1000 +
		     15) +
			30);
	/* The library's threads inherit CPU 1 from the thread that starts
	 * them: never CPU 0, where the hog runs.  (inv_run() does this
	 * too; this covers anything started before it.) */
	err = tool_pin_self(INV_OTHER_CPU);
	if (err) {
		fprintf(stderr, "rcuboost-demo: cannot run on CPU %d: %s\n", INV_OTHER_CPU,
			strerror(-err));
		return 1;
	}
	ok = run_all(res, &p, opt);
	if (!opt->quiet)
		print_report(res, &p);
	ok = write_files(res, &p, opt, ok);
	for (int i = 0; i < NRUNS; i++)
		inv_result_free(&res[i]);
	alarm(0);
	return ok ? 0 : 1;
}

const struct demo_scenario demo_inversion = {
	.name = "inversion",
	.summary = "a real-time reader preempted in its critical section by a hog: "
		   "boosting off, on, and liburcu side by side",
	.run = inversion_run,
};
