/* SPDX-License-Identifier: MIT */
/*
 * Lifecycle: configuration (struct rcb_config and the environment),
 * lazy and explicit initialisation, shutdown, fork handling, and the
 * library's two ways of complaining (misuse reports and RCB_DIE).
 *
 * Invariants.
 *  1. rcb__settings is written only under init_lock before
 *     rcb__initialized becomes true, and never after, except fields
 *     documented as changeable by a re-init after rcb_shutdown().
 *  2. A failing rcb_init() changes nothing: settings are parsed and
 *     validated into a local copy first, and an explicit rcb_init()
 *     starts the boosters before it marks the library running (and,
 *     the first time, initialised); if they cannot all start, the
 *     previous settings are put back and no library thread is left
 *     (booster.c: booster_start()).  So a failed rcb_init() can be
 *     retried, with the same or another configuration.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct rcb__settings rcb__settings;
_Atomic bool rcb__initialized;
_Atomic bool rcb__running;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

#ifdef RCB_DEBUG
#define RCB_DEFAULT_MISUSE RCB_MISUSE_ABORT
#else
#define RCB_DEFAULT_MISUSE RCB_MISUSE_WARN
#endif

__attribute__((noreturn, cold)) void rcb__die(const char *file, int line,
					      const char *func,
					      const char *what, int err)
{
	fprintf(stderr, "rcuboost: fatal: %s:%d: %s: %s: %s\n", file, line,
		func, what, strerror(err));
	abort();
}

/* The policy in force; before initialisation, the environment's. */
static enum rcb_misuse_policy misuse_policy(void)
{
	const char *v;

	if (rcb_load_acquire(&rcb__initialized)) /* [INIT-A] */
		return rcb__settings.misuse;
	v = getenv("RCUBOOST_MISUSE");
	if (v && strcmp(v, "abort") == 0)
		return RCB_MISUSE_ABORT;
	if (v && strcmp(v, "warn") == 0)
		return RCB_MISUSE_WARN;
	return RCB_DEFAULT_MISUSE;
}

void rcb__misuse(const char *call, const char *fmt, ...)
{
	char who[48];
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rcb__thread_label(who, sizeof(who));
	fprintf(stderr, "rcuboost: misuse: %s: %s (thread %s)\n", call, msg,
		who);
	rcb_add_relaxed(&rcb__gp_stat[RCB__GPS_MISUSE], 1);
	if (misuse_policy() == RCB_MISUSE_ABORT) {
		fprintf(stderr, "rcuboost: aborting (RCUBOOST_MISUSE=warn to continue)\n");
		abort();
	}
}

/* ---- environment ------------------------------------------------- */

static int env_error(const char *name, const char *val, const char *range)
{
	fprintf(stderr,
		"rcuboost: environment variable %s=\"%s\" is invalid: expected %s\n",
		name, val, range);
	return -EINVAL;
}

/* Parse decimal @name into *@out within [lo, hi]; absent leaves *@out. */
static int env_uint(const char *name, unsigned long lo, unsigned long hi,
		    unsigned long *out, bool *present)
{
	const char *v = getenv(name);
	char range[64];
	char *end;
	unsigned long x;

	*present = false;
	if (!v)
		return 0;
	snprintf(range, sizeof(range), "an integer from %lu to %lu", lo, hi);
	errno = 0;
	if (*v < '0' || *v > '9')
		return env_error(name, v, range);
	x = strtoul(v, &end, 10);
	if (errno || *end != '\0' || x < lo || x > hi)
		return env_error(name, v, range);
	*out = x;
	*present = true;
	return 0;
}

