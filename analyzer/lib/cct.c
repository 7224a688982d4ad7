/* SPDX-License-Identifier: MIT */
/* cct.c - calling-context tree; see cct.h.
 *
 * Nodes live in blocks of BLOCK nodes that are never reallocated (stable pointers).  Child lookup goes through one
 * open-addressing hash table keyed by (parent id, gid), linear probing, at most half full; a slot holds its key, so
 * a probe reads no node (a graft of trace_fold.h looks up every node of every chunk's tree).
 *
 * With a limit (emp_cct_limit), a path new once the tree is full ends in its deepest existing node's "more" child,
 * which is made past the limit (at most one per node, so the tree stays under twice the limit) and is every one
 * of its own descendants: emp_cct_child() returns it for any symbol under it.  emp_cct_prune() makes room again by
 * folding the lightest contexts into more nodes, compacting the nodes in place (ids stay in creation order). */
#include "cct.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#define BLOCK_BITS 12
#define BLOCK (1u << BLOCK_BITS)
#define EMPTY UINT32_MAX

struct slot {
	uint32_t parent, gid; /* the key */
	uint32_t id;          /* the node, EMPTY when free */
};

struct emp_cct {
	struct emp_cct_node **blocks;
	uint32_t nblocks;
	uint32_t n;      /* nodes */
	struct slot *slots;
	uint32_t nslots;
	uint32_t max_nodes; /* emp_cct_limit(); 0: none */
	uint32_t more_gid;  /* the symbol of the nodes that take the paths past it */
	int frozen;         /* emp_cct_freeze(): only more nodes are made */
	uint32_t pruned_n;  /* nodes right after the last emp_cct_prune() */
	uint32_t cut;       /* the weight bucket the last prune cut at: where the next one looks first */
};

static uint32_t slot_of(uint32_t parent, uint32_t gid, uint32_t mask)
{
	uint64_t k = ((uint64_t)parent << 32 | gid) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(k >> 32) & mask;
}

struct emp_cct_node *emp_cct_node(const struct emp_cct *c, uint32_t id)
{
	return &c->blocks[id >> BLOCK_BITS][id & (BLOCK - 1)];
}

static struct emp_cct_node *new_node(struct emp_cct *c)
{
	if (c->n == c->nblocks * BLOCK) {
		c->blocks = emp_xrealloc(c->blocks, (c->nblocks + 1) * sizeof(*c->blocks));
		c->blocks[c->nblocks++] = emp_xcalloc(BLOCK, sizeof(struct emp_cct_node));
	}
	struct emp_cct_node *n = emp_cct_node(c, c->n);
	n->id = c->n++;
	return n;
}

struct emp_cct *emp_cct_new(void)
{
	struct emp_cct *c = emp_xcalloc(1, sizeof(*c));
	c->nslots = 1024;
	c->slots = emp_xmalloc(c->nslots * sizeof(*c->slots));
	memset(c->slots, 0xff, c->nslots * sizeof(*c->slots)); /* id EMPTY */
	struct emp_cct_node *root = new_node(c);
	root->gid = EMP_CCT_NO_SYMBOL;
	return c;
}

void emp_cct_free(struct emp_cct *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->nblocks; i++)
		free(c->blocks[i]);
	free(c->blocks);
	free(c->slots);
	free(c);
}

struct emp_cct_node *emp_cct_root(struct emp_cct *c)
{
	return emp_cct_node(c, 0);
}

uint32_t emp_cct_size(const struct emp_cct *c)
{
	return c->n;
}

/* The slot holding (parent, gid), or the free slot where it belongs. */
static struct slot *lookup(const struct emp_cct *c, uint32_t parent, uint32_t gid)
{
	uint32_t mask = c->nslots - 1;
	for (uint32_t i = slot_of(parent, gid, mask);; i = (i + 1) & mask) {
		struct slot *s = &c->slots[i];
		if (s->id == EMPTY || (s->gid == gid && s->parent == parent))
			return s;
	}
}

static void grow_slots(struct emp_cct *c)
{
	free(c->slots);
	c->nslots *= 2;
	c->slots = emp_xmalloc(c->nslots * sizeof(*c->slots));
	memset(c->slots, 0xff, c->nslots * sizeof(*c->slots));
	for (uint32_t id = 1; id < c->n; id++) {
		const struct emp_cct_node *n = emp_cct_node(c, id);
		*lookup(c, n->parent->id, n->gid) = (struct slot){ n->parent->id, n->gid, id };
	}
}

