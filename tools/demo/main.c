/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-demo: small programs that show what RCU does.  The command
 * line picks a scenario from the table below; each scenario is one file.
 * The first entry is the default.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rcuboost.h"
#include "demo.h"

static const struct demo_scenario *const scenarios[] = {
	&demo_inversion,
	&demo_routing,
};

#define NSCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rcuboost-demo [OPTION]...\n"
		"Show read-copy update at work.  The default scenario, 'inversion', shows a\n"
		"real-time reader preempted inside its critical section by a higher-priority\n"
		"CPU hog, and what priority boosting does about it: run three ways (rcuboost\n"
		"with boosting off, with boosting on, liburcu urcu-memb), it prints grace-period\n"
		"latency and peak callback backlog side by side and writes the backlog over\n"
		"time as CSV and SVG.  It needs real-time permission (root or CAP_SYS_NICE)\n"
		"and CPUs 0 and 1; without, it says why and runs 'routing' instead.\n"
		"\n"
		"  -S, --scenario=NAME      scenario to run (default inversion; see --list)\n"
		"  -l, --list               list the scenarios\n"
		"  -j, --json=FILE          also write the figures as JSON to FILE\n"
		"  -q, --quiet              print the summary line only\n"
		"  -h, --help               show this help\n"
		"inversion:\n"
		"      --hog-ms=MS          how long the hog runs, 1..10000 (default 3000)\n"
		"      --period-us=US       the updater retires one object every US (default 1000)\n"
		"      --obj-bytes=N        size of each object (default 4096)\n"
		"  -o, --out=DIR            write backlog.csv, backlog.gp and backlog.svg in DIR\n"
		"                           (default ./rcuboost-demo-out)\n"
		"      --require-rt         without real-time permission exit 77 (skipped)\n"
		"                           instead of running 'routing'\n"
		"routing:\n"
		"  -d, --duration-ms=MS     run for MS milliseconds (default 3000)\n"
		"  -r, --readers=N          reader threads (default 2)\n"
		"      --routes=N           initial table size (default 256)\n"
		"      --update-us=US       pause between table versions (default 500)\n"
		"  -s, --seed=N             random seed (default 1)\n"
		"\n"
		"The environment variables of the library apply, e.g. RCUBOOST_PRIO=60.\n"
		"Exit status: 0 ok, 1 a check failed, 2 usage error, 77 skipped (--require-rt).\n");
}

static void list(const char *arg, void *var)
{
	(void)arg;
	(void)var;
	for (size_t i = 0; i < NSCENARIOS; i++)
		printf("%-12s %s\n", scenarios[i]->name, scenarios[i]->summary);
	exit(0);
}

static void out_dir(const char *arg, void *var)
{
	if (!*arg)
		tool_usage_error("--out: empty directory name");
	*(const char **)var = arg;
}

int main(int argc, char **argv)
{
	struct demo_opts opt = {
		.duration_ms = 3000,
		.readers = 2,
		.routes = 256,
		.update_us = 500,
		.seed = 1,
		.hog_ms = 3000,
		.period_us = 1000,
		.obj_bytes = 4096,
		.out_dir = "rcuboost-demo-out",
	};
	const struct demo_scenario *sc = scenarios[0];
	const char *name = NULL;
	const struct tool_opt opts[] = {
		TOOL_OPT_STR("scenario", 'S', name),
		TOOL_OPT_CALL("list", 'l', list),
		TOOL_OPT_NUM("duration-ms", 'd', opt.duration_ms, 1, 86400000),
		TOOL_OPT_NUM("readers", 'r', opt.readers, 1, 256),
		TOOL_OPT_NUM("routes", 0, opt.routes, 2, 1u << 20),
		TOOL_OPT_NUM("update-us", 0, opt.update_us, 0, 10000000),
		TOOL_OPT_NUM("hog-ms", 0, opt.hog_ms, 1, 10000),
		TOOL_OPT_NUM("period-us", 0, opt.period_us, 10, 1000000),
		TOOL_OPT_NUM("obj-bytes", 0, opt.obj_bytes, 256, 1u << 24),
		TOOL_OPT_FN("out", 'o', opt.out_dir, out_dir),
		TOOL_OPT_FLAG("require-rt", 0, opt.require_rt),
		TOOL_OPT_NUM("seed", 's', opt.seed, 0, ULLONG_MAX),
		TOOL_OPT_STR("json", 'j', opt.json),
		TOOL_OPT_FLAG("quiet", 'q', opt.quiet),
	};
	int first;

	tool_prog = "rcuboost-demo";
	first = tool_getopt(argc, argv, opts, sizeof(opts) / sizeof(opts[0]),
			    usage);
	if (first < argc) {
		fprintf(stderr, "rcuboost-demo: unexpected argument '%s'\n", argv[first]);
		return 2;
	}
	if (name) {
		sc = NULL;
		for (size_t i = 0; i < NSCENARIOS; i++)
			if (strcmp(name, scenarios[i]->name) == 0)
				sc = scenarios[i];
		if (!sc) {
			fprintf(stderr, "rcuboost-demo: no scenario '%s' (try --list)\n", name);
			return 2;
		}
	}
	if (opt.seed == 0)
		opt.seed = 1;

	/* Each scenario initialises the library as it needs. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	return sc->run(&opt);
}
