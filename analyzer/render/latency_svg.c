/* SPDX-License-Identifier: MIT */
/* latency_svg.c - see latency_svg.h. */
#include "latency_svg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "flame.h"
#include "hdr.h"
#include "textfit.h"
#include "util.h"

#define W 1000
#define PANEL_H 340
#define LEFT 80
#define RIGHT 32 /* room for half of the last percentile label, "99.999%", centred on the right edge */
#define TOP 50
#define GAP 90
#define PLOT_W (W - LEFT - RIGHT)
#define PLOT_H (PANEL_H - 40)
#define MAX_DECADES 5 /* panel 2: 1/(1-p) from 1 to 10^5, p = 99.999 % */

static const char *const palette[] = { "rgb(31,119,180)", "rgb(214,39,40)",  "rgb(44,160,44)",
				       "rgb(148,103,189)", "rgb(255,127,14)", "rgb(140,86,75)" };

/* A "nice" axis top at or above @v (1, 2, 5 × 10^k). */
static double nice_top(double v)
{
	if (!(v > 0))
		return 1;
	double e = pow(10, floor(log10(v)));
	for (int i = 0; i < 3; i++) {
		double m = (double[]){ 1, 2, 5 }[i] * e;
		if (m >= v)
			return m;
	}
	return 10 * e;
}

/* Panel 1's linear y axis, 0 to @top_ms in five steps. */
static void y_axis(FILE *out, int y0, double top_ms)
{
	for (int i = 0; i <= 5; i++) {
		double y = y0 + PLOT_H - PLOT_H * i / 5.0;
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"rgb(220,220,220)\"/>\n", LEFT, y,
			LEFT + PLOT_W, y);
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", LEFT - 6, y + 4,
			top_ms * i / 5);
	}
	fprintf(out, "<text x=\"18\" y=\"%d\" transform=\"rotate(-90 18 %d)\" text-anchor=\"middle\">latency (ms)"
		     "</text>\n",
		y0 + PLOT_H / 2, y0 + PLOT_H / 2);
}

/* Shade the pauses @p[0..@n) of the panel [t0, t1] in @fill, titled "@what %.3f ms at %.3f s". */
static void shade(FILE *out, int y0, int64_t t0, int64_t t1, const struct emp_latency_pause *p, size_t n,
		  const char *fill, const char *what)
{
	double span = (double)(t1 - t0);
	for (size_t i = 0; i < n; i++) {
		int64_t s = p[i].start_ns, e = p[i].start_ns + p[i].duration_ns;
		if (e < t0 || s > t1)
			continue;
		double x = LEFT + (double)(s - t0) / span * PLOT_W, w = (double)(e - s) / span * PLOT_W;
		if (x < LEFT) {
			w -= LEFT - x;
			x = LEFT;
		}
		fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
			     "fill-opacity=\"0.6\"><title>%s %.3f ms at %.3f s</title></rect>\n",
			x, y0, fmax(w, 1.0), PLOT_H, fill, what, (double)p[i].duration_ns / 1e6, (double)(s - t0) / 1e9);
	}
}

static void time_panel(FILE *out, const struct emp_latency_log *l, const struct emp_latency_pause *p, size_t np,
		       const struct emp_latency_pause *sp, size_t nsp)
{
	int y0 = TOP;
	int64_t t0 = l->t_min, t1 = l->t_max > l->t_min ? l->t_max : l->t_min + 1;
	double span = (double)(t1 - t0);
	double *cmax = emp_xcalloc(PLOT_W, sizeof(double)), *umax = emp_xcalloc(PLOT_W, sizeof(double));
	double top = 0;
	for (size_t i = 0; i < l->n; i++) {
		int x = (int)((double)(l->due[i] - t0) / span * (PLOT_W - 1));
		double c = (double)(l->done[i] - l->due[i]) / 1e6, u = (double)(l->done[i] - l->sent[i]) / 1e6;
		cmax[x] = fmax(cmax[x], c);
		umax[x] = fmax(umax[x], u);
		top = fmax(top, c);
	}
	top = nice_top(top);
	char title[4400];
	snprintf(title, sizeof(title), "Response time over due time: %s (max per %.3g ms column; %zu GC pauses, %zu other "
		 "safepoints shaded)", l->path, span / PLOT_W / 1e6, np, nsp);
	fprintf(out, "<text x=\"%d\" y=\"%d\" style=\"font-size: 14px\">", LEFT, y0 - 12);
	emp_textfit_svg(out, title, PLOT_W, EMP_FONT_SANS, 14);
	fputs("</text>\n", out);
	y_axis(out, y0, top);
	shade(out, y0, t0, t1, sp, nsp, "rgb(150,170,255)", "safepoint");
	shade(out, y0, t0, t1, p, np, "rgb(255,160,160)", "GC pause");
	const double *series[2] = { cmax, umax };
	static const char *const style[2] = { "stroke=\"rgb(31,119,180)\"", "stroke=\"rgb(44,160,44)\"" };
	for (int k = 0; k < 2; k++) {
		fprintf(out, "<polyline fill=\"none\" %s stroke-width=\"1\" points=\"", style[k]);
		for (int x = 0; x < PLOT_W; x++)
			fprintf(out, "%d,%.1f ", LEFT + x, y0 + PLOT_H - series[k][x] / top * PLOT_H);
		fputs("\"/>\n", out);
	}
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"black\"/>\n", LEFT, y0,
		PLOT_W, PLOT_H);
	for (int i = 0; i <= 10; i++)
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.3g</text>\n", LEFT + PLOT_W * i / 10.0,
			y0 + PLOT_H + 16, span / 1e9 * i / 10);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">due time (s)</text>\n", LEFT + PLOT_W / 2,
		y0 + PLOT_H + 32);
	fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"rgb(31,119,180)\">corrected (from due time)</text>"
		     "<text x=\"%d\" y=\"%d\" fill=\"rgb(44,160,44)\">uncorrected (from write)</text>"
		     "<text x=\"%d\" y=\"%d\" fill=\"rgb(220,80,80)\">GC pause</text>"
		     "<text x=\"%d\" y=\"%d\" fill=\"rgb(90,110,230)\">other safepoint</text>\n",
		LEFT + 10, y0 + 16, LEFT + 230, y0 + 16, LEFT + 450, y0 + 16, LEFT + 550, y0 + 16);
	free(cmax);
	free(umax);
}

