/* SPDX-License-Identifier: MIT */
/* options.c - parsing of the agent's option string; see options.h and the README's "Agent options". */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MS (1000ull * 1000ull)

/* Every option is one row of opts[] below: its name, the syntax and text `help` shows, its default and its parser.
 * The defaults are set by running each row's parser on its default text, and `help` is generated from the same rows,
 * so the help, the defaults and the parser cannot disagree. */
struct opt;
struct choice {
	const char *name;
	unsigned value;
};
typedef int (*opt_parse_fn)(struct emp_options *o, const struct opt *d, const char *val, char *err, size_t el);

struct opt {
	const char *name;
	const char *value;        /* syntax in help ("TIME"); NULL: the choices joined by '|'; "" for the flag (help) */
	const char *text;         /* what it does, for help */
	const char *def;          /* default, parsed at reset and shown in help; NULL: none, or see def_text */
	const char *def_text;     /* help's default when it depends on other options (set in emp_options_parse) */
	opt_parse_fn parse;
	const struct choice *choices; /* choice options: their values, ended by a NULL name */
	size_t field;             /* choice options: offsetof their enum; time options: offsetof their uint64_t */
	uint64_t min, max;        /* time options: the accepted range */
	int repeatable;
};

/* The rows, in help order; an option's index is its bit in emp_options_parse()'s @seen. */
enum opt_id {
	OPT_MODE, OPT_INTERVAL, OPT_CLOCK, OPT_ENGINE, OPT_THREADS, OPT_DEPTH, OPT_INCLUDE, OPT_EXCLUDE, OPT_ITERATION,
	OPT_ONFULL, OPT_OUT, OPT_WRITER, OPT_COMPRESS, OPT_WRITER_NICE, OPT_FLUSH, OPT_RINGSIZE, OPT_TIMESOURCE,
	OPT_LOG, OPT_DURATION, OPT_BUDGET, OPT_SAFEPOINTS, OPT_HELP,
	OPT_COUNT
};

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static const struct { const char *unit; uint64_t mult; } time_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", MS }, { "s", 1000 * MS },
};
#define N_TIME_UNITS (sizeof(time_units) / sizeof(time_units[0]))

/* Parse "<digits><unit>" with unit ns|us|ms|s into nanoseconds.  Return: 0 or -1. */
static int parse_time(const char *v, uint64_t *ns)
{
	char *end;
	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno)
		return -1;
	for (size_t i = 0; i < N_TIME_UNITS; i++) {
		if (!strcmp(end, time_units[i].unit)) {
			if (n > UINT64_MAX / time_units[i].mult)
				return -1;
			*ns = n * time_units[i].mult;
			return 0;
		}
	}
	return -1;
}

/* @ns in the largest unit that divides it ("100us", "10s"), the inverse of parse_time(). */
static const char *format_time(uint64_t ns, char *buf, size_t len)
{
	size_t i = N_TIME_UNITS - 1;
	while (i > 0 && ns % time_units[i].mult)
		i--;
	snprintf(buf, len, "%" PRIu64 "%s", ns / time_units[i].mult, time_units[i].unit);
	return buf;
}

/* Parse "<digits>[K|M]" into bytes. */
static int parse_size(const char *v, uint64_t *bytes)
{
	char *end;
	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || n > (1ull << 40))
		return -1;
	if (!strcmp(end, "K") || !strcmp(end, "k"))
		n <<= 10;
	else if (!strcmp(end, "M") || !strcmp(end, "m"))
		n <<= 20;
	else if (*end)
		return -1;
	*bytes = n;
	return 0;
}

static int parse_uint(const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || *end || n > max)
		return -1;
	*out = n;
	return 0;
}

static int push(char ***list, size_t *n, const char *v)
{
	char **l = realloc(*list, (*n + 1) * sizeof(*l));
	if (!l)
		return -1;
	*list = l;
	if (!(l[*n] = strdup(v)))
		return -1;
	(*n)++;
	return 0;
}

/* Replace the string option *@dst by a copy of @val. */
static int set_string(char **dst, const char *val, char *err, size_t el)
{
	char *s = strdup(val);
	if (!s)
		return fail(err, el, "out of memory");
	free(*dst);
	*dst = s;
	return 0;
}

