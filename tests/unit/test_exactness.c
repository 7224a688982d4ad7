/* SPDX-License-Identifier: MIT */
/* test_exactness.c - F1 by resampling (analyzer/lib/exactness.h) on synthetic per-VM values with a known effect.
 *
 * Expected values come from outside the code under test: a case decided by construction (complete separation:
 * every base-vs-new draw must be significant), and an independent Monte Carlo simulation with the test's own PRNG
 * and 20x the draws for an intermediate effect. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>

#include "exactness.h"
#include "stats.h"

/* The test's own generator (xorshift64*, not the code's xoshiro256**), and normal deviates by Box-Muller. */
static uint64_t rs = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 0x2545f4914f6cdd1dull;
}
static double unif(void)
{
	return ((double)(rnd() >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(void)
{
	return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif());
}

Test(exactness, complete_separation_gives_full_recall)
{
	double base[20], new_[20];
	for (int i = 0; i < 20; i++) {
		base[i] = 1 + i;
		new_[i] = 101 + i;
	}
	struct emp_exactness_cell c;
	cr_assert_eq(emp_exactness_run(base, 20, new_, 20, 10, 1000, EMP_STATS_MWU, 0.01, 7, &c), 0);
	/* every draw of 10 new values lies above every draw of 10 base values: U = 100, p <= 1.8e-4 (ties only lower
	 * the variance) */
	cr_assert_eq(c.tp, 1000);
	cr_assert_eq(c.fn, 0);
	cr_assert_eq(c.tp + c.fn, 1000);
	cr_assert_eq(c.tn + c.fp, 1000);
	cr_assert_eq(c.vms, 10);
	cr_assert_float_eq(c.recall, 1.0, 1e-15);
	/* base vs base is the null hypothesis: false positives near alpha (1 %), binomial sd ~3 of 1000 */
	cr_assert_leq(c.fp, 30, "fp %u", c.fp);
	double p = 1000.0 / (1000.0 + c.fp);
	cr_assert_float_eq(c.precision, p, 1e-12);
	cr_assert_float_eq(c.f1, 2 * p / (p + 1), 1e-12);
	cr_assert_gt(c.f1, 0.985);
}

Test(exactness, intermediate_effect_matches_independent_simulation)
{
	enum { N = 100, K = 10, R = 1000, SIM = 20000 };
	double base[N], new_[N], x[K], y[K];
	rs = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < N; i++)
		base[i] = 100 + normal();
	for (int i = 0; i < N; i++)
		new_[i] = 101.5 + normal();
	/* independent simulation: the same experiment with the test's generator, 20x the draws */
	unsigned tp = 0, fp = 0;
	struct emp_stats_result r;
	for (int s = 0; s < SIM; s++) {
		for (int j = 0; j < K; j++) {
			x[j] = base[rnd() % N];
			y[j] = new_[rnd() % N];
		}
		cr_assert_eq(emp_stats_mwu(x, K, y, K, &r), 0);
		tp += r.p < 0.01;
		for (int j = 0; j < K; j++) {
			x[j] = base[rnd() % N];
			y[j] = base[rnd() % N];
		}
		cr_assert_eq(emp_stats_mwu(x, K, y, K, &r), 0);
		fp += r.p < 0.01;
	}
	double rec = (double)tp / SIM, fpr = (double)fp / SIM;
	double prec = rec / (rec + fpr), f1 = 2 * prec * rec / (prec + rec);
	cr_assert(rec > 0.2 && rec < 0.9, "the effect should be intermediate (recall %.3f)", rec);

	struct emp_exactness_cell c;
	cr_assert_eq(emp_exactness_run(base, N, new_, N, K, R, EMP_STATS_MWU, 0.01, 42, &c), 0);
	/* binomial sd of the recall over 1000 draws <= 0.016; 4 sd */
	cr_assert(fabs(c.recall - rec) < 0.065, "recall %.3f, simulation %.3f", c.recall, rec);
	cr_assert(fabs((double)c.fp / R - fpr) < 0.02, "fp rate %.3f, simulation %.3f", (double)c.fp / R, fpr);
	cr_assert(fabs(c.f1 - f1) < 0.06, "F1 %.3f, simulation %.3f", c.f1, f1);

	/* more VMs, more power: at k = 40 the same effect is found nearly always */
	struct emp_exactness_cell c40;
	cr_assert_eq(emp_exactness_run(base, N, new_, N, 40, R, EMP_STATS_MWU, 0.01, 42, &c40), 0);
	cr_assert_gt(c40.recall, 0.97);
	cr_assert_gt(c40.f1, c.f1);
}

Test(exactness, deterministic_for_a_seed)
{
	double base[30], new_[30];
	rs = 12345;
	for (int i = 0; i < 30; i++) {
		base[i] = normal();
		new_[i] = 0.7 + normal();
	}
	struct emp_exactness_cell a, b, d;
	cr_assert_eq(emp_exactness_run(base, 30, new_, 30, 8, 500, EMP_STATS_WELCH, 0.01, 99, &a), 0);
	cr_assert_eq(emp_exactness_run(base, 30, new_, 30, 8, 500, EMP_STATS_WELCH, 0.01, 99, &b), 0);
	cr_assert(a.tp == b.tp && a.fn == b.fn && a.tn == b.tn && a.fp == b.fp);
	cr_assert_eq(emp_exactness_run(base, 30, new_, 30, 8, 500, EMP_STATS_WELCH, 0.01, 100, &d), 0);
	cr_assert(a.tp != d.tp || a.fp != d.fp, "another seed, other draws");
	/* cell seeds depend on node, k and iterations */
	uint64_t s0 = emp_exactness_seed(1, "a;b", 10, 100);
	cr_assert_eq(s0, emp_exactness_seed(1, "a;b", 10, 100));
	cr_assert_neq(s0, emp_exactness_seed(1, "a;c", 10, 100));
	cr_assert_neq(s0, emp_exactness_seed(1, "a;b", 11, 100));
	cr_assert_neq(s0, emp_exactness_seed(1, "a;b", 10, 101));
	cr_assert_neq(s0, emp_exactness_seed(2, "a;b", 10, 100));
}

Test(exactness, scores_and_bad_arguments)
{
	struct emp_exactness_cell c = { .tp = 0, .fn = 10, .tn = 10, .fp = 0 };
	emp_exactness_score(&c);
	cr_assert(c.precision == 0 && c.recall == 0 && c.f1 == 0);
	c = (struct emp_exactness_cell){ .tp = 9, .fn = 1, .tn = 7, .fp = 3 };
	emp_exactness_score(&c);
	cr_assert_float_eq(c.precision, 0.75, 1e-15);
	cr_assert_float_eq(c.recall, 0.9, 1e-15);
	cr_assert_float_eq(c.f1, 2 * 0.75 * 0.9 / 1.65, 1e-15);
	double v[3] = { 1, 2, 3 };
	cr_assert_eq(emp_exactness_run(v, 3, v, 3, 0, 10, EMP_STATS_MWU, 0.01, 1, &c), -EINVAL);
	cr_assert_eq(emp_exactness_run(v, 0, v, 3, 2, 10, EMP_STATS_MWU, 0.01, 1, &c), -EINVAL);
	cr_assert_eq(emp_exactness_run(v, 3, v, 3, 2, 0, EMP_STATS_MWU, 0.01, 1, &c), -EINVAL);
	cr_assert_eq(emp_exactness_run(v, 3, v, 3, 1, 10, EMP_STATS_WELCH, 0.01, 1, &c), -EINVAL);
	/* constant values: Welch has no p-value (NaN), which counts as nothing detected */
	double k5[3] = { 5, 5, 5 };
	cr_assert_eq(emp_exactness_run(k5, 3, k5, 3, 3, 50, EMP_STATS_WELCH, 0.01, 1, &c), 0);
	cr_assert(c.tp == 0 && c.fp == 0 && c.fn == 50 && c.tn == 50);
}
