/* SPDX-License-Identifier: MIT */
/* test_stats.c - analyzer/lib/stats.c on values known by hand or by exact enumeration (the comparison with scipy
 * over ~1100 cases is tests/integration/stats_oracle.sh). */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void near(double got, double want, double rel, const char *what)
{
	cr_assert(fabs(got - want) <= rel * fmax(fabs(want), 1e-300), "%s: got %.17g, want %.17g", what, got, want);
}

static struct emp_stats_result mwu(const double *x, size_t nx, const double *y, size_t ny)
{
	struct emp_stats_result r;
	cr_assert_eq(emp_stats_mwu(x, nx, y, ny, &r), 0);
	return r;
}

/* 3 vs 3 without ties: C(6,3) = 20 arrangements; the number with U = 0..9 is 1 1 2 3 3 3 3 2 1 1 (partitions of
 * U into at most 3 parts of at most 3).  p = 2 P(U >= max(U1, U2)). */
Test(stats, mwu_exact_3v3_by_hand)
{
	double a[] = { 4, 5, 6 }, b[] = { 1, 2, 3 }, c[] = { 1, 5, 6 }, d[] = { 2, 3, 4 }, e[] = { 3, 5, 6 },
	       f[] = { 1, 2, 4 }, g[] = { 2, 4, 6 }, h[] = { 1, 3, 5 };
	struct emp_stats_result r = mwu(a, 3, b, 3);
	cr_assert_eq(r.exact, 1);
	cr_assert_eq(r.statistic, 9);
	near(r.p, 2.0 / 20, 1e-12, "U=9");
	r = mwu(b, 3, a, 3);
	cr_assert_eq(r.statistic, 0);
	near(r.p, 2.0 / 20, 1e-12, "U1=0");
	r = mwu(c, 3, d, 3); /* ranks 1 5 6: U1 = 6, P(U >= 6) = (3+2+1+1)/20 */
	cr_assert_eq(r.statistic, 6);
	near(r.p, 14.0 / 20, 1e-12, "U=6");
	r = mwu(e, 3, f, 3); /* ranks 3 5 6: U1 = 8, P(U >= 8) = 2/20 */
	cr_assert_eq(r.statistic, 8);
	near(r.p, 4.0 / 20, 1e-12, "U=8");
	r = mwu(g, 3, h, 3); /* ranks 2 4 6: U1 = 6 as well */
	near(r.p, 14.0 / 20, 1e-12, "U=6 again");
	cr_assert(isnan(r.z));
}

Test(stats, mwu_exact_tiny)
{
	double one[] = { 1 }, two[] = { 2 }, hi[] = { 3, 4 }, lo[] = { 1, 2 };
	struct emp_stats_result r = mwu(two, 1, one, 1);
	cr_assert_eq(r.exact, 1);
	near(r.p, 1, 1e-15, "1 vs 1 (2 P(U >= 1) = 1, clipped)");
	r = mwu(hi, 2, lo, 2);
	near(r.p, 2.0 / 6, 1e-12, "2 vs 2 separated");
	/* 8 vs 8 fully separated: 2 / C(16, 8) */
	double x[8], y[8];
	for (int i = 0; i < 8; i++) {
		x[i] = 100 + i;
		y[i] = i;
	}
	r = mwu(x, 8, y, 8);
	cr_assert_eq(r.exact, 1);
	near(r.p, 2.0 / 12870, 1e-12, "8 vs 8 separated");
}

/* Every arrangement of ranks 1..m+n into x and y for m, n <= 5: the exact p of each against the enumerated
 * distribution of U. */
Test(stats, mwu_exact_enumeration)
{
	for (unsigned m = 1; m <= 5; m++) {
		for (unsigned n = 1; n <= 5; n++) {
			unsigned N = m + n, count[26] = { 0 }, total = 0;
			for (unsigned mask = 0; mask < 1u << N; mask++) {
				if ((unsigned)__builtin_popcount(mask) != m)
					continue;
				unsigned rsum = 0;
				for (unsigned i = 0; i < N; i++)
					rsum += mask >> i & 1 ? i + 1 : 0;
				count[rsum - m * (m + 1) / 2]++;
				total++;
			}
			for (unsigned mask = 0; mask < 1u << N; mask++) {
				if ((unsigned)__builtin_popcount(mask) != m)
					continue;
				double x[5], y[5];
				unsigned nx = 0, ny = 0, rsum = 0;
				for (unsigned i = 0; i < N; i++) {
					if (mask >> i & 1) {
						x[nx++] = i + 1;
						rsum += i + 1;
					} else {
						y[ny++] = i + 1;
					}
				}
				unsigned u1 = rsum - m * (m + 1) / 2, u = u1 > m * n - u1 ? u1 : m * n - u1, tail = 0;
				for (unsigned k = u; k <= m * n; k++)
					tail += count[k];
				double want = fmin(1, 2.0 * tail / total);
				struct emp_stats_result r = mwu(x, m, y, n);
				cr_assert_eq(r.statistic, u1);
				near(r.p, want, 1e-12, "enumerated");
			}
		}
	}
}

