/* SPDX-License-Identifier: MIT */
/* latency.c - emp-load logs and the JVM's pauses (latency.h). */
#include "latency.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_reader.h"
#include "hdr.h"
#include "util.h"

#define HEADER "due_ns,sent_ns,done_ns,status"

/* A field [p, e): empty (*v = 0, 1 returned as "absent"), or a non-negative decimal.  Return: 0 number, 1 empty,
 * -1 malformed. */
static int field_ns(const char *p, const char *e, int64_t *v)
{
	*v = 0;
	if (p == e)
		return 1;
	for (; p < e; p++) {
		if (*p < '0' || *p > '9' || *v > (INT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (*p - '0');
	}
	return 0;
}

static void push(struct emp_latency_log *l, size_t *cap, int64_t due, int64_t sent, int64_t done)
{
	if (l->n == *cap) {
		*cap = *cap ? 2 * *cap : 4096;
		l->due = emp_xrealloc(l->due, *cap * sizeof(int64_t));
		l->sent = emp_xrealloc(l->sent, *cap * sizeof(int64_t));
		l->done = emp_xrealloc(l->done, *cap * sizeof(int64_t));
	}
	l->due[l->n] = due;
	l->sent[l->n] = sent;
	l->done[l->n] = done;
	l->n++;
}

static void span(struct emp_latency_log *l, int64_t t)
{
	if (!t)
		return;
	if (!l->t_min || t < l->t_min)
		l->t_min = t;
	if (t > l->t_max)
		l->t_max = t;
}

int emp_latency_read(const char *path, struct emp_latency_log *l, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	l->path = emp_xstrdup(path);
	l->corrected = emp_hdr_new(1, 3600LL * 1000000, 3);
	l->uncorrected = emp_hdr_new(1, 3600LL * 1000000, 3);
	if (!l->corrected || !l->uncorrected)
		emp_die("out of memory");
	char *line = NULL;
	size_t lcap = 0, cap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	int rc = -1;
	while ((len = getline(&line, &lcap, f)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (lineno == 1) {
			if (strcmp(line, HEADER)) {
				snprintf(err, errlen, "%s: not an emp-load log (line 1 is not '%s')", path, HEADER);
				goto out;
			}
			continue;
		}
		const char *f0 = line, *c1 = strchr(f0, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL,
			   *c3 = c2 ? strchr(c2 + 1, ',') : NULL;
		int64_t due, sent, done;
		if (!c3 || strchr(c3 + 1, ',') || field_ns(f0, c1, &due) || field_ns(c1 + 1, c2, &sent) < 0 ||
		    field_ns(c2 + 1, c3, &done) < 0 || !c3[1]) {
			snprintf(err, errlen, "%s:%lu: expected due_ns,sent_ns,done_ns,status", path, lineno);
			goto out;
		}
		const char *st = c3 + 1;
		span(l, due);
		span(l, sent);
		span(l, done);
		if (st[0] >= '0' && st[0] <= '9') {
			char *end;
			long status = strtol(st, &end, 10);
			if (*end || status < 100 || status > 599 || !sent || !done || done < due || done < sent) {
				snprintf(err, errlen, "%s:%lu: an answered request needs sent and done times after due and "
					 "a status 100..599", path, lineno);
				goto out;
			}
			push(l, &cap, due, sent, done);
			if (emp_hdr_record(l->corrected, (done - due) / 1000) ||
			    emp_hdr_record(l->uncorrected, (done - sent) / 1000)) {
				snprintf(err, errlen, "%s:%lu: latency beyond 1 h", path, lineno);
				goto out;
			}
			if (status < 200 || status > 299)
				l->non_2xx++;
			continue;
		}
		size_t k = 0;
		while (k < l->nkinds && strcmp(l->kind[k], st))
			k++;
		if (k == l->nkinds) {
			size_t sl = strlen(st);
			int ok = sl > 0 && sl < sizeof(l->kind[0]);
			for (size_t i = 0; ok && i < sl; i++)
				ok = (st[i] >= 'a' && st[i] <= 'z') || st[i] == '_' || (st[i] >= '0' && st[i] <= '9');
			if (!ok || l->nkinds == EMP_LATENCY_MAX_KINDS) {
				snprintf(err, errlen, "%s:%lu: status '%.40s' is neither an HTTP status nor an error name",
					 path, lineno, st);
				goto out;
			}
			memcpy(l->kind[k], st, sl + 1);
			l->nkinds++;
		}
		l->kind_count[k]++;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
		goto out;
	}
	if (lineno == 0) {
		snprintf(err, errlen, "%s: empty file (not an emp-load log)", path);
		goto out;
	}
	rc = 0;
out:
	free(line);
	fclose(f);
	if (rc)
		emp_latency_free(l);
	return rc;
}

void emp_latency_free(struct emp_latency_log *l)
{
	free(l->path);
	free(l->due);
	free(l->sent);
	free(l->done);
	emp_hdr_free(l->corrected);
	emp_hdr_free(l->uncorrected);
	memset(l, 0, sizeof(*l));
}

static int cmp_pause(const void *a, const void *b)
{
	int64_t x = ((const struct emp_latency_pause *)a)->start_ns, y = ((const struct emp_latency_pause *)b)->start_ns;
	return (x > y) - (x < y);
}

long emp_latency_pauses(const struct emp_dump_reader *r, uint32_t kind, struct emp_latency_pause **out)
{
	*out = NULL;
	const char *rt = emp_dump_meta(r, "clock_ref_ticks"), *rm = emp_dump_meta(r, "clock_ref_mono_ns");
	if (!rt || !rm)
		return -1;
	double ref_ticks = strtod(rt, NULL), ref_mono = strtod(rm, NULL);
	size_t n, k = 0;
	const struct emp_pause *p = emp_dump_pauses(r, &n);
	if (n == 0)
		return 0;
	struct emp_latency_pause *v = emp_xcalloc(n, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		if (p[i].kind != kind)
			continue;
		v[k].start_ns = (int64_t)(ref_mono + emp_dump_ticks_to_ns(r, (double)p[i].start - ref_ticks));
		v[k].duration_ns = (int64_t)emp_dump_ticks_to_ns(r, (double)p[i].duration);
		k++;
	}
	qsort(v, k, sizeof(*v), cmp_pause);
	*out = v;
	return (long)k;
}

void emp_latency_overlaps(const struct emp_latency_log *l, const struct emp_latency_pause *p, size_t n,
			  int64_t threshold_us, uint64_t *all, uint64_t *slow)
{
	*all = *slow = 0;
	for (size_t i = 0; i < l->n; i++) {
		/* the first pause ending after the request's due time: binary search over starts is enough for
		 * non-overlapping pauses */
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (p[mid].start_ns + p[mid].duration_ns < l->due[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && p[lo].start_ns <= l->done[i]) {
			(*all)++;
			if ((l->done[i] - l->due[i]) / 1000 > threshold_us)
				(*slow)++;
		}
	}
}
