/* SPDX-License-Identifier: MIT */
/* main.c - emp-run: run an experiment under the EMP protocol (experiment.h), locally or as a Slurm job array,
 * and tell its state. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "experiment.h"
#include "local.h"
#include "manifest.h"
#include "runner.h"
#include "slurm.h"
#include "util.h"

static const char usage[] =
	"usage: emp-run --out DIR --vms N --mode NAME=AGENT_OPTIONS... --version NAME=COMMAND... [OPTIONS]\n"
	"       emp-run status DIR | resume DIR | wait DIR\n"
	"\n"
	"Runs every version under every mode N times, one JVM per run, versions and modes interleaved in every\n"
	"round; DIR/<mode>/<version>/vm<K>.emp (the dump; none in a pure mode) with the program's stdout and stderr\n"
	"beside it (vm<K>.out, vm<K>.err); DIR/runs.csv one row per run (process and elapsed time, context switches,\n"
	"load, CPU set, disturbed).  Then: emp-analyze compare --base DIR/<mode>/<v1> --new DIR/<mode>/<v2>.\n"
	"\n"
	"  --out DIR                  the experiment's directory (new, or holding this same experiment)\n"
	"  --vms N                    runs per version and mode\n"
	"  --mode NAME=AGENT_OPTIONS  e.g. s1=mode=sample,interval=1ms  trace=mode=trace,include=com.acme.*\n"
	"                             pure= runs without the agent (repeatable)\n"
	"  --version NAME=COMMAND     e.g. base='java -cp v1.jar com.acme.Main', split like a shell (quotes,\n"
	"                             backslashes; no shell runs it); the agent goes right after java (repeatable)\n"
	"  --iteration CLASS.METHOD   the agent's iteration= (one call = one iteration, for compare/exactness)\n"
	"  --warmup N                 iterations the analyses drop (in the suggested commands)\n"
	"  --executor local|slurm     local child processes (default), or one Slurm job-array task per run\n"
	"  --parallel K               runs at once (local), or the array's %K throttle (slurm); default 1\n"
	"  --pin                      pin each run to its own CPU set (also with --parallel K > 1)\n"
	"  --seed S                   shuffle the (mode, version) pairs within each round\n"
	"  --rerun-disturbed N        run a disturbed run again, up to N times (every attempt keeps its row)\n"
	"  --disturbed-factor F       disturbed: elapsed > cpu / P * F + SLACK (default F 1.1)\n"
	"  --disturbed-slack MS       SLACK in milliseconds (default 50)\n"
	"  --program-threads P        P, the program's own parallelism (default 1)\n"
	"  --agent PATH               libemp.so (default: next to emp-run)\n"
	"  --partition P, --time T    slurm: passed to sbatch\n"
	"\n"
	"  status DIR                 runs done, failed, disturbed, to run (slurm: queued, failed tasks with their log)\n"
	"  resume DIR                 run (submit) every run not done yet; never one that is done\n"
	"  wait DIR                   until the experiment's runs have ended (slurm: the array's tasks), then status\n"
	"Exit status: 0 every run done, 1 a run failed or not done, 2 bad input (nothing run or changed),\n"
	"130 interrupted (finished runs kept; resume continues).\n";

/* Lock DIR/.lock (exclusive without waiting for runs, shared waiting for `wait`).  Return: the open fd (kept
 * for the process's life, close-on-exec so runs do not hold it), or -1 when another emp-run holds it. */
