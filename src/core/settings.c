/* SPDX-License-Identifier: MIT */
/*
 * Settings: struct rcb_config and the environment into struct
 * rcb__settings, with the range checks, the defaults and the comparison
 * of two settings.  The list of settings is src/core/settings.h.
 *
 * Invariant: a failing rcb__build_settings() has written nothing but its
 * own output, which the caller discards: settings are parsed and
 * validated into a local copy first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "core/internal.h"

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

/*
 * Every CPU of @mask exists (is configured): the library's threads are
 * created with that mask, and the kernel's refusal of a missing CPU,
 * EINVAL from pthread_create(), named neither the setting nor the CPU.
 * @what names the setting.  0, or -EINVAL with the message.
 */
static int cpus_exist(unsigned long long mask, const char *what)
{
	int ncpus = get_nprocs_conf();

	for (int cpu = 0; cpu < 64; cpu++) {
		if (!(mask >> cpu & 1) || cpu < ncpus)
			continue;
		fprintf(stderr,
			"rcuboost: %s is invalid: CPU %d does not exist (this machine has CPUs 0 to %d)\n",
			what, cpu, ncpus - 1);
		return -EINVAL;
	}
	return 0;
}

/*
 * Some CPU of @mask is one the process may run threads on (its cpuset,
 * online): else the kernel refuses every library thread (EINVAL), and
 * callbacks and polled cookies that wait for one would wait forever.
 * Only some of them: the kernel runs the threads on those.  @what names
 * the setting.  0, or -EINVAL with the message naming the CPUs allowed.
 */
static int cpus_usable(unsigned long long mask, const char *what)
{
	unsigned long long allowed;
	char list[192];

	/* Unknown (no thread could ask): thread starts fall back on their
	 * own if need be (libthread.c). */
	if (rcb__lib_thread_cpus_allowed(&allowed) != 0 || (mask & allowed))
		return 0;
	rcb__cpulist(allowed, list, sizeof(list));
	fprintf(stderr,
		"rcuboost: %s is invalid: this process may run threads on none of these CPUs "
		"(its cpuset and the CPUs online: it may use CPUs %s)\n",
		what, list[0] ? list : "above 63 only");
	return -EINVAL;
}

/*
 * A CPU list ("0-1,3") into a mask of CPUs 0 to 63 (RCUBOOST_CPUS).
 * Returns 0 with *@out set, or -EINVAL with the message.
 */
static int env_cpulist(const char *name, unsigned long long *out)
{
	static const char range[] =
		"a list of CPUs from 0 to 63 such as 0-1,3";
	const char *v = getenv(name), *p;
	unsigned long long mask = 0;
	char what[96];

	if (!v)
		return 0;
	for (p = v; *p;) {
		unsigned long lo, hi;
		char *end;

		if (*p < '0' || *p > '9')
			return env_error(name, v, range);
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return env_error(name, v, range);
			hi = strtoul(p, &end, 10);
		}
		if (lo > hi || hi > 63)
			return env_error(name, v, range);
		for (unsigned long c = lo; c <= hi; c++)
			mask |= 1ull << c;
		p = end;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return env_error(name, v, range);
	}
	if (!mask)
		return env_error(name, v, range);
	snprintf(what, sizeof(what), "environment variable %s=\"%s\"", name, v);
	if (cpus_exist(mask, what) || cpus_usable(mask, what))
		return -EINVAL;
	*out = mask;
	return 0;
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

/* In a function, so that a field's type never makes the test trivially
 * true (-Wtype-limits). */
static bool in_range(long long v, long long lo, long long hi)
{
	return v >= lo && v <= hi;
}

/* Each field of @c within its documented range (0 means default). */
static int check_config(const struct rcb_config *c)
{
	unsigned int e = c->boost_elements;

#define RCB__CHECK(type, name, env, lo, hi, range, fixed, boost, spec) \
	if ((range) && !in_range((long long)c->name, lo, hi))          \
		return config_error(#name, (long)c->name,              \
				    (range) ? (range) : "");
	RCB__SETTINGS(RCB__CHECK)
#undef RCB__CHECK
	/* The rules a range does not say. */
	if (e == 1 || (e & (e - 1)))
		return config_error("boost_elements", (long)e,
				    "0 (default) or a power of two from 2 to 64");
	if (c->boost_machine != 0 && c->boost_machine != 3 &&
	    c->boost_machine != 8)
		return config_error("boost_machine", c->boost_machine,
				    "0 (default), 3 or 8");
	/* A boosted reader runs at least one below the booster, at 1 or
	 * more (as rcb_booster_set_prio() requires). */
	if (c->boost_prio == 1)
		return config_error("boost_prio", 1, "0 (default) or 2 to 99");
	return 0;
}

