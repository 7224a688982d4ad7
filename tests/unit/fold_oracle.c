/* SPDX-License-Identifier: MIT */
/* fold_oracle.c - see fold_oracle.h. */
#include "fold_oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cct.h"
#include "symtab.h"
#include "trace_fold.h"

static uint32_t max_nodes; /* emp_fold_limit() */

void emp_fold_limit(uint32_t n)
{
	max_nodes = n;
}

void emp_fold_figures_free(struct emp_fold_figures *x)
{
	for (uint32_t k = 0; k < x->cap; k++)
		emp_calls_free(&x->m[k]);
	free(x->m);
	emp_cct_free(x->cct);
	emp_flat_free(&x->flat);
	emp_symtab_free(x->symtab);
	memset(x, 0, sizeof(*x));
}

static struct emp_calls_method *slot(void *arg, uint32_t method)
{
	struct emp_fold_figures *x = arg;
	if (method >= x->cap)
		x->m = emp_calls_table_grow(x->m, &x->cap, method + 1);
	return &x->m[method];
}

struct serial_ctx {
	struct emp_fold_figures *x;
	struct emp_dump_reader *r;
	struct emp_trace_clock clock;
	struct emp_trace_cct tc;
};

static void on_enter(void *arg, struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	struct serial_ctx *sc = arg;
	emp_trace_cct_ops.on_enter(&sc->tc, c, parent);
}

static void on_call(void *arg, const struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	struct serial_ctx *sc = arg;
	emp_trace_cct_ops.on_call(&sc->tc, c, parent);
	uint64_t dur = c->tout >= c->tin ? c->tout - c->tin : 0;
	uint64_t self = dur >= c->child_ticks ? dur - c->child_ticks : 0;
	emp_trace_clock_sync(&sc->clock, sc->r);
	uint64_t self_ns = emp_trace_clock_ns(&sc->clock, self);
	sc->x->self_ns += self_ns;
	emp_calls_add(slot(sc->x, c->method), emp_trace_clock_ns(&sc->clock, dur), self_ns, c->threw);
}

/* Open @path for @x: its symbol table and tree made, @map set to the reader's symbols.  Return: the reader, or
 * NULL. */
static struct emp_dump_reader *open_for(const char *path, struct emp_fold_figures *x, struct emp_symtab_map **map)
{
	struct emp_dump_reader *r;
	char err[512];
	memset(x, 0, sizeof(*x));
	if (emp_dump_reader_open(path, &r, err, sizeof(err)))
		return NULL;
	x->symtab = emp_symtab_new();
	x->cct = emp_cct_new();
	if (max_nodes)
		emp_cct_limit(x->cct, max_nodes, emp_symtab_intern(x->symtab, EMP_FRAME_PSEUDO, 0, "", "[more]", ""));
	*map = emp_symtab_map_new(x->symtab, r);
	return r;
}

int emp_fold_serial(const char *path, struct emp_fold_figures *x)
{
	struct emp_symtab_map *map;
	struct emp_dump_reader *r = open_for(path, x, &map);
	if (!r)
		return -1;
	struct serial_ctx sc = { .x = x, .r = r, .tc = { .cct = x->cct, .map = map, .r = r } };
	static const struct emp_trace_ops ops = { .on_enter = on_enter, .on_call = on_call };
	struct emp_trace *t = emp_trace_new(&ops, &sc);
	struct emp_event e;
	while (emp_dump_reader_next(r, &e)) {
		emp_trace_cct_prune(t, &sc.tc); /* where the fold prunes its tree */
		x->last_ticks = e.ticks > x->last_ticks ? e.ticks : x->last_ticks;
		emp_trace_event(t, &e);
	}
	x->status = emp_dump_reader_status(r);
	emp_trace_close_open(t, x->last_ticks, emp_trace_cct_ops.on_call, &sc.tc); /* as the profile views do */
	emp_trace_finish(t, r);
	x->st = *emp_trace_stats(t);
	emp_flat_add_tree(&x->flat, x->cct, EMP_CCT_NS);
	emp_trace_free(t);
	emp_symtab_map_free(map);
	emp_dump_reader_close(r);
	return 0;
}

int emp_fold_folded(const char *path, unsigned jobs, double hz, unsigned what, struct emp_fold_figures *x)
{
	struct emp_symtab_map *map;
	struct emp_dump_reader *r = open_for(path, x, &map);
	if (!r)
		return -1;
	unsigned want = what & EMP_FOLD_FLAT ? EMP_TRACE_FOLD_FLAT : what & EMP_FOLD_METHODS ? EMP_TRACE_FOLD_METHODS : 0;
	struct emp_trace_fold *f = emp_trace_fold_new(r, jobs, hz, want, what & EMP_FOLD_TREE ? x->cct : NULL, map);
	int rc;
	while ((rc = emp_trace_fold_next(f, NULL, NULL)) > 0)
		;
	x->status = emp_dump_reader_status(r);
	if (!rc)
		rc = emp_trace_fold_finish(f, &x->st, &x->self_ns, &x->last_ticks, &x->events);
	if (!rc && (what & EMP_FOLD_METHODS))
		emp_trace_fold_collect(f, slot, x);
	if (!rc && (what & EMP_FOLD_FLAT))
		rc = emp_trace_fold_collect_flat(f, &x->flat);
	emp_trace_fold_free(f);
	emp_symtab_map_free(map);
	emp_dump_reader_close(r);
	return rc;
}

