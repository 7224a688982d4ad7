/* SPDX-License-Identifier: MIT */
/* cmd_compare.c - emp-analyze compare: per calling-context-tree node, did the new version get slower or faster
 * than the base?  One dump (or java-sut timing file: pure mode, one node) per VM run in each directory; per-VM
 * node values from iterations.h, the verdicts from compare.h (design.md §5): options -> compare -> report. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "compare.h"
#include "diffflame.h"
#include "iter_options.h"
#include "iterations.h"
#include "output.h"
#include "stats.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze compare --base DIR --new DIR [OPTIONS]\n"
	"\n"
	"Each DIR holds one dump (*.emp) per VM run, recorded with the agent option iteration=pkg.Class.method, all of\n"
	"one mode.  Every call of that method is one iteration; per calling-context-tree node (a call path from the\n"
	"iteration method down) its per-VM value is the mean over the measurement iterations of its inclusive time\n"
	"(trace mode, ns) or inclusive sample count (sample mode), 0 in iterations where the node is absent.\n"
	"A dump recorded without iteration= is one iteration, the whole run: its node `run` holds all its samples\n"
	"(or the traced time of its root calls; a call the end of the recording cut, as System.exit does, ends with\n"
	"it), every path starts at a thread's root frame, --warmup does not apply.\n"
	"Pure mode (no agent): each DIR holds instead one java-sut --timings file (*.csv, header iteration,duration_ns)\n"
	"per VM run; the one node is the iteration (named by --iteration-name), its per-VM value the mean duration_ns\n"
	"of the rows after --warmup (java-sut writes no row for its own warm-up iterations).  A DIR holding both *.emp\n"
	"and *.csv, or neither, is an error, and so is a dump set against a timing set.  Per node\n"
	"the base and new VM values are tested (two-sided), the ratio of means new/base gets a 95 % bootstrap interval,\n"
	"and the verdict is slower / faster (p < alpha) or unchanged.  Changed nodes come first, deepest first;\n"
	"root_cause marks a changed node none of whose descendants changed.  The Kalibera-Jones components of each\n"
	"version (variance within VMs, between VMs, suggested iterations per VM) are shown per node.\n"
	"\n"
	"  --base=DIR        dumps or timing files of the base version (required)\n"
	"  --new=DIR         dumps or timing files of the new version (required)\n"
	"  --warmup=N        drop the first N iterations of every VM (default 0)\n"
	"  --iteration-name=NAME  timing files: the name of their one node (default iteration; e.g.\n"
	"                    emp.sut.CallTree.runIteration, the node path the iteration method has in dumps)\n"
	"  --run-time=T      a pure mode's DIR of emp-run (EXP/<mode>/<version>, no files of either kind): a VM's\n"
	"                    value is its run's process time (cpu, default) or elapsed time from EXP/runs.csv\n"
	EMP_ITER_CLI_DUMP_USAGE
	"  --test=T          mwu (default: Mann-Whitney U as scipy's method='auto'), mwu-commons (commons-math3,\n"
	"                    as Peass), welch (Welch's t-test)\n"
	"  --alpha=A         significance level (default 0.01)\n"
	"  --min-pct=P       only nodes whose mean reaches P % of the iteration method's (default 1)\n"
	"  --sample-ns       sample mode: count a sample as the sampling interval in ns instead of 1\n"
	"  --resamples=B     bootstrap replicates of the ratio's interval (default 1000)\n"
	"  --seed=S          bootstrap seed (default 1): the same seed gives the same output\n"
	"  --vm-cost=C       Kalibera-Jones: cost of a new VM in iterations (default: --warmup, at least 1)\n"
	"  --flame=OUT.svg   also write the differential flame graph: the base's tree (frame width = base mean),\n"
	"                    frames red (slower) or blue (faster), deeper the further the ratio is from 1 (full at\n"
	"                    2x), grey unchanged, pale under --min-pct; root causes outlined; tooltip: verdict, ratio,\n"
	"                    its 95 % interval, p, both means; names elided to fit, in full in the tooltip.  Nodes\n"
	"                    the base never reached have no frame (the subtitle counts the changed ones)\n"
	"  --format=F        text (default), csv or json\n"
	"  --allow-truncated a truncated dump is not an error\n"
	"\n"
	"csv/json columns: node,base_mean,new_mean,ratio,ratio_lo,ratio_hi,p_value,verdict,root_cause,depth,method,\n"
	"statistic,base_vms,new_vms,base_within_var,base_between_var,base_iters_opt,new_within_var,new_between_var,\n"
	"new_iters_opt.  node is the call path, frames joined by ';' with the method last; a ';' inside a frame name\n"
	"becomes ':' and control characters '?' (as in `collapsed`).\n";

static void num_or_empty(struct emp_table *t, double v, int decimals)
{
	if (isfinite(v))
		emp_table_num(t, v, decimals);
	else
		emp_table_str(t, isnan(v) ? "" : v > 0 ? "inf" : "-inf");
}

/* The smallest p-value a rank test gives @n0 against @n1 values: the two completely apart, each group's values
 * distinct or all alike (ties take the asymptotic p, which can be the smaller).  1 for the t-test, whose p has no
 * such floor. */
