/* SPDX-License-Identifier: MIT */
/* test_options.c - the agent's option string (agent/core/options.c): every option, every default, every error with its
 * exact one-line message, the help text and the out= template expansion. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "options.h"

static struct emp_options o;
static char err[512];

static void teardown(void)
{
	emp_options_free(&o);
}

TestSuite(options, .fini = teardown);

/* Parse @text, expecting success. */
static void ok(const char *text)
{
	emp_options_free(&o);
	err[0] = 0;
	int rc = emp_options_parse(text, &o, err, sizeof(err));
	cr_assert_eq(rc, 0, "'%s' refused: %s", text, err);
}

/* Parse @text, expecting exactly @msg. */
static void bad(const char *text, const char *msg)
{
	emp_options_free(&o);
	err[0] = 0;
	int rc = emp_options_parse(text, &o, err, sizeof(err));
	cr_assert_eq(rc, -1, "'%s' accepted", text);
	cr_assert_str_eq(err, msg, "'%s'", text);
	cr_assert_null(strchr(err, '\n'), "message is one line");
}

static void assert_defaults(const char *text)
{
	cr_assert_eq(o.mode, EMP_MODE_SAMPLE);
	cr_assert_eq(o.interval_ns, 10000000u);
	cr_assert_eq(o.clock, EMP_CLOCK_CPU);
	cr_assert_eq(o.engine, EMP_SAMPLE_ENGINE_AUTO);
	cr_assert_eq(o.threads, EMP_THREADS_ALL);
	cr_assert_eq(o.depth, 2048u);
	cr_assert_str_eq(o.out, "emp-%p.emp");
	cr_assert_eq(o.writer, EMP_WRITER_FILE);
	cr_assert_null(o.tcp_host);
	cr_assert_eq(o.tcp_port, 0);
	cr_assert_eq(o.onfull, EMP_ONFULL_BLOCK);
	cr_assert_eq(o.flush_ns, 1000000000u);
	cr_assert_eq(o.ring_bytes, 256u << 10);
	cr_assert_eq(o.timesource, EMP_TIME_AUTO);
	cr_assert_eq(o.log, EMP_LOG_WARN);
	cr_assert_eq(o.n_include, 0);
	cr_assert_null(o.include);
	cr_assert_eq(o.n_exclude, 0);
	cr_assert_null(o.exclude);
	cr_assert_null(o.iteration);
	cr_assert_eq(o.help, 0);
	cr_assert_str_eq(o.text, text);
}

Test(options, defaults_null)
{
	ok(NULL);
	assert_defaults("");
}

Test(options, defaults_empty)
{
	ok("");
	assert_defaults("");
}

Test(options, text_kept_verbatim)
{
	ok("mode=off,log=debug");
	cr_assert_str_eq(o.text, "mode=off,log=debug");
}

Test(options, mode)
{
	ok("mode=sample");
	cr_assert_eq(o.mode, EMP_MODE_SAMPLE);
	cr_assert_eq(o.ring_bytes, 256u << 10);
	ok("mode=off");
	cr_assert_eq(o.mode, EMP_MODE_OFF);
	cr_assert_eq(o.ring_bytes, 256u << 10);
	ok("mode=trace,include=com.acme.*");
	cr_assert_eq(o.mode, EMP_MODE_TRACE);
	cr_assert_eq(o.ring_bytes, 1u << 20, "trace mode's default ring is 1M");
	bad("mode=Sample", "mode=Sample: expected sample, trace or off");
	bad("mode=", "mode=: expected sample, trace or off");
	cr_assert_str_eq(emp_mode_name(EMP_MODE_OFF), "off");
	cr_assert_str_eq(emp_mode_name(EMP_MODE_SAMPLE), "sample");
	cr_assert_str_eq(emp_mode_name(EMP_MODE_TRACE), "trace");
	cr_assert_str_eq(emp_mode_name((enum emp_mode)7), "unknown");
}

