/* SPDX-License-Identifier: MIT */
/* flame.c - flame graph SVG; see flame.h.  The layout follows Brendan Gregg's FlameGraph (frames as <g> with a
 * <title>, a <rect> and a <text>); the script is our own: zoom keeps each frame's position as fractions of the
 * root in data-x/data-w and redraws from them. */
#include "flame.h"

#include <stdlib.h>
#include <string.h>

#include "textfit.h"
#include "util.h"

#define FRAME_H 16
#define TOP 40
#define BOTTOM 24
#define PAD 10

void emp_xml_escape(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, out);
		}
	}
}

struct layout {
	FILE *out;
	const struct emp_symtab *st;
	const struct emp_flame_opts *o;
	double root;      /* weight of the root */
	enum emp_cct_weight w;
	double min_frac;  /* narrower frames are left out */
	unsigned width, height;
};

/* The inclusive weight of @n: the caller's, or the tree's own figure. */
static double weight(const struct layout *l, const struct emp_cct_node *n)
{
	return l->o->weights ? l->o->weights[n->id] : (double)emp_cct_total(n, l->w);
}

struct kid {
	struct emp_cct_node *n;
	double w;
};

static int cmp_kids(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;
	if (x->w != y->w)
		return x->w < y->w ? 1 : -1;
	return x->n->gid < y->n->gid ? -1 : x->n->gid > y->n->gid;
}

/* The children of @n with their weights, heaviest first (the tree's own figures: in emp_cct_cmp() order).
 * Return: their number; *out is malloc'ed (free it). */
static size_t kids_of(const struct layout *l, const struct emp_cct_node *n, struct kid **out)
{
	struct emp_cct_node **nodes;
	size_t k = emp_cct_children(n, &nodes, l->o->weights ? NULL : emp_cct_cmp(l->w));
	struct kid *kids = emp_xcalloc(k ? k : 1, sizeof(*kids));
	for (size_t i = 0; i < k; i++)
		kids[i] = (struct kid){ nodes[i], weight(l, nodes[i]) };
	free(nodes);
	if (l->o->weights)
		qsort(kids, k, sizeof(*kids), cmp_kids);
	*out = kids;
	return k;
}

/* The depth of the deepest frame drawn in @n's subtree (@n drawn): frame()'s rule, so that the picture is as high as
 * the frames it shows, not as the narrow stacks it leaves out. */
static uint32_t drawn_depth(const struct layout *l, const struct emp_cct_node *n)
{
	uint32_t d = n->depth;
	struct kid *kids;
	size_t k = kids_of(l, n, &kids);
	for (size_t i = 0; i < k; i++) {
		uint32_t kd = kids[i].w / l->root < l->min_frac ? 0 : drawn_depth(l, kids[i].n);
		d = kd > d ? kd : d;
	}
	free(kids);
	return d;
}

static void color(const struct emp_sym *s, char *buf, size_t len)
{
	unsigned h = 0;
	for (const char *p = s->name; *p; p++)
		h = h * 31 + (unsigned char)*p;
	switch (s->kind) {
	case EMP_FRAME_JAVA:
		snprintf(buf, len, "rgb(%u,%u,%u)", 50 + h % 60, 170 + h / 7 % 60, 50 + h / 13 % 40);
		return;
	case EMP_FRAME_NATIVE:
		snprintf(buf, len, "rgb(%u,%u,%u)", 220 + h % 30, 110 + h / 7 % 70, 40 + h / 13 % 30);
		return;
	case EMP_FRAME_PSEUDO:
		break;
	}
	snprintf(buf, len, "rgb(%u,%u,%u)", 170 + h % 20, 170 + h % 20, 170 + h % 20);
}

/* The label that fits @px pixels (a 12 px monospace character is 7.22 px wide, textfit.h; 7.25 here and in the
 * script's fit()). */
static void label(FILE *out, const char *name, double px)
{
	long chars = (long)((px - 6) / 7.25);
	size_t n = strlen(name);
	if (chars < 3)
		return;
	if ((size_t)chars >= n) {
		emp_xml_escape(out, name);
		return;
	}
	char *cut = emp_xstrdup(name);
	cut[chars - 2] = 0;
	emp_xml_escape(out, cut);
	fputs("..", out);
	free(cut);
}

