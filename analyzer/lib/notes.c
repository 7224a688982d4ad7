/* SPDX-License-Identifier: MIT */
/* notes.c - see notes.h. */
#include "notes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

void emp_notes_vadd(struct emp_notes *n, const char *fmt, va_list ap)
{
	char buf[4096];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n->v = emp_xrealloc(n->v, (n->n + 1) * sizeof(*n->v));
	n->v[n->n++] = emp_xstrdup(buf);
}

void emp_notes_add(struct emp_notes *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emp_notes_vadd(n, fmt, ap);
	va_end(ap);
}

void emp_notes_free(struct emp_notes *n)
{
	for (size_t i = 0; i < n->n; i++)
		free(n->v[i]);
	free(n->v);
	n->v = NULL;
	n->n = 0;
}
