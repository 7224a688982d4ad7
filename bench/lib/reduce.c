// SPDX-License-Identifier: MIT
/*
 * reduce.c - reduce one java-sut timing CSV (header `iteration,duration_ns`, see java-sut/README.md) to the
 * per-VM figures the statistics need, so that multi-million-row files need not be kept or re-read.
 *
 * Usage: reduce [--drop FRACTION] FILE
 *   --drop F   skip the first F of the rows as warm-up (MooBench: 0.5, as MooBench does; CallTree: 0, its
 *              warm-up iterations are not written)
 * Output, one line on stdout: `n,mean_ns,var_ns2,rows` — kept rows, their mean and unbiased variance
 * (Welford), and all rows in the file.  Bad input: one line on stderr, exit 2.
 *
 * Built at bench time by bench/lib/runner.sh with the system C compiler; part of no product.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reduce_fail(const char *file, const char *what, unsigned long line)
{
	fprintf(stderr, "reduce: %s:%lu: %s\n", file, line, what);
	return 2;
}

int main(int argc, char **argv)
{
	double drop = 0;
	const char *file = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--drop") && i + 1 < argc) {
			char *end;
			drop = strtod(argv[++i], &end);
			if (*end || drop < 0 || drop >= 1) {
				fprintf(stderr, "reduce: --drop wants a fraction in [0,1), not '%s'\n", argv[i]);
				return 2;
			}
		} else if (!file && argv[i][0] != '-') {
			file = argv[i];
		} else {
			fprintf(stderr, "usage: reduce [--drop FRACTION] FILE\n");
			return 2;
		}
	}
	if (!file) {
		fprintf(stderr, "usage: reduce [--drop FRACTION] FILE\n");
		return 2;
	}
	FILE *f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "reduce: %s: %s\n", file, strerror(errno));
		return 2;
	}
	char line[256];
	if (!fgets(line, sizeof(line), f) || strcmp(line, "iteration,duration_ns\n")) {
		fclose(f);
		return reduce_fail(file, "header is not 'iteration,duration_ns'", 1);
	}
	/* Two passes: count rows first so the warm-up cut is exact. */
	unsigned long rows = 0;
	while (fgets(line, sizeof(line), f))
		rows++;
	rewind(f);
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return reduce_fail(file, "cannot re-read the header", 1);
	}
	unsigned long skip = (unsigned long)(drop * (double)rows), n = 0, lineno = 1;
	double mean = 0, m2 = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		char *comma = strchr(line, ','), *end;
		if (!comma) {
			fclose(f);
			return reduce_fail(file, "no comma", lineno);
		}
		errno = 0;
		long long v = strtoll(comma + 1, &end, 10);
		if (errno || end == comma + 1 || (*end != '\n' && *end != '\0') || v < 0) {
			fclose(f);
			return reduce_fail(file, "duration_ns is not a non-negative integer", lineno);
		}
		if (lineno - 2 < skip)
			continue;
		n++;
		double d = (double)v - mean;
		mean += d / (double)n;
		m2 += d * ((double)v - mean);
	}
	fclose(f);
	if (n == 0)
		return reduce_fail(file, "no rows left after the warm-up cut", lineno);
	printf("%lu,%.3f,%.3f,%lu\n", n, mean, n > 1 ? m2 / (double)(n - 1) : 0.0, rows);
	return 0;
}
