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

static const char help_text[] =
	"emp agent options: -agentpath:libemp.so=key=value,key=value,...\n"
	"  mode=sample|trace|off   what to record (default: sample)\n"
	"  interval=TIME           sample mode: sampling interval, with unit ns|us|ms|s (default: 10ms;\n"
	"                          100us .. 10s)\n"
	"  clock=cpu|wall          sample mode: sample CPU time of running threads, or every live thread\n"
	"                          each interval with its state (default: cpu)\n"
	"  engine=auto|perf|ctimer|itimer\n"
	"                          sample mode, clock=cpu: what sends the sampling signal: a perf_event CPU\n"
	"                          clock per thread, a CPU-time timer per thread, or setitimer; auto takes the\n"
	"                          first that works in that order (default: auto)\n"
	"  threads=all|java        sample mode: every thread of the process (Java threads, and the JVM's own:\n"
	"                          JIT compilers, GC, VM thread, with native frames) or the Java threads only;\n"
	"                          all needs clock=cpu (default: all with clock=cpu, java with wall)\n"
	"  depth=N                 sample mode: maximum frames per sample, 1 .. 4096 (default: 2048)\n"
	"  include=PATTERN[;...]   trace mode: methods to trace, e.g. com.acme.*, Foo*, Bar.run, *.get*\n"
	"                          (repeatable; at least one is required in trace mode)\n"
	"  exclude=PATTERN[;...]   trace mode: methods not to trace (repeatable; wins over include)\n"
	"  iteration=CLASS.METHOD  each call of this method marks one iteration (both modes)\n"
	"  onfull=block|drop       trace mode: a full ring makes the thread wait, or drops and counts the\n"
	"                          record (default: block: nothing is lost)\n"
	"  out=PATH                dump file; %p = pid, %t = start time, %% = % (default: emp-%p.emp)\n"
	"  writer=file|null|tcp:HOST:PORT\n"
	"                          where records go: LZ4 dump file, nowhere (measures the probes alone),\n"
	"                          or the same bytes streamed to `emp-analyze receive` (default: file)\n"
	"  flush=TIME              the writer writes complete chunks at least this often, so a killed JVM\n"
	"                          leaves a dump readable up to then (default: 1s; 10ms .. 60s)\n"
	"  ringsize=SIZE           per-thread ring buffer, power of two, with K|M suffix (default: 1M in\n"
	"                          trace mode, 256K otherwise; 64K .. 1024M)\n"
	"  timesource=auto|tsc|monotonic\n"
	"                          event clock: invariant TSC when the CPU has one, else CLOCK_MONOTONIC\n"
	"                          (default: auto)\n"
	"  log=error|warn|info|debug\n"
	"                          agent messages on stderr (default: warn); nothing is ever printed on stdout\n"
	"  help                    print this text and stop the JVM\n";

const char *emp_options_help(void)
{
	return help_text;
}

const char *emp_mode_name(enum emp_mode m)
{
	switch (m) {
	case EMP_MODE_OFF:
		return "off";
	case EMP_MODE_SAMPLE:
		return "sample";
	case EMP_MODE_TRACE:
		return "trace";
	}
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

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Parse "<digits><unit>" with unit ns|us|ms|s into nanoseconds.  Return: 0 or -1. */
static int parse_time(const char *v, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t mult; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", MS }, { "s", 1000 * MS },
	};
	char *end;
	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			if (n > UINT64_MAX / units[i].mult)
				return -1;
			*ns = n * units[i].mult;
			return 0;
		}
	}
	return -1;
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

/* Options that take one value; their index is their bit in parse_one()'s @seen. */
static const char *const single[] = { "mode", "interval", "clock", "depth", "out", "writer", "onfull",
				      "flush", "ringsize", "timesource", "log", "iteration", "engine", "threads" };

/* Whether @key names an option that takes a value (to tell "mode" without =value from a misspelt name). */
static int known_key(const char *key)
{
	for (unsigned i = 0; i < sizeof(single) / sizeof(single[0]); i++)
		if (!strcmp(key, single[i]))
			return 1;
	return !strcmp(key, "include") || !strcmp(key, "exclude");
}

