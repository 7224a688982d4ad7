/* SPDX-License-Identifier: MIT */
/* runplot.h - the EMP picture of an emp-run experiment as a self-contained SVG: one point per run attempt, its
 * process time (cpu_s) across and its elapsed time up, one colour per (mode, version), disturbed runs ringed
 * in red, the disturbed rule's cutoff (elapsed = cpu / P x F + S) drawn dashed and elapsed = cpu / P dotted.
 * A point's tooltip names the run. */
#ifndef EMP_RUNPLOT_H
#define EMP_RUNPLOT_H

#include <stdio.h>

#include "runs.h"

/* emp_runplot_write - the picture of @r (at least one row) to @out. */
void emp_runplot_write(FILE *out, const struct emp_runs *r);

#endif /* EMP_RUNPLOT_H */
