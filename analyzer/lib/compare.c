/* SPDX-License-Identifier: MIT */
/* compare.c - per-node verdicts base vs new; see compare.h. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *emp_compare_verdict_name(enum emp_compare_verdict v)
{
	return v == EMP_COMPARE_SLOWER ? "slower" : v == EMP_COMPARE_FASTER ? "faster" : "unchanged";
}

static int cmp_rows(const void *a, const void *b)
{
	const struct emp_compare_row *x = a, *y = b;
	int cx = x->verdict != EMP_COMPARE_UNCHANGED, cy = y->verdict != EMP_COMPARE_UNCHANGED;
	if (cx != cy)
		return cy - cx;
	if (cx) {
		if (x->n->depth != y->n->depth)
			return x->n->depth < y->n->depth ? 1 : -1;
		if (x->res.p != y->res.p)
			return x->res.p < y->res.p ? -1 : 1;
	} else if (x->n->depth != y->n->depth) {
		return x->n->depth < y->n->depth ? -1 : 1;
	}
	return strcmp(x->path, y->path);
}

void emp_compare_sort(struct emp_compare_row *rows, size_t n)
{
	qsort(rows, n, sizeof(*rows), cmp_rows);
}

size_t emp_compare_mark_causes(struct emp_compare_row *rows, size_t n, uint32_t nnodes)
{
	unsigned char *changed_below = emp_xcalloc(nnodes, 1);
	for (size_t i = 0; i < n; i++)
		if (rows[i].verdict != EMP_COMPARE_UNCHANGED)
			for (struct emp_cct_node *p = rows[i].n->parent; p; p = p->parent)
				changed_below[p->id] = 1;
	size_t ncause = 0;
	for (size_t i = 0; i < n; i++) {
		rows[i].cause = rows[i].verdict != EMP_COMPARE_UNCHANGED && !changed_below[rows[i].n->id];
		ncause += (size_t)rows[i].cause;
	}
	free(changed_below);
	return ncause;
}

/* Kalibera-Jones of node @id over the VMs of @group. */
static void kj_of(const struct emp_iter_set *s, unsigned group, uint32_t id, double vm_cost,
		  struct emp_stats_kj *kj)
{
	size_t *n = emp_xcalloc(s->nvms, sizeof(*n)), k = 0;
	double *mean = emp_xcalloc(s->nvms, sizeof(*mean)), *var = emp_xcalloc(s->nvms, sizeof(*var));
	for (size_t i = 0; i < s->nvms; i++) {
		if (s->vms[i].group != group)
			continue;
		n[k] = s->vms[i].iterations;
		mean[k] = emp_iter_value(&s->vms[i], id);
		var[k++] = emp_iter_var(&s->vms[i], id);
	}
	if (emp_stats_kj_summary(n, mean, var, k, vm_cost, kj))
		memset(kj, 0, sizeof(*kj));
	free(n);
	free(mean);
	free(var);
}

/* Node @id's per-VM values by group into @v (scratch of s->nvms each), their counts into @k; return in @m each
 * group's mean. */
static void values_of(const struct emp_iter_set *s, uint32_t id, double *v[2], size_t k[2], double m[2])
{
	k[0] = k[1] = 0;
	for (size_t i = 0; i < s->nvms; i++)
		v[s->vms[i].group][k[s->vms[i].group]++] = emp_iter_value(&s->vms[i], id);
	m[0] = emp_stats_mean(v[0], k[0]);
	m[1] = emp_stats_mean(v[1], k[1]);
}

/* The test, interval and verdict of node @n from the per-VM values @v of both groups, @k of each, means @m. */
static void test_node(const struct emp_compare_opts *o, struct emp_cct_node *n, double *v[2], const size_t k[2],
		      const double m[2], struct emp_compare_row *r)
{
	r->n = n;
	r->base_mean = m[0];
	r->new_mean = m[1];
	if (emp_stats_run(o->test, v[0], k[0], v[1], k[1], &r->res))
		r->res.p = NAN;
	if (emp_stats_boot_ratio(v[1], k[1], v[0], k[0], o->resamples, 0.95, o->seed + n->id, &r->ratio))
		r->ratio = (struct emp_stats_ci){ NAN, NAN, NAN };
	if (r->res.p < o->alpha)
		r->verdict = m[1] > m[0] ? EMP_COMPARE_SLOWER : m[1] < m[0] ? EMP_COMPARE_FASTER : EMP_COMPARE_UNCHANGED;
}

void emp_compare_run(const struct emp_iter_set *s, const struct emp_compare_opts *o, struct emp_compare *out)
{
	memset(out, 0, sizeof(*out));
	uint32_t nn = emp_cct_size(s->cct);
	out->iteration = emp_cct_root(s->cct)->first_child;
	double *v[2] = { emp_xcalloc(s->nvms, sizeof(double)), emp_xcalloc(s->nvms, sizeof(double)) }, m[2];
	size_t k[2];
	/* The --min-pct cut first: the tests and their bootstrap run only on the nodes above it (a whole-program
	 * trace has millions of nodes, nearly all of them far below). */
	double root_mean = 0;
	if (out->iteration) {
		values_of(s, out->iteration->id, v, k, m);
		root_mean = fmax(m[0], m[1]);
	}
	struct emp_compare_row *rows = NULL;
	uint32_t nrows = 0, cap = 0;
	for (uint32_t id = 1; id < nn && root_mean > 0; id++) {
		values_of(s, id, v, k, m);
		if (fmax(m[0], m[1]) < o->min_pct / 100.0 * root_mean)
			continue;
		rows = emp_xgrow(rows, &cap, nrows + 1, sizeof(*rows));
		test_node(o, emp_cct_node(s->cct, id), v, k, m, &rows[nrows++]);
	}
	free(v[0]);
	free(v[1]);
	/* root causes among what is left */
	out->ncause = emp_compare_mark_causes(rows, nrows, nn);
	for (size_t i = 0; i < nrows; i++) {
		struct emp_compare_row *r = &rows[i];
		out->nchanged += r->verdict != EMP_COMPARE_UNCHANGED;
		r->path = emp_iter_node_path(s, r->n);
		kj_of(s, 0, r->n->id, o->vm_cost, &r->kj[0]);
		kj_of(s, 1, r->n->id, o->vm_cost, &r->kj[1]);
	}
	emp_compare_sort(rows, nrows);
	out->rows = rows;
	out->nrows = nrows;
}

void emp_compare_free(struct emp_compare *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i].path);
	free(c->rows);
	memset(c, 0, sizeof(*c));
}