Test(options, interval_units_and_range)
{
	ok("interval=100us");
	cr_assert_eq(o.interval_ns, 100000u);
	ok("interval=100000ns");
	cr_assert_eq(o.interval_ns, 100000u);
	ok("interval=20ms");
	cr_assert_eq(o.interval_ns, 20000000u);
	ok("interval=10s");
	cr_assert_eq(o.interval_ns, 10000000000u);
	ok("interval=1s");
	cr_assert_eq(o.interval_ns, 1000000000u);
	static const char *const bad_units[] = { "10", "10m", "10 ms", "ms", "-1ms", "+1ms", "1.5ms", "10MS", "",
						 "0x10ms", "99999999999999999999ns", "18446744073709551615s" };
	for (size_t i = 0; i < sizeof(bad_units) / sizeof(bad_units[0]); i++) {
		char text[128], msg[256];
		snprintf(text, sizeof(text), "interval=%s", bad_units[i]);
		snprintf(msg, sizeof(msg), "interval=%s: expected a number with unit ns, us, ms or s (e.g. 10ms)",
			 bad_units[i]);
		bad(text, msg);
	}
	bad("interval=99us", "interval=99us: out of range 100us .. 10s");
	bad("interval=99999ns", "interval=99999ns: out of range 100us .. 10s");
	bad("interval=10001ms", "interval=10001ms: out of range 100us .. 10s");
	bad("interval=11s", "interval=11s: out of range 100us .. 10s");
	bad("interval=0ms", "interval=0ms: out of range 100us .. 10s");
}

Test(options, clock)
{
	ok("clock=cpu");
	cr_assert_eq(o.clock, EMP_CLOCK_CPU);
	ok("clock=wall");
	cr_assert_eq(o.clock, EMP_CLOCK_WALL);
	bad("clock=real", "clock=real: expected cpu or wall");
}

Test(options, engine)
{
	static const struct { const char *text; enum emp_sample_engine e; } cases[] = {
		{ "engine=auto", EMP_SAMPLE_ENGINE_AUTO },     { "engine=perf", EMP_SAMPLE_ENGINE_PERF },
		{ "engine=ctimer", EMP_SAMPLE_ENGINE_CTIMER }, { "engine=itimer", EMP_SAMPLE_ENGINE_ITIMER },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ok(cases[i].text);
		cr_assert_eq(o.engine, cases[i].e, "%s", cases[i].text);
	}
	bad("engine=timer", "engine=timer: expected auto, perf, ctimer or itimer");
	bad("engine=", "engine=: expected auto, perf, ctimer or itimer");
	bad("engine=PERF", "engine=PERF: expected auto, perf, ctimer or itimer");
}

Test(options, threads)
{
	ok("threads=java");
	cr_assert_eq(o.threads, EMP_THREADS_JAVA);
	ok("threads=all");
	cr_assert_eq(o.threads, EMP_THREADS_ALL);
	ok("clock=cpu");
	cr_assert_eq(o.threads, EMP_THREADS_ALL, "all is the default with clock=cpu");
	ok("clock=wall");
	cr_assert_eq(o.threads, EMP_THREADS_JAVA, "java is the default with clock=wall");
	ok("threads=java,clock=wall");
	cr_assert_eq(o.threads, EMP_THREADS_JAVA);
	bad("clock=wall,threads=all", "threads=all applies to clock=cpu only (wall-clock samples of idle JVM threads "
				      "say nothing; use threads=java)");
	bad("threads=vm", "threads=vm: expected all or java");
	bad("threads=", "threads=: expected all or java");
	bad("threads=all,threads=java", "option threads given twice");
	bad("mode=trace,include=a.*,threads=java", "threads= applies to mode=sample only (mode is trace)");
	bad("mode=off,threads=all", "threads= applies to mode=sample only (mode is off)");
}

Test(options, depth)
{
	ok("depth=1");
	cr_assert_eq(o.depth, 1u);
	ok("depth=4096");
	cr_assert_eq(o.depth, 4096u);
	bad("depth=0", "depth=0: expected a number from 1 to 4096");
	bad("depth=4097", "depth=4097: expected a number from 1 to 4096");
	bad("depth=12x", "depth=12x: expected a number from 1 to 4096");
	bad("depth=-1", "depth=-1: expected a number from 1 to 4096");
	bad("depth=", "depth=: expected a number from 1 to 4096");
}