static int lock_dir(const struct emp_experiment *e, int op)
{
	char *p;
	if (asprintf(&p, "%s/.lock", e->dir) < 0)
		emp_die("out of memory");
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		emp_die("%s: %s", p, strerror(errno));
	free(p);
	if (flock(fd, op)) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct emp_manifest_state *local_state(const struct emp_experiment *e, char **manifest)
{
	struct emp_manifest_state *st = emp_xcalloc(emp_experiment_nruns(e), sizeof(*st));
	if (asprintf(manifest, "%s/runs.csv", e->dir) < 0)
		emp_die("out of memory");
	if (emp_manifest_read(e, *manifest, st, NULL) < 0)
		exit(EMP_RUNNER_EXIT_FAILED);
	return st;
}

static void suggest(const struct emp_experiment *e)
{
	if (e->nversions < 2)
		return;
	for (size_t m = 0; m < e->nmodes; m++) {
		int pure = !e->modes[m].opts[0];
		printf("emp-analyze compare --base %s/%s/%s --new %s/%s/%s", e->dir, e->modes[m].name,
		       e->versions[0].name, e->dir, e->modes[m].name, e->versions[1].name);
		if (pure)
			printf("   # per VM: the run's process time (runs.csv)\n");
		else
			printf(e->warmup ? " --warmup %u\n" : "\n", e->warmup);
	}
}

/* Print the local experiment's state (with @check_lock, whether an emp-run runs it).  Return: 0 when every run
 * is done, 1 otherwise. */
static int local_status(const struct emp_experiment *e, struct emp_manifest_state *st, int check_lock)
{
	size_t nr = emp_experiment_nruns(e), done = 0, failed = 0, disturbed = 0;
	for (size_t i = 0; i < nr; i++) {
		int d = emp_manifest_done(e, &st[i]);
		done += d;
		disturbed += d && st[i].last_disturbed;
		failed += !d && st[i].attempts && st[i].last_exit;
	}
	int lfd = check_lock ? lock_dir(e, LOCK_SH | LOCK_NB) : 0;
	printf("%s: %zu of %zu runs done (%zu disturbed), %zu failed, %zu to run%s\n", e->dir, done, nr, disturbed,
	       failed, nr - done - failed, lfd < 0 ? "; emp-run is running it now" : "");
	if (check_lock && lfd >= 0)
		close(lfd);
	for (size_t i = 0; i < nr; i++) {
		if (emp_manifest_done(e, &st[i]) || !st[i].attempts || !st[i].last_exit)
			continue;
		struct emp_exp_run r = emp_experiment_plan(e, i);
		char *err = emp_experiment_run_path(e, &r, ".err");
		fprintf(stderr, "emp-run: %s/%s vm%u failed (exit %d); its stderr: %s\n", e->modes[r.mode].name,
			e->versions[r.version].name, r.vm, st[i].last_exit, err);
		free(err);
	}
	if (done == nr)
		suggest(e);
	return done == nr ? EMP_RUNNER_EXIT_OK : EMP_RUNNER_EXIT_FAILED;
}

/* Run every run of @e that is not done, here. */
static int local_continue(const struct emp_experiment *e)
{
	int lfd = lock_dir(e, LOCK_EX | LOCK_NB);
	if (lfd < 0)
		emp_runner_bad("%s: another emp-run is running this experiment (`emp-run wait %s` waits for it)", e->dir,
			       e->dir);
	char *manifest;
	struct emp_manifest_state *st = local_state(e, &manifest);
	size_t nr = emp_experiment_nruns(e), n = 0, *todo = emp_xmalloc(nr * sizeof(*todo));
	for (size_t i = 0; i < nr; i++)
		if (!emp_manifest_done(e, &st[i]))
			todo[n++] = i;
	if (n < nr)
		fprintf(stderr, "emp-run: %zu of %zu runs already done; running the other %zu\n", nr - n, nr, n);
	struct emp_local_opts o = { .manifest = manifest, .parallel = e->parallel, .pin = e->pin, .progress = 1 };
	int rc = emp_local_execute(e, &o, todo, n, st);
	if (rc == EMP_RUNNER_EXIT_INTERRUPTED) {
		fprintf(stderr, "emp-run: interrupted; finished runs are in %s; `emp-run resume %s` continues\n",
			manifest, e->dir);
	} else {
		int s = local_status(e, st, 0);
		rc = rc ? rc : s;
	}
	free(todo);
	free(st);
	free(manifest);
	close(lfd);
	return rc;
}

static int slurm_continue(const struct emp_experiment *e)
{
	size_t queued, n;
	if (emp_slurm_status(e, 0, &queued))
		return EMP_RUNNER_EXIT_FAILED;
	if (queued)
		emp_runner_bad("%s: %zu tasks are still queued or running (`emp-run wait %s` waits for them)", e->dir,
			       queued, e->dir);
	size_t *todo = emp_slurm_todo(e, &n);
	int rc = EMP_RUNNER_EXIT_OK;
	if (n)
		rc = emp_slurm_submit(e, todo, n);
	else
		fprintf(stderr, "emp-run: every run of %s is done\n", e->dir);
	free(todo);
	return rc;
}

static int is_empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 1;
	struct dirent *de;
	int empty = 1;
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	return empty;
}