static double smallest_p(enum emp_stats_test test, int n0, int n1)
{
	if (test == EMP_STATS_WELCH || n0 < 1 || n1 < 1)
		return 0;
	double *x = emp_xmalloc((size_t)(n0 + n1) * sizeof(*x)), best = 1;
	for (int tied = 0; tied < 2; tied++) {
		for (int i = 0; i < n0 + n1; i++)
			x[i] = tied ? (i < n0 ? 1 : 2) : i;
		struct emp_stats_result r;
		if (!emp_stats_run(test, x, (size_t)n0, x + n0, (size_t)n1, &r) && r.p < best)
			best = r.p;
	}
	free(x);
	return best;
}

/* A note when the VMs are too few for any verdict: the test cannot reach @alpha, however far apart the versions. */
static void too_few_vms_note(struct emp_report *rep, enum emp_stats_test test, const int nv[2], double alpha)
{
	double p = smallest_p(test, nv[0], nv[1]);
	if (p < alpha)
		return;
	int k = 2;
	while (k < 100 && smallest_p(test, k, k) >= alpha)
		k++;
	emp_report_note(rep, "with %d and %d VMs the %s test gives p >= %.3g even when every value of one version lies "
			     "beyond the other's: no node can be found changed at alpha %g (%d VMs per version can)",
			nv[0], nv[1], emp_stats_test_name(test), p, alpha, k);
}

/* The notes above the tables: mode and unit, the two sets, the test, the counts. */
static void add_notes(struct emp_report *rep, const struct emp_iter_set *s, const struct emp_iter_cli *ic,
		      const int nv[2], const struct emp_compare_opts *o, const struct emp_compare *c)
{
	const char *unit = s->mode == EMP_ITER_MODE_TRACE  ? "ns per iteration (inclusive time)"
			   : s->runs_set                   ? "ns per run (process or elapsed time, emp-run)"
			   : s->mode == EMP_ITER_MODE_PURE ? "ns per iteration (the SUT's own timings)"
			   : ic->io.sample_ns              ? "ns per iteration (samples x interval)"
							   : "samples per iteration (inclusive)";
	emp_report_note(rep, "mode=%s, iterations of %s, values in %s", emp_iter_mode_name(s->mode),
			emp_symtab_name(s->st, s->iter_gid, 0), unit);
	if (s->mode == EMP_ITER_MODE_SAMPLE)
		emp_report_note(rep, "sampling interval %.3f ms", (double)s->interval_ns / 1e6);
	for (unsigned g = 0; g < 2; g++) {
		uint32_t lo = UINT32_MAX, hi = 0;
		for (size_t i = 0; i < s->nvms; i++)
			if (s->vms[i].group == g) {
				lo = s->vms[i].iterations < lo ? s->vms[i].iterations : lo;
				hi = s->vms[i].iterations > hi ? s->vms[i].iterations : hi;
			}
		emp_report_note(rep, "%s: %s, %d VMs, %u-%u measurement iterations each (after --warmup %u)",
				g ? "new " : "base", ic->dir[g], nv[g], lo, hi, ic->io.warmup);
	}
	emp_iter_cli_notes(rep, s, ic);
	emp_report_note(rep, "test %s, alpha %g, ratio = new/base with a 95 %% bootstrap interval (%u resamples, seed %llu)",
			emp_stats_test_name(o->test), o->alpha, o->resamples, (unsigned long long)o->seed);
	emp_report_note(rep, "%zu nodes at or above %g %% of the iteration: %zu changed, %zu root causes", c->nrows,
			o->min_pct, c->nchanged, c->ncause);
	too_few_vms_note(rep, o->test, nv, o->alpha);
}

