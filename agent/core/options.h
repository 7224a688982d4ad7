/* SPDX-License-Identifier: MIT */
/* options.h - the agent's option string: -agentpath:libemp.so=key=value,key=value,...
 * Pure parsing (no JVM, no globals), so every option and every error is unit-tested. */
#ifndef EMP_OPTIONS_H
#define EMP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "clock.h" /* enum emp_timesource */
#include "log.h"   /* enum emp_log_level */

enum emp_mode { EMP_MODE_OFF, EMP_MODE_SAMPLE, EMP_MODE_TRACE };
enum emp_writer_kind { EMP_WRITER_FILE, EMP_WRITER_NULL, EMP_WRITER_TCP };
enum emp_sample_clock { EMP_CLOCK_CPU, EMP_CLOCK_WALL };
/* engine=: what delivers the sampling signal with clock=cpu (engine.c); AUTO = the first that works */
enum emp_sample_engine { EMP_SAMPLE_ENGINE_AUTO, EMP_SAMPLE_ENGINE_PERF, EMP_SAMPLE_ENGINE_CTIMER,
			 EMP_SAMPLE_ENGINE_ITIMER };
/* threads=: which threads sample mode samples — every thread of the process (Java threads with their Java stack,
 * the JVM's own threads with native frames; clock=cpu only) or the Java threads JVMTI announces */
enum emp_sample_threads { EMP_THREADS_ALL, EMP_THREADS_JAVA };
enum emp_onfull { EMP_ONFULL_BLOCK, EMP_ONFULL_DROP };
/* compress=: every chunk LZ4-compressed, every chunk stored, or stored only while the writer is behind (writer.c) */
enum emp_compress { EMP_COMPRESS_NONE, EMP_COMPRESS_LZ4, EMP_COMPRESS_AUTO };

struct emp_options {
	enum emp_mode mode;
	uint64_t interval_ns;        /* sample mode: sampling interval */
	enum emp_sample_clock clock; /* sample mode: cpu or wall */
	enum emp_sample_engine engine; /* sample mode, clock=cpu: auto, perf, ctimer or itimer */
	enum emp_sample_threads threads; /* sample mode: all (default with clock=cpu) or java (default with wall) */
	uint32_t depth;              /* sample mode: maximum frames per sample */
	char *out;                   /* dump path template (%p = pid, %t = start time, %% = %) */
	enum emp_writer_kind writer;
	char *tcp_host;              /* writer=tcp:HOST:PORT */
	uint16_t tcp_port;
	enum emp_onfull onfull;      /* trace mode: a full ring blocks the thread or drops the record */
	uint64_t flush_ns;           /* the writer flushes complete chunks at least this often */
	uint64_t ring_bytes;         /* per-thread ring size, a power of two */
	enum emp_timesource timesource;
	enum emp_log_level log;
	char **include;              /* trace mode: method filters (each entry may hold ;-separated patterns) */
	size_t n_include;
	char **exclude;
	size_t n_exclude;
	char *iteration;             /* pkg.Class.method whose calls mark iterations */
	uint64_t duration_ns;        /* end the recording this long after it started; 0: at VMDeath */
	double budget_pct;           /* trace mode: probes' cost limit in % of the program's CPU time; 0: none */
	int safepoints;              /* record safepoint pauses (safepoint.h); default 1 */
	int compress;                /* enum emp_compress: LZ4-compress the dump's chunks, store them, or auto */
	int writer_nice;             /* the writer thread's nice value (writer_nice_given), else 19 below the JVM's */
	int writer_nice_given;
	int help;                    /* "help" was given */
	char *text;                  /* the option string as given ("" when none) */
};

/* emp_options_parse - parse @text (may be NULL or "") into @o, which is reset to the defaults first.
 * Return: 0, or -1 with a one-line message naming the offending option in @err (then @o holds whatever was parsed
 * and must still be released with emp_options_free()). */
int emp_options_parse(const char *text, struct emp_options *o, char *err, size_t errlen);
void emp_options_free(struct emp_options *o);

/* emp_options_check_attach - whether @o can start a recording in a running JVM (Agent_OnAttach; emp-attach checks
 * first): the threads that run already get no ThreadStart, so sample mode finds them only with threads=all (and
 * so clock=cpu).  Return: 0, or -1 with a one-line message in @err. */
int emp_options_check_attach(const struct emp_options *o, char *err, size_t errlen);

/* emp_options_help - the help text listing every option with its default (for `help`). */
const char *emp_options_help(void);

/* emp_options_out_path - expand the out= template for @pid and start time @start (seconds since the epoch).
 * Return: 0, or -1 when the result does not fit @len. */
int emp_options_out_path(const char *tmpl, pid_t pid, int64_t start, char *out, size_t len);

const char *emp_mode_name(enum emp_mode m);
const char *emp_writer_name(enum emp_writer_kind w);

#endif /* EMP_OPTIONS_H */
