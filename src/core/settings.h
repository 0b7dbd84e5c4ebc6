/* SPDX-License-Identifier: MIT */
/*
 * The settings, written once.  Each X(type, name, env, lo, hi, range,
 * fixed, boost, env_spec) entry is a field of struct rcb__settings and of
 * struct
 * rcb_config (same name), and generates:
 *  - the field of struct rcb__settings (@type: its value in force);
 *  - the range check of struct rcb_config's field: [@lo, @hi], the
 *    message saying @range (NULL: any value; a few fields have an extra
 *    rule written in settings.c);
 *  - the comparison of two settings (rcb_init() while initialised names
 *    the first field that differs, in this order; @boost: compared only
 *    when boosting is compiled in);
 *  - @fixed: 0, or the rank in which a change after rcb_shutdown() is
 *    refused (the field cannot change for the life of the process);
 *  - the list of environment variables @env that a lint test compares
 *    with rcuboost(3)'s ENVIRONMENT (tests/build/settings_docs.sh);
 *  - @env_spec: RCB__ENV_UINT(lo, hi, default): when the struct
 *    rcb_config field is 0, @env is read as a decimal in [lo, hi], else
 *    the default applies; RCB__ENV_HAND: parsed in settings.c (words, a
 *    tri-state, a power of two).  The default 0 of boost_reader_prio and
 *    boost_ceiling means "computed from boost_prio" (settings.c).
 */
#ifndef RCB_SETTINGS_H
#define RCB_SETTINGS_H

#define RCB__ENV_UINT(lo, hi, def) 1, lo, hi, def
#define RCB__ENV_HAND 0, 0, 0, 0

