/* SPDX-License-Identifier: MIT */
/* test_cct.c - calling-context tree: exact node counts after stacks, walks, merges. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cct.h"

/* Render a tree as "gid:total/self(calls,total_ns,self_ns)" lines in walk order, indented by depth. */
struct render {
	char buf[4096];
	size_t len;
};

static int render_node(struct emp_cct_node *n, void *arg)
{
	struct render *r = arg;
	r->len += (size_t)snprintf(r->buf + r->len, sizeof(r->buf) - r->len, "%*s%u:%llu/%llu(%llu,%llu,%llu)\n",
				   (int)(2 * (n->depth - 1)), "", n->gid, (unsigned long long)n->total_samples,
				   (unsigned long long)n->self_samples, (unsigned long long)n->calls,
				   (unsigned long long)n->total_ns, (unsigned long long)n->self_ns);
	return 0;
}

static const char *render(struct emp_cct *c, int (*cmp)(const void *, const void *))
{
	static struct render r;
	r.len = 0;
	r.buf[0] = 0;
	cr_assert_eq(emp_cct_walk(c, cmp, render_node, &r), 0);
	return r.buf;
}

Test(cct, empty_tree_has_only_root)
{
	struct emp_cct *c = emp_cct_new();
	cr_expect_eq(emp_cct_size(c), 1);
	cr_expect_eq(emp_cct_root(c)->gid, EMP_CCT_NO_SYMBOL);
	cr_expect_eq(emp_cct_root(c)->depth, 0);
	cr_expect_str_eq(render(c, emp_cct_cmp_samples), "");
	emp_cct_free(c);
}

Test(cct, add_stack_counts_total_on_path_and_self_on_leaf)
{
	struct emp_cct *c = emp_cct_new();
	const uint32_t s1[] = { 1, 2, 3 }, s2[] = { 1, 2 }, s3[] = { 1, 4 }, s4[] = { 5 };
	emp_cct_add_stack(c, s1, 3, 2);
	emp_cct_add_stack(c, s2, 2, 1);
	emp_cct_add_stack(c, s3, 2, 4);
	emp_cct_add_stack(c, s1, 3, 1);
	struct emp_cct_node *leaf = emp_cct_add_stack(c, s4, 1, 1);
	emp_cct_add_stack(c, NULL, 0, 1); /* an empty stack counts on the root */
	cr_expect_eq(leaf->gid, 5);
	cr_expect_eq(leaf->depth, 1);
	cr_expect_eq(emp_cct_root(c)->total_samples, 10);
	cr_expect_eq(emp_cct_size(c), 6);
	cr_expect_eq(emp_cct_root(c)->self_samples, 1);
	/* 2 and 4 tie at 4 samples: the smaller gid first */
	cr_expect_str_eq(render(c, emp_cct_cmp_samples), "1:8/0(0,0,0)\n"
							 "  2:4/1(0,0,0)\n"
							 "    3:3/3(0,0,0)\n"
							 "  4:4/4(0,0,0)\n"
							 "5:1/1(0,0,0)\n");
	const uint32_t s5[] = { 1, 4, 6 };
	emp_cct_add_stack(c, s5, 3, 1);
	cr_expect_str_eq(render(c, emp_cct_cmp_samples), "1:9/0(0,0,0)\n"
							 "  4:5/4(0,0,0)\n"
							 "    6:1/1(0,0,0)\n"
							 "  2:4/1(0,0,0)\n"
							 "    3:3/3(0,0,0)\n"
							 "5:1/1(0,0,0)\n");
	/* creation order when no comparator is given */
	cr_expect_str_eq(render(c, NULL), "1:9/0(0,0,0)\n"
					  "  2:4/1(0,0,0)\n"
					  "    3:3/3(0,0,0)\n"
					  "  4:5/4(0,0,0)\n"
					  "    6:1/1(0,0,0)\n"
					  "5:1/1(0,0,0)\n");
	emp_cct_free(c);
}

Test(cct, ties_are_broken_by_gid)
{
	struct emp_cct *c = emp_cct_new();
	const uint32_t a[] = { 9 }, b[] = { 3 }, d[] = { 7 };
	emp_cct_add_stack(c, a, 1, 2);
	emp_cct_add_stack(c, b, 1, 2);
	emp_cct_add_stack(c, d, 1, 2);
	cr_expect_str_eq(render(c, emp_cct_cmp_samples), "3:2/2(0,0,0)\n7:2/2(0,0,0)\n9:2/2(0,0,0)\n");
	emp_cct_free(c);
}

static int count_node(struct emp_cct_node *n, void *arg)
{
	(void)n;
	++*(int *)arg;
	return 0;
}

