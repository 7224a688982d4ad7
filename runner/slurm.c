/* SPDX-License-Identifier: MIT */
/* slurm.c - the Slurm executor; see slurm.h. */
#include "slurm.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "local.h"
#include "manifest.h"
#include "runner.h"
#include "util.h"

#define NO_INDEX ((size_t)-1)

/* "DIR/slurm/<prefix>", or with an index "DIR/slurm/<prefix><i><suffix>" (malloc'ed). */
static char *path_in(const struct emp_experiment *e, const char *prefix, size_t i, const char *suffix)
{
	char *p;
	int n = i == NO_INDEX ? asprintf(&p, "%s/slurm/%s", e->dir, prefix)
			      : asprintf(&p, "%s/slurm/%s%zu%s", e->dir, prefix, i, suffix);
	if (n < 0)
		emp_die("out of memory");
	return p;
}

/* Run @argv (no shell) with its stdout and stderr captured into *@out (malloc'ed).  Return: its exit status, or
 * -1 when it could not be started. */
static int capture(char *const *argv, char **out)
{
	int fds[2];
	*out = emp_xstrdup("");
	if (pipe(fds))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	size_t len = 0;
	char buf[4096];
	ssize_t r;
	while ((r = read(fds[0], buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR)) {
		if (r < 0)
			continue;
		*out = emp_xrealloc(*out, len + (size_t)r + 1);
		memcpy(*out + len, buf, (size_t)r);
		len += (size_t)r;
		(*out)[len] = 0;
	}
	close(fds[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* @s quoted for sh: '...' with every ' as '\''. */
static char *sh_quote(const char *s)
{
	char *q = emp_xmalloc(4 * strlen(s) + 3), *p = q;
	*p++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *s;
		}
	}
	*p++ = '\'';
	*p = 0;
	return q;
}

/* "0-3,7,9-10": the indices as Slurm's --array list. */
static char *array_list(const size_t *idx, size_t n)
{
	char *buf = emp_xmalloc(n * 48 + 1);
	size_t len = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && idx[j + 1] == idx[j] + 1)
			j++;
		len += (size_t)sprintf(buf + len, j > i ? "%s%zu-%zu" : "%s%zu", len ? "," : "", idx[i], idx[j]);
		i = j + 1;
	}
	buf[len] = 0;
	return buf;
}

int emp_slurm_submit(const struct emp_experiment *e, const size_t *todo, size_t n)
{
	char *sdir = path_in(e, "rows", NO_INDEX, ""), *script = path_in(e, "task.sh", NO_INDEX, "");
	char *jobs = path_in(e, "jobs", NO_INDEX, ""), *log = path_in(e, "task-%a.log", NO_INDEX, ""), exe[PATH_MAX];
	ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int rc = EMP_RUNNER_EXIT_FAILED;
	if (el <= 0) {
		emp_errorf("/proc/self/exe: %s", strerror(errno));
		goto out;
	}
	exe[el] = 0;
	if (emp_runner_mkdirs(sdir))
		goto out;
	char *qe = sh_quote(exe), *qd = sh_quote(e->dir), *text;
	if (asprintf(&text, "#!/bin/sh\n# emp-run: one task of the job array runs one (mode, version, vm)\n"
			    "exec %s task %s \"$SLURM_ARRAY_TASK_ID\"\n", qe, qd) < 0)
		emp_die("out of memory");
	free(qe);
	free(qd);
	int werr = emp_runner_write_file(script, text, strlen(text));
	free(text);
	if (werr)
		goto out;
	char *list = array_list(todo, n), *array, *output, *chdir_arg, *part = NULL, *tim = NULL, *res;
	if (asprintf(&array, "--array=%s%%%u", list, e->parallel) < 0 || asprintf(&output, "--output=%s", log) < 0 ||
	    asprintf(&chdir_arg, "--chdir=%s", e->cwd) < 0 ||
	    (e->partition && asprintf(&part, "--partition=%s", e->partition) < 0) ||
	    (e->time && asprintf(&tim, "--time=%s", e->time) < 0))
		emp_die("out of memory");
	char *argv[10];
	int a = 0;
	argv[a++] = "sbatch";
	argv[a++] = "--parsable";
	argv[a++] = "--job-name=emp-run";
	argv[a++] = array;
	argv[a++] = output;
	argv[a++] = chdir_arg;
	if (part)
		argv[a++] = part;
	if (tim)
		argv[a++] = tim;
	argv[a++] = script;
	argv[a] = NULL;
	int st = capture(argv, &res);
	if (st != 0) {
		res[strcspn(res, "\n")] = 0;
		emp_errorf("sbatch failed (exit %d): %s", st, *res ? res : "no message");
	} else {
		long job = strtol(res, NULL, 10);
		char *line;
		if (asprintf(&line, "%ld %s\n", job, list) < 0)
			emp_die("out of memory");
		FILE *f = fopen(jobs, "a");
		if (!f || fputs(line, f) < 0 || fclose(f)) {
			emp_errorf("%s: %s", jobs, strerror(errno));
		} else {
			fprintf(stderr, "emp-run: submitted job %ld: %zu tasks (array %s%%%u); `emp-run wait %s` waits "
				"for them\n", job, n, list, e->parallel, e->dir);
			rc = EMP_RUNNER_EXIT_OK;
		}
		free(line);
	}
	free(res);
	free(list);
	free(array);
	free(output);
	free(chdir_arg);
	free(part);
	free(tim);
out:
	free(sdir);
	free(script);
	free(jobs);
	free(log);
	return rc;
}