/* "a, b or c" from a choice list. */
static void join_choices(const struct choice *c, const char *sep, const char *last, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (size_t i = 0; c[i].name; i++)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", i == 0 ? "" : c[i + 1].name ? sep : last,
				      c[i].name);
}

/* The enums that choice options set are all unsigned int to gcc (no negative enumerators). */
_Static_assert(sizeof(enum emp_mode) == sizeof(unsigned) && sizeof(enum emp_sample_clock) == sizeof(unsigned) &&
		       sizeof(enum emp_sample_engine) == sizeof(unsigned) &&
		       sizeof(enum emp_sample_threads) == sizeof(unsigned) && sizeof(enum emp_onfull) == sizeof(unsigned) &&
		       sizeof(enum emp_timesource) == sizeof(unsigned) && sizeof(enum emp_log_level) == sizeof(unsigned),
	       "choice options store an unsigned enum");

static int parse_choice(struct emp_options *o, const struct opt *d, const char *val, char *err, size_t el)
{
	for (const struct choice *c = d->choices; c->name; c++) {
		if (!strcmp(val, c->name)) {
			*(unsigned *)((char *)o + d->field) = c->value;
			return 0;
		}
	}
	char list[256];
	join_choices(d->choices, ", ", " or ", list, sizeof(list));
	return fail(err, el, "%s=%s: expected %s", d->name, val, list);
}

static int parse_time_opt(struct emp_options *o, const struct opt *d, const char *val, char *err, size_t el)
{
	uint64_t *ns = (uint64_t *)((char *)o + d->field);
	char lo[32], hi[32];
	if (parse_time(val, ns))
		return fail(err, el, "%s=%s: expected a number with unit ns, us, ms or s (e.g. %s)", d->name, val,
			    d->def ? d->def : "30s");
	if (*ns < d->min || *ns > d->max)
		return fail(err, el, "%s=%s: out of range %s .. %s", d->name, val, format_time(d->min, lo, sizeof(lo)),
			    format_time(d->max, hi, sizeof(hi)));
	return 0;
}

static int parse_depth(struct emp_options *o, const struct opt *d, const char *val, char *err, size_t el)
{
	uint64_t n;
	if (parse_uint(val, 4096, &n) || n == 0)
		return fail(err, el, "%s=%s: expected a number from 1 to 4096", d->name, val);
	o->depth = (uint32_t)n;
	return 0;
}

/* budget=PCT: a number in (0, 100].  0 or less can never hold (every probe costs something), more than 100 is no
 * budget. */
static int parse_budget(struct emp_options *o, const struct opt *d, const char *val, char *err, size_t el)
{
	char *end = NULL;
	errno = 0;
	double v = strtod(val, &end);
	if (!*val || *end || errno || !(v > 0 && v <= 100))
		return fail(err, el, "%s=%s: expected a percentage above 0 and at most 100 (a budget of 0 can never hold)",
			    d->name, val);
	o->budget_pct = v;
	return 0;
}

static int parse_out(struct emp_options *o, const struct opt *d, const char *val, char *err, size_t el)
{
	(void)d;
	if (!*val)
		return fail(err, el, "out=: empty path");
	for (const char *p = strchr(val, '%'); p; p = strchr(p + 2, '%'))
		if (p[1] != 'p' && p[1] != 't' && p[1] != '%')
			return fail(err, el, "out=%s: unknown %%-escape (use %%p, %%t or %%%%)", val);
	if (strlen(val) > 4000)
		return fail(err, el, "out=: path too long");
	return set_string(&o->out, val, err, el);
}

