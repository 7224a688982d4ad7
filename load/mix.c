/* SPDX-License-Identifier: MIT */
/* mix.c - route mix parsing and smooth weighted round robin (mix.h). */
#include "mix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int name_ok(const char *s, size_t len)
{
	if (len == 0 || len > 48)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

int emp_mix_parse(struct emp_mix *m, const char *spec, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	const char *p = spec;
	while (1) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		if (!colon || !name_ok(p, (size_t)(colon - p))) {
			snprintf(err, errlen, "--mix: expected route:weight,... (e.g. cheap:70,alloc:20,cpu:10), got '%s'",
				 spec);
			return -EINVAL;
		}
		if (m->n == EMP_MIX_MAX) {
			snprintf(err, errlen, "--mix: at most %d routes", EMP_MIX_MAX);
			return -EINVAL;
		}
		size_t nlen = (size_t)(colon - p);
		char path[64];
		snprintf(path, sizeof(path), "/%.*s", (int)nlen, p);
		for (size_t i = 0; i < m->n; i++) {
			if (strcmp(m->path[i], path) == 0) {
				snprintf(err, errlen, "--mix: route '%s' given twice", path + 1);
				return -EINVAL;
			}
		}
		char wbuf[16] = "";
		size_t wlen = len - nlen - 1;
		char *wend = NULL;
		long w = -1;
		if (wlen > 0 && wlen < sizeof(wbuf)) {
			memcpy(wbuf, colon + 1, wlen);
			wbuf[wlen] = '\0';
			errno = 0;
			w = strtol(wbuf, &wend, 10);
		}
		if (w < 0 || w > 1000000 || !wend || *wend || errno) {
			snprintf(err, errlen, "--mix: weight of '%s' must be an integer 0..1000000, got '%.*s'", path + 1,
				 (int)wlen, colon + 1);
			return -EINVAL;
		}
		memcpy(m->path[m->n], path, sizeof(path));
		m->weight[m->n] = w;
		m->total += w;
		m->n++;
		if (!end)
			break;
		p = end + 1;
	}
	if (m->total == 0) {
		snprintf(err, errlen, "--mix: the weights add up to 0");
		return -EINVAL;
	}
	return 0;
}

size_t emp_mix_next(struct emp_mix *m)
{
	size_t best = 0;
	for (size_t i = 0; i < m->n; i++) {
		m->credit[i] += m->weight[i];
		if (m->credit[i] > m->credit[best])
			best = i;
	}
	m->credit[best] -= m->total;
	return best;
}
