/* SPDX-License-Identifier: MIT */
/* test_output.c - report tables (analyzer/render/output.c) in text, csv and json, compared byte for byte. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

/* Print @r into a string (caller frees). */
static char *render(struct emp_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	emp_report_print(r, f);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static char *render_json_string(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	emp_json_string(f, s);
	fclose(f);
	return buf;
}

static char *render_csv_field(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	emp_csv_field(f, s);
	fclose(f);
	return buf;
}

static const char *const cols3[] = { "name", "count", "share" };

/* name | count | share: ("a", 1, 0.5), ("bbbb", 12345, NaN) into @t */
static void fill_t(struct emp_table *t)
{
	emp_table_row(t);
	emp_table_str(t, "a");
	emp_table_int(t, 1);
	emp_table_num(t, 0.5, 2);
	emp_table_row(t);
	emp_table_str(t, "bbbb");
	emp_table_int(t, 12345);
	emp_table_num(t, NAN, 1);
}

static struct emp_table *table_t(void)
{
	struct emp_table *t = emp_table_new("t", "Title", 3, cols3);
	fill_t(t);
	cr_assert_eq(emp_table_rows(t), 2);
	return t;
}

static void check(enum emp_format fmt, struct emp_table *t1, struct emp_table *t2, const char *want)
{
	struct emp_report *r = emp_report_new(fmt);
	emp_report_add(r, t1);
	if (t2)
		emp_report_add(r, t2);
	char *got = render(r);
	cr_assert_str_eq(got, want);
	free(got);
	emp_report_free(r);
}

Test(output, format_parse)
{
	enum emp_format f = EMP_FMT_JSON;
	cr_assert_eq(emp_format_parse("text", &f), 0);
	cr_assert_eq(f, EMP_FMT_TEXT);
	cr_assert_eq(emp_format_parse("csv", &f), 0);
	cr_assert_eq(f, EMP_FMT_CSV);
	cr_assert_eq(emp_format_parse("json", &f), 0);
	cr_assert_eq(f, EMP_FMT_JSON);
	cr_assert_eq(emp_format_parse("JSON", &f), -1);
	cr_assert_eq(emp_format_parse("", &f), -1);
	cr_assert_eq(emp_format_parse("bogus", &f), -1);
	cr_assert_eq(f, EMP_FMT_JSON, "unchanged on error");
}

Test(output, text_table)
{
	/* strings left-aligned, numbers right-aligned, two spaces between columns, no trailing blanks after a
	 * string in the last column; NaN as "-" */
	check(EMP_FMT_TEXT, table_t(), NULL,
	      "Title\n"
	      "name  count  share\n"
	      "a         1   0.50\n"
	      "bbbb  12345      -\n");
}

Test(output, text_notes_titles_and_several_tables)
{
	struct emp_report *r = emp_report_new(EMP_FMT_TEXT);
	emp_report_note(r, "file %s: %d threads", "x.emp", 3);
	emp_report_add(r, table_t());
	static const char *const c2[] = { "k", "v" };
	struct emp_table *t = emp_table_new("kv", NULL, 2, c2);
	emp_table_row(t);
	emp_table_str(t, "longer key");
	emp_table_str(t, "x");
	emp_table_row(t);
	emp_table_int(t, -5);
	emp_table_num(t, 2.0 / 3.0, 3);
	emp_report_add(r, t);
	char *got = render(r);
	cr_assert_str_eq(got, "file x.emp: 3 threads\n"
			      "\n"
			      "Title\n"
			      "name  count  share\n"
			      "a         1   0.50\n"
			      "bbbb  12345      -\n"
			      "\n"
			      "k           v\n"
			      "longer key  x\n"
			      "        -5  0.667\n");
	free(got);
	emp_report_free(r);
}

Test(output, csv_table)
{
	check(EMP_FMT_CSV, table_t(), NULL,
	      "name,count,share\n"
	      "a,1,0.5\n"
	      "bbbb,12345,\n");
}

Test(output, csv_several_tables_have_a_table_column)
{
	static const char *const c2[] = { "key", "value" };
	struct emp_table *t = emp_table_new("my,kv", "KV", 2, c2);
	emp_table_row(t);
	emp_table_str(t, "a\"b");
	emp_table_num(t, 0.1, 1);
	check(EMP_FMT_CSV, table_t(), t,
	      "table,name,count,share\n"
	      "t,a,1,0.5\n"
	      "t,bbbb,12345,\n"
	      "\n"
	      "table,key,value\n"
	      "\"my,kv\",\"a\"\"b\",0.1\n");
}

Test(output, csv_quoting)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain", "plain" },
		{ "", "" },
		{ " spaced ", " spaced " },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "\"", "\"\"\"\"" },
		{ "two\nlines", "\"two\nlines\"" },
		{ "cr\r", "\"cr\r\"" },
		{ "Lpkg/A;", "Lpkg/A;" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = render_csv_field(cases[i].in);
		cr_assert_str_eq(got, cases[i].out, "case %zu", i);
		free(got);
	}
}

