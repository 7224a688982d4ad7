/* SPDX-License-Identifier: MIT */
/* fuzz_trace_fold.c - libFuzzer target for the analyzer's trace reading: every input (a dump file or a structured
 * input, structured.h) is read through trace.h event by event and folded through trace_fold.h with one worker and
 * with two (each of the fold's loops: methods and tree, methods only, tree only, the flat figures), under ASan and
 * UBSan (`make fuzz`).  Besides "no crash", the fold must agree with trace.h on every figure it makes (validation
 * counts, traced time, per-method calls, times and histograms, the tree node by node, the flat profile method by
 * method) unless it hands the dump back, which the views then read through trace.h (fold_oracle.h).  Then the
 * input as both versions of a comparison (iterations.h, the same limit): read twice, it must give both sides the
 * same value on every node, prunes and the second reading included. */
#include <stdint.h>
#include <stdio.h>

#include "dump_reader.h"
#include "fold_oracle.h"
#include "iterations.h"
#include "structured.h"

/* The rate of the dump's first events, as emp_trace_fold_probe() gives it to the views but whatever the META
 * `mode` says: the fold must hold on any input.  0 when nothing is read. */
static double start_rate(const char *path)
{
	struct emp_dump_reader *r;
	struct emp_event ev;
	char err[512];
	double hz = 0;
	if (emp_dump_reader_open(path, &r, err, sizeof(err)))
		return 0;
	if (emp_dump_reader_next(r, &ev))
		hz = emp_dump_clock_hz(r);
	emp_dump_reader_close(r);
	return hz;
}

/* The dump at @path as the base and the new version of a comparison: every node's value the same on both sides. */
static void compare_itself(const char *path, uint32_t limit)
{
	struct emp_iter_opts o = { .max_contexts = limit };
	struct emp_iter_set *s = emp_iter_new(&o);
	if (!emp_iter_load(s, NULL, 0, path) && !emp_iter_load(s, NULL, 1, path) && !emp_iter_settle(s, NULL)) {
		CHECK(s->nvms == 2);
		for (uint32_t id = 0; id < emp_cct_size(s->cct); id++) {
			double a = emp_iter_value(&s->vms[0], id), b = emp_iter_value(&s->vms[1], id);
			if (a != b && !(a != a && b != b))
				fprintf(stderr, "fuzz_trace_fold: compare: node %u: %g in base, %g in new\n", id, a, b);
			CHECK(a == b || (a != a && b != b));
		}
	}
	emp_iter_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = emp_fuzz_input_path(data, &size);
	struct emp_fold_figures want, got;
	/* every other input's trees have a small limit, so that their prunes are compared too (the flat figures,
	 * made from trace.h's tree, then need it whole) */
	const uint32_t limit = (size / 4) % 2 ? 48 : 0;
	emp_fold_limit(limit);
	if (emp_fold_serial(path, &want))
		return 0; /* not a dump: the reader's own target checks how it says so */
	double hz = start_rate(path);
	for (unsigned jobs = 1; hz > 0 && jobs <= 2; jobs++) {
		/* one worker makes both; two make what the input's size picks: each of the fold's four loops */
		unsigned what = jobs == 1 ? EMP_FOLD_BOTH : 1 + (unsigned)(size % 4);
		if (limit && what == EMP_FOLD_FLAT)
			what = EMP_FOLD_TREE;
		if (!emp_fold_folded(path, jobs, hz, what, &got)) {
			char diff[256];
			const char *d = emp_fold_diff(&want, &got, what, diff, sizeof(diff));
			if (d)
				fprintf(stderr, "fuzz_trace_fold: %u jobs, making %u: %s\n", jobs, what, d);
			CHECK(d == NULL);
		}
		emp_fold_figures_free(&got);
	}
	emp_fold_figures_free(&want);
	compare_itself(path, limit ? 8 : 0); /* small: a prune in most multi-chunk dumps */
	return 0;
}