/* text: the verdict table and the Kalibera-Jones table of the changed nodes and the iteration. */
static void add_text_tables(struct emp_report *rep, const struct emp_compare *c, int dec)
{
	static const char *const cols[] = { "verdict", "cause", "depth", "base_mean", "new_mean", "ratio",
					    "ratio_95ci",  "p",     "node" };
	struct emp_table *t = emp_table_new("compare", "Per node (changed first, deepest first)", 9, cols);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct emp_compare_row *r = &c->rows[i];
		char ci[64];
		if (isfinite(r->ratio.lo) && isfinite(r->ratio.hi))
			snprintf(ci, sizeof(ci), "%.3f-%.3f", r->ratio.lo, r->ratio.hi);
		else /* no interval: the base mean is 0 in every resample (a path only the new version takes) */
			snprintf(ci, sizeof(ci), "-");
		emp_table_row(t);
		emp_table_str(t, emp_compare_verdict_name(r->verdict));
		emp_table_str(t, r->cause ? "*" : "");
		emp_table_int(t, r->n->depth);
		emp_table_num(t, r->base_mean, dec);
		emp_table_num(t, r->new_mean, dec);
		num_or_empty(t, r->ratio.point, 3);
		emp_table_str(t, ci);
		num_or_empty(t, r->res.p, 6);
		emp_table_str(t, r->path);
	}
	emp_report_add(rep, t);
	static const char *const kcols[] = { "version", "vms",     "iterations", "mean",
					     "sd_within", "sd_between", "iters_opt", "node" };
	struct emp_table *k = emp_table_new("kalibera_jones",
					    "Kalibera-Jones: variance within and between VMs, suggested "
					    "iterations per VM (changed nodes and the iteration)",
					    8, kcols);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct emp_compare_row *r = &c->rows[i];
		if (!r->verdict && r->n != c->iteration)
			continue;
		for (unsigned g = 0; g < 2; g++) {
			emp_table_row(k);
			emp_table_str(k, g ? "new" : "base");
			emp_table_int(k, (int64_t)r->kj[g].vms);
			emp_table_num(k, r->kj[g].iters, 1);
			emp_table_num(k, r->kj[g].grand_mean, dec);
			num_or_empty(k, sqrt(r->kj[g].within_var), dec);
			num_or_empty(k, sqrt(r->kj[g].between_var), dec);
			num_or_empty(k, r->kj[g].iters_opt, 0);
			emp_table_str(k, r->path);
		}
	}
	emp_report_add(rep, k);
}

/* csv/json: one table with every figure at full precision. */
static void add_data_table(struct emp_report *rep, const struct emp_iter_set *s, const struct emp_compare *c)
{
	static const char *const cols[] = { "node",           "base_mean",        "new_mean",
					    "ratio",          "ratio_lo",         "ratio_hi",
					    "p_value",        "verdict",          "root_cause",
					    "depth",          "method",           "statistic",
					    "base_vms",       "new_vms",          "base_within_var",
					    "base_between_var", "base_iters_opt", "new_within_var",
					    "new_between_var", "new_iters_opt" };
	struct emp_table *t = emp_table_new("compare", "Per node", 20, cols);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct emp_compare_row *r = &c->rows[i];
		emp_table_row(t);
		emp_table_str(t, r->path);
		emp_table_num(t, r->base_mean, 6);
		emp_table_num(t, r->new_mean, 6);
		num_or_empty(t, r->ratio.point, 6);
		num_or_empty(t, r->ratio.lo, 6);
		num_or_empty(t, r->ratio.hi, 6);
		num_or_empty(t, r->res.p, 9);
		emp_table_str(t, emp_compare_verdict_name(r->verdict));
		emp_table_int(t, r->cause);
		emp_table_int(t, r->n->depth);
		emp_table_str(t, emp_symtab_name(s->st, r->n->gid, 0));
		num_or_empty(t, r->res.statistic, 6);
		emp_table_int(t, (int64_t)r->kj[0].vms);
		emp_table_int(t, (int64_t)r->kj[1].vms);
		for (unsigned g = 0; g < 2; g++) {
			num_or_empty(t, r->kj[g].within_var, 6);
			num_or_empty(t, r->kj[g].between_var, 6);
			num_or_empty(t, r->kj[g].iters_opt, 0);
		}
	}
	emp_report_add(rep, t);
}

