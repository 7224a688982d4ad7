/* SPDX-License-Identifier: MIT */
/* cli.c - shared command-line handling of emp-analyze; see cli.h. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

char **emp_cli_argv;

void emp_cli_usage_error(struct emp_cli *c, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "emp-analyze %s: ", c->command);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see emp-analyze %s --help)\n", c->command);
	exit(EMP_EXIT_USAGE);
}

__attribute__((noreturn)) static void bad_max_contexts(struct emp_cli *c, const char *arg)
{
	emp_cli_usage_error(c, "--max-contexts=%s: expected a count of calling contexts up to 2147483648 (0: no limit)",
			    arg);
}

int emp_cli_profile(struct emp_cli *c, struct emp_profile_opts *po, int opt, const char *arg)
{
	int rc = emp_profile_opt(po, opt, arg);
	if (rc < 0)
		bad_max_contexts(c, arg);
	return rc;
}

uint32_t emp_cli_max_contexts(struct emp_cli *c, const char *arg)
{
	uint32_t max;
	if (emp_profile_parse_max_contexts(arg, &max))
		bad_max_contexts(c, arg);
	return max;
}

int emp_cli_common(struct emp_cli *c, int opt, const char *arg)
{
	switch (opt) {
	case EMP_OPT_FORMAT:
		if (emp_format_parse(arg, &c->format))
			emp_cli_usage_error(c, "--format=%s: expected text, csv or json", arg);
		return 1;
	case EMP_OPT_HELP:
		fputs(c->usage, stdout);
		exit(EMP_EXIT_OK);
	case EMP_OPT_ALLOW_TRUNCATED:
		c->in.allow_truncated = 1;
		return 1;
	case EMP_OPT_WIDE:
		emp_output_set_text_width(0);
		return 1;
	case EMP_OPT_JOBS:
		c->in.jobs = !strcmp(arg, "all") ? EMP_INPUT_JOBS_ALL : (unsigned)emp_cli_number(c, "jobs", arg, 1, 256);
		return 1;
	case '?':
	case ':': {
		/* main() turned getopt's own messages off (opterr = 0) so that this is the one line printed.  The
		 * offending word is argv[optind - 1] for long options, optopt for short ones. */
		const char *word = optind > 0 && emp_cli_argv ? emp_cli_argv[optind - 1] : "?";
		char shortopt[3] = { '-', (char)optopt, 0 };
		if (optopt > 0 && optopt < 256)
			word = shortopt;
		/* optopt == 0: a long option nobody knows; otherwise getopt cannot tell us whether the option is unknown
		 * or lacks its value. */
		if (!optopt)
			emp_cli_usage_error(c, "unknown option '%s'", word);
		emp_cli_usage_error(c, "option '%s' is unknown or needs a value", word);
	}
	default:
		return 0;
	}
}

double emp_cli_number(struct emp_cli *c, const char *opt, const char *arg, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= lo && v <= hi))
		emp_cli_usage_error(c, "--%s=%s: expected a number from %g to %g", opt, arg, lo, hi);
	return v;
}

void emp_cli_need_files(struct emp_cli *c, int argc, char **argv)
{
	(void)argv;
	if (optind >= argc)
		emp_cli_usage_error(c, "no dump file given");
}
