/* SPDX-License-Identifier: MIT */
/* folded.c - see folded.h. */
#include "folded.h"

#include <stdlib.h>
#include <string.h>

#include "cct.h"
#include "symtab.h"
#include "util.h"

struct emp_folded_names {
	const struct emp_symtab *st;
	int with_desc;
	struct escaped {
		char *s; /* NULL until first used */
		size_t len;
	} *esc;          /* by gid */
	uint32_t cap;
	uint32_t *gids;  /* scratch: the path's gids */
	uint32_t gids_cap;
	char *line;      /* the last path */
	size_t line_cap;
};

struct emp_folded_names *emp_folded_names_new(const struct emp_symtab *st, int with_desc)
{
	struct emp_folded_names *f = emp_xcalloc(1, sizeof(*f));
	f->st = st;
	f->with_desc = with_desc;
	return f;
}

void emp_folded_names_free(struct emp_folded_names *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->cap; i++)
		free(f->esc[i].s);
	free(f->esc);
	free(f->gids);
	free(f->line);
	free(f);
}

/* @gid's name escaped (folded.h), made at its first use. */
static const struct escaped *escaped(struct emp_folded_names *f, uint32_t gid)
{
	f->esc = emp_xgrow(f->esc, &f->cap, gid + 1, sizeof(*f->esc));
	struct escaped *e = &f->esc[gid];
	if (!e->s) {
		const char *name = emp_symtab_name(f->st, gid, f->with_desc);
		e->s = emp_xstrdup(*name ? name : "[empty]");
		for (char *p = e->s; *p; p++)
			if (*p == ';')
				*p = ':';
			else if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		e->len = strlen(e->s);
	}
	return e;
}

const char *emp_folded_path(struct emp_folded_names *f, const struct emp_cct_node *n, uint32_t max, size_t *len)
{
	uint32_t depth = n->depth < max ? n->depth : max;
	if (depth > f->gids_cap) {
		f->gids_cap = 2 * depth;
		f->gids = emp_xrealloc(f->gids, f->gids_cap * sizeof(*f->gids));
	}
	emp_cct_path(n, f->gids, depth);
	size_t at = 0;
	for (uint32_t i = 0; i < depth; i++) {
		const struct escaped *e = escaped(f, f->gids[i]);
		if (at + e->len + 2 > f->line_cap) { /* a ';', the name and the final '\0' */
			f->line_cap = 2 * (at + e->len + 2);
			f->line = emp_xrealloc(f->line, f->line_cap);
		}
		if (i)
			f->line[at++] = ';';
		memcpy(f->line + at, e->s, e->len);
		at += e->len;
	}
	if (!f->line) { /* no frame: an empty line */
		f->line_cap = 16;
		f->line = emp_xmalloc(f->line_cap);
	}
	f->line[at] = '\0';
	*len = at;
	return f->line;
}
