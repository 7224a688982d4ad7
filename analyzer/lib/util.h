/* SPDX-License-Identifier: MIT */
/* util.h - the analyzer's allocation wrappers, fatal errors and opening a file in a directory.  Only the analyzer
 * (a program) may exit; the agent never does. */
#ifndef EMP_UTIL_H
#define EMP_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses of emp-analyze (README "Exit status"). */
#define EMP_EXIT_OK        0
#define EMP_EXIT_ERROR     1 /* unreadable or corrupt input, I/O error */
#define EMP_EXIT_USAGE     2 /* bad command line */
#define EMP_EXIT_TRUNCATED 3 /* an input dump was cut short; the report covers what it holds */

/* The program named at the start of every message ("emp-analyze"; emp-run sets its own). */
extern const char *emp_util_program;

__attribute__((noreturn, format(printf, 1, 2))) void emp_die(const char *fmt, ...);
/* One-line message on stderr prefixed "<emp_util_program>: ". */
__attribute__((format(printf, 1, 2))) void emp_errorf(const char *fmt, ...);

/* emp_now_s - CLOCK_MONOTONIC in seconds. */
double emp_now_s(void);

void *emp_xmalloc(size_t n);
void *emp_xcalloc(size_t n, size_t size);
void *emp_xrealloc(void *p, size_t n);
char *emp_xstrdup(const char *s);
/* emp_xgrow - the array @p of *@cap elements of @size bytes grown, when it holds fewer than @need, to at least
 * @need and twice *@cap, the new elements zeroed; *@cap updated.  Return: the array (p when not grown). */
void *emp_xgrow(void *p, uint32_t *cap, uint32_t need, size_t size);

/* emp_open_in - open @dir/@name for reading.  Return: the stream, with *@path its path (the caller frees it); or
 * NULL with *@path NULL and *@missing 1 when the file does not exist (no message), or *@missing 0 after a one-line
 * error. */
FILE *emp_open_in(const char *dir, const char *name, char **path, int *missing);

#endif /* EMP_UTIL_H */
