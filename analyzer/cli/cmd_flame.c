/* SPDX-License-Identifier: MIT */
/* cmd_flame.c - emp-analyze flame: the samples, or the traced time, as a self-contained interactive flame graph
 * (SVG). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cct.h"
#include "cli.h"
#include "commands.h"
#include "flame.h"
#include "profile.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze flame [OPTIONS] FILE... -o OUT.svg\n"
	"\n"
	"A flame graph of the samples in the dumps: one self-contained SVG file (no network needed to view it)\n"
	"with tooltips, click-to-zoom and search (Ctrl-F).  Root at the bottom, frame width = inclusive samples;\n"
	"Java frames green, native frames orange, sampling failures ([unknown_Java] ...) grey.  The run\n"
	"description (engine, rate, losses) goes to stderr.  Trace dumps (traced calls, no samples): frame width =\n"
	"inclusive traced time (the calls' ns on that calling context), tooltips in ns.\n"
	"\n"
	"  -o, --output=OUT  the SVG file to write (\"-\" for stdout); required\n"
	"  --title=TEXT      title line (default: \"Flame graph\")\n"
	"  --width=PX        width in pixels (default 1200)\n"
	"  --allow-truncated a truncated dump is not an error\n" EMP_PROFILE_USAGE;

int emp_cmd_flame(int argc, char **argv)
{
	struct emp_cli cli = { .command = "flame", .usage = usage };
	struct emp_profile_opts po = { 0 };
	enum { OPT_TITLE = EMP_OPT_FIRST_FREE, OPT_WIDTH };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS,
					      EMP_PROFILE_OPTS,
					      { "output", required_argument, NULL, 'o' },
					      { "title", required_argument, NULL, OPT_TITLE },
					      { "width", required_argument, NULL, OPT_WIDTH },
					      { 0, 0, 0, 0 } };
	const char *outpath = NULL;
	struct emp_flame_opts fo = { .title = "Flame graph" };
	int opt;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (emp_cli_common(&cli, opt, optarg) || emp_cli_profile(&cli, &po, opt, optarg))
			continue;
		char *end;
		switch (opt) {
		case 'o':
			outpath = optarg;
			break;
		case OPT_TITLE:
			fo.title = optarg;
			break;
		case OPT_WIDTH: {
			long w = strtol(optarg, &end, 10);
			if (*end || end == optarg || w < 200 || w > 100000)
				emp_cli_usage_error(&cli, "--width=%s: expected pixels from 200 to 100000", optarg);
			fo.width = (unsigned)w;
			break;
		}
		default:
			break;
		}
	}
	if (cli.format != EMP_FMT_TEXT)
		emp_cli_usage_error(&cli, "a flame graph is SVG; --format does not apply");
	if (!outpath)
		emp_cli_usage_error(&cli, "no output file given (-o OUT.svg)");
	emp_cli_need_files(&cli, argc, argv);

	struct emp_report *rep = emp_report_new(EMP_FMT_TEXT);
	struct emp_profile p;
	emp_profile_load(&p, &po, &cli.in, argv + optind, argc - optind);
	emp_report_notes(rep, &p.notes);
	char sub[256];
	int ndumps = argc - optind;
	fo.weight = emp_profile_weight(&p);
	if (fo.weight == EMP_CCT_NS)
		snprintf(sub, sizeof(sub), "traced time %.6f s (the root calls of every thread), %d dump%s",
			 (double)emp_cct_root(p.cct)->total_ns / 1e9, ndumps, ndumps == 1 ? "" : "s");
	else
		snprintf(sub, sizeof(sub), "%llu samples, %s, interval %.3f ms, %d dump%s",
			 (unsigned long long)emp_cct_root(p.cct)->total_samples, *p.engine ? p.engine : "engine unknown",
			 (double)p.interval_ns / 1e6, ndumps, ndumps == 1 ? "" : "s");
	fo.subtitle = sub;
	fo.with_desc = po.with_desc;

	FILE *out = strcmp(outpath, "-") ? fopen(outpath, "w") : stdout;
	if (!out) {
		emp_errorf("cannot write %s: %s", outpath, strerror(errno));
		cli.in.exit_code = EMP_EXIT_ERROR;
	} else {
		int rc = emp_flame_write(out, p.cct, p.st, &fo);
		if ((out != stdout && fclose(out)) || rc) {
			emp_errorf("writing %s failed", outpath);
			cli.in.exit_code = EMP_EXIT_ERROR;
		} else if (out == stdout) {
			fflush(stdout);
		}
	}
	emp_report_print(rep, stderr);
	emp_report_free(rep);
	emp_profile_free(&p);
	return cli.in.exit_code;
}
