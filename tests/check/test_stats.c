/*
 * Tests of check/stats.c: the median, the one-sided Mann-Whitney U test and the smallest p-value.
 * Figures known by construction (full separation: 1 / C(nx+ny, nx)) or printed by the
 * independent brute-force script tests/data/check/mwu_reference.py (pasted below).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "check_internal.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

Test(stats, median_of_odd_even_and_empty_counts)
{
	double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2}, one[] = {7};
	cr_expect_eq(tkc_median(odd, 3), 3);
	cr_expect_eq(tkc_median(even, 4), 2.5);
	cr_expect_eq(tkc_median(one, 1), 7);
	cr_expect(isnan(tkc_median(odd, 0)));
	cr_expect(isnan(tkc_median(NULL, 0)));
	cr_expect_eq(odd[0], 5, "the input is left as it is");
	cr_expect_eq(even[0], 4);
}

Test(stats, min_p_is_one_over_the_arrangements)
{
	cr_expect_float_eq(tkc_min_p(3, 3), 0.05, 1e-15);
	cr_expect_float_eq(tkc_min_p(10, 10), 1.0 / 184756, 1e-20);
	cr_expect_float_eq(tkc_min_p(5, 5), 1.0 / 252, 1e-18);
	cr_expect_float_eq(tkc_min_p(1, 4), 0.2, 1e-15);
	cr_expect_float_eq(tkc_min_p(4, 1), 0.2, 1e-15);
	cr_expect_eq(tkc_min_p(0, 5), 1);
	cr_expect_eq(tkc_min_p(5, 0), 1);
}

Test(stats, full_separation_is_the_smallest_p_exactly)
{
	double x3[] = {1, 2, 3}, y3[] = {4, 5, 6};
	cr_expect_float_eq(tkc_mann_whitney(x3, 3, y3, 3), 1.0 / 20, 1e-15);
	double x5[] = {5, 1, 4, 2, 3}, y5[] = {10, 6, 9, 7, 8}; /* order does not matter */
	cr_expect_float_eq(tkc_mann_whitney(x5, 5, y5, 5), 1.0 / 252, 1e-17);
	/* the other direction: y all below x gives p = 1 (one-sided) */
	cr_expect_float_eq(tkc_mann_whitney(y3, 3, x3, 3), 1, 1e-15);
	/* 10 + 10 separated: 1 / 184756, the smallest p of those sizes */
	double x10[10], y10[10];
	for (int i = 0; i < 10; i++)
		x10[i] = i, y10[i] = 100 + i;
	cr_expect_float_eq(tkc_mann_whitney(x10, 10, y10, 10), tkc_min_p(10, 10), 1e-19);
}

Test(stats, identical_samples_are_no_evidence)
{
	double a[] = {1, 2, 3, 4, 5};
	cr_expect_geq(tkc_mann_whitney(a, 5, a, 5), 0.5);
	double c[] = {7, 7, 7, 7};
	cr_expect_eq(tkc_mann_whitney(c, 4, c, 4), 1, "all values tied: p = 1");
}

Test(stats, empty_sides_give_one)
{
	double a[] = {1, 2};
	cr_expect_eq(tkc_mann_whitney(a, 2, NULL, 0), 1);
	cr_expect_eq(tkc_mann_whitney(NULL, 0, a, 2), 1);
	double nan2[] = {NAN, NAN};
	cr_expect_eq(tkc_mann_whitney(a, 2, nan2, 2), 1, "NaN samples are left out");
}

/*
 * tests/data/check/mwu_reference.py printed (brute force over every arrangement):
 *   exact  interleaved: U = 14, p = 26/126 = 0.20634920634920634
 *   exact  steps: U = 33, p = 87/1716 = 0.050699300699300696
 *   exact  reversed: U = 0, p = 20/20 = 1
 */
Test(stats, exact_p_matches_the_brute_force)
{
	double x1[] = {1.0, 3.0, 5.0, 7.0}, y1[] = {2.0, 4.0, 6.0, 8.0, 9.0};
	cr_expect_float_eq(tkc_mann_whitney(x1, N(x1), y1, N(y1)), 26.0 / 126, 1e-14);
	double x2[] = {10.2, 11.5, 9.8, 10.9, 10.1, 10.4};
	double y2[] = {10.8, 11.9, 11.2, 10.3, 12.0, 11.1, 10.7};
	cr_expect_float_eq(tkc_mann_whitney(x2, N(x2), y2, N(y2)), 87.0 / 1716, 1e-14);
	double x3[] = {4, 5, 6}, y3[] = {1, 2, 3};
	cr_expect_float_eq(tkc_mann_whitney(x3, 3, y3, 3), 1, 1e-14);
}

/*
 * tests/data/check/mwu_reference.py printed (normal approximation, written independently):
 *   normal tied: U = 50.5, p = 0.027228580032294895
 *   normal large: U = 2060, p = 0.086595507197018001   (60 + 60: beyond the exact table)
 */
Test(stats, normal_approximation_with_ties_and_large_samples)
{
	double x[] = {1, 2, 2, 3, 3, 3, 4, 5}, y[] = {2, 3, 4, 4, 5, 5, 6, 6};
	cr_expect_float_eq(tkc_mann_whitney(x, N(x), y, N(y)), 0.027228580032294895, 1e-12);
	double xl[60], yl[60];
	for (int i = 0; i < 60; i++)
		xl[i] = 2 * i, yl[i] = 2 * i + 9;
	cr_expect_float_eq(tkc_mann_whitney(xl, 60, yl, 60), 0.086595507197018001, 1e-12);
}

/* Exact and normal agree roughly where both apply (no ties, moderate sizes): a sanity bound. */
Test(stats, exact_and_normal_are_close_for_moderate_samples)
{
	double x[] = {10.2, 11.5, 9.8, 10.9, 10.1, 10.4};
	double y[] = {10.8, 11.9, 11.2, 10.3, 12.0, 11.1, 10.7};
	double p = tkc_mann_whitney(x, N(x), y, N(y));
	/* normal: U = 33, mean 21, var 6*7*14/12 = 49, z = (33-21-0.5)/7 */
	double pn = 0.5 * erfc((33 - 21 - 0.5) / 7.0 / sqrt(2.0));
	cr_expect(fabs(p - pn) < 0.005, "exact %g, normal %g", p, pn);
}
