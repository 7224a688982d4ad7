/* SPDX-License-Identifier: MIT */
/* latency_svg.h - the pictures of emp-analyze latency, one self-contained SVG with two panels:
 *  1. response time over due time for the first log: per pixel column the largest corrected latency (what the
 *     requests due then experienced) and the largest uncorrected one (what a tool timing from the write reports),
 *     with the GC pauses of the dump shaded (the SPECjbb2015 study's picture);
 *  2. the percentile distribution of every log (HdrHistogram's plot): latency (log axis, 0.01 ms up) over
 *     1/(1 − p) on a log axis from p = 0 to 99.999 %, corrected solid and uncorrected dashed, one colour per log. */
#ifndef EMP_LATENCY_SVG_H
#define EMP_LATENCY_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "latency.h"

/* emp_latency_svg_write - write the SVG to @out.  @logs: @nlogs logs (≥ 1); @gc: @ngc GC pauses and @sp: @nsp
 * other safepoint pauses on the logs' clock, sorted (either may be 0).  Return: 0, or -1 when writing failed. */
int emp_latency_svg_write(FILE *out, const struct emp_latency_log *logs, size_t nlogs,
			  const struct emp_latency_pause *gc, size_t ngc, const struct emp_latency_pause *sp, size_t nsp);

#endif /* EMP_LATENCY_SVG_H */
