/* SPDX-License-Identifier: MIT */
/* timings.c - run files of a directory and java-sut timing files; see timings.h. */
#include "timings.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util.h"

static const char header[] = "iteration,duration_ns";

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int emp_timings_list(const char *dir, const char *suffix, char ***paths)
{
	*paths = NULL;
	DIR *d = opendir(dir);
	if (!d) {
		emp_errorf("%s: %s", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, sl = strlen(suffix);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len <= sl || strcmp(e->d_name + len - sl, suffix))
			continue;
		char *p = NULL;
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0)
			emp_die("out of memory");
		struct stat sb;
		if (stat(p, &sb) || !S_ISREG(sb.st_mode)) {
			free(p);
			continue;
		}
		names = emp_xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = p;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	*paths = names;
	return (int)n;
}

void emp_timings_list_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* Parse the row @line (line @lineno, iteration @lineno - 2 expected) into its duration.  Return: 0 or -1 after
 * printing. */
static int parse_row(const char *path, size_t lineno, const char *line, double *ns)
{
	char *end;
	errno = 0;
	unsigned long long it = strtoull(line, &end, 10);
	int ok = end != line && *end == ',' && line[0] != '-';
	const char *num = end + 1;
	unsigned long long v = ok ? strtoull(num, &end, 10) : 0;
	ok = ok && end != num && *end == 0 && *num != '-' && errno == 0;
	if (!ok) {
		emp_errorf("%s:%zu: expected '%s' (two integers), got '%.60s'", path, lineno, header, line);
		return -1;
	}
	if (it + 1 != lineno - 1) {
		emp_errorf("%s:%zu: iteration %llu out of order (expected %zu)", path, lineno, it, lineno - 2);
		return -1;
	}
	*ns = (double)v;
	return 0;
}

