/* SPDX-License-Identifier: MIT */
/* stats.h - the statistics of change detection and overhead: two-sample tests, bootstrap intervals, the
 * Kalibera-Jones two-level variance, and a seeded PRNG for deterministic resampling.  C and libm only.
 *
 * Tests (all two-sided):
 *  - EMP_STATS_MWU: Mann-Whitney U exactly as scipy.stats.mannwhitneyu(x, y, alternative='two-sided',
 *    method='auto') in scipy 1.10: the exact null distribution of U (Mann & Whitney 1947's recurrence, as in
 *    Di Bucchianico 1999 Theorem 2.5) when min(nx, ny) <= 8 and the pooled sample has no ties, otherwise the
 *    normal approximation with tie correction and continuity correction.  With U = max(U1, U2):
 *      exact:      p = min(1, 2 * P(U' >= U))
 *      asymptotic: z = (U - nx*ny/2 - 0.5) / sqrt(nx*ny/12 * ((N+1) - sum(t^3 - t) / (N*(N-1)))),
 *                  p = min(1, 2 * (1 - Phi(z)))           N = nx + ny, t = sizes of the tie groups
 *  - EMP_STATS_MWU_COMMONS: Apache commons-math3 MannWhitneyUTest.mannWhitneyUTest(x, y), which Peass uses:
 *    normal approximation without tie or continuity correction,
 *      z = (min(U1, U2) - nx*ny/2) / sqrt(nx*ny*(N+1)/12),  p = 2 * Phi(z).
 *  - EMP_STATS_WELCH: Welch's unequal-variance t-test, scipy.stats.ttest_ind(x, y, equal_var=False):
 *      t = (mean x - mean y) / sqrt(vx/nx + vy/ny)  (sample variances, ddof 1),
 *      df = (vx/nx + vy/ny)^2 / ((vx/nx)^2/(nx-1) + (vy/ny)^2/(ny-1)),  p = 2 * P(T_df >= |t|)
 *    through the regularized incomplete beta function (continued fraction, modified Lentz).
 *
 * Every function is pure apart from the PRNG state it is given; none prints or exits. */
#ifndef EMP_STATS_H
#define EMP_STATS_H

#include <stddef.h>
#include <stdint.h>

/* ---- descriptive helpers ---------------------------------------------------------------------------------- */

/* Arithmetic mean; NAN for n == 0. */
double emp_stats_mean(const double *v, size_t n);
/* Sample variance (ddof 1, two-pass); NAN for n < 2. */
double emp_stats_variance(const double *v, size_t n);
/* Sort @v ascending in place (NaN-free input). */
void emp_stats_sort(double *v, size_t n);
/* emp_stats_quantile_sorted - quantile @q in [0, 1] of ascending @v by linear interpolation between closest
 * ranks (numpy's default, Hyndman & Fan type 7): h = (n-1)q, v[floor h] + (h - floor h)(v[floor h + 1] - v[floor h]).
 * NAN for n == 0. */
double emp_stats_quantile_sorted(const double *v, size_t n, double q);
/* emp_stats_quantile - the same on unsorted @v, which it sorts in place. */
double emp_stats_quantile(double *v, size_t n, double q);
/* emp_stats_median - the median (type 7 quantile 0.5) of @v, which it sorts in place. */
double emp_stats_median(double *v, size_t n);

/* ---- distributions ---------------------------------------------------------------------------------------- */

/* Upper tail of the standard normal, 1 - Phi(z) (0.5 erfc(z / sqrt 2), accurate in both tails). */
double emp_stats_norm_sf(double z);
/* emp_stats_incbeta - regularized incomplete beta I_x(a, b), a, b > 0, 0 <= x <= 1, by the continued fraction.
 * NAN outside the domain.  Accuracy (measured through emp_stats_t_sf against scipy's stdtr): 1e-14 relative for
 * df <= 1e3, 1e-12 up to 1e5, 2e-11 at 1e6, degrading beyond (2e-8 at 1e9, where the fraction is slow). */
