/* SPDX-License-Identifier: MIT */
/* manifest.c - runs.csv rows; see manifest.h. */
#include "manifest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

char *emp_manifest_format(const struct emp_experiment *e, const struct emp_manifest_row *r)
{
	struct emp_exp_run run = emp_experiment_plan(e, r->index);
	char *s;
	if (asprintf(&s, "%zu,%s,%s,%u,%u,%d,%.6f,%.6f,%.6f,%.6f,%ld,%ld,%.2f,%.2f,%s,%d\n", r->index,
		     e->modes[run.mode].name, e->versions[run.version].name, run.vm, r->attempt, r->exit, r->elapsed,
		     r->user + r->sys, r->user, r->sys, r->vcs, r->ivcs, r->load_before, r->load_after, r->cpus,
		     r->disturbed) < 0)
		emp_die("out of memory");
	return s;
}

void emp_manifest_add(struct emp_manifest_state *st, const struct emp_manifest_row *r)
{
	struct emp_manifest_state *s = &st[r->index];
	s->attempts++;
	s->disturbed += r->exit == 0 && r->disturbed;
	s->last_exit = r->exit;
	s->last_disturbed = r->disturbed;
}

int emp_manifest_done(const struct emp_experiment *e, const struct emp_manifest_state *s)
{
	return s->attempts && s->last_exit == 0 && (!s->last_disturbed || s->disturbed > e->rerun_disturbed);
}

/* Parse @line (no newline) into @r; the mode, version and vm fields must be those of the plan's run. */
static int parse_row(const struct emp_experiment *e, char *line, struct emp_manifest_row *r)
{
	char *f[16], *save = NULL;
	int n = 0;
	for (char *t = strtok_r(line, ",", &save); t && n < 16; t = strtok_r(NULL, ",", &save))
		f[n++] = t;
	if (n != 16)
		return -1;
	char *end;
	unsigned long long idx = strtoull(f[0], &end, 10);
	if (*end || idx >= emp_experiment_nruns(e))
		return -1;
	struct emp_exp_run run = emp_experiment_plan(e, (size_t)idx);
	if (strcmp(f[1], e->modes[run.mode].name) || strcmp(f[2], e->versions[run.version].name) ||
	    strtoul(f[3], &end, 10) != run.vm || *end)
		return -1;
	*r = (struct emp_manifest_row){ .index = (size_t)idx };
	r->attempt = (unsigned)strtoul(f[4], &end, 10);
	r->exit = (int)strtol(f[5], &end, 10);
	r->elapsed = strtod(f[6], &end);
	r->user = strtod(f[8], &end);
	r->sys = strtod(f[9], &end);
	r->disturbed = (int)strtol(f[15], &end, 10);
	return *end ? -1 : 0;
}

int emp_manifest_read(const struct emp_experiment *e, const char *path, struct emp_manifest_state *st, char **rows)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		emp_errorf("%s: %s", path, strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int n = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, EMP_MANIFEST_HEADER)) {
				emp_errorf("%s:1: not an emp-run manifest (expected the header %.40s...)", path,
					   EMP_MANIFEST_HEADER);
				n = -1;
				break;
			}
			continue;
		}
		if (line[len - 1] != '\n') /* a row torn by a crash: the run was not finished */
			break;
		char *copy = emp_xstrdup(line);
		line[len - 1] = 0;
		struct emp_manifest_row r;
		if (parse_row(e, line, &r)) {
			emp_errorf("%s:%zu: a row that does not parse or does not match the experiment's plan", path,
				   lineno);
			free(copy);
			n = -1;
			break;
		}
		emp_manifest_add(st, &r);
		if (rows) {
			size_t had = rows[r.index] ? strlen(rows[r.index]) : 0;
			rows[r.index] = emp_xrealloc(rows[r.index], had + strlen(copy) + 1);
			strcpy(rows[r.index] + had, copy);
		}
		free(copy);
		n++;
	}
	free(line);
	fclose(f);
	return n;
}
