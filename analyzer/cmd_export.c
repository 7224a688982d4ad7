/* SPDX-License-Identifier: MIT */
/* cmd_export.c - emp-analyze export: traced calls as a Kieker file-system log or as Chrome trace-event JSON.
 *
 * Kieker (--kieker DIR): DIR/kieker.map holds "$0=kieker.common.record.controlflow.OperationExecutionRecord";
 * DIR/kieker-<start>-UTC-001.dat one line per call, in Kieker's ASCII layout
 *   $0;<loggingTimestamp>;<operationSignature>;<sessionId>;<traceId>;<tin>;<tout>;<hostname>;<eoi>;<ess>
 * written at the call's exit (deepest first, as Kieker's probes write), timestamps in ns since the epoch
 * (Kieker's default time unit), loggingTimestamp = tout, sessionId "<no-session-id>".  The signature is built from
 * the method's descriptor: `public <return type> pkg.Cls.m(int, java.lang.String[])`; the dump does not record
 * modifiers, so every method is written `public` (no `static`, `final`, ...: Kieker's trace analysis reads the
 * modifiers only for display); constructors are `public new pkg.Cls.<init>(...)` and class initialisers
 * `public void pkg.Cls.<clinit>()`.
 *
 * Chrome (--chrome OUT): {"traceEvents":[...]} with one complete event ("ph":"X") per call, ts/dur in µs relative
 * to the start of the recording, pid = the JVM's pid, tid = the OS thread id, args eoi/ess/trace; plus thread_name
 * metadata events.  Perfetto and chrome://tracing open it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "trace.h"
#include "util.h"

static const char usage[] =
	"usage: emp-analyze export (--kieker DIR | --chrome OUT) [--allow-truncated] FILE\n"
	"\n"
	"Writes the traced calls of one dump (mode=trace):\n"
	"  --kieker DIR   a Kieker file-system log: DIR/kieker.map and a .dat file of OperationExecutionRecords\n"
	"                 (eoi/ess, tin/tout in ns since the epoch) that Kieker's trace analysis reads; signatures\n"
	"                 are `public <ret> pkg.Cls.m(<params>)` (modifiers are not recorded: always public)\n"
	"  --chrome OUT   Chrome trace-event JSON (complete \"X\" events per call, pid/tid) for Perfetto\n"
	"Calls still open at the end of the dump are not written (the count is printed on stderr).\n";

/* Append the Java type of the field descriptor at *d to @out; advance *d.  Return: 0, or -1 on a bad descriptor. */
static int java_type(FILE *out, const char **d)
{
	int dims = 0;
	while (**d == '[') {
		dims++;
		(*d)++;
	}
	static const struct { char c; const char *name; } prim[] = {
		{ 'B', "byte" }, { 'C', "char" }, { 'D', "double" }, { 'F', "float" }, { 'I', "int" },
		{ 'J', "long" }, { 'S', "short" }, { 'Z', "boolean" }, { 'V', "void" },
	};
	char c = **d;
	if (c == 'L') {
		const char *semi = strchr(*d, ';');
		if (!semi)
			return -1;
		for (const char *p = *d + 1; p < semi; p++)
			fputc(*p == '/' ? '.' : *p, out);
		*d = semi + 1;
	} else {
		size_t i;
		for (i = 0; i < sizeof(prim) / sizeof(prim[0]) && prim[i].c != c; i++)
			;
		if (i == sizeof(prim) / sizeof(prim[0]))
			return -1;
		fputs(prim[i].name, out);
		(*d)++;
	}
	while (dims--)
		fputs("[]", out);
	return 0;
}

/* The Kieker operation signature of a method symbol (malloc'ed). */
static char *kieker_signature(const struct emp_dump_method *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		emp_die("out of memory");
	const char *d = m->descriptor;
	const char *ret = d ? strchr(d, ')') : NULL;
	int is_init = !strcmp(m->name, "<init>");
	fputs("public ", out);
	if (is_init) {
		fputs("new ", out);
	} else if (ret && ret[1]) {
		const char *r = ret + 1;
		if (java_type(out, &r))
			fputs("void", out);
		fputc(' ', out);
	} else {
		fputs("void ", out);
	}
	fprintf(out, "%s.%s(", m->klass, m->name);
	if (d && *d == '(' && ret) {
		const char *p = d + 1;
		for (int first = 1; p < ret; first = 0) {
			if (!first)
				fputs(", ", out);
			if (java_type(out, &p))
				break;
		}
	}
	fputc(')', out);
	fclose(out);
	return buf;
}

struct export_ctx {
	struct emp_dump_reader *r;
	FILE *out;
	int chrome;
	int first;
	uint64_t ref_ticks;     /* clock_ref_ticks of META */
	double ref_real_ns;     /* clock_ref_realtime_ns of META */
	const char *host;
	const char *pid;
	char **sigs;            /* Kieker signature per local method id, built on first use */
	uint32_t nsigs;
	uint64_t written;
};

static double tick_ns(const struct export_ctx *x, uint64_t ticks)
{
	double d = ticks >= x->ref_ticks ? (double)(ticks - x->ref_ticks) : -(double)(x->ref_ticks - ticks);
	return emp_dump_ticks_to_ns(x->r, d);
}

static const char *signature(struct export_ctx *x, uint32_t id)
{
	if (id >= x->nsigs) {
		uint32_t n = id + 256;
		x->sigs = emp_xrealloc(x->sigs, n * sizeof(*x->sigs));
		memset(x->sigs + x->nsigs, 0, (n - x->nsigs) * sizeof(*x->sigs));
		x->nsigs = n;
	}
	if (!x->sigs[id]) {
		const struct emp_dump_method *m = emp_dump_method(x->r, id);
		if (!m) {
			char tmp[64];
			snprintf(tmp, sizeof(tmp), "public void undefined.Symbol.m%u()", id);
			x->sigs[id] = emp_xstrdup(tmp);
		} else {
			x->sigs[id] = kieker_signature(m);
		}
	}
	return x->sigs[id];
}

