/* SPDX-License-Identifier: MIT */
/*
 * rcuboost-torture: the final report, as text (a one-line parseable
 * summary, then rcutorture-style histograms and counters) and as JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "torture.h"

struct totals {
	unsigned long reads;
	unsigned long pipe[TORTURE_MAX_PIPE + 1];
	unsigned long batch[TORTURE_MAX_PIPE + 1];
	struct rcb_gp_stats st;
	struct rcb_backlog bl;
	double secs;
};

static void gather(struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned int i = 0; i < tstate.nrd; i++) {
		struct torture_reader *rd = &tstate.rd[i];

		t->reads += torture_get(&rd->reads);
		for (unsigned int j = 0; j <= tstate.opt.pipe_len; j++) {
			t->pipe[j] += torture_get(&rd->pipe[j]);
			t->batch[j] += torture_get(&rd->batch[j]);
		}
	}
	rcb_stats(&t->st);
	rcb_backlog(&t->bl);
	t->secs = (double)(tstate.end_ns - tstate.start_ns) / 1e9;
}

/* "off", or the boost state machine of the phase: "3" or "8". */
static const char *boost_name(void)
{
	if (!tstate.opt.boost)
		return "off";
	return tstate.boost.stats.machine == 8 ? "8" : "3";
}

static void print_hist(FILE *f, const char *label, const unsigned long *h,
		       bool mark_beyond_one)
{
	bool bad = false;

	fprintf(f, "%s", label);
	for (unsigned int i = 0; i <= tstate.opt.pipe_len; i++) {
		fprintf(f, " %lu", h[i]);
		if (i > 1 && h[i])
			bad = true;
	}
	fprintf(f, "%s\n", mark_beyond_one && bad ? " !!!" : "");
}

/* The update side's counters, listed once for the text and the JSON. */
#define UPDATE_COUNTERS(X)                                                \
	X(updates, updates)                                               \
	X(retired_sync, retired_sync) X(retired_call, retired_call)       \
		X(writer_syncs, writer_syncs) X(fake_syncs, fake_syncs)   \
			X(callback_syncs, cb_syncs) X(barriers, barriers) \
				X(calls_queued, calls_queued)             \
					X(calls_invoked, calls_invoked)

/* "Updates: name=N ..." or (@json) "  \"update\": {\"name\": N, ...},". */
static void update_counters(FILE *f, bool json)
{
	const char *sep = "";

	fprintf(f, json ? "  \"update\": {" : "Updates:");
#define X(name, field)                                               \
	fprintf(f, json ? "%s\"%s\": %lu" : "%s %s=%lu", sep, #name, \
		torture_get(&tstate.field));                         \
	sep = json ? ", " : "";
	UPDATE_COUNTERS(X)
#undef X
	fprintf(f, json ? "},\n" : "\n");
}

void torture_report(FILE *f, bool pass)
{
	struct totals t;
	unsigned long ages[TORTURE_MAX_PIPE + 1];

	gather(&t);
	fprintf(f,
		"rcuboost-torture: %s errors=%lu reads=%lu updates=%lu gps=%" PRIu64
		" duration=%.3fs flavor=%s readers=%u writers=%u fake_writers=%u pipe_len=%u seed=%" PRIu64
		" inject=%s boost=%s\n",
		pass ? "PASS" : "FAIL", torture_total_errors(), t.reads,
		torture_get(&tstate.updates), t.st.grace_periods, t.secs,
		rcb_flavor_name(rcb_flavor()), tstate.opt.readers,
		tstate.opt.writers, tstate.opt.fake_writers,
		tstate.opt.pipe_len, tstate.opt.seed, torture_inject_name(),
		boost_name());
	print_hist(f, "Reader Pipe: ", t.pipe, true);
	print_hist(f, "Reader Batch:", t.batch, true);
	for (unsigned int i = 0; i <= tstate.opt.pipe_len; i++)
		ages[i] = torture_get(&tstate.freed_at_age[i]);
	print_hist(f, "Free-Block Circulation:", ages, false);
	update_counters(f, false);
	fprintf(f, "Objects: allocated=%lu freed=%lu quarantine=%u\n",
		torture_get(&tstate.allocated), torture_get(&tstate.freed),
		tstate.opt.quarantine);
	fprintf(f, "Grace periods: grace_periods=%" PRIu64 " synchronize_calls=%" PRIu64
		" batched=%" PRIu64 " futex_waits=%" PRIu64 " misuse=%" PRIu64
		" registered_threads=%" PRIu64 "\n",
		t.st.grace_periods, t.st.synchronize_calls, t.st.batched,
		t.st.futex_waits, t.st.misuse, t.st.registered_threads);
	fprintf(f,
		"Backlog: callbacks=%" PRIu64 " bytes=%" PRIu64
		" peak_callbacks=%" PRIu64 " peak_bytes=%" PRIu64
		" invoked=%" PRIu64 "\n",
		t.bl.callbacks, t.bl.bytes, t.bl.peak_callbacks,
		t.bl.peak_bytes, t.bl.invoked);
	for (unsigned int i = 0; i < tstate.nrd; i++) {
		unsigned long n = torture_get(&tstate.rd[i].reads);
		const char *kind = torture_reader_kind(i);

		if (!strcmp(kind, "reader"))
			fprintf(f, "Reader %u:", i);
		else if (!strcmp(kind, "churn"))
			fprintf(f, "Churn readers: threads=%lu",
				torture_get(&tstate.churn_threads));
		else if (!strcmp(kind, "boost"))
			fprintf(f, "Boost reader %u:", i - tstate.boost_rd0);
		else
			fprintf(f, "Boost exiters: threads=%lu",
				torture_get(&tstate.boost.exiters));
		fprintf(f, " reads=%lu (%.0f/s) blocked_in_section=%lu\n",
			n, t.secs > 0 ? (double)n / t.secs : 0.0,
			torture_get(&tstate.rd[i].blocked));
	}
	if (tstate.opt.boost)
		torture_boost_report(f);
	fprintf(f, "Errors:");
	for (int e = 0; e < TORTURE_NERR; e++)
		fprintf(f, " %s=%lu", torture_error_name(e),
			torture_get(&tstate.errors[e]));
	fprintf(f, "\n");
	for (int e = 0; e < TORTURE_NERR; e++)
		if (torture_get(&tstate.errors[e]))
			fprintf(f, "  %s: %s\n", torture_error_name(e),
				torture_error_desc(e));
}

