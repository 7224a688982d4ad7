/* SPDX-License-Identifier: MIT */
/* cmd_export.c - emp-analyze export: traced calls as a Kieker file-system log or as Chrome trace-event JSON.
 *
 * Kieker (--kieker DIR), the layout Kieker 2.0's own file writer produces (TextMapFileHandler,
 * TextLogStreamHandler, RotatingLogFilePoolHandler) and its FSReader / AsciiLogReader read:
 *   DIR/kieker.map                        $0=kieker.common.record.misc.KiekerMetadataRecord
 *                                         $1=kieker.common.record.controlflow.OperationExecutionRecord
 *   DIR/kieker-<yyyyMMdd-HHmmssSSS>-UTC-001.dat, first the metadata record (as Kieker's MonitoringController writes
 *   it: numberOfRecords 0, timeOffset 0, timeUnit NANOSECONDS)
 *     $0;<start>;emp;emp;<hostname>;0;false;0;NANOSECONDS;0
 *   then one OperationExecutionRecord per call, written at the call's exit (deepest first, as Kieker's probes write):
 *     $1;<loggingTimestamp>;<operationSignature>;<sessionId>;<traceId>;<tin>;<tout>;<hostname>;<eoi>;<ess>
 * Timestamps are integer ns since the epoch (the dump's clock reference plus the rounded offset: no floating-point
 * sum, which would lose the low bits of a 19-digit number), loggingTimestamp = tout, sessionId "<no-session-id>"
 * (Kieker's NO_SESSION_ID).  The signature is built from the method's descriptor in the form Kieker's AspectJ
 * probes write and ClassOperationSignaturePair parses: `public <return type> pkg.Cls.m(int, java.lang.String[])`;
 * the dump does not record modifiers, so every method is written `public` (Kieker's trace analysis shows the
 * modifiers, nothing more); constructors `public pkg.Cls.<init>(int)` (no return type: the analysis recognises
 * "<init>"), class initialisers `static void pkg.Cls.<clinit>()`.  A ';' in a string is escaped as Kieker's
 * TextValueSerializer does (\;), a line break becomes a space.
 *
 * Chrome (--chrome OUT): {"traceEvents":[...]} with one complete event ("ph":"X") per call, ts/dur in µs with three
 * decimals (exact ns) relative to the start of the recording, pid = the JVM's pid, tid = the OS thread id (a virtual
 * thread, which has none: 2^22 + its dump thread id, above any Linux tid, so each gets a track of its own), args
 * eoi/ess/trace; plus process_name and thread_name metadata events.  Perfetto and chrome://tracing open it; the
 * ns are rounded before ts and dur are derived, so a callee never ends after its caller.
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
	"  --kieker DIR   a Kieker file-system log: DIR/kieker.map and a .dat file with a KiekerMetadataRecord and\n"
	"                 one OperationExecutionRecord per call (eoi/ess, tin/tout in ns since the epoch) that\n"
	"                 Kieker's trace analysis reads; signatures are `public <ret> pkg.Cls.m(<params>)`\n"
	"                 (modifiers are not recorded: always public)\n"
	"  --chrome OUT   Chrome trace-event JSON (complete \"X\" events per call, pid/tid) for Perfetto\n"
	"Calls still open at the end of the dump are written as ending at the end of the recording (Chrome:\n"
	"args \"unfinished\":true); their count is printed on stderr.\n";

/* Write @s as one field of a Kieker ASCII record: ';' escaped as Kieker's TextValueSerializer does, line breaks
 * (which would end the record) as spaces. */
static void kieker_string(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == ';')
			fputs("\\;", out);
		else
			fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	}
}

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

