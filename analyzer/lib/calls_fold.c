/* SPDX-License-Identifier: MIT */
/* calls_fold.c - `calls` folded chunk by chunk on every core; see calls_fold.h. */
#include "calls_fold.h"

#include <stdlib.h>
#include <string.h>

#include "dump_reader.h"
#include "util.h"
#include "varint.h"

/* An open call: what trace.c keeps of it, less what only its own numbering needs. */
struct frame {
	uint64_t tin;
	uint64_t child_ticks; /* durations of its complete direct callees */
	uint64_t child_tout;  /* exit of its last complete direct callee */
	uint32_t method;      /* dump-local id */
	uint32_t has_child;   /* child_tout is set */
};

/* A virtual level of a chunk (calls_fold.h): the unknown call k levels below the chunk's first open call. */
struct level {
	uint64_t child_ticks;    /* summed durations of its direct callees complete in the chunk */
	uint64_t nchild;         /* their number */
	uint64_t first_tin;      /* entry of its first direct callee in the chunk (entered > 0) */
	uint64_t min_tin;        /* the smallest entry of those */
	uint64_t last_tout;      /* exit of the last complete one (nchild > 0) */
	uint64_t sib_violations; /* callees entered before the previous one exited: violations if it is a call */
	uint64_t pop_tout;       /* the exit that closed it (every level but the last) */
	uint32_t entered;        /* direct callees entered in the chunk */
	uint32_t max_depth;      /* deepest count of calls open above it in the chunk */
	uint32_t pop_threw;      /* that exit was EXIT_THROW */
	uint32_t pad;
};

/* A chunk's summary, handed from its worker to the reading thread. */
struct summary {
	int ok;                       /* 0: the chunk holds what the fold does not handle */
	uint32_t nlevels, nopen;      /* levels (closed ones + the last), calls open at the end */
	uint32_t has_enter, max_method;
	uint64_t calls, threw, self_ns, max_ticks, time_violations;
	struct level *levels;         /* these two point into the same allocation */
	struct frame *open;
};

/* One folder's state: a worker's, or the reading thread's (the last), never used by two threads at once. */
struct folder {
	struct emp_calls_method *m; /* by dump-local method id */
	uint32_t cap;
	struct frame *stack;
	uint32_t stack_cap;
	struct level *levels;
	uint32_t levels_cap;
	struct emp_trace_clock clock;
};

/* The reading thread's view of one dump thread: its real stack of open calls. */
struct rthread {
	struct frame *stack;
	uint32_t depth, cap;
};

struct emp_calls_fold {
	unsigned minor;
	double hz;
	unsigned nfolders;
	struct folder **folders;
	struct rthread *threads;
	uint32_t nthreads;
	struct emp_trace_stats st;
	uint64_t self_ns, max_ticks;
	uint64_t folded;  /* chunks folded: atomic, added to by every folder; read once the workers stopped */
	uint64_t merged;  /* chunks merged (the reading thread) */
};

struct emp_calls_fold *emp_calls_fold_new(unsigned minor, double hz)
{
	struct emp_calls_fold *f = emp_xcalloc(1, sizeof(*f));
	f->minor = minor;
	f->hz = hz;
	return f;
}

void emp_calls_fold_set_folders(struct emp_calls_fold *f, unsigned folders)
{
	f->nfolders = folders ? folders : 1;
	f->folders = emp_xcalloc(f->nfolders, sizeof(*f->folders));
	for (unsigned i = 0; i < f->nfolders; i++) {
		f->folders[i] = emp_xcalloc(1, sizeof(*f->folders[i]));
		emp_trace_clock_set(&f->folders[i]->clock, f->hz);
	}
}

void emp_calls_fold_free(struct emp_calls_fold *f)
{
	if (!f)
		return;
	for (unsigned i = 0; i < f->nfolders; i++) {
		struct folder *w = f->folders[i];
		for (uint32_t k = 0; k < w->cap; k++)
			emp_calls_free(&w->m[k]);
		free(w->m);
		free(w->stack);
		free(w->levels);
		free(w);
	}
	free(f->folders);
	for (uint32_t t = 0; t < f->nthreads; t++)
		free(f->threads[t].stack);
	free(f->threads);
	free(f);
}

static struct emp_calls_method *method_slot(struct folder *w, uint32_t id)
{
	if (id >= w->cap)
		w->m = emp_calls_table_grow(w->m, &w->cap, id + 1);
	return &w->m[id];
}

/* A call closed at @tout: trace.c's leave() figures for it, into folder @w's table. */
static inline __attribute__((always_inline)) void add_call(struct folder *w, struct summary *s, const struct frame *c, uint64_t tout, int threw)
{
	uint64_t dur = tout >= c->tin ? tout - c->tin : 0;
	uint64_t self = dur >= c->child_ticks ? dur - c->child_ticks : 0;
	uint64_t self_ns = emp_trace_clock_ns(&w->clock, self);
	s->self_ns += self_ns;
	s->calls++;
	s->threw += (uint64_t)threw;
	emp_calls_add(method_slot(w, c->method), emp_trace_clock_ns(&w->clock, dur), self_ns, threw);
}

