/* SPDX-License-Identifier: MIT */
/* sink.h - where the writer's encoded chunks go: a dump file, a TCP stream, or nowhere.
 *
 * file: write(2) of whole chunks straight into the kernel (no stdio buffer), so a chunk that was handed over
 *       survives a SIGKILL of the JVM.
 * tcp:  the same bytes on a TCP connection that the agent opens at start (the agent never listens);
 *       `emp-analyze receive` stores them as an ordinary dump.
 * null: the writer drains the rings and discards the records without encoding them: the cost of the probes and
 *       the sampler alone. */
#ifndef EMP_SINK_H
#define EMP_SINK_H

#include <stddef.h>

struct emp_options;
struct emp_sink;

/* emp_sink_open - open the sink @o asks for; @path is the expanded out= path (file writer).
 * Return: 0 and *out, or -1 with a one-line message in @err. */
int emp_sink_open(const struct emp_options *o, const char *path, struct emp_sink **out, char *err, size_t errlen);
/* emp_sink_write - all of @len bytes or an error.  Matches emp_dump_sink_fn.  Return: 0 or a negative errno. */
int emp_sink_write(void *sink, const void *buf, size_t len);
/* emp_sink_discards - 1 for the null sink: nothing is encoded. */
int emp_sink_discards(const struct emp_sink *s);
const char *emp_sink_describe(const struct emp_sink *s);
/* emp_sink_close - flush to stable storage where it applies (fsync for files) and close. */
void emp_sink_close(struct emp_sink *s);

#endif /* EMP_SINK_H */
