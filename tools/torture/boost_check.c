/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-torture: the boost phase's scheduling-attribute helpers
 * (sched_getattr(2)/sched_setattr(2) on the calling thread), the check
 * of the library's boost statistics, and the boost part of the report.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boost.h"

pid_t boost_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* ------------------------------------------------------------------ */
/* Scheduling attributes                                              */
/* ------------------------------------------------------------------ */

int boost_sched_set(uint32_t policy, int prio, int nice)
{
	struct tool_sattr a = { .policy = policy,
				.prio = (uint32_t)prio,
				.nice = nice };

	return tool_sattr_set(&a);
}

int boost_sched_set_attr(const struct tool_sattr *a)
{
	return boost_sched_set(a->policy, (int)a->prio, a->nice);
}

bool boost_is_boosted(const struct tool_sattr *a)
{
	return a->policy == SCHED_FIFO &&
	       (int)a->prio >= tstate.boost.boosted_prio &&
	       (int)a->prio <= tstate.boost.boosted_ceiling;
}

static const char *policy_name(uint32_t policy)
{
	switch (policy) {
	case SCHED_OTHER:
		return "SCHED_OTHER";
	case SCHED_FIFO:
		return "SCHED_FIFO";
	case SCHED_RR:
		return "SCHED_RR";
	case SCHED_BATCH:
		return "SCHED_BATCH";
	case SCHED_IDLE:
		return "SCHED_IDLE";
	default:
		return "policy?";
	}
}

void boost_rt_error(const char *who, unsigned int idx, const char *what,
		     int err)
{
	torture_error(TORTURE_ERR_boost_rt, "%s %u (tid %d): %s: %s", who, idx,
		      (int)boost_tid(), what, strerror(-err));
}

bool torture_boost_check_attrs(const struct tool_sattr *want,
			       enum torture_error kind, const char *who,
			       unsigned int idx, const char *when)
{
	struct tool_sattr cur;
	int err = tool_sattr_get(0, &cur);

	torture_add(&tstate.boost.attr_checks, 1);
	if (err) {
		boost_rt_error(who, idx, "sched_getattr", err);
		return false;
	}
	if (tool_sattr_same(&cur, want))
		return true;
	torture_error(kind,
		      "%s %u (tid %d) %s: %s prio %u nice %d, expected %s prio %u nice %d%s",
		      who, idx, (int)boost_tid(), when, policy_name(cur.policy),
		      cur.prio, cur.nice, policy_name(want->policy), want->prio,
		      want->nice, boost_is_boosted(&cur) ? " (boosted)" : "");
	return false;
}

int boost_wait_attrs(pid_t tid, const struct tool_sattr *want,
		     struct tool_sattr *cur, unsigned int ms)
{
	uint64_t end = tool_now_ns() + (uint64_t)ms * NS_PER_MS;
	int err;

	while ((err = tool_sattr_get(tid, cur)) == 0 &&
	       !tool_sattr_same(cur, want) && tool_now_ns() < end)
		tool_sleep_ns(NS_PER_MS / 4);
	return err;
}

/*
 * The check after a thread's outermost unlock.  The 8-state machine does
 * not restore a thread that ends its section while the booster is still
 * raising it (BOOSTING -> UNBOOST_IDLE): the booster backs the boost out
 * as soon as its sched_setattr(2) returns (src/boost/machine8.c back_out(),
 * doc/machines.md), so the thread may see the boosted attributes for
 * that long after its unlock.  Under that machine only, a boosted
 * thread waits up to a generous second for its own attributes before
 * they count as a residual boost; the 3-state machine and the pi
 * backend restore at the unlock itself and get no grace.
 */
