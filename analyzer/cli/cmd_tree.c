/* SPDX-License-Identifier: MIT */
/* cmd_tree.c - emp-analyze tree: the calling-context tree with inclusive and self figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cct.h"
#include "cli.h"
#include "commands.h"
#include "folded.h"
#include "profile.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze tree [OPTIONS] FILE...\n"
	"\n"
	"The calling-context tree of the samples in the dumps (several dumps add up, frames merged by name): per\n"
	"call path its inclusive (total) and self sample counts and their share of all samples, children sorted by\n"
	"total; with trace events (mode=trace) also calls and inclusive/self time, children sorted by time (a\n"
	"trace dump, without samples: calls, total and self time with their share of the traced time, the root\n"
	"calls' time summed over threads).  Text output indents by depth; csv and json have a `path` column (frames\n"
	"joined by ';', escaped as in `collapsed`) and times in integer ns.\n"
	"\n"
	"  --min-pct=P       leave out paths with less than P % of all samples and less than P % of the traced\n"
	"                    time (default 0.1)\n"
	"  --format=F        text (default), csv or json\n"
	"  --allow-truncated a truncated dump is not an error\n" EMP_PROFILE_USAGE;

struct tree_ctx {
	const struct emp_profile *p;
	const struct emp_profile_opts *po;
	struct emp_table *t;
	enum emp_format fmt;
	double min_samples;
	double min_ns;
	uint64_t all;
	uint64_t all_ns;        /* the traced time (the root calls') */
	int traced;             /* the tree holds traced calls */
	struct emp_folded_names *names; /* the path column's */
};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static int visit(struct emp_cct_node *n, void *arg)
{
	struct tree_ctx *c = arg;
	/* kept when it reaches --min-pct of the samples or of the traced time (a profile without samples: of the
	 * traced time only) */
	int keep = (c->all && (double)n->total_samples >= c->min_samples) ||
		   (c->traced && (double)n->total_ns >= c->min_ns);
	if (!keep)
		return 1;
	const char *name = emp_profile_name(c->p, c->po, n->gid);
	emp_table_row(c->t);
	if (c->fmt == EMP_FMT_TEXT) {
		char *ind = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&ind, &len);
		if (!m)
			emp_die("out of memory");
		fprintf(m, "%*s%s", (int)(2 * (n->depth - 1)), "", name);
		fclose(m);
		if (!c->all) { /* traced calls only: their time and its share */
			emp_table_int(c->t, (int64_t)n->calls);
			emp_table_num(c->t, (double)n->total_ns / 1e6, 3);
			emp_table_num(c->t, pct(n->total_ns, c->all_ns), 2);
			emp_table_num(c->t, (double)n->self_ns / 1e6, 3);
			emp_table_num(c->t, pct(n->self_ns, c->all_ns), 2);
		} else {
			emp_table_int(c->t, (int64_t)n->total_samples);
			emp_table_num(c->t, pct(n->total_samples, c->all), 2);
			emp_table_int(c->t, (int64_t)n->self_samples);
			emp_table_num(c->t, pct(n->self_samples, c->all), 2);
		}
		if (c->traced && c->all) {
			emp_table_int(c->t, (int64_t)n->calls);
			emp_table_num(c->t, (double)n->total_ns / 1e6, 3);
			emp_table_num(c->t, (double)n->self_ns / 1e6, 3);
		}
		emp_table_str(c->t, ind);
		free(ind);
		return 0;
	}
	size_t len;
	const char *path = emp_folded_path(c->names, n, EMP_MAX_FRAMES, &len);
	emp_table_str(c->t, path);
	emp_table_int(c->t, n->depth);
	emp_table_str(c->t, name);
	emp_table_int(c->t, (int64_t)n->total_samples);
	emp_table_num(c->t, pct(n->total_samples, c->all), 4);
	emp_table_int(c->t, (int64_t)n->self_samples);
	emp_table_num(c->t, pct(n->self_samples, c->all), 4);
	if (c->traced) {
		emp_table_int(c->t, (int64_t)n->calls);
		emp_table_int(c->t, (int64_t)n->total_ns);
		emp_table_int(c->t, (int64_t)n->self_ns);
	}
	return 0;
}

