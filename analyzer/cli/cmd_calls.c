/* SPDX-License-Identifier: MIT */
/* cmd_calls.c - emp-analyze calls: per traced method its calls, total and self time, mean, p50, p99, max; and the
 * validation of every trace (analyzer/lib/trace.h); the figures and quantiles per method from calls.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "cli.h"
#include "commands.h"
#include "deinstr.h"
#include "notes.h"
#include "symtab.h"
#include "trace.h"
#include "trace_fold.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze calls [OPTIONS] FILE...\n"
	"\n"
	"Per traced method (mode=trace dumps; several dumps add up, methods merged by name): calls, total_ns\n"
	"(sum of inclusive durations; a recursive method counts each level), self_ns (total minus its callees),\n"
	"mean_ns, p50_ns, p99_ns, max_ns (quantiles within 1.6 %, from a log-linear histogram), threw (calls\n"
	"that ended by an exception); times in integer ns, each call rounded once as in `tree`.  Rows sorted by\n"
	"total_ns.  Every trace is validated (eoi 0..n-1, ess, calls inside their callers in time, no exit without\n"
	"its entry, no call left open by a thread that ended, and the agent saw no exit without an open entry);\n"
	"violations are printed as notes (text), or with --check as the only table.  Calls still open when the\n"
	"recording ended (System.exit, daemon threads, a truncated dump) are counted (open_at_end) but are no\n"
	"violation.\n"
	"\n"
	"  --signatures      Java methods with their descriptor: pkg.Class.method(I)V (default: only where two\n"
	"                    methods would print alike)\n"
	"  --check           print the validation table instead; exit status 1 when a dump has a violation, with\n"
	"                    one line on stderr per kind of violation\n"
	"  --format=F        text (default), csv or json\n"
	"  --allow-truncated a truncated dump is not an error\n";

struct calls_ctx {
	struct emp_symtab *st;
	struct emp_symtab_map *map;
	struct emp_dump_reader *r;
	struct emp_trace_clock clock; /* emp_trace_ns() of r, cached */
	struct emp_calls_method *m;
	uint32_t cap;
	uint64_t self_ns; /* the dump's traced time: the sum of every call's self time */
};

/* The figures of dump-local method @method (the dump's map gives its global id). */
static struct emp_calls_method *method_slot(void *arg, uint32_t method)
{
	struct calls_ctx *x = arg;
	uint32_t gid = emp_symtab_map_get(x->map, method);
	if (gid >= x->cap)
		x->m = emp_calls_table_grow(x->m, &x->cap, gid + 1);
	return &x->m[gid];
}

static void on_call(void *arg, const struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	(void)parent;
	struct calls_ctx *x = arg;
	struct emp_calls_method *m = method_slot(x, c->method);
	uint64_t dur = c->tout >= c->tin ? c->tout - c->tin : 0;
	uint64_t self = dur >= c->child_ticks ? dur - c->child_ticks : 0;
	emp_trace_clock_sync(&x->clock, x->r);
	uint64_t self_ns = emp_trace_clock_ns(&x->clock, self);
	x->self_ns += self_ns;
	emp_calls_add(m, emp_trace_clock_ns(&x->clock, dur), self_ns, c->threw);
}

/* Read dump @r with trace_fold.h (every chunk on its own core).  Return: 0 with @st, *last_ticks and x->self_ns
 * set and the figures added to x->m, or -1 (nothing added) when the dump needs trace.h's reading. */
static int read_folded(struct calls_ctx *x, struct emp_dump_reader *r, unsigned jobs, double hz,
		       struct emp_trace_stats *st, uint64_t *last_ticks)
{
	struct emp_trace_fold *f = emp_trace_fold_new(r, jobs, hz, 1, NULL, NULL);
	int rc;
	uint64_t events;
	while ((rc = emp_trace_fold_next(f, NULL, NULL)) > 0)
		;
	if (!rc)
		rc = emp_trace_fold_finish(f, st, &x->self_ns, last_ticks, &events);
	if (!rc)
		emp_trace_fold_collect(f, method_slot, x);
	emp_trace_fold_free(f);
	return rc;
}

