/* SPDX-License-Identifier: MIT */
/* Scenario "pi": its tables, JSON detail and plot (see sc_pi.c). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sc_pi.h"

const char *const pi_conf_name[NCONF] = { "pi", "sched", "urcu-memb" };

double pi_v_of(const struct pi_res *r, double v)
{
	return r->ran && r->ok ? v : NAN;
}

double pi_inv_v(const struct pi_res *r, int which)
{
	if (!r->ran || !r->ok || !r->inv_ran)
		return NAN;
	switch (which) {
	case 0: return r->inv.gp_count ? r->inv.gp_max_ms : NAN;
	case 1: return r->inv.reader_held_ms;
	default: return (double)r->inv.peak_backlog;
	}
}

static void cell(FILE *out, int w, unsigned int i, unsigned int c, const void *arg)
{
	const struct pi_res *r = (const struct pi_res *)arg + c;
	const struct inv_result *v = &r->inv;
	int boost = c != C_MEMB;

	if (i <= 4 && !r->inv_ran) {
		fprintf(out, " %*s", w, "-");
		return;
	}
	if (!boost && ((i >= 5 && i <= 10) || i == 15)) {
		fprintf(out, " %*s", w, "n/a");
		return;
	}
	switch (i) {
	case 0: fprintf(out, " %*.1f", w, v->hog_ms); break;
	case 1: fprintf(out, " %*.1f", w, v->gp_max_ms); break;
	case 2: fprintf(out, " %*.1f", w, v->gp_p99_ms); break;
	case 3: fprintf(out, " %*.1f", w, v->reader_held_ms); break;
	case 4: fprintf(out, " %*ld", w, v->peak_backlog); break;
	case 5: fprintf(out, " %*ld", w, c == C_PI ? v->bs.pi_boosts : v->bs.boost); break;
	case 6: fprintf(out, " %*ld", w, c == C_PI ? v->bs.pi_syscalls : v->bs.sched_syscalls);
		break;
	case 7: fprintf(out, " %*.1f", w, r->per_boost); break;
	case 8: bench_x_cell_long(out, w, c == C_PI, v->bs.pi_handoffs); break;
	case 9: fprintf(out, " %*.0f", w, r->unlock_boosted_ns); break;
	case 10: fprintf(out, " %8d/%-2d", r->unlocks_boosted, r->unlocks); break;
	case 11: fprintf(out, " %*.2f", w, r->pair_ns); break;
	case 12: fprintf(out, " %*.1f", w, r->chain_gp_median_ms); break;
	case 13: fprintf(out, " %*.1f", w, r->chain_gp_max_ms); break;
	case 14: fprintf(out, " %*d", w, r->holder_rtprio_min); break;
	case 15: fprintf(out, " %*ld", w, r->chain_boosts); break;
	default: fprintf(out, " %*s", w, r->ok ? "OK" : "FAIL"); break;
	}
}

void pi_print_detail(FILE *out, const struct bench_xres *x)
{
	const struct pi_priv *pv = x->priv;
	const struct pi_res *rs = pv->sh ? pv->sh->res : NULL;
	static const char *const rows[] = {
		"inversion: hog ran (ms)", "inversion: grace period max (ms)",
		"inversion: grace period p99 (ms)", "inversion: reader held (ms)",
		"inversion: peak backlog", "inversion: boosts", "inversion: system calls",
		"inversion: calls per boost", "inversion: pi handoffs",
		"boosted unlock median (ns)", "sections boosted", "lock+unlock pair (ns)",
		"chain: grace period median (ms)", "chain: grace period max (ms)",
		"chain: holder's RT prio (min)", "chain: boosts", "result",
	};
	int ran[NCONF];
	struct bench_xtable t = { "", pi_conf_name, ran, NCONF, 11,
				  rows, sizeof(rows) / sizeof(rows[0]), 34, cell, rs, { NULL } };

	fprintf(out, "\npi: each configuration in its own child process, pinned to CPU %d.\n"
		     "Inversion: SCHED_FIFO %d reader preempted by a SCHED_FIFO %d hog on CPU %d for\n"
		     "%d ms.  Unlock: %d sections blocked %d ms after rcb_note_block() while a grace\n"
		     "period waits; median over those boosted.  Pair: %d batches of %lu pairs.\n"
		     "Chain (%d reps): a SCHED_OTHER holder on CPU %d keeps a PTHREAD_PRIO_INHERIT\n"
		     "mutex that a SCHED_OTHER reader on CPU %d waits for in its section\n"
		     "(rcb_mutex_lock) while a SCHED_FIFO %d hog keeps the holder off its CPU for\n"
		     "up to %d ms; the grace period starts as the reader enters its section.\n"
		     "Reps %d ms apart: the kernel's fair server runs a starved SCHED_OTHER\n"
		     "thread after ~950 ms, and at once for a while after it did.\n"
		     "Booster period %u ms, %u elements.\n",
		INV_OTHER_CPU, pv->prm.reader_prio, pv->prm.hog_prio, INV_RT_CPU, pv->hog_ms,
		pv->unlocks, BLOCK_MS, PAIR_BATCHES, pv->pairs, pv->chain_reps, INV_RT_CPU,
		INV_OTHER_CPU, HOG_PRIO, pv->hog_ms, CHAIN_GAP_MS, pv->period_ms, pv->elements);
	if (x->status || !rs) {
		fprintf(out, "pi: n/a: %s\n", x->why);
		return;
	}
	for (int c = 0; c < NCONF; c++) {
		ran[c] = rs[c].ran;
		t.errors[c] = rs[c].error;
	}
	bench_x_print_runs(out, &t);
	fprintf(out, "\nThe holder's RT prio: the real-time priority the chain's SCHED_OTHER\n"
		     "holder ran at as it released the mutex (its own /proc view, inherited\n"
		     "priority included; 0: not real-time), lowest over the reps; above %d,\n"
		     "a boost of the reader reached it through the PI chain.\n%s\n", HOG_PRIO,
		x->why);
}

void pi_json_detail(FILE *f, const struct bench_xres *x)
{
	const struct pi_priv *pv = x->priv;

	fprintf(f, "    \"params\": {\"hog_ms\": %d, \"reader_prio\": %d, \"hog_prio\": %d, "
		   "\"unlock_sections\": %d, \"block_ms\": %d,\n      \"pair_batches\": %d, "
		   "\"pairs_per_batch\": %lu, \"chain_reps\": %d, \"boost_period_ms\": %u, "
		   "\"chain_gap_ms\": %d,\n      \"boost_elements\": %u},\n    \"runs\": [",
		pv->hog_ms, pv->prm.reader_prio, pv->prm.hog_prio, pv->unlocks, BLOCK_MS,
		PAIR_BATCHES, pv->pairs, pv->chain_reps, pv->period_ms, CHAIN_GAP_MS, pv->elements);
	for (int c = 0; pv->sh && !x->status && c < NCONF; c++) {
		const struct pi_res *r = &pv->sh->res[c];
		const struct inv_result *v = &r->inv;
		int boost = c != C_MEMB;

		fprintf(f, "%s\n      {\"name\": \"%s\", \"ran\": %s, \"ok\": %s, \"error\": ",
			c ? "," : "", pi_conf_name[c], r->ran ? "true" : "false",
			r->ok ? "true" : "false");
		tool_json_str(f, r->error);
		fprintf(f, ",\n       \"inversion\": {\"ran\": %s, \"hog_ms\": ",
			r->inv_ran ? "true" : "false");
		tool_json_num(f, r->inv_ran ? v->hog_ms : NAN);
		fprintf(f, ", \"gp_max_ms\": ");
		tool_json_num(f, r->inv_ran ? v->gp_max_ms : NAN);
		fprintf(f, ", \"gp_p99_ms\": ");
		tool_json_num(f, r->inv_ran ? v->gp_p99_ms : NAN);
		fprintf(f, ", \"gp_count\": %ld, \"reader_held_ms\": ", v->gp_count);
		tool_json_num(f, r->inv_ran ? v->reader_held_ms : NAN);
		fprintf(f, ", \"peak_backlog\": %ld,\n        \"boosts\": %ld, \"sched_syscalls\": "
			   "%ld, \"pi_boosts\": %ld, \"pi_syscalls\": %ld, \"pi_handoffs\": %ld, "
			   "\"syscalls_per_boost\": ",
			v->peak_backlog, v->bs.boost, v->bs.sched_syscalls, v->bs.pi_boosts,
			v->bs.pi_syscalls, v->bs.pi_handoffs);
		tool_json_num(f, r->per_boost);
		fprintf(f, "},\n       \"unlock_boosted_ns\": ");
		tool_json_num(f, boost ? r->unlock_boosted_ns : NAN);
		fprintf(f, ", \"unlock_sections\": %d, \"unlock_sections_boosted\": %d, "
			   "\"pair_ns\": ", boost ? r->unlocks : 0, r->unlocks_boosted);
		tool_json_num(f, r->ran ? r->pair_ns : NAN);
		fprintf(f, ",\n       \"chain\": {\"gp_ms\": [");
		for (int i = 0; i < r->chain_runs; i++) {
			fprintf(f, "%s", i ? ", " : "");
			tool_json_num(f, r->chain_gp_ms[i]);
		}
		fprintf(f, "], \"gp_median_ms\": ");
		tool_json_num(f, r->chain_gp_median_ms);
		fprintf(f, ", \"gp_max_ms\": ");
		tool_json_num(f, r->chain_gp_max_ms);
		fprintf(f, ", \"hog_ran_ms\": ");
		tool_json_num(f, r->chain_runs ? r->chain_hog_ms : NAN);
		fprintf(f, ", \"holder_rtprio\": [");
		for (int i = 0; i < r->chain_runs; i++)
			fprintf(f, "%s%d", i ? ", " : "", r->holder_rtprio[i]);
		fprintf(f, "], \"boosts\": %ld}}", r->chain_boosts);
	}
	fprintf(f, "\n    ]");
}

/* gnuplot reads "?" as a missing value (set datafile missing). */
static void dat_num(FILE *f, double v)
{
	if (isnan(v))
		fprintf(f, " ?");
	else
		fprintf(f, " %.3f", v);
}