Test(cct, child_is_find_or_create_with_stable_pointers)
{
	struct emp_cct *c = emp_cct_new();
	struct emp_cct_node *root = emp_cct_root(c);
	struct emp_cct_node *a = emp_cct_child(c, root, 42);
	cr_expect_eq(emp_cct_child(c, root, 42), a);
	cr_expect_null(emp_cct_find_child(c, root, 43));
	cr_expect_eq(emp_cct_find_child(c, root, 42), a);
	/* a deep chain forces several node blocks and hash growths; the first pointer stays valid */
	struct emp_cct_node *n = a;
	for (uint32_t i = 0; i < 20000; i++)
		n = emp_cct_child(c, n, i % 7);
	cr_expect_eq(n->depth, 20001);
	cr_expect_eq(a->gid, 42);
	cr_expect_eq(a->nchildren, 1);
	cr_expect_eq(emp_cct_size(c), 20002);
	uint32_t path[4];
	cr_expect_eq(emp_cct_path(emp_cct_find_child(c, a, 0), path, 4), 2);
	cr_expect_eq(path[0], 42);
	cr_expect_eq(path[1], 0);
	/* the walk is iterative: a 20001-deep tree is fine */
	int seen = 0;
	cr_expect_eq(emp_cct_walk(c, emp_cct_cmp_samples, count_node, &seen), 0);
	cr_expect_eq(seen, 20001);
	emp_cct_free(c);
}

static int stop_at_two(struct emp_cct_node *n, void *arg)
{
	(void)n;
	int *seen = arg;
	return ++*seen == 2 ? -1 : 0;
}

static int skip_children(struct emp_cct_node *n, void *arg)
{
	(void)n;
	++*(int *)arg;
	return 1;
}

Test(cct, walk_can_stop_and_skip)
{
	struct emp_cct *c = emp_cct_new();
	const uint32_t s[] = { 1, 2, 3 }, t[] = { 4, 5 };
	emp_cct_add_stack(c, s, 3, 1);
	emp_cct_add_stack(c, t, 2, 1);
	int seen = 0;
	cr_expect_eq(emp_cct_walk(c, NULL, stop_at_two, &seen), -1);
	cr_expect_eq(seen, 2);
	seen = 0;
	cr_expect_eq(emp_cct_walk(c, NULL, skip_children, &seen), 0);
	cr_expect_eq(seen, 2);
	emp_cct_free(c);
}

Test(cct, trace_figures_and_merge)
{
	struct emp_cct *a = emp_cct_new(), *b = emp_cct_new();
	/* a: 1 -> 2 traced; b: 1 -> 2 and 1 -> 3 traced, plus a sample 1 -> 3 */
	struct emp_cct_node *n = emp_cct_child(a, emp_cct_root(a), 1);
	n->calls = 1, n->total_ns = 100, n->self_ns = 40;
	n = emp_cct_child(a, n, 2);
	n->calls = 2, n->total_ns = 60, n->self_ns = 60;
	n = emp_cct_child(b, emp_cct_root(b), 1);
	n->calls = 3, n->total_ns = 300, n->self_ns = 100;
	struct emp_cct_node *m = emp_cct_child(b, n, 3);
	m->calls = 1, m->total_ns = 150, m->self_ns = 150;
	m = emp_cct_child(b, n, 2);
	m->calls = 1, m->total_ns = 50, m->self_ns = 50;
	const uint32_t s[] = { 1, 3 };
	emp_cct_add_stack(b, s, 2, 5);
	emp_cct_add_tree(a, b);
	cr_expect_str_eq(render(a, emp_cct_cmp_time), "1:5/0(4,400,140)\n"
						      "  3:5/5(1,150,150)\n"
						      "  2:0/0(3,110,110)\n");
	cr_expect_eq(emp_cct_root(a)->total_samples, 5);
	/* b is unchanged */
	cr_expect_str_eq(render(b, NULL), "1:5/0(3,300,100)\n"
					  "  3:5/5(1,150,150)\n"
					  "  2:0/0(1,50,50)\n");
	emp_cct_free(a);
	emp_cct_free(b);
}

/* Past the limit a new path ends in its deepest existing node's more node (gid 99 here), which stands for all of
 * its own descendants; an existing path is still found; inclusive counts never count a sample twice. */
