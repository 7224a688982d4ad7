/* SPDX-License-Identifier: MIT */
/* compare.h - per calling-context-tree node, did the new version get slower or faster than the base (design.md
 * §5)?  The verdicts `emp-analyze compare` prints, from the per-VM node values of an iteration set (iterations.h;
 * group 0 base, group 1 new) and the tests and intervals of stats.h.
 *
 * Per node: the base and new per-VM values are tested (two-sided), the ratio of means new/base gets a bootstrap
 * interval (95 %, seed + node id), and the verdict is slower / faster when p < alpha, else unchanged (a test that
 * gives no p-value, NaN, is unchanged).  Nodes whose larger mean is under min_pct % of the iteration method's (the
 * root's child) are left out; among the rest a root cause is a changed node none of whose descendants changed.
 * Rows come changed first, deepest first (then by p), the unchanged ones shallowest first; ties by path.
 */
#ifndef EMP_COMPARE_H
#define EMP_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "cct.h"
#include "iterations.h"
#include "stats.h"

enum emp_compare_verdict { EMP_COMPARE_FASTER = -1, EMP_COMPARE_UNCHANGED = 0, EMP_COMPARE_SLOWER = 1 };

struct emp_compare_opts {
	enum emp_stats_test test;
	double alpha;
	unsigned resamples;      /* bootstrap replicates of the ratio's interval */
	uint64_t seed;
	double min_pct;          /* only nodes reaching this % of the iteration method's mean */
	double vm_cost;          /* Kalibera-Jones: cost of a new VM in iterations */
};

struct emp_compare_row {
	struct emp_cct_node *n;
	char *path;              /* emp_iter_node_path() */
	double base_mean, new_mean;
	struct emp_stats_ci ratio;       /* new/base; NaN when the bootstrap could not run */
	struct emp_stats_result res;     /* p NaN when the test could not run */
	struct emp_stats_kj kj[2];       /* base, new; zero when there is no VM */
	enum emp_compare_verdict verdict;
	int cause;               /* a changed node none of whose descendants (among the rows) changed */
};

struct emp_compare {
	struct emp_compare_row *rows;
	size_t nrows;
	size_t nchanged, ncause;
	struct emp_cct_node *iteration;  /* the iteration method's node (the root's child) */
};

/* emp_compare_run - the rows of every node of @s (both groups loaded; at least one VM each).  Exits when out of
 * memory.  Free with emp_compare_free(). */
void emp_compare_run(const struct emp_iter_set *s, const struct emp_compare_opts *o, struct emp_compare *out);
void emp_compare_free(struct emp_compare *c);

/* emp_compare_mark_causes - set cause on the rows @rows[0..n) from their verdicts (nodes of a tree of @nnodes
 * nodes): a row is a root cause when it changed and no other row below it did.  Return: the number of causes. */
size_t emp_compare_mark_causes(struct emp_compare_row *rows, size_t n, uint32_t nnodes);

/* emp_compare_sort - the row order above. */
void emp_compare_sort(struct emp_compare_row *rows, size_t n);

/* "slower", "faster", "unchanged". */
const char *emp_compare_verdict_name(enum emp_compare_verdict v);

#endif /* EMP_COMPARE_H */