void pi_plot(struct bench_xres *x, const struct pi_priv *pv)
{
	const struct pi_res *rs = pv->sh->res;
	char dat[400], dat2[400];
	FILE *f = bench_x_plot_file(x, "pi_gp.dat", dat, sizeof(dat));

	if (!f)
		return;
	fprintf(f, "figure");
	for (int c = 0; c < NCONF; c++)
		fprintf(f, " %s", pi_conf_name[c]);
	fprintf(f, "\n\"inversion (max)\"");
	for (int c = 0; c < NCONF; c++)
		dat_num(f, pi_inv_v(&rs[c], 0));
	fprintf(f, "\n\"chain (median)\"");
	for (int c = 0; c < NCONF; c++)
		dat_num(f, pi_v_of(&rs[c], rs[c].chain_gp_median_ms));
	fprintf(f, "\n");
	fclose(f);
	f = bench_x_plot_file(x, "pi_unlock.dat", dat2, sizeof(dat2));
	if (!f)
		return;
	fprintf(f, "figure");
	for (int c = 0; c < NCONF; c++)
		fprintf(f, " %s", pi_conf_name[c]);
	fprintf(f, "\n\"boosted unlock\"");
	for (int c = 0; c < NCONF; c++)
		dat_num(f, c == C_MEMB ? NAN : pi_v_of(&rs[c], rs[c].unlock_boosted_ns));
	fprintf(f, "\n\"lock+unlock pair\"");
	for (int c = 0; c < NCONF; c++)
		dat_num(f, pi_v_of(&rs[c], rs[c].pair_ns));
	fprintf(f, "\n");
	fclose(f);
	bench_x_gnuplot(x, "pi", 1100, 480,
			"set datafile missing '?'\n"
			"set style data histograms\nset style histogram clustered gap 1\n"
			"set style fill solid 0.8 border -1\nset grid ytics\n"
			"set key outside top center horizontal autotitle columnhead\n"
			"set multiplot layout 1,2\n"
			"set title 'grace period, hog %d ms (lower is better)'\nset ylabel 'ms'\n"
			"set yrange [0:*]\n"
			"plot '%s' using 2:xtic(1), '' using 3, '' using 4\n"
			"set title 'read side: boosted unlock, plain pair'\nset ylabel 'ns (log)'\nset logscale y\n"
			"set yrange [0.1:*]\n"
			"plot '%s' using 2:xtic(1), '' using 3, '' using 4\n"
			"unset multiplot\n",
			pv->hog_ms, dat, dat2);
}
