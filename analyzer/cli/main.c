/* SPDX-License-Identifier: MIT */
/* main.c - emp-analyze: dispatch to the commands of commands.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "util.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "info", emp_cmd_info, "header, threads, event counts, loss counters and completeness of dumps" },
	{ "tree", emp_cmd_tree, "calling-context tree with inclusive and self figures" },
	{ "top", emp_cmd_top, "flat profile: self and total samples per method" },
	{ "collapsed", emp_cmd_collapsed, "FlameGraph folded stacks (root;...;leaf count)" },
	{ "flame", emp_cmd_flame, "interactive flame graph as one self-contained SVG file" },
	{ "calls", emp_cmd_calls, "traced calls per method: count, total/self time, mean, p50, p99, max; trace validation" },
	{ "export", emp_cmd_export, "traces as a Kieker file-system log (--kieker DIR) or Chrome trace JSON (--chrome OUT)" },
	{ "compare", emp_cmd_compare, "per call-tree node: slower/faster/unchanged between two sets of VM runs" },
	{ "exactness", emp_cmd_exactness, "F1 of change detection over VM and iteration counts (resampling), heatmap" },
	{ "receive", emp_cmd_receive, "receive a dump streamed by writer=tcp:HOST:PORT and store it" },
	{ "report", emp_cmd_report, "one HTML page for an emp-run experiment: compare tables, overhead, the EMP picture" },
	{ "latency", emp_cmd_latency, "emp-load request logs: corrected vs uncorrected percentiles, GC pauses of a dump, SVG" },
	{ "overhead", emp_cmd_overhead, "agent overhead per iteration and per call from timing files of pure and measured runs" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: emp-analyze COMMAND [OPTIONS] FILE...\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nEvery command takes --format=text|csv|json and --help.  Text tables on a terminal fit its width\n"
		     "(long names elided in the middle: head...tail); --wide prints them whole.  --jobs=N|all: threads\n"
		     "that fold a trace dump's chunks on every core, or decompress and decode a sample dump's ahead of\n"
		     "the command (default all: one per online CPU; 1: the command's own thread); the output is the same.\n"
		     "Exit status: 0 ok, 1 unreadable or corrupt input, 2 bad command line, 3 an input dump was\n"
		     "truncated (the report covers what it holds; --allow-truncated makes that 0).\n");
}

/* The width text tables fit: the terminal's when stdout is one (its size, else $COLUMNS), 0 (no limit)
 * otherwise, so what goes to a file or a pipe is whole. */
static unsigned terminal_width(void)
{
	if (!isatty(STDOUT_FILENO))
		return 0;
	struct winsize ws;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	long n = c ? strtol(c, NULL, 10) : 0;
	return n > 0 && n < 100000 ? (unsigned)n : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EMP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EMP_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("emp-analyze %s\n", EMP_VERSION);
		return EMP_EXIT_OK;
	}
	opterr = 0; /* cli.c prints one line of its own for a bad option */
	emp_output_set_text_width(terminal_width());
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			emp_cli_argv = argv + 1;
			return commands[i].run(argc - 1, argv + 1);
		}
	}
	emp_errorf("unknown command '%s' (see emp-analyze --help)", argv[1]);
	return EMP_EXIT_USAGE;
}
