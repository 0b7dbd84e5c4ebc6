/* SPDX-License-Identifier: MIT */
/*
 * Boosting compiled out (RCB_BOOST=OFF): the public entry points exist
 * so that programs link the same, and do nothing; the rest of the
 * library reaches this layer only through rcb__boost_hooks
 * (core/hooks.h), here a table of no-ops.
 */
#include <stdio.h>
#include <string.h>

#include "core/hooks.h"
#include "core/internal.h"

RCB_API void rcb__preempt_boost(void)
{
}

RCB_API int rcb_boost_stats(struct rcb_boost_stats *out)
{
	struct rcb_boost_stats s;
	size_t usize = rcb__sized_arg("rcb_boost_stats", "out", out ? &out->size : NULL,
				      RCB_BOOST_STATS_SIZE_V1, sizeof(s));

	if (!usize)
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	s.idx = -1;
	rcb__sized_out(out, usize, &s, sizeof(s));
	return -ENOTSUP;
}

RCB_API int rcb_boost_stats_format(const struct rcb_boost_stats *s, char *buf,
				   size_t len, int json)
{
	if (!rcb__sized_arg("rcb_boost_stats_format", "s", s ? &s->size : NULL,
			    RCB_BOOST_STATS_SIZE_V1, sizeof(*s)))
		return -EINVAL;
	if (!buf && len) {
		rcb__misuse("rcb_boost_stats_format",
			    "buf is NULL with len %zu; nothing done", len);
		return -EINVAL;
	}
	return json ? snprintf(buf, len, "{\"enabled\":false}\n")
		    : snprintf(buf, len, "rcuboost: boosting not compiled in\n");
}

RCB_API int rcb_booster_set_prio(int prio)
{
	(void)prio;
	return -ENOTSUP;
}

RCB_API int rcb_booster_tids(pid_t *tids, size_t n)
{
	return rcb__tids_args_bad("rcb_booster_tids", tids, n) ? -EINVAL : 0;
}

/* The boost table of core/hooks.h: nothing to boost, nothing to start.
 * Expedited grace periods are plain ones (inherit.c). */
static void off_void(void)
{
}

static int off_int(void)
{
	return 0;
}

static bool off_false(void)
{
	return false;
}

static void off_thread(struct rcb__thread *self)
{
	(void)self;
}

static void off_request(unsigned long gp, int level)
{
	(void)gp;
	(void)level;
}

static void off_dom_request(int d, unsigned long gp, int level)
{
	(void)d;
	(void)gp;
	(void)level;
}

static void off_dom_end(int d)
{
	(void)d;
}

static void off_worker(struct rcb_worker *w)
{
	(void)w;
}

const struct rcb__boost_hooks rcb__boost_hooks = {
	.thread_start = off_thread,
	.thread_exit = off_thread,
	.unlock_unboost = off_void,
	.kick = off_void,
	.start = off_int,
	.start_init = off_int,
	.start_lazy = off_void,
	.stop = off_void,
	.keeper_start = off_void,
	.fork_child = off_void,
	.restart_after_fork = off_void,
	.expedite_first_level = off_int,
	.expedite_possible = off_false,
	.expedite_request = off_request,
	.expedite_end = off_void,
	.dom_expedite_request = off_dom_request,
	.dom_expedite_end = off_dom_end,
	.no_permission = off_false,
	.pressure_kick = off_void,
	.cb_boost_kick = off_void,
	.cb_unboost_self = off_worker,
};
