/* SPDX-License-Identifier: MIT */
/*
 * Boosting statistics: the article's per-element counters summed, the
 * boosters' and backends' counters, and their text and JSON
 * (rcb_boost_stats(), rcb_boost_stats_format(); boost_off.c has the
 * same calls without boosting).  All counters are relaxed: they are
 * reports, not synchronisation; a snapshot may mix values from slightly
 * different instants.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "boost/boost.h"

#define RCB__STATE_NAME(name) #name,
static const char *const rcu_boost_state_name[] = {
	RCB_BOOST3_STATES(RCB__STATE_NAME) "invalid"
};
#undef RCB__STATE_NAME
#define RCB__STATE8_NAME(name, article) #article,
static const char *const rcu_boost8_state_name[] = {
	RCB_BOOST8_STATES(RCB__STATE8_NAME) "invalid"
};
#undef RCB__STATE8_NAME

#define RCB__EVENT_LABEL(name, label) label,
/* article: rcu_boost_state_event[] */
static const char *const rcu_boost_state_event[] = {
	RCB_BOOST_EVENTS(RCB__EVENT_LABEL)
};
#undef RCB__EVENT_LABEL

/* article: rcu_boost_state_error[]; columns idle, blocked, Boosted,
 * error.  '?': impossible state, '!': list-manipulation error. */
static const char *const rcu_boost_state_error[] = {
	/*ibBe*/
	"   ?", /* block */
	"!  ?", /* boost */
	"?  ?", /* unlock */
};

/* The same for the 8-state machine: columns IDLE, BLOCKED, BOOSTING,
 * BOOSTED, UNBOOST_IDLE, UNBOOST_BLOCKED, UNBOOST_EXITING, EXIT_OK,
 * error.  The booster resolves each thread it boosts before it picks
 * the next, so it never picks one in BOOSTING or UNBOOST_BLOCKED. */
static const char *const rcu_boost8_state_error[] = {
	/*ibgBuUxoe*/
	"      ???", /* block */
	"! ? !?!!?", /* boost */
	"?   ? ???", /* unlock */
};

_Static_assert(N_RCU_BOOST_DAT_EVENTS == 3 && N_RCU_BOOST8_STATE == 8,
	       "struct rcb_boost_stats.stats is [3][9]");

_Static_assert(sizeof(struct rcb_boost_stats) >= RCB_BOOST_STATS_SIZE_V1,
	       "struct rcb_boost_stats only grows");
/* The V1 layout ends with pi_failures: the constant is that layout's
 * size, never to change when fields are added. */
_Static_assert(offsetof(struct rcb_boost_stats, pi_failures) + sizeof(long) ==
		       RCB_BOOST_STATS_SIZE_V1,
	       "RCB_BOOST_STATS_SIZE_V1 is the SONAME 1 layout's size");

/* Counters kept per element as rbs_<name> under the element's lock
 * (plain) or changed outside it (relaxed atomics). */
#define RCB__DAT_SUMS(X) \
	X(blocked) X(boost_attempt) X(boost) X(unlock) X(unboosted) \
	X(boost_wrongstate) X(boost_cmpxchgfail) X(boost_start) \
	X(boost_end) X(preempt_enqueued) X(enqueue_reverted)
#define RCB__DAT_ATOMIC_SUMS(X) \
	X(boost_failed) X(boost_skipped_higher) X(restore_kept_app)

/* article: the summing half of rcu_boost_dat_stat_print().  Each
 * element's lock is taken so the counters are read consistently. */
