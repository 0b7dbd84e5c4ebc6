/* SPDX-License-Identifier: MIT */
/* rcuboost-bench: the one reporter: summary line, tables and JSON. */
#define _GNU_SOURCE
#include <stdarg.h>

#include "bench.h"

struct bench_fig *bench_fig(struct bench_res *x, const char *unit, double v,
			    const char *fmt, ...)
{
	struct bench_fig *g = &x->fig[x->nfigs++];
	va_list ap;

	if (x->nfigs > BENCH_MAX_FIGS)
		abort();
	memset(g, 0, sizeof(*g));
	va_start(ap, fmt);
	vsnprintf(g->name, sizeof(g->name), fmt, ap);
	va_end(ap);
	g->unit = unit;
	bench_peer(g, x->vname ? x->vname : "rcuboost", v);
	return g;
}

void bench_peer(struct bench_fig *g, const char *name, double v)
{
	struct bench_val *b = &g->val[g->nval++];

	if (g->nval > BENCH_MAX_VALS)
		abort();
	b->name = name;
	b->med = b->r[0] = v;
	b->spread = NAN;
	b->n = !isnan(v);
}

void bench_bound(struct bench_fig *g, double bound)
{
	bench_peer(g, BENCH_GOAL, bound);
	g->goal = 1.0;
	g->goal_peer = BENCH_GOAL;
}

double bench_ratio(double a, double b)
{
	return isnan(a) || isnan(b) || b == 0 ? NAN : a / b;
}

/* The value @g's goal is against; 0 if none. */
static unsigned int goal_val(const struct bench_fig *g)
{
	const char *peer = g->goal_peer ? g->goal_peer : BENCH_MAIN_PEER;

	for (unsigned int k = 1; g->goal && k < g->nval; k++)
		if (!strcmp(g->val[k].name, peer))
			return k;
	return 0;
}

static double ratio(const struct bench_fig *g, unsigned int k)
{
	return k ? bench_ratio(g->val[0].med, g->val[k].med) : NAN;
}

/* 1 met, 0 missed, -1 no goal or no ratio. */
static int goal_met(const struct bench_fig *g)
{
	double r = ratio(g, goal_val(g));

	return isnan(r) ? -1 : g->higher ? r >= g->goal : r <= g->goal;
}

#define GOAL_STR(g, buf) \
	(sprintf(buf, "%s%.2f", (g)->higher ? ">=" : "<=", (g)->goal), buf)

/* Four significant figures at most, k/M/G for large values. */
static const char *num(double v, char *buf)
{
	int i = 0;

	if (isnan(v))
		return strcpy(buf, "n/a");
	if (v > 0 && v < 1)
		return sprintf(buf, "%.3g", v), buf;
	for (; fabs(v) >= 10000 && i < 3; i++)
		v /= 1000;
	sprintf(buf, fabs(v) >= 100 || v == 0 ? "%.0f%s" :
		     fabs(v) >= 10 ? "%.1f%s" : "%.2f%s", v,
		(const char *[]){ "", "k", "M", "G" }[i]);
	return buf;
}

#define RATIO_STR(r, buf) \
	(isnan(r) ? strcpy(buf, "n/a") : (sprintf(buf, "%.2fx", r), buf))

/* The value named @name among @g's, or NULL. */
static const struct bench_val *val_of(const struct bench_fig *g,
				      const char *name)
{
	for (unsigned int k = 0; k < g->nval; k++)
		if (!strcmp(g->val[k].name, name))
			return &g->val[k];
	return NULL;
}

/* Side @mine against side @peer, measured in the same rounds: one ratio
 * per figure that has both, on a line headed "MINE/PEER:". */
static void print_pair(FILE *out, struct bench_res *const *x, unsigned int n,
		       const char *mine, const char *peer)
{
	char sep_buf[80], a[32];
	const char *sep = sep_buf;

	snprintf(sep_buf, sizeof(sep_buf), "\n%s/%s:", mine, peer);

	for (unsigned int s = 0; s < n; s++) {
		for (unsigned int i = 0; !x[s]->status && i < x[s]->nfigs;
		     i++) {
			const struct bench_fig *g = &x[s]->fig[i];
			const struct bench_val *q = val_of(g, mine);
			const struct bench_val *u = val_of(g, peer);

			if (!q || !u)
				continue;
			fprintf(out, "%s %s=%s", sep, g->name,
				RATIO_STR(bench_ratio(q->med, u->med), a));
			sep = "";
		}
	}
	if (!*sep)
		fprintf(out, " (%s)\n", "lower is better for ns, us; "
					"higher for calls/s, ops/s");
}

