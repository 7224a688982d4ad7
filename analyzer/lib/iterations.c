/* SPDX-License-Identifier: MIT */
/* iterations.c - per-VM node values from dumps split into iterations, or from timing files; see iterations.h. */
#include "iterations.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_reader.h"
#include "folded.h"
#include "profile.h"
#include "timings.h"
#include "trace.h"
#include "util.h"

/* One node's value in one iteration (ticks in trace mode, samples in sample mode, before scaling). */
struct pair {
	uint32_t node;
	double v;
};

/* One iteration of the dump being read: its start and its (node, value) pairs, unsorted, repeats allowed (while
 * the dump is read, a node's repeats are rare: see struct slot). */
struct iter {
	uint64_t tin, tout;
	uint64_t cpu_in, cpu_out; /* the thread CPU times of its first and last CPU event (ns) */
	unsigned ncpu;      /* its CPU events: 2 for an iteration with a CPU time (more when it recurses) */
	int done;           /* its EXIT was seen */
	struct pair *p;
	size_t n, cap;
};

/* Per tree node, while a dump is read: the iteration that last added to it (index + 1, 0 none) and where its pair
 * is in that iteration's list, so a node gets one pair per iteration, not one per call or sample.  (A whole run is
 * one iteration of every call: a pair per call was 16 bytes a call, 4 GB for two H2 traces.)  Iterations open on
 * two threads at once that add to one node take the slot in turn; the other's repeats are merged at the end. */
struct slot {
	uint32_t iter, pos;
};

/* Per dump thread: the open iteration, if any, and the call that opened it. */
struct thr {
	int open;
	size_t iter;        /* index into load.iters */
	uint64_t trace_id;  /* the iteration call: (trace id, eoi) is unique in a dump */
	uint32_t eoi;
};

struct load {
	struct emp_iter_set *s;
	struct emp_dump_reader *r;
	struct emp_symtab_map *map;
	const char *path;
	uint32_t iter_gid;  /* the dump's iteration method, EMP_CCT_NO_SYMBOL until its first ENTER; whole: `run` */
	int conflict;       /* a second, different iteration method was seen */
	int whole;          /* recorded without iteration=: one iteration, the whole run (iters[0]) */
	struct iter *iters;
	size_t niters, cap;
	struct thr *thr;
	uint32_t nthr;
	struct slot *slot;  /* [nslot] by node id */
	uint32_t nslot;
	uint64_t chunk;     /* emp_dump_chunks() of EVENTS at the last look at the tree's limit */
	int again;          /* emp_iter_settle()'s second reading, into the frozen tree */
};

const char *emp_iter_mode_name(enum emp_iter_mode m)
{
	switch (m) {
	case EMP_ITER_MODE_SAMPLE:
		return "sample";
	case EMP_ITER_MODE_TRACE:
		return "trace";
	case EMP_ITER_MODE_PURE:
		return "pure";
	case EMP_ITER_MODE_NONE:
		break;
	}
	return "?";
}

struct emp_iter_set *emp_iter_new(const struct emp_iter_opts *o)
{
	struct emp_iter_set *s = emp_xcalloc(1, sizeof(*s));
	s->st = emp_symtab_new();
	s->cct = emp_cct_new();
	if (o->max_contexts)
		emp_cct_limit(s->cct, o->max_contexts,
			      emp_symtab_intern(s->st, EMP_FRAME_PSEUDO, 0, "", EMP_PROFILE_MORE_CONTEXTS, ""));
	s->iter_gid = EMP_CCT_NO_SYMBOL;
	s->o = *o;
	return s;
}

void emp_iter_free(struct emp_iter_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nvms; i++) {
		free(s->vms[i].path);
		free(s->vms[i].mean);
		free(s->vms[i].var);
		free(s->vms[i].prefix);
	}
	free(s->vms);
	free(s->first_path);
	emp_cct_free(s->cct);
	emp_symtab_free(s->st);
	free(s);
}

