/* SPDX-License-Identifier: MIT */
/* hdr.h - a log-linear histogram with HdrHistogram's layout and percentile rule (Gil Tene's HdrHistogram,
 * org.hdrhistogram.AbstractHistogram 2.x), so its percentiles equal Java's on the same recorded values
 * (tests/integration/latency.sh checks that against the real jar).
 *
 * Layout for (lowest, highest, digits): sub-bucket count = 2^ceil(log2(2·10^digits)); bucket 0 holds the values
 * 0 … sub_count−1 at unit resolution, bucket b > 0 the values sub_count/2·2^b … sub_count·2^b − 1 in sub_count/2
 * steps of 2^b; so every value is kept to 1 part in 10^digits.  With (1, 3.6·10^9, 3), i.e. 1 µs … 1 h at three
 * significant digits: 2048 sub-buckets, 22 buckets, 23,552 counters (184 KiB).
 *
 * Percentile p (0 … 100): the value of the first counter at which the running count reaches
 * max(1, ceil(nextafter(p, −∞)/100 · total)), reported as the highest value equivalent to that counter (as Java's
 * getValueAtPercentile, which also reports the lowest equivalent value for p = 0).  Not thread-safe; no I/O. */
#ifndef EMP_HDR_H
#define EMP_HDR_H

#include <stdint.h>

struct emp_hdr;

/* emp_hdr_new - a histogram for values 0 … @highest kept to @digits significant decimal digits, @lowest the
 * smallest value that must be told apart from 0 (1 for integer µs).  Return: NULL when out of memory or the
 * arguments are out of range (lowest ≥ 1, highest ≥ 2·lowest, 1 ≤ digits ≤ 5). */
struct emp_hdr *emp_hdr_new(int64_t lowest, int64_t highest, int digits);
void emp_hdr_free(struct emp_hdr *h);

/* emp_hdr_record - count @value once.  Return: 0, or -ERANGE (nothing recorded) when it is negative or above the
 * histogram's highest trackable value. */
int emp_hdr_record(struct emp_hdr *h, int64_t value);

uint64_t emp_hdr_count(const struct emp_hdr *h);
/* The exact largest value recorded (not its bucket's upper end), 0 when empty. */
int64_t emp_hdr_max(const struct emp_hdr *h);
/* The value at percentile @p (0 … 100) by HdrHistogram's rule above; 0 when empty. */
int64_t emp_hdr_percentile(const struct emp_hdr *h, double p);
/* The highest value equivalent to @value (same counter), HdrHistogram's highestEquivalentValue(). */
int64_t emp_hdr_highest_equivalent(const struct emp_hdr *h, int64_t value);

#endif /* EMP_HDR_H */