/* A row per figure: value, spread, each peer's value and ratio (a peer
 * named otherwise than in the first row: NAME=VALUE), goal, met. */
static void print_table(FILE *out, const struct bench_res *x)
{
	const struct bench_fig *h = &x->fig[0];
	char a[32], b[96], c[32];

	fprintf(out, "\n%-30s %-9s %9s %4s", x->sc->name, "unit",
		h->val[0].name, "+-");
	for (unsigned int k = 1; k < h->nval; k++)
		fprintf(out, " | %10s %7s", h->val[k].name, "ratio");
	fprintf(out, " %-15s %s\n", " goal", "met");
	for (unsigned int i = 0; i < x->nfigs; i++) {
		const struct bench_fig *g = &x->fig[i];
		int m = goal_met(g);

		sprintf(c, "%.0f%%", g->val[0].spread * 100);
		fprintf(out, "%-30s %-9s %9s %4s", g->name, g->unit,
			num(g->val[0].med, a),
			isnan(g->val[0].spread) ? "-" : c);
		for (unsigned int k = 1; k < g->nval; k++) {
			int same = k < h->nval &&
				   !strcmp(h->val[k].name, g->val[k].name);

			snprintf(b, sizeof(b), "%s%s%s",
				 same ? "" : g->val[k].name, same ? "" : "=",
				 num(g->val[k].med, c));
			fprintf(out, " | %10s %7s", b,
				RATIO_STR(ratio(g, k), a));
		}
		for (unsigned int k = g->nval; k < h->nval; k++)
			fprintf(out, " | %10s %7s", "-", "-");
		snprintf(b, sizeof(b), "%s %s", g->goal ? GOAL_STR(g, a) : "-",
			 g->goal ? g->val[goal_val(g)].name : "");
		fprintf(out, " %-15s %s\n", b, m < 0 ? "-" : m ? "yes" : "no");
	}
	fprintf(out, "%.1f s\n", x->elapsed_s);
}

void bench_report(FILE *out, struct bench_res *const *x, unsigned int n,
		  const struct bench_params *p, double elapsed_s)
{
	unsigned int met = 0, goals = 0, bounds = 0, sides = 0;
	char buf[32];

	fprintf(out, "rcuboost-bench:");
	for (unsigned int s = 0; s < n; s++) {
		sides |= x[s]->sc->run == bench_sides;
		for (unsigned int i = 0; i < x[s]->nfigs; i++) {
			const struct bench_fig *g = &x[s]->fig[i];
			int bound = g->goal_peer && !strcmp(g->goal_peer,
							     BENCH_GOAL);

			if (!g->goal)
				continue;
			goals++;
			met += goal_met(g) == 1;
			bounds |= bound;
			/* A bound's value, else a ratio and its peer. */
			fprintf(out, " %s=%s%s%s", g->name,
				bound ? num(g->val[0].med, buf) :
					RATIO_STR(ratio(g, goal_val(g)), buf),
				bound ? (isnan(g->val[0].med) ? "" : g->unit) :
				g->goal_peer ? "@" : "",
				!bound && g->goal_peer ? g->goal_peer : "");
		}
	}
	fprintf(out, " goals=%u/%u (ratios rcuboost/%s%s)\n", met, goals,
		BENCH_MAIN_PEER, bounds ? "; NAME=VALUE: against a bound" : "");
	for (unsigned int s = 0; s < n; s++) {
		if (x[s]->status)
			fprintf(out, "\n%s: n/a: %s\n", x[s]->sc->name,
				x[s]->why);
		else if (x[s]->nfigs)
			print_table(out, x[s]);
		if (!x[s]->status && x[s]->why[0])
			fprintf(out, "%s: %s\n", x[s]->sc->name, x[s]->why);
	}
	/* rcuboost's qsbr domain against liburcu's qsbr flavor; a domain
	 * with owner-run callbacks against ck_epoch, whose model it is. */
	print_pair(out, x, n, "rcuboost-qsbr", "urcu-qsbr");
	print_pair(out, x, n, "rcuboost-owner", "ck-epoch");
	fprintf(out, "\nratio = value / peer; goals against %s unless they "
		"name a peer (\"goal\": a bound).\n%u rounds of %u ms, %lu "
		"calls; +- = (max - min) / median; CPUs %d, %d; %.1f s.\n",
		BENCH_MAIN_PEER, p->rounds, p->duration_ms, p->calls, p->cpu_a,
		p->cpu_b, elapsed_s);
	for (unsigned int s = 0; sides && s < bench_nsides; s++)
		if (bench_sides_table[s]->describe())
			fprintf(out, "%s: %s\n", bench_sides_table[s]->name,
				bench_sides_table[s]->describe());
}