struct emp_cct_node *emp_cct_find_child(const struct emp_cct *c, const struct emp_cct_node *parent, uint32_t gid)
{
	uint32_t id = lookup(c, parent->id, gid)->id;
	return id == EMPTY ? NULL : emp_cct_node(c, id);
}

void emp_cct_limit(struct emp_cct *c, uint32_t max_nodes, uint32_t more_gid)
{
	c->max_nodes = max_nodes;
	c->more_gid = more_gid;
}

void emp_cct_freeze(struct emp_cct *c)
{
	c->frozen = 1;
}

int emp_cct_is_more(const struct emp_cct *c, const struct emp_cct_node *n)
{
	return c->max_nodes && n->parent && n->gid == c->more_gid;
}

static struct emp_cct_node *add_child(struct emp_cct *c, struct slot *slot, struct emp_cct_node *parent, uint32_t gid)
{
	struct emp_cct_node *n = new_node(c);
	n->gid = gid;
	n->depth = parent->depth + 1;
	n->parent = parent;
	n->next_sibling = parent->first_child;
	parent->first_child = n;
	parent->nchildren++;
	*slot = (struct slot){ parent->id, gid, n->id };
	if (2 * c->n > c->nslots)
		grow_slots(c);
	return n;
}

struct emp_cct_node *emp_cct_child(struct emp_cct *c, struct emp_cct_node *parent, uint32_t gid)
{
	if (__builtin_expect(c->max_nodes != 0, 0) && emp_cct_is_more(c, parent))
		return parent; /* a more node is its own descendants */
	struct slot *slot = lookup(c, parent->id, gid);
	if (slot->id != EMPTY)
		return emp_cct_node(c, slot->id);
	if (c->max_nodes && (c->n >= c->max_nodes || c->frozen) && gid != c->more_gid) {
		gid = c->more_gid;
		slot = lookup(c, parent->id, gid);
		if (slot->id != EMPTY)
			return emp_cct_node(c, slot->id);
	}
	return add_child(c, slot, parent, gid);
}

void emp_cct_add_tree(struct emp_cct *dst, const struct emp_cct *src)
{
	uint32_t *to = emp_xmalloc(src->n * sizeof(*to)); /* src node id -> dst node id */
	struct emp_cct_node *root = emp_cct_root(dst);
	const struct emp_cct_node *sroot = emp_cct_node(src, 0);
	to[0] = 0;
	root->self_samples += sroot->self_samples;
	root->total_samples += sroot->total_samples;
	root->calls += sroot->calls;
	root->total_ns += sroot->total_ns;
	root->self_ns += sroot->self_ns;
	for (uint32_t id = 1; id < src->n; id++) { /* a parent's id is below its children's */
		const struct emp_cct_node *n = emp_cct_node(src, id);
		struct emp_cct_node *dp = emp_cct_node(dst, to[n->parent->id]);
		struct emp_cct_node *d = emp_cct_child(dst, dp, n->gid);
		d->self_samples += n->self_samples;
		d->calls += n->calls;
		d->self_ns += n->self_ns;
		emp_cct_add_inclusive(d, dp, n->total_samples, n->total_ns);
		to[id] = d->id;
	}
	free(to);
}

struct emp_cct_node *emp_cct_add_stack(struct emp_cct *c, const uint32_t *gids, uint32_t depth, uint64_t count)
{
	struct emp_cct_node *n = emp_cct_root(c);
	n->total_samples += count;
	for (uint32_t i = 0; i < depth; i++) {
		struct emp_cct_node *p = n;
		n = emp_cct_child(c, p, gids[i]);
		emp_cct_add_inclusive(n, p, count, 0);
	}
	n->self_samples += count;
	return n;
}

uint32_t emp_cct_path(const struct emp_cct_node *n, uint32_t *gids, uint32_t max)
{
	uint32_t depth = n->depth;
	for (; n && n->parent; n = n->parent)
		if (n->depth - 1 < max)
			gids[n->depth - 1] = n->gid;
	return depth;
}