static void boost_stats_fill(struct rcb_boost_stats *out)
{
	int n = rcb__machine8() ? N_RCU_BOOST8_STATE : N_RCU_BOOST_STATE;

	memset(out, 0, sizeof(*out));
	out->machine = rcb__machine8() ? 8 : 3;
	out->nstates = n;
	out->idx = rcb_load_acquire(&rcb__boost_dat_ready) /* [BST-DA] */
			   ? rcb_load_relaxed(&rcb__boosters[0].idx) : -1;
	out->boosters = rcb__nboosters;
	out->backend = rcb__settings.boost_backend ? rcb__settings.boost_backend
						   : RCB_BACKEND_SCHED;
	out->pressure_active = rcb__pressure_active();
	out->pressure_entries = rcb__pressure_entries();
	out->pressure_kicks = rcb__pressure_kicks();
	out->escalations = rcb_load_relaxed(&rcb__escalations);
	out->boost_latency_count = rcb_load_relaxed(&rcb__boost_lat_count);
	out->boost_latency_ns_max = rcb_load_relaxed(&rcb__boost_lat_max_ns);
	out->boost_latency_ns_total =
		rcb_load_relaxed(&rcb__boost_lat_total_ns);
	out->booster_cpu_ns = rcb__booster_cpu_ns();
	out->sched_syscalls = rcb_load_relaxed(&rcb__sched_syscalls);
	out->pi_boosts = rcb_load_relaxed(&rcb__pi_boosts);
	out->pi_handoffs = rcb_load_relaxed(&rcb__pi_handoffs);
	out->pi_syscalls = rcb_load_relaxed(&rcb__pi_syscalls);
	out->pi_deadlocks = rcb_load_relaxed(&rcb__pi_deadlocks);
	out->pi_failures = rcb_load_relaxed(&rcb__pi_failures);
	out->reraises = rcb_load_relaxed(&rcb__reraises);
	out->keeper = rcb__keeper_available();
	out->keeper_requests = rcb_load_relaxed(&rcb__keeper_requests);
	out->cb_boosts = rcb_load_relaxed(&rcb__cb_boosts);
	out->cb_sched_syscalls = rcb_load_relaxed(&rcb__cb_sched_syscalls);
	out->enabled = rcb__settings.boost;
	out->booster_running = rcb__booster_running();
	out->no_permission = rcb__booster_no_permission();
	out->booster_prio = rcb__booster_prio();
	if (out->booster_prio > 0) {
		out->first_level = rcb__boost_first_level(out->booster_prio);
		out->ceiling_level =
			rcb__settings.escalate_periods ?
				rcb__boost_ceiling_level(out->booster_prio) :
				out->first_level;
	}
	out->too_early = rcb_load_relaxed(&rcb__boost_too_early);
	out->passes = rcb__booster_passes();
	out->max_task_cmpxchg_fail =
		rcb_load_relaxed(&rcb__boost_max_task_fail);
	out->lock_holds = rcb_load_relaxed(&rcb__hold_count);
	out->lock_hold_ns_max = rcb_load_relaxed(&rcb__hold_max_ns);
	out->lock_hold_ns_total = rcb_load_relaxed(&rcb__hold_total_ns);
	if (!rcb_load_acquire(&rcb__boost_dat_ready)) /* [BST-DA] */
		return;
	for (int i = 0; i < rcb__boost_ncpus * rcb__boost_nelem; i++) {
		struct rcu_boost_dat *rbdp = &rcb__boost_dat[i];

		pthread_mutex_lock(&rbdp->rbs_mutex);
#define RCB__SUM(name) out->name += rbdp->rbs_##name;
#define RCB__SUM_ATOMIC(name) out->name += rcb_load_relaxed(&rbdp->rbs_##name);
		RCB__DAT_SUMS(RCB__SUM)
		RCB__DAT_ATOMIC_SUMS(RCB__SUM_ATOMIC)
#undef RCB__SUM
#undef RCB__SUM_ATOMIC
		for (int e = 0; e < N_RCU_BOOST_DAT_EVENTS; e++) {
			for (int st = 0; st < n; st++)
				out->stats[e][st] += rbdp->rbs_stats[e][st];
			out->stats[e][n] +=
				rbdp->rbs_stats[e][RCB_MAX_BOOST_STATES];
		}
		pthread_mutex_unlock(&rbdp->rbs_mutex);
	}
}

RCB_API int rcb_boost_stats(struct rcb_boost_stats *out)
{
	struct rcb_boost_stats s;
	size_t usize = rcb__sized_arg("rcb_boost_stats", "out", out ? &out->size : NULL,
				      RCB_BOOST_STATS_SIZE_V1, sizeof(s));

	if (!usize)
		return -EINVAL;
	boost_stats_fill(&s);
	rcb__sized_out(out, usize, &s, sizeof(s));
	return 0;
}

/* snprintf into buf+*off, keeping *off the would-be length. */
__attribute__((format(printf, 4, 5))) static void
put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*off < len ? buf + *off : NULL,
		      *off < len ? len - *off : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n;
}

/* article: the printing half of rcu_boost_dat_stat_print(), same lines
 * (the 8-state machine adds its four counters on a second line). */