Test(options, budget)
{
	ok("mode=trace,include=a.*");
	cr_assert_eq(o.budget_pct, 0.0, "no budget by default");
	ok("mode=trace,include=a.*,budget=10");
	cr_assert_eq(o.budget_pct, 10.0);
	ok("mode=trace,include=a.*,budget=0.5");
	cr_assert_eq(o.budget_pct, 0.5);
	ok("mode=trace,include=a.*,budget=100");
	cr_assert_eq(o.budget_pct, 100.0);
	const char *const never[] = { "0", "-5", "100.5", "abc", "10%", "", "nan", "inf" };
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		char text[64], msg[160];
		snprintf(text, sizeof(text), "mode=trace,include=a.*,budget=%s", never[i]);
		snprintf(msg, sizeof(msg),
			 "budget=%s: expected a percentage above 0 and at most 100 (a budget of 0 can never hold)", never[i]);
		bad(text, msg);
	}
	bad("mode=sample,budget=10", "budget= applies to mode=trace only (mode is sample)");
}

Test(options, out)
{
	ok("out=/tmp/x-%p-%t-%%.emp");
	cr_assert_str_eq(o.out, "/tmp/x-%p-%t-%%.emp");
	ok("out=a=b");
	cr_assert_str_eq(o.out, "a=b", "only the first = splits key and value");
	bad("out=", "out=: empty path");
	bad("out=x%d", "out=x%d: unknown %-escape (use %p, %t or %%)");
	bad("out=x%", "out=x%: unknown %-escape (use %p, %t or %%)");
	bad("out=%%%", "out=%%%: unknown %-escape (use %p, %t or %%)");
	char text[4200];
	strcpy(text, "out=");
	memset(text + 4, 'a', 4001);
	text[4005] = 0;
	bad(text, "out=: path too long");
	text[4004] = 0; /* 4000 characters: the limit */
	ok(text);
	cr_assert_eq(strlen(o.out), 4000);
}

Test(options, writer)
{
	ok("writer=file");
	cr_assert_eq(o.writer, EMP_WRITER_FILE);
	ok("writer=null");
	cr_assert_eq(o.writer, EMP_WRITER_NULL);
	ok("writer=tcp:localhost:9000");
	cr_assert_eq(o.writer, EMP_WRITER_TCP);
	cr_assert_str_eq(o.tcp_host, "localhost");
	cr_assert_eq(o.tcp_port, 9000);
	ok("writer=tcp:10.0.0.1:1");
	cr_assert_str_eq(o.tcp_host, "10.0.0.1");
	cr_assert_eq(o.tcp_port, 1);
	ok("writer=tcp:::1:65535");
	cr_assert_str_eq(o.tcp_host, "::1", "the port follows the last colon");
	cr_assert_eq(o.tcp_port, 65535);
	static const char *const forms[] = { "tcp:", "tcp:host", "tcp:host:", "tcp::9000", "tcp:host:0",
					     "tcp:host:65536", "tcp:host:80x", "tcp:host:-1", "tcp:host: 80" };
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char text[128], msg[256];
		snprintf(text, sizeof(text), "writer=%s", forms[i]);
		snprintf(msg, sizeof(msg), "writer=%s: expected tcp:HOST:PORT", forms[i]);
		bad(text, msg);
	}
	bad("writer=udp:host:9", "writer=udp:host:9: expected file, null or tcp:HOST:PORT");
	bad("writer=", "writer=: expected file, null or tcp:HOST:PORT");
	cr_assert_str_eq(emp_writer_name(EMP_WRITER_FILE), "file");
	cr_assert_str_eq(emp_writer_name(EMP_WRITER_NULL), "null");
	cr_assert_str_eq(emp_writer_name(EMP_WRITER_TCP), "tcp");
	cr_assert_str_eq(emp_writer_name((enum emp_writer_kind)9), "unknown");
}

Test(options, safepoints)
{
	ok("");
	cr_assert_eq(o.safepoints, 1);
	ok("mode=trace,include=a.*,safepoints=off");
	cr_assert_eq(o.safepoints, 0);
	ok("mode=off,safepoints=on");
	cr_assert_eq(o.safepoints, 1);
	bad("safepoints=no", "safepoints=no: expected on or off");
}