static struct thr *thread_state(struct load *l, uint32_t thread)
{
	if (thread >= l->nthr) {
		uint32_t n = l->nthr ? l->nthr : 8;
		while (n <= thread)
			n *= 2;
		l->thr = emp_xrealloc(l->thr, n * sizeof(*l->thr));
		memset(l->thr + l->nthr, 0, (n - l->nthr) * sizeof(*l->thr));
		l->nthr = n;
	}
	return &l->thr[thread];
}

static void append(struct iter *it, uint32_t node, double v)
{
	if (it->n == it->cap) {
		it->cap = it->cap ? 2 * it->cap : 16;
		it->p = emp_xrealloc(it->p, it->cap * sizeof(*it->p));
	}
	it->p[it->n].node = node;
	it->p[it->n].v = v;
	it->n++;
}

/* Add @v to node @n in iteration @i of the dump being read, and to its weight for a prune (iterations.h). */
static void add(struct load *l, size_t i, struct emp_cct_node *n, double v)
{
	struct iter *it = &l->iters[i];
	uint32_t node = n->id;
	n->total_ns += (uint64_t)v;
	if (l->s->pruned && !l->again)
		return; /* the values are void until emp_iter_settle() reads the dumps again: only the weights count */
	l->slot = emp_xgrow(l->slot, &l->nslot, node + 1, sizeof(*l->slot));
	struct slot *sl = &l->slot[node];
	if (sl->iter == i + 1) {
		it->p[sl->pos].v += v;
		return;
	}
	append(it, node, v);
	if (i < UINT32_MAX && it->n <= UINT32_MAX) /* else every add appends: merge_pairs() sums them */
		*sl = (struct slot){ (uint32_t)i + 1, (uint32_t)(it->n - 1) };
}

/* The node of the iteration method below the tree's root. */
static struct emp_cct_node *iter_root(struct load *l)
{
	return emp_cct_child(l->s->cct, emp_cct_root(l->s->cct), l->iter_gid);
}

static void on_enter(void *arg, struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	struct load *l = arg;
	if (l->whole) { /* every call is in the run's one iteration, its path from its thread's root call down */
		c->user = emp_cct_child(l->s->cct, parent ? parent->user : iter_root(l),
					emp_symtab_map_get(l->map, c->method));
		return;
	}
	struct thr *t = thread_state(l, c->thread);
	c->user = NULL;
	if (t->open) {
		/* inside an iteration every open call descends from the iteration call, whose user is its node */
		if (parent && parent->user)
			c->user = emp_cct_child(l->s->cct, parent->user, emp_symtab_map_get(l->map, c->method));
		return;
	}
	const struct emp_dump_method *m = emp_dump_method(l->r, c->method);
	if (!m || !(m->flags & EMP_METHOD_ITERATION))
		return;
	uint32_t gid = emp_symtab_map_get(l->map, c->method);
	if (l->iter_gid == EMP_CCT_NO_SYMBOL)
		l->iter_gid = gid;
	else if (gid != l->iter_gid) {
		l->conflict = 1;
		return;
	}
	if (l->niters == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->iters = emp_xrealloc(l->iters, l->cap * sizeof(*l->iters));
	}
	l->iters[l->niters] = (struct iter){ .tin = c->tin };
	t->open = 1;
	t->iter = l->niters++;
	t->trace_id = c->trace_id;
	t->eoi = c->eoi;
	c->user = iter_root(l);
}

static void on_call(void *arg, const struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	struct load *l = arg;
	/* A call inside a "[more contexts]" node adds nothing: the call that entered it holds its time (cct.h
	 * emp_cct_nested, as the tree views count it). */
	int inside_more = parent && emp_cct_nested(c->user, parent->user);
	if (l->whole) { /* a call adds its duration to its node, a root call to the run's too (the traced time) */
		double d = c->tout >= c->tin ? (double)(c->tout - c->tin) : 0.0;
		if (!inside_more)
			add(l, 0, c->user, d);
		if (!parent)
			add(l, 0, iter_root(l), d);
		return;
	}
	if (!c->user)
		return;
	struct thr *t = thread_state(l, c->thread);
	if (l->s->mode == EMP_ITER_MODE_TRACE && !inside_more)
		add(l, t->iter, c->user,
		    c->tout >= c->tin ? (double)(c->tout - c->tin) : 0.0);
	if (c->trace_id == t->trace_id && c->eoi == t->eoi) {
		l->iters[t->iter].done = 1;
		l->iters[t->iter].tout = c->tout;
		t->open = 0;
	}
}