/* Panel 2's y axis is logarithmic, LOG_LO ms to a decade at or above the largest value: a slow agent's tail and a
 * fast one's median fit on one plot. */
#define LOG_LO 0.01

static double log_y(int y0, double v_ms, double top_ms)
{
	double f = (log10(fmax(v_ms, LOG_LO)) - log10(LOG_LO)) / (log10(top_ms) - log10(LOG_LO));
	return y0 + PLOT_H - fmin(f, 1.0) * PLOT_H;
}

static void percentile_panel(FILE *out, const struct emp_latency_log *logs, size_t nlogs)
{
	int y0 = TOP + PANEL_H + GAP;
	enum { STEPS = 200 };
	double top = 1;
	for (size_t i = 0; i < nlogs; i++)
		top = fmax(top, (double)emp_hdr_max(logs[i].corrected) / 1e3);
	top = pow(10, ceil(log10(top)));
	fprintf(out, "<text x=\"%d\" y=\"%d\" style=\"font-size: 14px\">Latency by percentile (solid corrected, "
		     "dashed uncorrected; log scales)</text>\n",
		LEFT, y0 - 12);
	for (double v = LOG_LO; v <= top * 1.001; v *= 10) {
		double y = log_y(y0, v, top);
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"rgb(220,220,220)\"/>"
			     "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			LEFT, y, LEFT + PLOT_W, y, LEFT - 6, y + 4, v);
	}
	fprintf(out, "<text x=\"18\" y=\"%d\" transform=\"rotate(-90 18 %d)\" text-anchor=\"middle\">latency (ms)"
		     "</text>\n",
		y0 + PLOT_H / 2, y0 + PLOT_H / 2);
	static const char *const labels[] = { "0%", "90%", "99%", "99.9%", "99.99%", "99.999%" };
	for (int d = 0; d <= MAX_DECADES; d++) {
		double x = LEFT + PLOT_W * d / (double)MAX_DECADES;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"rgb(220,220,220)\"/>"
			     "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x, y0, x, y0 + PLOT_H, x, y0 + PLOT_H + 16, labels[d]);
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">percentile (log scale of 1/(1-p))</text>\n",
		LEFT + PLOT_W / 2, y0 + PLOT_H + 32);
	for (size_t i = 0; i < nlogs; i++) {
		const char *color = palette[i % (sizeof(palette) / sizeof(palette[0]))];
		struct emp_hdr *h[2] = { logs[i].corrected, logs[i].uncorrected };
		for (int k = 0; k < 2; k++) {
			fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"", color,
				k ? " stroke-dasharray=\"5,3\"" : "");
			for (int s = 0; s <= STEPS && emp_hdr_count(h[k]); s++) {
				double decades = MAX_DECADES * (double)s / STEPS;
				double p = 100.0 * (1 - pow(10, -decades));
				fprintf(out, "%.1f,%.1f ", LEFT + PLOT_W * decades / MAX_DECADES,
					log_y(y0, (double)emp_hdr_percentile(h[k], p) / 1e3, top));
			}
			fputs("\"/>\n", out);
		}
		char label[4400];
		snprintf(label, sizeof(label), "%s (p99 %.3g ms corrected, %.3g ms uncorrected)", logs[i].path,
			 (double)emp_hdr_percentile(h[0], 99) / 1e3, (double)emp_hdr_percentile(h[1], 99) / 1e3);
		fprintf(out, "<text x=\"%d\" y=\"%zu\" fill=\"%s\">", LEFT + 10, y0 + 16 + 14 * i, color);
		emp_textfit_svg(out, label, PLOT_W - 20, EMP_FONT_SANS, 12);
		fputs("</text>\n", out);
	}
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"black\"/>\n", LEFT, y0,
		PLOT_W, PLOT_H);
}

int emp_latency_svg_write(FILE *out, const struct emp_latency_log *logs, size_t nlogs,
			  const struct emp_latency_pause *gc, size_t ngc, const struct emp_latency_pause *sp, size_t nsp)
{
	int h = TOP + 2 * PANEL_H + GAP;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		     "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		     "viewBox=\"0 0 %d %d\">\n"
		     "<style>text { font-family: sans-serif; font-size: 12px; }</style>\n"
		     "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
		W, h, W, h, W, h);
	time_panel(out, &logs[0], gc, ngc, sp, nsp);
	percentile_panel(out, logs, nlogs);
	fputs("</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
