/* SPDX-License-Identifier: MIT */
/* kieker.c - Kieker file-system log; see kieker.h. */
#include "kieker.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "dump_reader.h"
#include "util.h"

/* Write @s as one field of a Kieker ASCII record: ';' escaped as Kieker's TextValueSerializer does, line breaks
 * (which would end the record) as spaces. */
static void kieker_string(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == ';')
			fputs("\\;", out);
		else
			fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	}
}

/* Append the Java type of the field descriptor at *d to @out; advance *d.  Return: 0, or -1 on a bad descriptor. */
static int java_type(FILE *out, const char **d)
{
	int dims = 0;
	while (**d == '[') {
		dims++;
		(*d)++;
	}
	static const struct { char c; const char *name; } prim[] = {
		{ 'B', "byte" }, { 'C', "char" }, { 'D', "double" }, { 'F', "float" }, { 'I', "int" },
		{ 'J', "long" }, { 'S', "short" }, { 'Z', "boolean" }, { 'V', "void" },
	};
	char c = **d;
	if (c == 'L') {
		const char *semi = strchr(*d, ';');
		if (!semi)
			return -1;
		for (const char *p = *d + 1; p < semi; p++)
			fputc(*p == '/' ? '.' : *p, out);
		*d = semi + 1;
	} else {
		size_t i;
		for (i = 0; i < sizeof(prim) / sizeof(prim[0]) && prim[i].c != c; i++)
			;
		if (i == sizeof(prim) / sizeof(prim[0]))
			return -1;
		fputs(prim[i].name, out);
		(*d)++;
	}
	while (dims--)
		fputs("[]", out);
	return 0;
}

/* The operation signature of a method symbol (malloc'ed), see kieker.h. */
static char *method_signature(const struct emp_dump_method *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		emp_die("out of memory");
	const char *d = m->descriptor;
	const char *ret = d ? strchr(d, ')') : NULL;
	if (!strcmp(m->name, "<init>")) {
		fputs("public ", out);
	} else if (!strcmp(m->name, "<clinit>")) {
		fputs("static void ", out);
	} else {
		fputs("public ", out);
		const char *r = ret ? ret + 1 : NULL;
		if (!r || !*r || java_type(out, &r))
			fputs("void", out);
		fputc(' ', out);
	}
	fprintf(out, "%s.%s(", m->klass, m->name);
	if (d && *d == '(' && ret) {
		const char *p = d + 1;
		for (int first = 1; p < ret; first = 0) {
			if (!first)
				fputs(", ", out);
			if (java_type(out, &p))
				break;
		}
	}
	fputc(')', out);
	if (fclose(out))
		emp_die("out of memory");
	return buf;
}

const char *emp_kieker_signature(struct emp_kieker_sigs *sigs, uint32_t id)
{
	if (id >= sigs->n) {
		uint32_t n = id + 256;
		sigs->v = emp_xrealloc(sigs->v, n * sizeof(*sigs->v));
		memset(sigs->v + sigs->n, 0, (n - sigs->n) * sizeof(*sigs->v));
		sigs->n = n;
	}
	if (!sigs->v[id]) {
		const struct emp_dump_method *m = emp_dump_method(sigs->r, id);
		if (!m) {
			char tmp[64];
			snprintf(tmp, sizeof(tmp), "public void undefined.Symbol.m%u()", id);
			sigs->v[id] = emp_xstrdup(tmp);
		} else {
			sigs->v[id] = method_signature(m);
		}
	}
	return sigs->v[id];
}

void emp_kieker_sigs_free(struct emp_kieker_sigs *sigs)
{
	for (uint32_t i = 0; i < sigs->n; i++)
		free(sigs->v[i]);
	free(sigs->v);
	sigs->v = NULL;
	sigs->n = 0;
}

int emp_kieker_files(const char *dir, uint64_t start_ns, char *file, size_t len)
{
	if (mkdir(dir, 0755) && errno != EEXIST) {
		emp_errorf("--kieker %s: cannot create the directory: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(file, len, "%s/kieker.map", dir);
	FILE *map = fopen(file, "w");
	if (!map || fputs("$0=kieker.common.record.misc.KiekerMetadataRecord\n"
			  "$1=kieker.common.record.controlflow.OperationExecutionRecord\n", map) < 0 || fclose(map)) {
		emp_errorf("%s: cannot write: %s", file, strerror(errno));
		return -1;
	}
	time_t start = (time_t)(start_ns / 1000000000u);
	struct tm tm;
	gmtime_r(&start, &tm);
	char stamp[32];
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(file, len, "%s/kieker-%s%03u-UTC-001.dat", dir, stamp, (unsigned)(start_ns / 1000000u % 1000u));
	return 0;
}

void emp_kieker_metadata(FILE *out, uint64_t start_ns, const char *host)
{
	fprintf(out, "$0;%" PRIu64 ";emp;emp;", start_ns);
	kieker_string(out, host);
	fputs(";0;false;0;NANOSECONDS;0\n", out);
}

void emp_kieker_record(FILE *out, const char *signature, const char *host, uint64_t trace_id, uint64_t tin,
		       uint64_t tout, uint32_t eoi, uint32_t ess)
{
	fprintf(out, "$1;%" PRIu64 ";", tout);
	kieker_string(out, signature);
	fprintf(out, ";<no-session-id>;%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";", trace_id, tin, tout);
	kieker_string(out, host);
	fprintf(out, ";%u;%u\n", eoi, ess);
}