/* Ties: x = {1 2 2}, y = {2 3 3}.  Ranks 1 | 3 3 3 | 5.5 5.5, U1 = 1, U = 8, tie term 24 + 6 = 30,
 * s = sqrt(9/12 (7 - 30/30)) = sqrt(4.5), z = (8 - 4.5 - 0.5) / sqrt(4.5) = sqrt(2), p = 2 (1 - Phi(sqrt 2)) =
 * erfc(1).  commons: z = (1 - 4.5) / sqrt(9 * 7 / 12), p = 2 Phi(z) = erfc(3.5 / sqrt(10.5)). */
Test(stats, mwu_ties_asymptotic_by_hand)
{
	double x[] = { 1, 2, 2 }, y[] = { 2, 3, 3 };
	struct emp_stats_result r = mwu(x, 3, y, 3);
	cr_assert_eq(r.exact, 0);
	cr_assert_eq(r.statistic, 1);
	near(r.z, sqrt(2), 1e-14, "z");
	near(r.p, erfc(1), 1e-13, "p");
	cr_assert_eq(emp_stats_mwu_commons(x, 3, y, 3, &r), 0);
	cr_assert_eq(r.statistic, 1);
	near(r.z, -3.5 / sqrt(5.25), 1e-14, "commons z");
	near(r.p, erfc(3.5 / sqrt(10.5)), 1e-13, "commons p");
}

Test(stats, mwu_all_equal_and_identical)
{
	double x[] = { 1, 1 }, y[] = { 1, 1, 1 };
	struct emp_stats_result r = mwu(x, 2, y, 3);
	cr_assert_eq(r.p, 1);
	cr_assert(isinf(r.z) && r.z < 0);
	cr_assert_eq(emp_stats_mwu_commons(x, 2, y, 3, &r), 0);
	cr_assert_eq(r.p, 1);
	double v[] = { 3, 1, 2, 5, 4, 9, 7, 8, 6, 10 };
	r = mwu(v, 10, v, 10); /* every value tied in pairs: asymptotic, U = 50 = mean, p = 1 */
	cr_assert_eq(r.exact, 0);
	cr_assert_eq(r.p, 1);
}

/* 8 values against more than EMP_STATS_MWU_EXACT_MAX / 8 others: asymptotic (documented departure).  At the cap,
 * with the samples interleaved (U near its mean: the longest exact tail sum), exact and equal to the normal
 * approximation within 1e-3 relative. */
Test(stats, mwu_exact_cap)
{
	size_t ny = EMP_STATS_MWU_EXACT_MAX / 8 + 1;
	double x[8], *y = malloc(ny * sizeof(*y));
	cr_assert_not_null(y);
	for (size_t i = 0; i < 8; i++)
		x[i] = (double)i + 0.5;
	for (size_t i = 0; i < ny; i++)
		y[i] = ((double)i + 0.37) * (8.0 / 4096); /* never k + 0.5: no ties */
	struct emp_stats_result r = mwu(x, 8, y, ny - 1); /* exactly at the cap: exact */
	cr_assert_eq(r.exact, 1);
	struct emp_stats_result a = mwu(x, 8, y, ny);
	cr_assert_eq(a.exact, 0);
	near(r.p, a.p, 1e-3, "exact vs normal at the cap");
	free(y);
}

