/* SPDX-License-Identifier: MIT */
/* http.h - the part of HTTP/1.1 emp-load needs: is a response complete in these bytes, and what does it say.
 * Responses must carry Content-Length (or have no body: 1xx, 204, 304); chunked bodies are refused. */
#ifndef EMP_HTTP_H
#define EMP_HTTP_H

#include <stddef.h>

struct emp_http_response {
	int status;       /* 100 … 599 */
	size_t length;    /* bytes of the whole response, header and body */
	int close;        /* the server said "Connection: close" (or spoke HTTP/1.0 without keep-alive) */
};

/* emp_http_parse - look at the first @len bytes received for a request.  Return: 1 complete (@r filled,
 * r->length ≤ len), 0 more bytes needed, -1 not a response emp-load understands (bad status line, missing or
 * bad Content-Length, chunked, header over 16 KiB). */
int emp_http_parse(const char *buf, size_t len, struct emp_http_response *r);

#endif /* EMP_HTTP_H */
