/* SPDX-License-Identifier: MIT */
/* calls.h - the figures `emp-analyze calls` gives per traced method: calls, threw, total and self time, max, and
 * quantiles of the inclusive duration.
 *
 * Quantiles come from a log-linear histogram per method (32 buckets per power of two of the duration in ns, exact
 * below 32 ns; buckets allocated per power of two as they fill): the value reported is the middle of the bucket
 * holding the nearest-rank quantile, capped at the maximum, within 1.6 % of the exact value, and memory stays
 * bounded by the number of methods, not the number of calls.  Times are integer ns, each call's rounded once
 * (trace.h emp_trace_ns), so total and self time equal the sums `tree` shows; mean and max are exact. */
#ifndef EMP_CALLS_H
#define EMP_CALLS_H

#include <stdint.h>

#define EMP_CALLS_SUB_BITS 5
#define EMP_CALLS_SLOTS (64 - EMP_CALLS_SUB_BITS + 1)

/* One method's calls; all zero (no bucket allocated) before the first. */
struct emp_calls_method {
	uint64_t calls, threw;
	uint64_t total_ns, self_ns, max_ns;
	uint64_t *hist[EMP_CALLS_SLOTS];
};

/* emp_calls_add - one complete call of @ns inclusive and @self_ns self time.  Exits when out of memory. */
void emp_calls_add(struct emp_calls_method *m, uint64_t ns, uint64_t self_ns, int threw);
/* emp_calls_quantile - the nearest-rank quantile @q (0 < q <= 1) of the inclusive durations, as above; 0 without
 * calls. */
double emp_calls_quantile(const struct emp_calls_method *m, double q);
/* emp_calls_free - the histogram's buckets (the figures stay). */
void emp_calls_free(struct emp_calls_method *m);

#endif /* EMP_CALLS_H */
