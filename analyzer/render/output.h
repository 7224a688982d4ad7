/* SPDX-License-Identifier: MIT */
/* output.h - report output in the three formats every emp-analyze command offers: text, csv, json.
 *
 * A report is a set of tables.  text: aligned columns under a title; csv: RFC 4180 (a header line per table, and
 * with several tables a leading "table" column naming each row's table); json: {"tables":{"name":[{col:value}]}}.
 * Numbers keep full precision in csv/json and are rounded for text only.
 *
 * Text tables fit a width when one is set (emp_output_set_text_width: the terminal's): when a table's rows would be
 * wider, its string columns wider than EMP_TEXT_MIN_COL are narrowed, the widest first, and a longer string is
 * elided in the middle, "head...tail" (the tail keeps the method name).  csv and json are never elided. */
#ifndef EMP_OUTPUT_H
#define EMP_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

struct emp_notes;

enum emp_format { EMP_FMT_TEXT, EMP_FMT_CSV, EMP_FMT_JSON };

/* emp_output_set_text_width - the width (columns) text tables of reports created from now on fit; 0 (the default)
 * prints every string whole.  emp-analyze sets it once, before a command runs. */
void emp_output_set_text_width(unsigned cols);
#define EMP_TEXT_MIN_COL 24

/* Parse "text", "csv" or "json".  Return: 0 or -1. */
int emp_format_parse(const char *s, enum emp_format *f);

enum emp_cell_type { EMP_CELL_STR, EMP_CELL_INT, EMP_CELL_NUM };

struct emp_table;

/* emp_table_new - a table named @name (json key, csv table column) titled @title (text) with @ncols columns.
 * Exits the program when out of memory (analyzer only). */
struct emp_table *emp_table_new(const char *name, const char *title, int ncols, const char *const *cols);
void emp_table_free(struct emp_table *t);
/* Append cells left to right; a row starts with emp_table_row(). */
void emp_table_row(struct emp_table *t);
void emp_table_str(struct emp_table *t, const char *s);
void emp_table_int(struct emp_table *t, int64_t v);
/* @decimals: digits after the point in text output. */
void emp_table_num(struct emp_table *t, double v, int decimals);
size_t emp_table_rows(const struct emp_table *t);

/* A report collects tables (and owns them) and prints them in one format. */
struct emp_report;
struct emp_report *emp_report_new(enum emp_format fmt);
void emp_report_add(struct emp_report *r, struct emp_table *t);
/* Free text lines printed before the tables in text output only (headers, notes). */
__attribute__((format(printf, 2, 3))) void emp_report_note(struct emp_report *r, const char *fmt, ...);
/* emp_report_notes - append the library's notes @n (notes.h) as above. */
void emp_report_notes(struct emp_report *r, const struct emp_notes *n);
/* emp_report_stream - in csv and json, write @t's rows to @out as they come instead of keeping them (a table of
 * millions of rows, such as `tree --min-pct 0` of a large trace, in constant memory).  Only for a report's one
 * table, given before its first row: emp_report_add(@r, @t) and emp_report_print(@r, @out) then finish it (any
 * other table added is an internal error).  Text output needs every row for its widths: no effect there. */
void emp_report_stream(struct emp_report *r, struct emp_table *t, FILE *out);
void emp_report_print(struct emp_report *r, FILE *out);
void emp_report_free(struct emp_report *r);

/* Helpers for other writers (flame graphs, exports). */
void emp_json_string(FILE *out, const char *s);
void emp_csv_field(FILE *out, const char *s);
/* emp_csv_read_field - the next field of the csv line at *@p, quoted or not as emp_csv_field() writes it, whole
 * (malloc'ed, the caller frees it); *@p moves past its comma.  Return: NULL at the end of the line. */
char *emp_csv_read_field(const char **p);

#endif /* EMP_OUTPUT_H */
