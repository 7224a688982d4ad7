/* SPDX-License-Identifier: MIT */
/* cmd_report.c - emp-analyze report: one self-contained HTML page for a whole emp-run experiment.
 *
 * What it holds, from EXP/runs.csv and EXP/experiment.conf (runs.h): the runs (counts, failures), the EMP picture
 * (runplot.h), per mode the compare table of every version against the first, per agent mode the overhead
 * against the pure mode (the runs' process or elapsed time), and the disturbed runs.  The tables are what
 * `compare` and `overhead` print with --format=csv: report runs this very program for them (/proc/self/exe), so
 * the page and the commands never disagree; a comparison that the command refuses shows its message instead. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "flame.h"
#include "runplot.h"
#include "runs.h"
#include "timings.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze report EXP [-o FILE] [OPTIONS]\n"
	"\n"
	"One self-contained HTML page for the emp-run experiment in EXP (default FILE: EXP/report.html): the runs,\n"
	"the EMP picture (elapsed vs process time per run, disturbed runs ringed, the cutoff drawn), per mode the\n"
	"compare table of every version against the first (`compare --format=csv`), per agent mode its overhead\n"
	"against the pure mode (`overhead`, from the runs' times), and the disturbed runs.\n"
	"\n"
	"  -o FILE           where to write the page\n"
	"  --alpha=A         passed to compare (default 0.01)\n"
	"  --warmup=N        passed to compare for the agent modes (default 0)\n"
	"  --run-time=T      cpu (default) or elapsed: a run's value in the pure mode and in the overhead\n";

struct out_text {
	char *out, *err;
	int status;
};

static char *slurp(FILE *f)
{
	fflush(f);
	long n = ftell(f);
	rewind(f);
	char *s = emp_xmalloc(n > 0 ? (size_t)n + 1 : 1);
	size_t got = n > 0 ? fread(s, 1, (size_t)n, f) : 0;
	s[got] = 0;
	fclose(f);
	return s;
}

/* Run this program with @argv (NULL-terminated), its stdout and stderr captured. */
static struct out_text run_self(char **argv)
{
	struct out_text t = { 0 };
	FILE *o = tmpfile(), *e = tmpfile();
	if (!o || !e)
		emp_die("tmpfile: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		emp_die("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fileno(o), 1);
		dup2(fileno(e), 2);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	t.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	t.out = slurp(o);
	t.err = slurp(e);
	return t;
}

/* A cell: numbers with a fraction rounded for reading (4 significant digits, whole numbers from 1000 on). */
static void cell(FILE *out, const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end != s && !*end && strchr(s, '.'))
		fprintf(out, v >= 1000 || v <= -1000 ? "%.0f" : "%.4g", v);
	else
		emp_xml_escape(out, s);
}

/* @csv (header first) as an HTML table of the columns named in @cols (in that order), with @labels (NULL for
 * none) as a first column "variant", one per row; the rows of @csv whose column @cls_col has a value get it as
 * their class. */