static const struct emp_trace_ops iter_ops = { .on_enter = on_enter, .on_call = on_call };

static void on_sample(struct load *l, const struct emp_event *ev)
{
	struct thr *t = thread_state(l, ev->thread);
	if (!t->open && !l->whole)
		return;
	size_t it = l->whole ? 0 : t->iter;
	double one = l->s->o.sample_ns ? (double)l->s->interval_ns : 1.0;
	struct emp_cct_node *n = iter_root(l);
	add(l, it, n, one);
	uint32_t from = 0;
	for (uint32_t i = 0; i < ev->depth && !l->whole; i++)
		if (emp_symtab_map_get(l->map, ev->frames[i]) == l->iter_gid) {
			from = i + 1; /* the outermost frame of the iteration method is the node's root */
			break;
		}
	for (uint32_t i = from; i < ev->depth; i++) {
		struct emp_cct_node *child = emp_cct_child(l->s->cct, n, emp_symtab_map_get(l->map, ev->frames[i]));
		if (!emp_cct_nested(child, n)) /* a more node counts the sample once */
			add(l, it, child, one);
		n = child;
	}
}

/* A CPU event inside an open iteration: the first is its entry's, the last its exit's (those of recursive calls of
 * the iteration method come in between). */
static void on_cpu(struct load *l, const struct emp_event *ev)
{
	struct thr *t = thread_state(l, ev->thread);
	if (!t->open || l->whole)
		return;
	struct iter *it = &l->iters[t->iter];
	if (it->ncpu++)
		it->cpu_out = ev->cpu_ns;
	else
		it->cpu_in = ev->cpu_ns;
}

static int cmp_tin(const void *a, const void *b)
{
	const struct iter *x = a, *y = b;
	return x->tin < y->tin ? -1 : x->tin > y->tin;
}