Test(stats, test_errors_and_names)
{
	double x[] = { 1, 2 }, nan_[] = { 1, NAN };
	struct emp_stats_result r;
	cr_assert_eq(emp_stats_mwu(x, 0, x, 2, &r), -EINVAL);
	cr_assert_eq(emp_stats_mwu(x, 2, nan_, 2, &r), -EINVAL);
	cr_assert_eq(emp_stats_mwu_commons(x, 2, x, 0, &r), -EINVAL);
	cr_assert_eq(emp_stats_welch(x, 1, x, 2, &r), -EINVAL);
	cr_assert_eq(emp_stats_welch(nan_, 2, x, 2, &r), -EINVAL);
	enum emp_stats_test t;
	const char *names[] = { "mwu", "mwu-commons", "welch" };
	for (size_t i = 0; i < N(names); i++) {
		cr_assert_eq(emp_stats_test_parse(names[i], &t), 0);
		cr_assert_str_eq(emp_stats_test_name(t), names[i]);
	}
	cr_assert_eq(emp_stats_test_parse("ttest", &t), -EINVAL);
	cr_assert_str_eq(emp_stats_test_name((enum emp_stats_test)7), "?");
	cr_assert_eq(emp_stats_run((enum emp_stats_test)7, x, 2, x, 2, &r), -EINVAL);
}

/* Closed forms: df = 1 is Cauchy, sf = 1/2 - atan(t)/pi = atan(1/t)/pi (t > 0); df = 2: sf = 1/2 - t / (2 sqrt(2 + t^2))
 * = 1 / (s (s + t)) with s = sqrt(2 + t^2). */
Test(stats, t_sf_closed_forms)
{
	double ts[] = { -30, -3, -1, -0.01, 0, 1e-6, 0.5, 1, 2.5, 10, 1e3 };
	for (size_t i = 0; i < N(ts); i++) {
		double t = ts[i];
		double s = sqrt(2 + t * t); /* upper tails in forms without cancellation for t > 0 */
		near(emp_stats_t_sf(t, 1), t > 0 ? atan(1 / t) / M_PI : 0.5 - atan(t) / M_PI, 1e-12, "df 1");
		near(emp_stats_t_sf(t, 2), t > 0 ? 1 / (s * (s + t)) : 0.5 - t / (2 * s), 1e-12, "df 2");
	}
	/* far tail of df = 1: sf(t) = atan(1/t)/pi, no cancellation */
	near(emp_stats_t_sf(1e6, 1), atan(1e-6) / M_PI, 1e-12, "df 1 tail");
	/* symmetry, and df = 4: sf(t) = 1/2 - (3/4) u (1 - u^2 / 3), u = t / sqrt(4 + t^2) */
	near(emp_stats_t_sf(-1.7, 50), 1 - emp_stats_t_sf(1.7, 50), 1e-14, "symmetry");
	double u = 0.8 / sqrt(4 + 0.64);
	near(emp_stats_t_sf(0.8, 4), 0.5 - 0.75 * u * (1 - u * u / 3), 1e-13, "df 4");
	cr_assert_eq(emp_stats_t_sf(INFINITY, 3), 0);
	cr_assert_eq(emp_stats_t_sf(-INFINITY, 3), 1);
	cr_assert(isnan(emp_stats_t_sf(1, 0)));
	cr_assert(isnan(emp_stats_t_sf(NAN, 3)));
}

Test(stats, incbeta_known)
{
	double xs[] = { 0, 1e-9, 0.1, 0.3, 0.5, 0.77, 0.999, 1 };
	for (size_t i = 0; i < N(xs); i++) {
		double x = xs[i];
		near(emp_stats_incbeta(1, 1, x), x, 1e-13, "I(1,1)");
		near(emp_stats_incbeta(3.5, 1, x), pow(x, 3.5), 1e-13, "I(a,1)");
		near(emp_stats_incbeta(1, 4, x), -expm1(4 * log1p(-x)), 1e-13, "I(1,b)");
	}
	near(emp_stats_incbeta(7.25, 7.25, 0.5), 0.5, 1e-14, "symmetric");
	near(emp_stats_incbeta(500, 500, 0.5), 0.5, 1e-13, "symmetric, large");
	cr_assert(isnan(emp_stats_incbeta(0, 1, 0.5)));
	cr_assert(isnan(emp_stats_incbeta(1, 1, 1.5)));
}

/* x = {1 3}, y = {5 7}: variances 2, vx/nx = vy/ny = 1, df = 4 / 2 = 2, t = -4 / sqrt 2;
 * p = 2 sf(|t|, 2) = 1 - |t| / sqrt(2 + t^2) = 1 - sqrt(0.8). */