static void format_text(const struct rcb_boost_stats *s, char *buf,
			size_t len, size_t *off)
{
	const char *const *err = s->machine == 8 ? rcu_boost8_state_error
						 : rcu_boost_state_error;
	int n = s->nstates > 0 && s->nstates <= 8 ? s->nstates : 3;

	put(buf, len, off,
	    "rcu_boost_dat: idx=%d b=%ld ul=%ld ub=%ld boost: a=%ld b=%ld\n",
	    s->idx, s->blocked, s->unlock, s->unboosted, s->boost_attempt,
	    s->boost);
	if (s->machine == 8)
		put(buf, len, off,
		    "rcu_boost_dat: wrongstate=%ld cmpxchgfail=%ld start=%ld end=%ld task_cmpxchg_fail_max=%ld\n",
		    s->boost_wrongstate, s->boost_cmpxchgfail, s->boost_start,
		    s->boost_end, s->max_task_cmpxchg_fail);
	for (int e = 0; e < N_RCU_BOOST_DAT_EVENTS; e++) {
		char row[9 * (sizeof(long) * 3 + 2) + 2];
		int i = 0;

		for (int st = 0; st <= n; st++)
			i += snprintf(&row[i], sizeof(row) - (size_t)i, " %ld%c",
				      s->stats[e][st], err[e][st]);
		put(buf, len, off, "rcu_boost_dat %s %s\n",
		    rcu_boost_state_event[e], row);
	}
	/* The enhancements' line, when one is in use (the article's lines
	 * above keep their format). */
	if (s->boosters > 1 || s->backend == RCB_BACKEND_PI ||
	    s->ceiling_level > s->first_level || s->pressure_entries ||
	    s->pressure_active)
		put(buf, len, off,
		    "rcuboost: boosters=%d backend=%s levels=%d-%d escalations=%ld "
		    "pressure=%s entries=%ld kicks=%ld\n",
		    s->boosters, s->backend == RCB_BACKEND_PI ? "pi" : "sched",
		    s->first_level, s->ceiling_level, s->escalations,
		    s->pressure_active ? "on" : "off", s->pressure_entries,
		    s->pressure_kicks);
}

/* One field of the JSON object, as its kind says. */
static void json_field(char *buf, size_t len, size_t *off, const char **sep,
		       const char *name, int kind, long v)
{
	if (kind == RCB_STAT_SHAPE)
		return;
	put(buf, len, off, "%s\"%s\":", *sep, name);
	*sep = ",";
	if (kind == RCB_STAT_BOOL)
		put(buf, len, off, "%s", v ? "true" : "false");
	else if (kind == RCB_STAT_BACKEND)
		put(buf, len, off, "\"%s\"", v == RCB_BACKEND_PI ? "pi" : "sched");
	else
		put(buf, len, off, "%ld", v);
}

#define RCB__STAT_JSON(type, name, kind) \
	json_field(buf, len, off, &sep, #name, kind, (long)s->name);

static void format_json(const struct rcb_boost_stats *s, char *buf,
			size_t len, size_t *off)
{
	const char *const *names = s->machine == 8 ? rcu_boost8_state_name
						   : rcu_boost_state_name;
	int n = s->nstates > 0 && s->nstates <= 8 ? s->nstates : 3;
	const char *sep = "";

	put(buf, len, off, "{");
	RCB_BOOST_STATS_ARTICLE(RCB__STAT_JSON)
	put(buf, len, off, "%s\"states\":[", sep);
	for (int st = 0; st < n; st++)
		put(buf, len, off, "%s\"%s\"", st ? "," : "", names[st]);
	put(buf, len, off, ",\"invalid\"");
	put(buf, len, off, "],\"stats\":{");
	for (int e = 0; e < N_RCU_BOOST_DAT_EVENTS; e++) {
		const char *label = rcu_boost_state_event[e];

		put(buf, len, off, "%s\"%.*s\":[", e ? "," : "",
		    (int)(strchr(label, ':') - label), label);
		for (int st = 0; st <= n; st++)
			put(buf, len, off, "%s%ld", st ? "," : "",
			    s->stats[e][st]);
		put(buf, len, off, "]");
	}
	put(buf, len, off, "}");
	RCB_BOOST_STATS_MORE(RCB__STAT_JSON)
	put(buf, len, off, "}\n");
}
#undef RCB__STAT_JSON

RCB_API int rcb_boost_stats_format(const struct rcb_boost_stats *s, char *buf,
				   size_t len, int json)
{
	struct rcb_boost_stats c;
	size_t off = 0,
	       usize = rcb__sized_arg("rcb_boost_stats_format", "s",
				      s ? &s->size : NULL,
				      RCB_BOOST_STATS_SIZE_V1, sizeof(c));

	if (!usize)
		return -EINVAL;
	if (!buf && len) {
		rcb__misuse("rcb_boost_stats_format",
			    "buf is NULL with len %zu; nothing done", len);
		return -EINVAL;
	}
	/* Nothing past this library's struct is read: it would print as
	 * nothing anyway. */
	rcb__sized_in(&c, sizeof(c), s, usize < sizeof(c) ? usize : sizeof(c));
	c.machine = c.machine == 8 ? 8 : 3;
	if (len)
		buf[0] = '\0';
	if (json)
		format_json(&c, buf, len, &off);
	else
		format_text(&c, buf, len, &off);
	return (int)off;
}
