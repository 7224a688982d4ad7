/* SPDX-License-Identifier: MIT */
/* cmd_overhead.c - emp-analyze overhead: the agent's cost per iteration (and per call) from the timing files of
 * pure runs (no agent) and measured runs (with it), one VM run per file.
 *
 * Input: every *.csv in each DIR, sorted by name, one JVM run each, as java-sut --timings writes them (read by
 * timings.h): the header "iteration,duration_ns" and one row "N,NS" per measured iteration.  Other files (.emp
 * dumps among them) are ignored; the variant is named after its DIR's last component (or last two, three... when
 * that names two alike).
 *
 * Per run the first --warmup rows are dropped and the rest averaged: one value per VM.  Overheads compare VM
 * means (the VM is the independent unit; iterations within a VM are not): absolute = mean(measured) - mean(pure)
 * ns per iteration, relative = mean(measured) / mean(pure), each with a percentile bootstrap interval resampling
 * the VMs of both sides (analyzer/lib/stats.h).  The Kalibera-Jones split of each variant's variance into the
 * within-VM and between-VM components comes with the iterations per VM it suggests, given the cost of one VM
 * (--vm-cost, plus the warm-up iterations dropped) in iterations. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "iter_options.h"
#include "commands.h"
#include "stats.h"
#include "timings.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze overhead --pure DIR --measured DIR [DIR...] [OPTIONS]\n"
	"\n"
	"The agent's overhead from java-sut --timings files: every *.csv in a DIR is one JVM run (header\n"
	"iteration,duration_ns); pure runs have no agent.  One row per variant (named after its DIR), pure first:\n"
	"VMs, iterations per VM, the mean and the median over VMs of the per-VM mean iteration time, the overhead\n"
	"per iteration (ns, measured minus pure) and the ratio measured/pure, each with a bootstrap interval over\n"
	"VM means, per call with --calls-per-iteration, and the Kalibera-Jones within-VM and between-VM standard\n"
	"deviations with the iterations per VM they suggest (kj_iters; '-' when the VMs do not differ).\n"
	"\n"
	"  --pure DIR                 the runs without agent (required)\n"
	"  --measured DIR [DIR...]    one or more variants with the agent (repeatable)\n"
	"  --warmup N                 drop the first N iterations of every run (default 0)\n"
	"  --calls-per-iteration N    also report the overhead per call (N calls of the measured code per iteration)\n"
	"  --level L                  confidence level of the intervals (default 0.95)\n"
	"  --bootstrap B              bootstrap replicates (default 10000)\n"
	"  --seed S                   bootstrap seed (default 1; xoshiro256** seeded by splitmix64)\n"
	"  --vm-cost SECONDS          start-up cost of one VM for Kalibera-Jones (default 1)\n"
	"  --run-time cpu|elapsed     a DIR of emp-run (EXP/<mode>/<version>): one value per run, its process time\n"
	"                             (default) or elapsed time from EXP/runs.csv\n"
	"  --format=F                 text (default), csv or json\n";

struct variant {
	const char *dir;
	const char *name;
	size_t vms;
	double *vm_mean; /* per VM: mean iteration time (ns) after the warm-up */
	double *vm_var;  /* per VM: sample variance of the iteration times */
	size_t *vm_n;    /* per VM: iterations kept */
};

static void read_variant(struct variant *var, unsigned long warmup, enum emp_timings_run_time run_time)
{
	char **paths;
	double *runs = NULL;
	int n = emp_timings_list(var->dir, ".csv", &paths);
	if (n == 0) /* an emp-run directory: one value per run */
		n = emp_timings_runs(var->dir, run_time, &paths, &runs);
	if (n < 0)
		exit(EMP_EXIT_ERROR);
	if (n == 0)
		emp_die("%s: no timing files (*.csv, java-sut --timings) and not a directory of emp-run", var->dir);
	var->vms = (size_t)n;
	var->vm_mean = emp_xcalloc((size_t)n, sizeof(double));
	var->vm_var = emp_xcalloc((size_t)n, sizeof(double));
	var->vm_n = emp_xcalloc((size_t)n, sizeof(size_t));
	for (int i = 0; i < n; i++) {
		double *v;
		if (runs) {
			var->vm_mean[i] = runs[i];
			var->vm_n[i] = 1;
			continue;
		}
		if (emp_timings_read(paths[i], warmup, &v, &var->vm_n[i]))
			exit(EMP_EXIT_ERROR);
		var->vm_mean[i] = emp_stats_mean(v, var->vm_n[i]);
		var->vm_var[i] = emp_stats_variance(v, var->vm_n[i]);
		free(v);
	}
	emp_timings_list_free(paths, (size_t)n);
	free(runs);
}

