/* SPDX-License-Identifier: MIT */
/* cmd_export.c - emp-analyze export: traced calls as a Kieker file-system log (render/kieker.h) or as Chrome
 * trace-event JSON (render/chrome.h): the calls trace.h rebuilds, each written at its exit.
 *
 * Timestamps derive from one integer per event: ns from the dump's clock reference, rounded once (Kieker adds the
 * reference's ns since the epoch as integers: a floating-point sum would lose the low bits of a 19-digit number).
 *
 * Calls still open at the end of the dump (a JVM that ended inside them, a truncated dump) are written too, ending
 * at the end of the recording (END's clock_end_ticks, else the last event), the tightest bound known: their trace
 * would otherwise miss its root and Kieker's trace analysis reject it as invalid.  Chrome marks them
 * "unfinished":true; the count goes to stderr. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "cli.h"
#include "commands.h"
#include "kieker.h"
#include "trace.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze export (--kieker DIR | --chrome OUT) [--allow-truncated] FILE\n"
	"\n"
	"Writes the traced calls of one dump (mode=trace):\n"
	"  --kieker DIR   a Kieker file-system log: DIR/kieker.map and a .dat file with a KiekerMetadataRecord and\n"
	"                 one OperationExecutionRecord per call (eoi/ess, tin/tout in ns since the epoch) that\n"
	"                 Kieker's trace analysis reads; signatures are `public <ret> pkg.Cls.m(<params>)`\n"
	"                 (modifiers are not recorded: always public)\n"
	"  --chrome OUT   Chrome trace-event JSON (complete \"X\" events per call, pid/tid) for Perfetto\n"
	"Calls still open at the end of the dump are written as ending at the end of the recording (Chrome:\n"
	"args \"unfinished\":true); their count is printed on stderr.\n";

/* A call that has started and not ended yet (kept to write it when the dump ends inside it). */
struct open_call {
	uint32_t method, eoi, ess;
	uint64_t trace_id, tin;
};

struct open_stack {
	struct open_call *v;
	uint32_t n, cap;
};

struct export_ctx {
	struct emp_dump_reader *r;
	FILE *out;
	int chrome;
	struct emp_chrome ch;        /* --chrome */
	struct emp_kieker_sigs sigs; /* --kieker */
	uint64_t ref_ticks;     /* clock_ref_ticks of META */
	uint64_t ref_real_ns;   /* clock_ref_realtime_ns of META */
	const char *host;
	const char *pid;
	struct open_stack *open; /* per dump thread id */
	uint32_t nopen;
	uint64_t last_ticks;    /* latest event seen */
	uint64_t written, unfinished;
};

/* ns from the clock reference to @ticks, rounded once: every timestamp written derives from this integer. */
static int64_t rel_ns(const struct export_ctx *x, uint64_t ticks)
{
	double d = ticks >= x->ref_ticks ? (double)(ticks - x->ref_ticks) : -(double)(x->ref_ticks - ticks);
	return llround(emp_dump_ticks_to_ns(x->r, d));
}

static struct open_stack *open_stack(struct export_ctx *x, uint32_t thread)
{
	if (thread >= x->nopen) {
		uint32_t n = thread + 16;
		x->open = emp_xrealloc(x->open, n * sizeof(*x->open));
		memset(x->open + x->nopen, 0, (n - x->nopen) * sizeof(*x->open));
		x->nopen = n;
	}
	return &x->open[thread];
}

/* Write one call (complete, or @unfinished: still open when the dump ended, @tout = the end of the recording). */
static void write_call(struct export_ctx *x, uint32_t thread, const struct open_call *c, uint64_t tout_ticks,
		       int threw, int unfinished)
{
	int64_t tin = rel_ns(x, c->tin), tout = rel_ns(x, tout_ticks);
	x->written++;
	x->unfinished += (uint64_t)unfinished;
	if (!x->chrome) {
		emp_kieker_record(x->out, emp_kieker_signature(&x->sigs, c->method), x->host, c->trace_id,
				  x->ref_real_ns + (uint64_t)tin, x->ref_real_ns + (uint64_t)tout, c->eoi, c->ess);
		return;
	}
	const struct emp_dump_method *m = emp_dump_method(x->r, c->method);
	const struct emp_dump_thread *th = emp_dump_thread(x->r, thread);
	emp_chrome_call(&x->ch, m ? m->klass : "undefined", m ? m->name : "symbol", tin, tout,
			emp_chrome_tid(th, thread), threw, unfinished);
}

static void on_enter(void *arg, struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	(void)parent;
	struct open_stack *s = open_stack(arg, c->thread);
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = emp_xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = (struct open_call){ .method = c->method, .eoi = c->eoi, .ess = c->ess, .trace_id = c->trace_id,
					   .tin = c->tin };
}

static void on_call(void *arg, const struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	(void)parent;
	struct export_ctx *x = arg;
	struct open_stack *s = open_stack(x, c->thread);
	/* emp_trace pairs every exit with the innermost open call of its thread: the top of this stack. */
	s->n--;
	write_call(x, c->thread, &s->v[s->n], c->tout, c->threw, 0);
}

