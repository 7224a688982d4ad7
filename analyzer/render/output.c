/* SPDX-License-Identifier: MIT */
/* output.c - tables in text, csv and json; see output.h. */
#include "output.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "notes.h"
#include "textfit.h"
#include "util.h"

struct cell {
	enum emp_cell_type type;
	char *s;
	int64_t i;
	double d;
	int decimals;
};

struct emp_table {
	char *name, *title;
	int ncols;
	char **cols;
	struct cell *cells; /* rows * ncols */
	size_t rows, cap, filled;
	struct emp_table *next;
	FILE *stream;       /* emp_report_stream(): rows go there once complete, in the report's format */
	enum emp_format sfmt;
	size_t streamed;    /* rows already written there */
};

struct emp_report {
	enum emp_format fmt;
	struct emp_table *streaming; /* emp_report_stream()'s table: then the report's only one */
	unsigned width;     /* text: the width tables fit, 0 = none */
	struct emp_table *first, *last;
	struct emp_notes notes;
};

static unsigned text_width;

void emp_output_set_text_width(unsigned cols)
{
	text_width = cols;
}

int emp_format_parse(const char *s, enum emp_format *f)
{
	if (!strcmp(s, "text"))
		*f = EMP_FMT_TEXT;
	else if (!strcmp(s, "csv"))
		*f = EMP_FMT_CSV;
	else if (!strcmp(s, "json"))
		*f = EMP_FMT_JSON;
	else
		return -1;
	return 0;
}

struct emp_table *emp_table_new(const char *name, const char *title, int ncols, const char *const *cols)
{
	struct emp_table *t = emp_xcalloc(1, sizeof(*t));
	t->name = emp_xstrdup(name);
	t->title = emp_xstrdup(title ? title : "");
	t->ncols = ncols;
	t->cols = emp_xcalloc((size_t)ncols, sizeof(*t->cols));
	for (int i = 0; i < ncols; i++)
		t->cols[i] = emp_xstrdup(cols[i]);
	return t;
}

void emp_table_free(struct emp_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->filled; i++)
		free(t->cells[i].s);
	for (int i = 0; i < t->ncols; i++)
		free(t->cols[i]);
	free(t->cols);
	free(t->cells);
	free(t->name);
	free(t->title);
	free(t);
}

static void stream_row(struct emp_table *t);

void emp_table_row(struct emp_table *t)
{
	if (t->stream && t->rows)
		stream_row(t);
	/* pad an incomplete previous row */
	while (t->filled < t->rows * (size_t)t->ncols)
		emp_table_str(t, "");
	if ((t->rows + 1) * (size_t)t->ncols > t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64 * (size_t)t->ncols;
		t->cells = emp_xrealloc(t->cells, t->cap * sizeof(*t->cells));
	}
	t->rows++;
}

static struct cell *next_cell(struct emp_table *t)
{
	if (t->filled >= t->rows * (size_t)t->ncols)
		emp_die("internal error: too many cells in a row of table %s", t->name);
	struct cell *c = &t->cells[t->filled++];
	memset(c, 0, sizeof(*c));
	return c;
}

void emp_table_str(struct emp_table *t, const char *s)
{
	struct cell *c = next_cell(t);
	c->type = EMP_CELL_STR;
	c->s = emp_xstrdup(s ? s : "");
}

void emp_table_int(struct emp_table *t, int64_t v)
{
	struct cell *c = next_cell(t);
	c->type = EMP_CELL_INT;
	c->i = v;
}

void emp_table_num(struct emp_table *t, double v, int decimals)
{
	struct cell *c = next_cell(t);
	c->type = EMP_CELL_NUM;
	c->d = v;
	c->decimals = decimals;
}

size_t emp_table_rows(const struct emp_table *t)
{
	return t->streamed + t->rows;
}

struct emp_report *emp_report_new(enum emp_format fmt)
{
	struct emp_report *r = emp_xcalloc(1, sizeof(*r));
	r->fmt = fmt;
	r->width = text_width;
	return r;
}

void emp_report_add(struct emp_report *r, struct emp_table *t)
{
	if (r->streaming && (t != r->streaming || r->first))
		emp_die("internal error: a report streaming table %s gets table %s", r->streaming->name, t->name);
	while (t->filled < t->rows * (size_t)t->ncols)
		emp_table_str(t, "");
	if (t->stream && t->rows)
		stream_row(t);
	if (r->last)
		r->last->next = t;
	else
		r->first = t;
	r->last = t;
}

void emp_report_note(struct emp_report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emp_notes_vadd(&r->notes, fmt, ap);
	va_end(ap);
}

void emp_report_notes(struct emp_report *r, const struct emp_notes *n)
{
	for (size_t i = 0; i < n->n; i++)
		emp_notes_add(&r->notes, "%s", n->v[i]);
}