static int parse_writer(struct emp_options *o, const struct opt *d, const char *val, char *err, size_t el)
{
	(void)d;
	if (!strcmp(val, "file")) {
		o->writer = EMP_WRITER_FILE;
	} else if (!strcmp(val, "null")) {
		o->writer = EMP_WRITER_NULL;
	} else if (!strncmp(val, "tcp:", 4)) {
		const char *colon = strrchr(val + 4, ':');
		uint64_t port;
		if (!colon || colon == val + 4 || parse_uint(colon + 1, 65535, &port) || port == 0)
			return fail(err, el, "writer=%s: expected tcp:HOST:PORT", val);
		char *host = strndup(val + 4, (size_t)(colon - (val + 4)));
		if (!host)
			return fail(err, el, "out of memory");
		o->writer = EMP_WRITER_TCP;
		o->tcp_port = (uint16_t)port;
		free(o->tcp_host);
		o->tcp_host = host;
	} else {
		return fail(err, el, "writer=%s: expected file, null or tcp:HOST:PORT", val);
	}
	return 0;
}

/* writer_nice=N: a nice value, -20 .. 19 (setpriority(2)'s range). */
static int parse_writer_nice(struct emp_options *o, const struct opt *d, const char *val, char *err, size_t el)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(val, &end, 10);
	if (!*val || *end || errno || v < -20 || v > 19)
		return fail(err, el, "%s=%s: expected a nice value from -20 to 19", d->name, val);
	o->writer_nice = (int)v;
	o->writer_nice_given = 1;
	return 0;
}

static int parse_ringsize(struct emp_options *o, const struct opt *d, const char *val, char *err, size_t el)
{
	(void)d;
	if (parse_size(val, &o->ring_bytes))
		return fail(err, el, "ringsize=%s: expected a size such as 64K or 1M", val);
	if (o->ring_bytes < (64u << 10) || o->ring_bytes > (1024ull << 20) || (o->ring_bytes & (o->ring_bytes - 1)))
		return fail(err, el, "ringsize=%s: must be a power of two from 64K to 1024M", val);
	return 0;
}

static int parse_pattern(struct emp_options *o, const struct opt *d, const char *val, char *err, size_t el)
{
	if (!*val)
		return fail(err, el, "%s=: empty pattern", d->name);
	int inc = !strcmp(d->name, "include");
	if (push(inc ? &o->include : &o->exclude, inc ? &o->n_include : &o->n_exclude, val))
		return fail(err, el, "out of memory");
	return 0;
}

static int parse_iteration(struct emp_options *o, const struct opt *d, const char *val, char *err, size_t el)
{
	(void)d;
	const char *dot = strrchr(val, '.');
	if (!dot || dot == val || !dot[1] || strpbrk(val, "*; "))
		return fail(err, el, "iteration=%s: expected a method as pkg.Class.method", val);
	return set_string(&o->iteration, val, err, el);
}

/* help is a flag: emp_options_parse() sets it when it stands alone; with a value it lands here. */
static int parse_help(struct emp_options *o, const struct opt *d, const char *val, char *err, size_t el)
{
	(void)o;
	(void)d;
	return fail(err, el, "option help takes no value (help=%s)", val);
}

static const struct choice modes[] = { { "sample", EMP_MODE_SAMPLE }, { "trace", EMP_MODE_TRACE },
				       { "off", EMP_MODE_OFF }, { NULL, 0 } };
static const struct choice clocks[] = { { "cpu", EMP_CLOCK_CPU }, { "wall", EMP_CLOCK_WALL }, { NULL, 0 } };
static const struct choice engines[] = { { "auto", EMP_SAMPLE_ENGINE_AUTO }, { "perf", EMP_SAMPLE_ENGINE_PERF },
					 { "ctimer", EMP_SAMPLE_ENGINE_CTIMER }, { "itimer", EMP_SAMPLE_ENGINE_ITIMER },
					 { NULL, 0 } };
static const struct choice thread_sets[] = { { "all", EMP_THREADS_ALL }, { "java", EMP_THREADS_JAVA }, { NULL, 0 } };
static const struct choice onfulls[] = { { "block", EMP_ONFULL_BLOCK }, { "drop", EMP_ONFULL_DROP }, { NULL, 0 } };
static const struct choice timesources[] = { { "auto", EMP_TIME_AUTO }, { "tsc", EMP_TIME_TSC },
					     { "monotonic", EMP_TIME_MONOTONIC }, { NULL, 0 } };
