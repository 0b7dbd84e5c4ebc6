/* SPDX-License-Identifier: MIT */
/*
 * Statistics: grace-period counters.  All counters are relaxed: they are
 * reports, not synchronisation; a snapshot may mix values from slightly
 * different instants.
 */
#include "internal.h"

RCB_API void rcb_stats(struct rcb_gp_stats *out)
{
	struct rcb__thread *t;
	uint64_t n = 0;

	out->grace_periods = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_GP]);
	out->synchronize_calls = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_SYNC]);
	out->batched = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_BATCHED]);
	out->futex_waits = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_FUTEX]);
	out->misuse = rcb_load_relaxed(&rcb__gp_stat[RCB__GPS_MISUSE]);
	pthread_mutex_lock(&rcb__registry_lock);
	rcb__for_each_thread(t)
		n++;
	pthread_mutex_unlock(&rcb__registry_lock);
	out->registered_threads = n;
}

#if RCB_CONFIG_BOOST
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "boost.h"

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

/* article: the summing half of rcu_boost_dat_stat_print().  Each
 * element's lock is taken so the counters are read consistently. */
RCB_API int rcb_boost_stats(struct rcb_boost_stats *out)
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
	out->boost_latency_ns_total = rcb_load_relaxed(&rcb__boost_lat_total_ns);
	out->booster_cpu_ns = rcb__booster_cpu_ns();
	out->sched_syscalls = rcb_load_relaxed(&rcb__sched_syscalls);
	out->pi_boosts = rcb_load_relaxed(&rcb__pi_boosts);
	out->pi_handoffs = rcb_load_relaxed(&rcb__pi_handoffs);
	out->pi_syscalls = rcb_load_relaxed(&rcb__pi_syscalls);
	out->pi_deadlocks = rcb_load_relaxed(&rcb__pi_deadlocks);
	out->pi_failures = rcb_load_relaxed(&rcb__pi_failures);
	out->enabled = rcb__settings.boost;
	out->booster_running = rcb__booster_running();
	out->no_permission = rcb__booster_no_permission();
	out->booster_prio = rcb__booster_prio();
	if (out->booster_prio > 0) {
		out->first_level = rcb__boost_first_level(out->booster_prio);
		out->ceiling_level = rcb__settings.escalate_periods
					     ? rcb__boost_ceiling_level(out->booster_prio)
					     : out->first_level;
	}
	out->too_early = rcb_load_relaxed(&rcb__boost_too_early);
	out->passes = rcb__booster_passes();
	out->max_task_cmpxchg_fail = rcb_load_relaxed(&rcb__boost_max_task_fail);
	out->lock_holds = rcb_load_relaxed(&rcb__hold_count);
	out->lock_hold_ns_max = rcb_load_relaxed(&rcb__hold_max_ns);
	out->lock_hold_ns_total = rcb_load_relaxed(&rcb__hold_total_ns);
	if (!rcb_load_acquire(&rcb__boost_dat_ready)) /* [BST-DA] */
		return 0;
	for (int i = 0; i < rcb__boost_ncpus * rcb__boost_nelem; i++) {
		struct rcu_boost_dat *rbdp = &rcb__boost_dat[i];

		pthread_mutex_lock(&rbdp->rbs_mutex);
		out->blocked += rbdp->rbs_blocked;
		out->boost_attempt += rbdp->rbs_boost_attempt;
		out->boost += rbdp->rbs_boost;
		out->unlock += rbdp->rbs_unlock;
		out->unboosted += rbdp->rbs_unboosted;
		for (int e = 0; e < N_RCU_BOOST_DAT_EVENTS; e++) {
			for (int st = 0; st < n; st++)
				out->stats[e][st] += rbdp->rbs_stats[e][st];
			out->stats[e][n] += rbdp->rbs_stats[e][RCB_MAX_BOOST_STATES];
		}
		out->boost_wrongstate += rbdp->rbs_boost_wrongstate;
		out->boost_cmpxchgfail += rbdp->rbs_boost_cmpxchgfail;
		out->boost_start += rbdp->rbs_boost_start;
		out->boost_end += rbdp->rbs_boost_end;
		out->preempt_enqueued += rbdp->rbs_preempt_enqueued;
		out->enqueue_reverted += rbdp->rbs_enqueue_reverted;
		out->boost_failed += rcb_load_relaxed(&rbdp->rbs_boost_failed);
		out->boost_skipped_higher +=
			rcb_load_relaxed(&rbdp->rbs_boost_skipped_higher);
		out->restore_kept_app += rcb_load_relaxed(&rbdp->rbs_restore_kept_app);
		pthread_mutex_unlock(&rbdp->rbs_mutex);
	}
	return 0;
}