Test(stats, welch_by_hand)
{
	double x[] = { 1, 3 }, y[] = { 5, 7 };
	struct emp_stats_result r;
	cr_assert_eq(emp_stats_welch(x, 2, y, 2, &r), 0);
	near(r.statistic, -4 / sqrt(2), 1e-14, "t");
	near(r.df, 2, 1e-14, "df");
	near(r.p, 1 - sqrt(0.8), 1e-12, "p");
	cr_assert_eq(emp_stats_run(EMP_STATS_WELCH, y, 2, x, 2, &r), 0);
	near(r.statistic, 4 / sqrt(2), 1e-14, "t swapped");
	double c1[] = { 1, 1 }, c2[] = { 2, 2 };
	cr_assert_eq(emp_stats_welch(c1, 2, c2, 2, &r), 0); /* both constant, different: t = -inf, p = 0 */
	cr_assert(isinf(r.statistic));
	cr_assert_eq(r.p, 0);
	cr_assert_eq(emp_stats_welch(c1, 2, c1, 2, &r), 0); /* both constant, equal: nan as scipy */
	cr_assert(isnan(r.p));
}

Test(stats, descriptive)
{
	double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	near(emp_stats_mean(v, 8), 5, 1e-15, "mean");
	near(emp_stats_variance(v, 8), 32.0 / 7, 1e-15, "variance");
	cr_assert(isnan(emp_stats_mean(v, 0)));
	cr_assert(isnan(emp_stats_variance(v, 1)));
	double q[] = { 4, 1, 3, 2 };
	near(emp_stats_median(q, 4), 2.5, 1e-15, "median even");
	near(emp_stats_quantile_sorted(q, 4, 0.25), 1.75, 1e-15, "q25 type 7");
	near(emp_stats_quantile_sorted(q, 4, 1), 4, 1e-15, "q100");
	near(emp_stats_quantile_sorted(q, 4, 0), 1, 1e-15, "q0");
	double odd[] = { 9, 1, 5 };
	near(emp_stats_median(odd, 3), 5, 1e-15, "median odd");
	cr_assert(isnan(emp_stats_quantile_sorted(q, 0, 0.5)));
	cr_assert(isnan(emp_stats_quantile_sorted(q, 4, 1.5)));
	/* compensated sum: 1e16 + 1 + 1 - 1e16 = 2 exactly */
	double c[] = { 1e16, 1, 1, -1e16 };
	near(emp_stats_mean(c, 4), 0.5, 1e-15, "compensated mean");
	near(emp_stats_norm_sf(0), 0.5, 1e-16, "norm sf 0");
	near(emp_stats_norm_sf(1.959963984540054), 0.025, 1e-14, "norm sf 1.96");
}

Test(stats, rng)
{
	struct emp_stats_rng a, b;
	emp_stats_rng_seed(&a, 0);
	cr_assert_eq(a.s[0], 0xe220a8397b1dcdafu, "splitmix64(0) first output"); /* reference value of splitmix64 */
	emp_stats_rng_seed(&b, 0);
	for (int i = 0; i < 1000; i++)
		cr_assert_eq(emp_stats_rng_next(&a), emp_stats_rng_next(&b));
	emp_stats_rng_seed(&b, 1);
	cr_assert_neq(emp_stats_rng_next(&a), emp_stats_rng_next(&b));
	unsigned hist[6] = { 0 };
	for (int i = 0; i < 60000; i++) {
		uint64_t v = emp_stats_rng_below(&a, 6);
		cr_assert_lt(v, 6);
		hist[v]++;
	}
	for (int i = 0; i < 6; i++) /* deterministic stream: a fixed outcome, checked for plausibility */
		cr_assert(hist[i] > 9500 && hist[i] < 10500, "bucket %d: %u", i, hist[i]);
	for (int i = 0; i < 1000; i++) {
		double d = emp_stats_rng_double(&a);
		cr_assert(d >= 0 && d < 1);
	}
	cr_assert_eq(emp_stats_rng_below(&a, 1), 0);
	/* resample and indices draw the same positions from the same state */
	double src[] = { 10, 11, 12, 13, 14 }, dst[50];
	size_t idx[50];
	emp_stats_rng_seed(&a, 42);
	emp_stats_rng_seed(&b, 42);
	emp_stats_rng_indices(&a, 5, 50, idx);
	emp_stats_resample(&b, src, 5, dst, 50);
	for (int i = 0; i < 50; i++) {
		cr_assert_lt(idx[i], 5);
		cr_assert_eq(dst[i], src[idx[i]]);
	}
}