void emp_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void emp_csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

char *emp_csv_read_field(const char **p)
{
	const char *s = *p;
	if (!*s || *s == '\n')
		return NULL;
	size_t len = 0;
	char *f;
	if (*s == '"') { /* "" inside stands for one quote */
		const char *q = ++s;
		for (; *q && !(*q == '"' && q[1] != '"'); q++)
			q += *q == '"';
		f = emp_xmalloc((size_t)(q - s) + 1);
		for (; s < q; s++) {
			f[len++] = *s;
			s += *s == '"';
		}
		s = q + (*q == '"');
	} else {
		len = strcspn(s, ",\n");
		f = emp_xmalloc(len + 1);
		memcpy(f, s, len);
		s += len;
	}
	f[len] = '\0';
	*p = s + (*s == ',');
	return f;
}

/* The shortest "%.Ng" of @d that reads back as @d exactly (17 digits always do): 17.067664, not the
 * 17.067664000000001 that "%.17g" prints for the same double. */
static void shortest(double d, char *buf, size_t len)
{
	for (int digits = 15; digits < 17; digits++) {
		snprintf(buf, len, "%.*g", digits, d);
		if (strtod(buf, NULL) == d)
			return;
	}
	snprintf(buf, len, "%.17g", d);
}

/* Room for a number's text: the largest double prints 309 digits with "%f", then its decimals. */
#define NUM_TEXT 352

/* A cell's text: a string cell's own string, whole (a calling context's path runs to tens of kilobytes: cutting it
 * would make distinct contexts print alike); a number rendered into @buf (@len bytes), at full precision for
 * csv/json (@full) and rounded for text. */
static const char *cell_text(const struct cell *c, int full, char *buf, size_t len)
{
	switch (c->type) {
	case EMP_CELL_STR:
		return c->s;
	case EMP_CELL_INT:
		snprintf(buf, len, "%" PRId64, c->i);
		break;
	case EMP_CELL_NUM:
		if (!isfinite(c->d))
			snprintf(buf, len, "%s", full ? "" : "-");
		else if (full)
			shortest(c->d, buf, len);
		else
			snprintf(buf, len, "%.*f", c->decimals, c->d);
		break;
	}
	return buf;
}

/* Narrow the string columns of @t (widths @w) until a row fits @width: one column at a time, the widest first,
 * none below EMP_TEXT_MIN_COL or its header. */
static void fit_width(const struct emp_table *t, size_t *w, unsigned width)
{
	size_t total = 2 * (size_t)(t->ncols - 1);
	for (int c = 0; c < t->ncols; c++)
		total += w[c];
	for (; total > width; total--) {
		int widest = -1;
		for (int c = 0; c < t->ncols; c++) {
			size_t min = strlen(t->cols[c]) > EMP_TEXT_MIN_COL ? strlen(t->cols[c]) : EMP_TEXT_MIN_COL;
			int is_str = t->rows && t->cells[(size_t)c].type == EMP_CELL_STR;
			if (is_str && w[c] > min && (widest < 0 || w[c] > w[widest]))
				widest = c;
		}
		if (widest < 0)
			return;
		w[widest]--;
	}
}

static void print_text(const struct emp_report *r, FILE *out)
{
	char *cut = NULL; /* a string cell elided to its column's width */
	uint32_t cut_cap = 0;
	for (size_t i = 0; i < r->notes.n; i++)
		fprintf(out, "%s\n", r->notes.v[i]);
	for (const struct emp_table *t = r->first; t; t = t->next) {
		size_t *w = emp_xcalloc((size_t)t->ncols, sizeof(*w));
		char buf[NUM_TEXT];
		for (int c = 0; c < t->ncols; c++)
			w[c] = strlen(t->cols[c]);
		for (size_t i = 0; i < t->rows * (size_t)t->ncols; i++) {
			size_t n = strlen(cell_text(&t->cells[i], 0, buf, sizeof(buf)));
			if (n > w[i % (size_t)t->ncols])
				w[i % (size_t)t->ncols] = n;
		}
		if (r->width)
			fit_width(t, w, r->width);
		if (r->notes.n || t != r->first)
			fputc('\n', out);
		if (*t->title)
			fprintf(out, "%s\n", t->title);
		for (int c = 0; c < t->ncols; c++)
			fprintf(out, "%s%-*s", c ? "  " : "", c == t->ncols - 1 ? 0 : (int)w[c], t->cols[c]);
		fputc('\n', out);
		for (size_t row = 0; row < t->rows; row++) {
			for (int c = 0; c < t->ncols; c++) {
				const struct cell *cl = &t->cells[row * (size_t)t->ncols + (size_t)c];
				const char *s = cell_text(cl, 0, buf, sizeof(buf));
				size_t n = strlen(s);
				if (n > w[c]) {
					cut = emp_xgrow(cut, &cut_cap, (uint32_t)n + 1, 1);
					memcpy(cut, s, n + 1);
					emp_textfit_elide(cut, w[c]);
					s = cut;
				}
				int right = cl->type != EMP_CELL_STR;
				int width = c == t->ncols - 1 && !right ? 0 : (int)w[c];
				fprintf(out, right ? "%s%*s" : "%s%-*s", c ? "  " : "", width, s);
			}
			fputc('\n', out);
		}
		free(w);
	}
	free(cut);
}

