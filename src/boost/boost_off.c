/* SPDX-License-Identifier: MIT */
/*
 * Boosting compiled out (RCB_BOOST=OFF): the entry points exist so that
 * programs link the same, and do nothing.
 */
#include <stdio.h>
#include <string.h>

#include "callback/callback.h"
#include "core/internal.h"

RCB_API void rcb__preempt_boost(void)
{
}

void rcb__keeper_start(void)
{
}

void rcb__read_unlock_unboost(void)
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

void rcb__pressure_kick(void)
{
}

_Atomic unsigned long long rcb__pressure_kick_at;
_Atomic unsigned long long rcb__pressure_kick_bytes;

void rcb__booster_kick(void)
{
}

int rcb__booster_start(void)
{
	return 0;
}

int rcb__booster_start_init(void)
{
	return 0;
}

void rcb__booster_start_lazy(void)
{
}

void rcb__booster_stop(void)
{
}

void rcb__boost_after_fork_child(void)
{
}

void rcb__booster_restart_after_fork(void)
{
}

void rcb__boost_thread_start(struct rcb__thread *self)
{
	(void)self;
}

void rcb__boost_thread_exit(struct rcb__thread *self)
{
	(void)self;
}

/* Expedited grace periods without boosting: plain ones (inherit.c). */
int rcb__expedite_first_level(void)
{
	return 0;
}

bool rcb__expedite_possible(void)
{
	return false;
}

void rcb__expedite_request(unsigned long gp, int level)
{
	(void)gp;
	(void)level;
}

void rcb__expedite_end(void)
{
}

/* Booster mode of the callback workers (callback_boost.c): no booster. */
_Atomic int rcb__cb_boost_idle;
_Atomic long rcb__cb_boosts, rcb__cb_unboosts;

void rcb__cb_unboost_self(struct rcb_worker *w)
{
	(void)w;
}

void rcb__cb_boost_kick(void)
{
}
