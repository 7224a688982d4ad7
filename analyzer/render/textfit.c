/* SPDX-License-Identifier: MIT */
/* textfit.c - text widths and middle elision; see textfit.h. */
#include "textfit.h"

#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "util.h"

/* DejaVu Sans advances in 1/2048 em, ' ' (0x20) to '~' (0x7e). */
static const unsigned short sans[95] = {
	651,  821,  942,  1716, 1303, 1946, 1597, 563,  799,  799,  1024, 1716, 651,  739,  651,  690,  /*  !"#$%&'()*+,-./ */
	1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690,  690,  1716, 1716, 1716, 1087, /* 0-9:;<=>? */
	2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604,  604,  1343, 1141, 1767, 1532, 1612, /* @A-O */
	1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799,  690,  799,  1716, 1024, /* P-Z[\]^_ */
	1024, 1255, 1300, 1126, 1300, 1260, 721,  1300, 1298, 569,  569,  1186, 569,  1995, 1298, 1253, /* `a-o */
	1300, 1300, 842,  1067, 803,  1298, 1212, 1675, 1212, 1212, 1075, 1303, 690,  1303, 1716,       /* p-z{|}~ */
};
enum { MONO = 1233, DIGIT = 1303, EM = 2048 };

double emp_textfit_px(const char *s, enum emp_font f, double size)
{
	unsigned long units = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p & 0xc0) == 0x80)
			continue; /* a UTF-8 continuation byte: its character is counted at its lead byte */
		units += f == EMP_FONT_MONO ? MONO : *p >= 0x20 && *p <= 0x7e ? sans[*p - 0x20] : DIGIT;
	}
	return (double)units * size / EM * (f == EMP_FONT_SANS_BOLD ? 1.1 : 1.0);
}

void emp_textfit_elide(char *s, size_t width)
{
	size_t n = strlen(s);
	if (n <= width || width < 5)
		return;
	size_t head = (width - 3) / 3, tail = n - (width - 3 - head);
	while (head > 0 && ((unsigned char)s[head] & 0xc0) == 0x80)
		head--;
	while (tail < n && ((unsigned char)s[tail] & 0xc0) == 0x80)
		tail++;
	memcpy(s + head, "...", 3);
	memmove(s + head + 3, s + tail, n - tail + 1);
}

int emp_textfit_elide_px(char *s, double px, enum emp_font f, double size)
{
	if (emp_textfit_px(s, f, size) <= px)
		return 0;
	/* the widest byte length that fits: elide a copy of the whole each time (eliding the elided would move the cut) */
	size_t n = strlen(s), lo = 0, hi = n;
	char *t = emp_xmalloc(n + 1);
	while (lo + 1 < hi) {
		size_t mid = (lo + hi) / 2;
		memcpy(t, s, n + 1);
		emp_textfit_elide(t, mid < 5 ? 5 : mid);
		if (emp_textfit_px(t, f, size) <= px)
			lo = mid;
		else
			hi = mid;
	}
	emp_textfit_elide(s, lo < 5 ? 5 : lo);
	free(t);
	return 1;
}

void emp_textfit_svg(FILE *out, const char *s, double px, enum emp_font f, double size)
{
	char *cut = emp_xstrdup(s);
	int elided = emp_textfit_elide_px(cut, px, f, size);
	emp_xml_escape(out, cut);
	if (elided) {
		fputs("<title>", out);
		emp_xml_escape(out, s);
		fputs("</title>", out);
	}
	free(cut);
}
