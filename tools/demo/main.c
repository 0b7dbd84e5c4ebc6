/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-demo: small programs that show what RCU does.  The command
 * line picks a scenario from the table below; each scenario is one file.
 * The first entry is the default.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
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

enum {
	OPT_ROUTES = 256,
	OPT_UPDATE_US,
	OPT_HOG_MS,
	OPT_PERIOD_US,
	OPT_OBJ_BYTES,
	OPT_REQUIRE_RT,
};

static const struct option long_opts[] = {
	{ "scenario", required_argument, NULL, 'S' },
	{ "list", no_argument, NULL, 'l' },
	{ "duration-ms", required_argument, NULL, 'd' },
	{ "readers", required_argument, NULL, 'r' },
	{ "routes", required_argument, NULL, OPT_ROUTES },
	{ "update-us", required_argument, NULL, OPT_UPDATE_US },
	{ "hog-ms", required_argument, NULL, OPT_HOG_MS },
	{ "period-us", required_argument, NULL, OPT_PERIOD_US },
	{ "obj-bytes", required_argument, NULL, OPT_OBJ_BYTES },
	{ "out", required_argument, NULL, 'o' },
	{ "require-rt", no_argument, NULL, OPT_REQUIRE_RT },
	{ "seed", required_argument, NULL, 's' },
	{ "json", required_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

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
	int c;

	tool_prog = "rcuboost-demo";
	while ((c = getopt_long(argc, argv, "S:ld:r:s:j:o:qh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			name = optarg;
			break;
		case 'l':
			for (size_t i = 0; i < NSCENARIOS; i++)
				printf("%-12s %s\n", scenarios[i]->name,
				       scenarios[i]->summary);
			return 0;
		case 'd':
			opt.duration_ms = tool_parse_num("duration-ms", optarg, 1, 86400000);
			break;
		case 'r':
			opt.readers = tool_parse_num("readers", optarg, 1, 256);
			break;
		case OPT_ROUTES:
			opt.routes = tool_parse_num("routes", optarg, 2, 1u << 20);
			break;
		case OPT_UPDATE_US:
			opt.update_us = tool_parse_num("update-us", optarg, 0, 10000000);
			break;
		case OPT_HOG_MS:
			opt.hog_ms = tool_parse_num("hog-ms", optarg, 1, 10000);
			break;
		case OPT_PERIOD_US:
			opt.period_us = tool_parse_num("period-us", optarg, 10, 1000000);
			break;
		case OPT_OBJ_BYTES:
			opt.obj_bytes = tool_parse_num("obj-bytes", optarg, 256, 1u << 24);
			break;
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "rcuboost-demo: --out: empty directory name\n");
				return 2;
			}
			opt.out_dir = optarg;
			break;
		case OPT_REQUIRE_RT:
			opt.require_rt = true;
			break;
		case 's':
			opt.seed = tool_parse_num("seed", optarg, 0, ULLONG_MAX);
			break;
		case 'j':
			opt.json = optarg;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rcuboost-demo: unexpected argument '%s'\n", argv[optind]);
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
