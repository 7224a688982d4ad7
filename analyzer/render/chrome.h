/* SPDX-License-Identifier: MIT */
/* chrome.h - traced calls as Chrome trace-event JSON (`export --chrome OUT`), which Perfetto and chrome://tracing
 * open: {"displayTimeUnit":"ns","traceEvents":[...]} with one complete event per call, as short as the format
 * allows: {"name":"klass.method","ph":"X","ts":T,"dur":D,"pid":P,"tid":N}, ts/dur in µs, exact (the ns digits
 * without trailing zeros, none for a whole µs) relative to the start of the recording, pid = the JVM's pid, tid = the
 * OS thread id (a virtual thread, which has none: emp_chrome_tid()); "args" only for a call that threw or is
 * unfinished ({"threw":true}, {"unfinished":true}).  A call's trace, order and depth (Kieker's trace id, eoi, ess)
 * are not written: in Chrome they are the enclosing top-level slice, the order of ts and the nesting of the slices.
 * After the calls, process_name and thread_name metadata events.  The caller rounds to integer ns before ts and dur
 * are derived, so a callee never ends after its caller.
 *
 * An output format like the others of analyzer/render: it writes what analyzer/lib/trace.h rebuilds. */
#ifndef EMP_CHROME_H
#define EMP_CHROME_H

#include <stdint.h>
#include <stdio.h>

struct emp_dump_reader;
struct emp_dump_thread;

struct emp_chrome {
	FILE *out;
	const char *pid;   /* the JVM's pid, as text */
	int first;         /* no event written yet */
};

/* emp_chrome_begin - start the document on @out. */
void emp_chrome_begin(struct emp_chrome *c, FILE *out, const char *pid);
/* emp_chrome_call - one complete call @klass.@name from @tin to @tout (ns from the start of the recording). */
void emp_chrome_call(struct emp_chrome *c, const char *klass, const char *name, int64_t tin, int64_t tout,
		     uint64_t tid, int threw, int unfinished);
/* emp_chrome_tid - the Chrome tid of dump thread @thread (@th its symbol, or NULL): the OS thread id, or for a
 * virtual thread (no OS thread of its own) 2^22 + @thread, above Linux's largest pid_max, so that each virtual
 * thread gets a track of its own. */
uint64_t emp_chrome_tid(const struct emp_dump_thread *th, uint32_t thread);
/* emp_chrome_end - the process and thread names of @r (META command, its threads), and the document's end. */
void emp_chrome_end(struct emp_chrome *c, const struct emp_dump_reader *r);

#endif /* EMP_CHROME_H */
