/* SPDX-License-Identifier: MIT */
/* cli.h - what every emp-analyze command shares: --format, --help, --allow-truncated, opening dumps and turning
 * their status into one-line messages and the exit status. */
#ifndef EMP_CLI_H
#define EMP_CLI_H

#include <getopt.h>

#include "dump_reader.h"
#include "input.h"
#include "output.h"

struct emp_cli {
	const char *command;
	const char *usage;       /* the command's --help text */
	enum emp_format format;
	struct emp_input in;     /* --allow-truncated, and the worst status of the dumps read so far */
};

/* The command's argv (set by main() before dispatch), for naming a bad option in usage errors. */
extern char **emp_cli_argv;

/* Long options every command accepts; a command appends its own after these (see EMP_CLI_COMMON_OPTS). */
/* --wide: text tables print every name whole instead of fitting the terminal (main() sets that width). */
/* --jobs=N: threads decompressing and decoding each dump's chunks ahead (emp_dump_reader_set_jobs). */
enum { EMP_OPT_FORMAT = 1000, EMP_OPT_HELP, EMP_OPT_ALLOW_TRUNCATED, EMP_OPT_WIDE, EMP_OPT_JOBS, EMP_OPT_FIRST_FREE };
#define EMP_CLI_COMMON_OPTS                                                                                    \
	{ "format", required_argument, NULL, EMP_OPT_FORMAT },                                                 \
	{ "help", no_argument, NULL, EMP_OPT_HELP },                                                           \
	{ "allow-truncated", no_argument, NULL, EMP_OPT_ALLOW_TRUNCATED },                                     \
	{ "wide", no_argument, NULL, EMP_OPT_WIDE },                                                           \
	{ "jobs", required_argument, NULL, EMP_OPT_JOBS }

/* emp_cli_common - handle a common option @opt (from getopt_long) or an error ('?' / ':').  Exits for --help
 * (status 0) and for usage errors (status 2).  Return: 1 when @opt was common, 0 when it is the command's own. */
int emp_cli_common(struct emp_cli *c, int opt, const char *arg);
struct emp_profile_opts;
/* emp_cli_profile - handle @opt when it is one of profile.h's EMP_PROFILE_OPTS; a usage error (exit 2) for a bad
 * value.  Return: 1 when handled, 0 when it is not one of them. */
int emp_cli_profile(struct emp_cli *c, struct emp_profile_opts *po, int opt, const char *arg);
/* emp_cli_max_contexts - @arg as the value of --max-contexts (profile.h); a usage error (exit 2) when it is not. */
uint32_t emp_cli_max_contexts(struct emp_cli *c, const char *arg);
/* Usage error: one line naming the problem and a hint, exit 2. */
__attribute__((noreturn, format(printf, 2, 3))) void emp_cli_usage_error(struct emp_cli *c, const char *fmt, ...);
/* emp_cli_number - the value of option --@opt, a number in [@lo, @hi]; a usage error (exit 2) otherwise. */
double emp_cli_number(struct emp_cli *c, const char *opt, const char *arg, double lo, double hi);
/* Require at least one FILE operand. */
void emp_cli_need_files(struct emp_cli *c, int argc, char **argv);

#endif /* EMP_CLI_H */
