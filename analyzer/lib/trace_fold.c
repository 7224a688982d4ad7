/* SPDX-License-Identifier: MIT */
/* trace_fold.c - trace.h's calls folded chunk by chunk on every core; see trace_fold.h. */
#include "trace_fold.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cct.h"
#include "dump_reader.h"
#include "flat.h"
#include "symtab.h"
#include "util.h"
#include "varint.h"

/* An open call: what trace.c keeps of it, less what only its own numbering needs. */
struct frame {
	uint64_t tin;
	uint64_t child_ticks; /* durations of its complete direct callees */
	uint64_t child_tout;  /* exit of its last complete direct callee (has_child) */
	uint32_t method;      /* dump-local id */
	uint32_t has_child;
	uint32_t node;        /* its tree node: the chunk's (worker) or the tree's id (real stack) */
	uint32_t pad;
};

/* A virtual level of a chunk (trace_fold.h): the unknown call k levels below the chunk's first open call. */
struct level {
	uint64_t child_ticks;    /* summed durations of its direct callees complete in the chunk */
	uint64_t child_ns;       /* the same in ns, each rounded (the tree root's traced time if these are roots) */
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

/* A calling context of a chunk's tree. */
struct lnode {
	int64_t parent;          /* its parent's index, or -1 - k under level k */
	uint32_t method;         /* dump-local id */
	uint32_t pad;
	uint64_t calls, total_ns, self_ns;
};

/* What the flat figures (flat.h) need of a chunk: the inclusive ns of the calls of @method that no call of it
 * opened in the chunk encloses, entered while level @level was the chunk's bottom.  Whether a call of the same
 * method below the chunk encloses them too depends on the real stack from that level down: the merge decides. */
struct outer {
	uint32_t method, level;
	uint64_t ns;
};

/* A method of a chunk, for the flat figures: its calls open in the chunk, its calls complete there (as add_call()
 * lays them out), and the ns of those no open call of it enclosed, at the level it was touched at (UINT32_MAX:
 * none since the last flush). */
struct nest {
	uint32_t method, open;
	uint32_t level, pad;
	uint64_t calls, total_ns, self_ns;
	uint64_t ns;
};

/* The methods of a chunk in the order it met them (a frame's node is its method's index here), found through an
 * open-addressing table (at most half full, emptied for the next chunk by a new generation); those touched at
 * the current level; the outer entries made so far. */
struct nests {
	struct nest *e;
	uint32_t n, cap;
	struct {
		uint32_t gen, index;
	} *slots;
	uint32_t nslots, gen;
	uint32_t *touched;
	uint32_t ntouched, touched_cap;
	struct outer *outer;
	uint32_t nouter, outer_cap;
};

/* A call of a method the worker's table has no room for yet (method_slot()): counted by the merge. */
struct late_call {
	uint32_t method, threw;
	uint64_t ns, self_ns;
};

/* A chunk's summary, handed from its worker to the reading thread. */
struct summary {
	int ok;                       /* 0: the chunk holds what the fold does not handle */
	uint32_t nlevels, nopen;      /* levels (closed ones + the last), calls open at the end */
	uint32_t nnodes;              /* the chunk's tree, in creation order */
	uint32_t nlate;               /* its late calls */
	uint32_t nouter, nmethods;    /* its outer entries and its methods' figures (flat figures) */
	uint32_t has_enter, max_method;
	uint64_t events;              /* ENTER, EXIT and EXIT_THROW events */
	uint64_t calls, threw, self_ns, max_ticks, time_violations;
	struct level *levels;         /* these point into the same allocation */
	struct frame *open;
	struct lnode *nodes;
	struct late_call *late;
	struct outer *outer;
	struct nest *methods;
};

/* A chunk's tree under construction: nodes and an open-addressing table (parent, method) -> node, emptied for the
 * next chunk by a new generation rather than cleared. */
struct ltree {
	struct lnode *nodes;
	uint32_t n, cap;
	struct {
		uint32_t gen, node;
	} *slots;
	uint32_t nslots, gen;
};

/* One folder's state: a worker's, or the reading thread's (the last), never used by two threads at once. */
struct folder {
	struct emp_calls_method *m; /* by dump-local method id */
	uint32_t cap;
	struct emp_calls_later later; /* counts of m's histograms still to make: flushed at each chunk's end and
					 at the collection */
	uint32_t known;             /* method ids below this are defined: the table may grow to hold them */
	struct late_call *late;     /* the chunk's calls of methods from `known` on */
	uint32_t nlate, late_cap;
	struct frame *stack;
	uint32_t stack_cap;
	struct level *levels;
	uint32_t levels_cap;
	struct ltree tree;
	struct nests nests;
	struct emp_trace_clock clock;
};

/* The flat figures of a method (dump-local id): its calls and self time, those still open at the end closed at
 * the last tick, and the inclusive ns of its outermost calls (flat.h). */
struct flat_method {
	uint64_t calls, self_ns, outer_ns;
};

/* The reading thread's view of one dump thread: its real stack of open calls. */
struct rthread {
	struct frame *stack;
	uint32_t depth, cap;
};

struct emp_trace_fold {
	struct emp_dump_reader *r;
	unsigned minor;
	double hz;
	int methods;                 /* per-method figures wanted */
	int flat;                    /* and the flat figures (EMP_TRACE_FOLD_FLAT) */
	struct emp_cct *cct;         /* the tree wanted, or NULL */
	struct emp_symtab_map *map;
	uint32_t *gnode;             /* scratch of the merge: a chunk's nodes' tree ids */
	uint32_t gnode_cap;
	unsigned nfolders;
	struct folder **folders;
	struct rthread *threads;
	uint32_t nthreads;
	struct emp_trace_stats st;
	uint64_t self_ns, max_ticks, events;
	uint64_t traced_ns;          /* the root calls' ns, the open ones closed at the last tick */
	struct flat_method *fm;      /* by dump-local method id, fm_cap of them */
	uint32_t fm_cap;
	struct {
		uint32_t gen, index;
	} *low;                      /* by dump-local method id: its lowest index in the real stack (when gen) */
	uint32_t low_cap, low_gen;
	/* emp_dump_methods_defined() as the reading thread last saw it, for the workers' method_slot().  Relaxed
	 * loads and stores: a count that only grows and publishes nothing (the workers read no symbol); a stale
	 * value only sends more calls to the merge as late calls. */
	uint32_t known_methods;
	uint64_t folded;  /* chunks folded: atomic, added to by every folder; read once the workers stopped */
	uint64_t merged;  /* chunks merged or skipped (the reading thread) */
	int failed;       /* a merge answered -1 */
};

double emp_trace_fold_probe(const char *path)
{
	struct emp_dump_reader *r;
	char err[512];
	struct emp_event ev;
	if (emp_dump_reader_open(path, &r, err, sizeof(err)))
		return 0;
	double hz = 0;
	if (emp_dump_reader_next(r, &ev)) {
		const char *mode = emp_dump_meta(r, "mode");
		if (mode && !strcmp(mode, "trace"))
			hz = emp_dump_clock_hz(r);
	}
	emp_dump_reader_close(r);
	return hz;
}

static void *fold_chunk(void *arg, unsigned folder, const uint8_t *p, size_t len);

struct emp_trace_fold *emp_trace_fold_new(struct emp_dump_reader *r, unsigned jobs, double hz, unsigned want,
					  struct emp_cct *cct, struct emp_symtab_map *map)
{
	struct emp_trace_fold *f = emp_xcalloc(1, sizeof(*f));
	f->r = r;
	f->minor = emp_dump_reader_version_minor(r);
	f->hz = hz;
	f->flat = (want & EMP_TRACE_FOLD_FLAT) && !cct;
	f->methods = (want & EMP_TRACE_FOLD_METHODS) && !f->flat; /* the flat figures count calls themselves */
	f->cct = cct;
	f->map = map;
	int n = emp_dump_reader_set_fold(r, jobs, fold_chunk, free, f);
	f->failed = n < 1 || !(hz > 0);
	f->nfolders = n < 1 ? 1 : (unsigned)n;
	f->folders = emp_xcalloc(f->nfolders, sizeof(*f->folders));
	for (unsigned i = 0; i < f->nfolders; i++) {
		f->folders[i] = emp_xcalloc(1, sizeof(*f->folders[i]));
		if (hz > 0)
			emp_trace_clock_set(&f->folders[i]->clock, hz);
	}
	return f;
}

void emp_trace_fold_free(struct emp_trace_fold *f)
{
	if (!f)
		return;
	emp_dump_reader_stop(f->r); /* no worker folds into f any more */
	for (unsigned i = 0; i < f->nfolders; i++) {
		struct folder *w = f->folders[i];
		for (uint32_t k = 0; k < w->cap; k++)
			emp_calls_free(&w->m[k]);
		free(w->m);
		free(w->stack);
		free(w->levels);
		free(w->late);
		free(w->tree.nodes);
		free(w->tree.slots);
		free(w->nests.e);
		free(w->nests.slots);
		free(w->nests.touched);
		free(w->nests.outer);
		free(w);
	}
	free(f->folders);
	for (uint32_t t = 0; t < f->nthreads; t++)
		free(f->threads[t].stack);
	free(f->threads);
	free(f->gnode);
	free(f->fm);
	free(f->low);
	free(f);
}

/* add_call() adds to a chunk node's or a chunk method's calls, total_ns and self_ns as three consecutive counters
 * (or the merge's three figures, which it adds to the tree's node as emp_cct_add_inclusive() says). */
_Static_assert(offsetof(struct lnode, total_ns) == offsetof(struct lnode, calls) + 8 &&
		       offsetof(struct lnode, self_ns) == offsetof(struct lnode, calls) + 16,
	       "struct lnode: calls, total_ns, self_ns");
_Static_assert(offsetof(struct nest, total_ns) == offsetof(struct nest, calls) + 8 &&
		       offsetof(struct nest, self_ns) == offsetof(struct nest, calls) + 16,
	       "struct nest: calls, total_ns, self_ns");

/* ---- the workers' side ---------------------------------------------------------------------------------------- */

static __attribute__((noinline, cold)) void method_table_grow(struct folder *w, uint32_t id)
{
	emp_calls_flush(&w->later); /* the pending counts point into the table */
	w->m = emp_calls_table_grow(w->m, &w->cap, id + 1);
}

/* Inline: one per traced call.  The table grows only for an id the reading thread has seen defined (w->known),
 * so that a damaged or forged id (up to 2^32) never sizes it; a call of another id returns NULL, and waits for the
 * merge as a late call (its method's symbol may still be on its way to the reading thread: workers fold ahead). */
static inline struct emp_calls_method *method_slot(struct folder *w, uint32_t id)
{
	if (__builtin_expect(id >= w->cap, 0)) {
		if (id >= w->known)
			return NULL;
		method_table_grow(w, id);
	}
	return &w->m[id];
}

static __attribute__((noinline, cold)) void add_late(struct folder *w, uint32_t method, uint64_t ns, uint64_t self_ns,
						     int threw)
{
	if (w->nlate == w->late_cap) {
		w->late_cap = w->late_cap ? 2 * w->late_cap : 64;
		w->late = emp_xrealloc(w->late, w->late_cap * sizeof(*w->late));
	}
	w->late[w->nlate++] = (struct late_call){ method, (uint32_t)threw, ns, self_ns };
}

static uint32_t tree_hash(int64_t parent, uint32_t method, uint32_t mask)
{
	uint64_t k = ((uint64_t)parent << 32 ^ method) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(k >> 32) & mask;
}

/* The chunk tree's node for @method under @parent (a node index, or -1 - k for level k), created when absent. */
static uint32_t tree_child(struct ltree *t, int64_t parent, uint32_t method)
{
	if (2 * (t->n + 1) > t->nslots) { /* at most half full: rehash into twice the room */
		uint32_t nslots = t->nslots ? 2 * t->nslots : 1024;
		free(t->slots);
		t->slots = emp_xcalloc(nslots, sizeof(*t->slots));
		t->nslots = nslots;
		t->gen = 1;
		for (uint32_t id = 0; id < t->n; id++) {
			uint32_t i = tree_hash(t->nodes[id].parent, t->nodes[id].method, nslots - 1);
			while (t->slots[i].gen == t->gen)
				i = (i + 1) & (nslots - 1);
			t->slots[i].gen = t->gen;
			t->slots[i].node = id;
		}
	}
	uint32_t mask = t->nslots - 1;
	for (uint32_t i = tree_hash(parent, method, mask);; i = (i + 1) & mask) {
		if (t->slots[i].gen != t->gen) {
			if (t->n == t->cap) {
				t->cap = t->cap ? 2 * t->cap : 1024;
				t->nodes = emp_xrealloc(t->nodes, t->cap * sizeof(*t->nodes));
			}
			t->nodes[t->n] = (struct lnode){ .parent = parent, .method = method };
			t->slots[i].gen = t->gen;
			t->slots[i].node = t->n;
			return t->n++;
		}
		const struct lnode *n = &t->nodes[t->slots[i].node];
		if (n->parent == parent && n->method == method)
			return t->slots[i].node;
	}
}

/* A call closed at @tout: trace.c's leave() figures for it (per method into @w's table when @methods, into @node's
 * figures when not NULL).  Return: its duration in ns. */
static inline __attribute__((always_inline)) uint64_t add_call(struct folder *w, int methods, struct summary *s,
							       const struct frame *c, uint64_t tout, int threw,
							       uint64_t *node)
{
	uint64_t dur = tout >= c->tin ? tout - c->tin : 0;
	uint64_t self = dur >= c->child_ticks ? dur - c->child_ticks : 0;
	uint64_t ns = emp_trace_clock_ns(&w->clock, dur), self_ns = emp_trace_clock_ns(&w->clock, self);
	s->self_ns += self_ns;
	s->calls++;
	s->threw += (uint64_t)threw;
	if (methods) {
		struct emp_calls_method *m = method_slot(w, c->method);
		if (__builtin_expect(m != NULL, 1))
			emp_calls_add_later(&w->later, m, ns, self_ns, threw);
		else
			add_late(w, c->method, ns, self_ns, threw);
	}
	if (node) { /* calls, total_ns, self_ns as struct lnode lays them out */
		node[0]++;
		node[1] += ns;
		node[2] += self_ns;
	}
	return ns;
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

/* The outer entries of the methods touched at level @level, their ns back to 0. */
static void nests_flush(struct nests *n, uint32_t level)
{
	for (uint32_t i = 0; i < n->ntouched; i++) {
		struct nest *e = &n->e[n->touched[i]];
		if (n->nouter == n->outer_cap) {
			n->outer_cap = n->outer_cap ? 2 * n->outer_cap : 256;
			n->outer = emp_xrealloc(n->outer, n->outer_cap * sizeof(*n->outer));
		}
		n->outer[n->nouter++] = (struct outer){ e->method, level, e->ns };
		e->ns = 0;
		e->level = UINT32_MAX;
	}
	n->ntouched = 0;
}

static uint32_t nest_hash(uint32_t method, uint32_t mask)
{
	return (uint32_t)((method * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

/* The index of @method's entry in the chunk, created when absent. */
static uint32_t nest_find(struct nests *n, uint32_t method)
{
	if (2 * (n->n + 1) > n->nslots) { /* at most half full: rehash into twice the room */
		uint32_t nslots = n->nslots ? 2 * n->nslots : 256;
		free(n->slots);
		n->slots = emp_xcalloc(nslots, sizeof(*n->slots));
		n->nslots = nslots;
		n->gen = 1;
		for (uint32_t k = 0; k < n->n; k++) {
			uint32_t i = nest_hash(n->e[k].method, nslots - 1);
			while (n->slots[i].gen == n->gen)
				i = (i + 1) & (nslots - 1);
			n->slots[i].gen = n->gen;
			n->slots[i].index = k;
		}
	}
	uint32_t mask = n->nslots - 1;
	for (uint32_t i = nest_hash(method, mask);; i = (i + 1) & mask) {
		if (n->slots[i].gen != n->gen) {
			if (n->n == n->cap) {
				n->cap = n->cap ? 2 * n->cap : 256;
				n->e = emp_xrealloc(n->e, n->cap * sizeof(*n->e));
			}
			n->e[n->n] = (struct nest){ .method = method, .level = UINT32_MAX };
			n->slots[i].gen = n->gen;
			n->slots[i].index = n->n;
			return n->n++;
		}
		if (n->e[n->slots[i].index].method == method)
			return n->slots[i].index;
	}
}

/* A call of entry @e closed in the chunk at @level with @ns: an outer entry when no call of its method opened in
 * the chunk is still open. */
static inline void nest_exit(struct nests *n, struct nest *e, uint32_t level, uint64_t ns)
{
	if (--e->open)
		return;
	if (e->level != level) {
		if (n->ntouched == n->touched_cap) {
			n->touched_cap = n->touched_cap ? 2 * n->touched_cap : 256;
			n->touched = emp_xrealloc(n->touched, n->touched_cap * sizeof(*n->touched));
		}
		n->touched[n->ntouched++] = (uint32_t)(e - n->e);
		e->level = level;
	}
	e->ns += ns;
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

/* Fold one chunk: the loop for what this fold makes (@methods: the per-method table, @cct: the chunk's tree,
 * @flat: the outer entries), constants in each of fold_chunk()'s calls, so that each gets its own loop without
 * the others' work and tests. */
static inline __attribute__((always_inline)) void *fold(struct emp_trace_fold *f, unsigned folder, const uint8_t *p,
							  size_t len, const int methods, const int cct, const int flat)
{
	struct folder *w = f->folders[folder];
	struct ltree *t = cct ? &w->tree : NULL;
	struct nests *nests = flat ? &w->nests : NULL; /* then t is NULL: a frame's node is its nest */
	const uint8_t *end = p + len;
	struct summary s = { .ok = 1 };
	uint64_t thread, ticks = 0, head, dt, extra;
	w->known = __atomic_load_n(&f->known_methods, __ATOMIC_RELAXED); /* see known_methods */
	w->nlate = 0;
	uint32_t d = 0, nl = 0;
	struct level *lv = new_level(w, nl++);
	if (t) {
		t->n = 0;
		if (!++t->gen && t->slots) { /* wrapped: an old slot's generation could match again */
			memset(t->slots, 0, t->nslots * sizeof(*t->slots));
			t->gen = 1;
		}
	}
	if (nests) {
		nests->n = nests->ntouched = nests->nouter = 0;
		if (!++nests->gen && nests->slots) { /* wrapped, as the tree's */
			memset(nests->slots, 0, nests->nslots * sizeof(*nests->slots));
			nests->gen = 1;
		}
	}
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
			uint32_t node = 0;
			if (t)
				node = tree_child(t, d ? (int64_t)w->stack[d - 1].node : -1 - (int64_t)(nl - 1),
						  (uint32_t)rest);
			if (nests) {
				node = nest_find(nests, (uint32_t)rest);
				nests->e[node].open++;
			}
			w->stack[d++] = (struct frame){ .tin = ticks, .method = (uint32_t)rest, .node = node };
			if (d > lv->max_depth)
				lv->max_depth = d;
			if (!s.has_enter || rest > s.max_method)
				s.max_method = (uint32_t)rest;
			s.has_enter = 1;
			s.events++;
		} else if (kind == EMP_EV_EXIT || kind == EMP_EV_EXIT_THROW) {
			int threw = kind == EMP_EV_EXIT_THROW;
			if (rest) {
				s.ok = 0;
				break;
			}
			s.events++;
			if (!d) { /* closes the level's call */
				if (nests)
					nests_flush(nests, nl - 1);
				lv->pop_tout = ticks;
				lv->pop_threw = (uint32_t)threw;
				lv = new_level(w, nl++);
				continue;
			}
			const struct frame *c = &w->stack[--d];
			s.time_violations += (uint64_t)(ticks < c->tin || (c->has_child && ticks < c->child_tout));
			uint64_t ns = add_call(w, methods, &s, c, ticks, threw,
					       t ? &t->nodes[c->node].calls : nests ? &nests->e[c->node].calls : NULL);
			if (nests)
				nest_exit(nests, &nests->e[c->node], nl - 1, ns);
			uint64_t dur = ticks >= c->tin ? ticks - c->tin : 0;
			if (d) {
				struct frame *parent = &w->stack[d - 1];
				parent->child_ticks += dur;
				parent->child_tout = ticks;
				parent->has_child = 1;
			} else {
				lv->child_ticks += dur;
				lv->child_ns += ns;
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
	emp_calls_flush(&w->later); /* the tables are merged once every chunk is folded */
	if (nests)
		nests_flush(nests, nl - 1);
	/* One allocation: the summary, its levels, the calls still open, the chunk's tree, its late calls, its outer
	 * entries. */
	s.nnodes = t ? t->n : 0;
	s.nlate = w->nlate;
	s.nouter = nests ? nests->nouter : 0;
	s.nmethods = nests ? nests->n : 0;
	size_t lv_bytes = nl * sizeof(struct level), open_bytes = d * sizeof(struct frame);
	size_t node_bytes = s.nnodes * sizeof(struct lnode), late_bytes = s.nlate * sizeof(struct late_call);
	size_t outer_bytes = s.nouter * sizeof(struct outer), methods_bytes = s.nmethods * sizeof(struct nest);
	struct summary *out = emp_xmalloc(sizeof(*out) + lv_bytes + open_bytes + node_bytes + late_bytes + outer_bytes +
					  methods_bytes);
	*out = s;
	out->nlevels = nl;
	out->nopen = d;
	out->levels = (struct level *)(out + 1);
	out->open = (struct frame *)((char *)out->levels + lv_bytes);
	out->nodes = (struct lnode *)((char *)out->open + open_bytes);
	out->late = (struct late_call *)((char *)out->nodes + node_bytes);
	out->outer = (struct outer *)((char *)out->late + late_bytes);
	out->methods = (struct nest *)((char *)out->outer + outer_bytes);
	memcpy(out->levels, w->levels, lv_bytes);
	if (open_bytes) /* w->stack may be NULL otherwise */
		memcpy(out->open, w->stack, open_bytes);
	if (node_bytes)
		memcpy(out->nodes, t->nodes, node_bytes);
	if (late_bytes)
		memcpy(out->late, w->late, late_bytes);
	if (outer_bytes)
		memcpy(out->outer, nests->outer, outer_bytes);
	if (methods_bytes)
		memcpy(out->methods, nests->e, methods_bytes);
	/* Relaxed: only a count; emp_trace_fold_finish() reads it after the workers were joined (pthread_join orders
	 * every worker's additions before it). */
	__atomic_fetch_add(&f->folded, 1, __ATOMIC_RELAXED);
	return out;
}

static void *fold_chunk(void *arg, unsigned folder, const uint8_t *p, size_t len)
{
	struct emp_trace_fold *f = arg;
	if (f->flat)
		return fold(f, folder, p, len, 0, 0, 1);
	if (f->cct)
		return f->methods ? fold(f, folder, p, len, 1, 1, 0) : fold(f, folder, p, len, 0, 1, 0);
	return f->methods ? fold(f, folder, p, len, 1, 0, 0) : fold(f, folder, p, len, 0, 0, 0);
}

/* ---- the reading thread's side -------------------------------------------------------------------------------- */

static struct rthread *rthread(struct emp_trace_fold *f, uint32_t id)
{
	if (id >= f->nthreads) {
		uint32_t n = id + 16;
		f->threads = emp_xrealloc(f->threads, n * sizeof(*f->threads));
		memset(f->threads + f->nthreads, 0, (n - f->nthreads) * sizeof(*f->threads));
		f->nthreads = n;
	}
	return &f->threads[id];
}

/* Graft @s's tree onto the real one: each node under its parent, or under the call of its level (the tree's root
 * below the real stack of @t); node ids of the open calls become the tree's. */
static void graft(struct emp_trace_fold *f, struct summary *s, const struct rthread *t)
{
	struct emp_cct_node *root = emp_cct_root(f->cct);
	if (s->nnodes > f->gnode_cap) {
		f->gnode_cap = 2 * s->nnodes;
		f->gnode = emp_xrealloc(f->gnode, f->gnode_cap * sizeof(*f->gnode));
	}
	for (uint32_t i = 0; i < s->nnodes; i++) {
		const struct lnode *l = &s->nodes[i];
		struct emp_cct_node *parent;
		if (l->parent >= 0) {
			parent = emp_cct_node(f->cct, f->gnode[l->parent]);
		} else {
			uint64_t k = (uint64_t)(-1 - l->parent);
			parent = k < t->depth ? emp_cct_node(f->cct, t->stack[t->depth - 1 - k].node) : root;
		}
		struct emp_cct_node *n = emp_cct_child(f->cct, parent, emp_symtab_map_get(f->map, l->method));
		n->calls += l->calls;
		n->self_ns += l->self_ns;
		/* the chunk node's calls all have this parent: one answer for all */
		emp_cct_add_inclusive(n, parent, 0, l->total_ns);
		f->gnode[i] = n->id;
	}
	for (uint32_t i = 0; i < s->nopen; i++)
		s->open[i].node = f->gnode[s->open[i].node];
}

/* The tree has grown to its prune (cct.h): prune it keeping the open calls' nodes, which then move.  Where trace.h's
 * readers prune (emp_trace_cct_prune(), where a chunk of events begins), so the trees stay the same. */
static void prune(struct emp_trace_fold *f)
{
	uint8_t *pinned = emp_xcalloc(emp_cct_size(f->cct), 1);
	for (uint32_t i = 0; i < f->nthreads; i++)
		for (uint32_t d = 0; d < f->threads[i].depth; d++)
			pinned[f->threads[i].stack[d].node] = 1;
	uint32_t *remap = emp_cct_prune(f->cct, pinned);
	for (uint32_t i = 0; i < f->nthreads; i++)
		for (uint32_t d = 0; d < f->threads[i].depth; d++)
			f->threads[i].stack[d].node = remap[f->threads[i].stack[d].node];
	free(remap);
	free(pinned);
}

/* A call of @t's real stack at depth @d closed: its figures into its tree node, its inclusive time only when the
 * node is not its caller's (emp_cct_add_inclusive: inside a more node, already counted). */
static void node_add(struct emp_trace_fold *f, const struct rthread *t, uint32_t d, uint64_t calls, uint64_t total_ns,
		     uint64_t self_ns)
{
	struct emp_cct_node *n = emp_cct_node(f->cct, t->stack[d].node);
	n->calls += calls;
	n->self_ns += self_ns;
	emp_cct_add_inclusive(n, d ? emp_cct_node(f->cct, t->stack[d - 1].node) : NULL, 0, total_ns);
}

/* The flat figures of dump-local @method, the table grown to hold it (a defined method: the merge checked). */
static struct flat_method *flat_method(struct emp_trace_fold *f, uint32_t method)
{
	f->fm = emp_xgrow(f->fm, &f->fm_cap, method + 1, sizeof(*f->fm));
	return &f->fm[method];
}

/* Index every method of @t's real stack by its lowest position (f->low), for the outermost tests of a merge. */
static void index_low(struct emp_trace_fold *f, const struct rthread *t)
{
	if (!++f->low_gen) { /* wrapped: an old entry's generation could match again */
		memset(f->low, 0, (size_t)f->low_cap * sizeof(*f->low));
		f->low_gen = 1;
	}
	for (uint32_t i = t->depth; i-- > 0;) {
		uint32_t m = t->stack[i].method;
		f->low = emp_xgrow(f->low, &f->low_cap, m + 1, sizeof(*f->low));
		f->low[m].gen = f->low_gen;
		f->low[m].index = i;
	}
}

/* The call at index @i of the real stack index_low() saw is its method's lowest there: no call of the same
 * method encloses it. */
static int outermost(const struct emp_trace_fold *f, const struct rthread *t, uint32_t i)
{
	return f->low[t->stack[i].method].index == i;
}

/* The flat figures of @s: its methods' calls, and its outer entries on @t's real stack as the chunk found it:
 * one of level k is outermost unless a call of its method is open at index depth - 1 - k or below (levels past
 * the bottom hold roots). */
static void merge_flat(struct emp_trace_fold *f, const struct summary *s, const struct rthread *t)
{
	for (uint32_t i = 0; i < s->nmethods; i++) {
		struct flat_method *fm = flat_method(f, s->methods[i].method);
		/* its symbol as named now, as trace.h takes it at the entry: the map keeps the first it gave, and a
		 * later SYMBOLS chunk of a damaged dump may name the id again */
		emp_symtab_map_get(f->map, s->methods[i].method);
		fm->calls += s->methods[i].calls;
		fm->self_ns += s->methods[i].self_ns;
	}
	for (uint32_t i = 0; i < s->nouter; i++) {
		const struct outer *o = &s->outer[i];
		if (o->level < t->depth && o->method < f->low_cap && f->low[o->method].gen == f->low_gen &&
		    f->low[o->method].index <= t->depth - 1 - o->level)
			continue;
		flat_method(f, o->method)->outer_ns += o->ns;
	}
}

static int merge(struct emp_trace_fold *f, uint32_t thread, struct summary *s)
{
	if (!s || !s->ok || (s->has_enter && s->max_method >= emp_dump_methods_defined(f->r)) ||
	    emp_dump_clock_hz(f->r) != f->hz)
		return -1;
	struct folder *w = f->folders[f->nfolders - 1]; /* the reading thread's */
	struct rthread *t = rthread(f, thread);
	struct emp_trace_stats *st = &f->st;
	for (uint32_t k = 0; k < s->nlevels && k < t->depth; k++)
		if (s->levels[k].entered && s->levels[k].min_tin < t->stack[t->depth - 1 - k].tin)
			return -1; /* how many of its callees entered before it is not known */
	/* The chunk is taken: every method of it is defined (checked above), so its late calls now have a place. */
	w->known = emp_dump_methods_defined(f->r);
	for (uint32_t i = 0; f->methods && i < s->nlate; i++) {
		const struct late_call *l = &s->late[i];
		if (l->method >= w->cap)
			method_table_grow(w, l->method);
		emp_calls_add_later(&w->later, &w->m[l->method], l->ns, l->self_ns, (int)l->threw);
	}
	if (f->cct && emp_cct_prune_due(f->cct))
		prune(f);
	if (f->cct)
		graft(f, s, t);
	if (f->flat) {
		index_low(f, t);
		merge_flat(f, s, t);
	}
	struct emp_cct_node *root = f->cct ? emp_cct_root(f->cct) : NULL;
	uint32_t depth = t->depth;
	for (uint32_t k = 0; k < s->nlevels; k++) {
		const struct level *lv = &s->levels[k];
		int closed = k + 1 < s->nlevels;
		if (k >= t->depth) { /* below the real stack: its callees are roots, its close an exit without entry */
			st->traces += lv->nchild;
			f->traced_ns += lv->child_ns;
			if (root)
				root->total_ns += lv->child_ns;
			if (lv->max_depth > st->max_depth)
				st->max_depth = lv->max_depth;
			st->exit_without_entry += (uint64_t)closed;
			continue;
		}
		struct frame *c = &t->stack[t->depth - 1 - k];
		if (lv->entered)
			st->time_violations += (uint64_t)(c->has_child && c->child_tout > lv->first_tin);
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
		uint64_t figures[3] = { 0 }; /* calls, total_ns, self_ns, for the tree node's (add_call) */
		uint64_t ns = add_call(w, f->methods, s, c, tout, (int)lv->pop_threw, figures);
		depth--;
		if (f->cct)
			node_add(f, t, depth, figures[0], figures[1], figures[2]);
		if (f->flat) {
			struct flat_method *fm = flat_method(f, c->method);
			fm->calls++;
			fm->self_ns += figures[2];
			fm->outer_ns += outermost(f, t, depth) ? ns : 0;
		}
		if (depth) {
			struct frame *parent = &t->stack[depth - 1];
			parent->child_ticks += tout >= c->tin ? tout - c->tin : 0;
			parent->child_tout = tout;
			parent->has_child = 1;
		} else {
			st->traces++;
			f->traced_ns += ns;
			if (root)
				root->total_ns += ns;
		}
	}
	if (depth + s->nopen > t->cap) {
		t->cap = 2 * (depth + s->nopen) + 16;
		t->stack = emp_xrealloc(t->stack, t->cap * sizeof(*t->stack));
	}
	if (s->nopen) /* t->stack may be NULL otherwise */
		memcpy(t->stack + depth, s->open, s->nopen * sizeof(*s->open));
	t->depth = depth + s->nopen;
	st->calls += s->calls;
	st->threw += s->threw;
	st->time_violations += s->time_violations;
	f->self_ns += s->self_ns;
	f->events += s->events;
	if (s->max_ticks > f->max_ticks)
		f->max_ticks = s->max_ticks;
	return 0;
}

int emp_trace_fold_next(struct emp_trace_fold *f, int (*skip_thread)(void *arg, uint32_t thread), void *arg)
{
	uint32_t thread;
	void *s;
	if (f->failed)
		return -1;
	if (!emp_dump_reader_next_folded(f->r, &thread, &s))
		return 0;
	/* the chunks read so far defined these: see known_methods */
	__atomic_store_n(&f->known_methods, emp_dump_methods_defined(f->r), __ATOMIC_RELAXED);
	f->merged++;
	if (!skip_thread || !skip_thread(arg, thread)) {
		f->failed = merge(f, thread, s) != 0;
	} else if (s) { /* the recording's last tick counts every thread's events, as trace.h's readers take it */
		const struct summary *sum = s;
		if (sum->ok && sum->max_ticks > f->max_ticks)
			f->max_ticks = sum->max_ticks;
	}
	free(s);
	return f->failed ? -1 : 1;
}

/* The calls still open added to the tree or the flat figures as ending at the last tick: trace.c's
 * emp_trace_close_open() with emp_trace_cct_ops (cct_call), the same figures to the ns.  trace.h converts them at
 * the rate of the last META chunk: one after the last events (only a damaged or forged dump has it) hands the dump
 * back, as a merge does.  Return: 0, or -1 handed back (nothing added). */
static int close_open(struct emp_trace_fold *f)
{
	if (emp_dump_clock_hz(f->r) != f->hz)
		for (uint32_t i = 0; i < f->nthreads; i++)
			if (f->threads[i].depth)
				return -1;
	const struct emp_trace_clock *clock = &f->folders[f->nfolders - 1]->clock;
	struct emp_cct_node *root = f->cct ? emp_cct_root(f->cct) : NULL;
	for (uint32_t i = 0; i < f->nthreads; i++) {
		struct rthread *t = &f->threads[i];
		if (f->flat)
			index_low(f, t);
		for (uint32_t d = t->depth; d-- > 0;) {
			const struct frame *c = &t->stack[d];
			uint64_t dur = f->max_ticks >= c->tin ? f->max_ticks - c->tin : 0;
			uint64_t self = dur >= c->child_ticks ? dur - c->child_ticks : 0;
			uint64_t ns = emp_trace_clock_ns(clock, dur), self_ns = emp_trace_clock_ns(clock, self);
			if (f->cct)
				node_add(f, t, d, 1, ns, self_ns);
			if (f->flat) {
				struct flat_method *fm = flat_method(f, c->method);
				fm->calls++;
				fm->self_ns += self_ns;
				fm->outer_ns += outermost(f, t, d) ? ns : 0;
			}
			if (d) {
				t->stack[d - 1].child_ticks += dur;
			} else {
				f->traced_ns += ns;
				if (root)
					root->total_ns += ns;
			}
		}
	}
	return 0;
}

int emp_trace_fold_finish(struct emp_trace_fold *f, struct emp_trace_stats *st, uint64_t *self_ns,
			  uint64_t *last_ticks, uint64_t *events)
{
	emp_dump_reader_stop(f->r);
	/* A chunk folded ahead but never merged (the reading stopped before it: a corrupt chunk) is in its folder's
	 * figures all the same. */
	if (f->failed || __atomic_load_n(&f->folded, __ATOMIC_RELAXED) != f->merged)
		return -1;
	if ((f->cct || f->flat) && close_open(f))
		return -1;
	for (uint32_t i = 0; i < f->nthreads; i++) {
		const struct emp_dump_thread *th = emp_dump_thread(f->r, i);
		f->st.unclosed += f->threads[i].depth;
		if (th && (th->flags & EMP_THREAD_ENDED))
			f->st.never_closed += f->threads[i].depth;
		f->threads[i].depth = 0;
	}
	*st = f->st;
	*self_ns = f->self_ns;
	*last_ticks = f->max_ticks;
	*events = f->events;
	return 0;
}

void emp_trace_fold_collect(struct emp_trace_fold *f, struct emp_calls_method *(*slot)(void *arg, uint32_t method),
			    void *arg)
{
	for (unsigned i = 0; i < f->nfolders; i++) {
		struct folder *w = f->folders[i];
		/* the reading thread's folder also counts the calls the merge closes, outside any chunk's fold */
		emp_calls_flush(&w->later);
		for (uint32_t k = 0; k < w->cap; k++)
			if (w->m[k].calls)
				emp_calls_merge(slot(arg, k), &w->m[k]);
	}
}

int emp_trace_fold_collect_flat(struct emp_trace_fold *f, struct emp_flat *fl)
{
	/* Every method's symbol: two of one (two class loaders' copies of a class) nest by name, which the chunks
	 * did not see; trace.h's reading into a tree tells. */
	uint32_t n = f->fm_cap;
	uint32_t *gid = emp_xmalloc((n + 1) * sizeof(*gid)), max_gid = 0;
	for (uint32_t k = 0; k < n; k++) {
		gid[k] = f->fm[k].calls ? emp_symtab_map_get(f->map, k) : UINT32_MAX;
		if (gid[k] != UINT32_MAX && gid[k] >= max_gid)
			max_gid = gid[k] + 1;
	}
	uint32_t *owner = emp_xmalloc((max_gid + 1) * sizeof(*owner));
	memset(owner, 0xff, (max_gid + 1) * sizeof(*owner));
	int rc = 0;
	for (uint32_t k = 0; k < n && !rc; k++) {
		if (gid[k] == UINT32_MAX)
			continue;
		if (owner[gid[k]] != UINT32_MAX)
			rc = -1;
		owner[gid[k]] = k;
	}
	for (uint32_t k = 0; k < n && !rc; k++) {
		if (gid[k] == UINT32_MAX)
			continue;
		struct emp_flat_row *row = emp_flat_row(fl, gid[k]);
		row->self += f->fm[k].self_ns;
		row->total += f->fm[k].outer_ns;
		row->calls += f->fm[k].calls;
	}
	if (!rc)
		fl->all += f->traced_ns;
	free(owner);
	free(gid);
	return rc;
}
