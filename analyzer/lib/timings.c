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

#include "runs.h"
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
	char *real = realpath(dir, NULL);
	if (!real) {
		emp_errorf("%s: %s", dir, strerror(errno));
		return -1;
	}
	/* EXP/<mode>/<version>: cut the last two components */
	char *version = strrchr(real, '/');
	*version++ = 0;
	char *mode = strrchr(real, '/');
	if (!mode || !*version) {
		free(real);
		return 0;
	}
	*mode++ = 0;
	struct emp_runs r;
	int rc = emp_runs_read(*real ? real : "/", &r);
	if (rc) {
		free(real);
		return rc == 1 ? 0 : -1;
	}
	rc = -1;
	/* per vm the row of its last attempt */
	struct run_row *rows = NULL;
	size_t n = 0;
	for (size_t i = 0; i < r.nrows; i++) {
		const struct emp_runs_row *x = &r.rows[i];
		if (strcmp(x->mode, mode) || strcmp(x->version, version))
			continue;
		size_t k = 0;
		while (k < n && rows[k].vm != x->vm)
			k++;
		if (k == n)
			rows = emp_xrealloc(rows, ++n * sizeof(*rows));
		else if (rows[k].attempt > x->attempt)
			continue;
		rows[k] = (struct run_row){ .vm = x->vm, .attempt = x->attempt, .exit = x->exit,
					    .ns = (which == EMP_TIMINGS_RUN_CPU ? x->cpu : x->elapsed) * 1e9 };
	}
	if (n == 0) {
		emp_errorf("%s: no run of mode %s and version %s in %s/runs.csv", dir, mode, version, real);
		goto out;
	}
	qsort(rows, n, sizeof(*rows), cmp_run);
	for (size_t i = 0; i < n; i++)
		if (rows[i].exit) {
			emp_errorf("%s: vm%lu's last run exited with status %ld (%s/runs.csv); `emp-run resume` runs it "
				   "again", dir, rows[i].vm, rows[i].exit, real);
			goto out;
		}
	*labels = emp_xcalloc(n, sizeof(**labels));
	*ns = emp_xmalloc(n * sizeof(**ns));
	for (size_t i = 0; i < n; i++) {
		if (asprintf(&(*labels)[i], "%s/vm%lu", dir, rows[i].vm) < 0)
			emp_die("out of memory");
		(*ns)[i] = rows[i].ns;
	}
	rc = (int)n;
out:
	free(rows);
	emp_runs_free(&r);
	free(real);
	return rc;
}