static void on_call(void *arg, const struct emp_trace_call *c, const struct emp_trace_call *parent)
{
	(void)parent;
	struct export_ctx *x = arg;
	double tin = tick_ns(x, c->tin), tout = tick_ns(x, c->tout);
	x->written++;
	if (!x->chrome) {
		uint64_t in = (uint64_t)(x->ref_real_ns + tin + 0.5), outt = (uint64_t)(x->ref_real_ns + tout + 0.5);
		fprintf(x->out, "$0;%" PRIu64 ";%s;<no-session-id>;%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%s;%u;%u\n", outt,
			signature(x, c->method), c->trace_id, in, outt, x->host, c->eoi, c->ess);
		return;
	}
	const struct emp_dump_method *m = emp_dump_method(x->r, c->method);
	const struct emp_dump_thread *th = emp_dump_thread(x->r, c->thread);
	char name[4096];
	snprintf(name, sizeof(name), "%s.%s", m ? m->klass : "undefined", m ? m->name : "symbol");
	fputs(x->first ? "\n" : ",\n", x->out);
	x->first = 0;
	fputs("{\"name\":", x->out);
	emp_json_string(x->out, name);
	fprintf(x->out, ",\"cat\":\"java\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%s,\"tid\":%" PRIu64
			",\"args\":{\"trace\":%" PRIu64 ",\"eoi\":%u,\"ess\":%u%s}}",
		tin / 1000.0, (tout - tin) / 1000.0, x->pid, th ? th->os_tid : (uint64_t)c->thread, c->trace_id, c->eoi,
		c->ess, c->threw ? ",\"threw\":true" : "");
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
	struct emp_dump_reader *r = emp_cli_open(&cli, path);
	if (!r)
		return cli.exit_code;

	struct export_ctx x = { .r = r, .chrome = chrome != NULL, .first = 1 };
	/* META comes first in every dump and the reader absorbs it with the first event: read one to get it. */
	struct emp_event ev;
	int have = emp_dump_reader_next(r, &ev);
	const char *v;
	x.ref_ticks = (v = emp_dump_meta(r, "clock_ref_ticks")) ? strtoull(v, NULL, 10) : 0;
	x.ref_real_ns = (v = emp_dump_meta(r, "clock_ref_realtime_ns")) ? strtod(v, NULL) : 0;
	x.host = (v = emp_dump_meta(r, "hostname")) && *v ? v : "unknown";
	x.pid = (v = emp_dump_meta(r, "pid")) && *v ? v : "0";
	char file[4200];
	if (kieker) {
		if (mkdir(kieker, 0755) && errno != EEXIST) {
			emp_errorf("--kieker %s: cannot create the directory: %s", kieker, strerror(errno));
			emp_dump_reader_close(r);
			return EMP_EXIT_ERROR;
		}
		snprintf(file, sizeof(file), "%s/kieker.map", kieker);
		FILE *map = fopen(file, "w");
		if (!map || fputs("$0=kieker.common.record.controlflow.OperationExecutionRecord\n", map) < 0 ||
		    fclose(map)) {
			emp_errorf("%s: cannot write: %s", file, strerror(errno));
			emp_dump_reader_close(r);
			return EMP_EXIT_ERROR;
		}
		time_t start = (time_t)(x.ref_real_ns / 1e9);
		struct tm tm;
		gmtime_r(&start, &tm);
		char stamp[32];
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		snprintf(file, sizeof(file), "%s/kieker-%s-UTC-001.dat", kieker, stamp);
	} else {
		snprintf(file, sizeof(file), "%s", chrome);
	}
	x.out = fopen(file, "w");
	if (!x.out) {
		emp_errorf("%s: cannot create: %s", file, strerror(errno));
		emp_dump_reader_close(r);
		return EMP_EXIT_ERROR;
	}
	if (chrome)
		fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", x.out);
	static const struct emp_trace_ops ops = { .on_call = on_call };
	struct emp_trace *tr = emp_trace_new(&ops, &x);
	for (; have; have = emp_dump_reader_next(r, &ev))
		emp_trace_event(tr, &ev);
	emp_trace_finish(tr);
	emp_cli_done(&cli, r);
	if (chrome) {
		for (uint32_t t = 0; t < emp_dump_thread_limit(r); t++) {
			const struct emp_dump_thread *th = emp_dump_thread(r, t);
			if (!th)
				continue;
			fputs(x.first ? "\n" : ",\n", x.out);
			x.first = 0;
			fprintf(x.out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%s,\"tid\":%" PRIu64 ",\"args\":{\"name\":",
				x.pid, th->os_tid);
			emp_json_string(x.out, th->name);
			fputs("}}", x.out);
		}
		fputs("\n]}\n", x.out);
	}
	const struct emp_trace_stats *s = emp_trace_stats(tr);
	if (fclose(x.out)) {
		emp_errorf("%s: write error: %s", file, strerror(errno));
		cli.exit_code = EMP_EXIT_ERROR;
	}
	if (s->unclosed)
		emp_errorf("%s: %" PRIu64 " calls still open at the end of the dump were not exported", path, s->unclosed);
	fprintf(stderr, "emp-analyze export: %" PRIu64 " calls written to %s\n", x.written, file);
	emp_trace_free(tr);
	for (uint32_t i = 0; i < x.nsigs; i++)
		free(x.sigs[i]);
	free(x.sigs);
	emp_dump_reader_close(r);
	return cli.exit_code;
}