Test(options, compress)
{
	ok("");
	cr_assert_eq(o.compress, EMP_COMPRESS_AUTO);
	ok("mode=trace,include=a.*,compress=none");
	cr_assert_eq(o.compress, EMP_COMPRESS_NONE);
	ok("compress=lz4");
	cr_assert_eq(o.compress, EMP_COMPRESS_LZ4);
	ok("compress=auto");
	cr_assert_eq(o.compress, EMP_COMPRESS_AUTO);
	bad("compress=zstd", "compress=zstd: expected lz4, none or auto");
}

Test(options, onfull)
{
	ok("mode=trace,include=a.*,onfull=block");
	cr_assert_eq(o.onfull, EMP_ONFULL_BLOCK);
	ok("mode=trace,include=a.*,onfull=drop");
	cr_assert_eq(o.onfull, EMP_ONFULL_DROP);
	bad("mode=trace,include=a.*,onfull=wait", "onfull=wait: expected block or drop");
}

Test(options, flush)
{
	ok("flush=10ms");
	cr_assert_eq(o.flush_ns, 10000000u);
	ok("flush=60s");
	cr_assert_eq(o.flush_ns, 60000000000u);
	ok("flush=250000us");
	cr_assert_eq(o.flush_ns, 250000000u);
	bad("flush=1", "flush=1: expected a number with unit ns, us, ms or s (e.g. 1s)");
	bad("flush=9ms", "flush=9ms: out of range 10ms .. 60s");
	bad("flush=61s", "flush=61s: out of range 10ms .. 60s");
}

Test(options, duration)
{
	ok("");
	cr_assert_eq(o.duration_ns, 0, "no duration: the recording ends with the JVM");
	ok("duration=30s");
	cr_assert_eq(o.duration_ns, 30000000000u);
	ok("mode=trace,include=a.*,duration=100ms");
	cr_assert_eq(o.duration_ns, 100000000u);
	ok("duration=86400s");
	bad("duration=30", "duration=30: expected a number with unit ns, us, ms or s (e.g. 30s)");
	bad("duration=99ms", "duration=99ms: out of range 100ms .. 86400s");
	bad("duration=86401s", "duration=86401s: out of range 100ms .. 86400s");
	bad("duration=1s,duration=2s", "option duration given twice");
}

