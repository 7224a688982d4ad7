/* SPDX-License-Identifier: MIT */
/* stats.c - two-sample tests, bootstrap, Kalibera-Jones and a seeded PRNG (see stats.h for the formulas).
 *
 * References: H.B. Mann and D.R. Whitney (1947) and A. Di Bucchianico (1999, Theorem 2.5) for the exact U
 * distribution; scipy 1.10 scipy/stats/_mannwhitneyu.py for the 'auto' rule and the tie/continuity corrected
 * normal approximation; Apache commons-math3 MannWhitneyUTest for the Peass variant; W.H. Press et al.,
 * Numerical Recipes (3rd ed., 6.4) and Lentz's algorithm for the incomplete beta continued fraction;
 * D. Blackman and S. Vigna (2018) for xoshiro256** and splitmix64; D. Lemire (2019) for unbiased bounded
 * integers; T. Kalibera and R. Jones (2013) for the two-level variance. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* ---- descriptive helpers ---------------------------------------------------------------------------------- */

/* Neumaier's compensated sum: the rounding error of each addition is kept and added back, so a mean of timings
 * around 1e3..1e9 keeps its last digits (a Welch t of a small difference between two large means depends
 * on them). */
static double sum_compensated(const double *v, size_t n)
{
	double s = 0, c = 0;
	for (size_t i = 0; i < n; i++) {
		double t = s + v[i];
		c += fabs(s) >= fabs(v[i]) ? (s - t) + v[i] : (v[i] - t) + s;
		s = t;
	}
	return s + c;
}

double emp_stats_mean(const double *v, size_t n)
{
	if (n == 0)
		return NAN;
	return sum_compensated(v, n) / (double)n;
}

double emp_stats_variance(const double *v, size_t n)
{
	if (n < 2)
		return NAN;
	double m = emp_stats_mean(v, n), s = 0, c = 0;
	for (size_t i = 0; i < n; i++) {
		double d = (v[i] - m) * (v[i] - m), t = s + d;
		c += s >= d ? (s - t) + d : (d - t) + s;
		s = t;
	}
	return (s + c) / (double)(n - 1);
}

/* Ascending, NaN after everything else (so a sorted array's finite prefix is contiguous). */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

void emp_stats_sort(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_double);
}

double emp_stats_quantile_sorted(const double *v, size_t n, double q)
{
	if (n == 0 || !(q >= 0 && q <= 1))
		return NAN;
	double h = (double)(n - 1) * q, f = floor(h);
	size_t i = (size_t)f;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - f) * (v[i + 1] - v[i]);
}

double emp_stats_quantile(double *v, size_t n, double q)
{
	emp_stats_sort(v, n);
	return emp_stats_quantile_sorted(v, n, q);
}

double emp_stats_median(double *v, size_t n)
{
	return emp_stats_quantile(v, n, 0.5);
}

/* ---- distributions ---------------------------------------------------------------------------------------- */

double emp_stats_norm_sf(double z)
{
	return 0.5 * erfc(z * M_SQRT1_2);
}

/* Stirling's remainder: lgamma(x) - ((x - 0.5) log x - x + 0.5 log(2 pi)), by its asymptotic series for
 * x >= 10 (error below 1e-17) and from lgamma() below, where the values are small enough not to cancel. */
static double stirling_rem(double x)
{
	if (x < 10)
		return lgamma(x) - ((x - 0.5) * log(x) - x + 0.5 * log(2 * M_PI));
	double r = 1 / x, r2 = r * r;
	return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 / 1188))));
}

/* log B(a, b) without the cancellation of lgamma(a) + lgamma(b) - lgamma(a + b) when one argument is large:
 * with s the smaller and l the larger, lgamma(l) - lgamma(l + s) is expanded by Stirling's formula. */
static double log_beta(double a, double b)
{
	double s = a < b ? a : b, l = a < b ? b : a;
	if (l < 10)
		return lgamma(s) + lgamma(l) - lgamma(s + l);
	double d = (l - 0.5) * log1p(-s / (l + s)) - s * log(l + s) + s + stirling_rem(l) - stirling_rem(l + s);
	return lgamma(s) + d;
}

/* Continued fraction of I_x(a, b) (Numerical Recipes 6.4, evaluated by the modified Lentz method); converges
 * quickly for x < (a + 1) / (a + b + 2). */
