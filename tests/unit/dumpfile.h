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

/* emp_test_run_cmd - run the analyzer command @cmd (cmd_*.c's entry) as `@a0 [@a1] [@a2] [@a3] @dump` (NULL options
 * left out), getopt reset first, stdout flushed after (for cr_redirect_stdout).  Return: the command's status. */
int emp_test_run_cmd(int (*cmd)(int, char **), const char *dump, const char *a0, const char *a1, const char *a2,
		     const char *a3);

#endif /* EMP_TEST_DUMPFILE_H */