/* snprintf into buf+*off, keeping *off the would-be length. */
__attribute__((format(printf, 4, 5))) static void
put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*off < len ? buf + *off : NULL, *off < len ? len - *off : 0,
		      fmt, ap);
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

static void format_json(const struct rcb_boost_stats *s, char *buf,
			size_t len, size_t *off)
{
	const char *const *names = s->machine == 8 ? rcu_boost8_state_name
						   : rcu_boost_state_name;
	int n = s->nstates > 0 && s->nstates <= 8 ? s->nstates : 3;

	put(buf, len, off,
	    "{\"machine\":%d,\"enabled\":%s,\"booster_running\":%s,\"no_permission\":%s,"
	    "\"booster_prio\":%d,\"idx\":%d,\"blocked\":%ld,\"unlock\":%ld,"
	    "\"unboosted\":%ld,\"boost_attempt\":%ld,\"boost\":%ld,",
	    s->machine == 8 ? 8 : 3, s->enabled ? "true" : "false",
	    s->booster_running ? "true" : "false",
	    s->no_permission ? "true" : "false", s->booster_prio, s->idx,
	    s->blocked, s->unlock, s->unboosted, s->boost_attempt, s->boost);
	put(buf, len, off, "\"states\":[");
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
	put(buf, len, off,
	    "},\"too_early\":%ld,\"preempt_enqueued\":%ld,"
	    "\"enqueue_reverted\":%ld,\"boost_failed\":%ld,"
	    "\"boost_skipped_higher\":%ld,\"restore_kept_app\":%ld,"
	    "\"passes\":%ld,\"boost_wrongstate\":%ld,\"boost_cmpxchgfail\":%ld,"
	    "\"boost_start\":%ld,\"boost_end\":%ld,"
	    "\"max_task_cmpxchg_fail\":%ld,\"lock_holds\":%ld,"
	    "\"lock_hold_ns_max\":%ld,\"lock_hold_ns_total\":%ld,",
	    s->too_early, s->preempt_enqueued, s->enqueue_reverted,
	    s->boost_failed, s->boost_skipped_higher, s->restore_kept_app,
	    s->passes, s->boost_wrongstate, s->boost_cmpxchgfail,
	    s->boost_start, s->boost_end, s->max_task_cmpxchg_fail,
	    s->lock_holds, s->lock_hold_ns_max, s->lock_hold_ns_total);
	put(buf, len, off,
	    "\"boosters\":%d,\"backend\":\"%s\",\"first_level\":%d,"
	    "\"ceiling_level\":%d,\"pressure_active\":%s,\"pressure_entries\":%ld,"
	    "\"pressure_kicks\":%ld,\"escalations\":%ld,\"boost_latency_count\":%ld,"
	    "\"boost_latency_ns_max\":%ld,\"boost_latency_ns_total\":%ld,"
	    "\"booster_cpu_ns\":%ld,\"sched_syscalls\":%ld,\"pi_boosts\":%ld,"
	    "\"pi_handoffs\":%ld,\"pi_syscalls\":%ld,\"pi_deadlocks\":%ld,"
	    "\"pi_failures\":%ld}\n",
	    s->boosters, s->backend == RCB_BACKEND_PI ? "pi" : "sched",
	    s->first_level, s->ceiling_level,
	    s->pressure_active ? "true" : "false", s->pressure_entries,
	    s->pressure_kicks, s->escalations, s->boost_latency_count,
	    s->boost_latency_ns_max, s->boost_latency_ns_total,
	    s->booster_cpu_ns, s->sched_syscalls, s->pi_boosts, s->pi_handoffs,
	    s->pi_syscalls, s->pi_deadlocks, s->pi_failures);
}

RCB_API int rcb_boost_stats_format(const struct rcb_boost_stats *s, char *buf,
				   size_t len, int json)
{
	size_t off = 0;

	if (!s || (!buf && len))
		return -EINVAL;
	if (len)
		buf[0] = '\0';
	if (json)
		format_json(s, buf, len, &off);
	else
		format_text(s, buf, len, &off);
	return (int)off;
}
#endif /* RCB_CONFIG_BOOST */