static int cmp_node(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* Merge an iteration's pairs into one per node (sorted by node).  Return: the number of pairs left. */
static size_t merge_pairs(struct iter *it)
{
	if (!it->n)
		return 0;
	qsort(it->p, it->n, sizeof(*it->p), cmp_node);
	size_t w = 0;
	for (size_t i = 1; i < it->n; i++) {
		if (it->p[i].node == it->p[w].node)
			it->p[w].v += it->p[i].v;
		else
			it->p[++w] = it->p[i];
	}
	return it->n = w + 1;
}

/* Turn the iterations of the file just read into the VM's per-node figures, the first @warmup (by start time)
 * dropped; @scale converts the stored values (ticks to ns in trace mode, 1 in sample mode, where a sample already
 * counts 1 or the interval, and for timing files, which hold ns). */
/* The measurement iterations' CPU times: drop the disturbed ones (o.drop_disturbed) and, with the cpu metric,
 * make the iteration node's value the CPU time (ns; @scale converts the node values to ns, @tick_ns ticks).
 * Return: 0, or -1 after printing one line. */
static int apply_cpu(struct load *l, double tick_ns, double scale)
{
	const struct emp_iter_opts *o = &l->s->o;
	qsort(l->iters, l->niters, sizeof(*l->iters), cmp_tin);
	uint32_t root = iter_root(l)->id;
	size_t w = o->warmup;
	for (size_t i = o->warmup; i < l->niters; i++) {
		struct iter *it = &l->iters[i];
		if (it->ncpu < 2 || it->cpu_out < it->cpu_in) {
			emp_errorf("%s: iteration %zu has no CPU time (dump format before 1.2, or lost_iteration_cpu)",
				   l->path, i + 1);
			for (; i < l->niters; i++) /* the caller frees the first w */
				free(l->iters[i].p);
			l->niters = w;
			return -1;
		}
		double cpu = (double)(it->cpu_out - it->cpu_in), wall = (double)(it->tout - it->tin) * tick_ns;
		if (o->drop_disturbed > 0 && wall > o->drop_disturbed * cpu) {
			free(it->p);
			l->s->dropped_disturbed++;
			continue;
		}
		if (o->metric == EMP_ITER_METRIC_CPU) {
			size_t k = 0;
			for (size_t j = 0; j < it->n; j++)
				if (it->p[j].node != root)
					it->p[k++] = it->p[j];
			it->n = k;
			append(it, root, cpu / scale);
		}
		l->iters[w++] = *it;
	}
	l->niters = w;
	if (w == o->warmup) {
		emp_errorf("%s: every measurement iteration is disturbed (wall time above %g times the CPU time)",
			   l->path, o->drop_disturbed);
		return -1;
	}
	return 0;
}

static void reduce(struct load *l, struct emp_iter_vm *vm, double scale, unsigned warmup)
{
	const struct emp_iter_opts *o = &l->s->o;
	qsort(l->iters, l->niters, sizeof(*l->iters), cmp_tin);
	struct iter *m = l->iters + warmup;
	uint32_t nm = (uint32_t)(l->niters - warmup), nn = emp_cct_size(l->s->cct);
	vm->iterations = nm;
	vm->nnodes = nn;
	vm->mean = emp_xcalloc(nn, sizeof(double));
	vm->var = emp_xcalloc(nn, sizeof(double));
	vm->prefix = emp_xcalloc(o->nprefix ? o->nprefix * nn : 1, sizeof(double));
	uint32_t *cnt = emp_xcalloc(nn, sizeof(uint32_t));
	size_t c = 0;
	for (uint32_t j = 0; j < nm; j++) {
		size_t np = merge_pairs(&m[j]);
		for (size_t k = 0; k < np; k++) {
			vm->mean[m[j].p[k].node] += m[j].p[k].v * scale;
			cnt[m[j].p[k].node]++;
		}
		for (; c < o->nprefix && o->prefix[c] == j + 1; c++)
			for (uint32_t k = 0; k < nn; k++)
				vm->prefix[c * nn + k] = vm->mean[k] / (j + 1);
	}
	for (; c < o->nprefix; c++)
		for (uint32_t k = 0; k < nn; k++)
			vm->prefix[c * nn + k] = NAN;
	for (uint32_t k = 0; k < nn; k++)
		vm->mean[k] /= nm;
	/* two-pass variance; the iterations where a node is absent contribute (0 - mean)^2 each */
	for (uint32_t j = 0; j < nm; j++)
		for (size_t k = 0; k < m[j].n; k++) {
			double d = m[j].p[k].v * scale - vm->mean[m[j].p[k].node];
			vm->var[m[j].p[k].node] += d * d;
		}
	for (uint32_t k = 0; k < nn; k++)
		vm->var[k] = nm < 2 ? 0 : (vm->var[k] + (double)(nm - cnt[k]) * vm->mean[k] * vm->mean[k]) / (nm - 1);
	free(cnt);
}

/* A set holds dumps or timing files: refuse @path, @what (a timing file or files when @timing), in a set of the
 * other kind.  Return: 0 or -1 after printing. */
static int check_kind(const struct emp_iter_set *s, const char *path, int timing, const char *what)
{
	if (timing && (s->o.metric == EMP_ITER_METRIC_CPU || s->o.drop_disturbed > 0)) {
		emp_errorf("%s: %s, but the cpu metric and dropping disturbed iterations need dumps", path, what);
		return -1;
	}
	if (s->mode == EMP_ITER_MODE_NONE || (s->mode == EMP_ITER_MODE_PURE) == (timing != 0))
		return 0;
	emp_errorf("%s: %s, but %s is %s: compare dumps with dumps and timing files with timing files", path, what,
		   s->first_path, timing ? "a dump" : "a timing file");
	return -1;
}

/* A new VM of @group read from @path, at the end of the set's VMs. */
static struct emp_iter_vm *new_vm(struct emp_iter_set *s, unsigned group, const char *path)
{
	s->vms = emp_xrealloc(s->vms, (s->nvms + 1) * sizeof(*s->vms));
	struct emp_iter_vm *vm = &s->vms[s->nvms++];
	memset(vm, 0, sizeof(*vm));
	vm->path = emp_xstrdup(path);
	vm->group = group;
	return vm;
}

/* Mode and interval of the dump against the set's.  Return: 0 or -1 after printing. */
static int check_meta(struct emp_iter_set *s, struct emp_dump_reader *r, const char *path)
{
	const char *mode = emp_dump_meta(r, "mode");
	enum emp_iter_mode m = !mode ? EMP_ITER_MODE_NONE
			       : !strcmp(mode, "sample") ? EMP_ITER_MODE_SAMPLE
			       : !strcmp(mode, "trace")  ? EMP_ITER_MODE_TRACE
							 : EMP_ITER_MODE_NONE;
	if (m == EMP_ITER_MODE_NONE) {
		emp_errorf("%s: mode=%s, expected a dump of mode=sample or mode=trace with iteration=", path,
			   mode ? mode : "?");
		return -1;
	}
	const char *iv = m == EMP_ITER_MODE_SAMPLE ? emp_dump_meta(r, "interval_ns") : NULL;
	uint64_t interval = iv ? strtoull(iv, NULL, 10) : 0;
	if (s->mode == EMP_ITER_MODE_NONE) {
		s->mode = m;
		s->interval_ns = interval;
		s->first_path = emp_xstrdup(path);
		return 0;
	}
	if (m != s->mode) {
		emp_errorf("%s: mode=%s, but %s is mode=%s: compare dumps of one mode", path, emp_iter_mode_name(m),
			   s->first_path, emp_iter_mode_name(s->mode));
		return -1;
	}
	if (interval != s->interval_ns) {
		emp_errorf("%s: sampling interval %" PRIu64 " ns, but %s has %" PRIu64 " ns", path, interval,
			   s->first_path, s->interval_ns);
		return -1;
	}
	return 0;
}

/* The agent's options (META options) name no iteration= method: the dump is one iteration, the whole run.  A dump
 * without that META (written by hand, or before it existed) is taken to have markers. */
static int without_iteration(struct emp_dump_reader *r)
{
	const char *o = emp_dump_meta(r, "options");
	if (!o)
		return 0;
	for (const char *p = o; (p = strstr(p, "iteration=")); p++)
		if (p == o || p[-1] == ',')
			return 0;
	return 1;
}

/* The iteration @gid for a message: its method, or what a whole run's pseudo frame stands for. */
static const char *iteration_name(const struct emp_iter_set *s, uint32_t gid)
{
	return emp_symtab_get(s->st, gid)->kind == EMP_FRAME_PSEUDO ? "the whole run (recorded without iteration=)"
								     : emp_symtab_name(s->st, gid, 0);
}

/* Where a chunk of events begins, prune the union tree when it is due (iterations.h): the values read so far are
 * void from then on (emp_iter_settle reads every dump again); the nodes' total_ns, their weights, are not. */
static void prune_due(struct load *l, struct emp_trace *tr)
{
	struct emp_iter_set *s = l->s;
	uint64_t chunk = emp_dump_chunks(l->r, EMP_CHUNK_EVENTS);
	if (chunk == l->chunk)
		return;
	l->chunk = chunk;
	if (!emp_cct_prune_due(s->cct))
		return;
	uint8_t *pinned = emp_xcalloc(emp_cct_size(s->cct), 1);
	if (l->iter_gid != EMP_CCT_NO_SYMBOL) {
		const struct emp_cct_node *it = emp_cct_find_child(s->cct, emp_cct_root(s->cct), l->iter_gid);
		if (it)
			pinned[it->id] = 1;
	}
	free(emp_trace_prune_tree(tr, s->cct, pinned));
	free(pinned);
	s->pruned = 1;
	/* this dump's pairs name nodes that moved: drop them (their weights stay in the tree) */
	for (size_t i = 0; i < l->niters; i++)
		l->iters[i].n = 0;
	if (l->slot)
		memset(l->slot, 0, l->nslot * sizeof(*l->slot));
}

/* emp_iter_load(), or with @again the same dump read once more (emp_iter_settle: its status already reported). */
static int load_dump(struct emp_iter_set *s, struct emp_input *in, unsigned group, const char *path, int again)
{
	if (check_kind(s, path, 0, "a dump"))
		return -1;
	if (s->o.iteration_name) {
		emp_errorf("%s: a dump names its iteration method itself (agent option iteration=); --iteration-name=%s "
			   "is for timing files", path, s->o.iteration_name);
		return -1;
	}
	struct emp_dump_reader *r = emp_input_open(in, path);
	if (!r)
		return -1;
	int rc = -1;
	struct load l = { .s = s, .r = r, .path = path, .iter_gid = EMP_CCT_NO_SYMBOL, .again = again };
	struct emp_trace *tr = NULL;
	/* META is absorbed with the first chunks: read the first event before looking at it */
	struct emp_event ev;
	int more = emp_dump_reader_next(r, &ev);
	if (check_meta(s, r, path))
		goto out;
	l.whole = without_iteration(r);
	if (l.whole) {
		if (s->o.metric == EMP_ITER_METRIC_CPU || s->o.drop_disturbed > 0) {
			emp_errorf("%s: recorded without iteration= (one iteration: the whole run), but the cpu metric and "
				   "dropping disturbed iterations need iteration markers", path);
			goto out;
		}
		l.iter_gid = emp_symtab_intern(s->st, EMP_FRAME_PSEUDO, 0, "", "run", "");
		l.iters = emp_xcalloc(1, sizeof(*l.iters));
		l.iters[0].done = 1;
		l.niters = l.cap = 1;
	}
	l.map = emp_symtab_map_new(s->st, r);
	tr = emp_trace_new(&iter_ops, &l);
	uint64_t last_ticks = 0, events = 0;
	double t0 = s->o.progress ? emp_now_s() : 0;
	for (; more; more = emp_dump_reader_next(r, &ev), events++) {
		prune_due(&l, tr);
		last_ticks = ev.ticks > last_ticks ? ev.ticks : last_ticks;
		if (ev.kind == EMP_EV_SAMPLE) {
			if (s->mode == EMP_ITER_MODE_SAMPLE)
				on_sample(&l, &ev);
		} else if (ev.kind == EMP_EV_CPU) {
			on_cpu(&l, &ev);
		} else {
			emp_trace_event(tr, &ev);
		}
	}
	if (l.whole && s->mode == EMP_ITER_MODE_TRACE) /* the run ends with the recording, cut calls too */
		emp_trace_close_open(tr, last_ticks, on_call, &l);
	emp_trace_finish(tr, r);
	if (!again)
		emp_input_done(in, r);
	/* iterations still open at the end (a truncated dump, System.exit inside them) are incomplete: drop them */
	size_t w = 0;
	for (size_t i = 0; i < l.niters; i++) {
		if (l.iters[i].done)
			l.iters[w++] = l.iters[i];
		else
			free(l.iters[i].p);
	}
	l.niters = w;
	if (l.conflict) {
		emp_errorf("%s: more than one method is flagged as the iteration method", path);
		goto out;
	}
	if (l.iter_gid == EMP_CCT_NO_SYMBOL) {
		emp_errorf("%s: no iteration markers (record with the agent option iteration=pkg.Class.method)", path);
		goto out;
	}
	if (s->iter_gid != EMP_CCT_NO_SYMBOL && s->iter_gid != l.iter_gid) {
		emp_errorf("%s: iterations of %s, but %s has iterations of %s: record the dumps of a comparison with the "
			   "same iteration= (or none)", path, iteration_name(s, l.iter_gid), s->first_path,
			   iteration_name(s, s->iter_gid));
		goto out;
	}
	s->iter_gid = l.iter_gid;
	unsigned warmup = l.whole ? 0 : s->o.warmup; /* a whole run has no warm-up to drop */
	if (l.niters <= warmup) {
		emp_errorf("%s: %zu complete iterations, none left after --warmup %u", path, l.niters, s->o.warmup);
		goto out;
	}
	double scale = s->mode == EMP_ITER_MODE_TRACE ? emp_dump_ticks_to_ns(r, 1.0) : 1.0;
	if ((s->o.metric == EMP_ITER_METRIC_CPU || s->o.drop_disturbed > 0) &&
	    apply_cpu(&l, emp_dump_ticks_to_ns(r, 1.0), scale))
		goto out;
	reduce(&l, new_vm(s, group, path), scale, warmup);
	rc = 0;
	double took = s->o.progress ? emp_now_s() - t0 : 0;
	if (took >= 1) /* a long read says so: a set of whole-program traces takes minutes */
		fprintf(stderr, "emp-analyze: %s %s: %" PRIu64 " events in %.1f s\n", again ? "read again" : "read",
			path, events, took);
out:
	for (size_t i = 0; i < l.niters; i++)
		free(l.iters[i].p);
	free(l.iters);
	free(l.thr);
	free(l.slot);
	emp_trace_free(tr);
	if (l.map)
		emp_symtab_map_free(l.map);
	emp_dump_reader_close(r);
	return rc;
}

/* The @n values @v (ns) of one VM of a pure set, read from @path: one iteration each, in order. */
static void load_values(struct emp_iter_set *s, unsigned group, const char *path, const double *v, size_t n)
{
	if (s->mode == EMP_ITER_MODE_NONE) {
		s->mode = EMP_ITER_MODE_PURE;
		s->first_path = emp_xstrdup(path);
		s->iter_gid = emp_symtab_intern(s->st, EMP_FRAME_PSEUDO, 0, "",
						s->o.iteration_name ? s->o.iteration_name
								    : s->runs_set ? "run" : "iteration", "");
	}
	/* one iteration per value, in order, each with the value of the one node */
	uint32_t node = emp_cct_child(s->cct, emp_cct_root(s->cct), s->iter_gid)->id;
	struct load l = { .s = s, .niters = n };
	struct pair *p = emp_xmalloc(n * sizeof(*p));
	l.iters = emp_xmalloc(n * sizeof(*l.iters));
	for (size_t i = 0; i < n; i++) {
		p[i] = (struct pair){ .node = node, .v = v[i] };
		l.iters[i] = (struct iter){ .tin = i, .done = 1, .p = &p[i], .n = 1, .cap = 1 };
	}
	reduce(&l, new_vm(s, group, path), 1.0, 0);
	free(l.iters);
	free(p);
}

int emp_iter_load(struct emp_iter_set *s, struct emp_input *in, unsigned group, const char *path)
{
	return load_dump(s, in, group, path, 0);
}

int emp_iter_settle(struct emp_iter_set *s, struct emp_input *in)
{
	if (!s->pruned)
		return 0;
	if (s->o.progress)
		fprintf(stderr, "emp-analyze: the calling contexts passed --max-contexts=%u: reading the %zu dumps "
			"again into the pruned tree\n", (unsigned)s->o.max_contexts, s->nvms);
	emp_cct_freeze(s->cct);
	struct emp_iter_vm *vms = s->vms;
	size_t n = s->nvms;
	s->vms = NULL;
	s->nvms = 0;
	s->dropped_disturbed = 0;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rc && load_dump(s, in, vms[i].group, vms[i].path, 1))
			rc = -1;
		free(vms[i].path);
		free(vms[i].mean);
		free(vms[i].var);
		free(vms[i].prefix);
	}
	free(vms);
	return rc;
}

