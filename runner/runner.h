/* SPDX-License-Identifier: MIT */
/* runner.h - what every part of emp-run shares: refusing bad input, durable small files, paths, clocks.
 * Messages go to stderr prefixed "emp-run: " (analyzer/lib/util.h, emp_util_program). */
#ifndef EMP_RUNNER_H
#define EMP_RUNNER_H

#include <stddef.h>

/* Exit statuses of emp-run. */
#define EMP_RUNNER_EXIT_OK          0
#define EMP_RUNNER_EXIT_FAILED      1   /* a run failed, or an I/O error */
#define EMP_RUNNER_EXIT_BAD         2   /* bad input: nothing was run or changed */
#define EMP_RUNNER_EXIT_INTERRUPTED 130 /* SIGINT/SIGTERM: finished runs are kept, `resume` continues */

/* emp_runner_bad - print one line and exit EMP_RUNNER_EXIT_BAD. */
__attribute__((noreturn, format(printf, 1, 2))) void emp_runner_bad(const char *fmt, ...);
/* emp_runner_write_file - create or replace @path with @len bytes of @data: written to @path.tmp, fsync'ed,
 * renamed into place (a crash leaves the old file or the new one whole).  Return: 0 or -1 after printing one
 * line. */
int emp_runner_write_file(const char *path, const void *data, size_t len);
/* emp_runner_append - append @len bytes to the open file @fd in one write() and fsync it (a row of a manifest:
 * after a crash it is either all there or a torn last line that emp_runner_trim_torn() removes).
 * Return: 0 or -1 after printing one line naming @what. */
int emp_runner_append(int fd, const char *what, const char *data, size_t len);
/* emp_runner_trim_torn - cut @path after its last newline (a row a crash tore).  Missing file: nothing to do.
 * Return: 0 or -1 printed. */
int emp_runner_trim_torn(const char *path);
/* emp_runner_abs_path - @p made absolute against the working directory (malloc'ed; not resolved). */
char *emp_runner_abs_path(const char *p);
/* emp_runner_mkdirs - mkdir -p.  Return: 0 or -1 printed. */
int emp_runner_mkdirs(const char *path);

#endif /* EMP_RUNNER_H */
