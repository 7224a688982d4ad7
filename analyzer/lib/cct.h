/* SPDX-License-Identifier: MIT */
/* cct.h - calling-context tree: one node per distinct call path, keyed by global symbol ids (symtab.h).
 *
 * A node carries the figures of both recording modes:
 *   sampling  self_samples  samples whose leaf frame is this node
 *             total_samples samples whose stack passes through this node (inclusive; leaf included)
 *   tracing   calls, total_ns (inclusive duration), self_ns (total minus the callees' totals), filled by whoever
 *             feeds trace events (analyzer/lib/trace.h) through emp_cct_child()
 * Node counts are kept like perf's callchain_node (self and inclusive), so a report needs no second pass.
 *
 * Nodes never move once created (they live in fixed-size blocks), so a node pointer stays valid until the tree
 * is freed.  The root has no symbol (gid EMP_CCT_NO_SYMBOL) and depth 0; its total_samples is the number of
 * samples added, its total_ns the traced time of the root calls (trace.h).  Not thread-safe.
 */
#ifndef EMP_CCT_H
#define EMP_CCT_H

#include <stddef.h>
#include <stdint.h>

#define EMP_CCT_NO_SYMBOL UINT32_MAX

struct emp_cct_node {
	uint32_t id;                         /* dense, root = 0, in creation order */
	uint32_t gid;                        /* global symbol id; EMP_CCT_NO_SYMBOL for the root */
	uint32_t depth;                      /* root 0, its children 1, ... */
	uint32_t nchildren;
	struct emp_cct_node *parent;         /* NULL for the root */
	struct emp_cct_node *first_child;    /* children, most recently created first */
	struct emp_cct_node *next_sibling;
	uint64_t self_samples, total_samples;
	uint64_t calls, total_ns, self_ns;
};

struct emp_cct;

/* emp_cct_new - a tree holding only its root.  Exits when out of memory (analyzer only). */
struct emp_cct *emp_cct_new(void);
void emp_cct_free(struct emp_cct *c);
struct emp_cct_node *emp_cct_root(struct emp_cct *c);
/* Number of nodes, root included; emp_cct_node(c, id) for id < emp_cct_size(c). */
uint32_t emp_cct_size(const struct emp_cct *c);
struct emp_cct_node *emp_cct_node(const struct emp_cct *c, uint32_t id);

/* emp_cct_limit - keep the tree under about @max_nodes nodes (0, the default: no limit), for the views of a trace
 * whose calling contexts are nearly as many as its calls (javac's recursive descent: 10^8 and more).  Once the
 * tree holds @max_nodes nodes, a path not in it yet ends in a "more" node (symbol @more_gid, e.g. a pseudo frame
 * "[more contexts]") under its deepest node that is: one per parent at most, each standing for all of its own
 * descendants, so the tree never holds more than twice @max_nodes nodes and every call and sample is still
 * counted.  Its users prune it (emp_cct_prune) before it fills, so that the contexts it keeps are the heavy ones
 * rather than the first ones.  Set it before the first node is added. */
void emp_cct_limit(struct emp_cct *c, uint32_t max_nodes, uint32_t more_gid);
/* emp_cct_freeze - from now on a path not in the tree (with a limit) ends in the more node of its deepest node
 * that is, as past the limit, and the tree is never due for a prune: every later reader puts a path where the
 * readers before put it. */
void emp_cct_freeze(struct emp_cct *c);
/* emp_cct_prune_due - the tree has a limit (emp_cct_limit), holds three quarters of it or more, and has grown
 * since its last prune: time for emp_cct_prune(). */
int emp_cct_prune_due(const struct emp_cct *c);
/* emp_cct_prune - make room in a tree with a limit, at a moment its users choose (the same for every reader of a
 * dump, so their trees stay alike: trace_fold.h and trace.h prune where a chunk of events begins).  Kept: the
 * root, the nodes @pinned (by id, emp_cct_size() of them: calls still open on them; NULL: none), the heaviest others
 * (by total_samples when the root has samples, else by total_ns) as many as fit in half the limit, every caller of a
 * kept node and a kept node's more node.  Each removed node's figures go to the more node of its deepest kept
 * caller (made when missing), which counts each call or sample entering it from outside once, as a more node
 * does; so every call and sample stays counted and the heavy paths keep their own nodes, where a limit alone
 * keeps the paths seen first.  Nodes move: node pointers are stale after it, ids keep their order.  Return:
 * every old id's new one (a removed node's: its more node), malloc'ed (the caller frees it).  Exits when out of
 * memory. */
