/* SPDX-License-Identifier: MIT */
/*
 * The boosting layer's side of core/hooks.h: the table through which
 * core and the callback layer, which may not name this layer's
 * functions, reach it.  boost_off.c fills the same table with no-ops
 * when boosting is compiled out.
 */
#include "boost/boost.h"
#include "core/hooks.h"

const struct rcb__boost_hooks rcb__boost_hooks = {
	.thread_start = rcb__boost_thread_start,
	.thread_exit = rcb__boost_thread_exit,
	.unlock_unboost = rcb__read_unlock_unboost,
	.kick = rcb__booster_kick,
	.start = rcb__booster_start,
	.start_init = rcb__booster_start_init,
	.start_lazy = rcb__booster_start_lazy,
	.stop = rcb__booster_stop,
	.keeper_start = rcb__keeper_start,
	.fork_child = rcb__boost_after_fork_child,
	.restart_after_fork = rcb__booster_restart_after_fork,
	.expedite_first_level = rcb__expedite_first_level,
	.expedite_possible = rcb__expedite_possible,
	.expedite_request = rcb__expedite_request,
	.expedite_end = rcb__expedite_end,
	.dom_expedite_request = rcb__dom_expedite_request,
	.dom_expedite_end = rcb__dom_expedite_end,
	.no_permission = rcb__booster_no_permission,
	.pressure_kick = rcb__pressure_kick,
	.cb_boost_kick = rcb__cb_boost_kick,
	.cb_unboost_self = rcb__cb_unboost_self,
};
