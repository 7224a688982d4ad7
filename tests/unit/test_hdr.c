/* SPDX-License-Identifier: MIT */
/* test_hdr.c - analyzer/lib/hdr.c: HdrHistogram's layout (bucket boundaries and resolutions worked out by hand from
 * AbstractHistogram's formulas) and percentile rule.  The comparison with the Java library itself on the same
 * values is in tests/integration/latency.sh. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "hdr.h"

#define HOUR_US (3600LL * 1000000)

Test(hdr, bad_arguments)
{
	cr_assert_null(emp_hdr_new(0, HOUR_US, 3));
	cr_assert_null(emp_hdr_new(1, 1, 3));
	cr_assert_null(emp_hdr_new(1, HOUR_US, 0));
	cr_assert_null(emp_hdr_new(1, HOUR_US, 6));
	emp_hdr_free(NULL);
}

/* 3 digits: 2048 sub-buckets; values below 2048 have unit resolution, [2048, 4096) steps of 2, [4096, 8192) of 4,
 * and 10^6 lies in [2^19, 2^20): steps of 2^9 = 512, from 1953·512 = 999,936 to 1,000,447. */
Test(hdr, resolution_by_bucket)
{
	struct emp_hdr *h = emp_hdr_new(1, HOUR_US, 3);
	cr_assert_not_null(h);
	cr_assert_eq(emp_hdr_highest_equivalent(h, 0), 0);
	cr_assert_eq(emp_hdr_highest_equivalent(h, 1000), 1000);
	cr_assert_eq(emp_hdr_highest_equivalent(h, 2047), 2047);
	cr_assert_eq(emp_hdr_highest_equivalent(h, 2048), 2049);
	cr_assert_eq(emp_hdr_highest_equivalent(h, 2049), 2049);
	cr_assert_eq(emp_hdr_highest_equivalent(h, 4095), 4095);
	cr_assert_eq(emp_hdr_highest_equivalent(h, 4096), 4099);
	cr_assert_eq(emp_hdr_highest_equivalent(h, 1000000), 1000447);
	cr_assert_eq(emp_hdr_highest_equivalent(h, 999936), 1000447);
	cr_assert_eq(emp_hdr_highest_equivalent(h, 999935), 999935);
	emp_hdr_free(h);
}

Test(hdr, range)
{
	struct emp_hdr *h = emp_hdr_new(1, HOUR_US, 3);
	cr_assert_eq(emp_hdr_record(h, -1), -ERANGE);
	cr_assert_eq(emp_hdr_record(h, HOUR_US + 1), -ERANGE);
	cr_assert_eq(emp_hdr_count(h), 0);
	cr_assert_eq(emp_hdr_percentile(h, 50), 0);
	cr_assert_eq(emp_hdr_max(h), 0);
	cr_assert_eq(emp_hdr_record(h, HOUR_US), 0);
	cr_assert_eq(emp_hdr_record(h, 0), 0);
	cr_assert_eq(emp_hdr_count(h), 2);
	cr_assert_eq(emp_hdr_max(h), HOUR_US);
	cr_assert_eq(emp_hdr_percentile(h, 0), 0);
	cr_assert_eq(emp_hdr_percentile(h, 50), 0);
	cr_assert_geq(emp_hdr_percentile(h, 100), HOUR_US);
	cr_assert_leq(emp_hdr_percentile(h, 100), HOUR_US + HOUR_US / 1000);
	emp_hdr_free(h);
}

/* 1 … 1000 once each: the value at p is the ceil(p/100 · 1000)-th, exact at unit resolution; p = 99 does not
 * round up to the 991st (the rule takes one ulp off p first). */
Test(hdr, percentiles_of_1_to_1000)
{
	struct emp_hdr *h = emp_hdr_new(1, HOUR_US, 3);
	for (int v = 1; v <= 1000; v++)
		cr_assert_eq(emp_hdr_record(h, v), 0);
	cr_assert_eq(emp_hdr_percentile(h, 0), 1);
	cr_assert_eq(emp_hdr_percentile(h, 50), 500);
	cr_assert_eq(emp_hdr_percentile(h, 90), 900);
	cr_assert_eq(emp_hdr_percentile(h, 99), 990);
	cr_assert_eq(emp_hdr_percentile(h, 99.9), 999);
	cr_assert_eq(emp_hdr_percentile(h, 99.99), 1000);
	cr_assert_eq(emp_hdr_percentile(h, 100), 1000);
	cr_assert_eq(emp_hdr_percentile(h, 0.01), 1);
	emp_hdr_free(h);
}

/* 990 fast values and 10 of 300 ms: p99 is still fast, p99.9 is the pause (top of its 256-wide bucket). */
Test(hdr, tail)
{
	struct emp_hdr *h = emp_hdr_new(1, HOUR_US, 3);
	for (int i = 0; i < 990; i++)
		emp_hdr_record(h, 200);
	for (int i = 0; i < 10; i++)
		emp_hdr_record(h, 300000);
	cr_assert_eq(emp_hdr_percentile(h, 99), 200);
	cr_assert_eq(emp_hdr_percentile(h, 99.9), 300031); /* 300000 >> 8 = 1171, (1171 + 1) << 8 = 300032 */
	cr_assert_eq(emp_hdr_max(h), 300000);
	emp_hdr_free(h);
}
