/* SPDX-License-Identifier: MIT */
/* flat.h - the flat profile (`top`): per method its self and total figures and its calls, by global symbol id.
 *
 * total counts what a method's outermost frames hold: a sample once however often the method is on its stack, a
 * traced call only when no call of the same method encloses it (a recursive method's inner calls are inside its
 * outer one's time already).  A sampled profile is made from its calling-context tree (emp_flat_add_tree); a trace
 * needs no tree: trace_fold.h makes the same figures chunk by chunk in the memory of `calls`
 * (emp_trace_fold_collect_flat), where javac traced wholesale makes a tree of 10 M contexts and 1.2 GB. */
#ifndef EMP_FLAT_H
#define EMP_FLAT_H

#include <stdint.h>

#include "cct.h"

struct emp_flat_row {
	uint64_t self, total, calls;
};

struct emp_flat {
	struct emp_flat_row *rows; /* by gid, cap of them (zeroed) */
	uint32_t cap;
	uint64_t all;              /* the profile's whole: samples, or the root calls' traced time */
};

/* emp_flat_row - @gid's row, the table grown to hold it.  Exits when out of memory. */
struct emp_flat_row *emp_flat_row(struct emp_flat *fl, uint32_t gid);
/* emp_flat_add_tree - add the figures of every node of @cct weighed by @w, its calls, and its root's total to
 * fl->all. */
void emp_flat_add_tree(struct emp_flat *fl, const struct emp_cct *cct, enum emp_cct_weight w);
void emp_flat_free(struct emp_flat *fl);

#endif /* EMP_FLAT_H */
