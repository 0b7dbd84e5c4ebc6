/* SPDX-License-Identifier: MIT */
/*
 * The statistics the benchmark prints its verdicts with: the
 * Kruskal-Wallis p-value against values worked out by hand from its
 * definition (H = 12 / (N (N + 1)) sum R_g^2 / n_g - 3 (N + 1), p from
 * the chi-square survival function), ties, and the degenerate inputs.
 */
#include <math.h>
#include <stdio.h>

#include "tool.h"

static int failures;

static void expect(const char *what, double got, double want)
{
	if (isnan(want) ? !isnan(got) :
			  !(fabs(got - want) <= 1e-6 * (fabs(want) + 1e-12))) {
		fprintf(stderr, "test_tool_stats: %s: got %.9g, expected %.9g\n", what, got, want);
		failures++;
	}
}

int main(void)
{
	/* Three groups, ranks 1-9 in order: H = 7.2, df 2, p = e^-3.6. */
	const double v3[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	const int g3[] = { 0, 0, 0, 1, 1, 1, 2, 2, 2 };
	/* Four groups of two: H = 20/3, df 3,
	 * p = erfc(sqrt(H/2)) + sqrt(2H/pi) e^(-H/2). */
	const double v4[] = { 8, 7, 6, 5, 4, 3, 2, 1 };
	const int g4[] = { 3, 3, 2, 2, 1, 1, 0, 0 };
	double h4 = 20.0 / 3;
	/* One distribution in every group: the same values, p = 1. */
	const double vs[] = { 5, 9, 5, 9 };
	const int gs[] = { 0, 0, 1, 1 };
	/* Ties across groups: ranks 1, 2.5, 2.5, 4 ({1, 2} against {2, 3}):
	 * H = 12/20 (3.5^2 + 6.5^2)/2 - 15 = 1.35, corrected for the tie
	 * (1 - 6/60): 1.5; df 1, p = erfc(sqrt(0.75)). */
	const double vt[] = { 1, 2, 2, 3 };
	const int gt[] = { 0, 0, 1, 1 };
	/* Only one group holds values: no test. */
	const int g1[] = { 2, 2, 2 };

	tool_prog = "test_tool_stats";
	expect("three groups apart", tool_kruskal_wallis_p(v3, g3, 9, 3), exp(-3.6));
	expect("four groups apart", tool_kruskal_wallis_p(v4, g4, 8, 4),
	       erfc(sqrt(h4 / 2)) + sqrt(2 * h4 / acos(-1)) * exp(-h4 / 2));
	expect("same values", tool_kruskal_wallis_p(vs, gs, 4, 2), 1);
	expect("a tie across groups", tool_kruskal_wallis_p(vt, gt, 4, 2), erfc(sqrt(0.75)));
	expect("one group", tool_kruskal_wallis_p(v3, g1, 3, 3), NAN);
	expect("too few values", tool_kruskal_wallis_p(v3, g3, 2, 3), NAN);
	if (failures)
		return 1;
	printf("test_tool_stats: ok\n");
	return 0;
}