static const struct choice on_off[] = { { "on", 1 }, { "off", 0 }, { NULL, 0 } };
static const struct choice compressions[] = { { "lz4", EMP_COMPRESS_LZ4 }, { "none", EMP_COMPRESS_NONE },
					       { "auto", EMP_COMPRESS_AUTO }, { NULL, 0 } };
static const struct choice levels[] = { { "error", EMP_LOG_ERROR }, { "warn", EMP_LOG_WARN },
					{ "info", EMP_LOG_INFO }, { "debug", EMP_LOG_DEBUG }, { NULL, 0 } };

#define CHOICE(list, member) .parse = parse_choice, .choices = (list), .field = offsetof(struct emp_options, member)
#define TIME(member, lo, hi) .value = "TIME", .parse = parse_time_opt, .field = offsetof(struct emp_options, member), \
	.min = (lo), .max = (hi)

static const struct opt opts[OPT_COUNT] = {
	[OPT_MODE] = { "mode", CHOICE(modes, mode), .text = "what to record", .def = "sample" },
	[OPT_INTERVAL] = { "interval", TIME(interval_ns, 100000, 10000 * MS),
			   .text = "sample mode: sampling interval, with unit ns|us|ms|s", .def = "10ms" },
	[OPT_CLOCK] = { "clock", CHOICE(clocks, clock), .def = "cpu",
			.text = "sample mode: sample CPU time of running threads, or every live thread each interval "
				"with its state" },
	[OPT_ENGINE] = { "engine", CHOICE(engines, engine), .def = "auto",
			 .text = "sample mode, clock=cpu: what sends the sampling signal: a perf_event CPU clock per "
				 "thread, a CPU-time timer per thread, or setitimer; auto takes the first that works in "
				 "that order" },
	[OPT_THREADS] = { "threads", CHOICE(thread_sets, threads), .def_text = "all with clock=cpu, java with wall",
			  .text = "sample mode: every thread of the process (Java threads, and the JVM's own: JIT "
				  "compilers, GC, VM thread, with native frames) or the Java threads only; all needs "
				  "clock=cpu" },
	[OPT_DEPTH] = { "depth", "N", "sample mode: maximum frames per sample, 1 .. 4096", "2048", .parse = parse_depth },
	[OPT_INCLUDE] = { "include", "PATTERN[;...]", .parse = parse_pattern, .repeatable = 1,
			  .text = "trace mode: methods to trace, e.g. com.acme.*, Foo*, Bar.run, *.get* (repeatable; at "
				  "least one is required in trace mode)" },
	[OPT_EXCLUDE] = { "exclude", "PATTERN[;...]", .parse = parse_pattern, .repeatable = 1,
			  .text = "trace mode: methods not to trace (repeatable; wins over include)" },
	[OPT_ITERATION] = { "iteration", "CLASS.METHOD", "each call of this method marks one iteration (both modes)",
			    .parse = parse_iteration },
	[OPT_ONFULL] = { "onfull", CHOICE(onfulls, onfull), .def = "block",
			 .text = "trace mode: a full ring makes the thread wait (nothing is lost), or drops and counts "
				 "the record" },
	[OPT_OUT] = { "out", "PATH", "dump file; %p = pid, %t = start time, %% = %", "emp-%p.emp", .parse = parse_out },
	[OPT_WRITER] = { "writer", "file|null|tcp:HOST:PORT", .def = "file", .parse = parse_writer,
			 .text = "where records go: LZ4 dump file, nowhere (measures the probes alone), or the same "
				 "bytes streamed to `emp-analyze receive`" },
	[OPT_COMPRESS] = { "compress", CHOICE(compressions, compress), .def = "auto",
			   .text = "the dump's chunks LZ4-compressed, stored (the same format, about twice the bytes for "
				   "a third less of the writer's CPU time), or auto: compressed, but stored while the writer "
				   "is behind the traced threads (a ring half full when drained), so that they wait less" },
	[OPT_WRITER_NICE] = { "writer_nice", "N", .def_text = "19 below the JVM's, at least -20: -19",
			      .parse = parse_writer_nice,
			      .text = "the writer thread's nice value, -20 .. 19: above the traced threads, it drains "
				      "their rings before they fill where they would wait for it (ring_full_waits); "
				      "going below the JVM's needs CAP_SYS_NICE or RLIMIT_NICE, and when refused the "
				      "writer takes what RLIMIT_NICE allows, or keeps the JVM's (the dump's meta "
				      "writer_nice says what it got)" },
	[OPT_FLUSH] = { "flush", TIME(flush_ns, 10 * MS, 60000 * MS), .def = "1s",
			.text = "the writer writes complete chunks at least this often, so a killed JVM leaves a dump "
				"readable up to then" },
	[OPT_RINGSIZE] = { "ringsize", "SIZE", .def_text = "1M in trace mode, 256K otherwise; 64K .. 1024M",
			   .parse = parse_ringsize,
			   .text = "per-thread ring buffer, power of two, with K|M suffix" },
	[OPT_TIMESOURCE] = { "timesource", CHOICE(timesources, timesource), .def = "auto",
			     .text = "event clock: invariant TSC when the CPU has one, else CLOCK_MONOTONIC" },
	[OPT_LOG] = { "log", CHOICE(levels, log), .def = "warn",
		      .text = "agent messages on stderr; nothing is ever printed on stdout" },
	[OPT_DURATION] = { "duration", TIME(duration_ns, 100 * MS, 86400000 * MS), .def_text = "until the JVM ends",
			   .text = "end the recording after this time and finish the dump; the program goes on (also "
				   "`emp-attach PID stop`)" },
	[OPT_BUDGET] = { "budget", "PCT", .def_text = "none: every selected call is recorded", .parse = parse_budget,
			 .text = "trace mode: keep the probes' cost under PCT % of the traced threads' CPU time by removing "
				 "the probes of the methods that cost most for the time they account for (tiny, hot "
				 "ones first); each is named in the dump; methods of under 36 bytecode bytes are not "
				 "instrumented" },
	[OPT_SAFEPOINTS] = { "safepoints", CHOICE(on_off, safepoints), .def = "on",
			     .text = "every mode: record the JVM's safepoint pauses (a native thread polls HotSpot's "
				     "sun.rt.safepoint* counters every millisecond)" },
	[OPT_HELP] = { "help", "", "print this text on stderr and exit with status 0", .parse = parse_help },
};

