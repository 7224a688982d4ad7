/* SPDX-License-Identifier: MIT */
/* folded.c - see folded.h. */
#include "folded.h"

void emp_folded_escape(FILE *out, const char *name)
{
	if (!*name) {
		fputs("[empty]", out);
		return;
	}
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p == ';')
			fputc(':', out);
		else if (*p < 0x20 || *p == 0x7f)
			fputc('?', out);
		else
			fputc(*p, out);
	}
}
