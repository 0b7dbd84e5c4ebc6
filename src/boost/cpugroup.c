/* SPDX-License-Identifier: MIT */
/*
 * CPU groups: which booster serves which CPU (article: "Possible Future
 * Enhancements", 3, multiple boosters).  RCUBOOST_BOOSTER_CPUS=-1 gives
 * one booster for every CPU, N gives one per N consecutive CPUs, 0 one
 * per NUMA node (from /sys/devices/system/node).
 *
 * Invariants.
 *  1. rcb__cpu_booster[c] is in [0, rcb__nboosters) for every CPU c in
 *     [0, rcb__boost_ncpus).  rcb__boosters[b].cpus lists, in increasing
 *     order, exactly the CPUs c with rcb__cpu_booster[c] == b, and
 *     rcb__boosters[b].ncpus counts them (0 for a NUMA node without
 *     CPUs: its booster idles).  rcb__for_each_booster_cpu() walks that
 *     list.
 *  2. The table and the map are written once, by rcb__boosters_init()
 *     from rcb__boost_early_init(), before [BST-D] publishes them; they
 *     are read-only afterwards (a booster's own fields excepted).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boost/boost.h"

struct rcb__booster *rcb__boosters;
int rcb__nboosters;
int *rcb__cpu_booster;

/* Call @fn(@lo..@hi) for each range of a sysfs list such as "0-3,8-11". */
static void for_each_range(const char *list,
			   void (*fn)(long lo, long hi, void *), void *arg)
{
	const char *p = list;

	while (*p >= '0' && *p <= '9') {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		fn(lo, hi, arg);
		if (*end != ',')
			break;
		p = end + 1;
	}
}

struct numa_walk {
	int *map, ncpus, nodes;
};

static void numa_cpus(long lo, long hi, void *arg)
{
	struct numa_walk *w = arg;

	for (long c = lo < 0 ? 0 : lo; c <= hi && c < w->ncpus; c++)
		w->map[c] = w->nodes - 1;
}

static void numa_node(long lo, long hi, void *arg)
{
	struct numa_walk *w = arg;
	char path[96], buf[4096];

	for (long node = lo; node <= hi && node < 4096; node++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%ld/cpulist", node);
		if (rcb__read_small(path, buf, sizeof(buf)) <= 0)
			continue;
		w->nodes++;
		for_each_range(buf, numa_cpus, w);
	}
}

/* Number each CPU's NUMA node (densely, from 0) in @map from sysfs;
 * false if there is one node (or no such information). */
static bool numa_map(int *map, int ncpus)
{
	struct numa_walk w = { map, ncpus, 0 };
	char buf[4096];

	for (int i = 0; i < ncpus; i++)
		map[i] = 0;
	if (rcb__read_small("/sys/devices/system/node/online", buf, sizeof(buf)) <= 0)
		return false;
	for_each_range(buf, numa_node, &w);
	return w.nodes > 1;
}

/*
 * Map CPUs to boosters (rcb__cpu_booster, rcb__nboosters) from
 * booster_cpus: -1 one booster; N: N consecutive CPUs each; 0: one per
 * NUMA node.  Context: rcb__boost_early_init(), once.
 */
int rcb__boosters_init(int ncpus)
{
	int *map = calloc((size_t)ncpus, sizeof(*map));
	int n = 1, per = rcb__settings.booster_cpus;
	int *cpus;

	if (!map)
		return -ENOMEM;
	if (per > 0) {
		for (int c = 0; c < ncpus; c++)
			map[c] = c / per;
		n = (ncpus + per - 1) / per;
	} else if (per == 0 && numa_map(map, ncpus)) {
		for (int c = 0; c < ncpus; c++)
			if (map[c] + 1 > n)
				n = map[c] + 1;
	} else {
		memset(map, 0, sizeof(*map) * (size_t)ncpus);
	}
	rcb__boosters = aligned_alloc(64, sizeof(*rcb__boosters) * (size_t)n);
	/* Every booster's CPU list, one slice each, in CPU order. */
	cpus = malloc(sizeof(*cpus) * (size_t)ncpus);
	if (!rcb__boosters || !cpus) {
		free(rcb__boosters);
		rcb__boosters = NULL;
		free(cpus);
		free(map);
		return -ENOMEM;
	}
	memset(rcb__boosters, 0, sizeof(*rcb__boosters) * (size_t)n);
	for (int i = 0; i < n; i++) {
		rcb__boosters[i].id = i;
		rcb_store_relaxed(&rcb__boosters[i].idx, -1);
	}
	for (int c = 0; c < ncpus; c++)
		rcb__boosters[map[c]].ncpus++;
	for (int i = 0, at = 0; i < n; i++) {
		rcb__boosters[i].cpus = cpus + at;
		at += rcb__boosters[i].ncpus;
		rcb__boosters[i].ncpus = 0;
	}
	for (int c = 0; c < ncpus; c++) {
		struct rcb__booster *b = &rcb__boosters[map[c]];

		b->cpus[b->ncpus++] = c;
	}
	rcb__cpu_booster = map;
	rcb__nboosters = n;
	rcb__pressure_init();
	return 0;
}
