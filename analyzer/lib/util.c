/* SPDX-License-Identifier: MIT */
/* util.c - see util.h. */
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *emp_util_program = "emp-analyze";

static void vmessage(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", emp_util_program);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void emp_errorf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
}

double emp_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void emp_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	exit(EMP_EXIT_ERROR);
}

void *emp_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		emp_die("out of memory (%zu bytes)", n);
	return p;
}

void *emp_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		emp_die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *emp_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		emp_die("out of memory (%zu bytes)", n);
	return q;
}

void *emp_xgrow(void *p, uint32_t *cap, uint32_t need, size_t size)
{
	if (need <= *cap)
		return p;
	uint32_t n = need > 2 * *cap ? need : 2 * *cap;
	char *g = emp_xrealloc(p, (size_t)n * size);
	memset(g + (size_t)*cap * size, 0, (size_t)(n - *cap) * size);
	*cap = n;
	return g;
}

char *emp_xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		emp_die("out of memory");
	return d;
}

FILE *emp_open_in(const char *dir, const char *name, char **path, int *missing)
{
	if (asprintf(path, "%s/%s", dir, name) < 0)
		emp_die("out of memory");
	FILE *f = fopen(*path, "r");
	if (f)
		return f;
	*missing = errno == ENOENT;
	if (!*missing)
		emp_errorf("%s: %s", *path, strerror(errno));
	free(*path);
	*path = NULL;
	return NULL;
}
