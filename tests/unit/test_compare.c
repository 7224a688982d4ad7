/* SPDX-License-Identifier: MIT */
/* test_compare.c - compare's verdicts (analyzer/lib/compare.h): root-cause marking and row order on a constructed
 * calling-context tree, and the verdicts of a whole run on timing files whose difference is decided by
 * construction. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cct.h"
#include "compare.h"
#include "iterations.h"

/* The tree (gids in brackets):
 *   root - I[0] - A[1] - B[2] - C[3]
 *                      \ D[4] - E[5]
 *               \ F[6] - G[7]
 * The nodes are kept by name, the rows point into the tree. */
enum { I, A, B, C, D, E, F, G, NNODES };
static struct emp_cct *tree;
static struct emp_cct_node *node[NNODES];

static void build(void)
{
	tree = emp_cct_new();
	node[I] = emp_cct_child(tree, emp_cct_root(tree), I);
	node[A] = emp_cct_child(tree, node[I], A);
	node[B] = emp_cct_child(tree, node[A], B);
	node[C] = emp_cct_child(tree, node[B], C);
	node[D] = emp_cct_child(tree, node[A], D);
	node[E] = emp_cct_child(tree, node[D], E);
	node[F] = emp_cct_child(tree, node[I], F);
	node[G] = emp_cct_child(tree, node[F], G);
}

static void teardown(void)
{
	emp_cct_free(tree);
}

TestSuite(compare, .init = build, .fini = teardown);

/* Rows for the nodes @which (terminated by -1) with @verdict[i] each. */
static size_t rows_of(struct emp_compare_row *rows, const int *which, const int *verdict)
{
	size_t n = 0;
	for (; which[n] >= 0; n++)
		rows[n] = (struct emp_compare_row){ .n = node[which[n]], .verdict = verdict[n], .cause = -1 };
	return n;
}

Test(compare, root_cause_is_the_deepest_changed_node_of_each_path)
{
	/* C changed and everything above it changed with it: only C is the cause.  On the other branch of A, D changed
	 * but E did not: D is a cause.  F is unchanged, G faster: G.  I and A changed, but have changed nodes below. */
	const int which[] = { I, A, B, C, D, E, F, G, -1 };
	const int verdict[] = { 1, 1, 1, 1, 1, 0, 0, -1 };
	const int cause[] = { 0, 0, 0, 1, 1, 0, 0, 1 };
	struct emp_compare_row rows[NNODES];
	size_t n = rows_of(rows, which, verdict);
	cr_assert_eq(emp_compare_mark_causes(rows, n, emp_cct_size(tree)), 3);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(rows[i].cause, cause[i], "node %d: cause %d, expected %d", which[i], rows[i].cause,
			     cause[i]);
}

Test(compare, a_changed_node_whose_changed_descendant_was_cut_is_a_cause)
{
	/* C is not among the rows (--min-pct left it out): B, which changed, has no changed row below it. */
	const int which[] = { I, A, B, D, E, -1 };
	const int verdict[] = { 1, 1, 1, 0, 0 };
	const int cause[] = { 0, 0, 1, 0, 0 };
	struct emp_compare_row rows[NNODES];
	size_t n = rows_of(rows, which, verdict);
	cr_assert_eq(emp_compare_mark_causes(rows, n, emp_cct_size(tree)), 1);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(rows[i].cause, cause[i], "node %d", which[i]);
}

Test(compare, nothing_changed_no_cause)
{
	const int which[] = { I, A, B, C, -1 };
	const int verdict[] = { 0, 0, 0, 0 };
	struct emp_compare_row rows[NNODES];
	size_t n = rows_of(rows, which, verdict);
	cr_assert_eq(emp_compare_mark_causes(rows, n, emp_cct_size(tree)), 0);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(rows[i].cause, 0);
}