/* The Kieker operation signature of a method symbol (malloc'ed), see the file comment. */
static char *kieker_signature(const struct emp_dump_method *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		emp_die("out of memory");
	const char *d = m->descriptor;
	const char *ret = d ? strchr(d, ')') : NULL;
	if (!strcmp(m->name, "<init>")) {
		fputs("public ", out);
	} else if (!strcmp(m->name, "<clinit>")) {
		fputs("static void ", out);
	} else {
		fputs("public ", out);
		const char *r = ret ? ret + 1 : NULL;
		if (!r || !*r || java_type(out, &r))
			fputs("void", out);
		fputc(' ', out);
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
	if (fclose(out))
		emp_die("out of memory");
	return buf;
}

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
	int first;
	uint64_t ref_ticks;     /* clock_ref_ticks of META */
	uint64_t ref_real_ns;   /* clock_ref_realtime_ns of META */
	const char *host;
	const char *pid;
	char **sigs;            /* Kieker signature per local method id, built on first use */
	uint32_t nsigs;
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

/* Print @ns as µs with exactly three decimals (no binary floating point in between). */
static void put_us(FILE *out, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	fprintf(out, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
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

/* The Chrome tid of dump thread @thread (@th its symbol, or NULL): the OS thread id, or for a virtual thread (no OS
 * thread of its own) 2^22 + @thread, above Linux's largest pid_max. */
static uint64_t chrome_tid(const struct emp_dump_thread *th, uint32_t thread)
{
	if (!th)
		return thread;
	return th->flags & EMP_THREAD_VIRTUAL ? (UINT64_C(1) << 22) + thread : th->os_tid;
}
static void write_call(struct export_ctx *x, uint32_t thread, const struct open_call *c, uint64_t tout_ticks,
		       int threw, int unfinished)
{
	int64_t tin = rel_ns(x, c->tin), tout = rel_ns(x, tout_ticks);
	x->written++;
	x->unfinished += (uint64_t)unfinished;
	if (!x->chrome) {
		uint64_t in = x->ref_real_ns + (uint64_t)tin, outt = x->ref_real_ns + (uint64_t)tout;
		fprintf(x->out, "$1;%" PRIu64 ";", outt);
		kieker_string(x->out, signature(x, c->method));
		fprintf(x->out, ";<no-session-id>;%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";", c->trace_id, in, outt);
		kieker_string(x->out, x->host);
		fprintf(x->out, ";%u;%u\n", c->eoi, c->ess);
		return;
	}
	const struct emp_dump_method *m = emp_dump_method(x->r, c->method);
	const struct emp_dump_thread *th = emp_dump_thread(x->r, thread);
	char name[4096];
	snprintf(name, sizeof(name), "%s.%s", m ? m->klass : "undefined", m ? m->name : "symbol");
	fputs(x->first ? "\n" : ",\n", x->out);
	x->first = 0;
	fputs("{\"name\":", x->out);
	emp_json_string(x->out, name);
	fputs(",\"cat\":\"java\",\"ph\":\"X\",\"ts\":", x->out);
	put_us(x->out, tin);
	fputs(",\"dur\":", x->out);
	put_us(x->out, tout - tin);
	fprintf(x->out, ",\"pid\":%s,\"tid\":%" PRIu64 ",\"args\":{\"trace\":%" PRIu64 ",\"eoi\":%u,\"ess\":%u%s%s}}",
		x->pid, chrome_tid(th, thread), c->trace_id, c->eoi, c->ess, threw ? ",\"threw\":true" : "",
		unfinished ? ",\"unfinished\":true" : "");
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

/* Create DIR/kieker.map and return the name of the .dat file (in @file) named after the recording's start. */
static int kieker_files(const char *dir, uint64_t start_ns, char *file, size_t len)
{
	if (mkdir(dir, 0755) && errno != EEXIST) {
		emp_errorf("--kieker %s: cannot create the directory: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(file, len, "%s/kieker.map", dir);
	FILE *map = fopen(file, "w");
	if (!map || fputs("$0=kieker.common.record.misc.KiekerMetadataRecord\n"
			  "$1=kieker.common.record.controlflow.OperationExecutionRecord\n", map) < 0 || fclose(map)) {
		emp_errorf("%s: cannot write: %s", file, strerror(errno));
		return -1;
	}
	time_t start = (time_t)(start_ns / 1000000000u);
	struct tm tm;
	gmtime_r(&start, &tm);
	char stamp[32];
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(file, len, "%s/kieker-%s%03u-UTC-001.dat", dir, stamp, (unsigned)(start_ns / 1000000u % 1000u));
	return 0;
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

	struct export_ctx x = { .r = r, .chrome = chrome != NULL, .first = 1 };
	/* META comes first in every dump and the reader absorbs it with the first event: read one to get it. */
	struct emp_event ev;
	int have = emp_dump_reader_next(r, &ev);
	const char *v;
	x.ref_ticks = (v = emp_dump_meta(r, "clock_ref_ticks")) ? strtoull(v, NULL, 10) : 0;
	x.ref_real_ns = (v = emp_dump_meta(r, "clock_ref_realtime_ns")) ? strtoull(v, NULL, 10) : 0;
	x.host = (v = emp_dump_meta(r, "hostname")) && *v ? v : "<default-host>";
	x.pid = (v = emp_dump_meta(r, "pid")) && *v ? v : "0";
	char file[4200];
	if (kieker && kieker_files(kieker, x.ref_real_ns, file, sizeof(file))) {
		emp_dump_reader_close(r);
		return EMP_EXIT_ERROR;
	}
	if (chrome)
		snprintf(file, sizeof(file), "%s", chrome);
	x.out = fopen(file, "w");
	if (!x.out) {
		emp_errorf("%s: cannot create: %s", file, strerror(errno));
		emp_dump_reader_close(r);
		return EMP_EXIT_ERROR;
	}
	if (chrome) {
		fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", x.out);
	} else {
		fprintf(x.out, "$0;%" PRIu64 ";emp;emp;", x.ref_real_ns);
		kieker_string(x.out, x.host);
		fputs(";0;false;0;NANOSECONDS;0\n", x.out);
	}
	static const struct emp_trace_ops ops = { .on_enter = on_enter, .on_call = on_call };
	struct emp_trace *tr = emp_trace_new(&ops, &x);
	for (; have; have = emp_dump_reader_next(r, &ev)) {
		if (ev.kind != EMP_EV_SAMPLE && ev.ticks > x.last_ticks)
			x.last_ticks = ev.ticks;
		emp_trace_event(tr, &ev);
	}
	uint64_t end_ticks = (v = emp_dump_end_value(r, "clock_end_ticks")) ? strtoull(v, NULL, 10) : 0;
	write_unfinished(&x, end_ticks > x.last_ticks ? end_ticks : x.last_ticks);
	emp_trace_finish(tr, r);
	emp_input_done(&cli.in, r);
	if (chrome) {
		const char *cmd = emp_dump_meta(r, "command");
		fputs(x.first ? "\n" : ",\n", x.out);
		x.first = 0;
		fprintf(x.out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%s,\"args\":{\"name\":", x.pid);
		emp_json_string(x.out, cmd && *cmd ? cmd : "java");
		fputs("}}", x.out);
		for (uint32_t t = 0; t < emp_dump_thread_limit(r); t++) {
			const struct emp_dump_thread *th = emp_dump_thread(r, t);
			if (!th)
				continue;
			fprintf(x.out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%s,\"tid\":%" PRIu64
					",\"args\":{\"name\":", x.pid, chrome_tid(th, t));
			emp_json_string(x.out, th->name);
			fputs("}}", x.out);
		}
		fputs("\n]}\n", x.out);
	}
	if (fclose(x.out)) {
		emp_errorf("%s: write error: %s", file, strerror(errno));
		cli.in.exit_code = EMP_EXIT_ERROR;
	}
	if (x.unfinished)
		emp_errorf("%s: %" PRIu64 " calls still open at the end of the dump were written as ending with the "
			   "recording", path, x.unfinished);
	fprintf(stderr, "emp-analyze export: %" PRIu64 " calls written to %s\n", x.written, file);
	emp_trace_free(tr);
	for (uint32_t i = 0; i < x.nsigs; i++)
		free(x.sigs[i]);
	free(x.sigs);
	for (uint32_t i = 0; i < x.nopen; i++)
		free(x.open[i].v);
	free(x.open);
	emp_dump_reader_close(r);
	return cli.in.exit_code;
}
