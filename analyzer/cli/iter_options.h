/* SPDX-License-Identifier: MIT */
/* iter_options.h - the command-line options `compare` and `exactness` share: the two VM sets, how they are read
 * (iterations.h) and how they are tested (stats.h). */
#ifndef EMP_ITER_OPTIONS_H
#define EMP_ITER_OPTIONS_H

#include <stdint.h>

#include "cli.h"
#include "iterations.h"
#include "stats.h"

/* A command lists EMP_ITER_CLI_OPTS after EMP_CLI_COMMON_OPTS, numbers its own options from
 * EMP_ITER_OPT_FIRST_FREE, and offers every option to emp_iter_cli_option() first. */
enum {
	EMP_ITER_OPT_BASE = EMP_OPT_FIRST_FREE,
	EMP_ITER_OPT_NEW,
	EMP_ITER_OPT_WARMUP,
	EMP_ITER_OPT_TEST,
	EMP_ITER_OPT_ALPHA,
	EMP_ITER_OPT_SAMPLE_NS,
	EMP_ITER_OPT_RESAMPLES,
	EMP_ITER_OPT_SEED,
	EMP_ITER_OPT_ITER_NAME,
	EMP_ITER_OPT_RUN_TIME,
	EMP_ITER_OPT_METRIC,
	EMP_ITER_OPT_DROP_DISTURBED,
	EMP_ITER_OPT_MAX_CONTEXTS,
	EMP_ITER_OPT_FIRST_FREE
};
#define EMP_ITER_CLI_OPTS                                                                                      \
	{ "base", required_argument, NULL, EMP_ITER_OPT_BASE },                                                \
	{ "new", required_argument, NULL, EMP_ITER_OPT_NEW },                                                  \
	{ "warmup", required_argument, NULL, EMP_ITER_OPT_WARMUP },                                            \
	{ "test", required_argument, NULL, EMP_ITER_OPT_TEST },                                                \
	{ "alpha", required_argument, NULL, EMP_ITER_OPT_ALPHA },                                              \
	{ "sample-ns", no_argument, NULL, EMP_ITER_OPT_SAMPLE_NS },                                            \
	{ "resamples", required_argument, NULL, EMP_ITER_OPT_RESAMPLES },                                      \
	{ "seed", required_argument, NULL, EMP_ITER_OPT_SEED },                                                \
	{ "iteration-name", required_argument, NULL, EMP_ITER_OPT_ITER_NAME },                                 \
	{ "run-time", required_argument, NULL, EMP_ITER_OPT_RUN_TIME },                                        \
	{ "metric", required_argument, NULL, EMP_ITER_OPT_METRIC },                                            \
	{ "drop-disturbed", optional_argument, NULL, EMP_ITER_OPT_DROP_DISTURBED },                            \
	{ "max-contexts", required_argument, NULL, EMP_ITER_OPT_MAX_CONTEXTS }

struct emp_iter_cli {
	const char *dir[2];          /* --base, --new */
	struct emp_iter_opts io;     /* --warmup, --sample-ns, --iteration-name, --run-time, --metric, --drop-disturbed,
				      * --max-contexts (EMP_PROFILE_MAX_CONTEXTS) */
	enum emp_stats_test test;    /* --test (mwu) */
	double alpha;                /* --alpha (0.01) */
	unsigned resamples;          /* --resamples (1000) */
	uint64_t seed;               /* --seed (1) */
};

/* emp_iter_cli_init - the defaults above. */
void emp_iter_cli_init(struct emp_iter_cli *c);
/* emp_iter_cli_option - take @opt (from getopt_long) when it is one of EMP_ITER_CLI_OPTS; a bad value is a usage
 * error (exit 2).  Return: 1 when taken, 0 when it is the command's own. */
int emp_iter_cli_option(struct emp_cli *cli, struct emp_iter_cli *c, int opt, const char *arg);
/* emp_iter_cli_run_time - parse the value of --run-time (cpu or elapsed; a usage error otherwise). */
enum emp_timings_run_time emp_iter_cli_run_time(struct emp_cli *cli, const char *arg);
/* emp_iter_cli_done - after the options: no operand may follow, and both sets are required (usage errors). */
/* The usage lines of --metric and --drop-disturbed, shared by compare and exactness. */
#define EMP_ITER_CLI_DUMP_USAGE                                                                                \
	"  --metric=M        dumps: the iteration method's own value is its wall time (wall, default) or its\n"    \
	"                    thread CPU time in ns (cpu; dumps of format 1.2 recorded with iteration=)\n"          \
	"  --drop-disturbed[=F]  dumps: drop the measurement iterations whose wall time exceeds F times their CPU\n" \
	"                    time (default F 1.1), counted in a note\n"                                            \
	"  --max-contexts=N  dumps: keep at most N calling contexts over all VMs (default 1000000; 0 = no limit):\n" \
	"                    as the tree fills, the values of its lightest contexts go to a \"[more contexts]\"\n"  \
	"                    node under their deepest kept caller (a note says how much they hold)\n"

/* emp_iter_cli_load - read --base (group 0) and --new (group 1) into @s (iterations.h emp_iter_load_dir, then
 * emp_iter_settle), with progress lines on stderr when it is a terminal; @nv: the VMs of each.  Return: 0, or -1
 * after printing one line. */
int emp_iter_cli_load(struct emp_cli *cli, struct emp_iter_set *s, const struct emp_iter_cli *c, int nv[2]);

struct emp_report;
/* emp_iter_cli_notes - the notes on --metric, --drop-disturbed (none at their defaults) and on the contexts
 * --max-contexts folded into "[more contexts]" (none when it folded none). */
void emp_iter_cli_notes(struct emp_report *rep, const struct emp_iter_set *s, const struct emp_iter_cli *c);

void emp_iter_cli_done(struct emp_cli *cli, const struct emp_iter_cli *c, int argc, char **argv);

#endif /* EMP_ITER_OPTIONS_H */
