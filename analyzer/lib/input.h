/* SPDX-License-Identifier: MIT */
/* input.h - how the dumps a command read turned out: opening them with a one-line message on failure, reporting a
 * truncated or corrupt dump when it has been read, and the exit status all of that adds up to.  The library
 * (profile, iterations) reads through it, so the CLI above decides only how strict to be (allow_truncated). */
#ifndef EMP_INPUT_H
#define EMP_INPUT_H

#include <limits.h>

struct emp_dump_reader;

struct emp_input {
	int allow_truncated;     /* a truncated dump is not an error (exit 0) */
	int exit_code;           /* worst status so far (util.h EMP_EXIT_*) */
	unsigned jobs;           /* threads folding (trace_fold.h) or decoding ahead (dump_reader.h
				    emp_dump_reader_set_jobs) each dump's chunks; 1: the reading thread alone; 0 or
				    EMP_INPUT_JOBS_ALL: one per online CPU */
};

#define EMP_INPUT_JOBS_ALL UINT_MAX

/* emp_input_open - open a dump, with @in->jobs decoding threads; on failure print the reason and record
 * EMP_EXIT_ERROR.  @in may be NULL (nothing is recorded; no decoding thread).  Return: reader or NULL. */
struct emp_dump_reader *emp_input_open(struct emp_input *in, const char *path);
/* emp_input_reader - emp_input_open() without the decoding threads (for a caller that sets its own:
 * emp_dump_reader_set_fold() with emp_input_jobs()). */
struct emp_dump_reader *emp_input_reader(struct emp_input *in, const char *path);
/* emp_input_jobs - the threads @in asks for (>= 1; @in may be NULL: 1; 0 asks for one per online CPU). */
unsigned emp_input_jobs(const struct emp_input *in);
/* emp_input_done - after a dump was read to its end: report truncation/corruption (naming file and offset) and
 * record the exit status. */
void emp_input_done(struct emp_input *in, struct emp_dump_reader *r);
/* emp_input_worse - record @code (EMP_EXIT_*) unless a worse one is recorded already: error (1) outranks
 * truncated (3), which outranks ok. */
void emp_input_worse(struct emp_input *in, int code);

#endif /* EMP_INPUT_H */