/* The last @k non-empty components of @dir (all of it when it has fewer), malloc'ed. */
static char *last_components(const char *dir, unsigned k)
{
	const char *end = dir + strlen(dir);
	while (end > dir + 1 && end[-1] == '/')
		end--;
	const char *start = end;
	for (unsigned c = 0; c < k && start > dir; c++) {
		if (c)
			while (start > dir && start[-1] == '/')
				start--;
		while (start > dir && start[-1] != '/')
			start--;
	}
	size_t nl = (size_t)(end - start);
	char *name = emp_xmalloc(nl + 1);
	memcpy(name, start, nl);
	name[nl] = 0;
	return name;
}

/* Name every variant after the last component of its DIR, or the last two, three... when that leaves two alike
 * (an emp-run experiment's pure/base and s1/base). */
static void name_variants(struct variant *var, size_t n)
{
	for (unsigned k = 1;; k++) {
		int alike = 0;
		for (size_t i = 0; i < n; i++) {
			free((char *)var[i].name);
			var[i].name = last_components(var[i].dir, k);
		}
		for (size_t i = 0; i < n && !alike; i++)
			for (size_t j = i + 1; j < n && !alike; j++)
				alike = !strcmp(var[i].name, var[j].name);
		if (!alike || k == 8)
			return;
	}
}

static double parse_pos(struct emp_cli *cli, const char *opt, const char *arg, int allow_zero)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v) || v < 0 || (!allow_zero && v == 0))
		emp_cli_usage_error(cli, "--%s=%s: expected a number %s 0", opt, arg, allow_zero ? ">=" : ">");
	return v;
}

/* The command line: the variants ([0] pure, then the measured ones) and the numbers. */
struct args {
	struct variant *var;
	size_t nvar;
	double calls, level, vm_cost_s;
	enum emp_timings_run_time run_time;
	unsigned long warmup;
	unsigned boot;
	uint64_t seed;
};

static void parse_args(struct emp_cli *cli, int argc, char **argv, struct args *a)
{
	enum { OPT_PURE = EMP_OPT_FIRST_FREE, OPT_MEASURED, OPT_WARMUP, OPT_CALLS, OPT_LEVEL, OPT_BOOT, OPT_SEED,
	       OPT_VMCOST, OPT_RUN_TIME };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS,
					      { "pure", required_argument, NULL, OPT_PURE },
					      { "measured", required_argument, NULL, OPT_MEASURED },
					      { "warmup", required_argument, NULL, OPT_WARMUP },
					      { "calls-per-iteration", required_argument, NULL, OPT_CALLS },
					      { "level", required_argument, NULL, OPT_LEVEL },
					      { "bootstrap", required_argument, NULL, OPT_BOOT },
					      { "seed", required_argument, NULL, OPT_SEED },
					      { "vm-cost", required_argument, NULL, OPT_VMCOST },
					      { "run-time", required_argument, NULL, OPT_RUN_TIME },
					      { 0, 0, 0, 0 } };
	struct variant *var = emp_xcalloc((size_t)argc + 1, sizeof(*var)); /* [0] pure, then measured */
	size_t nvar = 1;
	enum emp_timings_run_time run_time = EMP_TIMINGS_RUN_CPU;
	double calls = 0, level = 0.95, vm_cost_s = 1, warmup_d = 0, boot_d = 10000, seed_d = 1;
	int opt;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_PURE:
			if (var[0].dir)
				emp_cli_usage_error(cli, "--pure given twice");
			var[0].dir = optarg;
			break;
		case OPT_MEASURED:
			var[nvar++].dir = optarg;
			break;
		case OPT_WARMUP:
			warmup_d = parse_pos(cli, "warmup", optarg, 1);
			break;
		case OPT_CALLS:
			calls = parse_pos(cli, "calls-per-iteration", optarg, 0);
			break;
		case OPT_LEVEL:
			level = parse_pos(cli, "level", optarg, 0);
			if (level >= 1)
				emp_cli_usage_error(cli, "--level=%s: expected a number between 0 and 1", optarg);
			break;
		case OPT_BOOT:
			boot_d = parse_pos(cli, "bootstrap", optarg, 0);
			break;
		case OPT_SEED:
			seed_d = parse_pos(cli, "seed", optarg, 1);
			break;
		case OPT_VMCOST:
			vm_cost_s = parse_pos(cli, "vm-cost", optarg, 1);
			break;
		case OPT_RUN_TIME:
			run_time = emp_iter_cli_run_time(cli, optarg);
			break;
		default:
			emp_cli_common(cli, opt, optarg);
		}
	}
	if (nvar > 1) /* operands after --measured DIR are more measured DIRs */
		for (int i = optind; i < argc; i++)
			var[nvar++].dir = argv[i];
	else if (optind < argc)
		emp_cli_usage_error(cli, "'%s': a DIR operand needs --measured before it", argv[optind]);
	if (!var[0].dir)
		emp_cli_usage_error(cli, "--pure DIR is required");
	if (nvar < 2)
		emp_cli_usage_error(cli, "--measured DIR is required");
	if (warmup_d != floor(warmup_d) || boot_d != floor(boot_d) || boot_d > 1e7 || seed_d != floor(seed_d))
		emp_cli_usage_error(cli, "--warmup, --bootstrap and --seed take whole numbers (bootstrap <= 1e7)");
	*a = (struct args){ .var = var, .nvar = nvar, .calls = calls, .level = level, .vm_cost_s = vm_cost_s,
			    .run_time = run_time, .warmup = (unsigned long)warmup_d, .boot = (unsigned)boot_d,
			    .seed = (uint64_t)seed_d };
}

