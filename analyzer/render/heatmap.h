/* SPDX-License-Identifier: MIT */
/* heatmap.h - the F1 grids of `exactness` (exactness.h) as one self-contained SVG file: one panel per node, VMs
 * per version on x, iterations per VM on y (the largest count on top), cells coloured by F1 from red (0) through
 * yellow (0.5) to green (1) and outlined when F1 is above the threshold; a <title> tooltip per cell gives F1, P,
 * R and the four counts.  Text is XML-escaped. */
#ifndef EMP_HEATMAP_H
#define EMP_HEATMAP_H

#include <stddef.h>

#include "exactness.h"

/* One panel: a node's grid. */
struct emp_heatmap_panel {
	const char *title;                        /* the node's path */
	const struct emp_exactness_cell *cells;   /* [niters][nk], row i for iters[i], column k for kmin + k VMs */
};

struct emp_heatmap {
	const struct emp_heatmap_panel *panels;
	size_t npanels;
	const unsigned *iters;   /* the iteration counts of the rows, ascending */
	size_t niters;
	size_t kmin, nk;         /* the VM counts of the columns: kmin .. kmin + nk - 1 */
	double threshold;        /* F1 above it is outlined */
	const char *subtitle;    /* one line under the title */
};

/* emp_heatmap_write - write @h as SVG to @file.  Return: 0, or -1 after printing one line (cannot create or
 * write the file). */
int emp_heatmap_write(const char *file, const struct emp_heatmap *h);

#endif /* EMP_HEATMAP_H */
