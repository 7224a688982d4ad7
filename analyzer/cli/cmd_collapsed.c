/* SPDX-License-Identifier: MIT */
/* cmd_collapsed.c - emp-analyze collapsed: FlameGraph folded stacks, one line per distinct stack, weighed by
 * samples or, for traces, by traced self time. */
#include <stdio.h>
#include <stdlib.h>

#include "cct.h"
#include "cli.h"
#include "commands.h"
#include "folded.h"
#include "profile.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze collapsed [OPTIONS] FILE...\n"
	"\n"
	"The samples as FlameGraph folded stacks on stdout: `root;caller;leaf count`, one line per distinct stack,\n"
	"in tree order, heaviest first (input for flamegraph.pl, speedscope...).  Frame names are escaped so the format\n"
	"holds: ';' becomes ':', control characters '?'.  The run description (engine, rate, losses) goes to\n"
	"stderr.  Trace dumps (traced calls, no samples): one line per calling context with self time, its count\n"
	"the context's self time in integer ns (the calls' time minus their callees', as `tree` shows it), so the\n"
	"lines of a method add up to its self_ns in `calls`.\n"
	"\n"
	"  --allow-truncated a truncated dump is not an error\n" EMP_PROFILE_USAGE;

struct fold_ctx {
	struct emp_folded_names *names;
	enum emp_cct_weight w;
};

static int fold(struct emp_cct_node *n, void *arg)
{
	struct fold_ctx *c = arg;
	uint64_t self = emp_cct_self(n, c->w);
	if (!self)
		return 0;
	size_t len;
	const char *path = emp_folded_path(c->names, n, EMP_MAX_FRAMES, &len);
	fwrite(path, 1, len, stdout);
	printf(" %llu\n", (unsigned long long)self);
	return 0;
}

int emp_cmd_collapsed(int argc, char **argv)
{
	struct emp_cli cli = { .command = "collapsed", .usage = usage };
	struct emp_profile_opts po = { 0 };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS, EMP_PROFILE_OPTS, { 0, 0, 0, 0 } };
	int opt;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1)
		if (!emp_cli_common(&cli, opt, optarg))
			emp_cli_profile(&cli, &po, opt, optarg);
	if (cli.format != EMP_FMT_TEXT)
		emp_cli_usage_error(&cli, "folded stacks have one format; --format does not apply");
	emp_cli_need_files(&cli, argc, argv);

	struct emp_report *rep = emp_report_new(EMP_FMT_TEXT);
	struct emp_profile p;
	emp_profile_load(&p, &po, &cli.in, argv + optind, argc - optind);
	emp_report_notes(rep, &p.notes);
	struct fold_ctx c = { emp_folded_names_new(p.st, po.with_desc), emp_profile_weight(&p) };
	emp_cct_walk(p.cct, emp_cct_cmp(c.w), fold, &c);
	fflush(stdout);
	emp_report_print(rep, stderr);
	emp_report_free(rep);
	emp_folded_names_free(c.names);
	emp_profile_free(&p);
	return cli.in.exit_code;
}