/* A varint, the one-byte case (every EXIT head) inline. */
static inline int get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	if (*p < end && **p < 0x80) {
		*v = *(*p)++;
		return 0;
	}
	return emp_varint_get(p, end, v);
}

static struct level *new_level(struct folder *w, uint32_t n)
{
	if (n >= w->levels_cap) {
		w->levels_cap = w->levels_cap ? 2 * w->levels_cap : 16;
		w->levels = emp_xrealloc(w->levels, w->levels_cap * sizeof(*w->levels));
	}
	memset(&w->levels[n], 0, sizeof(w->levels[n]));
	return &w->levels[n];
}

void *emp_calls_fold_chunk(void *arg, unsigned folder, const uint8_t *p, size_t len)
{
	struct emp_calls_fold *f = arg;
	struct folder *w = f->folders[folder];
	const uint8_t *end = p + len;
	struct summary s = { .ok = 1 };
	uint64_t thread, ticks = 0, head, dt, extra;
	uint32_t d = 0, nl = 0;
	struct level *lv = new_level(w, nl++);
	if (get(&p, end, &thread) || get(&p, end, &ticks))
		s.ok = 0;
	while (s.ok && p < end) {
		if (get(&p, end, &head) || get(&p, end, &dt)) {
			s.ok = 0;
			break;
		}
		unsigned kind = (unsigned)(head & ((1u << EMP_EV_KIND_BITS) - 1));
		uint64_t rest = head >> EMP_EV_KIND_BITS;
		ticks += (uint64_t)emp_unzigzag(dt);
		if (ticks > s.max_ticks)
			s.max_ticks = ticks;
		if (kind == EMP_EV_ENTER) {
			if (rest > UINT32_MAX) {
				s.ok = 0;
				break;
			}
			if (d == w->stack_cap) {
				w->stack_cap = w->stack_cap ? 2 * w->stack_cap : 64;
				w->stack = emp_xrealloc(w->stack, w->stack_cap * sizeof(*w->stack));
			}
			if (d) { /* trace.c enter()'s checks against the caller */
				const struct frame *parent = &w->stack[d - 1];
				s.time_violations += (uint64_t)(ticks < parent->tin);
				s.time_violations += (uint64_t)(parent->has_child && parent->child_tout > ticks);
			} else { /* the caller is the level's call: its checks wait for the merge */
				if (!lv->entered++)
					lv->first_tin = lv->min_tin = ticks;
				else if (ticks < lv->min_tin)
					lv->min_tin = ticks;
				lv->sib_violations += (uint64_t)(lv->nchild && lv->last_tout > ticks);
			}
			w->stack[d++] = (struct frame){ .tin = ticks, .method = (uint32_t)rest };
			if (rest < w->cap)
				emp_calls_prefetch(&w->m[rest]);
			if (d > lv->max_depth)
				lv->max_depth = d;
			if (!s.has_enter || rest > s.max_method)
				s.max_method = (uint32_t)rest;
			s.has_enter = 1;
		} else if (kind == EMP_EV_EXIT || kind == EMP_EV_EXIT_THROW) {
			int threw = kind == EMP_EV_EXIT_THROW;
			if (rest) {
				s.ok = 0;
				break;
			}
			if (!d) { /* closes the level's call */
				lv->pop_tout = ticks;
				lv->pop_threw = (uint32_t)threw;
				lv = new_level(w, nl++);
				continue;
			}
			const struct frame *c = &w->stack[--d];
			s.time_violations += (uint64_t)(ticks < c->tin || (c->has_child && ticks < c->child_tout));
			add_call(w, &s, c, ticks, threw);
			uint64_t dur = ticks >= c->tin ? ticks - c->tin : 0;
			if (d) {
				struct frame *parent = &w->stack[d - 1];
				parent->child_ticks += dur;
				parent->child_tout = ticks;
				parent->has_child = 1;
			} else {
				lv->child_ticks += dur;
				lv->last_tout = ticks;
				lv->nchild++;
			}
		} else if ((kind == EMP_EV_CPU && f->minor >= 2) || (kind == EMP_EV_VTHREAD && f->minor >= 3)) {
			/* no part of a trace; checked as the reader checks them */
			if (rest || emp_varint_get(&p, end, &extra))
				s.ok = 0;
		} else {
			s.ok = 0; /* SAMPLE events, unknown kinds: the reader's own path */
		}
	}
	/* One allocation: the summary, its levels, the calls still open. */
	size_t lv_bytes = nl * sizeof(struct level), open_bytes = d * sizeof(struct frame);
	struct summary *out = emp_xmalloc(sizeof(*out) + lv_bytes + open_bytes);
	*out = s;
	out->nlevels = nl;
	out->nopen = d;
	out->levels = (struct level *)(out + 1);
	out->open = (struct frame *)((char *)out->levels + lv_bytes);
	memcpy(out->levels, w->levels, lv_bytes);
	memcpy(out->open, w->stack, open_bytes);
	/* Relaxed: only a count; emp_calls_fold_finish() reads it after the workers were joined (pthread_join orders
	 * every worker's additions before it). */
	__atomic_fetch_add(&f->folded, 1, __ATOMIC_RELAXED);
	return out;
}