int emp_iter_load_timings(struct emp_iter_set *s, unsigned group, const char *path)
{
	if (check_kind(s, path, 1, "a timing file"))
		return -1;
	if (s->runs_set) {
		emp_errorf("%s: a timing file, but %s holds emp-run runs: compare runs with runs", path, s->first_path);
		return -1;
	}
	double *ns;
	size_t n;
	if (emp_timings_read(path, s->o.warmup, &ns, &n))
		return -1;
	load_values(s, group, path, ns, n); /* the warm-up rows were not read */
	free(ns);
	return 0;
}

/* The runs of the emp-run directory @dir as VMs of @group.  Return: as emp_timings_runs(). */
static int load_runs(struct emp_iter_set *s, unsigned group, const char *dir)
{
	char **labels;
	double *ns;
	int runs = emp_timings_runs(dir, s->o.run_time, &labels, &ns), n = runs;
	if (runs <= 0)
		return runs;
	if (check_kind(s, dir, 1, "emp-run runs")) {
		n = -1;
	} else if (s->mode == EMP_ITER_MODE_PURE && !s->runs_set) {
		emp_errorf("%s: emp-run runs, but %s is a timing file: compare runs with runs", dir, s->first_path);
		n = -1;
	}
	if (n > 0)
		s->runs_set = 1;
	for (int i = 0; i < n; i++)
		load_values(s, group, labels[i], &ns[i], 1);
	emp_timings_list_free(labels, (size_t)runs); /* all of them, refused or not */
	free(ns);
	return n;
}