Test(options, check_attach)
{
	ok("mode=sample,duration=10s");
	cr_assert_eq(emp_options_check_attach(&o, err, sizeof(err)), 0, "%s", err);
	ok("mode=trace,include=a.*");
	cr_assert_eq(emp_options_check_attach(&o, err, sizeof(err)), 0, "%s", err);
	static const char *const refused[] = { "clock=wall", "threads=java" };
	for (size_t i = 0; i < 2; i++) {
		ok(refused[i]);
		cr_assert_eq(emp_options_check_attach(&o, err, sizeof(err)), -1, "%s accepted", refused[i]);
		cr_assert_str_eq(err, "mode=sample in a running JVM needs clock=cpu,threads=all (the threads that run "
				      "already are found only that way)");
	}
	ok("help");
	cr_assert_eq(emp_options_check_attach(&o, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "help: run `emp-attach --help`; nothing was started");
}

Test(options, writer_nice)
{
	ok("");
	cr_assert_eq(o.writer_nice_given, 0); /* the writer takes 19 below the JVM's */
	ok("writer_nice=-20");
	cr_assert_eq(o.writer_nice, -20);
	cr_assert_eq(o.writer_nice_given, 1);
	ok("mode=trace,include=a.*,writer_nice=19");
	cr_assert_eq(o.writer_nice, 19);
	ok("writer_nice=0");
	cr_assert_eq(o.writer_nice, 0);
	cr_assert_eq(o.writer_nice_given, 1);
	bad("writer_nice=-21", "writer_nice=-21: expected a nice value from -20 to 19");
	bad("writer_nice=20", "writer_nice=20: expected a nice value from -20 to 19");
	bad("writer_nice=", "writer_nice=: expected a nice value from -20 to 19");
	bad("writer_nice=-5x", "writer_nice=-5x: expected a nice value from -20 to 19");
	bad("writer_nice=99999999999999999999",
	    "writer_nice=99999999999999999999: expected a nice value from -20 to 19");
}

Test(options, ringsize)
{
	ok("ringsize=64K");
	cr_assert_eq(o.ring_bytes, 64u << 10);
	ok("ringsize=64k");
	cr_assert_eq(o.ring_bytes, 64u << 10);
	ok("ringsize=2M");
	cr_assert_eq(o.ring_bytes, 2u << 20);
	ok("ringsize=4m");
	cr_assert_eq(o.ring_bytes, 4u << 20);
	ok("ringsize=1024M");
	cr_assert_eq(o.ring_bytes, 1024ull << 20);
	ok("ringsize=131072");
	cr_assert_eq(o.ring_bytes, 128u << 10);
	ok("mode=trace,include=x.*,ringsize=64K");
	cr_assert_eq(o.ring_bytes, 64u << 10, "an explicit size wins over trace mode's default");
	bad("ringsize=1G", "ringsize=1G: expected a size such as 64K or 1M");
	bad("ringsize=K", "ringsize=K: expected a size such as 64K or 1M");
	bad("ringsize=64KB", "ringsize=64KB: expected a size such as 64K or 1M");
	bad("ringsize=99999999999999", "ringsize=99999999999999: expected a size such as 64K or 1M");
	bad("ringsize=32K", "ringsize=32K: must be a power of two from 64K to 1024M");
	bad("ringsize=96K", "ringsize=96K: must be a power of two from 64K to 1024M");
	bad("ringsize=2048M", "ringsize=2048M: must be a power of two from 64K to 1024M");
	bad("ringsize=0", "ringsize=0: must be a power of two from 64K to 1024M");
}

Test(options, timesource)
{
	ok("timesource=auto");
	cr_assert_eq(o.timesource, EMP_TIME_AUTO);
	ok("timesource=tsc");
	cr_assert_eq(o.timesource, EMP_TIME_TSC);
	ok("timesource=monotonic");
	cr_assert_eq(o.timesource, EMP_TIME_MONOTONIC);
	bad("timesource=hpet", "timesource=hpet: expected auto, tsc or monotonic");
}

Test(options, log)
{
	ok("log=error");
	cr_assert_eq(o.log, EMP_LOG_ERROR);
	ok("log=warn");
	cr_assert_eq(o.log, EMP_LOG_WARN);
	ok("log=info");
	cr_assert_eq(o.log, EMP_LOG_INFO);
	ok("log=debug");
	cr_assert_eq(o.log, EMP_LOG_DEBUG);
	bad("log=trace", "log=trace: expected error, warn, info or debug");
	bad("log=", "log=: expected error, warn, info or debug");
}

Test(options, include_exclude_repeatable)
{
	ok("mode=trace,include=com.acme.*,exclude=*.get*,include=Foo*;Bar.run,exclude=Baz.x");
	cr_assert_eq(o.n_include, 2);
	cr_assert_str_eq(o.include[0], "com.acme.*");
	cr_assert_str_eq(o.include[1], "Foo*;Bar.run", "a ;-list stays one entry");
	cr_assert_eq(o.n_exclude, 2);
	cr_assert_str_eq(o.exclude[0], "*.get*");
	cr_assert_str_eq(o.exclude[1], "Baz.x");
	bad("mode=trace,include=", "include=: empty pattern");
	bad("mode=trace,include=a.*,exclude=", "exclude=: empty pattern");
}

Test(options, iteration)
{
	ok("iteration=emp.sut.CallTree.runIteration");
	cr_assert_str_eq(o.iteration, "emp.sut.CallTree.runIteration");
	ok("mode=trace,include=a.*,iteration=A.b");
	cr_assert_str_eq(o.iteration, "A.b");
	static const char *const forms[] = { "run", ".run", "A.", "A.*", "A.b;C.d", "A .b", "" };
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char text[128], msg[256];
		snprintf(text, sizeof(text), "iteration=%s", forms[i]);
		snprintf(msg, sizeof(msg), "iteration=%s: expected a method as pkg.Class.method", forms[i]);
		bad(text, msg);
	}
}

