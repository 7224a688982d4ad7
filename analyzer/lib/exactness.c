/* SPDX-License-Identifier: MIT */
/* exactness.c - F1 of change detection by resampling VM values; see exactness.h. */
#include "exactness.h"

#include <errno.h>
#include <stdlib.h>

/* p < alpha; a NaN p (no p-value) is not significant. */
static int significant(enum emp_stats_test test, const double *x, const double *y, size_t k, double alpha, int *err)
{
	struct emp_stats_result r;
	int rc = emp_stats_run(test, x, k, y, k, &r);
	if (rc == -ENOMEM)
		*err = rc;
	return !rc && r.p < alpha;
}

int emp_exactness_run(const double *base, size_t nb, const double *new_, size_t nn, size_t k, unsigned resamples,
		      enum emp_stats_test test, double alpha, uint64_t seed, struct emp_exactness_cell *cell)
{
	if (!nb || !nn || !k || !resamples || (test == EMP_STATS_WELCH && k < 2))
		return -EINVAL;
	double *x = malloc(2 * k * sizeof(double)), *y = x ? x + k : NULL;
	if (!x)
		return -ENOMEM;
	struct emp_stats_rng g;
	emp_stats_rng_seed(&g, seed);
	*cell = (struct emp_exactness_cell){ .vms = k };
	int err = 0;
	for (unsigned i = 0; i < resamples && !err; i++) {
		emp_stats_resample(&g, base, nb, x, k);
		emp_stats_resample(&g, new_, nn, y, k);
		if (significant(test, x, y, k, alpha, &err))
			cell->tp++;
		else
			cell->fn++;
	}
	for (unsigned i = 0; i < resamples && !err; i++) {
		emp_stats_resample(&g, base, nb, x, k);
		emp_stats_resample(&g, base, nb, y, k);
		if (significant(test, x, y, k, alpha, &err))
			cell->fp++;
		else
			cell->tn++;
	}
	free(x);
	emp_exactness_score(cell);
	return err;
}

void emp_exactness_score(struct emp_exactness_cell *c)
{
	c->precision = c->tp + c->fp ? (double)c->tp / (c->tp + c->fp) : 0.0;
	c->recall = c->tp + c->fn ? (double)c->tp / (c->tp + c->fn) : 0.0;
	c->f1 = c->precision + c->recall > 0 ? 2 * c->precision * c->recall / (c->precision + c->recall) : 0.0;
}

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t emp_exactness_seed(uint64_t seed, const char *node, size_t k, size_t iterations)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const unsigned char *p = (const unsigned char *)node; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return splitmix(splitmix(splitmix(seed ^ h) ^ k) ^ iterations);
}