Test(output, json_table)
{
	check(EMP_FMT_JSON, table_t(), NULL,
	      "{\"tables\":{\n"
	      "\"t\":[\n"
	      " {\"name\":\"a\",\"count\":1,\"share\":0.5},\n"
	      " {\"name\":\"bbbb\",\"count\":12345,\"share\":null}]\n"
	      "}}\n");
}

Test(output, json_several_and_empty_tables)
{
	static const char *const c1[] = { "x" };
	struct emp_table *empty = emp_table_new("empty", "Empty", 1, c1);
	struct emp_table *t = emp_table_new("q\"uote", "", 1, c1);
	emp_table_row(t);
	emp_table_num(t, INFINITY, 2);
	emp_table_row(t);
	emp_table_int(t, INT64_MIN);
	struct emp_report *r = emp_report_new(EMP_FMT_JSON);
	emp_report_add(r, empty);
	emp_report_add(r, t);
	char *got = render(r);
	cr_assert_str_eq(got, "{\"tables\":{\n"
			      "\"empty\":[],\n"
			      "\"q\\\"uote\":[\n"
			      " {\"x\":null},\n"
			      " {\"x\":-9223372036854775808}]\n"
			      "}}\n");
	free(got);
	emp_report_free(r);
}

Test(output, json_empty_report)
{
	struct emp_report *r = emp_report_new(EMP_FMT_JSON);
	char *got = render(r);
	cr_assert_str_eq(got, "{\"tables\":{\n}}\n");
	free(got);
	emp_report_free(r);
	r = emp_report_new(EMP_FMT_CSV);
	got = render(r);
	cr_assert_str_eq(got, "");
	free(got);
	emp_report_free(r);
}

Test(output, json_escaping)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "", "\"\"" },
		{ "plain", "\"plain\"" },
		{ "q\"q", "\"q\\\"q\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "\n\r\t", "\"\\n\\r\\t\"" },
		{ "\x01\x1f", "\"\\u0001\\u001f\"" },
		{ "\b\f", "\"\\u0008\\u000c\"" },
		{ "\x7f", "\"\x7f\"" },
		{ "<init>/", "\"<init>/\"" },
		{ "caf\xc3\xa9 \xe2\x82\xac", "\"caf\xc3\xa9 \xe2\x82\xac\"" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = render_json_string(cases[i].in);
		cr_assert_str_eq(got, cases[i].out, "case %zu", i);
		free(got);
	}
}

Test(output, json_cells_escaped_and_full_precision)
{
	static const char *const c2[] = { "s", "n" };
	struct emp_table *t = emp_table_new("t", "T", 2, c2);
	emp_table_row(t);
	emp_table_str(t, "a\"\n\x02");
	emp_table_num(t, 0.1, 0);
	emp_table_row(t);
	emp_table_str(t, NULL);
	emp_table_num(t, -0.25, 0);
	check(EMP_FMT_JSON, t, NULL,
	      "{\"tables\":{\n"
	      "\"t\":[\n"
	      " {\"s\":\"a\\\"\\n\\u0002\",\"n\":0.1},\n"
	      " {\"s\":\"\",\"n\":-0.25}]\n"
	      "}}\n");
}

Test(output, short_rows_are_padded)
{
	struct emp_table *t = emp_table_new("t", "", 3, cols3);
	emp_table_row(t);
	emp_table_str(t, "only");
	emp_table_row(t); /* pads the first row */
	emp_table_str(t, "x");
	emp_table_int(t, 2);
	/* emp_report_add pads the last row */
	check(EMP_FMT_CSV, t, NULL, "name,count,share\nonly,,\nx,2,\n");
}

