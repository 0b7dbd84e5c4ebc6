/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-demo: shared declarations.  Each scenario lives in its own
 * file and is listed in the scenario table in main.c.
 */
#ifndef RCB_DEMO_H
#define RCB_DEMO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tool.h"

struct demo_opts {
	unsigned long duration_ms;
	unsigned int readers;
	unsigned int routes;     /* routing: initial table size */
	unsigned int update_us;  /* routing: pause between table versions */
	uint64_t seed;
	const char *json;        /* NULL: no JSON file */
	bool quiet;              /* summary line only */
	/* inversion */
	unsigned int hog_ms;     /* how long the hog preempts the reader */
	unsigned int period_us;  /* the updater retires one object per period */
	unsigned int obj_bytes;  /* size of each object */
	const char *out_dir;     /* CSV, gnuplot script, SVG */
	bool require_rt;         /* exit 77 without real-time permission */
};

struct demo_scenario {
	const char *name;
	const char *summary; /* one line for --list and --help */
	/* Run the scenario and print its report on stdout.  Returns 0 if
	 * everything it checked held, 1 otherwise (77: skipped). */
	int (*run)(const struct demo_opts *opt);
};

extern const struct demo_scenario demo_inversion;
extern const struct demo_scenario demo_routing;

/* ---- util.c ---- */
/* Format @bytes as "123 B", "4.5 KiB", "6.7 MiB" into @buf. */
const char *demo_bytes(uint64_t bytes, char *buf, size_t len);

#endif