static int env_choice(const char *name, const char *const *words, int n,
		      const char *range, int *out)
{
	const char *v = getenv(name);

	if (!v)
		return 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(v, words[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	return env_error(name, v, range);
}

_Static_assert(offsetof(struct rcb_config, stall_ms) + sizeof(int) + 4 ==
		       RCB_CONFIG_SIZE_V1,
	       "RCB_CONFIG_SIZE_V1 is the SONAME 1 layout's size (with padding)");

#define RCB_PRIO_MIN 1
#define RCB_PRIO_MAX 99
#define RCB_DEFAULT_PRIO 50
#define RCB_DEFAULT_PERIOD_MS 10
#define RCB_DEFAULT_ELEMENTS 4
#define RCB_DEFAULT_STALL_MS 10000
#define RCB_STALL_MS_MAX 3600000

static int config_error(const char *field, long val, const char *range)
{
	fprintf(stderr,
		"rcuboost: rcb_init: struct rcb_config field %s = %ld is invalid: expected %s\n",
		field, val, range);
	return -EINVAL;
}

/* Each field of @c within its documented range (0 means default). */
static int check_config(const struct rcb_config *c)
{
	unsigned int e = c->boost_elements;

	if ((unsigned)c->flavor > RCB_FLAVOR_REQUIRE_FENCE)
		return config_error("flavor", (long)c->flavor,
				    "RCB_FLAVOR_AUTO, _REQUIRE_MEMBARRIER or _REQUIRE_FENCE");
	if ((unsigned)c->misuse > RCB_MISUSE_ABORT)
		return config_error("misuse", (long)c->misuse,
				    "RCB_MISUSE_DEFAULT, _WARN or _ABORT");
	if (c->callback_batch_us > 1000000)
		return config_error("callback_batch_us", (long)c->callback_batch_us,
				    "0 to 1000000");
	if (c->boost < -1 || c->boost > 1)
		return config_error("boost", c->boost, "-1 (off), 0 (default) or 1 (on)");
	if (c->boost_prio < 0 || c->boost_prio > RCB_PRIO_MAX)
		return config_error("boost_prio", c->boost_prio,
				    "0 (default) or 1 to 99");
	if (c->boost_period_ms > 10000)
		return config_error("boost_period_ms", (long)c->boost_period_ms,
				    "0 (default) or 1 to 10000");
	if (e == 1 || e > 64 || (e & (e - 1)))
		return config_error("boost_elements", (long)e,
				    "0 (default) or a power of two from 2 to 64");
	if (c->boost_machine != 0 && c->boost_machine != 3 && c->boost_machine != 8)
		return config_error("boost_machine", c->boost_machine,
				    "0 (default), 3 or 8");
	if (c->stats_interval_s > 86400)
		return config_error("stats_interval_s", (long)c->stats_interval_s,
				    "0 to 86400");
	if (c->pressure_psi > 100)
		return config_error("pressure_psi", (long)c->pressure_psi,
				    "0 (off) or a percentage from 1 to 100");
	if (c->pressure_low_pct > 99)
		return config_error("pressure_low_pct", (long)c->pressure_low_pct,
				    "0 (default 50) or a percentage from 1 to 99");
	if (c->escalate_periods > 1000)
		return config_error("escalate_periods", (long)c->escalate_periods,
				    "0 (off) or 1 to 1000");
	if (c->boost_reader_prio < 0 || c->boost_reader_prio > RCB_PRIO_MAX - 1)
		return config_error("boost_reader_prio", c->boost_reader_prio,
				    "0 (default) or 1 to 98");
	if (c->boost_ceiling < 0 || c->boost_ceiling > RCB_PRIO_MAX - 1)
		return config_error("boost_ceiling", c->boost_ceiling,
				    "0 (default) or 1 to 98");
	if (c->booster_cpus < -1 || c->booster_cpus > 4096)
		return config_error("booster_cpus", c->booster_cpus,
				    "0 (one booster per NUMA node), -1 (one booster) or 1 to 4096");
	if (c->boost_backend < RCB_BACKEND_DEFAULT || c->boost_backend > RCB_BACKEND_PI)
		return config_error("boost_backend", c->boost_backend,
				    "RCB_BACKEND_DEFAULT, _SCHED or _PI");
	if (c->pi_helpers > 64)
		return config_error("pi_helpers", (long)c->pi_helpers,
				    "0 (default 4) or 1 to 64");
	if (c->stall_ms < -1 || c->stall_ms > RCB_STALL_MS_MAX)
		return config_error("stall_ms", c->stall_ms,
				    "-1 (off), 0 (default 10000) or 1 to 3600000");
	return 0;
}

static int combination_error(const char *what)
{
	fprintf(stderr, "rcuboost: rcb_init: invalid combination of settings: %s\n",
		what);
	return -EINVAL;
}

/*
 * The enhancements' settings from @c (zero fields from the environment)
 * into @s, whose boost_prio and boost_machine are already final.
 */
static int build_enhancements(struct rcb_config *c, struct rcb__settings *s)
{
	static const char *const backends[] = { "sched", "pi" };
	bool have, explicit_levels;
	unsigned long u;
	int i, err;

	if (c->pressure_callbacks == 0) {
		if ((err = env_uint("RCUBOOST_PRESSURE_CALLBACKS", 0,
				    1000000000000ul, &u, &have)))
			return err;
		if (have)
			c->pressure_callbacks = u;
	}
	if (c->pressure_bytes == 0) {
		if ((err = env_uint("RCUBOOST_PRESSURE_BYTES", 0,
				    1ul << 50, &u, &have)))
			return err;
		if (have)
			c->pressure_bytes = u;
	}
	if (c->pressure_psi == 0) {
		if ((err = env_uint("RCUBOOST_PRESSURE_PSI", 0, 100, &u, &have)))
			return err;
		if (have)
			c->pressure_psi = (unsigned)u;
	}
	if (c->pressure_low_pct == 0) {
		if ((err = env_uint("RCUBOOST_PRESSURE_LOW", 1, 99, &u, &have)))
			return err;
		c->pressure_low_pct = have ? (unsigned)u : 50;
	}
	if (c->escalate_periods == 0) {
		if ((err = env_uint("RCUBOOST_ESCALATE", 0, 1000, &u, &have)))
			return err;
		if (have)
			c->escalate_periods = (unsigned)u;
	}
	if (c->boost_reader_prio == 0) {
		if ((err = env_uint("RCUBOOST_READER_PRIO", 1, RCB_PRIO_MAX - 1,
				    &u, &have)))
			return err;
		if (have)
			c->boost_reader_prio = (int)u;
	}
	if (c->boost_ceiling == 0) {
		if ((err = env_uint("RCUBOOST_CEILING", 1, RCB_PRIO_MAX - 1,
				    &u, &have)))
			return err;
		if (have)
			c->boost_ceiling = (int)u;
	}
	if (c->booster_cpus == 0) {
		const char *v = getenv("RCUBOOST_BOOSTER_CPUS");

		if (v && strcmp(v, "node") == 0)
			c->booster_cpus = 0;
		else if (v && strcmp(v, "all") == 0)
			c->booster_cpus = -1;
		else if (v) {
			char *end;

			errno = 0;
			u = strtoul(v, &end, 10);
			if (*v < '0' || *v > '9' || errno || *end || u < 1 || u > 4096)
				return env_error("RCUBOOST_BOOSTER_CPUS", v,
						 "node, all, or a CPU count from 1 to 4096");
			c->booster_cpus = (int)u;
		}
	}
	if (c->boost_backend == RCB_BACKEND_DEFAULT) {
		i = 0;
		if ((err = env_choice("RCUBOOST_BACKEND", backends, 2, "sched or pi",
				      &i)))
			return err;
		c->boost_backend = i ? RCB_BACKEND_PI : RCB_BACKEND_SCHED;
	}
	if (c->pi_helpers == 0) {
		if ((err = env_uint("RCUBOOST_PI_HELPERS", 1, 64, &u, &have)))
			return err;
		c->pi_helpers = have ? (unsigned)u : 4;
	}
	/* Boosted readers stay strictly below the booster, which must
	 * preempt them to manage them (a booster at priority 1, allowed
	 * before these settings existed, boosts to 1). */
	explicit_levels = c->boost_reader_prio || c->boost_ceiling;
	if (!c->boost_reader_prio)
		c->boost_reader_prio = s->boost_prio > 1 ? s->boost_prio - 1 : 1;
	if (!c->boost_ceiling)
		c->boost_ceiling = s->boost_prio > 1 ? s->boost_prio - 1 : 1;
	if (c->boost_reader_prio > c->boost_ceiling)
		return combination_error(
			"the first boost priority (boost_reader_prio, RCUBOOST_READER_PRIO) "
			"is above the ceiling (boost_ceiling, RCUBOOST_CEILING)");
	if (s->boost && explicit_levels && c->boost_ceiling >= s->boost_prio)
		return combination_error(
			"boosted readers must stay below the booster: boost_reader_prio and "
			"boost_ceiling (RCUBOOST_READER_PRIO, RCUBOOST_CEILING) must be below "
			"boost_prio (RCUBOOST_PRIO)");
	if (s->boost_machine == 8 &&
	    (c->pressure_callbacks || c->pressure_bytes || c->pressure_psi ||
	     c->escalate_periods || c->booster_cpus > 0 ||
	     c->boost_backend == RCB_BACKEND_PI))
		return combination_error(
			"memory-pressure boosting, escalation, multiple boosters and the pi "
			"backend need the 3-state machine (boost_machine 3, RCUBOOST_MACHINE=3)");
	s->pressure_callbacks = c->pressure_callbacks;
	s->pressure_bytes = c->pressure_bytes;
	s->pressure_psi = c->pressure_psi;
	s->pressure_low_pct = c->pressure_low_pct;
	s->escalate_periods = c->escalate_periods;
	s->boost_reader_prio = c->boost_reader_prio;
	s->boost_ceiling = c->boost_ceiling;
	s->booster_cpus = s->boost_machine == 8 ? -1 : c->booster_cpus;
	s->boost_backend = c->boost_backend;
	s->pi_helpers = c->pi_helpers;
	return 0;
}

/* Fill @s from @cfg, the environment for zero fields, then defaults. */
static int build_settings(const struct rcb_config *cfg, struct rcb__settings *s,
			  enum rcb_flavor_request *flavor_req)
{
	static const char *const flavors[] = { "auto", "membarrier", "fence" };
	static const char *const policies[] = { "warn", "abort" };
	struct rcb_config c = { 0 };
	unsigned long u;
	bool have;
	int i, err;

	if (cfg) {
		size_t usize = rcb__user_size(cfg->size, RCB_CONFIG_SIZE_V1);

		if (!usize)
			return config_error("size", (long)cfg->size,
					    "0 or sizeof(struct rcb_config)");
		if (!rcb__sized_in(&c, sizeof(c), cfg, usize)) {
			fprintf(stderr,
				"rcuboost: rcb_init: struct rcb_config size %zu is larger than this library's %zu and sets fields it does not know\n",
				usize, sizeof(c));
			return -E2BIG;
		}
	}
	if ((err = check_config(&c)) != 0)
		return err;
	if (c.flavor == RCB_FLAVOR_AUTO) {
		i = 0;
		if ((err = env_choice("RCUBOOST_FLAVOR", flavors, 3,
				      "auto, membarrier or fence", &i)))
			return err;
		c.flavor = (enum rcb_flavor_request)i;
	}
	if (c.misuse == RCB_MISUSE_DEFAULT) {
		i = -1;
		if ((err = env_choice("RCUBOOST_MISUSE", policies, 2,
				      "warn or abort", &i)))
			return err;
		if (i >= 0)
			c.misuse = i ? RCB_MISUSE_ABORT : RCB_MISUSE_WARN;
	}
	if (c.misuse == RCB_MISUSE_DEFAULT)
		c.misuse = RCB_DEFAULT_MISUSE;
	if (c.callback_batch_us == 0) {
		if ((err = env_uint("RCUBOOST_CALLBACK_BATCH_US", 0, 1000000,
				    &u, &have)))
			return err;
		if (have)
			c.callback_batch_us = (unsigned)u;
	}
	if (c.boost == 0) {
		if ((err = env_uint("RCUBOOST_BOOST", 0, 1, &u, &have)))
			return err;
		c.boost = have ? (u ? 1 : -1) : 1;
	}
	if (c.boost_prio == 0) {
		if ((err = env_uint("RCUBOOST_PRIO", RCB_PRIO_MIN, RCB_PRIO_MAX,
				    &u, &have)))
			return err;
		c.boost_prio = have ? (int)u : RCB_DEFAULT_PRIO;
	}
	if (c.boost_period_ms == 0) {
		if ((err = env_uint("RCUBOOST_PERIOD_MS", 1, 10000, &u, &have)))
			return err;
		c.boost_period_ms = have ? (unsigned)u : RCB_DEFAULT_PERIOD_MS;
	}
	if (c.boost_elements == 0) {
		const char *v = getenv("RCUBOOST_ELEMENTS");

		if ((err = env_uint("RCUBOOST_ELEMENTS", 2, 64, &u, &have)))
			return err;
		if (have && (u & (u - 1)))
			return env_error("RCUBOOST_ELEMENTS", v,
					 "a power of two from 2 to 64");
		c.boost_elements = have ? (unsigned)u : RCB_DEFAULT_ELEMENTS;
	}
	if (c.boost_machine == 0) {
		static const char *const machines[] = { "3", "8" };

		i = -1;
		if ((err = env_choice("RCUBOOST_MACHINE", machines, 2, "3 or 8",
				      &i)))
			return err;
		c.boost_machine = i == 1 ? 8 : 3;
	}
	if (c.stats_interval_s == 0) {
		if ((err = env_uint("RCUBOOST_STATS_INTERVAL", 0, 86400, &u,
				    &have)))
			return err;
		if (have)
			c.stats_interval_s = (unsigned)u;
	}
	s->misuse = c.misuse;
	s->callback_batch_us = c.callback_batch_us;
	s->boost = c.boost > 0;
	s->boost_prio = c.boost_prio;
	s->boost_period_ms = c.boost_period_ms;
	s->boost_elements = c.boost_elements;
	s->stats_interval_s = c.stats_interval_s;
	/* The stall detector works with or without boosting. */
	if (c.stall_ms == 0) {
		if ((err = env_uint("RCUBOOST_STALL_MS", 0, RCB_STALL_MS_MAX,
				    &u, &have)))
			return err;
		s->stall_ms = have ? (unsigned)u : RCB_DEFAULT_STALL_MS;
	} else {
		s->stall_ms = c.stall_ms < 0 ? 0 : (unsigned)c.stall_ms;
	}
	s->boost_machine = c.boost_machine;
	if ((err = build_enhancements(&c, s)))
		return err;
	*flavor_req = c.flavor;
	return 0;
}

/* Name of the first setting in which @a and @b differ, or NULL. */
static const char *settings_differ(const struct rcb__settings *a,
				   const struct rcb__settings *b,
				   enum rcb_flavor_request req)
{
	if ((req == RCB_FLAVOR_REQUIRE_FENCE && a->flavor != RCB_FLAVOR_FENCE) ||
	    (req == RCB_FLAVOR_REQUIRE_MEMBARRIER &&
	     a->flavor != RCB_FLAVOR_MEMBARRIER))
		return "flavor";
	if (a->misuse != b->misuse)
		return "misuse";
	if (a->callback_batch_us != b->callback_batch_us)
		return "callback_batch_us";
	if (a->stall_ms != b->stall_ms)
		return "stall_ms";
	if (!RCB_CONFIG_BOOST)
		return NULL; /* the boost fields are ignored */
	if (a->boost != b->boost)
		return "boost";
	if (a->boost_prio != b->boost_prio)
		return "boost_prio";
	if (a->boost_period_ms != b->boost_period_ms)
		return "boost_period_ms";
	if (a->boost_elements != b->boost_elements)
		return "boost_elements";
	if (a->stats_interval_s != b->stats_interval_s)
		return "stats_interval_s";
	if (a->boost_machine != b->boost_machine)
		return "boost_machine";
#define RCB_DIFF(f) \
	if (a->f != b->f) \
		return #f
	RCB_DIFF(pressure_callbacks);
	RCB_DIFF(pressure_bytes);
	RCB_DIFF(pressure_psi);
	RCB_DIFF(pressure_low_pct);
	RCB_DIFF(escalate_periods);
	RCB_DIFF(boost_reader_prio);
	RCB_DIFF(boost_ceiling);
	RCB_DIFF(booster_cpus);
	RCB_DIFF(boost_backend);
	RCB_DIFF(pi_helpers);
#undef RCB_DIFF
	return NULL;
}

static void fork_prepare(void)
{
	pthread_mutex_lock(&init_lock);
	rcb__callbacks_fork_prepare();
	pthread_mutex_lock(&rcb__registry_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&rcb__registry_lock);
	rcb__callbacks_fork_parent();
	pthread_mutex_unlock(&init_lock);
}

static void fork_child(void)
{
	rcb__gp_after_fork_child();
	rcb__registry_after_fork_child();
	rcb__callbacks_after_fork_child();
	rcb__boost_after_fork_child();
	rcb__stall_after_fork_child();
	pthread_mutex_init(&init_lock, NULL);
}

/* pthread_atfork() handlers are registered once: a failed first
 * rcb_init() may leave them (they only take and re-create locks). */
static bool atfork_registered;

/*
 * Make @s the settings in force and mark the library running; for an
 * explicit rcb_init() (@start), start the boosters first.  All or
 * nothing: on failure the previous settings are back, rcb__running is
 * still false and no library thread runs.  Context: init_lock held,
 * rcb__running false.
 */
static int commit_settings(const struct rcb__settings *s, bool start)
{
	struct rcb__settings old = rcb__settings;
	int err;

	/* The boosters read the settings (pthread_create orders them). */
	rcb__settings = *s;
	if (start && (err = rcb__booster_start_init()) != 0) {
		rcb__settings = old;
		return err;
	}
	rcb_store_relaxed(&rcb__running, true);
	return 0;
}

/* rcb_init(); @lazy: an implicit first use, satisfied by any earlier
 * initialisation. */
static int do_init(const struct rcb_config *cfg, bool lazy)
{
	struct rcb__settings s = { 0 };
	enum rcb_flavor_request req;
	const char *diff;
	int err;

	if (lazy && rcb_load_acquire(&rcb__initialized)) /* [INIT-A] */
		return 0;
	if ((err = build_settings(cfg, &s, &req)) != 0)
		return err;
	pthread_mutex_lock(&init_lock);
	if (lazy && rcb_load_relaxed(&rcb__initialized)) {
		pthread_mutex_unlock(&init_lock);
		return 0;
	}
	if (rcb_load_relaxed(&rcb__initialized)) {
		s.flavor = rcb__settings.flavor;
		diff = settings_differ(&rcb__settings, &s, req);
		if (rcb_load_relaxed(&rcb__running)) {
			pthread_mutex_unlock(&init_lock);
			if (diff) {
				fprintf(stderr,
					"rcuboost: rcb_init: already initialised with a different %s; "
					"call rcb_shutdown() first\n", diff);
				return -EBUSY;
			}
			/* An explicit rcb_init() starts the boosters if none
			 * runs: after a lazy initialisation, or in the child
			 * of a fork(), which has none (a failure changes
			 * nothing else: the library already ran unboosted). */
			return lazy ? 0 : rcb__booster_start();
		}
		/* Re-initialisation after rcb_shutdown(): the flavor
		 * (threads registered under it), the boost arrays' size and
		 * machine, the backend and the CPU-to-booster map are fixed
		 * for the life of the process. */
		if (diff && (strcmp(diff, "flavor") == 0 ||
			     s.boost_elements != rcb__settings.boost_elements ||
			     s.boost_machine != rcb__settings.boost_machine ||
			     s.boost_backend != rcb__settings.boost_backend ||
			     s.booster_cpus != rcb__settings.booster_cpus)) {
			pthread_mutex_unlock(&init_lock);
			fprintf(stderr,
				"rcuboost: rcb_init: %s cannot change after the first initialisation\n",
				strcmp(diff, "flavor") == 0 ? "the flavor" :
				s.boost_machine != rcb__settings.boost_machine ?
				"boost_machine" :
				s.boost_backend != rcb__settings.boost_backend ?
				"boost_backend" :
				s.booster_cpus != rcb__settings.booster_cpus ?
				"booster_cpus" : "boost_elements");
			return -EBUSY;
		}
		err = commit_settings(&s, !lazy);
		pthread_mutex_unlock(&init_lock);
		return err;
	}
	/* First initialisation.  Until [INIT-R] no other thread uses the
	 * library (they wait for init_lock in rcb__ensure_init()), so a
	 * failure below can undo everything: the membarrier(2)
	 * registration stays (it cannot be undone and costs nothing), and
	 * the next attempt sets the flavor again. */
	if ((err = rcb__membarrier_setup(req, &s.flavor)) != 0) {
		pthread_mutex_unlock(&init_lock);
		fprintf(stderr,
			"rcuboost: rcb_init: membarrier(2) is required but unavailable: %s\n",
			strerror(-err));
		return err;
	}
	if (!atfork_registered) {
		if ((err = pthread_atfork(fork_prepare, fork_parent, fork_child))) {
			pthread_mutex_unlock(&init_lock);
			fprintf(stderr, "rcuboost: rcb_init: pthread_atfork: %s\n",
				strerror(err));
			return -err;
		}
		atfork_registered = true;
	}
	/* article: init_rcu_boost_late().  An explicit rcb_init() starts
	 * the booster before anyone sees the library initialised; a lazy
	 * one leaves it to the first grace period that waits for a
	 * blocked reader. */
	if ((err = commit_settings(&s, !lazy)) != 0) {
		pthread_mutex_unlock(&init_lock);
		return err;
	}
	/* [INIT-R] Settings are complete before anyone sees the flag.
	 * Pairs with [INIT-A] in rcb__ensure_init(). */
	rcb_store_release(&rcb__initialized, true);
	pthread_mutex_unlock(&init_lock);
	return 0;
}

RCB_API int rcb_init(const struct rcb_config *cfg)
{
	return do_init(cfg, false);
}

int rcb__init_slow(void)
{
	return do_init(NULL, true);
}

RCB_API int rcb_shutdown(void)
{
	int err;

	if (rcb_read_ongoing()) {
		rcb__misuse("rcb_shutdown",
			    "called inside a read-side critical section; it would wait for itself forever");
		return -EDEADLK;
	}
	if (rcb__self()->in_callback) {
		rcb__misuse("rcb_shutdown",
			    "called from an RCU callback; it would wait for its own thread");
		return -EDEADLK;
	}
	pthread_mutex_lock(&init_lock);
	if (!rcb_load_relaxed(&rcb__running)) {
		pthread_mutex_unlock(&init_lock);
		return -EALREADY;
	}
	rcb_store_relaxed(&rcb__running, false);
	pthread_mutex_unlock(&init_lock);
	/* rcb_call() checks rcb__running inside a read-side critical
	 * section: after this grace period, no enqueue can still be on its
	 * way, so stopping the callback thread loses nothing. */
	rcb_synchronize();
	err = rcb__callbacks_stop();
	rcb__booster_stop();
	return err;
}

RCB_API enum rcb_flavor rcb_flavor(void)
{
	if (rcb__ensure_init() != 0)
		return RCB_FLAVOR_FENCE;
	return rcb__settings.flavor;
}

RCB_API const char *rcb_flavor_name(enum rcb_flavor flavor)
{
	switch (flavor) {
	case RCB_FLAVOR_MEMBARRIER:
		return "membarrier";
	case RCB_FLAVOR_FENCE:
		return "fence";
	}
	return "unknown";
}
