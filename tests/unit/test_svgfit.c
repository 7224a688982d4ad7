/* SPDX-License-Identifier: MIT */
/* test_svgfit.c - every SVG the analyzer writes fits its text (issue 13 §5): the exactness heatmap, the flame graph
 * (and so compare's differential one, which is a flame graph with its own colours), the EMP picture of `report` and
 * the latency plots, each fed names far longer than the canvas.  For each picture: its exact size; every unrotated
 * <text>'s box (x and text-anchor, the width textfit.h measures for its font, cap height 0.73 em above the baseline
 * and descent 0.24 em below, or ±0.5 em around a "middle" baseline; <g transform="translate(…)"> applied) inside the
 * canvas; a long name elided in the middle with the whole in a <title>; and rsvg-convert (librsvg2-bin,
 * scripts/deps.sh) renders it to a PNG of that size. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cct.h"
#include "flame.h"
#include "heatmap.h"
#include "hdr.h"
#include "latency_svg.h"
#include "runplot.h"
#include "symtab.h"
#include "textfit.h"

/* A name of @n characters: "/base/dir/xxxx…/Tail.method" with @tail at its end. */
static char *long_name(size_t n, const char *tail)
{
	char *s = malloc(n + 1);
	size_t t = strlen(tail);
	for (size_t i = 0; i < n - t; i++)
		s[i] = i % 10 == 0 ? '/' : (char)('a' + i % 26);
	memcpy(s + n - t, tail, t + 1);
	return s;
}

/* Attribute @name of the tag at @tag (up to its '>') into @buf.  Return: 1 when present. */
static int attr(const char *tag, const char *name, char *buf, size_t len)
{
	const char *end = strchr(tag, '>');
	char key[64];
	snprintf(key, sizeof(key), " %s=\"", name);
	const char *p = strstr(tag, key);
	if (!p || p > end)
		return 0;
	p += strlen(key);
	size_t n = strcspn(p, "\"");
	snprintf(buf, len, "%.*s", (int)n, p);
	return 1;
}

/* The font size the tag at @tag sets (font-size="N" or style="font-size: Npx"), or @dflt. */
static double font_size(const char *tag, double dflt)
{
	char v[128];
	if (attr(tag, "font-size", v, sizeof(v)))
		return atof(v);
	if (attr(tag, "style", v, sizeof(v)) && strstr(v, "font-size:"))
		return atof(strstr(v, "font-size:") + 10);
	return dflt;
}

/* @n bytes of XML text at @p with the entities as characters, into @buf. */
static void unescape(const char *p, size_t n, char *buf, size_t len)
{
	static const char *const ent[][2] = { { "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" },
					      { "&#39;", "'" }, { "&apos;", "'" } };
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < len;) {
		size_t k = 0;
		while (k < sizeof(ent) / sizeof(*ent) && strncmp(p + i, ent[k][0], strlen(ent[k][0])))
			k++;
		if (k < sizeof(ent) / sizeof(*ent)) {
			buf[o++] = ent[k][1][0];
			i += strlen(ent[k][0]);
		} else {
			buf[o++] = p[i++];
		}
	}
	buf[o] = 0;
}

/* Check @svg (its text in font @f at @size px unless a tag says otherwise) as described at the top; its size must be
 * @w x @h.  Return: the number of text boxes checked. */
