/* SPDX-License-Identifier: MIT */
/*
 * The tracepoint provider of scripts/realapps_tp.c: one LTTng-UST event,
 * rcuboost_realapps:tick, with the running count of ticks.
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER rcuboost_realapps

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "realapps_tp.h"

#if !defined(REALAPPS_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define REALAPPS_TP_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(rcuboost_realapps, tick,
	TP_ARGS(long, n),
	TP_FIELDS(ctf_integer(long, n, n)))

#endif

#include <lttng/tracepoint-event.h>
