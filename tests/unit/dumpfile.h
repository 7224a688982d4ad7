/* SPDX-License-Identifier: MIT */
/* dumpfile.h - what several unit tests need to write a dump to a file and read it back. */
#ifndef EMP_TEST_DUMPFILE_H
#define EMP_TEST_DUMPFILE_H

#include <stddef.h>

struct emp_dump_reader;

/* emp_test_file_sink - an emp_dump_sink_fn writing to the FILE * @ctx.  Return: 0 or -EIO. */
int emp_test_file_sink(void *ctx, const void *buf, size_t len);

/* emp_test_read_symbols - the symbols queued so far (symbols.h) drained into a dump of their own, read back
 * completely; the caller closes the reader.  Fails the test on any error. */
struct emp_dump_reader *emp_test_read_symbols(void);

#endif /* EMP_TEST_DUMPFILE_H */
