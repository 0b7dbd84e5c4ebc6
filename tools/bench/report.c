/* SPDX-License-Identifier: MIT */
/* rcuboost-bench: summary line, table and JSON. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "rcuboost.h"

#define MAIN_PEER 1

double bench_ratio(const struct bench_result *r, unsigned int side)
{
	if (!r->have[0] || !r->have[side] || r->median[side] == 0)
		return NAN;
	return r->median[0] / r->median[side];
}

unsigned int bench_goal_side(const struct bench_report *rep, const struct bench_result *r)
{
	for (unsigned int s = 1; r->fig->goal_peer && s < rep->nsides; s++)
		if (!strcmp(rep->sides[s]->name, r->fig->goal_peer))
			return s;
	return MAIN_PEER;
}

unsigned int bench_best_side(const struct bench_report *rep, const struct bench_result *r)
{
	unsigned int best = 0;

	for (unsigned int s = 1; s < rep->nsides; s++) {
		if (!r->have[s])
			continue;
		if (!best || (r->fig->better == BENCH_LOWER ? r->median[s] < r->median[best] :
							      r->median[s] > r->median[best]))
			best = s;
	}
	return best;
}

int bench_goal_met(const struct bench_report *rep, const struct bench_result *r,
		   unsigned int side)
{
	double ratio = bench_ratio(r, side);

	if (side != bench_goal_side(rep, r) || r->fig->goal == 0 || isnan(ratio))
		return -1;
	if (r->fig->better == BENCH_LOWER)
		return ratio <= r->fig->goal;
	return ratio >= r->fig->goal;
}

/* "<=1.20", and with @peer the goal's peer if not the main one. */
static const char *goal_str(const struct bench_figure *f, int peer, char *buf, size_t len)
{
	snprintf(buf, len, "%s%.2f%s%s", f->better == BENCH_LOWER ? "<=" : ">=", f->goal,
		 peer && f->goal_peer ? " " : "", peer && f->goal_peer ? f->goal_peer : "");
	return buf;
}

const char *bench_ratio_str(double ratio, char *buf, size_t len)
{
	if (isnan(ratio))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.2fx", ratio);
	return buf;
}

void bench_print_summary(FILE *out, const struct bench_report *rep)
{
	unsigned int met = 0, goals = 0;
	char buf[32];
	int inv = 0;

	fprintf(out, "rcuboost-bench:");
	for (unsigned int i = 0; i < rep->nresults; i++) {
		const struct bench_result *r = &rep->results[i];
		int m;

		if (r->fig->goal == 0)
			continue;
		fprintf(out, " %s=%s%s%s", r->fig->name,
			bench_ratio_str(bench_ratio(r, bench_goal_side(rep, r)), buf,
					sizeof(buf)),
			r->fig->goal_peer ? "@" : "", r->fig->goal_peer ? r->fig->goal_peer : "");
		m = bench_goal_met(rep, r, bench_goal_side(rep, r));
		goals++;
		met += m == 1;
	}
	for (unsigned int k = 0; k < rep->nx; k++)
		bench_x_print_summary(out, rep->x[k], &met, &goals);
	for (unsigned int k = 0; k < rep->nx; k++)
		inv |= !strcmp(rep->x[k]->scenario, "inversion");
	fprintf(out, " goals=%u/%u (ratios rcuboost/%s%s%s)\n",
		met, goals, rep->sides[MAIN_PEER]->name, inv ? "; inversion.*: values with boosting on" : "",
		rep->nx > (unsigned int)inv ?
			"; enhancement scenarios: values of the enhancement's run" : "");
}

const char *bench_num_str(double v, char *buf, size_t len)
{
	static const char sfx[] = { 0, 'k', 'M', 'G' };
	int i = 0;

	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	while (fabs(v) >= 10000 && i < 3) {
		v /= 1000;
		i++;
	}
	if (fabs(v) >= 100 || v == 0)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
	if (sfx[i]) {
		size_t l = strlen(buf);

		if (l + 1 < len) {
			buf[l] = sfx[i];
			buf[l + 1] = 0;
		}
	}
	return buf;
}