/* The table row of variant @v against the pure runs (@v == @pure: no overhead, the intervals NaN). */
static void add_row(struct emp_table *t, const struct args *a, const struct variant *v, const struct variant *pure)
{
	struct emp_stats_kj kj;
	double grand = emp_stats_mean(v->vm_mean, v->vms);
	double c = (a->vm_cost_s * 1e9 + (double)a->warmup * grand) / grand;
	if (emp_stats_kj_summary(v->vm_n, v->vm_mean, v->vm_var, v->vms, c, &kj))
		emp_die("%s: Kalibera-Jones needs at least one VM", v->dir);
	double *sorted = emp_xmalloc(v->vms * sizeof(double));
	memcpy(sorted, v->vm_mean, v->vms * sizeof(double));
	double median = emp_stats_median(sorted, v->vms);
	free(sorted);
	struct emp_stats_ci diff = { NAN, NAN, NAN }, ratio = { NAN, NAN, NAN };
	if (v != pure && (emp_stats_boot_diff(v->vm_mean, v->vms, pure->vm_mean, pure->vms, a->boot, a->level,
					      a->seed, &diff) ||
			  emp_stats_boot_ratio(v->vm_mean, v->vms, pure->vm_mean, pure->vms, a->boot, a->level,
					       a->seed, &ratio)))
		emp_die("out of memory (bootstrap)");
	emp_table_row(t);
	emp_table_str(t, v->name);
	emp_table_int(t, (int64_t)v->vms);
	emp_table_num(t, kj.iters, 1);
	emp_table_num(t, grand, 1);
	emp_table_num(t, median, 1);
	emp_table_num(t, diff.point, 1);
	emp_table_num(t, diff.lo, 1);
	emp_table_num(t, diff.hi, 1);
	emp_table_num(t, ratio.point, 4);
	emp_table_num(t, ratio.lo, 4);
	emp_table_num(t, ratio.hi, 4);
	if (a->calls > 0) {
		emp_table_num(t, diff.point / a->calls, 2);
		emp_table_num(t, diff.lo / a->calls, 2);
		emp_table_num(t, diff.hi / a->calls, 2);
	}
	emp_table_num(t, sqrt(kj.within_var), 1);
	emp_table_num(t, sqrt(kj.between_var), 1);
	emp_table_num(t, kj.iters_opt, 0);
}

int emp_cmd_overhead(int argc, char **argv)
{
	struct emp_cli cli = { .command = "overhead", .usage = usage };
	struct args a;
	parse_args(&cli, argc, argv, &a);
	for (size_t i = 0; i < a.nvar; i++)
		read_variant(&a.var[i], a.warmup, a.run_time);
	name_variants(a.var, a.nvar);

	static const char *const cols[] = { "variant", "vms", "iterations", "mean_ns", "median_ns",
					    "overhead_ns", "overhead_ns_lo", "overhead_ns_hi", "ratio", "ratio_lo",
					    "ratio_hi", "per_call_ns", "per_call_ns_lo", "per_call_ns_hi",
					    "within_sd_ns", "between_sd_ns", "kj_iters" };
	static const char *const cols_nocall[] = { "variant", "vms", "iterations", "mean_ns", "median_ns",
						   "overhead_ns", "overhead_ns_lo", "overhead_ns_hi", "ratio",
						   "ratio_lo", "ratio_hi", "within_sd_ns", "between_sd_ns", "kj_iters" };
	struct emp_table *t = emp_table_new("overhead", "Overhead per iteration (VM means)", a.calls > 0 ? 17 : 14,
					    a.calls > 0 ? cols : cols_nocall);
	const struct variant *pure = &a.var[0];
	for (size_t i = 0; i < a.nvar; i++)
		add_row(t, &a, &a.var[i], pure);
	struct emp_report *r = emp_report_new(cli.format);
	emp_report_note(r, "pure: %s (%zu VMs); warm-up %lu iterations dropped per run; intervals: %.3g percentile "
			   "bootstrap over VM means, %u replicates, seed %" PRIu64 "; Kalibera-Jones VM cost %.3g s",
			pure->dir, pure->vms, a.warmup, a.level, a.boot, a.seed, a.vm_cost_s);
	emp_report_add(r, t);
	emp_report_print(r, stdout);
	emp_report_free(r);
	for (size_t i = 0; i < a.nvar; i++) {
		free((char *)a.var[i].name);
		free(a.var[i].vm_mean);
		free(a.var[i].vm_var);
		free(a.var[i].vm_n);
	}
	free(a.var);
	return EMP_EXIT_OK;
}
