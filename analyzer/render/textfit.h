/* SPDX-License-Identifier: MIT */
/* textfit.h - making text fit: the width of a string in an SVG font (a per-character advance table, no font files
 * read) and middle elision, "head...tail" (the tail, twice as long as the head, keeps a path's method name), for
 * text tables (by bytes, output.h) and SVG pictures (by pixels, with the full text in a <title> tooltip).
 *
 * Widths are DejaVu Sans / DejaVu Sans Mono's advances (what "sans-serif" / "monospace" resolve to on Debian and
 * what rsvg-convert draws with); bold is taken 10 % wider; a character outside printable ASCII counts as a digit. */
#ifndef EMP_TEXTFIT_H
#define EMP_TEXTFIT_H

#include <stddef.h>
#include <stdio.h>

enum emp_font { EMP_FONT_SANS, EMP_FONT_SANS_BOLD, EMP_FONT_MONO };

/* emp_textfit_px - the advance width of @s in pixels at @size px. */
double emp_textfit_px(const char *s, enum emp_font f, double size);

/* emp_textfit_elide - shorten @s (in place) to @width bytes when longer: head "..." tail, the tail twice as long as
 * the head, no UTF-8 sequence cut; @width < 5 leaves @s whole. */
void emp_textfit_elide(char *s, size_t width);

/* emp_textfit_elide_px - shorten @s (in place) as above until it fits @px pixels.  Return: 1 when shortened. */
int emp_textfit_elide_px(char *s, double px, enum emp_font f, double size);

/* emp_textfit_svg - the content of an SVG <text> element: @s XML-escaped, elided in the middle to fit @px pixels,
 * and then followed by a <title> with the whole of @s (a tooltip). */
void emp_textfit_svg(FILE *out, const char *s, double px, enum emp_font f, double size);

#endif /* EMP_TEXTFIT_H */