static int start(int argc, char **argv)
{
	struct emp_experiment e, old;
	emp_experiment_parse(&e, argc, argv);
	int have = emp_experiment_load(&old, e.dir);
	if (have < 0)
		exit(EMP_RUNNER_EXIT_BAD);
	if (have == 0) {
		char *a = emp_experiment_text(&e), *b = emp_experiment_text(&old);
		if (strcmp(a, b)) {
			size_t i = 0, l = 0;
			while (a[i] == b[i]) /* the first differing line, for the message */
				if (a[i++] == '\n')
					l = i;
			emp_runner_bad("%s holds another experiment (its experiment.conf has '%.*s', this one '%.*s'); "
				       "choose another --out", e.dir, (int)strcspn(b + l, "\n"), b + l,
				       (int)strcspn(a + l, "\n"), a + l);
		}
		free(a);
		free(b);
		emp_experiment_free(&old);
		fprintf(stderr, "emp-run: %s holds this experiment already: continuing it\n", e.dir);
	} else {
		if (!is_empty_dir(e.dir))
			emp_runner_bad("%s: not empty and not an emp-run experiment (no experiment.conf); choose another "
				       "--out", e.dir);
		if (emp_runner_mkdirs(e.dir) || emp_experiment_save(&e))
			exit(EMP_RUNNER_EXIT_FAILED);
	}
	int rc = e.executor == EMP_EXP_SLURM ? slurm_continue(&e) : local_continue(&e);
	emp_experiment_free(&e);
	return rc;
}

static void load(struct emp_experiment *e, const char *cmd, int argc, char **argv, int nargs)
{
	if (argc != nargs + 2)
		emp_runner_bad("usage: emp-run %s DIR%s", cmd, nargs == 2 ? " INDEX" : "");
	char *dir = emp_runner_abs_path(argv[2]);
	int rc = emp_experiment_load(e, dir);
	if (rc == 1)
		emp_runner_bad("%s: no experiment.conf (not an emp-run experiment)", dir);
	if (rc < 0)
		exit(EMP_RUNNER_EXIT_BAD);
	free(dir);
}

int main(int argc, char **argv)
{
	emp_util_program = "emp-run";
	if (argc < 2)
		emp_runner_bad("no experiment (emp-run --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	const char *cmd = argv[1];
	if (cmd[0] == '-')
		return start(argc, argv);
	struct emp_experiment e;
	int rc;
	if (!strcmp(cmd, "task")) {
		load(&e, cmd, argc, argv, 2);
		char *end;
		unsigned long i = strtoul(argv[3], &end, 10);
		if (end == argv[3] || *end || i >= emp_experiment_nruns(&e))
			emp_runner_bad("task %s: expected an index below %zu", argv[3], emp_experiment_nruns(&e));
		rc = emp_slurm_task(&e, (size_t)i);
	} else if (!strcmp(cmd, "status") || !strcmp(cmd, "wait") || !strcmp(cmd, "resume")) {
		load(&e, cmd, argc, argv, 1);
		if (!strcmp(cmd, "resume")) {
			rc = e.executor == EMP_EXP_SLURM ? slurm_continue(&e) : local_continue(&e);
		} else if (e.executor == EMP_EXP_SLURM) {
			rc = emp_slurm_status(&e, !strcmp(cmd, "wait"), NULL);
			if (rc == 0)
				suggest(&e);
		} else {
			if (!strcmp(cmd, "wait"))
				close(lock_dir(&e, LOCK_SH)); /* blocks while a local emp-run holds it */
			char *manifest;
			struct emp_manifest_state *st = local_state(&e, &manifest);
			rc = local_status(&e, st, 1);
			free(st);
			free(manifest);
		}
	} else {
		emp_runner_bad("%s: unknown command (emp-run --help)", cmd);
	}
	emp_experiment_free(&e);
	return rc;
}
