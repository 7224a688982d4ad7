/* SPDX-License-Identifier: MIT */
/* launch.h - one run: fork, the JVM exec'ed with the agent option right after the java executable, wait4.
 *
 * The child: killed when emp-run dies (PR_SET_PDEATHSIG), own process group (so emp-run can stop the whole JVM), working directory the experiment's cwd,
 * stdin /dev/null, stdout and stderr to DIR/<mode>/<version>/vm<K>.out and .err, pinned with sched_setaffinity
 * to the CPU set given (if any), signals back to their defaults.  With agent options the argument
 * -agentpath:<agent>=<options>,iteration=<method>,out=DIR/<mode>/<version>/vm<K>.emp follows argv[0]; a pure
 * mode ("" options) runs the command exactly as given. */
#ifndef EMP_LAUNCH_H
#define EMP_LAUNCH_H

#define _GNU_SOURCE 1
#include <sched.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "experiment.h"
#include "manifest.h"

struct emp_launch {
	pid_t pid;
	size_t index;
	unsigned attempt;
	double start;             /* emp_now_s() at fork */
	double load_before;
	cpu_set_t cpus;           /* the set it runs on */
};

/* emp_launch_start - start attempt @attempt of plan run @index, pinned to @cpus (NULL: the CPUs emp-run may
 * use).  Return: 0, or -1 after printing one line (a directory or output file that cannot be made, fork). */
int emp_launch_start(const struct emp_experiment *e, size_t index, unsigned attempt, const cpu_set_t *cpus,
		     struct emp_launch *l);
/* emp_launch_finish - the manifest row of @l, ended with wait4 status @status and usage @ru. */
void emp_launch_finish(const struct emp_experiment *e, const struct emp_launch *l, int status,
		       const struct rusage *ru, struct emp_manifest_row *row);
/* emp_launch_cpus_format - @set as blank-separated ranges ("0-1", "0 2-3") into @buf. */
void emp_launch_cpus_format(const cpu_set_t *set, char *buf, size_t size);

#endif /* EMP_LAUNCH_H */
