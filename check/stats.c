/*
 * The statistics of `tracekit check` (docs/check.md, "Statistics"): the median, the one-sided
 * Mann-Whitney U test (exact distribution by dynamic programming for small samples without ties,
 * else the normal approximation with the tie and continuity corrections) and the smallest p-value
 * a sample size allows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_internal.h"

/* Cells of the (nx+1)(ny+1)(nx*ny+1) table of the exact distribution, at most. */
#define TKC_EXACT_CELLS 10000000.0

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double tkc_median(const double *v, size_t n)
{
	if (!n || !v)
		return NAN;
	double *c = malloc(n * sizeof(*c));
	if (!c)
		return NAN;
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), dbl_cmp);
	double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

double tkc_min_p(size_t nx, size_t ny)
{
	if (!nx || !ny)
		return 1;
	/* 1 / C(nx+ny, k), k the smaller side, as a product of k ratios each at most 1 */
	size_t k = nx < ny ? nx : ny, n = nx + ny;
	double p = 1;
	for (size_t i = 1; i <= k; i++)
		p *= (double)i / (double)(n - k + i);
	return p;
}

/*
 * P(U >= @u) when U counts the pairs (x, y) with y > x among @m x and @n y values in a random
 * order (no ties). With P(m, n, u) = P(U = u): the largest value is a y with probability
 * n / (m + n), and then beats all m x (U = m + the U of the rest), else an x that beats nothing:
 * P(m, n, u) = n/(m+n) P(m, n-1, u-m) + m/(m+n) P(m-1, n, u). Two layers of m are kept.
 * Returns -1 when out of memory.
 */
static double exact_upper(size_t m, size_t n, double u)
{
	size_t w = m * n + 1; /* u in 0 .. m*n */
	double *prev = calloc((n + 1) * w, sizeof(double));
	double *cur = calloc((n + 1) * w, sizeof(double));
	double p = -1;
	if (!prev || !cur)
		goto out;
	for (size_t j = 0; j <= n; j++)
		prev[j * w] = 1; /* m = 0: U = 0 */
	for (size_t i = 1; i <= m; i++) {
		memset(cur, 0, (n + 1) * w * sizeof(double));
		cur[0] = 1; /* n = 0: U = 0 */
		for (size_t j = 1; j <= n; j++) {
			double py = (double)j / (double)(i + j), px = (double)i / (double)(i + j);
			const double *a = cur + (j - 1) * w, *b = prev + j * w;
			double *c = cur + j * w;
			for (size_t x = 0; x <= i * j; x++)
				c[x] = (x >= i ? py * a[x - i] : 0) + px * b[x];
		}
		double *t = prev;
		prev = cur;
		cur = t;
	}
	p = 0;
	for (size_t x = m * n + 1; x-- > 0 && (double)x >= u;)
		p += prev[n * w + x];
	p = p > 1 ? 1 : p;
out:
	free(prev);
	free(cur);
	return p;
}

struct obs {
	double v;
	int y; /* 1: of the y sample */
};

static int obs_cmp(const void *a, const void *b)
{
	return dbl_cmp(&((const struct obs *)a)->v, &((const struct obs *)b)->v);
}

double tkc_mann_whitney(const double *x, size_t nx, const double *y, size_t ny)
{
	struct obs *o = malloc((nx + ny + 1) * sizeof(*o));
	double p = 1;
	if (!o)
		return 1;
	size_t n = 0, m = 0, k = 0; /* NaN samples are left out */
	for (size_t i = 0; i < nx; i++)
		if (!isnan(x[i]))
			o[n++] = (struct obs){x[i], 0}, m++;
	for (size_t i = 0; i < ny; i++)
		if (!isnan(y[i]))
			o[n++] = (struct obs){y[i], 1}, k++;
	if (!m || !k)
		goto out;
	qsort(o, n, sizeof(*o), obs_cmp);
	/* U of y = the rank sum of y (mid-ranks for ties) - k(k+1)/2; ties: Σ (t³ - t) */
	double ranks_y = 0, ties = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && o[j].v == o[i].v)
			j++;
		double t = (double)(j - i), rank = (double)(i + j + 1) / 2; /* mean of i+1 .. j */
		for (size_t q = i; q < j; q++)
			ranks_y += o[q].y ? rank : 0;
		ties += t * t * t - t;
		i = j;
	}
	double u = ranks_y - (double)k * ((double)k + 1) / 2;
	double mn = (double)m * (double)k;
	if (ties == 0 && ((double)m + 1) * ((double)k + 1) * (mn + 1) <= TKC_EXACT_CELLS) {
		double e = exact_upper(m, k, u);
		if (e >= 0) {
			p = e;
			goto out;
		}
	}
	double N = (double)n;
	double var = mn / 12 * ((N + 1) - ties / (N * (N - 1)));
	if (var <= 0)
		goto out; /* every value the same: no evidence either way */
	double z = (u - mn / 2 - 0.5) / sqrt(var);
	p = 0.5 * erfc(z / sqrt(2.0));
	p = p < 0 ? 0 : p > 1 ? 1 : p;
out:
	free(o);
	return p;
}