struct row {
	uint32_t gid;
	const char *name;
};

static const struct calls_ctx *sort_ctx;

static int by_name(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->gid > y->gid) - (x->gid < y->gid);
}

static int by_total(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t tx = sort_ctx->m[x->gid].total_ns, ty = sort_ctx->m[y->gid].total_ns;
	if (tx != ty)
		return tx < ty ? 1 : -1;
	return by_name(a, b);
}

/* --check: one line on stderr per kind of violation in dump @file, and one naming the calls the end of the
 * recording left open (no violation). */
static void report_check(const char *file, const struct emp_trace_stats *s, uint64_t unbalanced)
{
	const struct {
		uint64_t n;
		const char *what;
	} kinds[] = {
		{ s->never_closed, "calls never closed: their thread ended with them open (never_closed)" },
		{ unbalanced, "exits the agent saw without an open entry (counter trace_unbalanced_exit)" },
		{ s->exit_without_entry, "exits without an entry in the events (exit_without_entry)" },
		{ s->eoi_violations, "traces whose eoi are not 0..n-1 (eoi_violations)" },
		{ s->ess_violations, "traces breaking the ess rule (ess_violations)" },
		{ s->time_violations, "calls not inside their caller in time (time_violations)" },
	};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (kinds[k].n)
			fprintf(stderr, "emp-analyze calls: %s: %" PRIu64 " %s\n", file, kinds[k].n, kinds[k].what);
	if (s->unclosed > s->never_closed)
		fprintf(stderr,
			"emp-analyze calls: %s: %" PRIu64 " calls left open by System.exit or the end of the recording "
			"(open_at_end; not a violation)\n",
			file, s->unclosed - s->never_closed);
}

