/* SPDX-License-Identifier: MIT */
/* iter_options.c - see iter_options.h. */
#include "iter_options.h"

#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "profile.h"

void emp_iter_cli_init(struct emp_iter_cli *c)
{
	*c = (struct emp_iter_cli){ .test = EMP_STATS_MWU, .alpha = 0.01, .resamples = 1000, .seed = 1,
				    .io.max_contexts = EMP_PROFILE_MAX_CONTEXTS };
}

enum emp_timings_run_time emp_iter_cli_run_time(struct emp_cli *cli, const char *arg)
{
	if (!strcmp(arg, "cpu"))
		return EMP_TIMINGS_RUN_CPU;
	if (strcmp(arg, "elapsed"))
		emp_cli_usage_error(cli, "--run-time=%s: expected cpu or elapsed", arg);
	return EMP_TIMINGS_RUN_ELAPSED;
}

int emp_iter_cli_option(struct emp_cli *cli, struct emp_iter_cli *c, int opt, const char *arg)
{
	switch (opt) {
	case EMP_ITER_OPT_BASE:
		c->dir[0] = arg;
		return 1;
	case EMP_ITER_OPT_NEW:
		c->dir[1] = arg;
		return 1;
	case EMP_ITER_OPT_WARMUP:
		c->io.warmup = (unsigned)emp_cli_number(cli, "warmup", arg, 0, 1e9);
		return 1;
	case EMP_ITER_OPT_TEST:
		if (emp_stats_test_parse(arg, &c->test))
			emp_cli_usage_error(cli, "--test=%s: expected mwu, mwu-commons or welch", arg);
		return 1;
	case EMP_ITER_OPT_ALPHA:
		c->alpha = emp_cli_number(cli, "alpha", arg, 1e-12, 0.5);
		return 1;
	case EMP_ITER_OPT_SAMPLE_NS:
		c->io.sample_ns = 1;
		return 1;
	case EMP_ITER_OPT_RESAMPLES:
		c->resamples = (unsigned)emp_cli_number(cli, "resamples", arg, 1, 1e7);
		return 1;
	case EMP_ITER_OPT_SEED:
		c->seed = (uint64_t)emp_cli_number(cli, "seed", arg, 0, 1.8e19);
		return 1;
	case EMP_ITER_OPT_ITER_NAME:
		if (!*arg)
			emp_cli_usage_error(cli, "--iteration-name: expected a name");
		c->io.iteration_name = arg;
		return 1;
	case EMP_ITER_OPT_RUN_TIME:
		c->io.run_time = emp_iter_cli_run_time(cli, arg);
		return 1;
	case EMP_ITER_OPT_METRIC:
		if (!strcmp(arg, "cpu"))
			c->io.metric = EMP_ITER_METRIC_CPU;
		else if (!strcmp(arg, "wall"))
			c->io.metric = EMP_ITER_METRIC_WALL;
		else
			emp_cli_usage_error(cli, "--metric=%s: expected wall or cpu", arg);
		return 1;
	case EMP_ITER_OPT_DROP_DISTURBED:
		c->io.drop_disturbed = arg ? emp_cli_number(cli, "drop-disturbed", arg, 1, 1e9) : EMP_ITER_DISTURBED_FACTOR;
		return 1;
	case EMP_ITER_OPT_MAX_CONTEXTS:
		c->io.max_contexts = emp_cli_max_contexts(cli, arg);
		return 1;
	default:
		return 0;
	}
}

int emp_iter_cli_load(struct emp_cli *cli, struct emp_iter_set *s, const struct emp_iter_cli *c, int nv[2])
{
	s->o.progress = isatty(STDERR_FILENO); /* for a person watching, not for a log */
	for (unsigned g = 0; g < 2; g++)
		if ((nv[g] = emp_iter_load_dir(s, &cli->in, g, c->dir[g])) < 0)
			return -1;
	return emp_iter_settle(s, &cli->in);
}

void emp_iter_cli_notes(struct emp_report *rep, const struct emp_iter_set *s, const struct emp_iter_cli *c)
{
	double share[2];
	uint32_t nmore = emp_iter_more_share(s, share);
	if (nmore)
		emp_report_note(rep, "--max-contexts %u: %u \"[more contexts]\" nodes hold %.1f %% (base) and %.1f %% (new) "
				"of the iteration method's value", (unsigned)c->io.max_contexts, (unsigned)nmore,
				100 * share[0], 100 * share[1]);
	if (c->io.metric == EMP_ITER_METRIC_CPU)
		emp_report_note(rep, "metric cpu: the iteration method's value is its thread CPU time in ns");
	if (c->io.drop_disturbed > 0)
		emp_report_note(rep, "%llu measurement iterations dropped as disturbed (wall time above %g times the CPU time)",
				(unsigned long long)s->dropped_disturbed, c->io.drop_disturbed);
}

void emp_iter_cli_done(struct emp_cli *cli, const struct emp_iter_cli *c, int argc, char **argv)
{
	if (optind < argc)
		emp_cli_usage_error(cli, "unexpected argument '%s'", argv[optind]);
	if (!c->dir[0] || !c->dir[1])
		emp_cli_usage_error(cli, "--base=DIR and --new=DIR are both required");
	if ((c->io.metric == EMP_ITER_METRIC_CPU || c->io.drop_disturbed > 0) && c->io.iteration_name)
		emp_cli_usage_error(cli, "--metric=cpu and --drop-disturbed need dumps; --iteration-name is for timing files");
}