int emp_timings_read(const char *path, unsigned long warmup, double **ns, size_t *n)
{
	*ns = NULL;
	*n = 0;
	FILE *f = fopen(path, "r");
	if (!f) {
		emp_errorf("%s: %s", path, strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0, lineno = 0, nv = 0, vcap = 0;
	double *v = NULL;
	ssize_t len;
	int rc = -1;
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (lineno == 1) {
			if (strcmp(line, header)) {
				emp_errorf("%s:1: expected the header '%s' (a java-sut --timings file)", path, header);
				goto out;
			}
			continue;
		}
		double d;
		if (parse_row(path, lineno, line, &d))
			goto out;
		if (lineno - 2 < warmup)
			continue;
		if (nv == vcap) {
			vcap = vcap ? 2 * vcap : 1024;
			v = emp_xrealloc(v, vcap * sizeof(*v));
		}
		v[nv++] = d;
	}
	if (ferror(f)) {
		emp_errorf("%s: %s", path, strerror(errno));
		goto out;
	}
	if (lineno == 0) {
		emp_errorf("%s: empty file (expected the header '%s')", path, header);
		goto out;
	}
	if (nv == 0) {
		emp_errorf("%s: no iterations after --warmup %lu (the file has %zu)", path, warmup, lineno - 1);
		goto out;
	}
	*ns = v;
	*n = nv;
	v = NULL;
	rc = 0;
out:
	free(v);
	free(line);
	fclose(f);
	return rc;
}

/* The index of column @name in the comma-separated header @line, or -1. */
static int column(const char *line, const char *name)
{
	size_t nl = strlen(name);
	int i = 0;
	for (const char *p = line;; i++) {
		size_t n = strcspn(p, ",\r\n");
		if (n == nl && !strncmp(p, name, nl))
			return i;
		if (p[n] != ',')
			return -1;
		p += n + 1;
	}
}

struct run_row {
	unsigned long vm, attempt;
	long exit;
	double ns;
};

static int cmp_run(const void *a, const void *b)
{
	const struct run_row *x = a, *y = b;
	return x->vm < y->vm ? -1 : x->vm > y->vm;
}

int emp_timings_runs(const char *dir, enum emp_timings_run_time which, char ***labels, double **ns)
{
	*labels = NULL;
	*ns = NULL;
	char *real = realpath(dir, NULL), *manifest = NULL;
	if (!real) {
		emp_errorf("%s: %s", dir, strerror(errno));
		return -1;
	}
	/* EXP/<mode>/<version>: cut the last two components */
	char *version = strrchr(real, '/');
	*version++ = 0;
	char *mode = strrchr(real, '/');
	int rc = 0;
	if (!mode || !*version)
		goto out;
	*mode++ = 0;
	if (asprintf(&manifest, "%s/runs.csv", real) < 0)
		emp_die("out of memory");
	FILE *f = fopen(manifest, "r");
	if (!f) {
		if (errno != ENOENT) {
			emp_errorf("%s: %s", manifest, strerror(errno));
			rc = -1;
		}
		goto out;
	}
	rc = -1;
	char *line = NULL;
	size_t cap = 0, lineno = 0, n = 0;
	struct run_row *rows = NULL;
	int col[7] = { -1, -1, -1, -1, -1, -1, -1 }, ncol = 0;
	static const char *const names[7] = { "mode", "version", "vm", "attempt", "exit", "cpu_s", "elapsed_s" };
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		if (lineno == 1) {
			for (int i = 0; i < 7; i++)
				if ((col[i] = column(line, names[i])) < 0) {
					emp_errorf("%s:1: no column '%s' (not an emp-run manifest)", manifest, names[i]);
					goto done;
				}
			for (const char *p = line; *p; p++)
				ncol += *p == ',';
			ncol++;
			continue;
		}
		char *field[64], *save = NULL;
		int nf = 0;
		for (char *t = strtok_r(line, ",\r\n", &save); t && nf < 64; t = strtok_r(NULL, ",\r\n", &save))
			field[nf++] = t;
		if (nf != ncol) {
			emp_errorf("%s:%zu: %d fields, the header has %d", manifest, lineno, nf, ncol);
			goto done;
		}
		if (strcmp(field[col[0]], mode) || strcmp(field[col[1]], version))
			continue;
		char *e1, *e2, *e3, *e4;
		struct run_row r = { .vm = strtoul(field[col[2]], &e1, 10), .attempt = strtoul(field[col[3]], &e2, 10),
				     .exit = strtol(field[col[4]], &e3, 10),
				     .ns = strtod(field[col[which == EMP_TIMINGS_RUN_CPU ? 5 : 6]], &e4) * 1e9 };
		if (*e1 || *e2 || *e3 || *e4 || !(r.ns >= 0)) {
			emp_errorf("%s:%zu: a row that does not parse", manifest, lineno);
			goto done;
		}
		size_t k = 0;
		while (k < n && rows[k].vm != r.vm)
			k++;
		if (k == n)
			rows = emp_xrealloc(rows, ++n * sizeof(*rows));
		else if (rows[k].attempt > r.attempt)
			continue;
		rows[k] = r;
	}
	if (n == 0) {
		emp_errorf("%s: no run of mode %s and version %s in %s", dir, mode, version, manifest);
		goto done;
	}
	qsort(rows, n, sizeof(*rows), cmp_run);
	for (size_t i = 0; i < n; i++)
		if (rows[i].exit) {
			emp_errorf("%s: vm%lu's last run exited with status %ld (%s); `emp-run resume` runs it again", dir,
				   rows[i].vm, rows[i].exit, manifest);
			goto done;
		}
	*labels = emp_xcalloc(n, sizeof(**labels));
	*ns = emp_xmalloc(n * sizeof(**ns));
	for (size_t i = 0; i < n; i++) {
		if (asprintf(&(*labels)[i], "%s/vm%lu", dir, rows[i].vm) < 0)
			emp_die("out of memory");
		(*ns)[i] = rows[i].ns;
	}
	rc = (int)n;
done:
	free(rows);
	free(line);
	fclose(f);
out:
	free(manifest);
	free(real);
	return rc;
}
