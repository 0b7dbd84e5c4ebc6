/* SPDX-License-Identifier: MIT */
/*
 * The instrumented application that scripts/realapps.sh traces with
 * LTTng: it registers with the session daemon (lttng-ust, at start) and
 * emits rcuboost_realapps:tick every millisecond for SECONDS (at most
 * 120) or until SIGINT or SIGTERM, then prints how many.  Not part of
 * the build: the script compiles it (cc -I scripts realapps_tp.c
 * -llttng-ust -ldl).
 *
 * usage: realapps_tp SECONDS
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "realapps_tp.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct timespec ms = { 0, 1000000 }, t;
	int secs = argc == 2 ? atoi(argv[1]) : 0;
	time_t end;
	long n = 0;

	if (secs < 1 || secs > 120) {
		fprintf(stderr, "usage: realapps_tp SECONDS (1 to 120)\n");
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t);
	end = t.tv_sec + secs;
	do {
		tracepoint(rcuboost_realapps, tick, n);
		n++;
		nanosleep(&ms, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!stop && t.tv_sec < end);
	printf("%ld\n", n);
	return 0;
}
