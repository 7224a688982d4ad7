/* SPDX-License-Identifier: MIT */
/* cmd_latency.c - emp-analyze latency: emp-load request logs, corrected vs uncorrected, with the GC and safepoint
 * pauses of an emp dump of the server (analyzer/lib/latency.h), as tables and an SVG (analyzer/render/latency_svg.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "dump_reader.h"
#include "hdr.h"
#include "latency.h"
#include "latency_svg.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze latency LOG [LOG...] [DUMP] [-o latency.svg] [--format=text|csv|json]\n"
	"\n"
	"Latency under load from emp-load --log files (header due_ns,sent_ns,done_ns,status), one per run.\n"
	"Table 'latency': per LOG and measure (corrected: from the due time; uncorrected: from the write) the\n"
	"answered requests and p50/p90/p99/p99.9/p99.99/max in us, the same HdrHistogram figures emp-load prints.\n"
	"Table 'errors': failed requests by kind, and answers outside 2xx.  With DUMP (an emp dump of the server,\n"
	"any mode, recorded on the same machine: the times line up on CLOCK_MONOTONIC), table 'gc': its GC pauses,\n"
	"those within each LOG's time span, and the answered requests that waited through one, among all and among\n"
	"those slower than the LOG's corrected p99; table 'safepoints': the same for its safepoint pauses other than\n"
	"GC (safepoints=on: placed within about 1 ms after the true time, exact duration).\n"
	"  -o, --output=OUT.svg  response time over due time for the first LOG with the GC pauses (red) and the other\n"
	"                        safepoint pauses (blue) shaded, and the\n"
	"                        percentile distribution of every LOG (corrected solid, uncorrected dashed)\n"
	"  --allow-truncated     a truncated DUMP is not an error\n";

/* The pauses of one kind and their table. */
struct pause_set {
	struct emp_latency_pause *p;
	long n;
	struct emp_table *table;
};

/* One row of @ps's table for the log @l.  Return: the pauses within @l's time span. */
static uint64_t pause_row(struct pause_set *ps, const struct emp_latency_log *l)
{
	uint64_t in = 0, all, slow, nslow = 0;
	double total = 0, max = 0;
	for (long k = 0; k < ps->n; k++) {
		if (ps->p[k].start_ns + ps->p[k].duration_ns < l->t_min || ps->p[k].start_ns > l->t_max)
			continue;
		in++;
		total += (double)ps->p[k].duration_ns / 1e6;
		max = (double)ps->p[k].duration_ns / 1e6 > max ? (double)ps->p[k].duration_ns / 1e6 : max;
	}
	int64_t p99 = emp_hdr_percentile(l->corrected, 99);
	for (size_t k = 0; k < l->n; k++)
		nslow += (l->done[k] - l->due[k]) / 1000 > p99;
	emp_latency_overlaps(l, ps->p, (size_t)ps->n, p99, &all, &slow);
	emp_table_row(ps->table);
	emp_table_str(ps->table, l->path);
	emp_table_int(ps->table, ps->n);
	emp_table_int(ps->table, (int64_t)in);
	emp_table_num(ps->table, total, 3);
	emp_table_num(ps->table, max, 3);
	emp_table_int(ps->table, (int64_t)all);
	emp_table_int(ps->table, (int64_t)nslow);
	emp_table_int(ps->table, (int64_t)slow);
	return in;
}

static int is_dump(const char *path)
{
	FILE *f = fopen(path, "rb");
	char magic[EMP_DUMP_MAGIC_LEN] = { 0 };
	int yes = f && fread(magic, 1, sizeof(magic), f) == sizeof(magic) && !memcmp(magic, EMP_DUMP_MAGIC, 4);
	if (f)
		fclose(f);
	return yes;
}