/*
 * The numeric settings of src/core/settings.h (RCB__ENV_UINT) left 0 in @c:
 * from their variable, else their default.
 */
static int env_numbers(struct rcb_config *c)
{
	unsigned long u;
	bool have;
	int err;

#define RCB__ENV_(name, env, gen, lo, hi, def) \
	if ((gen) && c->name == 0) { \
		if ((err = env_uint(env, lo, hi, &u, &have))) \
			return err; \
		c->name = have ? u : (def); \
	}
#define RCB__ENV_SPEC(name, env, ...) RCB__ENV_(name, env, __VA_ARGS__)
#define RCB__ENV(type, name, env, lo, hi, range, fixed, boost, spec) \
	RCB__ENV_SPEC(name, env, spec)
	RCB__SETTINGS(RCB__ENV)
#undef RCB__ENV
#undef RCB__ENV_SPEC
#undef RCB__ENV_
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
	bool explicit_levels, default_ceiling, default_reader;
	char what[320];
	unsigned long u;
	int i, err;

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
			if (*v < '0' || *v > '9' || errno || *end || u < 1 ||
			    u > 4096)
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
	/* Boosted readers stay strictly below the booster, which must
	 * preempt them to manage them (a booster at priority 1, allowed
	 * before these settings existed, boosts to 1). */
	explicit_levels = c->boost_reader_prio || c->boost_ceiling;
	default_ceiling = !c->boost_ceiling;
	default_reader = !c->boost_reader_prio;
	if (!c->boost_reader_prio)
		c->boost_reader_prio =
			s->boost_prio > 1 ? s->boost_prio - 1 : 1;
	if (!c->boost_ceiling)
		c->boost_ceiling = s->boost_prio > 1 ? s->boost_prio - 1 : 1;
	if (c->boost_reader_prio > c->boost_ceiling && default_ceiling) {
		snprintf(what, sizeof(what),
			 "the first boost priority %d (boost_reader_prio, RCUBOOST_READER_PRIO) "
			 "is above the ceiling, which defaults to one below the booster's "
			 "priority %d (boost_prio, RCUBOOST_PRIO): raise the booster's, or "
			 "set the ceiling (boost_ceiling, RCUBOOST_CEILING)",
			 c->boost_reader_prio, s->boost_prio);
		return combination_error(what);
	}
	if (c->boost_reader_prio > c->boost_ceiling) {
		snprintf(what, sizeof(what),
			 "the first boost priority %d (boost_reader_prio, RCUBOOST_READER_PRIO%s) "
			 "is above the ceiling %d (boost_ceiling, RCUBOOST_CEILING)",
			 c->boost_reader_prio,
			 default_reader ? "; by default one below the booster's priority, "
					  "boost_prio, RCUBOOST_PRIO" : "",
			 c->boost_ceiling);
		return combination_error(what);
	}
	if (s->boost && explicit_levels && c->boost_ceiling >= s->boost_prio) {
		snprintf(what, sizeof(what),
			 "boosted readers must stay below the booster: the ceiling %d "
			 "(boost_ceiling, RCUBOOST_CEILING) must be below the booster's "
			 "priority %d (boost_prio, RCUBOOST_PRIO)",
			 c->boost_ceiling, s->boost_prio);
		return combination_error(what);
	}
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
	/* Expedited grace periods work with both machines (the 8-state one
	 * boosts whole elements); inheritance raises boosted readers under
	 * the element lock, which only the 3-state machine allows. */
	if (s->boost_machine == 8 && c->inherit > 0)
		return combination_error(
			"priority inheritance (inherit, RCUBOOST_INHERIT) needs the 3-state "
			"machine (boost_machine 3, RCUBOOST_MACHINE=3)");
	s->expedited = c->expedited > 0;
	s->inherit = c->inherit > 0;
	s->inherit_ceiling = c->inherit_ceiling;
	return 0;
}

int rcb__build_settings(const struct rcb_config *cfg, struct rcb__settings *s,
			enum rcb_flavor_request *flavor_req)
{
	static const char *const flavors[] = { "auto", "membarrier", "fence" };
	static const char *const policies[] = { "warn", "abort" };
	struct rcb_config c = { 0 };
	unsigned long u;
	bool have;
	int i, err;