static void html_table(FILE *out, const char *csv, const char *const *cols, size_t ncols, const char *cls_col,
		       const char *const *labels)
{
	int idx[32];
	size_t nh = 0;
	char *names[64];
	const char *p = csv;
	while (nh < 64 && (names[nh] = emp_csv_read_field(&p)))
		nh++;
	for (size_t c = 0; c < ncols; c++) {
		idx[c] = -1;
		for (size_t h = 0; h < nh; h++)
			if (!strcmp(names[h], cols[c]))
				idx[c] = (int)h;
	}
	int cls = -1;
	for (size_t h = 0; h < nh; h++)
		if (cls_col && !strcmp(names[h], cls_col))
			cls = (int)h;
	fputs(labels ? "<table><tr><th>variant</th>" : "<table><tr>", out);
	for (size_t c = 0; c < ncols; c++) {
		fputs("<th>", out);
		emp_xml_escape(out, cols[c]);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (size_t row = 0; (p = strchr(p, '\n')) && *++p; row++) {
		char *f[64] = { 0 };
		size_t nf = 0;
		while (nf < nh && (f[nf] = emp_csv_read_field(&p)))
			nf++;
		fputs("<tr", out);
		if (cls >= 0 && f[cls]) {
			fputs(" class=\"", out);
			emp_xml_escape(out, f[cls]);
			fputc('"', out);
		}
		fputc('>', out);
		if (labels) {
			fputs("<td>", out);
			emp_xml_escape(out, labels[row]);
			fputs("</td>", out);
		}
		for (size_t c = 0; c < ncols; c++) {
			fputs("<td>", out);
			if (idx[c] >= 0 && f[idx[c]])
				cell(out, f[idx[c]]);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
		for (size_t i = 0; i < nf; i++)
			free(f[i]);
		p--; /* back on the line end (or the terminating 0) for strchr */
	}
	fputs("</table>\n", out);
	for (size_t h = 0; h < nh; h++)
		free(names[h]);
}

static void pre(FILE *out, const char *text)
{
	fputs("<pre class=\"err\">", out);
	emp_xml_escape(out, text);
	fputs("</pre>\n", out);
}

/* Whether EXP/<mode>/<version> holds dumps: the mode runs with the agent. */
static int has_dumps(const char *dir)
{
	char **p;
	int n = emp_timings_list(dir, ".emp", &p);
	if (n > 0)
		emp_timings_list_free(p, (size_t)n);
	return n > 0;
}

static char *cat(const char *a, const char *b, const char *c)
{
	char *s;
	if (asprintf(&s, "%s/%s/%s", a, b, c) < 0)
		emp_die("out of memory");
	return s;
}

static void section_compare(FILE *out, const char *exp, const struct emp_runs *r, size_t m, const char *alpha,
			    const char *warmup, const char *run_time, int agent)
{
	static const char *const cols[] = { "verdict", "root_cause", "ratio", "ratio_lo", "ratio_hi", "p_value",
					    "base_mean", "new_mean", "node" };
	for (size_t v = 1; v < r->nversions; v++) {
		char *base = cat(exp, r->modes[m], r->versions[0]), *new = cat(exp, r->modes[m], r->versions[v]);
		char *a_base, *a_new, *a_alpha, *a_warm, *a_rt;
		if (asprintf(&a_base, "--base=%s", base) < 0 || asprintf(&a_new, "--new=%s", new) < 0 ||
		    asprintf(&a_alpha, "--alpha=%s", alpha) < 0 || asprintf(&a_warm, "--warmup=%s", warmup) < 0 ||
		    asprintf(&a_rt, "--run-time=%s", run_time) < 0)
			emp_die("out of memory");
		char *argv[] = { "emp-analyze", "compare", a_base, a_new, a_alpha, "--format=csv",
				 agent ? a_warm : a_rt, NULL };
		struct out_text t = run_self(argv);
		fprintf(out, "<h3>");
		emp_xml_escape(out, r->versions[v]);
		fputs(" against ", out);
		emp_xml_escape(out, r->versions[0]);
		fprintf(out, "</h3>\n<p class=\"cmd\">emp-analyze compare --base ");
		emp_xml_escape(out, base);
		fputs(" --new ", out);
		emp_xml_escape(out, new);
		fprintf(out, " --alpha %s%s%s</p>\n", alpha, agent ? " --warmup " : "", agent ? warmup : "");
		if (t.status == 0 || t.status == 3)
			html_table(out, t.out, cols, sizeof(cols) / sizeof(*cols), "verdict", NULL);
		else
			pre(out, t.err);
		free(t.out);
		free(t.err);
		free(base);
		free(new);
		free(a_base);
		free(a_new);
		free(a_alpha);
		free(a_warm);
		free(a_rt);
	}
}

static void section_overhead(FILE *out, const char *exp, const struct emp_runs *r, size_t pure, const char *rt)
{
	static const char *const cols[] = { "vms", "mean_ns", "median_ns", "overhead_ns", "ratio", "ratio_lo",
					    "ratio_hi" };
	fprintf(out, "<h2>Overhead against the pure mode (%s)</h2>\n<p>Per version, each agent mode's runs against "
		     "the pure runs of the same version: their %s time, ns per run.</p>\n",
		r->modes[pure], strcmp(rt, "elapsed") ? "process" : "elapsed");
	for (size_t v = 0; v < r->nversions; v++)
		for (size_t m = 0; m < r->nmodes; m++) {
			if (m == pure)
				continue;
			char *p = cat(exp, r->modes[pure], r->versions[v]), *d = cat(exp, r->modes[m], r->versions[v]);
			char *a_rt;
			if (asprintf(&a_rt, "--run-time=%s", rt) < 0)
				emp_die("out of memory");
			char *argv[] = { "emp-analyze", "overhead", "--pure", p, "--measured", d, a_rt, "--format=csv",
					 NULL };
			struct out_text t = run_self(argv);
			fputs("<h3>", out);
			emp_xml_escape(out, r->modes[m]);
			fputs(" / ", out);
			emp_xml_escape(out, r->versions[v]);
			fputs("</h3>\n", out);
			const char *labels[] = { r->modes[pure], r->modes[m] };
			if (t.status == 0)
				html_table(out, t.out, cols, sizeof(cols) / sizeof(*cols), NULL, labels);
			else
				pre(out, t.err);
			free(t.out);
			free(t.err);
			free(p);
			free(d);
			free(a_rt);
		}
}

int emp_cmd_report(int argc, char **argv)
{
	struct emp_cli cli = { .command = "report", .usage = usage };
	enum { OPT_ALPHA = EMP_OPT_FIRST_FREE, OPT_WARMUP, OPT_RUN_TIME };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS,
					      { "alpha", required_argument, NULL, OPT_ALPHA },
					      { "warmup", required_argument, NULL, OPT_WARMUP },
					      { "run-time", required_argument, NULL, OPT_RUN_TIME },
					      { 0, 0, 0, 0 } };
	const char *outpath = NULL, *alpha = "0.01", *warmup = "0", *run_time = "cpu";
	int opt;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			outpath = optarg;
			break;
		case OPT_ALPHA:
			emp_cli_number(&cli, "alpha", optarg, 1e-12, 0.5);
			alpha = optarg;
			break;
		case OPT_WARMUP:
			emp_cli_number(&cli, "warmup", optarg, 0, 1e9);
			warmup = optarg;
			break;
		case OPT_RUN_TIME:
			if (strcmp(optarg, "cpu") && strcmp(optarg, "elapsed"))
				emp_cli_usage_error(&cli, "--run-time=%s: expected cpu or elapsed", optarg);
			run_time = optarg;
			break;
		default:
			emp_cli_common(&cli, opt, optarg);
		}
	}
	if (optind + 1 != argc)
		emp_cli_usage_error(&cli, "expected one EXP directory (an emp-run experiment)");
	const char *exp = argv[optind];
	struct emp_runs r;
	int rc = emp_runs_read(exp, &r);
	if (rc == 1)
		emp_die("%s: no runs.csv (not an emp-run experiment, or no run finished yet)", exp);
	if (rc < 0)
		exit(EMP_EXIT_ERROR);
	if (r.nrows == 0)
		emp_die("%s/runs.csv: no run finished yet", exp);
	char *def = NULL;
	if (!outpath && asprintf(&def, "%s/report.html", exp) < 0)
		emp_die("out of memory");
	FILE *out = fopen(outpath ? outpath : def, "w");
	if (!out)
		emp_die("%s: %s", outpath ? outpath : def, strerror(errno));
	size_t ndist = 0, nfail = 0, pure = r.nmodes;
	for (size_t i = 0; i < r.nrows; i++) {
		ndist += r.rows[i].disturbed != 0;
		nfail += r.rows[i].exit != 0;
	}
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>emp-run experiment ", out);
	emp_xml_escape(out, exp);
	fputs("</title><style>body{font-family:sans-serif;margin:2em;max-width:1200px}"
	      "table{border-collapse:collapse;font-size:13px;margin-bottom:1em}td,th{border:1px solid #ccc;padding:2px 6px;"
	      "text-align:left}tr.slower td:first-child{color:#b00;font-weight:bold}tr.faster td:first-child{color:#06c;"
	      "font-weight:bold}td:last-child{word-break:break-all}.cmd{font-family:monospace;color:#555}"
	      ".err{background:#fee;padding:.5em;white-space:pre-wrap}</style></head><body>\n<h1>Experiment ", out);
	emp_xml_escape(out, exp);
	fprintf(out, "</h1>\n<p>%zu run attempts: %zu modes &times; %zu versions; %zu disturbed, %zu failed.</p>\n",
		r.nrows, r.nmodes, r.nversions, ndist, nfail);
	fputs("<h2>The EMP picture</h2>\n", out);
	emp_runplot_write(out, &r);
	for (size_t m = 0; m < r.nmodes; m++) {
		char *d = cat(exp, r.modes[m], r.versions[0]);
		int agent = has_dumps(d);
		free(d);
		if (!agent && pure == r.nmodes)
			pure = m;
		fputs("<h2>Mode ", out);
		emp_xml_escape(out, r.modes[m]);
		fprintf(out, "%s</h2>\n", agent ? "" : " (pure: one value per run)");
		if (r.nversions < 2)
			fputs("<p>One version: nothing to compare.</p>\n", out);
		else
			section_compare(out, exp, &r, m, alpha, warmup, run_time, agent);
	}
	if (pure < r.nmodes && r.nmodes > 1)
		section_overhead(out, exp, &r, pure, run_time);
	fputs("<h2>Disturbed runs</h2>\n", out);
	if (!ndist) {
		fputs("<p>None.</p>\n", out);
	} else {
		fputs("<table><tr><th>mode</th><th>version</th><th>vm</th><th>attempt</th><th>elapsed_s</th><th>cpu_s</th>"
		      "</tr>\n", out);
		for (size_t i = 0; i < r.nrows; i++) {
			const struct emp_runs_row *x = &r.rows[i];
			if (!x->disturbed)
				continue;
			fputs("<tr><td>", out);
			emp_xml_escape(out, x->mode);
			fputs("</td><td>", out);
			emp_xml_escape(out, x->version);
			fprintf(out, "</td><td>%lu</td><td>%lu</td><td>%.3f</td><td>%.3f</td></tr>\n", x->vm, x->attempt,
				x->elapsed, x->cpu);
		}
		fputs("</table>\n", out);
	}
	fputs("</body></html>\n", out);
	if (fclose(out))
		emp_die("%s: %s", outpath ? outpath : def, strerror(errno));
	fprintf(stderr, "emp-analyze: report written to %s\n", outpath ? outpath : def);
	free(def);
	emp_runs_free(&r);
	return EMP_EXIT_OK;
}
