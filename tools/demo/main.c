/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-demo: small programs that show what RCU does.  The command
 * line picks a scenario from the table below; each scenario is one file.
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
	&demo_routing,
};

#define NSCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rcuboost-demo [OPTION]...\n"
		"Show read-copy update at work: readers that never wait, an updater that\n"
		"publishes new versions and frees old ones after a grace period.\n"
		"\n"
		"  -S, --scenario=NAME      scenario to run (default routing; see --list)\n"
		"  -l, --list               list the scenarios\n"
		"  -d, --duration-ms=MS     run for MS milliseconds (default 3000)\n"
		"  -r, --readers=N          reader threads (default 2)\n"
		"      --routes=N           routing: initial table size (default 256)\n"
		"      --update-us=US       routing: pause between table versions (default 500)\n"
		"  -s, --seed=N             random seed (default 1)\n"
		"  -j, --json=FILE          also write the figures as JSON to FILE\n"
		"  -q, --quiet              print the summary line only\n"
		"  -h, --help               show this help\n"
		"\n"
		"The environment variables of the library apply, e.g. RCUBOOST_FLAVOR=fence.\n"
		"Exit status: 0 ok, 1 a check failed, 2 usage error.\n");
}

enum { OPT_ROUTES = 256, OPT_UPDATE_US };

static const struct option long_opts[] = {
	{ "scenario", required_argument, NULL, 'S' },
	{ "list", no_argument, NULL, 'l' },
	{ "duration-ms", required_argument, NULL, 'd' },
	{ "readers", required_argument, NULL, 'r' },
	{ "routes", required_argument, NULL, OPT_ROUTES },
	{ "update-us", required_argument, NULL, OPT_UPDATE_US },
	{ "seed", required_argument, NULL, 's' },
	{ "json", required_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static unsigned long long parse_num(const char *opt, const char *s,
				    unsigned long long lo,
				    unsigned long long hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*s < '0' || *s > '9' || errno || *end || v < lo || v > hi) {
		fprintf(stderr, "rcuboost-demo: --%s=%s: expected an integer %llu..%llu\n",
			opt, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct demo_opts opt = {
		.duration_ms = 3000,
		.readers = 2,
		.routes = 256,
		.update_us = 500,
		.seed = 1,
	};
	const struct demo_scenario *sc = scenarios[0];
	const char *name = NULL;
	int c, err;

	while ((c = getopt_long(argc, argv, "S:ld:r:s:j:qh", long_opts, NULL)) != -1) {
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
			opt.duration_ms = parse_num("duration-ms", optarg, 1, 86400000);
			break;
		case 'r':
			opt.readers = parse_num("readers", optarg, 1, 256);
			break;
		case OPT_ROUTES:
			opt.routes = parse_num("routes", optarg, 2, 1u << 20);
			break;
		case OPT_UPDATE_US:
			opt.update_us = parse_num("update-us", optarg, 0, 10000000);
			break;
		case 's':
			opt.seed = parse_num("seed", optarg, 0, ULLONG_MAX);
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

	err = rcb_init(NULL);
	if (err) {
		fprintf(stderr, "rcuboost-demo: rcb_init: %s\n", strerror(-err));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return sc->run(&opt);
}