static int cmp_gid(const struct emp_cct_node *x, const struct emp_cct_node *y)
{
	return x->gid < y->gid ? -1 : x->gid > y->gid;
}

int emp_cct_cmp_samples(const void *a, const void *b)
{
	const struct emp_cct_node *x = *(struct emp_cct_node *const *)a, *y = *(struct emp_cct_node *const *)b;
	if (x->total_samples != y->total_samples)
		return x->total_samples > y->total_samples ? -1 : 1;
	return cmp_gid(x, y);
}

int emp_cct_cmp_time(const void *a, const void *b)
{
	const struct emp_cct_node *x = *(struct emp_cct_node *const *)a, *y = *(struct emp_cct_node *const *)b;
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return cmp_gid(x, y);
}

uint64_t emp_cct_total(const struct emp_cct_node *n, enum emp_cct_weight w)
{
	return w == EMP_CCT_NS ? n->total_ns : n->total_samples;
}

uint64_t emp_cct_self(const struct emp_cct_node *n, enum emp_cct_weight w)
{
	return w == EMP_CCT_NS ? n->self_ns : n->self_samples;
}

int (*emp_cct_cmp(enum emp_cct_weight w))(const void *, const void *)
{
	return w == EMP_CCT_NS ? emp_cct_cmp_time : emp_cct_cmp_samples;
}

size_t emp_cct_children(const struct emp_cct_node *n, struct emp_cct_node ***out,
			int (*cmp)(const void *, const void *))
{
	*out = NULL;
	if (!n->nchildren)
		return 0;
	struct emp_cct_node **v = emp_xmalloc(n->nchildren * sizeof(*v));
	size_t k = 0;
	for (struct emp_cct_node *ch = n->first_child; ch; ch = ch->next_sibling)
		v[k++] = ch;
	/* the sibling list is newest first: reverse it into creation order */
	for (size_t i = 0; i < k / 2; i++) {
		struct emp_cct_node *t = v[i];
		v[i] = v[k - 1 - i];
		v[k - 1 - i] = t;
	}
	if (cmp)
		qsort(v, k, sizeof(*v), cmp);
	*out = v;
	return k;
}

int emp_cct_walk(struct emp_cct *c, int (*cmp)(const void *, const void *), emp_cct_visit_fn fn, void *arg)
{
	/* An explicit stack of pending nodes: children are pushed in reverse order so the first is popped first. */
	size_t cap = 256, top = 0;
	struct emp_cct_node **stack = emp_xmalloc(cap * sizeof(*stack));
	struct emp_cct_node **kids;
	size_t k = emp_cct_children(emp_cct_root(c), &kids, cmp);
	int rc = 0;
	for (;;) {
		if (top + k > cap) {
			while (top + k > cap)
				cap *= 2;
			stack = emp_xrealloc(stack, cap * sizeof(*stack));
		}
		for (size_t i = k; i-- > 0;)
			stack[top++] = kids[i];
		free(kids);
		kids = NULL;
		k = 0;
		if (!top)
			break;
		struct emp_cct_node *n = stack[--top];
		int v = fn(n, arg);
		if (v < 0) {
			rc = -1;
			break;
		}
		if (v == 0)
			k = emp_cct_children(n, &kids, cmp);
	}
	free(stack);
	return rc;
}

int emp_cct_prune_due(const struct emp_cct *c)
{
	return c->max_nodes && !c->frozen && c->n >= c->max_nodes - c->max_nodes / 4 && c->n != c->pruned_n;
}

/* A node's weight for the prune: its inclusive samples when the tree has samples, else its inclusive ns; in 4
 * sub-buckets per power of two, so the cut is found from a histogram in one pass. */
#define WEIGHT_BUCKETS (65 * 4)
static unsigned weight_bucket(const struct emp_cct_node *n, int samples)
{
	uint64_t w = samples ? n->total_samples : n->total_ns;
	if (w < 4)
		return (unsigned)w;
	unsigned e = 63u - (unsigned)__builtin_clzll(w); /* >= 2 */
	return 4 * (e - 1) + (unsigned)(w >> (e - 2) & 3);
}

/* The figures of removed node @n into @dest: all of them when @n is the topmost removed node of its path (the
 * calls and samples entering the more node from outside), else its calls and self figures only (the inclusive
 * ones are inside its removed caller's already). */