Test(options, help)
{
	ok("help");
	cr_assert_eq(o.help, 1);
	ok("mode=trace,help");
	cr_assert_eq(o.help, 1, "help skips the cross-option checks (no include= needed)");
	cr_assert_eq(o.ring_bytes, 1u << 20);
	bad("help=yes", "option help takes no value (help=yes)");
	bad("help,bogus=1", "unknown option 'bogus' (try help)");
}

Test(options, help_text_lists_every_option_with_default)
{
	const char *h = emp_options_help();
	static const char *const keys[] = { "mode=", "interval=", "clock=", "engine=", "threads=", "depth=", "include=",
					    "exclude=", "iteration=", "onfull=", "out=", "writer=", "compress=",
					    "writer_nice=", "flush=", "ringsize=", "timesource=", "log=", "duration=", "budget=",
					    "safepoints=" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char line[64];
		snprintf(line, sizeof(line), "\n  %s", keys[i]);
		cr_assert_not_null(strstr(h, line), "help lacks %s", keys[i]);
	}
	cr_assert_not_null(strstr(h, "\n  help "));
	static const char *const defaults[] = { "(default: sample)", "(default: 10ms;", "(default: cpu)",
						"(default: 2048)", "(default: block)", "(default: emp-%p.emp)",
						"(default: file)", "(default: 1s;", "(default: 1M in",
						"(default: auto)", "(default: warn)",
						"(default: all with clock=cpu, java with wall)",
						"(default: until the JVM ends; 100ms .. 86400s)",
						"(default: none: every selected call is recorded)", "(default: on)",
						"so that they wait less (default: auto)",
						"(default: 19 below the JVM's, at least -20: -19)" };
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		cr_assert_not_null(strstr(h, defaults[i]), "help lacks %s", defaults[i]);
	size_t n = 0;
	for (const char *p = h; (p = strstr(p, "(default:")); p++)
		n++;
	cr_assert_eq(n, 18, "one default per option that has one");
	cr_assert_eq(h[strlen(h) - 1], '\n');
	for (const char *l = h; *l; l = strchr(l, '\n') + 1)
		cr_assert_leq(strcspn(l, "\n"), 100u, "help line longer than 100 columns: %.40s", l);
}

Test(options, syntax_errors)
{
	bad("bogus=1", "unknown option 'bogus' (try help)");
	bad("hepl", "unknown option 'hepl' (try help)");
	bad("Mode=off", "unknown option 'Mode' (try help)");
	bad("mode", "option 'mode' needs a value (key=value; try help)");
	bad("include", "option 'include' needs a value (key=value; try help)");
	bad("=off", "option '=off' has no name");
	bad("=", "option '=' has no name");
	const char *empty = "empty option (two commas, or a comma at the start or end)";
	bad(",", empty);
	bad(",mode=off", empty);
	bad("mode=off,", empty);
	bad("mode=off,,log=info", empty);
	char text[5000];
	memset(text, 'x', 4096);
	text[4096] = 0;
	bad(text, "option too long: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...");
}

Test(options, duplicates)
{
	static const char *const once[] = { "mode=off", "interval=10ms", "clock=cpu", "depth=5", "out=a",
					    "writer=file", "flush=1s", "ringsize=64K", "timesource=tsc",
					    "log=info", "iteration=A.b", "engine=perf" };
	for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++) {
		char text[128], key[32], msg[128];
		snprintf(text, sizeof(text), "%s,%s", once[i], once[i]);
		snprintf(key, sizeof(key), "%.*s", (int)(strchr(once[i], '=') - once[i]), once[i]);
		snprintf(msg, sizeof(msg), "option %s given twice", key);
		bad(text, msg);
	}
	bad("mode=trace,include=a.*,onfull=drop,onfull=drop", "option onfull given twice");
	bad("mode=sample,log=info,mode=trace", "option mode given twice");
}

