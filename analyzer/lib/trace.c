/* SPDX-License-Identifier: MIT */
/* trace.c - calls from ENTER/EXIT events, eoi/ess numbering and validation; see trace.h. */
#include "trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cct.h"
#include "dump_reader.h"
#include "symtab.h"
#include "util.h"

/* Per thread: the stack of open calls and what the validation of the current trace needs (see check_entry()). */
struct tstate {
	struct emp_trace_call *stack;
	uint32_t depth, cap;
	uint32_t next_eoi;      /* calls entered in the current trace = the next eoi */
	uint32_t completed;     /* calls of the current trace that exited */
	uint32_t last_ess;      /* ess of the call entered last (eoi next_eoi - 1) */
	int ess_bad;            /* the current trace broke the ess rule */
	uint64_t *child_tout;   /* per open depth: tout of the last complete callee (0 = none) */
};

struct emp_trace {
	const struct emp_trace_ops *ops;
	void *arg;
	struct tstate *threads;
	uint32_t nthreads;
	uint64_t next_trace;
	struct emp_trace_stats st;
};

struct emp_trace *emp_trace_new(const struct emp_trace_ops *ops, void *arg)
{
	struct emp_trace *t = emp_xcalloc(1, sizeof(*t));
	t->ops = ops;
	t->arg = arg;
	return t;
}

static void free_threads(struct emp_trace *t)
{
	for (uint32_t i = 0; i < t->nthreads; i++) {
		free(t->threads[i].stack);
		free(t->threads[i].child_tout);
	}
	free(t->threads);
	t->threads = NULL;
	t->nthreads = 0;
}

void emp_trace_free(struct emp_trace *t)
{
	if (!t)
		return;
	free_threads(t);
	free(t);
}

const struct emp_trace_stats *emp_trace_stats(const struct emp_trace *t)
{
	return &t->st;
}

uint64_t emp_trace_violations(const struct emp_trace_stats *s)
{
	return s->eoi_violations + s->ess_violations + s->time_violations + s->exit_without_entry + s->never_closed;
}

static struct tstate *thread_state(struct emp_trace *t, uint32_t id)
{
	if (id >= t->nthreads) {
		uint32_t n = id + 16;
		t->threads = emp_xrealloc(t->threads, n * sizeof(*t->threads));
		memset(t->threads + t->nthreads, 0, (n - t->nthreads) * sizeof(*t->threads));
		t->nthreads = n;
	}
	return &t->threads[id];
}

/*
 * Kieker's rules, checked in eoi order as the calls enter, so that memory is the open calls and not one word per
 * call of the largest trace (a traced main() makes the whole run one trace: 277 M calls for javac).  Entry order is
 * eoi order, so "ordered by eoi, the first has ess 0 and each next one 1 <= ess <= previous + 1" is checked against
 * the call entered before; "eoi 0..n-1, each once" holds when every call entered in the trace has exited by the
 * time its root exits (counted in leave()).
 */
static void check_entry(struct tstate *ts, const struct emp_trace_call *c, int root)
{
	if (root)
		ts->ess_bad = c->ess != 0 || c->eoi != 0;
	else if (c->ess < 1 || c->ess > ts->last_ess + 1 || c->eoi != ts->next_eoi - 1)
		ts->ess_bad = 1;
	ts->last_ess = c->ess;
}

static void enter(struct emp_trace *t, struct tstate *ts, const struct emp_event *ev)
{
	if (ts->depth == ts->cap) {
		ts->cap = ts->cap ? ts->cap * 2 : 64;
		ts->stack = emp_xrealloc(ts->stack, ts->cap * sizeof(*ts->stack));
		ts->child_tout = emp_xrealloc(ts->child_tout, ts->cap * sizeof(*ts->child_tout));
	}
	struct emp_trace_call *parent = ts->depth ? &ts->stack[ts->depth - 1] : NULL;
	struct emp_trace_call *c = &ts->stack[ts->depth];
	memset(c, 0, sizeof(*c));
	if (!parent) {
		c->trace_id = t->next_trace++;
		ts->next_eoi = 0;
		ts->completed = 0;
	} else {
		c->trace_id = parent->trace_id;
		if (ev->ticks < parent->tin)
			t->st.time_violations++;
		if (ts->child_tout[ts->depth - 1] > ev->ticks)
			t->st.time_violations++; /* starts before its elder sibling ended */
	}
	c->thread = ev->thread;
	c->method = ev->method;
	c->eoi = ts->next_eoi++;
	c->ess = ts->depth;
	c->tin = ev->ticks;
	check_entry(ts, c, !parent);
	ts->child_tout[ts->depth] = 0;
	ts->depth++;
	if (ts->depth > t->st.max_depth)
		t->st.max_depth = ts->depth;
	if (t->ops->on_enter)
		t->ops->on_enter(t->arg, c, parent);
}

static void leave(struct emp_trace *t, struct tstate *ts, const struct emp_event *ev)
{
	if (!ts->depth) {
		t->st.exit_without_entry++;
		return;
	}
	struct emp_trace_call *c = &ts->stack[ts->depth - 1];
	struct emp_trace_call *parent = ts->depth > 1 ? &ts->stack[ts->depth - 2] : NULL;
	c->tout = ev->ticks;
	c->threw = ev->kind == EMP_EV_EXIT_THROW;
	if (c->tout < c->tin || c->tout < ts->child_tout[ts->depth - 1])
		t->st.time_violations++;
	uint64_t dur = c->tout >= c->tin ? c->tout - c->tin : 0;
	if (parent) {
		parent->child_ticks += dur;
		ts->child_tout[ts->depth - 2] = c->tout;
	}
	t->st.calls++;
	t->st.threw += (uint64_t)c->threw;
	ts->completed++;
	if (t->ops->on_call)
		t->ops->on_call(t->arg, c, parent);
	ts->depth--;
	if (!parent) {
		t->st.traces++;
		t->st.eoi_violations += (uint64_t)(ts->completed != ts->next_eoi);
		t->st.ess_violations += (uint64_t)ts->ess_bad;
	}
}

