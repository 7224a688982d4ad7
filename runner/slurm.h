/* SPDX-License-Identifier: MIT */
/* slurm.h - the Slurm executor: every run one task of a job array.
 *
 * Files in DIR/slurm/: task.sh (the batch script: `emp-run task DIR $SLURM_ARRAY_TASK_ID`), jobs (one line per
 * submitted array: "JOBID INDICES"), task-<I>.log (the task's stdout and stderr, Slurm's --output), rows/<I>.csv
 * (the task's manifest: only the task writes it).  A task writes nothing but its run's files and its rows file,
 * so DIR may be on a shared file system.  `status` and `wait` merge the rows files into DIR/runs.csv (index
 * order), so the directory ends up as with the local executor. */
#ifndef EMP_SLURM_H
#define EMP_SLURM_H

#include <stddef.h>

#include "experiment.h"

/* emp_slurm_submit - one job array (sbatch --array=LIST%parallel, --partition/--time passed through) for the
 * @n plan indices @todo.  Return: 0, or EMP_RUNNER_EXIT_FAILED after printing sbatch's message. */
int emp_slurm_submit(const struct emp_experiment *e, const size_t *todo, size_t n);
/* emp_slurm_task - the body of task @index: its run (and reruns of a disturbed one), unless already done.
 * Return: an exit status (0: the run is done). */
int emp_slurm_task(const struct emp_experiment *e, size_t index);
/* emp_slurm_status - the tasks' state from squeue and the rows files, printed; runs.csv merged.  With @wait,
 * first poll squeue every 2 s until no task of the experiment is queued or running.  A task that is neither
 * queued nor done is reported as failed with its log's last lines.  With @queued, the number still queued or
 * running is stored there (and nothing is printed).
 * Return: EMP_RUNNER_EXIT_OK when every run is done, EMP_RUNNER_EXIT_FAILED otherwise. */
int emp_slurm_status(const struct emp_experiment *e, int wait, size_t *queued);
/* emp_slurm_todo - the plan indices whose run is not done per the rows files (malloc'ed, *@n of them). */
size_t *emp_slurm_todo(const struct emp_experiment *e, size_t *n);

#endif /* EMP_SLURM_H */