#define RCB__SETTINGS(X) \
	/* membarrier or fence (struct rcb_config: a request) */ \
	X(enum rcb_flavor, flavor, "RCUBOOST_FLAVOR", 0, 2, \
	  "RCB_FLAVOR_AUTO, _REQUIRE_MEMBARRIER or _REQUIRE_FENCE", 1, 0, \
	  RCB__ENV_HAND) \
	/* WARN or ABORT, never DEFAULT */ \
	X(enum rcb_misuse_policy, misuse, "RCUBOOST_MISUSE", 0, 2, \
	  "RCB_MISUSE_DEFAULT, _WARN or _ABORT", 0, 0, \
	  RCB__ENV_HAND) \
	X(unsigned int, callback_batch_us, "RCUBOOST_CALLBACK_BATCH_US", 0, \
	  1000000, "0 to 1000000", 0, 0, \
	  RCB__ENV_UINT(0, 1000000, 0)) \
	/* 0: stall detector off (struct rcb_config: -1) */ \
	X(unsigned int, stall_ms, "RCUBOOST_STALL_MS", -1, 3600000, \
	  "-1 (off), 0 (default 10000) or 1 to 3600000", 0, 0, \
	  RCB__ENV_UINT(0, 3600000, 10000)) \
	/* 1 on, 0 off (struct rcb_config: -1 off, 1 on) */ \
	X(int, boost, "RCUBOOST_BOOST", -1, 1, \
	  "-1 (off), 0 (default) or 1 (on)", 0, 1, \
	  RCB__ENV_HAND) \
	/* and not 1: boosted readers run below the booster (settings.c) */ \
	X(int, boost_prio, "RCUBOOST_PRIO", 0, 99, "0 (default) or 2 to 99", \
	  0, 1, \
	  RCB__ENV_UINT(2, 99, 50)) \
	X(unsigned int, boost_period_ms, "RCUBOOST_PERIOD_MS", 0, 10000, \
	  "0 (default) or 1 to 10000", 0, 1, \
	  RCB__ENV_UINT(1, 10000, 10)) \
	/* and a power of two: settings.c */ \
	X(unsigned int, boost_elements, "RCUBOOST_ELEMENTS", 0, 64, \
	  "0 (default) or a power of two from 2 to 64", 5, 1, \
	  RCB__ENV_HAND) \
	X(unsigned int, stats_interval_s, "RCUBOOST_STATS_INTERVAL", 0, 86400, \
	  "0 to 86400", 0, 1, \
	  RCB__ENV_UINT(0, 86400, 0)) \
	/* 3 or 8 (the other values in between: settings.c) */ \
	X(int, boost_machine, "RCUBOOST_MACHINE", 0, 8, "0 (default), 3 or 8", \
	  2, 1, \
	  RCB__ENV_HAND) \
	/* enhancements (include/rcuboost.h, struct rcb_config) */ \
	/* 0: no count threshold */ \
	X(unsigned long, pressure_callbacks, "RCUBOOST_PRESSURE_CALLBACKS", 0, \
	  0, NULL, 0, 1, \
	  RCB__ENV_UINT(0, 1000000000000ul, 0)) \
	/* 0: no byte threshold */ \
	X(unsigned long, pressure_bytes, "RCUBOOST_PRESSURE_BYTES", 0, 0, NULL, \
	  0, 1, \
	  RCB__ENV_UINT(0, 1ul << 50, 0)) \
	/* 0: PSI not watched */ \
	X(unsigned int, pressure_psi, "RCUBOOST_PRESSURE_PSI", 0, 100, \
	  "0 (off) or a percentage from 1 to 100", 0, 1, \
	  RCB__ENV_UINT(0, 100, 0)) \
	X(unsigned int, pressure_low_pct, "RCUBOOST_PRESSURE_LOW", 0, 99, \
	  "0 (default 50) or a percentage from 1 to 99", 0, 1, \
	  RCB__ENV_UINT(1, 99, 50)) \
	/* 0: no escalation */ \
	X(unsigned int, escalate_periods, "RCUBOOST_ESCALATE", 0, 1000, \
	  "0 (off) or 1 to 1000", 0, 1, \
	  RCB__ENV_UINT(0, 1000, 0)) \
	/* first boost at boost_prio */ \
	X(int, boost_reader_prio, "RCUBOOST_READER_PRIO", 0, 98, \
	  "0 (default) or 1 to 98", 0, 1, \
	  RCB__ENV_UINT(1, 98, 0)) \
	X(int, boost_ceiling, "RCUBOOST_CEILING", 0, 98, \
	  "0 (default) or 1 to 98", 0, 1, \
	  RCB__ENV_UINT(1, 98, 0)) \
	/* 0 node, -1 all, N */ \
	X(int, booster_cpus, "RCUBOOST_BOOSTER_CPUS", -1, 4096, \
	  "0 (one booster per NUMA node), -1 (one booster) or 1 to 4096", 4, 1, \
	  RCB__ENV_HAND) \
	/* RCB_BACKEND_SCHED or _PI */ \
	X(int, boost_backend, "RCUBOOST_BACKEND", 0, 2, \
	  "RCB_BACKEND_DEFAULT, _SCHED or _PI", 3, 1, \
	  RCB__ENV_HAND) \
	X(unsigned int, pi_helpers, "RCUBOOST_PI_HELPERS", 0, 64, \
	  "0 (default 4) or 1 to 64", 0, 1, \
	  RCB__ENV_UINT(1, 64, 4)) \
	/* CPUs 0-63 the library's threads run on (bit n: CPU n); 0: \
	 * wherever the creating thread may run.  RCUBOOST_CPUS=0-1,3 */ \
	X(unsigned long long, thread_cpus, "RCUBOOST_CPUS", 0, 0, NULL, 0, 0, \
	  RCB__ENV_HAND) \
	/* SCHED_FIFO priority of callback workers; 0: normal attributes \
	 * (struct rcb_config: -1) */ \
	X(int, callback_prio, "RCUBOOST_CALLBACK_PRIO", -1, 99, \
	  "-1 (normal attributes), 0 (default) or 1 to 99", 0, 0, \
	  RCB__ENV_UINT(0, 99, 0)) \
	/* expedited grace periods and inheritance (src/boost/expedite.c): */ \
	/* 1: every rcb_synchronize() is expedited (rcb_config: -1 off) */ \
	X(int, expedited, "RCUBOOST_EXPEDITED", -1, 1, \
	  "-1 (off), 0 (default) or 1 (on)", 0, 1, \
	  RCB__ENV_UINT(0, 1, 0)) \
	/* 1: waiters lend their priority (rcb_config: -1 off) */ \
	X(int, inherit, "RCUBOOST_INHERIT", -1, 1, \
	  "-1 (off), 0 (default) or 1 (on)", 0, 1, \
	  RCB__ENV_UINT(0, 1, 0)) \
	/* highest priority lent (99: no cap) */ \
	X(int, inherit_ceiling, "RCUBOOST_INHERIT_CEILING", 0, 99, \
	  "0 (default 99) or 1 to 99", 0, 1, \
	  RCB__ENV_UINT(1, 99, 99)) \
	/* 1: local callback lists for fast streams \
	 * (src/callback/callback_local.c; rcb_config: -1 off) */ \
	X(int, callback_local, "RCUBOOST_CALLBACK_LOCAL", -1, 1, \
	  "-1 (off), 0 (default) or 1 (on)", 0, 0, \
	  RCB__ENV_UINT(0, 1, 1)) \
	/* 1: in local mode, the callback thread moves to the CPU of the \
	 * thread that queued most of a batch (src/callback/callback_local.c, \
	 * "Following"; rcb_config: -1 off) */ \
	X(int, callback_follow, "RCUBOOST_CALLBACK_FOLLOW", -1, 1, \
	  "-1 (off), 0 (default) or 1 (on)", 0, 0, \
	  RCB__ENV_UINT(0, 1, 1)) \
	/* liburcu's wait before each callback batch once liburcu's \
	 * call_rcu() was used (src/callback/callback.c, "liburcu's \
	 * timing"); 0: none (rcb_config: -1) */ \
	X(int, urcu_callback_delay_us, "RCUBOOST_URCU_CALLBACK_DELAY_US", -1, \
	  1000000, "-1 (none), 0 (default 10000) or 1 to 1000000", 0, 0, \
	  RCB__ENV_UINT(0, 1000000, 10000))

#endif /* RCB_SETTINGS_H */