static void frame(struct layout *l, const struct emp_cct_node *n, double x)
{
	double w = weight(l, n) / l->root;
	if (w < l->min_frac)
		return;
	const char *name = emp_symtab_name(l->st, n->gid, l->o->with_desc);
	double px = PAD + x * (l->width - 2 * PAD), pw = w * (l->width - 2 * PAD);
	unsigned y = l->height - BOTTOM - n->depth * FRAME_H;
	struct emp_flame_style st = { 0 };
	if (l->o->style)
		l->o->style(n, l->o->style_arg, &st);
	if (!*st.fill)
		color(emp_symtab_get(l->st, n->gid), st.fill, sizeof(st.fill));
	fprintf(l->out, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%u\"><title>", x, w, n->depth);
	emp_xml_escape(l->out, name);
	if (*st.tip) {
		fputs(" (", l->out);
		emp_xml_escape(l->out, st.tip);
		fputs(")", l->out);
	} else {
		fprintf(l->out, " (%.0f %s, %.2f%%)", weight(l, n), l->w == EMP_CCT_NS ? "ns" : "samples", 100.0 * w);
	}
	fprintf(l->out, "</title><rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%u\" fill=\"%s\" rx=\"2\"%s/>"
			"<text x=\"%.1f\" y=\"%u\">",
		px, y, pw > 0.5 ? pw - 0.5 : pw, FRAME_H - 1, st.fill,
		st.outline ? " style=\"stroke: rgb(0,0,0); stroke-width: 2\"" : "", px + 3, y + FRAME_H - 4);
	label(l->out, name, pw);
	fputs("</text></g>\n", l->out);
	struct kid *kids;
	size_t k = kids_of(l, n, &kids);
	double cx = x;
	for (size_t i = 0; i < k; i++) {
		frame(l, kids[i].n, cx);
		cx += kids[i].w / l->root;
	}
	free(kids);
}

static const char script[] =
	"<script><![CDATA[\n"
	"'use strict';\n"
	"var W, PAD = 10, frames = [], zoomed = null, term = null;\n"
	"function init() {\n"
	"  W = document.documentElement.width.baseVal.value - 2 * PAD;\n"
	"  var gs = document.querySelectorAll('g.f');\n"
	"  for (var i = 0; i < gs.length; i++) {\n"
	"    var g = gs[i], t = g.querySelector('title').textContent;\n"
	"    var f = { g: g, x: +g.getAttribute('data-x'), w: +g.getAttribute('data-w'),\n"
	"              d: +g.getAttribute('data-d'), name: t.replace(/ \\([^()]*\\)$/, ''),\n"
	"              rect: g.querySelector('rect'), text: g.querySelector('text'), tip: t };\n"
	"    f.fill = f.rect.getAttribute('fill');\n"
	"    g.onclick = zoomer(f);\n"
	"    g.onmouseover = tipper(f);\n"
	"    g.onmouseout = function () { details(' '); };\n"
	"    frames.push(f);\n"
	"  }\n"
	"  window.addEventListener('keydown', function (e) {\n"
	"    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); search(); }\n"
	"    if (e.key === 'Escape') reset();\n"
	"  });\n"
	"}\n"
	"function details(s) { document.getElementById('details').textContent = s; }\n"
	"function tipper(f) { return function () { details(f.tip); }; }\n"
	"function zoomer(f) { return function () { zoomed = f; draw(); }; }\n"
	"function fit(name, px) {\n"
	"  var c = Math.floor((px - 6) / 7.25);\n"
	"  if (c < 3) return '';\n"
	"  return name.length <= c ? name : name.substring(0, c - 2) + '..';\n"
	"}\n"
	"function draw() {\n"
	"  var zx = zoomed ? zoomed.x : 0, zw = zoomed ? zoomed.w : 1, zd = zoomed ? zoomed.d : 0;\n"
	"  for (var i = 0; i < frames.length; i++) {\n"
	"    var f = frames[i], nx, nw, show;\n"
	"    if (f.d < zd) {\n"
	"      show = f.x <= zx + 1e-12 && f.x + f.w >= zx + zw - 1e-12;\n"
	"      nx = 0; nw = 1;\n"
	"      f.g.style.opacity = 0.6;\n"
	"    } else {\n"
	"      nx = (f.x - zx) / zw; nw = f.w / zw;\n"
	"      show = nx > -1e-9 && nx + nw < 1 + 1e-9 && nw * W >= 0.1;\n"
	"      f.g.style.opacity = 1;\n"
	"    }\n"
	"    f.g.style.display = show ? '' : 'none';\n"
	"    if (!show) continue;\n"
	"    var px = PAD + nx * W, pw = nw * W;\n"
	"    f.rect.setAttribute('x', px.toFixed(1));\n"
	"    f.rect.setAttribute('width', Math.max(pw - 0.5, 0.1).toFixed(1));\n"
	"    f.text.setAttribute('x', (px + 3).toFixed(1));\n"
	"    f.text.textContent = fit(f.name, pw);\n"
	"    f.rect.setAttribute('fill', term && term.test(f.name) ? 'rgb(230,0,230)' : f.fill);\n"
	"  }\n"
	"  document.getElementById('unzoom').style.opacity = zoomed ? 1 : 0.3;\n"
	"}\n"
	"function reset() { zoomed = null; term = null; document.getElementById('matched').textContent = ''; draw(); }\n"
	"function search() {\n"
	"  var s = prompt('Search (regular expression)', term ? term.source : '');\n"
	"  if (s === null) return;\n"
	"  try { term = s ? new RegExp(s) : null; } catch (e) { details('bad regular expression: ' + s); return; }\n"
	"  var spans = [];\n"
	"  for (var i = 0; i < frames.length; i++)\n"
	"    if (term && term.test(frames[i].name)) spans.push([frames[i].x, frames[i].x + frames[i].w]);\n"
	"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
	"  var covered = 0, end = -1;\n"
	"  for (var j = 0; j < spans.length; j++) {\n"
	"    var a = Math.max(spans[j][0], end);\n"
	"    if (spans[j][1] > a) { covered += spans[j][1] - a; end = spans[j][1]; }\n"
	"  }\n"
	"  document.getElementById('matched').textContent = term ? 'Matched: ' + (100 * covered).toFixed(2) + '%' : '';\n"
	"  draw();\n"
	"}\n"
	"]]></script>\n";