static double incbeta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-16;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 100000; m++) {
		double m2 = 2.0 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* I_x(a, b) given both x and y = 1 - x, so that a y computed without cancellation (e.g. t^2 / (df + t^2))
 * keeps its precision. */
static double incbeta_xy(double a, double b, double x, double y)
{
	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	int swap = x > (a + 1) / (a + b + 2);
	if (swap) {
		double t = a;
		a = b;
		b = t;
		t = x;
		x = y;
		y = t;
	}
	double lx = x < 0.5 ? log(x) : log1p(-y), ly = y < 0.5 ? log(y) : log1p(-x);
	double front = exp(a * lx + b * ly - log_beta(a, b)) / a;
	double v = front * incbeta_cf(a, b, x);
	return swap ? 1 - v : v;
}

double emp_stats_incbeta(double a, double b, double x)
{
	if (!(a > 0 && b > 0 && x >= 0 && x <= 1))
		return NAN;
	return incbeta_xy(a, b, x, 1 - x);
}

double emp_stats_t_sf(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 0 : 1;
	/* P(|T| >= |t|) = I_{df/(df+t^2)}(df/2, 1/2); the complement is I_{t^2/(df+t^2)}(1/2, df/2). */
	double tt = t * t, x = df / (df + tt), y = tt / (df + tt);
	double two_tail = incbeta_xy(0.5 * df, 0.5, x, y);
	return t > 0 ? 0.5 * two_tail : 1 - 0.5 * two_tail;
}

/* ---- two-sample tests ------------------------------------------------------------------------------------- */

static const char *const test_names[] = {
	[EMP_STATS_MWU] = "mwu",
	[EMP_STATS_MWU_COMMONS] = "mwu-commons",
	[EMP_STATS_WELCH] = "welch",
};

int emp_stats_test_parse(const char *s, enum emp_stats_test *t)
{
	for (size_t i = 0; i < sizeof(test_names) / sizeof(test_names[0]); i++) {
		if (!strcmp(s, test_names[i])) {
			*t = (enum emp_stats_test)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *emp_stats_test_name(enum emp_stats_test t)
{
	if ((size_t)t < sizeof(test_names) / sizeof(test_names[0]))
		return test_names[t];
	return "?";
}

static int has_nan(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isnan(v[i]))
			return 1;
	return 0;
}

struct ranked {
	double r1;       /* sum of the (average) ranks of x */
	double tie_term; /* sum over tie groups of t^3 - t */
	int ties;        /* 1 when some value occurs more than once */
};

struct tagged {
	double v;
	int from_x;
};

static int cmp_tagged(const void *a, const void *b)
{
	double x = ((const struct tagged *)a)->v, y = ((const struct tagged *)b)->v;
	return (x > y) - (x < y);
}

/* Rank the pooled sample (ties get their average rank, as scipy's rankdata and commons' TiesStrategy.AVERAGE). */
static int rank_pooled(const double *x, size_t nx, const double *y, size_t ny, struct ranked *out)
{
	size_t n = nx + ny;
	struct tagged *p = malloc(n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < nx; i++)
		p[i] = (struct tagged){ x[i], 1 };
	for (size_t i = 0; i < ny; i++)
		p[nx + i] = (struct tagged){ y[i], 0 };
	qsort(p, n, sizeof(*p), cmp_tagged);
	*out = (struct ranked){ 0 };
	for (size_t i = 0; i < n;) {
		size_t j = i + 1, in_x = (size_t)p[i].from_x;
		while (j < n && p[j].v == p[i].v)
			in_x += (size_t)p[j++].from_x;
		double t = (double)(j - i), rank = 0.5 * (double)(i + 1 + j); /* ranks i+1 .. j averaged */
		out->r1 += rank * (double)in_x;
		if (j - i > 1) {
			out->ties = 1;
			out->tie_term += t * t * t - t;
		}
		i = j;
	}
	free(p);
	return 0;
}

/* P(U >= u) for U the Mann-Whitney statistic of samples of sizes m and n without ties, u an integer with
 * u >= m*n/2 (so the sum below runs over the lower, shorter tail by the symmetry f(k) = f(mn - k)).
 * f(m, n, k), the number of arrangements with U = k, follows Di Bucchianico's Theorem 2.5:
 *   f(m, n, k) = f(m-1, n, k-n) + f(m, n-1, k),  f(m, n, 0) = 1,  f = 0 for k < 0 or k > mn,
 * computed for all m' <= m (rows, m the smaller size) as n' grows to n, and only for k <= mn - u. */
static int mwu_exact_sf(size_t m, size_t n, size_t u, double *p)
{
	if (m > n) {
		size_t t = m;
		m = n;
		n = t;
	}
	size_t K = m * n - u, w = K + 1;
	double *f = calloc((m + 1) * w, sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i <= m; i++)
		f[i * w] = 1; /* f(i, 0, k) = [k == 0] */
	for (size_t nn = 1; nn <= n; nn++)
		for (size_t i = 1; i <= m; i++) /* row i-1 already holds n' = nn */
			for (size_t k = nn; k <= K; k++)
				f[i * w + k] += f[(i - 1) * w + k - nn];
	double count = 0, total = 1;
	for (size_t k = 0; k <= K; k++)
		count += f[m * w + k];
	for (size_t i = 1; i <= m; i++) /* C(m + n, m), exact while below 2^53 */
		total = total * (double)(n + i) / (double)i;
	free(f);
	*p = count / total;
	return 0;
}

/* The pooled ranks of @x and @y and x's U statistic, for both Mann-Whitney variants.  Return: 0 or -EINVAL (an
 * empty sample, a NaN) or rank_pooled's error. */
static int mwu_rank(const double *x, size_t nx, const double *y, size_t ny, struct ranked *rk, double *u1)
{
	if (nx == 0 || ny == 0 || has_nan(x, nx) || has_nan(y, ny))
		return -EINVAL;
	int err = rank_pooled(x, nx, y, ny, rk);
	if (!err)
		*u1 = rk->r1 - (double)nx * ((double)nx + 1) / 2;
	return err;
}

int emp_stats_mwu(const double *x, size_t nx, const double *y, size_t ny, struct emp_stats_result *r)
{
	struct ranked rk;
	double u1;
	int err = mwu_rank(x, nx, y, ny, &rk, &u1);
	if (err)
		return err;
	double n1 = (double)nx, n2 = (double)ny, n = n1 + n2;
	double u2 = n1 * n2 - u1, u = u1 > u2 ? u1 : u2;
	*r = (struct emp_stats_result){ .statistic = u1, .z = NAN, .df = NAN };
	if ((nx <= 8 || ny <= 8) && !rk.ties && nx * ny <= EMP_STATS_MWU_EXACT_MAX) {
		double sf;
		err = mwu_exact_sf(nx, ny, (size_t)u, &sf);
		if (err)
			return err;
		r->exact = 1;
		r->p = fmin(1, 2 * sf);
		return 0;
	}
	double s = sqrt(n1 * n2 / 12 * ((n + 1) - rk.tie_term / (n * (n - 1))));
	/* s == 0 only when every value is the same: U = mean, z = -inf, p = 1 as in scipy */
	r->z = (u - n1 * n2 / 2 - 0.5) / s;
	r->p = fmin(1, 2 * emp_stats_norm_sf(r->z));
	return 0;
}

int emp_stats_mwu_commons(const double *x, size_t nx, const double *y, size_t ny, struct emp_stats_result *r)
{
	struct ranked rk;
	double u1;
	int err = mwu_rank(x, nx, y, ny, &rk, &u1);
	if (err)
		return err;
	double n1 = (double)nx, n2 = (double)ny;
	double u2 = n1 * n2 - u1, umin = u1 < u2 ? u1 : u2;
	*r = (struct emp_stats_result){ .statistic = u1, .df = NAN };
	r->z = (umin - n1 * n2 / 2) / sqrt(n1 * n2 * (n1 + n2 + 1) / 12);
	r->p = 2 * emp_stats_norm_sf(-r->z); /* 2 Phi(z), z <= 0 */
	return 0;
}

int emp_stats_welch(const double *x, size_t nx, const double *y, size_t ny, struct emp_stats_result *r)
{
	if (nx < 2 || ny < 2 || has_nan(x, nx) || has_nan(y, ny))
		return -EINVAL;
	double n1 = (double)nx, n2 = (double)ny;
	double vn1 = emp_stats_variance(x, nx) / n1, vn2 = emp_stats_variance(y, ny) / n2;
	double df = (vn1 + vn2) * (vn1 + vn2) / (vn1 * vn1 / (n1 - 1) + vn2 * vn2 / (n2 - 1));
	if (isnan(df))
		df = 1; /* both variances 0: scipy's choice, so a mean difference gives p = 0 */
	double t = (emp_stats_mean(x, nx) - emp_stats_mean(y, ny)) / sqrt(vn1 + vn2);
	*r = (struct emp_stats_result){ .statistic = t, .z = NAN, .df = df };
	r->p = isnan(t) ? NAN : 2 * emp_stats_t_sf(fabs(t), df);
	return 0;
}

int emp_stats_run(enum emp_stats_test t, const double *x, size_t nx, const double *y, size_t ny,
		  struct emp_stats_result *r)
{
	switch (t) {
	case EMP_STATS_MWU:
		return emp_stats_mwu(x, nx, y, ny, r);
	case EMP_STATS_MWU_COMMONS:
		return emp_stats_mwu_commons(x, nx, y, ny, r);
	case EMP_STATS_WELCH:
		return emp_stats_welch(x, nx, y, ny, r);
	}
	return -EINVAL;
}

/* ---- deterministic PRNG and resampling -------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

void emp_stats_rng_seed(struct emp_stats_rng *g, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		g->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t emp_stats_rng_next(struct emp_stats_rng *g)
{
	uint64_t *s = g->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t emp_stats_rng_below(struct emp_stats_rng *g, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)emp_stats_rng_next(g) * n;
	uint64_t low = (uint64_t)m;
	if (low < n) {
		uint64_t threshold = -n % n; /* 2^64 mod n */
		while (low < threshold) {
			m = (unsigned __int128)emp_stats_rng_next(g) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double emp_stats_rng_double(struct emp_stats_rng *g)
{
	return (double)(emp_stats_rng_next(g) >> 11) * 0x1.0p-53;
}

void emp_stats_rng_indices(struct emp_stats_rng *g, size_t n, size_t k, size_t *out)
{
	for (size_t i = 0; i < k; i++)
		out[i] = (size_t)emp_stats_rng_below(g, n);
}

void emp_stats_resample(struct emp_stats_rng *g, const double *src, size_t n, double *dst, size_t k)
{
	for (size_t i = 0; i < k; i++)
		dst[i] = src[emp_stats_rng_below(g, n)];
}

/* ---- bootstrap -------------------------------------------------------------------------------------------- */

static double resampled_mean(struct emp_stats_rng *g, const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[emp_stats_rng_below(g, n)];
	return s / (double)n;
}

static int boot(const double *a, size_t na, const double *b, size_t nb, unsigned B, double level, uint64_t seed,
		int ratio, struct emp_stats_ci *ci)
{
	if (na == 0 || nb == 0 || B == 0 || !(level > 0 && level < 1))
		return -EINVAL;
	double *rep = malloc(B * sizeof(*rep));
	if (!rep)
		return -ENOMEM;
	struct emp_stats_rng g;
	emp_stats_rng_seed(&g, seed);
	for (unsigned i = 0; i < B; i++) {
		double ma = resampled_mean(&g, a, na), mb = resampled_mean(&g, b, nb);
		rep[i] = ratio ? ma / mb : ma - mb;
	}
	emp_stats_sort(rep, B);
	double ma = emp_stats_mean(a, na), mb = emp_stats_mean(b, nb);
	ci->point = ratio ? ma / mb : ma - mb;
	ci->lo = emp_stats_quantile_sorted(rep, B, (1 - level) / 2);
	ci->hi = emp_stats_quantile_sorted(rep, B, (1 + level) / 2);
	free(rep);
	return 0;
}

int emp_stats_boot_ratio(const double *a, size_t na, const double *b, size_t nb, unsigned B, double level,
			 uint64_t seed, struct emp_stats_ci *ci)
{
	return boot(a, na, b, nb, B, level, seed, 1, ci);
}

int emp_stats_boot_diff(const double *a, size_t na, const double *b, size_t nb, unsigned B, double level,
			uint64_t seed, struct emp_stats_ci *ci)
{
	return boot(a, na, b, nb, B, level, seed, 0, ci);
}

/* ---- Kalibera-Jones two-level variance -------------------------------------------------------------------- */

int emp_stats_kj_summary(const size_t *n, const double *mean, const double *var, size_t vms, double vm_cost,
			 struct emp_stats_kj *kj)
{
	if (vms == 0 || !(vm_cost > 0))
		return -EINVAL;
	double iters = 0, within = 0;
	size_t with_var = 0;
	for (size_t j = 0; j < vms; j++) {
		if (n[j] == 0)
			return -EINVAL;
		iters += (double)n[j];
		if (n[j] >= 2) {
			within += var[j];
			with_var++;
		}
	}
	*kj = (struct emp_stats_kj){ .vms = vms, .iters = iters / (double)vms, .grand_mean = emp_stats_mean(mean, vms) };
	kj->within_var = with_var ? within / (double)with_var : NAN;
	kj->vm_means_var = emp_stats_variance(mean, vms);
	kj->between_var = NAN;
	kj->iters_opt = NAN;
	if (vms >= 2 && with_var) {
		kj->between_var = fmax(0, kj->vm_means_var - kj->within_var / kj->iters);
		kj->iters_opt = kj->between_var > 0 ? ceil(sqrt(vm_cost * kj->within_var / kj->between_var)) : INFINITY;
	}
	return 0;
}

int emp_stats_kj(const double *const *vm, const size_t *n, size_t vms, double vm_cost, struct emp_stats_kj *kj)
{
	if (vms == 0)
		return -EINVAL;
	double *mv = malloc(2 * vms * sizeof(*mv));
	if (!mv)
		return -ENOMEM;
	for (size_t j = 0; j < vms; j++) {
		mv[j] = emp_stats_mean(vm[j], n[j]);
		mv[vms + j] = emp_stats_variance(vm[j], n[j]);
	}
	int err = emp_stats_kj_summary(n, mv, mv + vms, vms, vm_cost, kj);
	free(mv);
	return err;
}