	if (cfg) {
		size_t usize = rcb__sized_arg("rcb_init", "cfg", &cfg->size,
					      RCB_CONFIG_SIZE_V1, sizeof(c));

		/* Misuse, unlike a bad setting: an uninitialised size says
		 * nothing of the fields behind it. */
		if (!usize)
			return -EINVAL;
		/* A caller built with the field named reserved_v1 (a size
		 * past the SONAME 1 layout) must leave it 0; in an older
		 * caller's struct it is tail padding, which may hold
		 * anything. */
		if (usize > RCB_CONFIG_SIZE_V1 && cfg->reserved_v1)
			return config_error("reserved_v1", cfg->reserved_v1, "0 (reserved)");
		if (!rcb__sized_in(&c, sizeof(c), cfg, usize)) {
			fprintf(stderr,
				"rcuboost: rcb_init: struct rcb_config size %zu is larger than this library's %zu and sets fields it does not know\n",
				usize, sizeof(c));
			return -E2BIG;
		}
	}
	if ((err = check_config(&c)) != 0)
		return err;
	if ((err = env_numbers(&c)) != 0)
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
	if (c.boost == 0) {
		if ((err = env_uint("RCUBOOST_BOOST", 0, 1, &u, &have)))
			return err;
		c.boost = have ? (u ? 1 : -1) : 1;
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
	s->misuse = c.misuse;
	s->callback_batch_us = c.callback_batch_us;
	s->boost = c.boost > 0;
	s->boost_prio = c.boost_prio;
	s->boost_period_ms = c.boost_period_ms;
	s->boost_elements = c.boost_elements;
	s->stats_interval_s = c.stats_interval_s;
	/* The stall detector works with or without boosting. */
	s->stall_ms = c.stall_ms < 0 ? 0 : (unsigned)c.stall_ms;
	/* Callback workers' priority, also without boosting. */
	s->callback_prio = c.callback_prio < 0 ? 0 : c.callback_prio;
	s->callback_local = c.callback_local > 0;
	s->callback_follow = c.callback_follow > 0;
	s->urcu_callback_delay_us =
		c.urcu_callback_delay_us < 0 ? 0 : c.urcu_callback_delay_us;
	s->boost_machine = c.boost_machine;
	if (c.thread_cpus) {
		static const char field[] =
			"struct rcb_config field thread_cpus";

		if ((err = cpus_exist(c.thread_cpus, field)) ||
		    (err = cpus_usable(c.thread_cpus, field)))
			return err;
	} else if ((err = env_cpulist("RCUBOOST_CPUS", &c.thread_cpus))) {
		return err;
	}
	s->thread_cpus = c.thread_cpus;
	if ((err = build_enhancements(&c, s)))
		return err;
	*flavor_req = c.flavor;
	return 0;
}

const char *rcb__settings_differ(const struct rcb__settings *a,
				 const struct rcb__settings *b,
				 enum rcb_flavor_request req)
{
	/* The flavor in force is what the request allows, not a value. */
	if ((req == RCB_FLAVOR_REQUIRE_FENCE &&
	     a->flavor != RCB_FLAVOR_FENCE) ||
	    (req == RCB_FLAVOR_REQUIRE_MEMBARRIER &&
	     a->flavor != RCB_FLAVOR_MEMBARRIER))
		return "flavor";
#define RCB__DIFF(type, name, env, lo, hi, range, fixed, boost, spec) \
	if ((RCB_CONFIG_BOOST || !(boost)) && \
	    strcmp(#name, "flavor") != 0 && a->name != b->name) \
		return #name;
	RCB__SETTINGS(RCB__DIFF)
#undef RCB__DIFF
	return NULL;
}

const char *rcb__settings_fixed(const struct rcb__settings *a,
				const struct rcb__settings *b, const char *diff)
{
	if (!diff)
		return NULL;
	if (strcmp(diff, "flavor") == 0)
		return "the flavor";
	/* By rank: the message names one field even when several differ. */
	for (int rank = 2; rank <= 5; rank++) {
#define RCB__FIXED(type, name, env, lo, hi, range, fixed, boost, spec) \
	if ((fixed) == rank && a->name != b->name) \
		return #name;
		RCB__SETTINGS(RCB__FIXED)
#undef RCB__FIXED
	}
	return NULL;
}

int rcb__env_flag(const char *v)
{
	char *end = NULL;
	unsigned long on;

	errno = 0;
	on = *v >= '0' && *v <= '9' ? strtoul(v, &end, 10) : 2;
	return errno || on > 1 || *end != '\0' ? -1 : (int)on;
}
