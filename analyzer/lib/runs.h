/* SPDX-License-Identifier: MIT */
/* runs.h - an emp-run experiment as the analyzer reads it: EXP/runs.csv (runner/manifest.h; columns found by
 * their header names) and the disturbed rule's parameters from EXP/experiment.conf (runner/experiment.h).
 * Users: timings.h emp_timings_runs() (pure sets of compare, exactness, overhead) and `report`. */
#ifndef EMP_RUNS_H
#define EMP_RUNS_H

#include <stddef.h>

struct emp_runs_row {
	char *mode, *version;
	unsigned long vm, attempt;
	long exit;
	double elapsed, cpu;      /* seconds */
	int disturbed;
};

struct emp_runs {
	struct emp_runs_row *rows; /* file order */
	size_t nrows;
	char **modes, **versions;  /* in order of first appearance */
	size_t nmodes, nversions;
	double factor, slack, threads; /* disturbed: elapsed > cpu / threads * factor + slack (s) */
};

/* emp_runs_read - read @exp/runs.csv and @exp/experiment.conf (the rule's defaults 1.1, 0.05 s, 1 when it does
 * not say).  Return: 0; 1 when @exp/runs.csv does not exist; -1 after printing one line: unreadable, a header
 * without the columns mode, version, vm, attempt, exit, elapsed_s, cpu_s, disturbed, a row that does not parse. */
int emp_runs_read(const char *exp, struct emp_runs *r);
void emp_runs_free(struct emp_runs *r);

#endif /* EMP_RUNS_H */