static const char *spread_str(const struct bench_result *r, unsigned int s,
			      char *buf, size_t len)
{
	if (!r->have[s])
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%%", r->spread[s] * 100);
	return buf;
}

void bench_print_table(FILE *out, const struct bench_report *rep)
{
	const struct bench_params *p = rep->params;
	char a[32], b[32], c[32], d[32], e[32], g[32], h[64];

	if (!rep->nresults) {
		for (unsigned int k = 0; k < rep->nx; k++)
			bench_x_print_table(out, rep->x[k]);
		return;
	}
	fprintf(out, "\n%-16s %-9s %9s %5s %9s %5s %7s %-14s %4s %-20s",
		"figure", "unit", rep->sides[0]->name, "+-",
		rep->sides[MAIN_PEER]->name, "+-", "ratio", "goal", "met", "best peer, ratio");
	for (unsigned int s = MAIN_PEER + 1; s < rep->nsides; s++)
		fprintf(out, " | %9s %7s", rep->sides[s]->name, "ratio");
	fprintf(out, "\n");
	for (unsigned int i = 0; i < rep->nresults; i++) {
		const struct bench_result *r = &rep->results[i];
		unsigned int gs = bench_goal_side(rep, r), best = bench_best_side(rep, r);
		int m = bench_goal_met(rep, r, gs);

		snprintf(h, sizeof(h), "%s %s", best ? rep->sides[best]->name : "-",
			 bench_ratio_str(best ? bench_ratio(r, best) : NAN, a, sizeof(a)));
		fprintf(out, "%-16s %-9s %9s %5s %9s %5s %7s %-14s %4s %-20s", r->fig->name,
			r->fig->unit,
			bench_num_str(r->have[0] ? r->median[0] : NAN, a, sizeof(a)),
			spread_str(r, 0, b, sizeof(b)),
			bench_num_str(r->have[MAIN_PEER] ? r->median[MAIN_PEER] : NAN, c, sizeof(c)),
			spread_str(r, MAIN_PEER, d, sizeof(d)),
			bench_ratio_str(bench_ratio(r, MAIN_PEER), e, sizeof(e)),
			r->fig->goal ? goal_str(r->fig, 1, g, sizeof(g)) : "-",
			m < 0 ? "-" : m ? "yes" : "no", h);
		for (unsigned int s = MAIN_PEER + 1; s < rep->nsides; s++)
			fprintf(out, " | %9s %7s",
				bench_num_str(r->have[s] ? r->median[s] : NAN, b, sizeof(b)),
				bench_ratio_str(bench_ratio(r, s), c, sizeof(c)));
		fprintf(out, "\n");
	}
	fprintf(out,
		"\nratio = rcuboost / peer; goals apply to %s unless they name a peer\n"
		"(ratio of the medians); best peer: the best median of the other libraries.\n"
		"%u rounds of %u ms (call: %lu callbacks per thread), sides alternated;\n"
		"+- = (max - min) / median over the rounds.  CPUs %d and %d; %.1f s in all.\n",
		rep->sides[MAIN_PEER]->name, p->rounds, p->duration_ms, p->calls,
		p->cpu_a, p->cpu_b, rep->elapsed_s);
	for (unsigned int s = 0; s < rep->nsides; s++) {
		const char *desc = rep->sides[s]->describe();

		if (desc)
			fprintf(out, "%s: %s\n", rep->sides[s]->name, desc);
	}
	for (unsigned int k = 0; k < rep->nx; k++)
		bench_x_print_table(out, rep->x[k]);
}

static void json_rounds(FILE *f, const struct bench_result *r, unsigned int s)
{
	fprintf(f, "[");
	for (unsigned int i = 0; r->have[s] && i < r->nrounds; i++) {
		fprintf(f, "%s", i ? ", " : "");
		tool_json_num(f, r->round[s][i]);
	}
	fprintf(f, "]");
}