bool torture_boost_check_unlocked(const struct tool_sattr *want,
				  const char *who, unsigned int idx)
{
	struct rcb_boost_stats s = { .size = sizeof(s) };
	struct tool_sattr cur;

	if (tool_sattr_get(0, &cur) == 0 && !tool_sattr_same(&cur, want) &&
	    boost_is_boosted(&cur) && rcb_boost_stats(&s) == 0 &&
	    s.machine == 8) {
		(void)boost_wait_attrs(0, want, &cur, 1000);
		torture_add(&tstate.boost.late_backouts, 1);
	}
	return torture_boost_check_attrs(want, TORTURE_ERR_boost_residual, who,
					 idx, "after its outermost unlock");
}

/* Pin the caller to @cpu alone; true if its mask is exactly {cpu}. */
bool boost_pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		return false;
	CPU_ZERO(&set);
	if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		return false;
	return CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
}
static const char *const state3_names[] = { "IDLE", "BLOCKED", "BOOSTED" };
static const char *const state8_names[] = {
	"IDLE", "BLOCKED", "BOOSTING", "BOOSTED", "UNBOOST_IDLE",
	"UNBOOST_BLOCKED", "UNBOOST_EXITING", "EXIT_OK",
};

static const char *state_name(const struct rcb_boost_stats *s, int col)
{
	if (col == s->nstates)
		return "invalid";
	if (s->machine == 8 && col < 8)
		return state8_names[col];
	if (s->machine != 8 && col < 3)
		return state3_names[col];
	return "?";
}

/*
 * The statistics text marks each cell of the event x state table with
 * ' ' (valid), '?' (impossible state) or '!' (list-manipulation error),
 * as the article's rcu_boost_dat_stat_print() does.  Any marked cell
 * with a count is an error.
 */
static void check_marked_cells(const struct rcb_boost_stats *s,
			       const char *text)
{
	const char *line = text;

	while ((line = strstr(line, "rcu_boost_dat "))) {
		const char *event = line + strlen("rcu_boost_dat ");
		const char *p = event, *colon;
		const char *eol = strchr(p, '\n');
		char *end;
		int col = 0;
		long v;

		colon = strchr(p, ':');
		if (!colon || (eol && colon > eol)) {
			line = p;
			continue;
		}
		for (p = colon + 1; (!eol || p < eol) && *p; col++) {
			v = strtol(p, &end, 10);
			if (end == p)
				break;
			if (v && (*end == '?' || *end == '!'))
				torture_error(TORTURE_ERR_boost_stats,
					      "%.*s event in state %s counted %ld times (marked '%c')",
					      (int)(colon - event), event,
					      state_name(s, col), v, *end);
			p = *end ? end + 1 : end;
		}
		line = p;
	}
}

void boost_check_stats(void)
{
	struct rcb_boost_stats *s = &tstate.boost.stats;
	char text[4096];

	s->size = sizeof(*s);
	tstate.boost.stats_err = rcb_boost_stats(s);
	if (tstate.boost.stats_err) {
		torture_error(TORTURE_ERR_boost_stats, "rcb_boost_stats returned %d",
			      tstate.boost.stats_err);
		return;
	}
	if (tstate.opt.expect_machine &&
	    s->machine != tstate.opt.expect_machine)
		torture_error(TORTURE_ERR_boost_stats,
			      "the boost machine is %d, expected %d (RCUBOOST_MACHINE)",
			      s->machine, tstate.opt.expect_machine);
	if (!s->enabled)
		torture_error(TORTURE_ERR_boost_stats,
			      "boosting is configured off");
	if (s->boost == 0)
		torture_error(TORTURE_ERR_boost_stats,
			      "nothing was boosted (%ld blocked sections, %ld queued on behalf)",
			      s->blocked, s->preempt_enqueued);
	if (s->boost_failed)
		torture_error(TORTURE_ERR_boost_stats,
			      "%ld boosts failed (sched_setattr refused)",
			      s->boost_failed);
	for (int e = 0; e < 3; e++)
		if (s->nstates >= 0 && s->nstates < 9 &&
		    s->stats[e][s->nstates])
			torture_error(TORTURE_ERR_boost_stats,
				      "event %d counted %ld times in an invalid state",
				      e, s->stats[e][s->nstates]);
	if (s->machine == 8 && s->max_task_cmpxchg_fail > 1)
		torture_error(TORTURE_ERR_boost_stats,
			      "a thread-side state change met %ld consecutive compare-and-exchange failures (bound 1)",
			      s->max_task_cmpxchg_fail);
	rcb_boost_stats_format(s, text, sizeof(text), 0);
	check_marked_cells(s, text);
	if (tstate.opt.boost_app_pct &&
	    torture_get(&tstate.boost.app_changes) == 0)
		torture_error(TORTURE_ERR_boost_coverage,
			      "%lu boosted sections seen, none changed its attributes",
			      torture_get(&tstate.boost.boosted_seen));
}
/* ------------------------------------------------------------------ */
/* Output                                                             */
/* ------------------------------------------------------------------ */

