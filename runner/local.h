/* SPDX-License-Identifier: MIT */
/* local.h - the local executor: runs the plan's runs as child processes of emp-run, K at a time, each row
 * appended to a manifest (manifest.h) as its run ends.  A Slurm task uses it too, for its one run. */
#ifndef EMP_LOCAL_H
#define EMP_LOCAL_H

#include <stddef.h>

#include "experiment.h"
#include "manifest.h"

struct emp_local_opts {
	const char *manifest;     /* the manifest the rows are appended to (created with its header) */
	unsigned parallel;        /* runs at once */
	int pin;                  /* pin each run to its own CPU set (also when parallel > 1) */
	int progress;             /* a progress line with an ETA on stderr per finished run */
};

/* emp_local_execute - run the @n plan indices @todo in order, each as attempt st[i].attempts + 1, a disturbed
 * one again right away while reruns are left (emp_manifest_done()), a failed one not again.  SIGINT and SIGTERM
 * stop it: the running JVMs get SIGTERM, their runs are not recorded, and it returns
 * EMP_RUNNER_EXIT_INTERRUPTED.  @st is updated with every row.
 * Return: EMP_RUNNER_EXIT_OK, EMP_RUNNER_EXIT_FAILED (a run exited non-zero, or an I/O error), or interrupted. */
int emp_local_execute(const struct emp_experiment *e, const struct emp_local_opts *o, const size_t *todo, size_t n,
		      struct emp_manifest_state *st);

#endif /* EMP_LOCAL_H */