static void fold_into(struct emp_cct_node *dest, const struct emp_cct_node *n, int topmost)
{
	dest->calls += n->calls;
	dest->self_ns += n->self_ns;
	dest->self_samples += n->self_samples;
	if (topmost) {
		dest->total_ns += n->total_ns;
		dest->total_samples += n->total_samples;
	}
}

/* What a prune looks at, per node (old id): its caller, its weight's bucket, whether it is a more node, pinned
 * (or the root), or has a more node. */
struct prune {
	uint32_t n;
	uint32_t *parent;
	uint16_t *bucket;
	uint8_t *flags;
	uint8_t *keep; /* KEEP, and NEW_MORE on a kept caller that gets a more node */
};
enum { PINNED = 1, MORE = 2, HAS_MORE = 4 };
enum { KEEP = 1, NEW_MORE = 2 };

/* Mark in pr->keep what a prune keeps with cut @cut: the pinned nodes, the others of weight bucket >= @cut,
 * their callers, a kept node's more node.  Return: the nodes the tree then holds, the more nodes it makes
 * included. */
static uint32_t mark(struct prune *pr, uint32_t cut)
{
	/* Callers after their callees (a parent's id is below its children's), so a node is final when reached. */
	memset(pr->keep, 0, pr->n);
	for (uint32_t id = pr->n; id-- > 1;) {
		if ((pr->flags[id] & PINNED) || (!(pr->flags[id] & MORE) && pr->bucket[id] >= cut))
			pr->keep[id] = KEEP;
		if (pr->keep[id])
			pr->keep[pr->parent[id]] = KEEP;
	}
	pr->keep[0] = KEEP;
	uint32_t kept = 1;
	for (uint32_t id = 1; id < pr->n; id++) { /* callers first: their marks are final */
		uint32_t p = pr->parent[id];
		if (pr->flags[id] & MORE)
			pr->keep[id] |= pr->keep[p] & KEEP;
		else if (!pr->keep[id] && pr->keep[p] && !(pr->flags[p] & HAS_MORE) && !(pr->keep[p] & NEW_MORE))
			pr->keep[p] |= NEW_MORE, kept++;
		kept += pr->keep[id] & KEEP;
	}
	return kept;
}

/* The cut for @pr: the lowest weight bucket whose prune leaves at most half the limit (kept nodes only grow as the
 * cut falls), or WEIGHT_BUCKETS (every unpinned node removed) when even that leaves more.  Searched from the last
 * prune's cut outwards in growing steps, then halving: one prune's cut is near the next one's. */