/* Return from emp_fold_diff() saying "WHAT: x against y" when @x and @y differ; WHAT is printf's format and args. */
#define DIFF(x, y, ...)                                                                                        \
	do {                                                                                                   \
		if ((x) != (y)) {                                                                              \
			char what_[96];                                                                        \
			snprintf(what_, sizeof(what_), __VA_ARGS__);                                           \
			snprintf(buf, len, "%s: %llu against %llu", what_, (unsigned long long)(x),            \
				 (unsigned long long)(y));                                                     \
			return buf;                                                                            \
		}                                                                                              \
	} while (0)

const char *emp_fold_diff(const struct emp_fold_figures *a, const struct emp_fold_figures *b, unsigned what,
			  char *buf, size_t len)
{
	DIFF(a->status, b->status, "status");
	DIFF(a->st.calls, b->st.calls, "calls");
	DIFF(a->st.traces, b->st.traces, "traces");
	DIFF(a->st.threw, b->st.threw, "threw");
	DIFF(a->st.unclosed, b->st.unclosed, "unclosed");
	DIFF(a->st.never_closed, b->st.never_closed, "never_closed");
	DIFF(a->st.exit_without_entry, b->st.exit_without_entry, "exit_without_entry");
	DIFF(a->st.eoi_violations, b->st.eoi_violations, "eoi_violations");
	DIFF(a->st.ess_violations, b->st.ess_violations, "ess_violations");
	DIFF(a->st.time_violations, b->st.time_violations, "time_violations");
	DIFF(a->st.max_depth, b->st.max_depth, "max_depth");
	DIFF(a->self_ns, b->self_ns, "self_ns");
	DIFF(a->last_ticks, b->last_ticks, "last_ticks");
	if (what & EMP_FOLD_TREE)
		DIFF(emp_cct_size(a->cct), emp_cct_size(b->cct), "tree nodes");
	for (uint32_t id = 0; (what & EMP_FOLD_TREE) && id < emp_cct_size(a->cct); id++) {
		const struct emp_cct_node *x = emp_cct_node(a->cct, id), *y = emp_cct_node(b->cct, id);
		DIFF(x->gid, y->gid, "node %u: gid", id);
		DIFF(x->parent ? x->parent->id : 0, y->parent ? y->parent->id : 0, "node %u: parent", id);
		DIFF(x->calls, y->calls, "node %u: calls", id);
		DIFF(x->total_ns, y->total_ns, "node %u: total_ns", id);
		DIFF(x->self_ns, y->self_ns, "node %u: self_ns", id);
	}
	if (what & EMP_FOLD_FLAT) { /* by name: the two symbol tables interned in their own orders */
		DIFF(a->flat.all, b->flat.all, "flat: traced time");
		uint32_t rows[2] = { 0, 0 };
		for (int k = 0; k < 2; k++) {
			const struct emp_flat *fl = k ? &b->flat : &a->flat;
			for (uint32_t g = 0; g < fl->cap; g++)
				rows[k] += fl->rows[g].calls > 0;
		}
		DIFF(rows[0], rows[1], "flat: methods with calls");
		for (uint32_t g = 0; g < a->flat.cap; g++) {
			const struct emp_flat_row *x = &a->flat.rows[g], z = { 0 };
			if (!x->calls)
				continue;
			const struct emp_sym *sym = emp_symtab_get(a->symtab, g);
			int64_t h = emp_symtab_find(b->symtab, sym->kind, sym->klass, sym->name, sym->descriptor);
			const struct emp_flat_row *y = h >= 0 && (uint64_t)h < b->flat.cap ? &b->flat.rows[h] : &z;
			DIFF(x->calls, y->calls, "flat %s: calls", sym->display);
			DIFF(x->self, y->self, "flat %s: self_ns", sym->display);
			DIFF(x->total, y->total, "flat %s: total_ns", sym->display);
		}
	}
	uint32_t n = !(what & EMP_FOLD_METHODS) ? 0 : a->cap > b->cap ? a->cap : b->cap;
	for (uint32_t k = 0; k < n; k++) {
		const struct emp_calls_method z = { 0 };
		const struct emp_calls_method *x = k < a->cap ? &a->m[k] : &z, *y = k < b->cap ? &b->m[k] : &z;
		DIFF(x->calls, y->calls, "method %u: calls", k);
		DIFF(x->threw, y->threw, "method %u: threw", k);
		DIFF(x->total_ns, y->total_ns, "method %u: total_ns", k);
		DIFF(x->self_ns, y->self_ns, "method %u: self_ns", k);
		DIFF(x->max_ns, y->max_ns, "method %u: max_ns", k);
		for (unsigned s = 0; s < 64; s++)
			for (unsigned sub = 0; sub < EMP_CALLS_SUB; sub++)
				DIFF(emp_calls_bucket(x, s, sub), emp_calls_bucket(y, s, sub), "method %u: bucket %u.%u", k, s, sub);
	}
	return NULL;
}
