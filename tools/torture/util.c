/* SPDX-License-Identifier: MIT */
/* rcuboost-torture: phase and error names, error counting. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>

#include "torture.h"

/* Errors of each kind described on stderr before going quiet. */
#define TORTURE_ERROR_VERBOSE 5

static const char *const phase_names[] = {
	[TORTURE_PHASE_INIT] = "init",
	[TORTURE_PHASE_RUN] = "run",
	[TORTURE_PHASE_STOP] = "stop (joining threads)",
	[TORTURE_PHASE_DRAIN] = "drain (final grace periods and barriers)",
	[TORTURE_PHASE_REPORT] = "report",
	[TORTURE_PHASE_DONE] = "done",
};

const char *torture_phase_name(int phase)
{
	if (phase < 0 || phase > TORTURE_PHASE_DONE)
		return "?";
	return phase_names[phase];
}

#define X(name, desc) #name,
static const char *const error_names[] = { TORTURE_ERRORS(X) };
#undef X
#define X(name, desc) desc,
static const char *const error_descs[] = { TORTURE_ERRORS(X) };
#undef X

const char *torture_error_name(enum torture_error e)
{
	return error_names[e];
}

const char *torture_error_desc(enum torture_error e)
{
	return error_descs[e];
}

void torture_error(enum torture_error e, const char *fmt, ...)
{
	unsigned long n;
	char msg[256];
	va_list ap;

	n = atomic_fetch_add_explicit(&tstate.errors[e], 1,
				      memory_order_relaxed);
	if (n >= TORTURE_ERROR_VERBOSE)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "rcuboost-torture: ERROR %s: %s%s\n",
		error_names[e], msg,
		n + 1 == TORTURE_ERROR_VERBOSE ? " (further errors of this kind not shown)" : "");
}

const char *torture_inject_name(void)
{
	static char name[64];
	size_t off = 0;

	name[0] = '\0';
	if (tstate.opt.inject_early_free)
		off += (size_t)snprintf(name + off, sizeof(name) - off, "%searly-free",
					off ? "," : "");
	if (tstate.opt.inject_no_sync)
		off += (size_t)snprintf(name + off, sizeof(name) - off, "%sno-sync",
					off ? "," : "");
	if (tstate.opt.inject_boost_off)
		off += (size_t)snprintf(name + off, sizeof(name) - off, "%sboost-off",
					off ? "," : "");
	return off ? name : "none";
}

const char *torture_reader_kind(unsigned int i)
{
	if (i < tstate.opt.readers)
		return "reader";
	if (i < tstate.boost_rd0)
		return "churn";
	if (i < tstate.boost_rd0 + tstate.opt.boost_readers)
		return "boost";
	return "exiter";
}

unsigned long torture_total_errors(void)
{
	unsigned long sum = 0;

	for (int i = 0; i < TORTURE_NERR; i++)
		sum += torture_get(&tstate.errors[i]);
	return sum;
}