int emp_slurm_task(const struct emp_experiment *e, size_t index)
{
	struct emp_manifest_state *st = emp_xcalloc(emp_experiment_nruns(e), sizeof(*st));
	char *rows = path_in(e, "rows/", index, ".csv");
	int rc = EMP_RUNNER_EXIT_FAILED;
	if (emp_manifest_read(e, rows, st, NULL) >= 0) {
		if (emp_manifest_done(e, &st[index])) {
			fprintf(stderr, "emp-run: task %zu: already done\n", index);
			rc = EMP_RUNNER_EXIT_OK;
		} else {
			struct emp_local_opts o = { .manifest = rows, .parallel = 1, .progress = 1 };
			rc = emp_local_execute(e, &o, &index, 1, st);
		}
	}
	free(rows);
	free(st);
	return rc;
}

/* The rows of every task, by index (rows[i] NULL where none), accounted in @st.  Return: 0 or -1 printed. */
static int read_rows(const struct emp_experiment *e, struct emp_manifest_state *st, char **rows)
{
	for (size_t i = 0; i < emp_experiment_nruns(e); i++) {
		char *p = path_in(e, "rows/", i, ".csv");
		int r = emp_manifest_read(e, p, st, rows);
		free(p);
		if (r < 0)
			return -1;
	}
	return 0;
}

size_t *emp_slurm_todo(const struct emp_experiment *e, size_t *n)
{
	size_t nr = emp_experiment_nruns(e);
	struct emp_manifest_state *st = emp_xcalloc(nr, sizeof(*st));
	size_t *todo = emp_xmalloc(nr * sizeof(*todo));
	*n = 0;
	if (read_rows(e, st, NULL)) {
		free(st);
		free(todo);
		exit(EMP_RUNNER_EXIT_FAILED);
	}
	for (size_t i = 0; i < nr; i++)
		if (!emp_manifest_done(e, &st[i]))
			todo[(*n)++] = i;
	free(st);
	return todo;
}

/* Mark in @q[nruns] the tasks squeue lists for the experiment's jobs (DIR/slurm/jobs): every queued or running
 * array task is listed with its array job id (%F) and task index (%K), so one squeue call without -j serves
 * (squeue -j fails for a job Slurm has forgotten).  Return: how many, or -1 printed. */
static long squeue_tasks(const struct emp_experiment *e, unsigned char *q)
{
	char *jobs = path_in(e, "jobs", NO_INDEX, ""), line[4096];
	FILE *f = fopen(jobs, "r");
	free(jobs);
	if (!f)
		return 0;
	long *ids = NULL;
	size_t nids = 0;
	while (fgets(line, sizeof(line), f)) {
		ids = emp_xrealloc(ids, (nids + 1) * sizeof(*ids));
		ids[nids++] = strtol(line, NULL, 10);
	}
	fclose(f);
	char *out, *argv[] = { "squeue", "-h", "-r", "-o", "%F %K", NULL };
	int st = nids ? capture(argv, &out) : 0;
	long n = 0;
	if (!nids) {
		free(ids);
		return 0;
	}
	if (st != 0) {
		out[strcspn(out, "\n")] = 0;
		emp_errorf("squeue failed (exit %d): %s", st, out);
		n = -1;
	} else {
		for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
			char *end;
			long job = strtol(l, &end, 10);
			unsigned long i = strtoul(end, &end, 10);
			size_t k = 0;
			while (k < nids && ids[k] != job)
				k++;
			if (k < nids && i < emp_experiment_nruns(e) && !q[i]) {
				q[i] = 1;
				n++;
			}
		}
	}
	free(out);
	free(ids);
	return n;
}