static const struct opt *find_opt(const char *name)
{
	for (size_t i = 0; i < OPT_COUNT; i++)
		if (!strcmp(opts[i].name, name))
			return &opts[i];
	return NULL;
}

/* Append @s to the help text at *@n, breaking lines before column HELP_WIDTH and indenting continuations; @whole
 * keeps @s on one line (the "(default: ...)" tail). */
#define HELP_COLUMN 26
#define HELP_WIDTH 100
static void help_wrap(char *buf, size_t len, size_t *n, size_t *col, const char *s, int whole)
{
	while (*s) {
		size_t w = whole ? strlen(s) : strcspn(s, " ");
		if (*col > HELP_COLUMN && *col + 1 + w > HELP_WIDTH) {
			*n += (size_t)snprintf(buf + *n, len - *n, "\n%*s", HELP_COLUMN, "");
			*col = HELP_COLUMN;
		} else if (*col > HELP_COLUMN) {
			*n += (size_t)snprintf(buf + *n, len - *n, " ");
			(*col)++;
		}
		*n += (size_t)snprintf(buf + *n, len - *n, "%.*s", (int)w, s);
		*col += w;
		s += w;
		s += strspn(s, " ");
	}
}

const char *emp_options_help(void)
{
	static char buf[8192];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "emp agent options: -agentpath:libemp.so=key=value,key=value,...\n");
	for (size_t i = 0; i < OPT_COUNT; i++) {
		const struct opt *d = &opts[i];
		char syntax[128], value[96], tail[160] = "", lo[32], hi[32];
		if (d->value)
			snprintf(value, sizeof(value), "%s", d->value);
		else
			join_choices(d->choices, "|", "|", value, sizeof(value));
		int w = snprintf(syntax, sizeof(syntax), "%s%s%s", d->name, *value ? "=" : "", value);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "  %-*s", HELP_COLUMN - 2, syntax);
		size_t col = HELP_COLUMN;
		if (w > HELP_COLUMN - 3) /* the syntax leaves no room: the text starts on the next line */
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\n%*s", HELP_COLUMN, "");
		help_wrap(buf, sizeof(buf), &n, &col, d->text, 0);
		if (d->parse == parse_time_opt)
			snprintf(tail, sizeof(tail), "(default: %s; %s .. %s)", d->def ? d->def : d->def_text,
				 format_time(d->min, lo, sizeof(lo)), format_time(d->max, hi, sizeof(hi)));
		else if (d->def || d->def_text)
			snprintf(tail, sizeof(tail), "(default: %s)", d->def ? d->def : d->def_text);
		help_wrap(buf, sizeof(buf), &n, &col, tail, 1);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\n");
	}
	return buf;
}