/* One key=value, already split.  @seen records which single-valued keys appeared, to refuse repeats. */
static int parse_one(struct emp_options *o, const char *key, const char *val, unsigned *seen, char *err, size_t el)
{
	for (unsigned i = 0; i < sizeof(single) / sizeof(single[0]); i++) {
		if (!strcmp(key, single[i])) {
			if (*seen & (1u << i))
				return fail(err, el, "option %s given twice", key);
			*seen |= 1u << i;
		}
	}
	if (!strcmp(key, "mode")) {
		if (!strcmp(val, "sample"))
			o->mode = EMP_MODE_SAMPLE;
		else if (!strcmp(val, "trace"))
			o->mode = EMP_MODE_TRACE;
		else if (!strcmp(val, "off"))
			o->mode = EMP_MODE_OFF;
		else
			return fail(err, el, "mode=%s: expected sample, trace or off", val);
	} else if (!strcmp(key, "interval")) {
		if (parse_time(val, &o->interval_ns))
			return fail(err, el, "interval=%s: expected a number with unit ns, us, ms or s (e.g. 10ms)", val);
		if (o->interval_ns < 100000 || o->interval_ns > 10000 * MS)
			return fail(err, el, "interval=%s: out of range 100us .. 10s", val);
	} else if (!strcmp(key, "clock")) {
		if (!strcmp(val, "cpu"))
			o->clock = EMP_CLOCK_CPU;
		else if (!strcmp(val, "wall"))
			o->clock = EMP_CLOCK_WALL;
		else
			return fail(err, el, "clock=%s: expected cpu or wall", val);
	} else if (!strcmp(key, "engine")) {
		static const char *const engines[] = { "auto", "perf", "ctimer", "itimer" };
		unsigned i;
		for (i = 0; i < 4 && strcmp(val, engines[i]); i++)
			;
		if (i == 4)
			return fail(err, el, "engine=%s: expected auto, perf, ctimer or itimer", val);
		o->engine = (enum emp_sample_engine)i;
	} else if (!strcmp(key, "threads")) {
		if (!strcmp(val, "all"))
			o->threads = EMP_THREADS_ALL;
		else if (!strcmp(val, "java"))
			o->threads = EMP_THREADS_JAVA;
		else
			return fail(err, el, "threads=%s: expected all or java", val);
	} else if (!strcmp(key, "depth")) {
		uint64_t d;
		if (parse_uint(val, 4096, &d) || d == 0)
			return fail(err, el, "depth=%s: expected a number from 1 to 4096", val);
		o->depth = (uint32_t)d;
	} else if (!strcmp(key, "out")) {
		if (!*val)
			return fail(err, el, "out=: empty path");
		for (const char *p = strchr(val, '%'); p; p = strchr(p + 2, '%'))
			if (p[1] != 'p' && p[1] != 't' && p[1] != '%')
				return fail(err, el, "out=%s: unknown %%-escape (use %%p, %%t or %%%%)", val);
		if (strlen(val) > 4000)
			return fail(err, el, "out=: path too long");
		free(o->out);
		if (!(o->out = strdup(val)))
			return fail(err, el, "out of memory");
	} else if (!strcmp(key, "writer")) {
		if (!strcmp(val, "file")) {
			o->writer = EMP_WRITER_FILE;
		} else if (!strcmp(val, "null")) {
			o->writer = EMP_WRITER_NULL;
		} else if (!strncmp(val, "tcp:", 4)) {
			const char *colon = strrchr(val + 4, ':');
			uint64_t port;
			if (!colon || colon == val + 4 || parse_uint(colon + 1, 65535, &port) || port == 0)
				return fail(err, el, "writer=%s: expected tcp:HOST:PORT", val);
			o->writer = EMP_WRITER_TCP;
			o->tcp_port = (uint16_t)port;
			free(o->tcp_host);
			if (!(o->tcp_host = strndup(val + 4, (size_t)(colon - (val + 4)))))
				return fail(err, el, "out of memory");
		} else {
			return fail(err, el, "writer=%s: expected file, null or tcp:HOST:PORT", val);
		}
	} else if (!strcmp(key, "onfull")) {
		if (!strcmp(val, "block"))
			o->onfull = EMP_ONFULL_BLOCK;
		else if (!strcmp(val, "drop"))
			o->onfull = EMP_ONFULL_DROP;
		else
			return fail(err, el, "onfull=%s: expected block or drop", val);
	} else if (!strcmp(key, "flush")) {
		if (parse_time(val, &o->flush_ns))
			return fail(err, el, "flush=%s: expected a number with unit ns, us, ms or s (e.g. 1s)", val);
		if (o->flush_ns < 10 * MS || o->flush_ns > 60000 * MS)
			return fail(err, el, "flush=%s: out of range 10ms .. 60s", val);
	} else if (!strcmp(key, "ringsize")) {
		if (parse_size(val, &o->ring_bytes))
			return fail(err, el, "ringsize=%s: expected a size such as 64K or 1M", val);
		if (o->ring_bytes < (64u << 10) || o->ring_bytes > (1024ull << 20) ||
		    (o->ring_bytes & (o->ring_bytes - 1)))
			return fail(err, el, "ringsize=%s: must be a power of two from 64K to 1024M", val);
	} else if (!strcmp(key, "timesource")) {
		if (!strcmp(val, "auto"))
			o->timesource = EMP_TIME_AUTO;
		else if (!strcmp(val, "tsc"))
			o->timesource = EMP_TIME_TSC;
		else if (!strcmp(val, "monotonic"))
			o->timesource = EMP_TIME_MONOTONIC;
		else
			return fail(err, el, "timesource=%s: expected auto, tsc or monotonic", val);
	} else if (!strcmp(key, "log")) {
		static const char *const levels[] = { "error", "warn", "info", "debug" };
		unsigned i;
		for (i = 0; i < 4 && strcmp(val, levels[i]); i++)
			;
		if (i == 4)
			return fail(err, el, "log=%s: expected error, warn, info or debug", val);
		o->log = (enum emp_log_level)i;
	} else if (!strcmp(key, "include") || !strcmp(key, "exclude")) {
		if (!*val)
			return fail(err, el, "%s=: empty pattern", key);
		int inc = key[0] == 'i';
		if (push(inc ? &o->include : &o->exclude, inc ? &o->n_include : &o->n_exclude, val))
			return fail(err, el, "out of memory");
	} else if (!strcmp(key, "iteration")) {
		const char *dot = strrchr(val, '.');
		if (!dot || dot == val || !dot[1] || strpbrk(val, "*; "))
			return fail(err, el, "iteration=%s: expected a method as pkg.Class.method", val);
		free(o->iteration);
		if (!(o->iteration = strdup(val)))
			return fail(err, el, "out of memory");
	} else if (!strcmp(key, "help")) {
		return fail(err, el, "option help takes no value (help=%s)", val);
	} else {
		return fail(err, el, "unknown option '%s' (try help)", key);
	}
	return 0;
}

