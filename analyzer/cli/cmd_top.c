/* SPDX-License-Identifier: MIT */
/* cmd_top.c - emp-analyze top: the flat profile, per method self and total (inclusive) samples, or for traces
 * self and total traced time. */
#include <stdlib.h>
#include <string.h>

#include "cct.h"
#include "cli.h"
#include "commands.h"
#include "profile.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze top [OPTIONS] FILE...\n"
	"\n"
	"The flat profile of the samples in the dumps (all threads unless --threads; several dumps add up): per\n"
	"method its self samples (the method was the leaf frame) and total samples (the method was anywhere on the\n"
	"stack; a recursive method counts once per sample) with their share of all samples, sorted by self, then\n"
	"total.  Pseudo-frames such as [unknown_Java] stand for samples AsyncGetCallTrace could not walk, so the\n"
	"self column sums to 100 %.  csv: method,self_samples,total_samples,self_pct,total_pct.\n"
	"Trace dumps (traced calls, no samples) are weighed by traced time instead: self_ns (the method's time\n"
	"minus its callees', as in `calls`), total_ns (inclusive; a recursive method counts its outermost calls\n"
	"only) and their share of all traced time (the roots' calls, summed over threads), plus calls.\n"
	"csv: method,self_ns,total_ns,self_pct,total_pct,calls (integer ns).\n"
	"\n"
	"  --limit=N         the first N methods (default 30 in text, all in csv/json; 0 = all)\n"
	"  --format=F        text (default), csv or json\n"
	"  --allow-truncated a truncated dump is not an error\n" EMP_PROFILE_USAGE;

/* A row of the table: a method and its flat figures. */
struct row {
	uint32_t gid;
	struct emp_flat_row f;
};

static const struct emp_profile *sort_p;
static const struct emp_profile_opts *sort_po;

static int cmp_flat(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->f.self != y->f.self)
		return x->f.self > y->f.self ? -1 : 1;
	if (x->f.total != y->f.total)
		return x->f.total > y->f.total ? -1 : 1;
	return strcmp(emp_profile_name(sort_p, sort_po, x->gid), emp_profile_name(sort_p, sort_po, y->gid));
}

int emp_cmd_top(int argc, char **argv)
{
	struct emp_cli cli = { .command = "top", .usage = usage };
	/* no limit on the contexts by default: a method of a path past it would lose its own row to the
	 * "[more contexts]" frame; a trace's calls need no tree (flat.h) */
	struct emp_profile_opts po = { .max_contexts_given = 1, .max_contexts = 0, .flat_traces = 1 };
	enum { OPT_LIMIT = EMP_OPT_FIRST_FREE };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS, EMP_PROFILE_OPTS,
					      { "limit", required_argument, NULL, OPT_LIMIT }, { 0, 0, 0, 0 } };
	long limit = -1;
	int opt;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (emp_cli_common(&cli, opt, optarg) || emp_cli_profile(&cli, &po, opt, optarg))
			continue;
		if (opt == OPT_LIMIT) {
			char *end;
			limit = strtol(optarg, &end, 10);
			if (*end || end == optarg || limit < 0)
				emp_cli_usage_error(&cli, "--limit=%s: expected a number >= 0", optarg);
		}
	}
	emp_cli_need_files(&cli, argc, argv);
	if (limit < 0)
		limit = cli.format == EMP_FMT_TEXT ? 30 : 0;

	struct emp_report *rep = emp_report_new(cli.format);
	struct emp_profile p;
	emp_profile_load(&p, &po, &cli.in, argv + optind, argc - optind);
	emp_report_notes(rep, &p.notes);

	uint32_t nsym = emp_symtab_count(p.st);
	const enum emp_cct_weight w = emp_profile_weight(&p);
	struct emp_flat samples = { 0 };
	const struct emp_flat *fl = &p.flat;
	if (w == EMP_CCT_SAMPLES) {
		emp_flat_add_tree(&samples, p.cct, w);
		fl = &samples;
	}
	struct row *rows = emp_xcalloc(nsym + 1, sizeof(*rows));
	for (uint32_t g = 0; g < nsym; g++)
		rows[g] = (struct row){ g, g < fl->cap ? fl->rows[g] : (struct emp_flat_row){ 0 } };
	sort_p = &p;
	sort_po = &po;
	qsort(rows, nsym, sizeof(*rows), cmp_flat);

	uint64_t all = fl->all;
	static const char *const cols[] = { "method", "self_samples", "total_samples", "self_pct", "total_pct" };
	static const char *const cols_ns[] = { "method", "self_ns", "total_ns", "self_pct", "total_pct", "calls" };
	struct emp_table *t = w == EMP_CCT_NS ? emp_table_new("top", "Flat profile (traced time)", 6, cols_ns)
					      : emp_table_new("top", "Flat profile", 5, cols);
	long shown = 0;
	for (uint32_t i = 0; i < nsym && (!limit || shown < limit); i++) {
		const struct emp_flat_row *f = &rows[i].f;
		if (!f->total)
			continue;
		emp_table_row(t);
		emp_table_str(t, emp_profile_name(&p, &po, rows[i].gid));
		emp_table_int(t, (int64_t)f->self);
		emp_table_int(t, (int64_t)f->total);
		emp_table_num(t, all ? 100.0 * (double)f->self / (double)all : 0, 2);
		emp_table_num(t, all ? 100.0 * (double)f->total / (double)all : 0, 2);
		if (w == EMP_CCT_NS)
			emp_table_int(t, (int64_t)f->calls);
		shown++;
	}
	if (w == EMP_CCT_NS)
		emp_report_note(rep, "%llu ns of traced time in the profile (%.3f s, the root calls of every thread)",
				(unsigned long long)all, (double)all / 1e9);
	else
		emp_report_note(rep, "%llu samples in the profile", (unsigned long long)all);
	emp_report_add(rep, t);
	emp_report_print(rep, stdout);
	emp_report_free(rep);
	free(rows);
	emp_flat_free(&samples);
	emp_profile_free(&p);
	return cli.in.exit_code;
}
