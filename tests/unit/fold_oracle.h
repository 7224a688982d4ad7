/* SPDX-License-Identifier: MIT */
/* fold_oracle.h - trace_fold.h checked against trace.h: a trace dump's figures computed both ways (every event
 * through trace.h, and the chunks folded on workers and merged), and their first difference.  Used by the unit test
 * trace_fold/ on generated dumps and by the fuzz target tests/fuzz/fuzz_trace_fold.c on any input; no Criterion. */
#ifndef EMP_TEST_FOLD_ORACLE_H
#define EMP_TEST_FOLD_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "calls.h"
#include "dump_reader.h"
#include "flat.h"
#include "trace.h"

/* What the views compute of a trace: validation counts, the traced time, per-method figures, the tree. */
struct emp_fold_figures {
	struct emp_trace_stats st;
	uint64_t self_ns, last_ticks;
	uint64_t events;              /* the fold's: ENTER, EXIT and EXIT_THROW events */
	struct emp_calls_method *m;   /* by dump-local method id */
	uint32_t cap;
	struct emp_symtab *symtab;
	struct emp_cct *cct;
	struct emp_flat flat;         /* by the symtab's ids: trace.h's made from the tree (no limit), the fold's own */
	enum emp_dump_status status;  /* where the reading ended */
};

void emp_fold_figures_free(struct emp_fold_figures *x);

/* emp_fold_limit - the trees made from now on keep at most @max_nodes nodes (emp_cct_limit; 0: no limit). */
void emp_fold_limit(uint32_t max_nodes);

/* emp_fold_serial - @path's figures, every event through trace.h.  Return: 0, or -1 when it cannot be opened. */
int emp_fold_serial(const char *path, struct emp_fold_figures *x);

/* What a fold makes besides the validation counts and the traced time: each combination is a loop of its own in
 * trace_fold.c (`calls` folds the methods, the tree views the tree, `top` the flat figures with no tree). */
enum { EMP_FOLD_METHODS = 1, EMP_FOLD_TREE = 2, EMP_FOLD_BOTH = 3, EMP_FOLD_FLAT = 4 };

/* emp_fold_folded - @path's figures through trace_fold.h with @jobs workers at @hz, making @what.  Return: 0, or
 * -1 when it cannot be opened or the fold handed the dump back (what the views then read through trace.h). */
int emp_fold_folded(const char *path, unsigned jobs, double hz, unsigned what, struct emp_fold_figures *x);

/* emp_fold_diff - the first figure of @what where @a and @b differ, said in @buf; NULL when they agree. */
const char *emp_fold_diff(const struct emp_fold_figures *a, const struct emp_fold_figures *b, unsigned what,
			  char *buf, size_t len);

#endif /* EMP_TEST_FOLD_ORACLE_H */