Test(output, many_rows_grow)
{
	static const char *const c1[] = { "i" };
	struct emp_table *t = emp_table_new("t", "", 1, c1);
	for (int i = 0; i < 1000; i++) {
		emp_table_row(t);
		emp_table_int(t, i);
	}
	cr_assert_eq(emp_table_rows(t), 1000);
	struct emp_report *r = emp_report_new(EMP_FMT_CSV);
	emp_report_add(r, t);
	char *got = render(r);
	cr_assert_eq(strncmp(got, "i\n0\n1\n2\n", 8), 0);
	cr_assert_eq(strcmp(got + strlen(got) - 8, "998\n999\n"), 0);
	free(got);
	emp_report_free(r);
}

Test(output, too_many_cells_is_an_internal_error, .exit_code = 1)
{
	static const char *const c1[] = { "i" };
	struct emp_table *t = emp_table_new("t", "", 1, c1);
	emp_table_row(t);
	emp_table_int(t, 1);
	emp_table_int(t, 2);
}

/* A table with a long name in a middle column and a long path in the last one: (path, n, method). */
static struct emp_table *table_long(void)
{
	static const char *const cols[] = { "method", "n", "path" };
	struct emp_table *t = emp_table_new("t", "Title", 3, cols);
	emp_table_row(t);
	emp_table_str(t, "org.example.deeply.nested.pkg.Klass.method"); /* 42 bytes */
	emp_table_int(t, 7);
	emp_table_str(t, "a;b");
	emp_table_row(t);
	emp_table_str(t, "X.y");
	emp_table_int(t, 12);
	emp_table_str(t, "org.example.Main.main;org.example.Service.handleRequest"); /* 55 bytes */
	return t;
}

Test(output, text_fits_the_width_eliding_names_in_the_middle)
{
	/* whole: 42 + 2 + 2 + 2 + 55 = 103 columns, 43 too many for 60: the widest string column narrows one column
	 * at a time, path first (55 -> 42), then both by turns (method first on a tie) down to 27 and 27:
	 * 27 + 2 + 2 + 2 + 27 = 60.  An elided string keeps (27 - 3) / 3 = 8 bytes before "..." and 16 after. */
	emp_output_set_text_width(60);
	check(EMP_FMT_TEXT, table_long(), NULL,
	      "Title\n"
	      "method                       n   path\n"
	      "org.exam...pkg.Klass.method   7  a;b\n"
	      "X.y                          12  org.exam...ce.handleRequest\n");
	emp_output_set_text_width(0);
}

Test(output, text_width_never_narrows_below_the_minimum)
{
	/* 20 is out of reach: both string columns stop at EMP_TEXT_MIN_COL (24): 7 + "..." + 14 */
	emp_output_set_text_width(20);
	check(EMP_FMT_TEXT, table_long(), NULL,
	      "Title\n"
	      "method                    n   path\n"
	      "org.exa...g.Klass.method   7  a;b\n"
	      "X.y                       12  org.exa....handleRequest\n");
	emp_output_set_text_width(0);
}

Test(output, csv_is_never_elided)
{
	emp_output_set_text_width(20);
	check(EMP_FMT_CSV, table_long(), NULL,
	      "method,n,path\n"
	      "org.example.deeply.nested.pkg.Klass.method,7,a;b\n"
	      "X.y,12,org.example.Main.main;org.example.Service.handleRequest\n");
	emp_output_set_text_width(0);
}

/* A 10,000-byte (LONG_PATH) calling context, frames of 9 letters joined by ';' (malloc'ed). */
enum { LONG_PATH = 10000 };
static char *long_path(void)
{
	char *path = malloc(LONG_PATH + 1);
	for (size_t i = 0; i < LONG_PATH; i++)
		path[i] = i % 10 == 9 ? ';' : (char)('a' + i % 26);
	path[LONG_PATH] = '\0';
	return path;
}

/* A string cell is printed whole however long: a deep calling context's path (javac: 135 frames, 9 KB) used to be
 * cut at 4095 bytes in csv and text, so every context below that depth printed the same path. */
