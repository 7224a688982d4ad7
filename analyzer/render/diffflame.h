/* SPDX-License-Identifier: MIT */
/* diffflame.h - the differential flame graph of `emp-analyze compare --flame`: the base version's calling-context
 * tree as a flame graph (flame.h), frame width the node's mean per-VM value over the base VMs, each frame coloured
 * by its verdict from compare.h:
 *   slower     red   rgb(255,c,c)     c = round(215 * (1 - t)), t = 0.3 + 0.7 * min(1, |log2 ratio|)
 *   faster     blue  rgb(c,d,255)     d = (c + 255) / 2, so black text stays readable on the deepest blue
 *                                     (ratio new/base: full colour at 2x either way, pale pink/blue just past 1)
 *   unchanged  grey  rgb(200,200,200) (tested, not significant)
 *   untested   pale  rgb(235,235,235) (under --min-pct, no row)
 * Root causes are outlined.  The tooltip gives the verdict, the ratio with its 95 % interval, the p-value and both
 * means.  Only significant nodes are coloured, so noise stays grey (unlike FlameGraph's difffolded).  Nodes the
 * base never reached (base mean 0) have no frame; the subtitle counts the changed ones among them. */
#ifndef EMP_DIFFFLAME_H
#define EMP_DIFFFLAME_H

#include <stdio.h>

#include "compare.h"
#include "iterations.h"

/* emp_diffflame_write - the SVG of @c (computed by emp_compare_run() on @s with @o) to @out; @unit names the
 * values ("ns", "samples").  Return: 0, or -1 when writing failed. */
int emp_diffflame_write(FILE *out, const struct emp_iter_set *s, const struct emp_compare *c,
			const struct emp_compare_opts *o, const char *unit);

#endif /* EMP_DIFFFLAME_H */
