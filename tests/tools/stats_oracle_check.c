/* SPDX-License-Identifier: MIT */
/* stats_oracle_check.c - compare analyzer/lib/stats.c with the reference values of tests/stats/oracle.py.
 *
 * Usage: stats_oracle_check [--tol REL] CASES.csv
 * For every line "test,x,y,statistic,p" it runs the test on x and y and compares the p-value and the statistic
 * with the reference: |a - b| <= REL * max(|a|, |b|) (default 1e-9), NaN equals NaN, equal infinities are equal.
 * Prints each mismatch, then "checked N cases (mwu A, mwu-commons B, welch C, exact D), max relative difference
 * p X statistic Y"; exit 0 when all agree, 1 on a mismatch, 2 on unreadable input. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int parse_list(char *s, double **out, size_t *n)
{
	size_t cap = 16, k = 0;
	double *v = malloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (char *tok = strtok(s, " "); tok; tok = strtok(NULL, " ")) {
		char *end;
		double d = strtod(tok, &end);
		if (end == tok || *end) {
			free(v);
			return -EINVAL;
		}
		if (k == cap) {
			double *nv = realloc(v, 2 * cap * sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap *= 2;
		}
		v[k++] = d;
	}
	*out = v;
	*n = k;
	return 0;
}

/* Relative difference, 0 for equal values (including NaN with NaN and equal infinities), INFINITY when one
 * side is NaN or infinite and the other is not. */
static double rel_diff(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : INFINITY;
	if (a == b)
		return 0;
	if (isinf(a) || isinf(b))
		return INFINITY;
	return fabs(a - b) / fmax(fabs(a), fabs(b));
}

int main(int argc, char **argv)
{
	double tol = 1e-9;
	int ai = 1;
	if (argc == 4 && !strcmp(argv[1], "--tol")) {
		tol = strtod(argv[2], NULL);
		ai = 3;
	}
	if (argc != ai + 1) {
		fprintf(stderr, "usage: stats_oracle_check [--tol REL] CASES.csv\n");
		return 2;
	}
	FILE *f = fopen(argv[ai], "r");
	if (!f) {
		fprintf(stderr, "stats_oracle_check: %s: %s\n", argv[ai], strerror(errno));
		return 2;
	}
	char *line = NULL;
	size_t cap = 0, lineno = 0, checked = 0, bad = 0, per[3] = { 0 }, exact = 0;
	double max_p = 0, max_s = 0;
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (lineno == 1)
			continue; /* header */
		char *fld[5];
		char *p = line;
		int nf = 0;
		for (; nf < 5 && p; nf++) {
			fld[nf] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = 0;
		}
		enum emp_stats_test t;
		double *x = NULL, *y = NULL;
		size_t nx = 0, ny = 0;
		if (nf != 5 || p || emp_stats_test_parse(fld[0], &t) || parse_list(fld[1], &x, &nx) ||
		    parse_list(fld[2], &y, &ny)) {
			fprintf(stderr, "stats_oracle_check: %s:%zu: malformed case\n", argv[ai], lineno);
			free(x);
			free(line);
			fclose(f);
			return 2;
		}
		double want_s = strtod(fld[3], NULL), want_p = strtod(fld[4], NULL);
		struct emp_stats_result r;
		int err = emp_stats_run(t, x, nx, y, ny, &r);
		double dp = err ? INFINITY : rel_diff(r.p, want_p), ds = err ? INFINITY : rel_diff(r.statistic, want_s);
		if (dp > tol || ds > tol) {
			bad++;
			printf("MISMATCH line %zu %s n=%zu,%zu: p %.17g want %.17g, statistic %.17g want %.17g (err %d)\n",
			       lineno, fld[0], nx, ny, err ? NAN : r.p, want_p, err ? NAN : r.statistic, want_s, err);
		}
		max_p = fmax(max_p, dp);
		max_s = fmax(max_s, ds);
		checked++;
		per[t]++;
		exact += !err && r.exact;
		free(x);
		free(y);
	}
	free(line);
	fclose(f);
	printf("checked %zu cases (mwu %zu, mwu-commons %zu, welch %zu, exact %zu), %zu mismatches, "
	       "max relative difference p %.3g statistic %.3g\n",
	       checked, per[EMP_STATS_MWU], per[EMP_STATS_MWU_COMMONS], per[EMP_STATS_WELCH], exact, bad, max_p, max_s);
	return bad || checked == 0 ? 1 : 0;
}