double emp_stats_incbeta(double a, double b, double x);
/* Upper tail of Student's t with @df > 0 degrees of freedom, P(T >= t); NAN for df <= 0 or NaN input. */
double emp_stats_t_sf(double t, double df);

/* ---- two-sample tests ------------------------------------------------------------------------------------- */

enum emp_stats_test {
	EMP_STATS_MWU,         /* "mwu": scipy 1.10 mannwhitneyu, method='auto' (the default) */
	EMP_STATS_MWU_COMMONS, /* "mwu-commons": commons-math3 MannWhitneyUTest (Peass) */
	EMP_STATS_WELCH,       /* "welch": scipy ttest_ind(equal_var=False) */
};

/* Parse "mwu", "mwu-commons" or "welch".  Return: 0 or -EINVAL. */
int emp_stats_test_parse(const char *s, enum emp_stats_test *t);
/* The name emp_stats_test_parse() accepts; "?" for an unknown value. */
const char *emp_stats_test_name(enum emp_stats_test t);

struct emp_stats_result {
	double statistic; /* MWU: U1, the U of x (scipy's statistic; ranks of x summed minus nx(nx+1)/2);
			   * Welch: t (positive when x's mean is larger) */
	double z;         /* MWU: the standardized statistic the p-value came from (asymptotic only, NAN when
			   * exact); Welch: NAN */
	double df;        /* Welch: Welch-Satterthwaite degrees of freedom; MWU: NAN */
	double p;         /* two-sided p-value in [0, 1]; NAN where scipy gives nan (Welch, both variances 0) */
	int exact;        /* 1 when p comes from the exact distribution of U */
};

/* emp_stats_mwu - Mann-Whitney U as scipy 1.10 method='auto' (see the file comment).
 * @x, @nx, @y, @ny: the samples, n >= 1 each, no NaN.  Exact when min(nx, ny) <= 8 and no ties, computed by the
 * recurrence in doubles (all additions, as scipy); the one departure from scipy: above nx*ny >
 * EMP_STATS_MWU_EXACT_MAX (e.g. 8 values against more than 4096) the asymptotic p is used (@r->exact == 0),
 * where the O(nx*ny*min^2) recurrence would take seconds.
 * Return: 0, -EINVAL (empty sample or NaN), -ENOMEM. */
int emp_stats_mwu(const double *x, size_t nx, const double *y, size_t ny, struct emp_stats_result *r);
/* emp_stats_mwu_commons - Mann-Whitney U as commons-math3 (see the file comment); statistic is U1 as above.
 * Return: 0, -EINVAL, -ENOMEM. */
int emp_stats_mwu_commons(const double *x, size_t nx, const double *y, size_t ny, struct emp_stats_result *r);
/* emp_stats_welch - Welch's t-test.  Needs nx, ny >= 2.  Return: 0 or -EINVAL. */
int emp_stats_welch(const double *x, size_t nx, const double *y, size_t ny, struct emp_stats_result *r);
/* emp_stats_run - dispatch to one of the three.  Return: as the test's function. */
int emp_stats_run(enum emp_stats_test t, const double *x, size_t nx, const double *y, size_t ny,
		  struct emp_stats_result *r);

/* The largest nx*ny for which emp_stats_mwu() computes the exact distribution. */
#define EMP_STATS_MWU_EXACT_MAX 32768u

/* ---- deterministic PRNG and resampling -------------------------------------------------------------------- */

/* xoshiro256** 1.0 (Blackman & Vigna 2018), seeded by expanding a 64-bit seed with splitmix64: the same seed
 * gives the same stream on every platform and build. */
struct emp_stats_rng {
	uint64_t s[4];
};