const char *emp_mode_name(enum emp_mode m)
{
	for (const struct choice *c = modes; c->name; c++)
		if (c->value == (unsigned)m)
			return c->name;
	return "unknown";
}

const char *emp_writer_name(enum emp_writer_kind w)
{
	switch (w) {
	case EMP_WRITER_FILE:
		return "file";
	case EMP_WRITER_NULL:
		return "null";
	case EMP_WRITER_TCP:
		return "tcp";
	}
	return "unknown";
}

/* One key=value, already split.  @seen records which single-valued keys appeared, to refuse repeats. */
static int parse_one(struct emp_options *o, const char *key, const char *val, unsigned *seen, char *err, size_t el)
{
	const struct opt *d = find_opt(key);
	if (!d)
		return fail(err, el, "unknown option '%s' (try help)", key);
	unsigned bit = 1u << (d - opts);
	if (!d->repeatable && (*seen & bit))
		return fail(err, el, "option %s given twice", key);
	*seen |= bit;
	return d->parse(o, d, val, err, el);
}

#define GIVEN(seen, id) ((seen) & (1u << (id)))

int emp_options_parse(const char *text, struct emp_options *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < OPT_COUNT; i++)
		if (opts[i].def && opts[i].parse(o, &opts[i], opts[i].def, err, errlen))
			return -1; /* out of memory: the defaults themselves are checked by the unit tests */
	o->text = strdup(text ? text : "");
	if (!o->text)
		return fail(err, errlen, "out of memory");

	unsigned seen = 0;
	const char *p = o->text;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char item[4096];
		if (n == 0)
			return fail(err, errlen, "empty option (two commas, or a comma at the start or end)");
		if (n >= sizeof(item))
			return fail(err, errlen, "option too long: %.40s...", p);
		memcpy(item, p, n);
		item[n] = 0;
		char *eq = strchr(item, '=');
		if (!eq) {
			const struct opt *d = find_opt(item);
			if (d == &opts[OPT_HELP])
				o->help = 1;
			else if (d)
				return fail(err, errlen, "option '%s' needs a value (key=value; try help)", item);
			else
				return fail(err, errlen, "unknown option '%s' (try help)", item);
		} else {
			*eq = 0;
			if (!*item)
				return fail(err, errlen, "option '=%s' has no name", eq + 1);
			if (parse_one(o, item, eq + 1, &seen, err, errlen))
				return -1;
		}
		if (!comma)
			break;
		p = comma + 1;
		if (!*p)
			return fail(err, errlen, "empty option (two commas, or a comma at the start or end)");
	}
	/* The defaults that depend on other options (their rows' def_text says which). */
	if (!GIVEN(seen, OPT_RINGSIZE))
		o->ring_bytes = o->mode == EMP_MODE_TRACE ? 1u << 20 : 256u << 10;
	if (o->help)
		return 0;
	/* Cross-option checks: options that would silently do nothing are refused. */
	if (o->mode == EMP_MODE_TRACE && !o->n_include)
		return fail(err, errlen, "mode=trace needs at least one include= pattern");
	if (o->mode != EMP_MODE_TRACE && (o->n_include || o->n_exclude))
		return fail(err, errlen, "%s= applies to mode=trace only (mode is %s)", o->n_include ? "include" : "exclude",
			    emp_mode_name(o->mode));
	static const enum opt_id sample_only[] = { OPT_INTERVAL, OPT_CLOCK, OPT_DEPTH, OPT_ENGINE, OPT_THREADS };
	for (size_t i = 0; i < sizeof(sample_only) / sizeof(sample_only[0]); i++)
		if (o->mode != EMP_MODE_SAMPLE && GIVEN(seen, sample_only[i]))
			return fail(err, errlen, "%s= applies to mode=sample only (mode is %s)", opts[sample_only[i]].name,
				    emp_mode_name(o->mode));
	if (o->clock == EMP_CLOCK_WALL && o->engine != EMP_SAMPLE_ENGINE_AUTO)
		return fail(err, errlen, "engine= applies to clock=cpu only (clock=wall signals the threads itself)");
	/* The JVM's own threads are idle most of the time: wall-clock samples of them would only say so, at the cost
	 * of a signal per thread per interval.  So threads=all is the default for clock=cpu only, and refused with
	 * clock=wall rather than silently narrowed. */
	if (!GIVEN(seen, OPT_THREADS))
		o->threads = o->clock == EMP_CLOCK_WALL ? EMP_THREADS_JAVA : EMP_THREADS_ALL;
	else if (o->clock == EMP_CLOCK_WALL && o->threads == EMP_THREADS_ALL)
		return fail(err, errlen, "threads=all applies to clock=cpu only (wall-clock samples of idle JVM threads "
					 "say nothing; use threads=java)");
	if (o->mode != EMP_MODE_TRACE && GIVEN(seen, OPT_BUDGET))
		return fail(err, errlen, "budget= applies to mode=trace only (mode is %s)", emp_mode_name(o->mode));
	if (o->mode != EMP_MODE_TRACE && GIVEN(seen, OPT_ONFULL))
		return fail(err, errlen, "onfull= applies to mode=trace only (mode is %s)", emp_mode_name(o->mode));
	if (o->mode == EMP_MODE_OFF && o->iteration)
		return fail(err, errlen, "iteration= needs mode=sample or mode=trace (mode is off)");
	if (o->writer != EMP_WRITER_FILE && GIVEN(seen, OPT_OUT))
		return fail(err, errlen, "out= applies to writer=file only (writer is %s)", emp_writer_name(o->writer));
	return 0;
}