Test(output, long_strings_are_whole_in_every_format)
{
	char *path = long_path();
	static const char *const cols[] = { "path", "n" };
	for (enum emp_format fmt = EMP_FMT_TEXT; fmt <= EMP_FMT_JSON; fmt++) {
		for (int streamed = 0; streamed < 2; streamed++) {
			char *buf = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&buf, &len);
			struct emp_report *r = emp_report_new(fmt);
			struct emp_table *t = emp_table_new("t", "", 2, cols);
			if (streamed)
				emp_report_stream(r, t, f);
			emp_table_row(t);
			emp_table_str(t, path);
			emp_table_int(t, 1);
			emp_report_add(r, t);
			emp_report_print(r, f);
			cr_assert_eq(fclose(f), 0);
			char *want;
			if (fmt == EMP_FMT_JSON)
				cr_assert_geq(asprintf(&want, "{\"tables\":{\n\"t\":[\n {\"path\":\"%s\",\"n\":1}]\n}}\n", path),
					      0);
			else if (fmt == EMP_FMT_CSV)
				cr_assert_geq(asprintf(&want, "path,n\n%s,1\n", path), 0);
			else /* the header padded to the path's width */
				cr_assert_geq(asprintf(&want, "path%*s  n\n%s  1\n", LONG_PATH - 4, "", path), 0);
			cr_assert_str_eq(buf, want, "format %d, streamed %d", fmt, streamed);
			free(want);
			free(buf);
			emp_report_free(r);
		}
	}
	/* text with a width elides it in the middle: (40 - 3) / 3 = 12 bytes, "...", 25 bytes */
	emp_output_set_text_width(43);
	struct emp_report *r = emp_report_new(EMP_FMT_TEXT);
	struct emp_table *t = emp_table_new("t", "", 2, cols);
	emp_table_row(t);
	emp_table_str(t, path);
	emp_table_int(t, 1);
	emp_report_add(r, t);
	char *got = render(r), *want;
	cr_assert_geq(asprintf(&want, "path%36s  n\n%.12s...%s  1\n", "", path, path + LONG_PATH - 25), 0);
	cr_assert_str_eq(got, want);
	free(want);
	free(got);
	emp_report_free(r);
	emp_output_set_text_width(0);
	free(path);
}

/* emp_csv_read_field reads back what emp_csv_field wrote, whole: plain, quoted with commas, quotes and a line
 * break, empty, and a 10,000-byte path (report's tables read compare's csv through it; it cut fields at 4 KiB). */
Test(output, csv_fields_read_back_whole)
{
	char *path = long_path();
	const char *fields[] = { "plain", "a,b \"q\" c\nd", "", path, "\"\"" };
	enum { N = sizeof(fields) / sizeof(fields[0]) };
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);
	for (size_t i = 0; i < N; i++) {
		if (i)
			fputc(',', f);
		emp_csv_field(f, fields[i]);
	}
	fputs("\nnext,line\n", f);
	cr_assert_eq(fclose(f), 0);
	const char *p = line;
	for (size_t i = 0; i < N; i++) {
		char *got = emp_csv_read_field(&p);
		cr_assert_not_null(got, "field %zu", i);
		cr_assert_str_eq(got, fields[i], "field %zu", i);
		free(got);
	}
	cr_assert_null(emp_csv_read_field(&p), "the line ends there");
	cr_assert_str_eq(p, "\nnext,line\n");
	free(line);
	free(path);
}

/* A streamed table (emp_report_stream) prints the same bytes as a kept one, in csv and json, with a short last row
 * padded; its rows are out before emp_report_print(), which only finishes it.  Text ignores the stream. */
Test(output, streamed_table_prints_the_same_bytes)
{
	for (enum emp_format fmt = EMP_FMT_TEXT; fmt <= EMP_FMT_JSON; fmt++) {
		struct emp_report *kept = emp_report_new(fmt);
		struct emp_table *t = table_t();
		emp_table_row(t);
		emp_table_str(t, "short row");
		emp_report_add(kept, t);
		char *want = render(kept);

		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		cr_assert_not_null(f);
		struct emp_report *r = emp_report_new(fmt);
		struct emp_table *s = emp_table_new("t", "Title", 3, cols3);
		emp_report_stream(r, s, f);
		fill_t(s);
		emp_table_row(s);
		cr_assert_eq(fflush(f), 0);
		if (fmt != EMP_FMT_TEXT) /* the two complete rows are out already */
			cr_assert_gt(len, strlen("name,count,share\na,1,0.5\nbbbb,12345,") - 1, "format %d", fmt);
		emp_table_str(s, "short row");
		emp_report_add(r, s);
		cr_assert_eq(emp_table_rows(s), 3);
		emp_report_print(r, f);
		cr_assert_eq(fclose(f), 0);
		cr_assert_str_eq(buf, want, "format %d", fmt);
		free(buf);
		free(want);
		emp_report_free(r);
		emp_report_free(kept);
	}
}