int emp_cmd_calls(int argc, char **argv)
{
	struct emp_cli cli = { .command = "calls", .usage = usage };
	enum { OPT_SIGNATURES = EMP_OPT_FIRST_FREE, OPT_CHECK };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS, { "signatures", no_argument, NULL, OPT_SIGNATURES },
					      { "check", no_argument, NULL, OPT_CHECK }, { 0, 0, 0, 0 } };
	int opt, signatures = 0, check = 0;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (emp_cli_common(&cli, opt, optarg))
			continue;
		if (opt == OPT_SIGNATURES)
			signatures = 1;
		else if (opt == OPT_CHECK)
			check = 1;
	}
	emp_cli_need_files(&cli, argc, argv);

	struct calls_ctx x = { .st = emp_symtab_new() };
	static const struct emp_trace_ops ops = { .on_call = on_call };
	static const char *const vcols[] = { "file", "traces", "calls", "threw", "unclosed", "exit_without_entry",
					     "eoi_violations", "ess_violations", "time_violations", "max_depth",
					     "never_closed", "open_at_end", "unbalanced_exit" };
	struct emp_table *vt = emp_table_new("validation", "Trace validation", 13, vcols);
	struct emp_report *rep = emp_report_new(cli.format);
	struct emp_notes notes = { 0 };
	int invalid = 0;
	for (int i = optind; i < argc; i++) {
		double hz = emp_trace_fold_probe(argv[i]);
		struct emp_dump_reader *r = emp_input_reader(&cli.in, argv[i]);
		if (!r)
			continue;
		struct emp_trace_stats stats;
		uint64_t last_ticks = 0;
		x.self_ns = 0;
		x.map = emp_symtab_map_new(x.st, r);
		if (read_folded(&x, r, emp_input_jobs(&cli.in), hz, &stats, &last_ticks)) {
			/* what the fold does not handle: every event through trace.h, in file order */
			emp_symtab_map_free(x.map);
			emp_dump_reader_close(r);
			if (!(r = emp_input_open(&cli.in, argv[i])))
				continue;
			x.r = r;
			x.map = emp_symtab_map_new(x.st, r);
			x.self_ns = 0;
			struct emp_trace *tr = emp_trace_new(&ops, &x);
			struct emp_event ev;
			while (emp_dump_reader_next(r, &ev)) {
				last_ticks = ev.ticks > last_ticks ? ev.ticks : last_ticks;
				emp_trace_event(tr, &ev);
			}
			emp_trace_finish(tr, r);
			stats = *emp_trace_stats(tr);
			emp_trace_free(tr);
		}
		emp_deinstr_apply(r, argv[i], x.st, x.map, last_ticks, x.self_ns, &notes);
		emp_input_done(&cli.in, r);
		const struct emp_trace_stats *s = &stats;
		/* Exit probes the agent saw without an open entry: no record was written for them, so the events
		 * balance, but the trace they belong to is wrong (the virtual-thread traces of emp before 0.2). */
		uint64_t unbalanced = emp_dump_counter(r, "trace_unbalanced_exit");
		uint64_t vals[] = { s->traces, s->calls, s->threw, s->unclosed, s->exit_without_entry,
				    s->eoi_violations, s->ess_violations, s->time_violations, s->max_depth,
				    s->never_closed, s->unclosed - s->never_closed, unbalanced };
		emp_table_row(vt);
		emp_table_str(vt, argv[i]);
		for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++)
			emp_table_int(vt, (int64_t)vals[k]);
		emp_report_note(rep, "%s: %" PRIu64 " traces, %" PRIu64 " calls (%" PRIu64 " threw), %" PRIu64
				     " still open at the end; violations: %" PRIu64 " eoi, %" PRIu64 " ess, %" PRIu64
				     " time, %" PRIu64 " exits without entry, %" PRIu64 " never closed, %" PRIu64
				     " unbalanced exits (agent)",
				argv[i], s->traces, s->calls, s->threw, s->unclosed, s->eoi_violations, s->ess_violations,
				s->time_violations, s->exit_without_entry, s->never_closed, unbalanced);
		if (emp_trace_violations(s) || unbalanced)
			invalid = 1;
		if (check)
			report_check(argv[i], s, unbalanced);
		emp_symtab_map_free(x.map);
		emp_dump_reader_close(r);
	}
	if (check) {
		emp_report_free(rep);
		rep = emp_report_new(cli.format);
		emp_report_add(rep, vt);
		if (invalid && cli.in.exit_code == EMP_EXIT_OK)
			cli.in.exit_code = EMP_EXIT_ERROR;
	} else {
		emp_table_free(vt);
		emp_report_notes(rep, &notes);
		size_t n = 0;
		struct row *rows = emp_xmalloc((x.cap ? x.cap : 1) * sizeof(*rows));
		for (uint32_t g = 0; g < x.cap; g++)
			if (x.m[g].calls)
				rows[n++] = (struct row){ g, emp_symtab_name(x.st, g, signatures) };
		sort_ctx = &x;
		qsort(rows, n, sizeof(*rows), by_total);
		static const char *const cols[] = { "method", "calls", "total_ns", "self_ns", "mean_ns",
						    "p50_ns", "p99_ns", "max_ns", "threw" };
		struct emp_table *t = emp_table_new("calls", "Calls per method", 9, cols);
		for (size_t k = 0; k < n; k++) {
			const struct emp_calls_method *s = &x.m[rows[k].gid];
			emp_table_row(t);
			emp_table_str(t, rows[k].name);
			emp_table_int(t, (int64_t)s->calls);
			emp_table_int(t, (int64_t)s->total_ns);
			emp_table_int(t, (int64_t)s->self_ns);
			emp_table_int(t, llround((double)s->total_ns / (double)s->calls));
			emp_table_int(t, llround(emp_calls_quantile(s, 0.50)));
			emp_table_int(t, llround(emp_calls_quantile(s, 0.99)));
			emp_table_int(t, (int64_t)s->max_ns);
			emp_table_int(t, (int64_t)s->threw);
		}
		free(rows);
		emp_report_add(rep, t);
	}
	emp_report_print(rep, stdout);
	emp_report_free(rep);
	emp_notes_free(&notes);
	for (uint32_t g = 0; g < x.cap; g++)
		emp_calls_free(&x.m[g]);
	free(x.m);
	emp_symtab_free(x.st);
	return cli.in.exit_code;
}
