/* SPDX-License-Identifier: MIT */
/* buf.h - a growable byte buffer for the dump encoder (writer thread and tests only; never a signal path). */
#ifndef EMP_BUF_H
#define EMP_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "varint.h"

struct emp_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

/* emp_buf_reserve - make room for @extra more bytes.  Return: 0 or -1 when out of memory (buffer unchanged). */
static inline int emp_buf_reserve(struct emp_buf *b, size_t extra)
{
	if (b->cap - b->len >= extra)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < extra)
		cap *= 2;
	uint8_t *d = realloc(b->data, cap);
	if (!d)
		return -1;
	b->data = d;
	b->cap = cap;
	return 0;
}

static inline int emp_buf_varint(struct emp_buf *b, uint64_t v)
{
	if (emp_buf_reserve(b, EMP_VARINT_MAX))
		return -1;
	b->len += emp_varint_put(b->data + b->len, v);
	return 0;
}

static inline int emp_buf_bytes(struct emp_buf *b, const void *p, size_t n)
{
	if (emp_buf_reserve(b, n))
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

/* A string is a varint length and that many bytes (UTF-8, no terminator). */
static inline int emp_buf_str(struct emp_buf *b, const char *s)
{
	size_t n = strlen(s);
	return emp_buf_varint(b, n) || emp_buf_bytes(b, s, n) ? -1 : 0;
}

static inline void emp_buf_free(struct emp_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

#endif /* EMP_BUF_H */
