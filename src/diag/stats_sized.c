/* SPDX-License-Identifier: MIT */
/*
 * struct rcb_backlog and struct rcb_gp_stats behind their leading size:
 * the out-of-line parts of the header's rcb_backlog() and rcb_stats(),
 * which set the size from the caller's sizeof.  The counters come from
 * the symbols that fill the unsized layouts (src/callback.c,
 * src/stats.c), kept for programs linked before the size was added.
 */
#include <string.h>

#include "core/internal.h"

_Static_assert(sizeof(struct rcb_backlog) >= RCB_BACKLOG_SIZE_V1 &&
	       sizeof(struct rcb_gp_stats) >= RCB_GP_STATS_SIZE_V1,
	       "sized structs only grow");

RCB_API int rcb__backlog_sized(struct rcb_backlog *out)
{
	struct rcb__backlog_v0 v;
	struct rcb_backlog s;
	size_t usize = rcb__sized_arg("rcb_backlog", "out",
				      out ? &out->size : NULL,
				      RCB_BACKLOG_SIZE_V1, sizeof(s));

	if (!usize)
		return -EINVAL;
	rcb_backlog(&v);
	memset(&s, 0, sizeof(s));
	s.callbacks = v.callbacks;
	s.bytes = v.bytes;
	s.peak_callbacks = v.peak_callbacks;
	s.peak_bytes = v.peak_bytes;
	s.invoked = v.invoked;
	rcb__sized_out(out, usize, &s, sizeof(s));
	return 0;
}

RCB_API int rcb__gp_stats_sized(struct rcb_gp_stats *out)
{
	struct rcb__gp_stats_v0 v;
	struct rcb_gp_stats s;
	size_t usize = rcb__sized_arg("rcb_stats", "out",
				      out ? &out->size : NULL,
				      RCB_GP_STATS_SIZE_V1, sizeof(s));

	if (!usize)
		return -EINVAL;
	rcb_stats(&v);
	memset(&s, 0, sizeof(s));
	s.grace_periods = v.grace_periods;
	s.synchronize_calls = v.synchronize_calls;
	s.batched = v.batched;
	s.futex_waits = v.futex_waits;
	s.misuse = v.misuse;
	s.registered_threads = v.registered_threads;
	rcb__sized_out(out, usize, &s, sizeof(s));
	return 0;
}
