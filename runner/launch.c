/* SPDX-License-Identifier: MIT */
/* launch.c - one run of the experiment; see launch.h. */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner.h"
#include "util.h"

static double loadavg1(void)
{
	double l[1];
	return getloadavg(l, 1) == 1 ? l[0] : -1;
}

void emp_launch_cpus_format(const cpu_set_t *set, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int last = c;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		int n = last > c ? snprintf(buf + len, size - len, "%s%d-%d", len ? " " : "", c, last)
				 : snprintf(buf + len, size - len, "%s%d", len ? " " : "", c);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
		c = last;
	}
}

/* The child's side after fork(): system calls only, no stdio or malloc. */
static void child(const struct emp_experiment *e, char **argv, const char *out, const char *err, const cpu_set_t *cpus,
		  pid_t parent)
{
	/* if emp-run dies (SIGKILL, a crash), so does the run: no orphan JVM writes files a resumed run rewrites */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(125);
	setpgid(0, 0);
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	int in = open("/dev/null", O_RDONLY);
	int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), r = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || o < 0 || r < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(r, 2) < 0)
		_exit(126);
	if (chdir(e->cwd)) {
		static const char msg[] = "emp-run: cannot enter the experiment's working directory\n";
		(void)!write(2, msg, sizeof(msg) - 1);
		_exit(126);
	}
	if (cpus && sched_setaffinity(0, sizeof(*cpus), cpus)) {
		static const char msg[] = "emp-run: sched_setaffinity failed\n";
		(void)!write(2, msg, sizeof(msg) - 1);
		_exit(126);
	}
	execvp(argv[0], argv); /* emp-run is single-threaded: execvp's PATH search is safe here */
	static const char msg[] = "emp-run: cannot execute the java command\n";
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(127);
}

int emp_launch_start(const struct emp_experiment *e, size_t index, unsigned attempt, const cpu_set_t *cpus,
		     struct emp_launch *l)
{
	struct emp_exp_run run = emp_experiment_plan(e, index);
	const struct emp_exp_version *v = &e->versions[run.version];
	const char *opts = e->modes[run.mode].opts;
	char *dump = emp_experiment_run_path(e, &run, ".emp"), *out = emp_experiment_run_path(e, &run, ".out");
	char *err = emp_experiment_run_path(e, &run, ".err"), *dir = emp_xstrdup(dump), *agent = NULL;
	*strrchr(dir, '/') = 0;
	char **argv = emp_xcalloc((size_t)v->argc + 2, sizeof(*argv));
	int rc = -1;
	if (emp_runner_mkdirs(dir))
		goto out;
	unlink(dump); /* an interrupted earlier attempt's dump must not pass for this one's */
	argv[0] = v->argv[0];
	int k = 1;
	if (*opts) {
		if (asprintf(&agent, "-agentpath:%s=%s%s%s,out=%s", e->agent, opts, e->iteration ? ",iteration=" : "",
			     e->iteration ? e->iteration : "", dump) < 0)
			emp_die("out of memory");
		argv[k++] = agent;
	}
	for (int i = 1; i < v->argc; i++)
		argv[k++] = v->argv[i];
	*l = (struct emp_launch){ .index = index, .attempt = attempt };
	if (cpus)
		l->cpus = *cpus;
	else
		sched_getaffinity(0, sizeof(l->cpus), &l->cpus);
	l->load_before = loadavg1();
	l->start = emp_now_s();
	fflush(NULL);
	pid_t parent = getpid();
	l->pid = fork();
	if (l->pid < 0) {
		emp_errorf("fork: %s", strerror(errno));
		goto out;
	}
	if (l->pid == 0)
		child(e, argv, out, err, cpus, parent);
	setpgid(l->pid, l->pid); /* also here, so that a signal to the group right after fork reaches it */
	rc = 0;
out:
	free(argv);
	free(agent);
	free(dump);
	free(out);
	free(err);
	free(dir);
	return rc;
}

void emp_launch_finish(const struct emp_experiment *e, const struct emp_launch *l, int status,
		       const struct rusage *ru, struct emp_manifest_row *row)
{
	double now = emp_now_s();
	*row = (struct emp_manifest_row){
		.index = l->index,
		.attempt = l->attempt,
		.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
		.elapsed = now - l->start,
		.user = (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6,
		.sys = (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6,
		.vcs = ru->ru_nvcsw,
		.ivcs = ru->ru_nivcsw,
		.load_before = l->load_before,
		.load_after = loadavg1(),
	};
	emp_launch_cpus_format(&l->cpus, row->cpus, sizeof(row->cpus));
	row->disturbed = emp_experiment_disturbed(e, row->elapsed, row->user + row->sys);
}
