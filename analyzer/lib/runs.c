/* SPDX-License-Identifier: MIT */
/* runs.c - an emp-run experiment's manifest; see runs.h. */
#include "runs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

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

/* @name in @list[*n], added when new. */
static char *intern(char ***list, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*list)[i], name))
			return (*list)[i];
	*list = emp_xrealloc(*list, (*n + 1) * sizeof(**list));
	return (*list)[(*n)++] = emp_xstrdup(name);
}

/* The disturbed rule's parameters from @exp/experiment.conf, where it has them. */
static void read_rule(const char *exp, struct emp_runs *r)
{
	char *path, line[4096];
	if (asprintf(&path, "%s/experiment.conf", exp) < 0)
		emp_die("out of memory");
	FILE *f = fopen(path, "r");
	free(path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		double v = strtod(eq + 1, NULL);
		if (!strcmp(line, "disturbed-factor"))
			r->factor = v;
		else if (!strcmp(line, "disturbed-slack"))
			r->slack = v;
		else if (!strcmp(line, "program-threads") && v >= 1)
			r->threads = v;
	}
	fclose(f);
}

int emp_runs_read(const char *exp, struct emp_runs *r)
{
	*r = (struct emp_runs){ .factor = 1.1, .slack = 0.05, .threads = 1 };
	char *path;
	int missing;
	FILE *f = emp_open_in(exp, "runs.csv", &path, &missing);
	if (!f)
		return missing ? 1 : -1;
	enum { MODE, VERSION, VM, ATTEMPT, EXIT, ELAPSED, CPU, DISTURBED, NCOLS };
	static const char *const names[NCOLS] = { "mode", "version", "vm", "attempt", "exit", "elapsed_s", "cpu_s",
						  "disturbed" };
	int col[NCOLS], ncol = 0, rc = -1;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		if (lineno == 1) {
			for (int i = 0; i < NCOLS; i++)
				if ((col[i] = column(line, names[i])) < 0) {
					emp_errorf("%s:1: no column '%s' (not an emp-run manifest)", path, names[i]);
					goto out;
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
			emp_errorf("%s:%zu: %d fields, the header has %d", path, lineno, nf, ncol);
			goto out;
		}
		char *e[6];
		struct emp_runs_row row = {
			.mode = intern(&r->modes, &r->nmodes, field[col[MODE]]),
			.version = intern(&r->versions, &r->nversions, field[col[VERSION]]),
			.vm = strtoul(field[col[VM]], &e[0], 10),
			.attempt = strtoul(field[col[ATTEMPT]], &e[1], 10),
			.exit = strtol(field[col[EXIT]], &e[2], 10),
			.elapsed = strtod(field[col[ELAPSED]], &e[3]),
			.cpu = strtod(field[col[CPU]], &e[4]),
			.disturbed = (int)strtol(field[col[DISTURBED]], &e[5], 10),
		};
		if (*e[0] || *e[1] || *e[2] || *e[3] || *e[4] || *e[5] || !(row.elapsed >= 0) || !(row.cpu >= 0)) {
			emp_errorf("%s:%zu: a row that does not parse", path, lineno);
			goto out;
		}
		r->rows = emp_xrealloc(r->rows, (r->nrows + 1) * sizeof(*r->rows));
		r->rows[r->nrows++] = row;
	}
	if (lineno == 0) {
		emp_errorf("%s: empty (expected the header of an emp-run manifest)", path);
		goto out;
	}
	read_rule(exp, r);
	rc = 0;
out:
	if (rc)
		emp_runs_free(r);
	free(line);
	fclose(f);
	free(path);
	return rc;
}

void emp_runs_free(struct emp_runs *r)
{
	for (size_t i = 0; i < r->nmodes; i++)
		free(r->modes[i]);
	for (size_t i = 0; i < r->nversions; i++)
		free(r->versions[i]);
	free(r->modes);
	free(r->versions);
	free(r->rows);
	*r = (struct emp_runs){ 0 };
}