static void csv_header(FILE *out, const struct emp_table *t, int several)
{
	if (several)
		fputs("table,", out);
	for (int c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', out);
		emp_csv_field(out, t->cols[c]);
	}
	fputc('\n', out);
}

static void csv_row(FILE *out, const struct emp_table *t, size_t row, int several)
{
	char buf[NUM_TEXT];
	if (several) {
		emp_csv_field(out, t->name);
		fputc(',', out);
	}
	for (int c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', out);
		emp_csv_field(out, cell_text(&t->cells[row * (size_t)t->ncols + (size_t)c], 1, buf, sizeof(buf)));
	}
	fputc('\n', out);
}

static void print_csv(const struct emp_report *r, FILE *out)
{
	if (r->streaming)
		return; /* every row is out */
	int several = r->first && r->first->next;
	for (const struct emp_table *t = r->first; t; t = t->next) {
		if (t != r->first)
			fputc('\n', out);
		csv_header(out, t, several);
		for (size_t row = 0; row < t->rows; row++)
			csv_row(out, t, row, several);
	}
}

static void json_open(FILE *out, const struct emp_table *t, int first)
{
	if (!first)
		fputc(',', out);
	fputc('\n', out);
	emp_json_string(out, t->name);
	fputs(":[", out);
}

/* Row @row of @t's cells, the @index-th of the table's rows in the output. */
static void json_row(FILE *out, const struct emp_table *t, size_t row, size_t index)
{
	char buf[NUM_TEXT];
	fputs(index ? ",\n {" : "\n {", out);
	for (int c = 0; c < t->ncols; c++) {
		const struct cell *cl = &t->cells[row * (size_t)t->ncols + (size_t)c];
		if (c)
			fputc(',', out);
		emp_json_string(out, t->cols[c]);
		fputc(':', out);
		if (cl->type == EMP_CELL_STR) {
			emp_json_string(out, cl->s);
		} else if (cl->type == EMP_CELL_NUM && !isfinite(cl->d)) {
			fputs("null", out);
		} else {
			fputs(cell_text(cl, 1, buf, sizeof(buf)), out);
		}
	}
	fputc('}', out);
}

static void print_json(const struct emp_report *r, FILE *out)
{
	if (r->streaming) { /* its opening and every row are out */
		fputs("]\n}}\n", out);
		return;
	}
	fputs("{\"tables\":{", out);
	for (const struct emp_table *t = r->first; t; t = t->next) {
		json_open(out, t, t == r->first);
		for (size_t row = 0; row < t->rows; row++)
			json_row(out, t, row, row);
		fputs("]", out);
	}
	fputs("\n}}\n", out);
}

void emp_report_stream(struct emp_report *r, struct emp_table *t, FILE *out)
{
	if (r->fmt == EMP_FMT_TEXT || r->first || r->streaming || emp_table_rows(t))
		return; /* text needs every row for its widths; a stream is a report's only table, from its start */
	r->streaming = t;
	t->stream = out;
	t->sfmt = r->fmt;
	if (r->fmt == EMP_FMT_CSV) {
		csv_header(out, t, 0);
	} else {
		fputs("{\"tables\":{", out);
		json_open(out, t, 1);
	}
}

/* The one complete row of a streamed table out, its cells freed for the next. */
static void stream_row(struct emp_table *t)
{
	while (t->filled < t->rows * (size_t)t->ncols)
		emp_table_str(t, "");
	if (t->sfmt == EMP_FMT_CSV)
		csv_row(t->stream, t, 0, 0);
	else
		json_row(t->stream, t, 0, t->streamed);
	for (size_t i = 0; i < t->filled; i++)
		free(t->cells[i].s);
	t->filled = 0;
	t->rows = 0;
	t->streamed++;
}

void emp_report_print(struct emp_report *r, FILE *out)
{
	switch (r->fmt) {
	case EMP_FMT_TEXT:
		print_text(r, out);
		break;
	case EMP_FMT_CSV:
		print_csv(r, out);
		break;
	case EMP_FMT_JSON:
		print_json(r, out);
		break;
	}
}

void emp_report_free(struct emp_report *r)
{
	if (!r)
		return;
	for (struct emp_table *t = r->first, *n; t; t = n) {
		n = t->next;
		emp_table_free(t);
	}
	emp_notes_free(&r->notes);
	free(r);
}