int emp_cmd_latency(int argc, char **argv)
{
	struct emp_cli cli = { .command = "latency", .usage = usage };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS, { "output", required_argument, NULL, 'o' },
					      { 0, 0, 0, 0 } };
	const char *outpath = NULL;
	int opt;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (emp_cli_common(&cli, opt, optarg))
			continue;
		if (opt == 'o')
			outpath = optarg;
	}
	emp_cli_need_files(&cli, argc, argv);
	const char *dump = NULL;
	size_t nlogs = 0;
	struct emp_latency_log *logs = emp_xcalloc((size_t)argc, sizeof(*logs));
	for (int i = optind; i < argc; i++) {
		if (is_dump(argv[i])) {
			if (dump)
				emp_cli_usage_error(&cli, "two dumps given (%s, %s); at most one", dump, argv[i]);
			dump = argv[i];
			continue;
		}
		char err[512];
		if (emp_latency_read(argv[i], &logs[nlogs], err, sizeof(err))) {
			emp_errorf("%s", err);
			return EMP_EXIT_ERROR;
		}
		nlogs++;
	}
	if (nlogs == 0)
		emp_cli_usage_error(&cli, "no emp-load log given (only the dump %s)", dump);

	struct pause_set gc = { 0 }, sp = { 0 };
	if (dump) {
		struct emp_dump_reader *r = emp_input_open(&cli.in, dump);
		if (!r)
			return cli.in.exit_code;
		emp_dump_reader_drain(r);
		emp_input_done(&cli.in, r);
		gc.n = emp_latency_pauses(r, EMP_PAUSE_GC, &gc.p);
		sp.n = emp_latency_pauses(r, EMP_PAUSE_SAFEPOINT, &sp.p);
		emp_dump_reader_close(r);
		if (gc.n < 0) {
			emp_errorf("%s: no clock reference in META (clock_ref_ticks, clock_ref_mono_ns)", dump);
			return EMP_EXIT_ERROR;
		}
	}

	static const char *const lcols[] = { "log", "measure", "count", "p50_us", "p90_us", "p99_us", "p999_us",
					     "p9999_us", "max_us" };
	static const char *const ecols[] = { "log", "kind", "count" };
	static const char *const gcols[] = { "log", "gc_pauses", "in_span", "pause_total_ms", "pause_max_ms",
					     "requests_through_gc", "slow_requests", "slow_through_gc" };
	static const char *const scols[] = { "log", "safepoint_pauses", "in_span", "pause_total_ms", "pause_max_ms",
					     "requests_through_safepoint", "slow_requests", "slow_through_safepoint" };
	struct emp_table *lat = emp_table_new("latency", "Latency (us)", 9, lcols);
	struct emp_table *errs = emp_table_new("errors", "Errors", 3, ecols);
	if (dump) {
		gc.table = emp_table_new("gc", "GC pauses (from the dump)", 8, gcols);
		sp.table = emp_table_new("safepoints", "Safepoint pauses other than GC (from the dump)", 8, scols);
	}
	static const double pct[] = { 50, 90, 99, 99.9, 99.99 };
	uint64_t in_any = 0;
	for (size_t i = 0; i < nlogs; i++) {
		struct emp_latency_log *l = &logs[i];
		struct emp_hdr *h[2] = { l->corrected, l->uncorrected };
		static const char *const names[2] = { "corrected", "uncorrected" };
		for (int k = 0; k < 2; k++) {
			emp_table_row(lat);
			emp_table_str(lat, l->path);
			emp_table_str(lat, names[k]);
			emp_table_int(lat, (int64_t)emp_hdr_count(h[k]));
			for (size_t j = 0; j < 5; j++)
				emp_table_int(lat, emp_hdr_percentile(h[k], pct[j]));
			emp_table_int(lat, emp_hdr_max(h[k]));
		}
		for (size_t k = 0; k <= l->nkinds; k++) {
			emp_table_row(errs);
			emp_table_str(errs, l->path);
			emp_table_str(errs, k < l->nkinds ? l->kind[k] : "non_2xx");
			emp_table_int(errs, (int64_t)(k < l->nkinds ? l->kind_count[k] : l->non_2xx));
		}
		if (dump) {
			in_any += pause_row(&gc, l);
			in_any += pause_row(&sp, l);
		}
	}
	if ((gc.n || sp.n) && !in_any)
		emp_errorf("note: no pause of %s falls within the logs' time spans (another machine, boot or run?)", dump);
	struct emp_report *rep = emp_report_new(cli.format);
	emp_report_add(rep, lat);
	emp_report_add(rep, errs);
	if (dump) {
		emp_report_add(rep, gc.table);
		emp_report_add(rep, sp.table);
	}
	emp_report_print(rep, stdout);
	emp_report_free(rep);

	if (outpath) {
		FILE *out = fopen(outpath, "w");
		if (!out || emp_latency_svg_write(out, logs, nlogs, gc.p, (size_t)gc.n, sp.p, (size_t)sp.n) || fclose(out)) {
			emp_errorf("cannot write %s: %s", outpath, strerror(errno));
			cli.in.exit_code = EMP_EXIT_ERROR;
		}
	}
	for (size_t i = 0; i < nlogs; i++)
		emp_latency_free(&logs[i]);
	free(logs);
	free(gc.p);
	free(sp.p);
	return cli.in.exit_code;
}
