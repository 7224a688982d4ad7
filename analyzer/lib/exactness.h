/* SPDX-License-Identifier: MIT */
/* exactness.h - how exactly a test detects a change with k VMs: F1 by resampling (the ICPE'26 method,
 * design.md §5).
 *
 * One cell (k VMs per version): @resamples times draw k values with replacement from the base VM values and k from
 * the new ones and test them: p < alpha is a true positive (the change is there), otherwise a false negative;
 * @resamples times draw two independent sets of k from the base values: p < alpha is a false positive, otherwise a
 * true negative.  P = TP / (TP + FP), R = TP / (TP + FN), F1 = 2PR / (P + R); each is 0 where its denominator is.
 * A test that gives no p-value (NaN: Welch on constant samples) counts as "no change detected".
 *
 * Draw order, so a seed fixes the result: the PRNG (stats.h xoshiro256**) is seeded with @seed, then for each of
 * the @resamples base-vs-new rounds k base indices and k new indices, then for each base-vs-base round k and k base
 * values (emp_stats_resample).  emp_exactness_seed() derives a cell's seed from the user's seed, the node and
 * the cell, so cells and nodes do not depend on which others are computed.
 */
#ifndef EMP_EXACTNESS_H
#define EMP_EXACTNESS_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"

struct emp_exactness_cell {
	size_t vms;                 /* k */
	unsigned tp, fn, tn, fp;
	double precision, recall, f1;
};

/* emp_exactness_run - the cell for @k VMs from the per-VM values @base[0..nb) and @new[0..nn) (nb, nn >= 1,
 * k >= 1; Welch needs k >= 2).  Return: 0, -EINVAL (bad sizes, resamples == 0), -ENOMEM. */
int emp_exactness_run(const double *base, size_t nb, const double *new_, size_t nn, size_t k, unsigned resamples,
		      enum emp_stats_test test, double alpha, uint64_t seed, struct emp_exactness_cell *cell);

/* emp_exactness_score - precision, recall and F1 from the cell's counts. */
void emp_exactness_score(struct emp_exactness_cell *cell);

/* emp_exactness_seed - the seed of the cell (@node, @k, @iterations) under the user's @seed (FNV-1a of the node
 * mixed with splitmix64). */
uint64_t emp_exactness_seed(uint64_t seed, const char *node, size_t k, size_t iterations);

#endif /* EMP_EXACTNESS_H */