void torture_boost_progress(FILE *f)
{
	struct rcb_boost_stats s = { .size = sizeof(s) };

	if (rcb_boost_stats(&s) != 0)
		memset(&s, 0, sizeof(s));
	fprintf(f, "  boost: hog=%s bursts=%lu sections=%lu long=%lu boosted_seen=%lu app_changes=%lu exiters=%lu cb_queued=%lu cb_invoked=%lu boost=%ld unboosted=%ld\n",
		atomic_load(&tstate.boost.hog_on) ? "on" : "off",
		torture_get(&tstate.boost.bursts),
		torture_get(&tstate.boost.sections),
		torture_get(&tstate.boost.long_sections),
		torture_get(&tstate.boost.boosted_seen),
		torture_get(&tstate.boost.app_changes),
		torture_get(&tstate.boost.exiters),
		torture_get(&tstate.boost.cb_queued),
		torture_get(&tstate.boost.cb_invoked), s.boost, s.unboosted);
}

/* The boost phase's counters, listed once for the text (first name) and
 * the JSON (second). */
#define BOOST_COUNTERS(X)                                                    \
	X(bursts, bursts, bursts)                                            \
	X(hog_ms, hog_ms, hog_ms) X(sections, sections, sections) X(         \
		long, long_sections,                                         \
		long_sections) X(blocked, blocked_sections,                  \
				 blocked_sections) X(blocks, blocks, blocks) \
		X(boosted_seen, boosted_seen,                                \
		  boosted_seen) X(app_changes, app_changes, app_changes)     \
			X(attr_checks, attr_checks, attr_checks) X(          \
				late_backouts, late_backouts, late_backouts) \
				X(app_lost_escalation, app_lost_escalation,  \
				  app_lost_escalation) X(exiters, exiters,   \
							 exiters)            \
					X(exiters_boosted, exiters_boosted,  \
					  exiters_boosted)                   \
						X(exiters_unregistered,      \
						  exiters_unregistered,      \
						  exiters_unregistered)

/* " name=N ..." or (@json) ", \"name\": N ...". */
static void boost_counters(FILE *f, bool json)
{
	struct torture_boost_state *b = &tstate.boost;

#define X(text, key, field)                                                 \
	fprintf(f, json ? ", \"%s\": %lu" : " %s=%lu", json ? #key : #text, \
		torture_get(&b->field));
	BOOST_COUNTERS(X)
#undef X
}