uint32_t *emp_cct_prune(struct emp_cct *c, const uint8_t *pinned);

/* emp_cct_is_more - @n is a more node (emp_cct_limit). */
int emp_cct_is_more(const struct emp_cct *c, const struct emp_cct_node *n);

/* emp_cct_child - the child of @parent for symbol @gid, created (with zero counts) when absent; past the limit
 * (emp_cct_limit) the more node that takes the path.  O(1). */
struct emp_cct_node *emp_cct_child(struct emp_cct *c, struct emp_cct_node *parent, uint32_t gid);
/* emp_cct_nested - @n, the node emp_cct_child() gave for a call or frame under @parent's, is @parent itself: a
 * path inside a more node, whose inclusive figures (total_ns, total_samples) already hold the call or sample
 * that entered it from outside.  Add the nested one's calls and self figures only, or its time counts twice. */
static inline int emp_cct_nested(const struct emp_cct_node *n, const struct emp_cct_node *parent)
{
	return n == parent;
}
/* emp_cct_add_inclusive - add @samples and @ns to the inclusive figures of @n, the node emp_cct_child() gave under
 * @parent (NULL: a root's), unless it is nested there (emp_cct_nested).  Every adder of inclusive figures goes
 * through it: the tree's, the profile's and the fold's. */
static inline void emp_cct_add_inclusive(struct emp_cct_node *n, const struct emp_cct_node *parent, uint64_t samples,
					 uint64_t ns)
{
	if (!emp_cct_nested(n, parent)) {
		n->total_samples += samples;
		n->total_ns += ns;
	}
}

/* emp_cct_find_child - the child of @parent for @gid, or NULL. */
struct emp_cct_node *emp_cct_find_child(const struct emp_cct *c, const struct emp_cct_node *parent, uint32_t gid);

/* emp_cct_add_tree - add every node of @src (same symbol ids) to @dst, creating the missing ones in @src's
 * creation order, so @dst ends as if @src's figures had been added to it directly. */
void emp_cct_add_tree(struct emp_cct *dst, const struct emp_cct *src);

/* emp_cct_add_stack - add @count samples of the stack @gids (root first, @depth frames): total_samples grows on
 * the root and on every node of the path, self_samples on the leaf (on the root for an empty stack).
 * Return: the leaf node. */
struct emp_cct_node *emp_cct_add_stack(struct emp_cct *c, const uint32_t *gids, uint32_t depth, uint64_t count);

/* emp_cct_path - the symbols from the root's child down to @n into @gids (root first).  Return: the depth of @n;
 * only the first @max symbols are stored when it is larger. */
uint32_t emp_cct_path(const struct emp_cct_node *n, uint32_t *gids, uint32_t max);

/* Orders for emp_cct_children() and emp_cct_walk(): descending by the figure, ties by ascending gid, so output
 * is deterministic. */
int emp_cct_cmp_samples(const void *a, const void *b); /* total_samples */
int emp_cct_cmp_time(const void *a, const void *b);    /* total_ns, then calls */

/* What a view weighs a node by: samples (total_samples, self_samples) or traced time (total_ns, self_ns). */
enum emp_cct_weight { EMP_CCT_SAMPLES, EMP_CCT_NS };
uint64_t emp_cct_total(const struct emp_cct_node *n, enum emp_cct_weight w);
uint64_t emp_cct_self(const struct emp_cct_node *n, enum emp_cct_weight w);
/* The order of @w: emp_cct_cmp_samples or emp_cct_cmp_time. */
int (*emp_cct_cmp(enum emp_cct_weight w))(const void *, const void *);

/* emp_cct_children - the children of @n in @cmp order (qsort comparator over struct emp_cct_node *const *; NULL
 * keeps creation order).  Return: their number; *out is malloc'ed (free it), NULL when there are none. */
size_t emp_cct_children(const struct emp_cct_node *n, struct emp_cct_node ***out,
			int (*cmp)(const void *, const void *));

/* Visitor of emp_cct_walk: return 0 to descend into @n's children, 1 to skip them, -1 to stop the walk. */
typedef int (*emp_cct_visit_fn)(struct emp_cct_node *n, void *arg);
/* emp_cct_walk - pre-order walk below the root (the root itself is not visited), children in @cmp order.
 * Iterative: stack depth does not limit it.  Return: 0, or -1 when the visitor stopped it. */
int emp_cct_walk(struct emp_cct *c, int (*cmp)(const void *, const void *), emp_cct_visit_fn fn, void *arg);

#endif /* EMP_CCT_H */