static void json_entry(FILE *f, const struct bench_report *rep,
		       const struct bench_result *r, unsigned int s, int last)
{
	char buf[32];
	int m = bench_goal_met(rep, r, s);

	fprintf(f, "    {\"name\": ");
	tool_json_str(f, r->fig->name);
	fprintf(f, ", \"scenario\": ");
	tool_json_str(f, r->scenario);
	fprintf(f, ", \"unit\": ");
	tool_json_str(f, r->fig->unit);
	fprintf(f, ", \"better\": \"%s\",\n     \"rcuboost\": ",
		r->fig->better == BENCH_LOWER ? "lower" : "higher");
	tool_json_num(f, r->have[0] ? r->median[0] : NAN);
	fprintf(f, ", \"rcuboost_spread\": ");
	tool_json_num(f, r->have[0] ? r->spread[0] : NAN);
	fprintf(f, ", \"rcuboost_rounds\": ");
	json_rounds(f, r, 0);
	fprintf(f, ",\n     \"peer\": ");
	tool_json_str(f, rep->sides[s]->name);
	fprintf(f, ", \"peer_value\": ");
	tool_json_num(f, r->have[s] ? r->median[s] : NAN);
	fprintf(f, ", \"peer_spread\": ");
	tool_json_num(f, r->have[s] ? r->spread[s] : NAN);
	fprintf(f, ", \"peer_rounds\": ");
	json_rounds(f, r, s);
	fprintf(f, ",\n     \"ratio\": ");
	tool_json_num(f, bench_ratio(r, s));
	fprintf(f, ", \"goal\": ");
	if (s == bench_goal_side(rep, r) && r->fig->goal)
		tool_json_str(f, goal_str(r->fig, 0, buf, sizeof(buf)));
	else
		fprintf(f, "null");
	fprintf(f, ", \"goal_met\": %s}%s\n",
		m < 0 ? "null" : m ? "true" : "false", last ? "" : ",");
}

int bench_write_json(const char *path, const struct bench_report *rep)
{
	const struct bench_params *p = rep->params;
	FILE *f = fopen(path, "w");
	unsigned int n = 0, total;

	if (!f) {
		fprintf(stderr, "rcuboost-bench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "{\n  \"tool\": \"rcuboost-bench\",\n");
	fprintf(f, "  \"version\": \"%d.%d.%d\",\n", RCB_VERSION_MAJOR,
		RCB_VERSION_MINOR, RCB_VERSION_PATCH);
	fprintf(f, "  \"main_peer\": ");
	tool_json_str(f, rep->sides[MAIN_PEER]->name);
	fprintf(f, ",\n  \"params\": {\"rounds\": %u, \"duration_ms\": %u, \"calls\": %lu, "
		"\"quick\": %s, \"cpus\": [%d, %d]},\n",
		p->rounds, p->duration_ms, p->calls, p->quick ? "true" : "false",
		p->cpu_a, p->cpu_b);
	fprintf(f, "  \"elapsed_s\": ");
	tool_json_num(f, rep->elapsed_s);
	fprintf(f, ",\n  \"sides\": [");
	for (unsigned int s = 0; s < rep->nsides; s++) {
		fprintf(f, "%s{\"name\": ", s ? ", " : "");
		tool_json_str(f, rep->sides[s]->name);
		fprintf(f, ", \"description\": ");
		tool_json_str(f, rep->sides_set_up ? rep->sides[s]->describe() : NULL);
		fprintf(f, "}");
	}
	fprintf(f, "],\n  \"entries\": [\n");
	total = rep->nresults * (rep->nsides - 1);
	for (unsigned int k = 0; k < rep->nx; k++)
		total += bench_x_json_count(rep->x[k]);
	for (unsigned int k = 0; k < rep->nx; k++)
		bench_x_write_entries(f, rep->x[k], &n, total);
	for (unsigned int i = 0; i < rep->nresults; i++)
		for (unsigned int s = 1; s < rep->nsides; s++)
			json_entry(f, rep, &rep->results[i], s, ++n == total);
	fprintf(f, "  ]");
	for (unsigned int k = 0; k < rep->nx; k++) {
		fprintf(f, ",\n  ");
		tool_json_str(f, rep->x[k]->scenario);
		fprintf(f, ": ");
		bench_x_write_detail(f, rep->x[k]);
	}
	fprintf(f, "\n}\n");
	if (fclose(f) != 0) {
		fprintf(stderr, "rcuboost-bench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}