void emp_stats_rng_seed(struct emp_stats_rng *g, uint64_t seed);
/* The next 64 random bits. */
uint64_t emp_stats_rng_next(struct emp_stats_rng *g);
/* Uniform integer in [0, n), n >= 1, without modulo bias (Lemire's multiply-and-reject). */
uint64_t emp_stats_rng_below(struct emp_stats_rng *g, uint64_t n);
/* Uniform double in [0, 1) with 53 random bits. */
double emp_stats_rng_double(struct emp_stats_rng *g);
/* emp_stats_rng_indices - @k indices drawn uniformly from [0, n) with replacement into @out (n >= 1). */
void emp_stats_rng_indices(struct emp_stats_rng *g, size_t n, size_t k, size_t *out);
/* emp_stats_resample - @k values drawn from @src[0..n) with replacement into @dst (n >= 1); same draws as
 * emp_stats_rng_indices() with the same state. */
void emp_stats_resample(struct emp_stats_rng *g, const double *src, size_t n, double *dst, size_t k);

/* ---- bootstrap -------------------------------------------------------------------------------------------- */

struct emp_stats_ci {
	double point; /* the statistic on the samples themselves */
	double lo, hi; /* percentile interval: type 7 quantiles (1-level)/2 and (1+level)/2 of the B replicates */
};

/* emp_stats_boot_ratio - mean(a) / mean(b) with a percentile bootstrap interval: @B replicates, each resampling
 * @a and @b independently with replacement (same sizes), from emp_stats_rng_seed(@seed).  @level in (0, 1),
 * e.g. 0.95.  Replicates whose mean(b) is 0 give +-inf/NaN and are sorted as such (NaN last).
 * Return: 0, -EINVAL (na or nb == 0, B == 0, level outside (0, 1)), -ENOMEM. */
int emp_stats_boot_ratio(const double *a, size_t na, const double *b, size_t nb, unsigned B, double level,
			 uint64_t seed, struct emp_stats_ci *ci);
/* emp_stats_boot_diff - mean(a) - mean(b), otherwise as emp_stats_boot_ratio(). */
int emp_stats_boot_diff(const double *a, size_t na, const double *b, size_t nb, unsigned B, double level,
			uint64_t seed, struct emp_stats_ci *ci);

/* ---- Kalibera-Jones two-level variance -------------------------------------------------------------------- */

/* Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time" (ISMM 2013), two levels (VM, iteration), method
 * of moments on n VMs with r_j iterations each:
 *   S1^2 = mean over VMs of the within-VM sample variance          (iteration level)
 *   S2^2 = sample variance of the VM means                         (VM level, observed)
 *   T2   = max(0, S2^2 - S1^2 / r)   r = mean iterations per VM    (VM level, the between-VM component)
 *   suggested iterations per VM  r* = ceil(sqrt(c * S1^2 / T2)),  c = cost of one VM / cost of one iteration
 * (r* is INFINITY when T2 == 0: the VM level adds nothing, iterate more).  With vms < 2, S2^2, T2 and r* are NAN;
 * VMs with one iteration contribute no within-VM variance (S1^2 averages the VMs with >= 2). */
struct emp_stats_kj {
	size_t vms;
	double iters;        /* mean iterations per VM, r */
	double grand_mean;   /* mean of the VM means */
	double within_var;   /* S1^2 */
	double vm_means_var; /* S2^2 */
	double between_var;  /* T2 */
	double iters_opt;    /* r* */
};

/* emp_stats_kj - from per-VM iteration values: @vm[j][0..n[j]) for j < @vms, each n[j] >= 1.  @vm_cost: c above
 * (> 0, in iterations).  Return: 0, -EINVAL (vms == 0, an empty VM, vm_cost <= 0), -ENOMEM. */
int emp_stats_kj(const double *const *vm, const size_t *n, size_t vms, double vm_cost, struct emp_stats_kj *kj);
/* emp_stats_kj_summary - the same from per-VM summaries: iteration count @n[j], mean @mean[j] and sample
 * variance @var[j] (ignored when n[j] < 2). */
int emp_stats_kj_summary(const size_t *n, const double *mean, const double *var, size_t vms, double vm_cost,
			 struct emp_stats_kj *kj);

#endif /* EMP_STATS_H */