void emp_trace_event(struct emp_trace *t, const struct emp_event *ev)
{
	switch (ev->kind) {
	case EMP_EV_ENTER:
		enter(t, thread_state(t, ev->thread), ev);
		break;
	case EMP_EV_EXIT:
	case EMP_EV_EXIT_THROW:
		leave(t, thread_state(t, ev->thread), ev);
		break;
	case EMP_EV_SAMPLE:
	case EMP_EV_CPU:
	case EMP_EV_VTHREAD: /* the reader hands none out */
		break;
	}
}

void emp_trace_close_open(struct emp_trace *t, uint64_t ticks,
			  void (*on_call)(void *arg, const struct emp_trace_call *c, const struct emp_trace_call *parent),
			  void *arg)
{
	for (uint32_t i = 0; i < t->nthreads; i++) {
		struct tstate *ts = &t->threads[i];
		for (uint32_t d = ts->depth; d-- > 0;) {
			struct emp_trace_call *c = &ts->stack[d];
			struct emp_trace_call *parent = d ? &ts->stack[d - 1] : NULL;
			c->tout = ticks;
			if (parent)
				parent->child_ticks += ticks >= c->tin ? ticks - c->tin : 0;
			on_call(arg, c, parent);
		}
	}
}

void emp_trace_finish(struct emp_trace *t, const struct emp_dump_reader *r)
{
	for (uint32_t i = 0; i < t->nthreads; i++) {
		const struct emp_dump_thread *th = r ? emp_dump_thread(r, i) : NULL;
		t->st.unclosed += t->threads[i].depth;
		if (th && (th->flags & EMP_THREAD_ENDED))
			t->st.never_closed += t->threads[i].depth;
	}
	free_threads(t);
}

/* ---- calling-context tree ------------------------------------------------------------------------------------ */

uint64_t emp_trace_ns(const struct emp_dump_reader *r, uint64_t ticks)
{
	return emp_trace_round_ns(emp_dump_ticks_to_ns(r, (double)ticks));
}

void emp_trace_clock_set(struct emp_trace_clock *c, double hz)
{
	c->hz = hz;
	for (uint64_t t = 0; t < EMP_TRACE_CLOCK_SMALL; t++)
		c->small[t] = emp_trace_round_ns((double)t / hz * 1e9); /* emp_trace_ns(), as emp_trace_clock_ns() */
}

void emp_trace_clock_sync(struct emp_trace_clock *c, const struct emp_dump_reader *r)
{
	double hz = emp_dump_clock_hz(r);
	if (hz != c->hz)
		emp_trace_clock_set(c, hz);
}

static void cct_enter(void *arg, struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	struct emp_trace_cct *x = arg;
	struct emp_cct_node *p = parent ? parent->user : emp_cct_root(x->cct);
	c->user = emp_cct_child(x->cct, p, emp_symtab_map_get(x->map, c->method));
}

static void cct_call(void *arg, const struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	struct emp_trace_cct *x = arg;
	struct emp_cct_node *n = c->user;
	uint64_t dur = c->tout >= c->tin ? c->tout - c->tin : 0;
	uint64_t self = dur >= c->child_ticks ? dur - c->child_ticks : 0;
	emp_trace_clock_sync(&x->clock, x->r);
	uint64_t ns = emp_trace_clock_ns(&x->clock, dur);
	n->calls++;
	n->self_ns += emp_trace_clock_ns(&x->clock, self);
	emp_cct_add_inclusive(n, parent ? parent->user : NULL, 0, ns);
	if (!parent)
		emp_cct_root(x->cct)->total_ns += ns;
}

const struct emp_trace_ops emp_trace_cct_ops = { .on_enter = cct_enter, .on_call = cct_call };

uint32_t *emp_trace_prune_tree(struct emp_trace *t, struct emp_cct *c, uint8_t *pinned)
{
	uint8_t *mine = pinned ? NULL : emp_xcalloc(emp_cct_size(c), 1);
	if (mine)
		pinned = mine;
	/* the open calls' nodes, as ids + 1 while the nodes move (0 stays "no node") */
	for (uint32_t i = 0; t && i < t->nthreads; i++)
		for (uint32_t d = 0; d < t->threads[i].depth; d++) {
			struct emp_trace_call *call = &t->threads[i].stack[d];
			if (!call->user)
				continue;
			uint32_t id = ((const struct emp_cct_node *)call->user)->id;
			pinned[id] = 1;
			call->user = (void *)((uintptr_t)id + 1);
		}
	uint32_t *remap = emp_cct_prune(c, pinned);
	for (uint32_t i = 0; t && i < t->nthreads; i++)
		for (uint32_t d = 0; d < t->threads[i].depth; d++) {
			struct emp_trace_call *call = &t->threads[i].stack[d];
			if (call->user)
				call->user = emp_cct_node(c, remap[(uintptr_t)call->user - 1]);
		}
	free(mine);
	return remap;
}

void emp_trace_cct_prune(struct emp_trace *t, struct emp_trace_cct *tc)
{
	uint64_t chunk = emp_dump_chunks(tc->r, EMP_CHUNK_EVENTS);
	if (chunk == tc->chunk)
		return;
	tc->chunk = chunk;
	if (emp_cct_prune_due(tc->cct))
		free(emp_trace_prune_tree(t, tc->cct, NULL));
}