/* The dump ended: write the calls still open, innermost first (Kieker's exit order), ending at @end_ticks. */
static void write_unfinished(struct export_ctx *x, uint64_t end_ticks)
{
	for (uint32_t t = 0; t < x->nopen; t++) {
		struct open_stack *s = &x->open[t];
		while (s->n) {
			s->n--;
			uint64_t tout = end_ticks > s->v[s->n].tin ? end_ticks : s->v[s->n].tin;
			write_call(x, t, &s->v[s->n], tout, 0, 1);
		}
	}
}

/* Create the output file (@file: its name) and write what comes before the calls.  Return: 0, or -1 after
 * printing one line. */
static int open_output(struct export_ctx *x, const char *kieker, const char *chrome, char *file, size_t len)
{
	if (kieker && emp_kieker_files(kieker, x->ref_real_ns, file, len))
		return -1;
	if (chrome)
		snprintf(file, len, "%s", chrome);
	x->out = fopen(file, "w");
	if (!x->out) {
		emp_errorf("%s: cannot create: %s", file, strerror(errno));
		return -1;
	}
	if (chrome)
		emp_chrome_begin(&x->ch, x->out, x->pid);
	else
		emp_kieker_metadata(x->out, x->ref_real_ns, x->host);
	return 0;
}

/* Feed the dump's events (@ev: the first, already read) through the call rebuilder into the output. */
static void write_calls(struct export_ctx *x, struct emp_event *ev, int have)
{
	static const struct emp_trace_ops ops = { .on_enter = on_enter, .on_call = on_call };
	struct emp_trace *tr = emp_trace_new(&ops, x);
	for (; have; have = emp_dump_reader_next(x->r, ev)) {
		if (ev->kind != EMP_EV_SAMPLE && ev->ticks > x->last_ticks)
			x->last_ticks = ev->ticks;
		emp_trace_event(tr, ev);
	}
	const char *v = emp_dump_end_value(x->r, "clock_end_ticks");
	uint64_t end_ticks = v ? strtoull(v, NULL, 10) : 0;
	write_unfinished(x, end_ticks > x->last_ticks ? end_ticks : x->last_ticks);
	emp_trace_finish(tr, x->r);
	emp_trace_free(tr);
}

int emp_cmd_export(int argc, char **argv)
{
	struct emp_cli cli = { .command = "export", .usage = usage };
	enum { OPT_KIEKER = EMP_OPT_FIRST_FREE, OPT_CHROME };
	static const struct option opts[] = { EMP_CLI_COMMON_OPTS, { "kieker", required_argument, NULL, OPT_KIEKER },
					      { "chrome", required_argument, NULL, OPT_CHROME }, { 0, 0, 0, 0 } };
	const char *kieker = NULL, *chrome = NULL;
	int opt;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (emp_cli_common(&cli, opt, optarg))
			continue;
		if (opt == OPT_KIEKER)
			kieker = optarg;
		else if (opt == OPT_CHROME)
			chrome = optarg;
	}
	if (!kieker == !chrome)
		emp_cli_usage_error(&cli, "give exactly one of --kieker DIR and --chrome OUT");
	emp_cli_need_files(&cli, argc, argv);
	if (argc - optind != 1)
		emp_cli_usage_error(&cli, "export takes one dump file");
	const char *path = argv[optind];
	struct emp_dump_reader *r = emp_input_open(&cli.in, path);
	if (!r)
		return cli.in.exit_code;

	struct export_ctx x = { .r = r, .chrome = chrome != NULL, .sigs = { .r = r } };
	/* META comes first in every dump and the reader absorbs it with the first event: read one to get it. */
	struct emp_event ev;
	int have = emp_dump_reader_next(r, &ev);
	const char *v;
	x.ref_ticks = (v = emp_dump_meta(r, "clock_ref_ticks")) ? strtoull(v, NULL, 10) : 0;
	x.ref_real_ns = (v = emp_dump_meta(r, "clock_ref_realtime_ns")) ? strtoull(v, NULL, 10) : 0;
	x.host = (v = emp_dump_meta(r, "hostname")) && *v ? v : "<default-host>";
	x.pid = (v = emp_dump_meta(r, "pid")) && *v ? v : "0";
	char file[4200];
	if (open_output(&x, kieker, chrome, file, sizeof(file))) {
		emp_dump_reader_close(r);
		return EMP_EXIT_ERROR;
	}
	write_calls(&x, &ev, have);
	emp_input_done(&cli.in, r);
	if (chrome)
		emp_chrome_end(&x.ch, r);
	if (fclose(x.out)) {
		emp_errorf("%s: write error: %s", file, strerror(errno));
		cli.in.exit_code = EMP_EXIT_ERROR;
	}
	if (x.unfinished)
		emp_errorf("%s: %" PRIu64 " calls still open at the end of the dump were written as ending with the "
			   "recording", path, x.unfinished);
	fprintf(stderr, "emp-analyze export: %" PRIu64 " calls written to %s\n", x.written, file);
	emp_kieker_sigs_free(&x.sigs);
	for (uint32_t i = 0; i < x.nopen; i++)
		free(x.open[i].v);
	free(x.open);
	emp_dump_reader_close(r);
	return cli.in.exit_code;
}