void torture_boost_report(FILE *f)
{
	struct torture_boost_state *b = &tstate.boost;
	char text[4096];

	fprintf(f,
		"Boost: machine=%d booster_prio=%d boosted_prio=%d hog_prio=%u hog_cpu=%d "
		"updater_cpu=%d readers=%u",
		b->stats.machine, b->booster_prio, b->boosted_prio,
		tstate.opt.boost_hog_prio, boost_hog_cpu, boost_upd_cpu,
		tstate.opt.boost_readers);
	boost_counters(f, false);
	fprintf(f, "\n");
	fprintf(f, "Boost Callbacks: queued=%lu invoked=%lu max_ms=%.1f bound_ms=%u syncs=%lu sync_max_ms=%.1f\n",
		torture_get(&b->cb_queued), torture_get(&b->cb_invoked),
		(double)torture_get(&b->cb_max_us) / 1e3,
		tstate.opt.boost_bound_ms, torture_get(&b->syncs),
		(double)torture_get(&b->sync_max_us) / 1e3);
	fprintf(f, "Boost Updaters: prio=%u synchronize=%lu expedited=%lu polled=%lu cond=%lu workers_checked=%lu\n",
		tstate.opt.boost_upd_prio, torture_get(&b->sync_modes[0]),
		torture_get(&b->sync_modes[1]), torture_get(&b->sync_modes[2]),
		torture_get(&b->sync_modes[3]), torture_get(&b->worker_checks));
	fprintf(f, "Boost Callback Latency (ms <10 <25 <50 <100 <250 <500 <1000 <2000 more):");
	for (int i = 0; i < TORTURE_BOOST_LAT_BUCKETS; i++)
		fprintf(f, " %lu", torture_get(&b->cb_lat[i]));
	fprintf(f, "\n");
	if (b->stats_err)
		return;
	rcb_boost_stats_format(&b->stats, text, sizeof(text), 0);
	fputs(text, f);
	fprintf(f, "Boost stats: enabled=%d too_early=%ld preempt_enqueued=%ld enqueue_reverted=%ld boost_failed=%ld boost_skipped_higher=%ld restore_kept_app=%ld passes=%ld max_task_cmpxchg_fail=%ld\n",
		b->stats.enabled, b->stats.too_early, b->stats.preempt_enqueued,
		b->stats.enqueue_reverted, b->stats.boost_failed,
		b->stats.boost_skipped_higher, b->stats.restore_kept_app,
		b->stats.passes, b->stats.max_task_cmpxchg_fail);
}

void torture_boost_report_json(FILE *f)
{
	struct torture_boost_state *b = &tstate.boost;
	char text[4096];
	size_t len;

	fprintf(f, "{\"hog_prio\": %u, \"booster_prio\": %d, \"boosted_prio\": %d, "
		"\"readers\": %u", tstate.opt.boost_hog_prio, b->booster_prio, b->boosted_prio,
		tstate.opt.boost_readers);
	boost_counters(f, true);
	fprintf(f,
		", \"cb_queued\": %lu, \"cb_invoked\": %lu, \"cb_max_ms\": %.1f, "
		"\"bound_ms\": %u, \"syncs\": %lu, \"sync_max_ms\": %.1f, \"cb_latency\": [",
		torture_get(&b->cb_queued), torture_get(&b->cb_invoked),
		(double)torture_get(&b->cb_max_us) / 1e3,
		tstate.opt.boost_bound_ms, torture_get(&b->syncs),
		(double)torture_get(&b->sync_max_us) / 1e3);
	for (int i = 0; i < TORTURE_BOOST_LAT_BUCKETS; i++)
		fprintf(f, "%s%lu", i ? ", " : "", torture_get(&b->cb_lat[i]));
	fprintf(f, "], \"updater_prio\": %u, \"sync_modes\": [%lu, %lu, %lu, %lu], "
		"\"workers_checked\": %lu",
		tstate.opt.boost_upd_prio, torture_get(&b->sync_modes[0]),
		torture_get(&b->sync_modes[1]), torture_get(&b->sync_modes[2]),
		torture_get(&b->sync_modes[3]), torture_get(&b->worker_checks));
	fprintf(f, ", \"stats\": ");
	if (b->stats_err) {
		fprintf(f, "null}");
		return;
	}
	rcb_boost_stats_format(&b->stats, text, sizeof(text), 1);
	len = strlen(text);
	while (len && text[len - 1] == '\n')
		text[--len] = '\0';
	fprintf(f, "%s}", text);
}
