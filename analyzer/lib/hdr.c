/* SPDX-License-Identifier: MIT */
/* hdr.c - HdrHistogram's log-linear layout and percentile rule in C (see hdr.h; the index arithmetic follows
 * org.hdrhistogram.AbstractHistogram: getBucketIndex, getSubBucketIndex, countsArrayIndex, valueFromIndex). */
#include "hdr.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

struct emp_hdr {
	int64_t highest;
	int unit_magnitude;       /* floor(log2(lowest)) */
	int sub_half_magnitude;   /* log2(sub_count / 2) */
	int64_t sub_count;        /* 2^ceil(log2(2 * 10^digits)) */
	int64_t sub_half;
	int64_t sub_mask;         /* (sub_count - 1) << unit_magnitude */
	int leading_zero_base;    /* 64 - unit_magnitude - log2(sub_count) */
	int32_t len;              /* counters: (buckets + 1) * sub_half */
	uint64_t total;
	int64_t max;
	uint64_t *counts;
};

static int floor_log2(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

struct emp_hdr *emp_hdr_new(int64_t lowest, int64_t highest, int digits)
{
	if (lowest < 1 || digits < 1 || digits > 5 || highest < 2 * lowest)
		return NULL;
	struct emp_hdr *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	int64_t single_unit = 2;
	for (int i = 0; i < digits; i++)
		single_unit *= 10;
	int sub_count_magnitude = (int)ceil(log2((double)single_unit));
	h->highest = highest;
	h->unit_magnitude = floor_log2((uint64_t)lowest);
	h->sub_half_magnitude = (sub_count_magnitude > 1 ? sub_count_magnitude : 1) - 1;
	h->sub_count = (int64_t)1 << (h->sub_half_magnitude + 1);
	h->sub_half = h->sub_count / 2;
	h->sub_mask = (h->sub_count - 1) << h->unit_magnitude;
	h->leading_zero_base = 64 - h->unit_magnitude - (h->sub_half_magnitude + 1);
	/* getBucketsNeededToCoverValue */
	int64_t smallest_untrackable = h->sub_count << h->unit_magnitude;
	int buckets = 1;
	while (smallest_untrackable <= highest) {
		if (smallest_untrackable > INT64_MAX / 2) {
			buckets++;
			break;
		}
		smallest_untrackable <<= 1;
		buckets++;
	}
	h->len = (int32_t)((buckets + 1) * h->sub_half);
	h->counts = calloc((size_t)h->len, sizeof(*h->counts));
	if (!h->counts) {
		free(h);
		return NULL;
	}
	return h;
}

void emp_hdr_free(struct emp_hdr *h)
{
	if (!h)
		return;
	free(h->counts);
	free(h);
}

static int bucket_of(const struct emp_hdr *h, int64_t v)
{
	return h->leading_zero_base - __builtin_clzll((uint64_t)(v | h->sub_mask));
}

static int64_t sub_bucket_of(const struct emp_hdr *h, int64_t v, int bucket)
{
	return v >> (bucket + h->unit_magnitude);
}

static int32_t index_of(const struct emp_hdr *h, int64_t v)
{
	int b = bucket_of(h, v);
	int64_t s = sub_bucket_of(h, v, b);
	return (int32_t)((((int64_t)b + 1) << h->sub_half_magnitude) + (s - h->sub_half));
}

static int64_t value_of_index(const struct emp_hdr *h, int32_t index)
{
	int b = (index >> h->sub_half_magnitude) - 1;
	int64_t s = (index & (h->sub_half - 1)) + h->sub_half;
	if (b < 0) {
		s -= h->sub_half;
		b = 0;
	}
	return s << (b + h->unit_magnitude);
}

int64_t emp_hdr_highest_equivalent(const struct emp_hdr *h, int64_t value)
{
	int b = bucket_of(h, value);
	int64_t s = sub_bucket_of(h, value, b);
	int64_t lowest_equivalent = s << (b + h->unit_magnitude);
	int64_t range = (int64_t)1 << (h->unit_magnitude + (s >= h->sub_count ? b + 1 : b));
	return lowest_equivalent + range - 1;
}

int emp_hdr_record(struct emp_hdr *h, int64_t value)
{
	if (value < 0 || value > h->highest)
		return -ERANGE;
	int32_t i = index_of(h, value);
	if (i < 0 || i >= h->len)
		return -ERANGE;
	h->counts[i]++;
	h->total++;
	if (value > h->max)
		h->max = value;
	return 0;
}

uint64_t emp_hdr_count(const struct emp_hdr *h)
{
	return h->total;
}

int64_t emp_hdr_max(const struct emp_hdr *h)
{
	return h->max;
}

int64_t emp_hdr_percentile(const struct emp_hdr *h, double p)
{
	if (h->total == 0)
		return 0;
	double requested = fmin(fmax(nextafter(p, -INFINITY), 0.0), 100.0);
	uint64_t at = (uint64_t)ceil(requested / 100.0 * (double)h->total);
	if (at < 1)
		at = 1;
	uint64_t running = 0;
	for (int32_t i = 0; i < h->len; i++) {
		running += h->counts[i];
		if (running >= at) {
			int64_t v = value_of_index(h, i);
			return p == 0.0 ? v : emp_hdr_highest_equivalent(h, v);
		}
	}
	return 0;
}