static int check_svg(const char *name, const char *svg, enum emp_font f, double size, int w, int h)
{
	char v[256];
	const char *root = strstr(svg, "<svg ");
	cr_assert(root, "%s: no <svg>", name);
	cr_assert(attr(root, "width", v, sizeof(v)) && atoi(v) == w, "%s: width %s, expected %d", name, v, w);
	cr_assert(attr(root, "height", v, sizeof(v)) && atoi(v) == h, "%s: height %s, expected %d", name, v, h);
	size = font_size(root, size);
	double ty[64] = { 0 };
	int depth = 0, texts = 0;
	for (const char *p = root + 1; (p = strchr(p, '<')); p++) {
		if (!strncmp(p, "<g", 2) && (p[2] == ' ' || p[2] == '>')) {
			cr_assert(depth + 1 < 64);
			ty[depth + 1] = ty[depth];
			if (attr(p, "transform", v, sizeof(v)) && !strncmp(v, "translate(", 10))
				ty[depth + 1] += atof(strpbrk(v + 10, ", ") + 1);
			depth++;
		} else if (!strncmp(p, "</g>", 4)) {
			cr_assert(depth > 0);
			depth--;
		} else if (!strncmp(p, "<text", 5) && p[5] == ' ') {
			if (attr(p, "transform", v, sizeof(v)) && strstr(v, "rotate"))
				continue;
			const char *body = strchr(p, '>') + 1;
			char text[8192];
			unescape(body, strcspn(body, "<"), text, sizeof(text));
			double sz = font_size(p, size);
			enum emp_font tf = attr(p, "font-weight", v, sizeof(v)) && !strcmp(v, "bold") ? EMP_FONT_SANS_BOLD : f;
			double tw = emp_textfit_px(text, tf, sz);
			cr_assert(attr(p, "x", v, sizeof(v)));
			double x = atof(v), x0 = x, x1 = x + tw;
			if (attr(p, "text-anchor", v, sizeof(v)))
				x0 = !strcmp(v, "end") ? x - tw : !strcmp(v, "middle") ? x - tw / 2 : x;
			x1 = x0 + tw;
			cr_assert(attr(p, "y", v, sizeof(v)));
			double y = atof(v) + ty[depth], top = y - 0.73 * sz, bottom = y + 0.24 * sz;
			if (attr(p, "dominant-baseline", v, sizeof(v)) && !strcmp(v, "middle"))
				top = y - 0.5 * sz, bottom = y + 0.5 * sz;
			cr_expect(x0 >= 0 && x1 <= w && top >= 0 && bottom <= h,
				  "%s: text \"%.60s\" (%zu chars) at [%.1f, %.1f] x [%.1f, %.1f] leaves the %d x %d canvas",
				  name, text, strlen(text), x0, x1, top, bottom, w, h);
			texts++;
		}
	}
	/* rendered: a PNG of the SVG's size (width and height: big-endian at bytes 16 and 20 of the IHDR) */
	char dir[] = "/tmp/emp-svgfit.XXXXXX", in[64], out[64], cmd[256];
	cr_assert(mkdtemp(dir));
	snprintf(in, sizeof(in), "%s/p.svg", dir);
	snprintf(out, sizeof(out), "%s/p.png", dir);
	FILE *fo = fopen(in, "w");
	fputs(svg, fo);
	fclose(fo);
	snprintf(cmd, sizeof(cmd), "rsvg-convert -o %s %s", out, in);
	cr_assert_eq(system(cmd), 0, "%s: rsvg-convert failed", name);
	unsigned char png[24];
	FILE *fi = fopen(out, "rb");
	cr_assert(fi && fread(png, 1, sizeof(png), fi) == sizeof(png));
	fclose(fi);
	unsigned pw = (unsigned)png[16] << 24 | (unsigned)png[17] << 16 | (unsigned)png[18] << 8 | png[19];
	unsigned ph = (unsigned)png[20] << 24 | (unsigned)png[21] << 16 | (unsigned)png[22] << 8 | png[23];
	cr_expect_eq(pw, (unsigned)w, "%s: PNG width %u", name, pw);
	cr_expect_eq(ph, (unsigned)h, "%s: PNG height %u", name, ph);
	unlink(in);
	unlink(out);
	rmdir(dir);
	return texts;
}

/* The text of @out written so far, NUL-terminated (malloc'ed). */
static char *text_of(FILE *f)
{
	fflush(f);
	long n = ftell(f);
	char *s = malloc((size_t)n + 1);
	rewind(f);
	cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = 0;
	return s;
}

