/* SPDX-License-Identifier: MIT */
/* flame.h - a calling-context tree as a self-contained interactive flame graph (one SVG file, no network):
 * frame widths proportional to inclusive samples (or inclusive traced time), root at the bottom, <title> tooltips
 * "name (N samples, P %)" (or "name (N ns, P %)"),
 * click to zoom, Ctrl-F / "Search" to highlight frames matching a regular expression with the share they cover,
 * "Reset zoom".  Names are XML-escaped.  Colours: Java frames green, native frames orange, pseudo-frames
 * (sampling failures) grey.  A caller may weigh the nodes itself (weights) and give each frame its own fill,
 * tooltip and outline (style): the differential flame graph of `compare` (diffflame.h) does. */
#ifndef EMP_FLAME_H
#define EMP_FLAME_H

#include <stdio.h>

#include "cct.h"
#include "symtab.h"

/* One frame's look as a style hook sets it; the hook starts from all empty. */
struct emp_flame_style {
	char fill[32];         /* SVG colour; "" keeps the colour by frame kind */
	char tip[256];         /* tooltip after the name, "name (tip)", no parentheses in it; "" keeps
				* "(N samples, P %)" */
	int outline;           /* a black 2 px outline */
};

struct emp_flame_opts {
	const char *title;     /* shown on top; escaped */
	const char *subtitle;  /* one line under the title (e.g. engine and rate); escaped; may be NULL */
	int with_desc;         /* Java names with descriptors */
	unsigned width;        /* pixels; 0 = 1200 */
	enum emp_cct_weight weight; /* samples (default) or traced time */
	const double *weights; /* [emp_cct_size] inclusive weight by node id (root at 0), used instead of weight when
				* set: a frame's width, and its children's order (heaviest first, ties by gid) */
	void (*style)(const struct emp_cct_node *n, void *arg, struct emp_flame_style *s); /* NULL: none */
	void *style_arg;
};

/* emp_flame_write - write the SVG for @c (names from @st) to @out.  Frames narrower than 0.1 px are left out
 * (their weight still counts in their parents).  Return: 0, or -1 when writing failed. */
int emp_flame_write(FILE *out, struct emp_cct *c, const struct emp_symtab *st, const struct emp_flame_opts *o);

/* emp_xml_escape - @s with & < > " ' as entities and control characters as '?'. */
void emp_xml_escape(FILE *out, const char *s);

#endif /* EMP_FLAME_H */