int emp_iter_load_dir(struct emp_iter_set *s, struct emp_input *in, unsigned group, const char *dir)
{
	char **emp = NULL, **csv = NULL;
	int ne = emp_timings_list(dir, ".emp", &emp), nc = ne < 0 ? -1 : emp_timings_list(dir, ".csv", &csv);
	int rc = -1;
	if (ne < 0 || nc < 0)
		goto out;
	if (ne && nc) {
		emp_errorf("%s: both dumps (*.emp) and timing files (*.csv) in this directory: one set per directory", dir);
		goto out;
	}
	if (!ne && !nc) {
		rc = load_runs(s, group, dir);
		if (rc == 0) {
			rc = -1;
			emp_errorf("%s: no dump (*.emp), no timing file (*.csv), and not a directory of emp-run (no "
				   "../../runs.csv)", dir);
		}
		goto out;
	}
	if (check_kind(s, dir, nc, nc ? "timing files (*.csv)" : "dumps (*.emp)"))
		goto out;
	for (int i = 0; i < ne + nc; i++)
		if (nc ? emp_iter_load_timings(s, group, csv[i]) : emp_iter_load(s, in, group, emp[i]))
			goto out;
	rc = ne + nc;
out:
	emp_timings_list_free(emp, ne > 0 ? (size_t)ne : 0);
	emp_timings_list_free(csv, nc > 0 ? (size_t)nc : 0);
	return rc;
}