int emp_options_parse(const char *text, struct emp_options *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->mode = EMP_MODE_SAMPLE;
	o->interval_ns = 10 * MS;
	o->clock = EMP_CLOCK_CPU;
	o->engine = EMP_SAMPLE_ENGINE_AUTO;
	o->depth = 2048;
	o->writer = EMP_WRITER_FILE;
	o->onfull = EMP_ONFULL_BLOCK;
	o->flush_ns = 1000 * MS;
	o->ring_bytes = 0; /* chosen by mode below unless given */
	o->timesource = EMP_TIME_AUTO;
	o->log = EMP_LOG_WARN;
	o->out = strdup("emp-%p.emp");
	o->text = strdup(text ? text : "");
	if (!o->out || !o->text)
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
			if (!strcmp(item, "help"))
				o->help = 1;
			else if (known_key(item))
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
	if (!o->ring_bytes)
		o->ring_bytes = o->mode == EMP_MODE_TRACE ? 1u << 20 : 256u << 10;
	if (o->help)
		return 0;
	/* Cross-option checks: options that would silently do nothing are refused. */
	if (o->mode == EMP_MODE_TRACE && !o->n_include)
		return fail(err, errlen, "mode=trace needs at least one include= pattern");
	if (o->mode != EMP_MODE_TRACE && (o->n_include || o->n_exclude))
		return fail(err, errlen, "%s= applies to mode=trace only (mode is %s)", o->n_include ? "include" : "exclude",
			    emp_mode_name(o->mode));
	if (o->mode != EMP_MODE_SAMPLE && (seen & (1u << 1 | 1u << 2 | 1u << 3)))
		return fail(err, errlen, "%s= applies to mode=sample only (mode is %s)",
			    seen & 2 ? "interval" : seen & 4 ? "clock" : "depth", emp_mode_name(o->mode));
	if (o->mode != EMP_MODE_SAMPLE && (seen & (1u << 12)))
		return fail(err, errlen, "engine= applies to mode=sample only (mode is %s)", emp_mode_name(o->mode));
	if (o->clock == EMP_CLOCK_WALL && o->engine != EMP_SAMPLE_ENGINE_AUTO)
		return fail(err, errlen, "engine= applies to clock=cpu only (clock=wall signals the threads itself)");
	if (o->mode != EMP_MODE_SAMPLE && (seen & (1u << 13)))
		return fail(err, errlen, "threads= applies to mode=sample only (mode is %s)", emp_mode_name(o->mode));
	/* The JVM's own threads are idle most of the time: wall-clock samples of them would only say so, at the cost
	 * of a signal per thread per interval.  So threads=all is the default for clock=cpu only, and refused with
	 * clock=wall rather than silently narrowed. */
	if (!(seen & (1u << 13)))
		o->threads = o->clock == EMP_CLOCK_WALL ? EMP_THREADS_JAVA : EMP_THREADS_ALL;
	else if (o->clock == EMP_CLOCK_WALL && o->threads == EMP_THREADS_ALL)
		return fail(err, errlen, "threads=all applies to clock=cpu only (wall-clock samples of idle JVM threads "
					 "say nothing; use threads=java)");
	if (o->mode != EMP_MODE_TRACE && (seen & (1u << 6)))
		return fail(err, errlen, "onfull= applies to mode=trace only (mode is %s)", emp_mode_name(o->mode));
	if (o->mode == EMP_MODE_OFF && o->iteration)
		return fail(err, errlen, "iteration= needs mode=sample or mode=trace (mode is off)");
	if (o->writer != EMP_WRITER_FILE && (seen & (1u << 4)))
		return fail(err, errlen, "out= applies to writer=file only (writer is %s)", emp_writer_name(o->writer));
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
