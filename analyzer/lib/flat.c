/* SPDX-License-Identifier: MIT */
/* flat.c - the flat profile; see flat.h. */
#include "flat.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct emp_flat_row *emp_flat_row(struct emp_flat *fl, uint32_t gid)
{
	fl->rows = emp_xgrow(fl->rows, &fl->cap, gid + 1, sizeof(*fl->rows));
	return &fl->rows[gid];
}

struct walk {
	struct emp_flat *fl;
	uint32_t *on_path; /* by gid: the method's nodes on the current root path */
	enum emp_cct_weight w;
};

/* Depth-first with enter and exit, so that a node adds its total only when no ancestor has the same method. */
static void accumulate(struct walk *c, const struct emp_cct_node *n)
{
	struct emp_flat_row *f = emp_flat_row(c->fl, n->gid);
	f->self += emp_cct_self(n, c->w);
	f->calls += n->calls;
	if (!c->on_path[n->gid])
		f->total += emp_cct_total(n, c->w);
	c->on_path[n->gid]++;
	for (const struct emp_cct_node *ch = n->first_child; ch; ch = ch->next_sibling)
		accumulate(c, ch);
	c->on_path[n->gid]--;
}

void emp_flat_add_tree(struct emp_flat *fl, const struct emp_cct *cct, enum emp_cct_weight w)
{
	uint32_t max = 0;
	for (uint32_t id = 1; id < emp_cct_size(cct); id++)
		if (emp_cct_node(cct, id)->gid >= max)
			max = emp_cct_node(cct, id)->gid + 1;
	struct walk c = { fl, emp_xcalloc(max + 1, sizeof(*c.on_path)), w };
	const struct emp_cct_node *root = emp_cct_node(cct, 0);
	for (const struct emp_cct_node *ch = root->first_child; ch; ch = ch->next_sibling)
		accumulate(&c, ch);
	fl->all += emp_cct_total(root, w);
	free(c.on_path);
}

void emp_flat_free(struct emp_flat *fl)
{
	free(fl->rows);
	memset(fl, 0, sizeof(*fl));
}