double emp_iter_value(const struct emp_iter_vm *vm, uint32_t id)
{
	return id < vm->nnodes ? vm->mean[id] : 0.0;
}

double emp_iter_var(const struct emp_iter_vm *vm, uint32_t id)
{
	return id < vm->nnodes ? vm->var[id] : 0.0;
}

double emp_iter_prefix_value(const struct emp_iter_set *s, const struct emp_iter_vm *vm, size_t c, uint32_t id)
{
	if (c >= s->o.nprefix)
		return NAN;
	if (id >= vm->nnodes)
		return isnan(vm->prefix[c * vm->nnodes]) ? NAN : 0.0;
	return vm->prefix[c * vm->nnodes + id];
}

uint32_t emp_iter_more_share(const struct emp_iter_set *s, double share[2])
{
	double more[2] = { 0, 0 }, all[2] = { 0, 0 };
	uint32_t n = 0, nn = emp_cct_size(s->cct);
	const struct emp_cct_node *it = emp_cct_root(s->cct)->first_child;
	for (uint32_t id = 1; id < nn; id++) {
		const struct emp_cct_node *node = emp_cct_node(s->cct, id);
		int is_more = emp_cct_is_more(s->cct, node);
		if (!is_more && node != it)
			continue;
		n += (uint32_t)is_more;
		for (size_t v = 0; v < s->nvms; v++)
			(is_more ? more : all)[s->vms[v].group & 1] += emp_iter_value(&s->vms[v], id);
	}
	for (int g = 0; g < 2; g++)
		share[g] = all[g] > 0 ? more[g] / all[g] : 0;
	return n;
}

char *emp_iter_node_path(const struct emp_iter_set *s, const struct emp_cct_node *n)
{
	struct emp_folded_names *f = emp_folded_names_new(s->st, 0);
	size_t len;
	char *out = emp_xstrdup(emp_folded_path(f, n, UINT32_MAX, &len));
	emp_folded_names_free(f);
	return out;
}
