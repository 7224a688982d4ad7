/* SPDX-License-Identifier: MIT */
/* timings.h - the run files of a directory, and java-sut --timings files (the SUT's own per-iteration times).
 *
 * A timing file is what java-sut's `--timings FILE` writes (java-sut/README.md): the header line
 * "iteration,duration_ns", then one row "N,NS" per measured iteration, N counted from 0 without gaps, NS the
 * System.nanoTime() difference around the call; CRLF line ends are accepted.  CallTree writes no row for its
 * warm-up iterations, so the first row is the first measured iteration.
 *
 * An emp-run directory holds no timing file: its runs' own process or elapsed times are in the experiment's
 * manifest (emp_timings_runs()).
 *
 * Users: `overhead` (pure and measured variants) and iterations.h (`compare` and `exactness` on timing sets).
 * Not thread-safe; messages go to stderr through emp_errorf() (util.h).
 */
#ifndef EMP_TIMINGS_H
#define EMP_TIMINGS_H

#include <stddef.h>

/* emp_timings_list - the run files of directory @dir: the regular files (symbolic links followed) whose name
 * ends in @suffix (".csv", ".emp") and is longer than it, as malloc'ed "DIR/NAME" strings in name order (strcmp)
 * in the malloc'ed array *@paths (NULL when there are none); free with emp_timings_list_free().
 * Return: the number of files, or -1 after printing one line ("DIR: <strerror>") when @dir cannot be read. */
int emp_timings_list(const char *dir, const char *suffix, char ***paths);
/* emp_timings_list_free - free the @n paths of emp_timings_list() and their array. */
void emp_timings_list_free(char **paths, size_t n);

/* emp_timings_read - the durations (ns) of the timing file @path after its first @warmup rows, in file order,
 * into the malloc'ed array *@ns (*@n of them, at least 1).
 * Return: 0, or -1 after printing one line naming the file (and the line for a bad row): unreadable, empty, a
 * header other than "iteration,duration_ns", a row that is not two non-negative integers, an iteration number out
 * of order, no row left after the warm-up.  *@ns is NULL after an error. */
int emp_timings_read(const char *path, unsigned long warmup, double **ns, size_t *n);

/* What a run of emp-run (runner/manifest.h) counts as its value: its process time (user + sys, cpu_s) or its
 * elapsed time (elapsed_s). */
enum emp_timings_run_time { EMP_TIMINGS_RUN_CPU, EMP_TIMINGS_RUN_ELAPSED };

/* emp_timings_runs - the runs of the emp-run directory @dir = EXP/<mode>/<version> from the manifest
 * EXP/runs.csv (runs.h emp_runs_read()): per
 * vm the row of its last attempt (the one whose files are in @dir), its cpu_s or elapsed_s (@which) in ns, in vm
 * order, into the malloc'ed arrays *@ns and *@labels ("DIR/vmK", malloc'ed; free with emp_timings_list_free()).
 * Return: the number of runs (>= 1); 0 when EXP/runs.csv does not exist (@dir is no emp-run directory); -1 after
 * printing one line: emp_runs_read() refused the manifest, no row for this mode and version, a run whose last
 * attempt failed (exit status not 0). */
int emp_timings_runs(const char *dir, enum emp_timings_run_time which, char ***labels, double **ns);

#endif /* EMP_TIMINGS_H */
