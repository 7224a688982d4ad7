/* SPDX-License-Identifier: MIT */
/* kieker.h - traced calls as a Kieker file-system log (`export --kieker DIR`), the layout Kieker 2.0's own file
 * writer produces (TextMapFileHandler, TextLogStreamHandler, RotatingLogFilePoolHandler) and its FSReader /
 * AsciiLogReader read:
 *   DIR/kieker.map                        $0=kieker.common.record.misc.KiekerMetadataRecord
 *                                         $1=kieker.common.record.controlflow.OperationExecutionRecord
 *   DIR/kieker-<yyyyMMdd-HHmmssSSS>-UTC-001.dat, first the metadata record (as Kieker's MonitoringController writes
 *   it: numberOfRecords 0, timeOffset 0, timeUnit NANOSECONDS)
 *     $0;<start>;emp;emp;<hostname>;0;false;0;NANOSECONDS;0
 *   then one OperationExecutionRecord per call, written at the call's exit (deepest first, as Kieker's probes write):
 *     $1;<loggingTimestamp>;<operationSignature>;<sessionId>;<traceId>;<tin>;<tout>;<hostname>;<eoi>;<ess>
 * Timestamps are integer ns since the epoch, loggingTimestamp = tout, sessionId "<no-session-id>" (Kieker's
 * NO_SESSION_ID).  The signature is built from the method's descriptor in the form Kieker's AspectJ probes write
 * and ClassOperationSignaturePair parses: `public <return type> pkg.Cls.m(int, java.lang.String[])`; the dump does
 * not record modifiers, so every method is written `public` (Kieker's trace analysis shows the modifiers, nothing
 * more); constructors `public pkg.Cls.<init>(int)` (no return type: the analysis recognises "<init>"), class
 * initialisers `static void pkg.Cls.<clinit>()`.  A ';' in a string is escaped as Kieker's TextValueSerializer
 * does (\;), a line break becomes a space.
 *
 * An output format like the others of analyzer/render: it writes what analyzer/lib/trace.h rebuilds. */
#ifndef EMP_KIEKER_H
#define EMP_KIEKER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct emp_dump_reader;

/* emp_kieker_files - create DIR/kieker.map and put the name of the .dat file, named after the recording's start
 * @start_ns (ns since the epoch), into @file.  Return: 0, or -1 after printing one line. */
int emp_kieker_files(const char *dir, uint64_t start_ns, char *file, size_t len);

/* emp_kieker_metadata - the .dat file's first record. */
void emp_kieker_metadata(FILE *out, uint64_t start_ns, const char *host);

/* The operation signatures of one dump's methods, built on first use. */
struct emp_kieker_sigs {
	const struct emp_dump_reader *r;
	char **v;       /* per dump-local method id */
	uint32_t n;
};
/* emp_kieker_signature - the signature of method @id of sigs->r (an undefined id gets
 * `public void undefined.Symbol.m<id>()`). */
const char *emp_kieker_signature(struct emp_kieker_sigs *sigs, uint32_t id);
void emp_kieker_sigs_free(struct emp_kieker_sigs *sigs);

/* emp_kieker_record - one OperationExecutionRecord; @tin and @tout in ns since the epoch. */
void emp_kieker_record(FILE *out, const char *signature, const char *host, uint64_t trace_id, uint64_t tin,
		       uint64_t tout, uint32_t eoi, uint32_t ess);

#endif /* EMP_KIEKER_H */