void emp_calls_fold_chunk_free(void *summary)
{
	free(summary);
}

static struct rthread *rthread(struct emp_calls_fold *f, uint32_t id)
{
	if (id >= f->nthreads) {
		uint32_t n = id + 16;
		f->threads = emp_xrealloc(f->threads, n * sizeof(*f->threads));
		memset(f->threads + f->nthreads, 0, (n - f->nthreads) * sizeof(*f->threads));
		f->nthreads = n;
	}
	return &f->threads[id];
}

int emp_calls_fold_merge(struct emp_calls_fold *f, const struct emp_dump_reader *r, uint32_t thread, void *sp)
{
	struct summary *s = sp;
	int rc = -1;
	f->merged++;
	if (!s || !s->ok || (s->has_enter && s->max_method >= emp_dump_methods_defined(r)) ||
	    emp_dump_clock_hz(r) != f->hz)
		goto out;
	struct folder *w = f->folders[f->nfolders - 1]; /* the reading thread's */
	struct rthread *t = rthread(f, thread);
	struct emp_trace_stats *st = &f->st;
	uint32_t depth = t->depth;
	for (uint32_t k = 0; k < s->nlevels; k++) {
		const struct level *lv = &s->levels[k];
		int closed = k + 1 < s->nlevels;
		if (k >= t->depth) { /* below the real stack: its callees are roots, its close an exit without entry */
			st->traces += lv->nchild;
			if (lv->max_depth > st->max_depth)
				st->max_depth = lv->max_depth;
			st->exit_without_entry += (uint64_t)closed;
			continue;
		}
		struct frame *c = &t->stack[t->depth - 1 - k];
		if (lv->entered) {
			if (lv->min_tin < c->tin)
				goto out; /* how many of its callees entered before it is not known */
			st->time_violations += (uint64_t)(c->has_child && c->child_tout > lv->first_tin);
		}
		if (lv->nchild) {
			c->child_ticks += lv->child_ticks;
			c->child_tout = lv->last_tout;
			c->has_child = 1;
		}
		st->time_violations += lv->sib_violations;
		if (t->depth - k + lv->max_depth > st->max_depth)
			st->max_depth = t->depth - k + lv->max_depth;
		if (!closed)
			continue;
		uint64_t tout = lv->pop_tout;
		st->time_violations += (uint64_t)(tout < c->tin || (c->has_child && tout < c->child_tout));
		add_call(w, s, c, tout, (int)lv->pop_threw);
		depth--;
		if (depth) {
			struct frame *parent = &t->stack[depth - 1];
			parent->child_ticks += tout >= c->tin ? tout - c->tin : 0;
			parent->child_tout = tout;
			parent->has_child = 1;
		} else {
			st->traces++;
		}
	}
	if (depth + s->nopen > t->cap) {
		t->cap = 2 * (depth + s->nopen) + 16;
		t->stack = emp_xrealloc(t->stack, t->cap * sizeof(*t->stack));
	}
	memcpy(t->stack + depth, s->open, s->nopen * sizeof(*s->open));
	t->depth = depth + s->nopen;
	st->calls += s->calls;
	st->threw += s->threw;
	st->time_violations += s->time_violations;
	f->self_ns += s->self_ns;
	if (s->max_ticks > f->max_ticks)
		f->max_ticks = s->max_ticks;
	rc = 0;
out:
	free(s);
	return rc;
}

int emp_calls_fold_finish(struct emp_calls_fold *f, const struct emp_dump_reader *r, struct emp_trace_stats *st,
			  uint64_t *self_ns, uint64_t *last_ticks)
{
	/* A chunk folded ahead but never merged (the reading stopped before it: a corrupt chunk) is in its folder's
	 * figures all the same. */
	if (__atomic_load_n(&f->folded, __ATOMIC_RELAXED) != f->merged)
		return -1;
	for (uint32_t i = 0; i < f->nthreads; i++) {
		const struct emp_dump_thread *th = emp_dump_thread(r, i);
		f->st.unclosed += f->threads[i].depth;
		if (th && (th->flags & EMP_THREAD_ENDED))
			f->st.never_closed += f->threads[i].depth;
		f->threads[i].depth = 0;
	}
	*st = f->st;
	*self_ns = f->self_ns;
	*last_ticks = f->max_ticks;
	return 0;
}

void emp_calls_fold_collect(struct emp_calls_fold *f, struct emp_calls_method *(*slot)(void *arg, uint32_t method),
			    void *arg)
{
	for (unsigned i = 0; i < f->nfolders; i++) {
		const struct folder *w = f->folders[i];
		for (uint32_t k = 0; k < w->cap; k++)
			if (w->m[k].calls)
				emp_calls_merge(slot(arg, k), &w->m[k]);
	}
}
