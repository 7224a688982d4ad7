/* SPDX-License-Identifier: MIT */
/* diffflame.c - compare's verdicts on the base's flame graph; see diffflame.h.  Only the weights and a style hook
 * are ours: the drawing is flame.c's. */
#include "diffflame.h"

#include <math.h>
#include <stdlib.h>

#include "flame.h"
#include "util.h"

struct diff {
	const struct emp_compare_row **row; /* [node id]: the node's row, NULL under --min-pct */
	const char *unit;
	double min_pct;
};

/* The verdict's colour; saturation by the ratio (a changed node's ratio is never 1; NaN or infinite: full). */
static void fill_of(const struct emp_compare_row *r, char *buf, size_t len)
{
	if (r->verdict == EMP_COMPARE_UNCHANGED) {
		snprintf(buf, len, "rgb(200,200,200)");
		return;
	}
	double ratio = isfinite(r->ratio.point) ? r->ratio.point : r->new_mean / r->base_mean;
	double t = 0.3 + 0.7 * fmin(1, fabs(log2(ratio)));
	unsigned c = (unsigned)lround(215 * (1 - t));
	if (r->verdict == EMP_COMPARE_SLOWER)
		snprintf(buf, len, "rgb(255,%u,%u)", c, c);
	else
		snprintf(buf, len, "rgb(%u,%u,255)", c, (c + 255) / 2);
}

static void style(const struct emp_cct_node *n, void *arg, struct emp_flame_style *st)
{
	const struct diff *d = arg;
	const struct emp_compare_row *r = d->row[n->id];
	if (!r) {
		snprintf(st->fill, sizeof(st->fill), "rgb(235,235,235)");
		snprintf(st->tip, sizeof(st->tip), "not tested: under --min-pct %g %% of the iteration", d->min_pct);
		return;
	}
	fill_of(r, st->fill, sizeof(st->fill));
	char p[32];
	if (isnan(r->res.p))
		snprintf(p, sizeof(p), "n/a");
	else
		snprintf(p, sizeof(p), "%.3g", r->res.p);
	snprintf(st->tip, sizeof(st->tip), "%s%s, ratio %.3f [95%% CI %.3f-%.3f], p %s, base %.6g %s, new %.6g %s",
		 emp_compare_verdict_name(r->verdict), r->cause ? ", root cause" : "", r->ratio.point, r->ratio.lo,
		 r->ratio.hi, p, r->base_mean, d->unit, r->new_mean, d->unit);
	st->outline = r->cause;
}

int emp_diffflame_write(FILE *out, const struct emp_iter_set *s, const struct emp_compare *c,
			const struct emp_compare_opts *o, const char *unit)
{
	uint32_t nn = emp_cct_size(s->cct);
	struct diff d = { .row = emp_xcalloc(nn, sizeof(*d.row)), .unit = unit, .min_pct = o->min_pct };
	size_t absent = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		d.row[c->rows[i].n->id] = &c->rows[i];
		absent += c->rows[i].verdict != EMP_COMPARE_UNCHANGED && c->rows[i].base_mean == 0;
	}
	/* width: the mean over the base VMs; the root weighs what its children do */
	double *w = emp_xcalloc(nn, sizeof(*w));
	size_t nbase = 0;
	for (size_t v = 0; v < s->nvms; v++) {
		if (s->vms[v].group)
			continue;
		nbase++;
		for (uint32_t id = 1; id < nn; id++)
			w[id] += emp_iter_value(&s->vms[v], id);
	}
	for (uint32_t id = 1; id < nn; id++) {
		w[id] /= nbase ? (double)nbase : 1;
		if (emp_cct_node(s->cct, id)->depth == 1)
			w[0] += w[id];
	}
	char title[128], sub[256];
	snprintf(title, sizeof(title), "new vs base: %zu changed, %zu root cause%s (alpha %g)", c->nchanged, c->ncause,
		 c->ncause == 1 ? "" : "s", o->alpha);
	int len = snprintf(sub, sizeof(sub),
			   "width: base mean; red slower, blue faster (full at 2x), grey unchanged; outlined: root cause");
	if (absent)
		snprintf(sub + len, sizeof(sub) - (size_t)len, "; %zu changed not in the base", absent);
	struct emp_flame_opts fo = { .title = title, .subtitle = sub, .weights = w, .style = style, .style_arg = &d };
	int rc = emp_flame_write(out, s->cct, s->st, &fo);
	free(w);
	free(d.row);
	return rc;
}