Test(stats, bootstrap)
{
	double two[] = { 2, 2, 2 }, one[] = { 1, 1 };
	struct emp_stats_ci ci;
	cr_assert_eq(emp_stats_boot_ratio(two, 3, one, 2, 200, 0.95, 1, &ci), 0);
	cr_assert(ci.point == 2 && ci.lo == 2 && ci.hi == 2);
	cr_assert_eq(emp_stats_boot_diff(two, 3, one, 2, 200, 0.95, 1, &ci), 0);
	cr_assert(ci.point == 1 && ci.lo == 1 && ci.hi == 1);
	/* a = b * 1.05 exactly: every replicate is not 1.05 (independent resampling), but the point is, and the
	 * interval brackets it; the same seed gives the same interval, bit for bit */
	double a[20], b[20];
	struct emp_stats_rng g;
	emp_stats_rng_seed(&g, 7);
	for (int i = 0; i < 20; i++) {
		b[i] = 1000 + 10 * (emp_stats_rng_double(&g) - 0.5);
		a[i] = b[i] * 1.05;
	}
	struct emp_stats_ci c2;
	cr_assert_eq(emp_stats_boot_ratio(a, 20, b, 20, 2000, 0.99, 3, &ci), 0);
	cr_assert_eq(emp_stats_boot_ratio(a, 20, b, 20, 2000, 0.99, 3, &c2), 0);
	cr_assert(ci.lo == c2.lo && ci.hi == c2.hi);
	near(ci.point, 1.05, 1e-14, "point");
	cr_assert(ci.lo < 1.05 && ci.hi > 1.05 && ci.lo > 1.04 && ci.hi < 1.06, "[%g, %g]", ci.lo, ci.hi);
	cr_assert_eq(emp_stats_boot_ratio(a, 20, b, 20, 2000, 0.99, 4, &c2), 0);
	cr_assert(ci.lo != c2.lo, "another seed, another interval");
	cr_assert_eq(emp_stats_boot_ratio(a, 0, b, 20, 10, 0.9, 1, &ci), -EINVAL);
	cr_assert_eq(emp_stats_boot_ratio(a, 2, b, 2, 0, 0.9, 1, &ci), -EINVAL);
	cr_assert_eq(emp_stats_boot_diff(a, 2, b, 2, 10, 1, 1, &ci), -EINVAL);
}

/* VM1 {1 3} (mean 2, var 2), VM2 {5 7} (mean 6, var 2): S1^2 = 2, S2^2 = 8, r = 2, T2 = 8 - 2/2 = 7,
 * r* = ceil(sqrt(100 * 2 / 7)) = ceil(5.345) = 6. */
Test(stats, kalibera_jones)
{
	double v1[] = { 1, 3 }, v2[] = { 5, 7 }, v3[] = { 1, 3 };
	const double *vm[] = { v1, v2 };
	size_t n[] = { 2, 2 };
	struct emp_stats_kj kj;
	cr_assert_eq(emp_stats_kj(vm, n, 2, 100, &kj), 0);
	cr_assert_eq(kj.vms, 2);
	near(kj.iters, 2, 1e-15, "r");
	near(kj.grand_mean, 4, 1e-15, "grand mean");
	near(kj.within_var, 2, 1e-15, "S1^2");
	near(kj.vm_means_var, 8, 1e-15, "S2^2");
	near(kj.between_var, 7, 1e-15, "T2");
	cr_assert_eq(kj.iters_opt, 6);
	const double *same[] = { v1, v3 };
	cr_assert_eq(emp_stats_kj(same, n, 2, 100, &kj), 0);
	cr_assert_eq(kj.between_var, 0);
	cr_assert(isinf(kj.iters_opt));
	cr_assert_eq(emp_stats_kj(vm, n, 1, 100, &kj), 0); /* one VM: no between-VM figure */
	cr_assert(isnan(kj.between_var) && isnan(kj.vm_means_var) && isnan(kj.iters_opt));
	near(kj.within_var, 2, 1e-15, "one VM S1^2");
	size_t bad[] = { 2, 0 };
	cr_assert_eq(emp_stats_kj(vm, bad, 2, 100, &kj), -EINVAL);
	cr_assert_eq(emp_stats_kj(vm, n, 0, 100, &kj), -EINVAL);
	cr_assert_eq(emp_stats_kj(vm, n, 2, 0, &kj), -EINVAL);
}