/* "KEY": median, "PREFIX_spread": spread, "PREFIX_rounds": [rounds] */
static void json_val(FILE *f, const char *key, const char *prefix,
		     const struct bench_val *v)
{
	fprintf(f, "\"%s\": ", key);
	tool_json_num(f, v->med);
	fprintf(f, ", \"%s_spread\": ", prefix);
	tool_json_num(f, v->spread);
	fprintf(f, ", \"%s_rounds\": [", prefix);
	for (unsigned int i = 0; i < v->n; i++) {
		fprintf(f, "%s", i ? ", " : "");
		tool_json_num(f, v->r[i]);
	}
	fprintf(f, "]");
}

int bench_write_json(const char *path, struct bench_res *const *x,
		     unsigned int n, const struct bench_params *p,
		     double elapsed_s)
{
	FILE *f = tool_json_open(path);
	const char *sep = "";
	char buf[32];

	if (!f)
		return -1;
	fprintf(f, "{\n  \"tool\": \"rcuboost-bench\", \"version\": "
		   "\"%d.%d.%d\", \"main_peer\": \"%s\",\n  \"params\": "
		   "{\"rounds\": %u, \"duration_ms\": %u, \"calls\": %lu, "
		   "\"quick\": %s, \"cpus\": [%d, %d]},\n  \"elapsed_s\": ",
		RCB_VERSION_MAJOR, RCB_VERSION_MINOR, RCB_VERSION_PATCH,
		BENCH_MAIN_PEER, p->rounds, p->duration_ms, p->calls,
		p->quick ? "true" : "false", p->cpu_a, p->cpu_b);
	tool_json_num(f, elapsed_s);
	fprintf(f, ",\n  \"sides\": [");
	for (unsigned int s = 0; s < bench_nsides; s++)
		fprintf(f, "%s{\"name\": \"%s\"}", s ? ", " : "",
			bench_sides_table[s]->name);
	/* An entry per figure and peer; the goal on the goal's peer. */
	fprintf(f, "],\n  \"entries\": [");
	for (unsigned int s = 0; s < n; s++) {
		for (unsigned int i = 0; i < x[s]->nfigs; i++) {
			const struct bench_fig *g = &x[s]->fig[i];

			for (unsigned int k = 1; k < g->nval; k++) {
				int m = k == goal_val(g) ? goal_met(g) : -1;

				fprintf(f, "%s\n    {\"name\": \"%s\", "
					   "\"scenario\": \"%s\", \"unit\": "
					   "\"%s\", \"better\": \"%s\",\n     ",
					sep, g->name, x[s]->sc->name, g->unit,
					g->higher ? "higher" : "lower");
				json_val(f, "rcuboost", "rcuboost", &g->val[0]);
				fprintf(f, ",\n     \"peer\": \"%s\", ",
					g->val[k].name);
				json_val(f, "peer_value", "peer", &g->val[k]);
				fprintf(f, ",\n     \"ratio\": ");
				tool_json_num(f, ratio(g, k));
				fprintf(f, ", \"goal\": ");
				tool_json_str(f, k == goal_val(g) ?
						 GOAL_STR(g, buf) : NULL);
				fprintf(f, ", \"goal_met\": %s}",
					m < 0 ? "null" : m ? "true" : "false");
				sep = ",";
			}
		}
	}
	fprintf(f, "\n  ]");
	for (unsigned int s = 0; s < n; s++) {
		const struct bench_res *r = x[s];

		fprintf(f, ",\n  \"%s\": {\"status\": \"%s\", \"detail\": ",
			r->sc->name,
			!r->status ? (r->failed ? "failed" : "ran") :
			r->status == -EPERM || r->status == -ENODEV ? "n/a" :
								      "error");
		tool_json_str(f, r->why);
		fprintf(f, ", \"elapsed_s\": ");
		tool_json_num(f, r->elapsed_s);
		fprintf(f, "}");
	}
	fprintf(f, "\n}\n");
	return tool_json_close(f, path);
}
