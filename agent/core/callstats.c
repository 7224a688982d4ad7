/* SPDX-License-Identifier: MIT */
/* callstats.c - calls and self time per traced method; see callstats.h. */
#include "callstats.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "ring.h"

#define PAGE_BITS 12
#define PAGE_SIZE (1u << PAGE_BITS)
#define NPAGES (1u << (26 - PAGE_BITS)) /* method ids stay below 2^26 (dump.h) */

/* Written by the writer thread only. */
struct emp_callstats_stack {
	uint32_t n, cap;
	struct frame {
		uint32_t method;
		uint64_t start, child;
	} f[];
};

static struct {
	int on;
	/* Pages of PAGE_SIZE stats, allocated at a method's registration.  (A) CAS release in stat_of() pairs with
	 * (B) its acquire loads (writer, controller, hook). */
	_Atomic(struct emp_callstat *) pages[NPAGES];
	_Atomic uint32_t max_id; /* highest registered id + 1; relaxed (the controller reads a period late at worst) */
	/* emp_callstats_traced_cpu_ns(): written by the writer thread only (a load and a store, no locked add), read
	 * by the controller; relaxed, a figure that only grows and publishes nothing. */
	_Atomic uint64_t traced_cpu_ns;
} cs;

void emp_callstats_enable(void)
{
	cs.on = 1;
}

int emp_callstats_on(void)
{
	return cs.on;
}

static struct emp_callstat *stat_of(uint32_t id, int create)
{
	uint32_t page = id >> PAGE_BITS;
	if (!cs.on || page >= NPAGES)
		return NULL;
	/* (B) acquire; pairs with (A). */
	struct emp_callstat *p = atomic_load_explicit(&cs.pages[page], memory_order_acquire);
	if (!p && create) {
		struct emp_callstat *fresh = calloc(PAGE_SIZE, sizeof(*fresh));
		if (!fresh)
			return NULL;
		/* (A) release: the zeroed page before its pointer. */
		if (atomic_compare_exchange_strong_explicit(&cs.pages[page], &p, fresh, memory_order_acq_rel,
							    memory_order_acquire))
			p = fresh;
		else
			free(fresh);
	}
	return p ? &p[id & (PAGE_SIZE - 1)] : NULL;
}

void emp_callstats_method(uint32_t id, const char *klass)
{
	struct emp_callstat *m = stat_of(id, 1);
	if (!m || atomic_load_explicit(&m->klass, memory_order_acquire))
		return;
	char *k = strdup(klass), *none = NULL;
	/* (P) release: the string before its pointer; a class seen by two hooks at once keeps the first. */
	if (!k || !atomic_compare_exchange_strong_explicit(&m->klass, &none, k, memory_order_release,
							   memory_order_relaxed))
		free(k);
	uint32_t max = atomic_load_explicit(&cs.max_id, memory_order_relaxed);
	while (max < id + 1 &&
	       !atomic_compare_exchange_weak_explicit(&cs.max_id, &max, id + 1, memory_order_relaxed, memory_order_relaxed))
		;
}

int emp_callstats_removed(uint32_t id)
{
	struct emp_callstat *m = stat_of(id, 0);
	/* (S) acquire; pairs with (R). */
	return m && atomic_load_explicit(&m->removed, memory_order_acquire);
}

uint32_t emp_callstats_max_id(void)
{
	return atomic_load_explicit(&cs.max_id, memory_order_relaxed);
}

struct emp_callstat *emp_callstats_get(uint32_t id)
{
	return stat_of(id, 0);
}

const char *emp_callstats_class(struct emp_callstat *m)
{
	/* (Q) acquire; pairs with (P). */
	return atomic_load_explicit(&m->klass, memory_order_acquire);
}

void emp_callstats_remove(struct emp_callstat *m)
{
	/* (R) release: before the retransformation whose hook reads it. */
	atomic_store_explicit(&m->removed, 1, memory_order_release);
}

void emp_callstats_note(struct emp_callstats_stack **sp, uint32_t type, uint32_t method, uint64_t ticks)
{
	struct emp_callstats_stack *s = *sp;
	if (type == EMP_REC_ENTER) {
		if (!s || s->n == s->cap) {
			uint32_t cap = s ? s->cap * 2 : 64;
			struct emp_callstats_stack *g = realloc(s, sizeof(*s) + cap * sizeof(s->f[0]));
			if (!g)
				return; /* this call is not counted; its exit then closes its caller early: statistics only */
			if (!s)
				g->n = 0;
			g->cap = cap;
			*sp = s = g;
		}
		s->f[s->n++] = (struct frame){ method & 0x3ffffffu, ticks, 0 };
	} else if ((type == EMP_REC_EXIT || type == EMP_REC_EXIT_THROW) && s && s->n) {
		struct frame *f = &s->f[--s->n];
		uint64_t d = ticks > f->start ? ticks - f->start : 0;
		if (s->n)
			s->f[s->n - 1].child += d;
		struct emp_callstat *m = stat_of(f->method, 0);
		if (m) {
			/* Only this thread writes them: a load and a store, no locked add. */
			atomic_store_explicit(&m->calls, atomic_load_explicit(&m->calls, memory_order_relaxed) + 1,
					      memory_order_relaxed);
			atomic_store_explicit(&m->self_ticks,
					      atomic_load_explicit(&m->self_ticks, memory_order_relaxed) +
						      (d > f->child ? d - f->child : 0),
					      memory_order_relaxed);
		}
	}
}

void emp_callstats_stack_free(struct emp_callstats_stack *s)
{
	free(s);
}

void emp_callstats_thread_cpu(struct emp_callstats_cpu *c, pid_t tid, uint64_t now_ns, int gone)
{
	uint64_t ns;
	/* tid 0 (a virtual thread's state): its clock id would name the calling thread's own clock */
	if (tid <= 0 || (!gone && c->at && now_ns - c->at < EMP_CALLSTATS_CPU_NS))
		return;
	if (!emp_clock_read_ns(emp_clock_thread_cpu(tid), &ns))
		return;
	if (c->ns && ns > c->ns)
		atomic_store_explicit(&cs.traced_cpu_ns,
				      atomic_load_explicit(&cs.traced_cpu_ns, memory_order_relaxed) + (ns - c->ns),
				      memory_order_relaxed);
	c->ns = ns;
	c->at = now_ns;
}

uint64_t emp_callstats_traced_cpu_ns(void)
{
	return atomic_load_explicit(&cs.traced_cpu_ns, memory_order_relaxed);
}
