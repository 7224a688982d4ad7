/* SPDX-License-Identifier: MIT */
/* notes.h - free text lines the library has to say about its input (how a dump was recorded, what it lost), for a
 * report to print before its tables (output.h emp_report_notes). */
#ifndef EMP_NOTES_H
#define EMP_NOTES_H

#include <stdarg.h>
#include <stddef.h>

struct emp_notes {
	char **v;
	size_t n;
};

/* emp_notes_add - append one line (at most 4095 bytes; longer ones are cut).  Exits when out of memory. */
__attribute__((format(printf, 2, 3))) void emp_notes_add(struct emp_notes *n, const char *fmt, ...);
__attribute__((format(printf, 2, 0))) void emp_notes_vadd(struct emp_notes *n, const char *fmt, va_list ap);
void emp_notes_free(struct emp_notes *n);

#endif /* EMP_NOTES_H */