Test(options, cross_option_checks)
{
	bad("include=a.*", "include= applies to mode=trace only (mode is sample)");
	bad("mode=off,exclude=a.*", "exclude= applies to mode=trace only (mode is off)");
	bad("mode=trace", "mode=trace needs at least one include= pattern");
	bad("mode=trace,exclude=a.*", "mode=trace needs at least one include= pattern");
	bad("mode=trace,include=a.*,interval=1ms", "interval= applies to mode=sample only (mode is trace)");
	bad("mode=trace,include=a.*,clock=wall", "clock= applies to mode=sample only (mode is trace)");
	bad("mode=off,depth=10", "depth= applies to mode=sample only (mode is off)");
	bad("onfull=drop", "onfull= applies to mode=trace only (mode is sample)");
	bad("mode=off,onfull=block", "onfull= applies to mode=trace only (mode is off)");
	bad("mode=trace,include=a.*,engine=perf", "engine= applies to mode=sample only (mode is trace)");
	bad("mode=off,engine=auto", "engine= applies to mode=sample only (mode is off)");
	bad("clock=wall,engine=itimer", "engine= applies to clock=cpu only (clock=wall signals the threads itself)");
	ok("clock=wall,engine=auto");
	ok("clock=cpu,engine=ctimer,interval=4ms");
	cr_assert_eq(o.engine, EMP_SAMPLE_ENGINE_CTIMER);
	bad("mode=off,iteration=A.b", "iteration= needs mode=sample or mode=trace (mode is off)");
	bad("writer=null,out=x.emp", "out= applies to writer=file only (writer is null)");
	bad("out=x.emp,writer=tcp:h:1", "out= applies to writer=file only (writer is tcp)");
	/* the allowed combinations */
	ok("mode=sample,interval=1ms,clock=wall,depth=64,iteration=A.b,writer=null,flush=100ms");
	cr_assert_eq(o.interval_ns, 1000000u);
	cr_assert_eq(o.clock, EMP_CLOCK_WALL);
	cr_assert_eq(o.depth, 64u);
	cr_assert_eq(o.writer, EMP_WRITER_NULL);
	cr_assert_str_eq(o.out, "emp-%p.emp", "the default template stays with writer=null");
	ok("mode=off,out=x.emp,writer=file");
	cr_assert_str_eq(o.out, "x.emp");
}

Test(options, free_is_idempotent)
{
	ok("mode=trace,include=a.*,exclude=b.*,iteration=A.b,writer=tcp:h:2");
	emp_options_free(&o);
	cr_assert_null(o.include);
	cr_assert_null(o.out);
	emp_options_free(&o);
}

Test(options, out_path)
{
	char buf[64];
	cr_assert_eq(emp_options_out_path("emp-%p.emp", 4242, 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "emp-4242.emp");
	cr_assert_eq(emp_options_out_path("r-%t-%p-%%p.emp", 7, 1700000000, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "r-20231114T221320Z-7-%p.emp");
	cr_assert_eq(emp_options_out_path("%t", 1, 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "19700101T000000Z");
	cr_assert_eq(emp_options_out_path("", 1, 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "");
	cr_assert_eq(emp_options_out_path("100%", 1, 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "100%", "a lone % at the end is kept");
	cr_assert_eq(emp_options_out_path("%x", 1, 0, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "%x");
}

Test(options, out_path_overflow)
{
	char buf[16];
	memset(buf, '#', sizeof(buf));
	/* "emp-12345.emp" is 13 characters: fits in 14 bytes, not in 13. */
	cr_assert_eq(emp_options_out_path("emp-%p.emp", 12345, 0, buf, 14), 0);
	cr_assert_str_eq(buf, "emp-12345.emp");
	memset(buf, '#', sizeof(buf));
	cr_assert_eq(emp_options_out_path("emp-%p.emp", 12345, 0, buf, 13), -1);
	cr_assert_eq(buf[13], '#', "nothing written past the given length");
	cr_assert_eq(emp_options_out_path("abc", 1, 0, buf, 3), -1);
	cr_assert_eq(emp_options_out_path("ab", 1, 0, buf, 3), 0);
	cr_assert_str_eq(buf, "ab");
	cr_assert_eq(emp_options_out_path("%p", 123, 0, buf, 3), -1);
	cr_assert_eq(emp_options_out_path("%t", 0, 0, buf, 16), -1, "a 16-character time needs 17 bytes");
	memset(buf, '#', sizeof(buf));
	cr_assert_eq(emp_options_out_path("", 1, 0, buf, 0), -1);
	cr_assert_eq(buf[0], '#', "len 0: nothing written");
}
