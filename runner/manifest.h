/* SPDX-License-Identifier: MIT */
/* manifest.h - DIR/runs.csv, one row per finished run attempt, appended and fsync'ed as each run ends, so that
 * Ctrl-C or a crash loses no finished run and `resume` never runs one twice.
 *
 * Columns (header EMP_MANIFEST_HEADER): index (the plan index, experiment.h), mode, version, vm, attempt (1, then
 * 2... for a rerun of a disturbed or failed run; every attempt keeps its row, the first included), exit (the
 * program's exit status, 128 + N when signal N ended it), elapsed_s (fork to wait4, CLOCK_MONOTONIC), cpu_s =
 * user_s + sys_s (wait4's rusage of the run: the JVM and every process it waited for), voluntary_cs,
 * involuntary_cs (context switches, rusage), load_before, load_after (1-minute load average), cpus (the CPU set
 * it ran on, e.g. "0-1" or "0 2": blank-separated ranges), disturbed (1 when emp_experiment_disturbed()).
 * Times in seconds with 6 decimals (rusage's microseconds).
 *
 * A run is done when its last attempt exited 0 and was not disturbed, or was disturbed with every rerun
 * (--rerun-disturbed) used.  A failed run (exit != 0) is not done: `resume` runs it again. */
#ifndef EMP_MANIFEST_H
#define EMP_MANIFEST_H

#include <stddef.h>

#include "experiment.h"

#define EMP_MANIFEST_HEADER                                                                                    \
	"index,mode,version,vm,attempt,exit,elapsed_s,cpu_s,user_s,sys_s,voluntary_cs,involuntary_cs,load_before," \
	"load_after,cpus,disturbed\n"

struct emp_manifest_row {
	size_t index;
	unsigned attempt;
	int exit;
	double elapsed, user, sys;
	long vcs, ivcs;
	double load_before, load_after;
	char cpus[128];
	int disturbed;
};

/* Per plan index: what the rows so far say. */
struct emp_manifest_state {
	unsigned attempts, disturbed;
	int last_exit, last_disturbed;
};

/* emp_manifest_format - the CSV line of @r (malloc'ed, newline-terminated). */
char *emp_manifest_format(const struct emp_experiment *e, const struct emp_manifest_row *r);
/* emp_manifest_read - add the rows of the manifest @path to @st[nruns]; with @rows, also keep each line (by
 * plan index, newline included, later attempts appended) for emp-run's Slurm merge.  A missing file adds nothing.
 * Return: rows read, or -1 after printing one line (a header other than EMP_MANIFEST_HEADER, a row that does
 * not parse or does not match the plan's run of its index). */
int emp_manifest_read(const struct emp_experiment *e, const char *path, struct emp_manifest_state *st, char **rows);
/* emp_manifest_done - whether the run with state @s needs no more attempts. */
int emp_manifest_done(const struct emp_experiment *e, const struct emp_manifest_state *s);
/* emp_manifest_add - account the row @r in @st. */
void emp_manifest_add(struct emp_manifest_state *st, const struct emp_manifest_row *r);

#endif /* EMP_MANIFEST_H */