/* --flame: the differential flame graph to @path. */
static void write_flame(struct emp_cli *cli, const char *path, const struct emp_iter_set *s,
			const struct emp_compare *c, const struct emp_compare_opts *o, int sample_ns)
{
	FILE *out = fopen(path, "w");
	if (!out) {
		emp_errorf("--flame: cannot write %s: %s", path, strerror(errno));
		cli->in.exit_code = EMP_EXIT_ERROR;
		return;
	}
	int rc = emp_diffflame_write(out, s, c, o, s->mode == EMP_ITER_MODE_SAMPLE && !sample_ns ? "samples" : "ns");
	if (fclose(out) || rc) {
		emp_errorf("--flame: writing %s failed", path);
		cli->in.exit_code = EMP_EXIT_ERROR;
	}
}

/* The options: the shared ones into @ic, compare's own into @o. */
static void parse_args(struct emp_cli *cli, int argc, char **argv, struct emp_iter_cli *ic,
		       struct emp_compare_opts *o, const char **flame)
{
	enum { OPT_MIN_PCT = EMP_ITER_OPT_FIRST_FREE, OPT_VM_COST, OPT_FLAME };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS,
					      EMP_ITER_CLI_OPTS,
					      { "min-pct", required_argument, NULL, OPT_MIN_PCT },
					      { "vm-cost", required_argument, NULL, OPT_VM_COST },
					      { "flame", required_argument, NULL, OPT_FLAME },
					      { 0, 0, 0, 0 } };
	emp_iter_cli_init(ic);
	double min_pct = 1, vm_cost = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (emp_cli_common(cli, opt, optarg) || emp_iter_cli_option(cli, ic, opt, optarg))
			continue;
		switch (opt) {
		case OPT_MIN_PCT:
			min_pct = emp_cli_number(cli, "min-pct", optarg, 0, 100);
			break;
		case OPT_VM_COST:
			vm_cost = emp_cli_number(cli, "vm-cost", optarg, 1e-9, 1e12);
			break;
		case OPT_FLAME:
			if (!*optarg)
				emp_cli_usage_error(cli, "--flame: empty file name");
			*flame = optarg;
			break;
		default:
			break;
		}
	}
	emp_iter_cli_done(cli, ic, argc, argv);
	if (vm_cost == 0)
		vm_cost = ic->io.warmup ? ic->io.warmup : 1;
	*o = (struct emp_compare_opts){ .test = ic->test, .alpha = ic->alpha, .resamples = ic->resamples,
					.seed = ic->seed, .min_pct = min_pct, .vm_cost = vm_cost };
}

int emp_cmd_compare(int argc, char **argv)
{
	struct emp_cli cli = { .command = "compare", .usage = usage };
	struct emp_iter_cli ic;
	struct emp_compare_opts o;
	const char *flame = NULL;
	parse_args(&cli, argc, argv, &ic, &o, &flame);

	struct emp_iter_set *s = emp_iter_new(&ic.io);
	int nv[2];
	if (emp_iter_cli_load(&cli, s, &ic, nv)) {
		emp_iter_free(s);
		return EMP_EXIT_ERROR;
	}
	if (o.test == EMP_STATS_WELCH && (nv[0] < 2 || nv[1] < 2)) {
		emp_errorf("--test=welch needs at least 2 VMs per version (%d base, %d new)", nv[0], nv[1]);
		emp_iter_free(s);
		return EMP_EXIT_ERROR;
	}
	struct emp_compare c;
	emp_compare_run(s, &o, &c);

	struct emp_report *rep = emp_report_new(cli.format);
	add_notes(rep, s, &ic, nv, &o, &c);
	if (cli.format == EMP_FMT_TEXT)
		add_text_tables(rep, &c, s->mode == EMP_ITER_MODE_SAMPLE && !ic.io.sample_ns ? 3 : 0);
	else
		add_data_table(rep, s, &c);
	emp_report_print(rep, stdout);
	emp_report_free(rep);
	if (flame)
		write_flame(&cli, flame, s, &c, &o, ic.io.sample_ns);
	emp_compare_free(&c);
	emp_iter_free(s);
	return cli.in.exit_code;
}