/* "    log PATH:" and its last 3 lines on stderr ("(none...)" when it does not exist). */
static void print_tail(const char *what, const char *path)
{
	char line[512], tail[3][512] = { "", "", "" };
	FILE *f = fopen(path, "r");
	fprintf(stderr, "    %s %s%s\n", what, path, f ? ":" : " (none: the task never started)");
	if (!f)
		return;
	unsigned n = 0;
	while (fgets(line, sizeof(line), f))
		snprintf(tail[n++ % 3], sizeof(tail[0]), "%s", line);
	for (unsigned k = n > 3 ? n - 3 : 0; k < n; k++)
		fprintf(stderr, "    | %s%s", tail[k % 3], strchr(tail[k % 3], '\n') ? "" : "\n");
	fclose(f);
}

/* The task's Slurm log and its program's stderr, last lines of each. */
static void print_failure(const struct emp_experiment *e, size_t i)
{
	char *log = path_in(e, "task-", i, ".log");
	print_tail("log", log);
	free(log);
	struct emp_exp_run r = emp_experiment_plan(e, i);
	char *err = emp_experiment_run_path(e, &r, ".err");
	if (access(err, R_OK) == 0)
		print_tail("program's stderr", err);
	free(err);
}

/* Rewrite DIR/runs.csv from the rows files (index order; fsync'ed, renamed into place). */
static int merge(const struct emp_experiment *e, char **rows)
{
	size_t len = strlen(EMP_MANIFEST_HEADER);
	char *all = emp_xstrdup(EMP_MANIFEST_HEADER), *path;
	for (size_t i = 0; i < emp_experiment_nruns(e); i++) {
		if (!rows[i])
			continue;
		size_t rl = strlen(rows[i]);
		all = emp_xrealloc(all, len + rl + 1);
		memcpy(all + len, rows[i], rl + 1);
		len += rl;
	}
	if (asprintf(&path, "%s/runs.csv", e->dir) < 0)
		emp_die("out of memory");
	int rc = emp_runner_write_file(path, all, len);
	free(all);
	free(path);
	return rc;
}

int emp_slurm_status(const struct emp_experiment *e, int wait, size_t *queued)
{
	size_t nr = emp_experiment_nruns(e);
	unsigned char *q = emp_xcalloc(nr, 1);
	long nq;
	for (;;) {
		memset(q, 0, nr);
		nq = squeue_tasks(e, q);
		if (nq < 0) {
			free(q);
			return EMP_RUNNER_EXIT_FAILED;
		}
		if (!wait || nq == 0)
			break;
		sleep(2);
	}
	if (queued) {
		*queued = (size_t)nq;
		free(q);
		return EMP_RUNNER_EXIT_OK;
	}
	struct emp_manifest_state *st = emp_xcalloc(nr, sizeof(*st));
	char **rows = emp_xcalloc(nr, sizeof(*rows));
	int rc = EMP_RUNNER_EXIT_FAILED;
	if (read_rows(e, st, rows) || merge(e, rows))
		goto out;
	size_t done = 0, failed = 0, disturbed = 0;
	for (size_t i = 0; i < nr; i++) {
		done += emp_manifest_done(e, &st[i]);
		disturbed += st[i].last_disturbed && emp_manifest_done(e, &st[i]);
	}
	printf("%s: %zu of %zu runs done (%zu disturbed), %ld queued or running (Slurm)\n", e->dir, done, nr, disturbed,
	       nq);
	for (size_t i = 0; i < nr; i++) {
		if (q[i] || emp_manifest_done(e, &st[i]))
			continue;
		struct emp_exp_run r = emp_experiment_plan(e, i);
		failed++;
		if (st[i].attempts)
			fprintf(stderr, "emp-run: task %zu (%s/%s vm%u) failed: the program exited with status %d\n", i,
				e->modes[r.mode].name, e->versions[r.version].name, r.vm, st[i].last_exit);
		else
			fprintf(stderr, "emp-run: task %zu (%s/%s vm%u) %s\n", i, e->modes[r.mode].name,
				e->versions[r.version].name, r.vm,
				wait ? "failed: it ended without a result" : "not run (not queued, no result)");
		print_failure(e, i);
	}
	if (failed)
		fprintf(stderr, "emp-run: %zu tasks without a result; `emp-run resume %s` submits them again\n", failed,
			e->dir);
	rc = done == nr ? EMP_RUNNER_EXIT_OK : EMP_RUNNER_EXIT_FAILED;
out:
	for (size_t i = 0; i < nr; i++)
		free(rows[i]);
	free(rows);
	free(st);
	free(q);
	return rc;
}