static void json_array(FILE *f, const char *name, const unsigned long *v,
		       unsigned int n, bool last)
{
	fprintf(f, "  \"%s\": [", name);
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%s%lu", i ? ", " : "", v[i]);
	fprintf(f, "]%s\n", last ? "" : ",");
}

int torture_report_json(const char *path, bool pass)
{
	unsigned long ages[TORTURE_MAX_PIPE + 1];
	struct totals t;
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f) {
		err = errno;
		fprintf(stderr, "rcuboost-torture: cannot write %s: %s\n", path,
			strerror(err));
		return -err;
	}
	gather(&t);
	for (unsigned int i = 0; i <= tstate.opt.pipe_len; i++)
		ages[i] = torture_get(&tstate.freed_at_age[i]);
	fprintf(f, "{\n  \"tool\": \"rcuboost-torture\",\n");
	fprintf(f, "  \"result\": \"%s\",\n", pass ? "PASS" : "FAIL");
	fprintf(f, "  \"errors\": %lu,\n", torture_total_errors());
	fprintf(f, "  \"error_kinds\": {");
	for (int e = 0; e < TORTURE_NERR; e++)
		fprintf(f, "%s\"%s\": %lu", e ? ", " : "", torture_error_name(e),
			torture_get(&tstate.errors[e]));
	fprintf(f, "},\n");
	fprintf(f, "  \"reads\": %lu,\n  \"updates\": %lu,\n  \"gps\": %" PRIu64 ",\n",
		t.reads, torture_get(&tstate.updates), t.st.grace_periods);
	fprintf(f, "  \"duration_s\": %.3f,\n  \"flavor\": \"%s\",\n", t.secs,
		rcb_flavor_name(rcb_flavor()));
	fprintf(f,
		"  \"readers\": %u,\n  \"writers\": %u,\n  \"fake_writers\": %u,\n",
		tstate.opt.readers, tstate.opt.writers,
		tstate.opt.fake_writers);
	fprintf(f, "  \"pipe_len\": %u,\n  \"seed\": %" PRIu64 ",\n  \"inject\": \"%s\",\n",
		tstate.opt.pipe_len, tstate.opt.seed,
		torture_inject_name());
	fprintf(f, "  \"boost_machine\": \"%s\",\n", boost_name());
	json_array(f, "reader_pipe", t.pipe, tstate.opt.pipe_len + 1, false);
	json_array(f, "reader_batch", t.batch, tstate.opt.pipe_len + 1, false);
	json_array(f, "free_age", ages, tstate.opt.pipe_len + 1, false);
	update_counters(f, true);
	fprintf(f, "  \"objects\": {\"allocated\": %lu, \"freed\": %lu},\n",
		torture_get(&tstate.allocated), torture_get(&tstate.freed));
	fprintf(f, "  \"gp_stats\": {\"grace_periods\": %" PRIu64 ", \"synchronize_calls\": %" PRIu64
		", \"batched\": %" PRIu64 ", \"futex_waits\": %" PRIu64 ", \"misuse\": %" PRIu64
		", \"registered_threads\": %" PRIu64 "},\n",
		t.st.grace_periods, t.st.synchronize_calls, t.st.batched,
		t.st.futex_waits, t.st.misuse, t.st.registered_threads);
	fprintf(f,
		"  \"backlog\": {\"callbacks\": %" PRIu64
		", \"bytes\": %" PRIu64 ", \"peak_callbacks\": %" PRIu64
		", \"peak_bytes\": %" PRIu64 ", \"invoked\": %" PRIu64 "},\n",
		t.bl.callbacks, t.bl.bytes, t.bl.peak_callbacks,
		t.bl.peak_bytes, t.bl.invoked);
	fprintf(f, "  \"per_reader\": [");
	for (unsigned int i = 0; i < tstate.opt.readers; i++)
		fprintf(f, "%s{\"reads\": %lu, \"blocked\": %lu}", i ? ", " : "",
			torture_get(&tstate.rd[i].reads),
			torture_get(&tstate.rd[i].blocked));
	fprintf(f, "],\n  \"churn\": ");
	if (tstate.opt.churn)
		fprintf(f, "{\"threads\": %lu, \"reads\": %lu, \"blocked\": %lu},\n",
			torture_get(&tstate.churn_threads),
			torture_get(&tstate.rd[tstate.opt.readers].reads),
			torture_get(&tstate.rd[tstate.opt.readers].blocked));
	else
		fprintf(f, "null,\n");
	fprintf(f, "  \"boost\": ");
	if (tstate.opt.boost)
		torture_boost_report_json(f);
	else
		fprintf(f, "null");
	fprintf(f, "\n}\n");
	if (fclose(f) != 0) {
		err = errno;
		fprintf(stderr, "rcuboost-torture: cannot write %s: %s\n", path,
			strerror(err));
	}
	return -err;
}