static uint32_t find_cut(struct emp_cct *c, struct prune *pr)
{
	const uint32_t room = c->max_nodes / 2;
	uint32_t lo = 0, hi = WEIGHT_BUCKETS; /* the cut is in [lo, hi]: mark(hi) fits, mark(lo - 1) does not */
	if (mark(pr, c->cut) <= room) {
		hi = c->cut;
		for (uint32_t step = 1; hi > 0; step *= 2) {
			uint32_t at = hi > step ? hi - step : 0;
			if (mark(pr, at) > room) {
				lo = at + 1;
				break;
			}
			hi = at;
		}
	} else {
		lo = c->cut + 1;
		for (uint32_t step = 1; lo < WEIGHT_BUCKETS; step *= 2) {
			uint32_t at = lo + step - 1 < WEIGHT_BUCKETS ? lo + step - 1 : WEIGHT_BUCKETS;
			if (mark(pr, at) <= room) {
				hi = at;
				break;
			}
			lo = at + 1;
		}
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (mark(pr, mid) <= room)
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi;
}

/* Every node @keep does not keep: its figures into the more node of its deepest kept caller, made when missing
 * (after the old nodes, so ids stay in creation order), whose old id goes to @dest[id]. */
static void fold_removed(struct emp_cct *c, const uint8_t *keep, uint32_t n, uint32_t *dest)
{
	for (uint32_t id = 1; id < n; id++) {
		if (keep[id] & KEEP)
			continue;
		struct emp_cct_node *x = emp_cct_node(c, id), *p = x->parent;
		int topmost = keep[p->id] & KEEP;
		if (topmost) {
			struct slot *slot = lookup(c, p->id, c->more_gid);
			dest[id] = slot->id != EMPTY ? slot->id : add_child(c, slot, p, c->more_gid)->id;
		} else {
			dest[id] = dest[p->id];
		}
		fold_into(emp_cct_node(c, dest[id]), x, topmost);
	}
}

/* Move the nodes @keep keeps among the first @n (and every later one: the new more nodes) down to dense ids in the
 * same order, then make parents, children lists (newest first, as add_child() keeps them) and the hash table
 * again.  @new_id (c->n of them) receives each kept node's new id. */
static void compact(struct emp_cct *c, const uint8_t *keep, uint32_t n, uint32_t *new_id)
{
	const uint32_t total = c->n;
	uint32_t *parent_of = emp_xmalloc(total * sizeof(*parent_of));
	for (uint32_t id = 0; id < total; id++) { /* before any node moves: a moved node overwrites another */
		const struct emp_cct_node *x = emp_cct_node(c, id);
		parent_of[id] = x->parent ? x->parent->id : EMPTY;
	}
	uint32_t k = 0;
	for (uint32_t id = 0; id < total; id++) {
		if (id < n && !(keep[id] & KEEP))
			continue;
		new_id[id] = k;
		parent_of[k] = parent_of[id]; /* k <= id: that entry was read already */
		if (k != id)
			*emp_cct_node(c, k) = *emp_cct_node(c, id);
		emp_cct_node(c, k)->id = k;
		k++;
	}
	for (uint32_t id = 0; id < k; id++) {
		struct emp_cct_node *x = emp_cct_node(c, id);
		x->parent = parent_of[id] == EMPTY ? NULL : emp_cct_node(c, new_id[parent_of[id]]);
		x->first_child = NULL;
		x->next_sibling = NULL;
		x->nchildren = 0;
	}
	for (uint32_t id = 1; id < k; id++) {
		struct emp_cct_node *x = emp_cct_node(c, id);
		x->next_sibling = x->parent->first_child;
		x->parent->first_child = x;
		x->parent->nchildren++;
	}
	uint32_t blocks = (k + BLOCK - 1) / BLOCK;
	for (uint32_t b = blocks; b < c->nblocks; b++)
		free(c->blocks[b]);
	c->nblocks = blocks;
	c->n = k;
	/* new_node() takes zeroed nodes */
	memset(emp_cct_node(c, k - 1) + 1, 0, ((size_t)blocks * BLOCK - k) * sizeof(struct emp_cct_node));
	uint32_t nslots = 1024;
	while (nslots < 2 * k + 2)
		nslots *= 2;
	c->nslots = nslots / 2; /* grow_slots() doubles it and hashes every node again */
	grow_slots(c);
	free(parent_of);
}

uint32_t *emp_cct_prune(struct emp_cct *c, const uint8_t *pinned)
{
	const uint32_t n = c->n;
	const int samples = emp_cct_root(c)->total_samples != 0;
	struct prune pr = { n, emp_xmalloc(n * sizeof(uint32_t)), emp_xmalloc(n * sizeof(uint16_t)), emp_xcalloc(n, 1),
			    emp_xmalloc(n) };
	pr.flags[0] = PINNED;
	for (uint32_t id = 1; id < n; id++) {
		const struct emp_cct_node *x = emp_cct_node(c, id);
		pr.parent[id] = x->parent->id;
		pr.bucket[id] = (uint16_t)weight_bucket(x, samples);
		pr.flags[id] |= (pinned && pinned[id] ? PINNED : 0) | (emp_cct_is_more(c, x) ? MORE : 0);
		if (emp_cct_is_more(c, x))
			pr.flags[x->parent->id] |= HAS_MORE;
	}
	c->cut = find_cut(c, &pr);
	mark(&pr, c->cut);
	uint32_t *remap = emp_xmalloc(n * sizeof(*remap)); /* first each removed node's destination (old id) */
	fold_removed(c, pr.keep, n, remap);
	uint32_t *new_id = emp_xmalloc(c->n * sizeof(*new_id));
	compact(c, pr.keep, n, new_id);
	for (uint32_t id = 0; id < n; id++)
		remap[id] = pr.keep[id] & KEEP ? new_id[id] : new_id[remap[id]];
	c->pruned_n = c->n;
	free(new_id);
	free(pr.parent);
	free(pr.bucket);
	free(pr.flags);
	free(pr.keep);
	return remap;
}