int emp_cmd_tree(int argc, char **argv)
{
	struct emp_cli cli = { .command = "tree", .usage = usage };
	struct emp_profile_opts po = { 0 };
	enum { OPT_MIN_PCT = EMP_OPT_FIRST_FREE };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS, EMP_PROFILE_OPTS,
					      { "min-pct", required_argument, NULL, OPT_MIN_PCT }, { 0, 0, 0, 0 } };
	double min_pct = 0.1;
	int opt;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (emp_cli_common(&cli, opt, optarg) || emp_cli_profile(&cli, &po, opt, optarg))
			continue;
		if (opt == OPT_MIN_PCT) {
			char *end;
			min_pct = strtod(optarg, &end);
			if (*end || end == optarg || !(min_pct >= 0 && min_pct <= 100))
				emp_cli_usage_error(&cli, "--min-pct=%s: expected a percentage from 0 to 100", optarg);
		}
	}
	emp_cli_need_files(&cli, argc, argv);

	struct emp_report *rep = emp_report_new(cli.format);
	struct emp_profile p;
	emp_profile_load(&p, &po, &cli.in, argv + optind, argc - optind);
	emp_report_notes(rep, &p.notes);

	struct tree_ctx c = { .p = &p, .po = &po, .fmt = cli.format, .all = emp_cct_root(p.cct)->total_samples };
	c.min_samples = min_pct / 100.0 * (double)c.all;
	for (const struct emp_cct_node *ch = emp_cct_root(p.cct)->first_child; ch; ch = ch->next_sibling)
		c.traced |= ch->calls != 0;
	c.all_ns = emp_cct_root(p.cct)->total_ns;
	c.min_ns = min_pct / 100.0 * (double)c.all_ns;
	static const char *const text_cols[] = { "total", "total%", "self", "self%", "calls", "total_ms", "self_ms",
						 "method" };
	static const char *const text_cols_samples[] = { "total", "total%", "self", "self%", "method" };
	static const char *const text_cols_time[] = { "calls", "total_ms", "total%", "self_ms", "self%", "method" };
	static const char *const cols[] = { "path", "depth", "method", "total_samples", "total_pct", "self_samples",
					    "self_pct", "calls", "total_ns", "self_ns" };
	if (cli.format == EMP_FMT_TEXT && c.traced && !c.all)
		c.t = emp_table_new("tree", "Calling-context tree (traced time)", 6, text_cols_time);
	else if (cli.format == EMP_FMT_TEXT)
		c.t = c.traced ? emp_table_new("tree", "Calling-context tree", 8, text_cols)
			       : emp_table_new("tree", "Calling-context tree", 5, text_cols_samples);
	else
		c.t = emp_table_new("tree", "Calling-context tree", c.traced ? 10 : 7, cols);
	c.names = emp_folded_names_new(p.st, po.with_desc);
	if (min_pct > 0 && c.traced && !c.all)
		emp_report_note(rep, "paths under %.2f %% of the traced time (%.3f ms) are left out (--min-pct)", min_pct,
				(double)c.all_ns / 1e6);
	else if (min_pct > 0)
		emp_report_note(rep, "paths under %.2f %% of %llu samples%s are left out (--min-pct)", min_pct,
				(unsigned long long)c.all, c.traced ? " and of the traced time" : "");
	emp_report_stream(rep, c.t, stdout); /* csv, json: rows out as they come, a path each (the tree's size) */
	emp_cct_walk(p.cct, c.traced ? emp_cct_cmp_time : emp_cct_cmp_samples, visit, &c);
	emp_report_add(rep, c.t);
	emp_report_print(rep, stdout);
	emp_report_free(rep);
	emp_folded_names_free(c.names);
	emp_profile_free(&p);
	return cli.in.exit_code;
}