int emp_options_check_attach(const struct emp_options *o, char *err, size_t errlen)
{
	if (o->help)
		return fail(err, errlen, "help: run `emp-attach --help`; nothing was started");
	if (o->mode == EMP_MODE_SAMPLE && o->threads != EMP_THREADS_ALL)
		return fail(err, errlen, "mode=sample in a running JVM needs clock=cpu,threads=all (the threads that run "
					 "already are found only that way)");
	return 0;
}

void emp_options_free(struct emp_options *o)
{
	for (size_t i = 0; i < o->n_include; i++)
		free(o->include[i]);
	for (size_t i = 0; i < o->n_exclude; i++)
		free(o->exclude[i]);
	free(o->include);
	free(o->exclude);
	free(o->out);
	free(o->tcp_host);
	free(o->iteration);
	free(o->text);
	memset(o, 0, sizeof(*o));
}

int emp_options_out_path(const char *tmpl, pid_t pid, int64_t start, char *out, size_t len)
{
	size_t n = 0;
	char tmp[32];
	for (const char *p = tmpl; *p; p++) {
		const char *add = NULL;
		size_t addn = 1;
		if (*p == '%' && p[1] == 'p') {
			snprintf(tmp, sizeof(tmp), "%ld", (long)pid);
			add = tmp;
			p++;
		} else if (*p == '%' && p[1] == 't') {
			time_t t = (time_t)start;
			struct tm tm;
			gmtime_r(&t, &tm);
			strftime(tmp, sizeof(tmp), "%Y%m%dT%H%M%SZ", &tm);
			add = tmp;
			p++;
		} else if (*p == '%' && p[1] == '%') {
			add = "%";
			p++;
		} else {
			add = p;
		}
		if (add != p)
			addn = strlen(add);
		if (n + addn >= len)
			return -1;
		memcpy(out + n, add, addn);
		n += addn;
	}
	if (n >= len)
		return -1;
	out[n] = 0;
	return 0;
}
