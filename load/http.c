/* SPDX-License-Identifier: MIT */
/* http.c - HTTP/1.1 response framing for emp-load (http.h). */
#include "http.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#define HEADER_MAX (16u << 10)

/* Does header line [p, e) name @field (case-insensitive) and if so where does its value start? */
static const char *field_value(const char *p, const char *e, const char *field)
{
	size_t n = strlen(field);
	if ((size_t)(e - p) <= n || strncasecmp(p, field, n) != 0 || p[n] != ':')
		return NULL;
	p += n + 1;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static int value_is(const char *v, const char *e, const char *word)
{
	size_t n = strlen(word);
	while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return (size_t)(e - v) == n && strncasecmp(v, word, n) == 0;
}

int emp_http_parse(const char *buf, size_t len, struct emp_http_response *r)
{
	const char *end = NULL;
	size_t scan = len < HEADER_MAX ? len : HEADER_MAX;
	for (size_t i = 3; i < scan; i++) {
		if (buf[i - 3] == '\r' && buf[i - 2] == '\n' && buf[i - 1] == '\r' && buf[i] == '\n') {
			end = buf + i + 1;
			break;
		}
	}
	if (!end)
		return len >= HEADER_MAX ? -1 : 0;
	/* Status line: HTTP/1.x SP 3DIGIT SP reason CRLF */
	if (end - buf < 14 || memcmp(buf, "HTTP/1.", 7) != 0 || (buf[7] != '0' && buf[7] != '1') || buf[8] != ' ')
		return -1;
	int status = 0;
	for (int i = 9; i < 12; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -1;
		status = status * 10 + (buf[i] - '0');
	}
	if (status < 100 || status > 599 || (buf[12] != ' ' && buf[12] != '\r'))
		return -1;
	int http10 = buf[7] == '0';
	int keep_alive = 0, close = 0, have_length = 0;
	uint64_t body = 0;
	const char *p = (const char *)memchr(buf, '\n', (size_t)(end - buf)) + 1;
	while (p < end - 2) {
		const char *e = memchr(p, '\r', (size_t)(end - p));
		if (!e || e[1] != '\n')
			return -1;
		const char *v;
		if ((v = field_value(p, e, "Content-Length"))) {
			if (have_length || v == e)
				return -1;
			for (; v < e && *v != ' ' && *v != '\t'; v++) {
				if (*v < '0' || *v > '9' || body > (UINT64_MAX - 9) / 10)
					return -1;
				body = body * 10 + (uint64_t)(*v - '0');
			}
			if (!value_is(v, e, ""))
				return -1;
			have_length = 1;
		} else if ((v = field_value(p, e, "Transfer-Encoding"))) {
			if (!value_is(v, e, "identity"))
				return -1;
		} else if ((v = field_value(p, e, "Connection"))) {
			close |= value_is(v, e, "close");
			keep_alive |= value_is(v, e, "keep-alive");
		}
		p = e + 2;
	}
	int no_body = status < 200 || status == 204 || status == 304;
	if (!have_length && !no_body)
		return -1;
	size_t head = (size_t)(end - buf);
	if (body > SIZE_MAX - head)
		return -1;
	if (len - head < body)
		return 0;
	r->status = status;
	r->length = head + (size_t)body;
	r->close = close || (http10 && !keep_alive);
	return 1;
}
