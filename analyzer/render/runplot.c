/* SPDX-License-Identifier: MIT */
/* runplot.c - the EMP picture; see runplot.h. */
#include "runplot.h"

#include <math.h>
#include <string.h>

#include "flame.h"
#include "textfit.h"

enum { W = 820, H_MIN = 500, ML = 70, MR = 230, MT = 44, MB = 52, LEGEND_ROW = 18 };

static const char *const palette[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
				       "#7f7f7f", "#bcbd22", "#17becf", "#393b79" };

/* A tick step of 1, 2 or 5 times a power of ten giving about 5 ticks over @range. */
static double tick_step(double range)
{
	double raw = range / 5, p = pow(10, floor(log10(raw))), m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

struct axis {
	double lo, hi;
	int p0, p1; /* pixel of lo and of hi */
};

static double px(const struct axis *a, double v)
{
	return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

static void axis_range(struct axis *a, double lo, double hi)
{
	if (hi <= lo) {
		lo = lo > 0 ? lo * 0.9 : 0;
		hi = hi > 0 ? hi * 1.1 : 1;
	}
	double pad = (hi - lo) * 0.06;
	a->lo = lo - pad > 0 ? lo - pad : 0;
	a->hi = hi + pad;
}

static void ticks(FILE *out, const struct axis *a, int vertical, int H)
{
	double step = tick_step(a->hi - a->lo);
	for (double v = ceil(a->lo / step) * step; v <= a->hi + 1e-12; v += step) {
		double p = px(a, v);
		if (vertical)
			fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
				     "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%g</text>\n",
				ML, p, W - MR, p, ML - 6, p, v);
		else
			fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
				     "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
				p, MT, p, H - MB, p, H - MB + 16, v);
	}
}

/* The group (mode, version) of @row: its colour index. */
static size_t group_of(const struct emp_runs *r, const struct emp_runs_row *row)
{
	size_t m = 0, v = 0;
	while (m < r->nmodes && r->modes[m] != row->mode)
		m++;
	while (v < r->nversions && r->versions[v] != row->version)
		v++;
	return m * r->nversions + v;
}

/* A legend text at (@x, @y), up to the right edge, the middle elided (the full text in a tooltip). */
static void legend_text(FILE *out, int x, int y, const char *s)
{
	fprintf(out, "<text x=\"%d\" y=\"%d\" dominant-baseline=\"middle\">", x, y);
	emp_textfit_svg(out, s, W - x - 4, EMP_FONT_SANS, 12);
	fputs("</text>\n", out);
}

void emp_runplot_write(FILE *out, const struct emp_runs *r)
{
	/* tall enough for the legend: a row per (mode, version) and three for the marks and lines */
	int legend = MT + 8 + (int)(r->nmodes * r->nversions) * LEGEND_ROW + 8 + 3 * 20 + MB;
	const int H = legend > H_MIN ? legend : H_MIN;
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	size_t ndist = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct emp_runs_row *row = &r->rows[i];
		xmin = fmin(xmin, row->cpu);
		xmax = fmax(xmax, row->cpu);
		ymin = fmin(ymin, row->elapsed);
		ymax = fmax(ymax, row->elapsed);
		ndist += row->disturbed != 0;
	}
	struct axis ax = { .p0 = ML, .p1 = W - MR }, ay = { .p0 = H - MB, .p1 = MT };
	axis_range(&ax, xmin, xmax);
	/* the elapsed range takes in both lines over the process-time range, so the cutoff is always drawn */
	ymin = fmin(ymin, ax.lo / r->threads);
	ymax = fmax(ymax, ax.hi / r->threads * r->factor + r->slack);
	axis_range(&ay, ymin, ymax);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		     "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
		W, H, W, H, W, H);
	fprintf(out, "<text x=\"%d\" y=\"22\" font-size=\"15\">Elapsed vs process time per run (%zu runs, %zu "
		     "disturbed)</text>\n", ML, r->nrows, ndist);
	ticks(out, &ax, 0, H);
	ticks(out, &ay, 1, H);
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", ML, MT,
		W - MR - ML, H - MB - MT);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">process time (user + sys), s</text>\n",
		(ML + W - MR) / 2, H - 12);
	fprintf(out, "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\">elapsed time, s</text>\n",
		(MT + H - MB) / 2);
	/* the lines, clipped to the plot area */
	fprintf(out, "<clipPath id=\"plot\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></clipPath>\n", ML, MT,
		W - MR - ML, H - MB - MT);
	double x0 = ax.lo, x1 = ax.hi;
	fprintf(out, "<g clip-path=\"url(#plot)\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
		     "stroke-dasharray=\"2 3\"/>\n", px(&ax, x0), px(&ay, x0 / r->threads), px(&ax, x1),
		px(&ay, x1 / r->threads));
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-dasharray=\"6 4\"/>"
		     "</g>\n", px(&ax, x0), px(&ay, x0 / r->threads * r->factor + r->slack), px(&ax, x1),
		px(&ay, x1 / r->threads * r->factor + r->slack));
	for (size_t i = 0; i < r->nrows; i++) {
		const struct emp_runs_row *row = &r->rows[i];
		double x = px(&ax, row->cpu), y = px(&ay, row->elapsed);
		if (row->disturbed)
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7.5\" fill=\"none\" stroke=\"#d62728\" "
				     "stroke-width=\"1.5\"/>", x, y);
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>", x, y,
			palette[group_of(r, row) % (sizeof(palette) / sizeof(*palette))]);
		emp_xml_escape(out, row->mode);
		fputc('/', out);
		emp_xml_escape(out, row->version);
		fprintf(out, " vm%lu attempt %lu: elapsed %.3f s, process time %.3f s%s%s</title></circle>\n", row->vm,
			row->attempt, row->elapsed, row->cpu, row->disturbed ? ", disturbed" : "",
			row->exit ? ", failed" : "");
	}
	/* legend */
	int lx = W - MR + 16, ly = MT + 8;
	for (size_t m = 0; m < r->nmodes; m++)
		for (size_t v = 0; v < r->nversions; v++, ly += LEGEND_ROW) {
			fprintf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/>\n", lx, ly,
				palette[(m * r->nversions + v) % (sizeof(palette) / sizeof(*palette))]);
			char label[512];
			snprintf(label, sizeof(label), "%s/%s", r->modes[m], r->versions[v]);
			legend_text(out, lx + 12, ly, label);
		}
	ly += 8;
	fprintf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"7.5\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\"/>\n",
		lx, ly);
	legend_text(out, lx + 12, ly, "disturbed");
	ly += 20;
	char line[160];
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d62728\" stroke-dasharray=\"6 4\"/>\n",
		lx - 8, ly, lx + 8, ly);
	snprintf(line, sizeof(line), "cutoff: cpu/%g \xc3\x97 %g + %g s", r->threads, r->factor, r->slack);
	legend_text(out, lx + 12, ly, line);
	ly += 20;
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\" stroke-dasharray=\"2 3\"/>\n",
		lx - 8, ly, lx + 8, ly);
	snprintf(line, sizeof(line), "elapsed = cpu/%g", r->threads);
	legend_text(out, lx + 12, ly, line);
	fputs("</svg>\n", out);
}