Test(svgfit, heatmap_long_paths_elided_panels_close)
{
	enum { NITERS = 4, NK = 10, NP = 3 };
	static const unsigned iters[NITERS] = { 10, 20, 40, 80 };
	struct emp_exactness_cell cells[NITERS * NK] = { 0 };
	char *paths[NP];
	struct emp_heatmap_panel panels[NP];
	for (int i = 0; i < NP; i++) {
		paths[i] = long_name(300, "/emp.sut.tree.D8.node_3_5()V");
		panels[i] = (struct emp_heatmap_panel){ paths[i], cells };
	}
	char *base = long_name(260, "/base");
	struct emp_heatmap h = { panels, NP, iters, NITERS, 2, NK, 0.98, base };
	char file[] = "/tmp/emp-heatmap.XXXXXX";
	int fd = mkstemp(file);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert_eq(emp_heatmap_write(file, &h), 0);
	FILE *f = fopen(file, "r");
	fseek(f, 0, SEEK_END);
	char *svg = text_of(f);
	fclose(f);
	unlink(file);
	/* width: the title's, 20 + 563.5 px (wider than the grid's 90 + 10 x 28 + 20 = 390); height: 40 + 3 panels of
	 * 50 (title) + 4 x 22 (rows) + 36 (axis) + 10 (gap) */
	int texts = check_svg("heatmap", svg, EMP_FONT_SANS, 11, 584, 40 + NP * (50 + NITERS * 22 + 36 + 10));
	/* title, subtitle; per panel its title, 4 row labels, 10 column labels, the axis label */
	cr_expect_eq(texts, 2 + NP * (1 + NITERS + NK + 1));
	/* the panel title keeps its head and tail (the method), the whole in the tooltip */
	cr_expect(strstr(svg, "node_3_5()V<title>"), "panel title's tail");
	char tip[400];
	snprintf(tip, sizeof(tip), "<title>%s</title>", paths[0]);
	cr_expect(strstr(svg, tip), "panel title's tooltip");
	cr_expect(strstr(svg, "..."));
	for (int i = 0; i < NP; i++)
		free(paths[i]);
	free(base);
	free(svg);
}

Test(svgfit, heatmap_wide_grid)
{
	enum { NK = 100 };
	static const unsigned iters[1] = { 10 };
	struct emp_exactness_cell cells[NK] = { 0 };
	struct emp_heatmap_panel panel = { "root", cells };
	struct emp_heatmap h = { &panel, 1, iters, 1, 2, NK, 0.98, "base" };
	char file[] = "/tmp/emp-heatmap.XXXXXX";
	close(mkstemp(file));
	cr_assert_eq(emp_heatmap_write(file, &h), 0);
	FILE *f = fopen(file, "r");
	fseek(f, 0, SEEK_END);
	char *svg = text_of(f);
	fclose(f);
	unlink(file);
	/* 90 + 100 columns of 10 px + 20; 40 + 50 + 22 + 36 + 10 */
	check_svg("wide heatmap", svg, EMP_FONT_SANS, 11, 1110, 158);
	free(svg);
}

/* A flame graph of @wide samples on a 3-frame stack and @narrow on a 40-frame one, its title @title. */
static char *flame_svg(uint64_t wide, uint64_t narrow, const char *title)
{
	struct emp_symtab *st = emp_symtab_new();
	struct emp_cct *c = emp_cct_new();
	uint32_t g[40];
	for (int i = 0; i < 40; i++) {
		char m[32];
		snprintf(m, sizeof(m), "m%d", i);
		g[i] = emp_symtab_intern(st, EMP_FRAME_JAVA, 0, i < 3 ? "org.example.app.Service" : "jdk.vm.ci.Compiler",
					 m, "()V");
	}
	emp_cct_add_stack(c, g, 3, wide);
	uint32_t deep[40];
	deep[0] = g[0];
	for (int i = 1; i < 40; i++)
		deep[i] = g[i < 3 ? 39 : i];
	emp_cct_add_stack(c, deep, 40, narrow);
	struct emp_flame_opts o = { .title = title, .subtitle = title };
	FILE *f = tmpfile();
	cr_assert_eq(emp_flame_write(f, c, st, &o), 0);
	char *svg = text_of(f);
	fclose(f);
	emp_cct_free(c);
	emp_symtab_free(st);
	return svg;
}

