/* SPDX-License-Identifier: MIT */
/* test_latency.c - analyzer/lib/latency.c: reading emp-load logs (answered rows into the histograms, error rows by
 * name, malformed input named by line) and requests overlapping GC pauses. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "hdr.h"
#include "latency.h"

static void write_log(char *path, const char *text)
{
	snprintf(path, 64, "/tmp/emp-test-latency-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
}

Test(latency, read_log)
{
	char path[64], err[256];
	/* due, sent, done in ns: latencies 1.5 ms / 0.5 ms, 10 ms / 9.999 ms, 300.0009 ms / 1 ms (a 404) */
	write_log(path, "due_ns,sent_ns,done_ns,status\n"
			"1000000000,1001000000,1001500000,200\n"
			"1001000000,,1001000001,refused\n"
			"1002000000,1002000001,1012000000,200\n"
			"1003000000,,,unsent\n"
			"1004000000,1303000900,1304000900,404\n"
			"1005000000,,1005000002,refused\n");
	struct emp_latency_log l;
	cr_assert_eq(emp_latency_read(path, &l, err, sizeof(err)), 0, "%s", err);
	unlink(path);
	cr_assert_eq(l.n, 3);
	cr_assert_eq(l.non_2xx, 1);
	cr_assert_eq(l.nkinds, 2);
	cr_assert_str_eq(l.kind[0], "refused");
	cr_assert_eq(l.kind_count[0], 2);
	cr_assert_str_eq(l.kind[1], "unsent");
	cr_assert_eq(l.kind_count[1], 1);
	cr_assert_eq(l.t_min, 1000000000);
	cr_assert_eq(l.t_max, 1304000900);
	cr_assert_eq(emp_hdr_count(l.corrected), 3);
	cr_assert_eq(emp_hdr_max(l.corrected), 300000); /* 300.0009 ms truncated to µs */
	cr_assert_eq(emp_hdr_percentile(l.corrected, 50), 10007); /* 10000 µs: its bucket [10000, 10008) is 8 wide */
	cr_assert_eq(emp_hdr_max(l.uncorrected), 9999);
	cr_assert_eq(emp_hdr_percentile(l.uncorrected, 0), 500);

	/* pauses: one inside the first request, two inside the 404's wait (after the second request ended) */
	struct emp_latency_pause p[] = { { 1001100000, 100 }, { 1012500000, 1000 }, { 1200000000, 5000000 } };
	uint64_t all, slow;
	emp_latency_overlaps(&l, p, 3, 10000, &all, &slow);
	cr_assert_eq(all, 2);
	cr_assert_eq(slow, 1);
	emp_latency_free(&l);
}

Test(latency, malformed)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "", ": empty file (not an emp-load log)" },
		{ "due,sent,done,status\n", ": not an emp-load log (line 1 is not 'due_ns,sent_ns,done_ns,status')" },
		{ "due_ns,sent_ns,done_ns,status\n1,2,3\n", ":2: expected due_ns,sent_ns,done_ns,status" },
		{ "due_ns,sent_ns,done_ns,status\n1,2,3,200,x\n", ":2: expected due_ns,sent_ns,done_ns,status" },
		{ "due_ns,sent_ns,done_ns,status\n1,-2,3,200\n", ":2: expected due_ns,sent_ns,done_ns,status" },
		{ "due_ns,sent_ns,done_ns,status\n5,6,4,200\n",
		  ":2: an answered request needs sent and done times after due and a status 100..599" },
		{ "due_ns,sent_ns,done_ns,status\n5,,9,200\n",
		  ":2: an answered request needs sent and done times after due and a status 100..599" },
		{ "due_ns,sent_ns,done_ns,status\n5,6,9,600\n",
		  ":2: an answered request needs sent and done times after due and a status 100..599" },
		{ "due_ns,sent_ns,done_ns,status\n5,,,Timeout\n",
		  ":2: status 'Timeout' is neither an HTTP status nor an error name" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[64], err[256], want[256];
		write_log(path, cases[i].text);
		struct emp_latency_log l;
		cr_assert_eq(emp_latency_read(path, &l, err, sizeof(err)), -1, "case %zu", i);
		snprintf(want, sizeof(want), "%s%s", path, cases[i].want);
		cr_assert_str_eq(err, want, "case %zu", i);
		unlink(path);
	}
	char err[256];
	struct emp_latency_log l;
	cr_assert_eq(emp_latency_read("/nonexistent/log.csv", &l, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "/nonexistent/log.csv: cannot open: No such file or directory");
}
