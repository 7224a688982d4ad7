/* SPDX-License-Identifier: MIT */
/* experiment.h - what an emp-run experiment is: its modes, versions and VM count, how runs are judged, and the
 * run plan (README "Compare two versions of my program").
 *
 * An experiment lives in its directory DIR: DIR/experiment.conf (written once, before the first run, by
 * emp_experiment_save(); read back by resume, status, wait and Slurm tasks), DIR/<mode>/<version>/vm<K>.* (one
 * run each) and DIR/runs.csv (manifest.h).
 *
 * The plan (EMP protocol): one JVM per run; round K (1..vms) runs every (mode, version) pair once, so versions and
 * modes are interleaved in every round (m1/A m1/B m2/A m2/B ...); with a seed the pairs are shuffled within each
 * round (Fisher-Yates, xoshiro256** from the seed; analyzer/lib/stats.h).  Run index i of the plan is fixed by
 * the configuration, so a Slurm task and a resumed run name the same (mode, version, vm) by it. */
#ifndef EMP_EXPERIMENT_H
#define EMP_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

enum emp_exp_executor { EMP_EXP_LOCAL, EMP_EXP_SLURM };

struct emp_exp_mode {
	char *name;
	char *opts;               /* agent options; "" runs without the agent (pure) */
};

struct emp_exp_version {
	char *name;
	char *command;            /* as given */
	char **argv;              /* split (argv.h); argv[0] is the java executable */
	int argc;
};

struct emp_experiment {
	char *dir;                /* absolute */
	char *cwd;                /* the runs' working directory: emp-run's at creation */
	char *agent;              /* absolute path of libemp.so */
	unsigned vms;
	char *iteration;          /* --iteration, or NULL */
	unsigned warmup;          /* --warmup: iterations the analyses drop (printed in the suggested commands) */
	struct emp_exp_mode *modes;
	size_t nmodes;
	struct emp_exp_version *versions;
	size_t nversions;
	enum emp_exp_executor executor;
	unsigned parallel;        /* runs at once (local), array throttle %K (slurm) */
	int pin;                  /* pin every run to its own CPU set */
	int seeded;
	uint64_t seed;
	unsigned rerun_disturbed; /* reruns allowed per run for disturbance */
	double dist_factor;       /* disturbed: elapsed > cpu / dist_threads * dist_factor + dist_slack */
	double dist_slack;        /* seconds */
	double dist_threads;
	char *partition, *time;   /* slurm passthrough, or NULL */
};

struct emp_exp_run {
	size_t mode, version;
	unsigned vm;              /* 1..vms */
};

/* emp_experiment_parse - the experiment of emp-run's command line (@argv after the program name).  Prints one
 * line and exits 2 on any bad input: an unknown option, a missing or bad value, a mode or version without
 * NAME=, a bad or repeated name, a version command that does not split or is not a java command, agent options
 * that set out= or iteration= themselves, --partition/--time without Slurm, --pin with it, --executor=slurm
 * without sbatch on the PATH, no libemp.so. */
void emp_experiment_parse(struct emp_experiment *e, int argc, char **argv);
/* emp_experiment_save - write DIR/experiment.conf (fsync'ed, then renamed into place).  Return: 0 or -1 printed. */
int emp_experiment_save(const struct emp_experiment *e);
/* emp_experiment_load - read @dir/experiment.conf.  Return: 0, 1 when there is none, -1 after printing one line
 * (unreadable, not an emp-run file, a bad line). */
int emp_experiment_load(struct emp_experiment *e, const char *dir);
/* emp_experiment_text - the experiment.conf text (malloc'ed); two experiments are the same when theirs are. */
char *emp_experiment_text(const struct emp_experiment *e);
void emp_experiment_free(struct emp_experiment *e);

/* emp_experiment_nruns - vms x modes x versions. */
size_t emp_experiment_nruns(const struct emp_experiment *e);
/* emp_experiment_plan - the run of plan index @i (< nruns). */
struct emp_exp_run emp_experiment_plan(const struct emp_experiment *e, size_t i);
/* emp_experiment_run_path - "DIR/<mode>/<version>/vm<K><suffix>" (malloc'ed). */
char *emp_experiment_run_path(const struct emp_experiment *e, const struct emp_exp_run *r, const char *suffix);
/* emp_experiment_disturbed - whether a run of @elapsed and @cpu seconds counts as disturbed. */
int emp_experiment_disturbed(const struct emp_experiment *e, double elapsed, double cpu);

#endif /* EMP_EXPERIMENT_H */