Test(svgfit, flame_height_to_the_frames_drawn)
{
	/* 1 sample in 20001 is 0.059 px of the 1180: left out, and so is its height: 3 frames, 40 + 24 + 4 x 16 */
	char *title = long_name(400, " profile of Main");
	char *svg = flame_svg(20000, 1, title);
	check_svg("flame", svg, EMP_FONT_MONO, 12, 1200, 128);
	cr_expect(strstr(svg, " profile of Main<title>"), "title elided in the middle");
	cr_expect_eq(strstr(svg, "Compiler.m39"), NULL, "the narrow stack is not drawn");
	free(svg);
	/* 100 samples are 5.8 px: drawn, 40 frames high */
	svg = flame_svg(20000, 100, "short");
	check_svg("deep flame", svg, EMP_FONT_MONO, 12, 1200, 40 + 24 + 41 * 16);
	free(svg);
	free(title);
}

Test(svgfit, runplot_legend_elided)
{
	char *mode = long_name(80, "mode"), *version = long_name(90, "version");
	struct emp_runs_row rows[2] = { { mode, version, 1, 1, 0, 2.0, 1.9, 0 }, { mode, version, 2, 1, 0, 3.5, 2.0, 1 } };
	char *modes[1] = { mode }, *versions[1] = { version };
	struct emp_runs r = { rows, 2, modes, versions, 1, 1, 123456.789, 98765.4321, 1 };
	FILE *f = tmpfile();
	emp_runplot_write(f, &r);
	char *svg = text_of(f);
	fclose(f);
	/* 820 x 500: the legend of 1 group needs 44 + 8 + 18 + 8 + 60 + 52 = 190 px, under the 500 minimum */
	check_svg("runplot", svg, EMP_FONT_SANS, 12, 820, 500);
	cr_expect(strstr(svg, "version<title>"), "legend elided in the middle");
	free(svg);
	free(mode);
	free(version);
}

Test(svgfit, latency_long_paths)
{
	struct emp_latency_log l = { 0 };
	l.path = long_name(300, "/latency.csv");
	int64_t due[2] = { 0, 1000000000 }, sent[2] = { 1000, 1000001000 }, done[2] = { 5000000, 1002000000 };
	l.n = 2;
	l.t_min = 0, l.t_max = done[1];
	l.due = due, l.sent = sent, l.done = done;
	l.corrected = emp_hdr_new(1, 3600LL * 1000000, 3);
	l.uncorrected = emp_hdr_new(1, 3600LL * 1000000, 3);
	for (int i = 0; i < 2; i++) {
		emp_hdr_record(l.corrected, (done[i] - due[i]) / 1000);
		emp_hdr_record(l.uncorrected, (done[i] - sent[i]) / 1000);
	}
	FILE *f = tmpfile();
	cr_assert_eq(emp_latency_svg_write(f, &l, 1, NULL, 0, NULL, 0), 0);
	char *svg = text_of(f);
	fclose(f);
	/* 1000 x (50 + 2 panels of 340 + 90) */
	check_svg("latency", svg, EMP_FONT_SANS, 12, 1000, 820);
	cr_expect(strstr(svg, "/latency.csv (p99"), "legend keeps the file name");
	free(svg);
	emp_hdr_free(l.corrected);
	emp_hdr_free(l.uncorrected);
	free(l.path);
}