Test(compare, rows_changed_first_deepest_first_then_by_p)
{
	/* changed, deepest first: E and C (depth 4; E has the smaller p), G (3), A (2); then unchanged, shallowest
	 * first: I (1), F (2), B and D (3, by path) */
	const int which[] = { I, A, B, C, D, E, F, G, -1 };
	const int verdict[] = { 0, 1, 0, -1, 0, 1, 0, 1 };
	const double p[] = { 0.5, 0.001, 0.3, 0.004, 0.2, 0.002, 0.9, 0.003 };
	const char *const path[] = { "I", "I;A", "I;A;B", "I;A;B;C", "I;A;D", "I;A;D;E", "I;F", "I;F;G" };
	struct emp_compare_row rows[NNODES];
	size_t n = rows_of(rows, which, verdict);
	for (size_t i = 0; i < n; i++) {
		rows[i].res.p = p[i];
		rows[i].path = (char *)path[i];
	}
	emp_compare_sort(rows, n);
	const int order[] = { E, C, G, A, I, F, B, D };
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(rows[i].n, node[order[i]], "row %zu is %s, expected node %d", i, rows[i].path, order[i]);
}

Test(compare, verdict_names)
{
	cr_expect_str_eq(emp_compare_verdict_name(EMP_COMPARE_SLOWER), "slower");
	cr_expect_str_eq(emp_compare_verdict_name(EMP_COMPARE_FASTER), "faster");
	cr_expect_str_eq(emp_compare_verdict_name(EMP_COMPARE_UNCHANGED), "unchanged");
}

/* A timing file (pure mode) of 4 iterations around @mean. */
static void timing_file(const char *path, double mean)
{
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fprintf(f, "iteration,duration_ns\n");
	for (int i = 0; i < 4; i++)
		fprintf(f, "%d,%.0f\n", i, mean + (i % 2 ? 3 : -3));
	cr_assert_eq(fclose(f), 0);
}

/* A whole run over pure sets: 4 base VMs at 1000..1030 ns, 4 new VMs at 2000..2030 (every new VM slower than
 * every base VM: Welch's p is far below 0.01), or at the base's values (nothing changed). */
static void run(double shift, struct emp_compare *c, struct emp_iter_set **s)
{
	char dir[] = "/tmp/emp-compare-XXXXXX";
	cr_assert(mkdtemp(dir));
	static const struct emp_iter_opts io = { 0 };
	*s = emp_iter_new(&io);
	char path[64];
	for (unsigned g = 0; g < 2; g++)
		for (int vm = 0; vm < 4; vm++) {
			snprintf(path, sizeof(path), "%s/g%u-vm%d.csv", dir, g, vm);
			timing_file(path, 1000 + 10 * vm + (g ? shift : 0));
			cr_assert_eq(emp_iter_load_timings(*s, g, path), 0);
			unlink(path);
		}
	rmdir(dir);
	const struct emp_compare_opts o = { .test = EMP_STATS_WELCH, .alpha = 0.01, .resamples = 100, .seed = 1,
					    .min_pct = 1, .vm_cost = 1 };
	emp_compare_run(*s, &o, c);
}

Test(compare, run_flags_a_doubled_iteration_slower_and_its_own_root_cause)
{
	struct emp_compare c;
	struct emp_iter_set *s;
	run(1000, &c, &s);
	cr_assert_eq(c.nrows, 1);
	cr_expect_eq(c.rows[0].n, c.iteration);
	cr_expect_str_eq(c.rows[0].path, "iteration");
	cr_expect_eq(c.rows[0].verdict, EMP_COMPARE_SLOWER);
	cr_expect_eq(c.rows[0].cause, 1);
	cr_expect_eq(c.nchanged, 1);
	cr_expect_eq(c.ncause, 1);
	cr_expect_float_eq(c.rows[0].base_mean, 1015.0, 1e-9);
	cr_expect_float_eq(c.rows[0].new_mean, 2015.0, 1e-9);
	cr_expect(c.rows[0].res.p < 1e-6, "p = %g", c.rows[0].res.p);
	cr_expect_eq(c.rows[0].kj[0].vms, 4);
	cr_expect_eq(c.rows[0].kj[1].vms, 4);
	emp_compare_free(&c);
	emp_iter_free(s);
}

Test(compare, run_on_equal_sets_flags_nothing)
{
	struct emp_compare c;
	struct emp_iter_set *s;
	run(0, &c, &s);
	cr_assert_eq(c.nrows, 1);
	cr_expect_eq(c.rows[0].verdict, EMP_COMPARE_UNCHANGED);
	cr_expect_eq(c.rows[0].cause, 0);
	cr_expect_eq(c.nchanged, 0);
	cr_expect_float_eq(c.rows[0].ratio.point, 1.0, 1e-12);
	emp_compare_free(&c);
	emp_iter_free(s);
}
