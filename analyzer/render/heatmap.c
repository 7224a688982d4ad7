/* SPDX-License-Identifier: MIT */
/* heatmap.c - F1 grids as SVG; see heatmap.h. */
#include "heatmap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "flame.h"
#include "textfit.h"
#include "util.h"

/* F1 -> fill colour: red (0) through yellow (0.5) to green (1). */
static void colour(double f1, char *buf, size_t len)
{
	double t = f1 < 0 ? 0 : f1 > 1 ? 1 : f1;
	int r = t < 0.5 ? 220 : (int)(220 - (t - 0.5) * 2 * 190);
	int g = t < 0.5 ? (int)(60 + t * 2 * 150) : (int)(210 - (t - 0.5) * 2 * 60);
	snprintf(buf, len, "rgb(%d,%d,60)", r, g);
}

/* Cell size and panel layout. */
enum { CH = 22, LEFT = 90, TOP = 50, GAP = 10, FONT = 11, TITLE_FONT = 14 };

static int cell_width(size_t nk)
{
	return nk > 60 ? 10 : nk > 30 ? 16 : 28;
}

/* One panel at @y0 of a picture @width pixels wide. */
static void write_panel(FILE *f, const struct emp_heatmap *h, const struct emp_heatmap_panel *p, int y0, int width)
{
	const int cw = cell_width(h->nk), ni = (int)h->niters, nk = (int)h->nk;
	fprintf(f, "<g transform=\"translate(0,%d)\">\n<text x=\"10\" y=\"30\" font-weight=\"bold\">", y0);
	emp_textfit_svg(f, p->title, width - 20, EMP_FONT_SANS_BOLD, FONT);
	fprintf(f, "</text>\n");
	for (size_t i = 0; i < h->niters; i++) {
		/* the largest iteration count on top */
		int y = TOP + (int)(h->niters - 1 - i) * CH;
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%u</text>\n", LEFT - 6, y + 15, h->iters[i]);
		for (size_t k = 0; k < h->nk; k++) {
			const struct emp_exactness_cell *c = &p->cells[i * h->nk + k];
			char fill[32];
			colour(c->f1, fill, sizeof(fill));
			int x = LEFT + (int)k * cw;
			fprintf(f,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"%s><title>%zu VMs, "
				"%u iterations: F1 %.3f, P %.3f, R %.3f (TP %u FN %u TN %u FP %u)</title></rect>\n",
				x, y, cw - 1, CH - 1, fill,
				c->f1 > h->threshold ? " stroke=\"black\" stroke-width=\"1.5\"" : "", c->vms, h->iters[i],
				c->f1, c->precision, c->recall, c->tp, c->fn, c->tn, c->fp);
		}
	}
	for (size_t k = 0; k < h->nk; k++) {
		size_t vms = h->kmin + k;
		if (h->nk <= 30 || vms % 5 == 0 || k == 0)
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%zu</text>\n",
				LEFT + (int)k * cw + cw / 2, TOP + ni * CH + 14, vms);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">VMs per version</text>\n", LEFT + nk * cw / 2,
		TOP + ni * CH + 30);
	fprintf(f, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">"
		   "iterations</text>\n</g>\n",
		TOP + ni * CH / 2, TOP + ni * CH / 2);
}

int emp_heatmap_write(const char *file, const struct emp_heatmap *h)
{
	FILE *f = fopen(file, "w");
	if (!f) {
		emp_errorf("%s: %s", file, strerror(errno));
		return -1;
	}
	/* as wide as the grid or the title (the longer names are elided to it), panels one under the other */
	const int cw = cell_width(h->nk);
	char title[160];
	snprintf(title, sizeof(title), "F1 of change detection by VMs (x) and iterations per VM (y); outlined: F1 > %.2f",
		 h->threshold);
	int pw = LEFT + (int)h->nk * cw + 20, ph = TOP + (int)h->niters * CH + 36;
	int tw = 20 + (int)(emp_textfit_px(title, EMP_FONT_SANS, TITLE_FONT) + 1);
	int width = pw < tw ? tw : pw, height = 40 + (int)h->npanels * (ph + GAP);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
		   "font-size=\"%d\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		   "<text x=\"10\" y=\"18\" font-size=\"%d\">",
		width, height, FONT, TITLE_FONT);
	emp_xml_escape(f, title);
	fprintf(f, "</text>\n<text x=\"10\" y=\"34\" fill=\"#555\">");
	emp_textfit_svg(f, h->subtitle, width - 20, EMP_FONT_SANS, FONT);
	fprintf(f, "</text>\n");
	for (size_t n = 0; n < h->npanels; n++)
		write_panel(f, h, &h->panels[n], 40 + (int)n * (ph + GAP), width);
	fprintf(f, "</svg>\n");
	if (fclose(f)) {
		emp_errorf("%s: %s", file, strerror(errno));
		return -1;
	}
	return 0;
}