Test(cct, a_limit_sends_new_paths_to_more_nodes)
{
	struct emp_cct *c = emp_cct_new();
	emp_cct_limit(c, 3, 99); /* the root and two nodes */
	const uint32_t s1[] = { 1, 2 }, s2[] = { 1, 3, 4 }, s3[] = { 5 }, s4[] = { 1, 2 };
	emp_cct_add_stack(c, s1, 2, 1); /* 1, 1/2: the limit is reached */
	emp_cct_add_stack(c, s2, 3, 2); /* 1/3/4 -> 1/[more] (once, though 3 and 4 both land there) */
	emp_cct_add_stack(c, s3, 1, 4); /* 5 -> [more] under the root */
	emp_cct_add_stack(c, s4, 2, 8); /* 1/2 exists */
	cr_expect_str_eq(render(c, NULL), "1:11/0(0,0,0)\n"
					  "  2:9/9(0,0,0)\n"
					  "  99:2/2(0,0,0)\n"
					  "99:4/4(0,0,0)\n");
	cr_expect_eq(emp_cct_root(c)->total_samples, 15);
	cr_expect_eq(emp_cct_size(c), 5);
	struct emp_cct_node *more = emp_cct_child(c, emp_cct_root(c), 7);
	cr_expect(emp_cct_is_more(c, more));
	cr_expect(!emp_cct_is_more(c, emp_cct_child(c, emp_cct_root(c), 1)));
	cr_expect_eq(emp_cct_child(c, more, 1), more);
	cr_expect(emp_cct_nested(emp_cct_child(c, more, 1), more));
	/* a tree added to a limited one: the more node's inclusive figures take a nested node's once */
	struct emp_cct *src = emp_cct_new();
	struct emp_cct_node *a = emp_cct_child(src, emp_cct_root(src), 6);
	a->calls = 1, a->total_ns = 100, a->self_ns = 30;
	struct emp_cct_node *b = emp_cct_child(src, a, 7);
	b->calls = 2, b->total_ns = 70, b->self_ns = 70;
	emp_cct_add_tree(c, src);
	cr_expect_eq(more->calls, 3);
	cr_expect_eq(more->total_ns, 100);
	cr_expect_eq(more->self_ns, 100);
	cr_expect_eq(emp_cct_size(c), 5);
	emp_cct_free(src);
	emp_cct_free(c);
}

/* Past three quarters of its limit a tree is pruned: the open calls' nodes (pinned) and the heaviest others stay,
 * with their callers and the more nodes they need, as many as fit in half the limit; every removed node's figures
 * go to the more node of its deepest kept caller, inclusive ones from the topmost removed node only; ids stay in
 * creation order. */
Test(cct, a_prune_keeps_the_heavy_and_open_contexts_and_counts_the_rest_in_more_nodes)
{
	struct emp_cct *c = emp_cct_new();
	emp_cct_limit(c, 10, 99);
	struct emp_cct_node *root = emp_cct_root(c);
	struct emp_cct_node *n1 = emp_cct_child(c, root, 1), *n2 = emp_cct_child(c, n1, 2);
	struct emp_cct_node *n3 = emp_cct_child(c, n2, 3), *n4 = emp_cct_child(c, n1, 4);
	struct emp_cct_node *n5 = emp_cct_child(c, n4, 5), *n6 = emp_cct_child(c, root, 6);
	struct emp_cct_node *n7 = emp_cct_child(c, n6, 7); /* open: no figures yet */
	const struct {
		struct emp_cct_node *n;
		uint64_t calls, total, self;
	} fig[] = { { n1, 1, 1000, 100 }, { n2, 2, 600, 300 }, { n3, 3, 300, 300 },
		    { n4, 1, 300, 200 },  { n5, 1, 100, 100 }, { n6, 1, 50, 50 } };
	for (size_t i = 0; i < sizeof(fig) / sizeof(fig[0]); i++) {
		fig[i].n->calls = fig[i].calls;
		fig[i].n->total_ns = fig[i].total;
		fig[i].n->self_ns = fig[i].self;
	}
	root->total_ns = 1050;
	cr_assert(emp_cct_prune_due(c)); /* 8 nodes: three quarters of 10 */
	uint8_t pinned[8] = { 0 };
	pinned[n7->id] = 1;
	uint32_t *remap = emp_cct_prune(c, pinned);
	/* room for 5: the root, 7 (pinned) and 6 (its caller), then 1 and the more node it needs for 2 and 4 (with
	 * 2 too, 1 and 2 would each need one: 7 nodes); 2 and 4 enter it from outside, 3 and 5 add calls and self */
	cr_expect_str_eq(render(c, NULL), "1:0/0(1,1000,100)\n"
					  "  99:0/0(7,900,900)\n"
					  "6:0/0(1,50,50)\n"
					  "  7:0/0(0,0,0)\n");
	cr_expect_eq(emp_cct_size(c), 5);
	const uint32_t want[8] = { 0, 1, 4, 4, 4, 4, 2, 3 }; /* old id -> new id */
	for (uint32_t id = 0; id < 8; id++)
		cr_expect_eq(remap[id], want[id], "old node %u", id);
	for (uint32_t id = 1; id < emp_cct_size(c); id++)
		cr_expect_lt(emp_cct_node(c, id)->parent->id, id); /* creation order: a caller before its callees */
	cr_expect(!emp_cct_prune_due(c));
	/* the hash table follows: existing paths are found, a removed one is made again */
	struct emp_cct_node *k1 = emp_cct_node(c, 1);
	cr_expect_eq(emp_cct_child(c, emp_cct_node(c, 2), 7)->id, 3);
	cr_expect_eq(emp_cct_child(c, k1, 99)->id, 4);
	cr_expect_eq(emp_cct_child(c, k1, 2)->id, 5);
	free(remap);
	emp_cct_free(c);
}