int emp_flame_write(FILE *out, struct emp_cct *c, const struct emp_symtab *st, const struct emp_flame_opts *o)
{
	struct layout l = { .out = out, .st = st, .o = o, .width = o->width ? o->width : 1200, .w = o->weight };
	struct emp_cct_node *root = emp_cct_root(c);
	l.root = weight(&l, root) > 0 ? weight(&l, root) : 1;
	l.min_frac = 0.1 / (double)(l.width - 2 * PAD);
	l.height = TOP + BOTTOM + (drawn_depth(&l, root) + 1) * FRAME_H;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		     "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		     "viewBox=\"0 0 %u %u\" onload=\"init()\">\n",
		l.width, l.height, l.width, l.height);
	fputs("<style>text { font-family: monospace; font-size: 12px; fill: rgb(0,0,0); } "
	      "g.f text { pointer-events: none; } g.f:hover rect { stroke: black; stroke-width: 0.5; } "
	      ".b { cursor: pointer; fill: rgb(40,40,160); }</style>\n",
	      out);
	fputs(script, out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"rgb(248,248,240)\"/>\n", l.width,
		l.height);
	fprintf(out, "<text x=\"%u\" y=\"18\" text-anchor=\"middle\" style=\"font-size: 16px\">", l.width / 2);
	/* between "Reset zoom" and "Search" (10 characters each side) */
	emp_textfit_svg(out, o->title ? o->title : "Flame graph", l.width - 2.0 * PAD - 2 * 10 * 0.6 * 12 - 20,
			EMP_FONT_MONO, 16);
	fputs("</text>\n", out);
	if (o->subtitle) {
		fprintf(out, "<text x=\"%u\" y=\"34\" text-anchor=\"middle\">", l.width / 2);
		emp_textfit_svg(out, o->subtitle, l.width - 2.0 * PAD, EMP_FONT_MONO, 12);
		fputs("</text>\n", out);
	}
	fprintf(out, "<text id=\"unzoom\" class=\"b\" x=\"%u\" y=\"18\" onclick=\"reset()\" style=\"opacity: 0.3\">"
		     "Reset zoom</text>\n",
		PAD);
	fprintf(out, "<text class=\"b\" x=\"%u\" y=\"18\" text-anchor=\"end\" onclick=\"search()\">Search</text>\n",
		l.width - PAD);
	fprintf(out, "<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"></text>\n", l.width - PAD,
		l.height - 6);
	fprintf(out, "<text id=\"details\" x=\"%u\" y=\"%u\"> </text>\n<g id=\"frames\">\n", PAD, l.height - 6);
	struct kid *kids;
	size_t k = kids_of(&l, root, &kids);
	double x = 0;
	for (size_t i = 0; i < k; i++) {
		frame(&l, kids[i].n, x);
		x += kids[i].w / l.root;
	}
	free(kids);
	fputs("</g>\n</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
