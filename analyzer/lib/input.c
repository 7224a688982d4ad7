/* SPDX-License-Identifier: MIT */
/* input.c - see input.h. */
#include "input.h"

#include <stddef.h>
#include <unistd.h>

#include "dump_reader.h"
#include "util.h"

void emp_input_worse(struct emp_input *in, int code)
{
	if (in && (code == EMP_EXIT_ERROR || (code == EMP_EXIT_TRUNCATED && in->exit_code == EMP_EXIT_OK)))
		in->exit_code = code;
}

struct emp_dump_reader *emp_input_reader(struct emp_input *in, const char *path)
{
	struct emp_dump_reader *r;
	char err[512];
	if (emp_dump_reader_open(path, &r, err, sizeof(err))) {
		emp_errorf("%s", err);
		emp_input_worse(in, EMP_EXIT_ERROR);
		return NULL;
	}
	return r;
}

unsigned emp_input_jobs(const struct emp_input *in)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (!in)
		return 1;
	return !in->jobs || in->jobs == EMP_INPUT_JOBS_ALL ? (unsigned)(cpus > 1 ? cpus : 1) : in->jobs;
}

struct emp_dump_reader *emp_input_open(struct emp_input *in, const char *path)
{
	struct emp_dump_reader *r = emp_input_reader(in, path);
	unsigned jobs = emp_input_jobs(in);
	if (r && jobs > 1)
		emp_dump_reader_set_jobs(r, jobs); /* on failure it reads alone: the same result, slower */
	return r;
}

void emp_input_done(struct emp_input *in, struct emp_dump_reader *r)
{
	int allow = in && in->allow_truncated;
	switch (emp_dump_reader_status(r)) {
	case EMP_DUMP_COMPLETE:
	case EMP_DUMP_READING:
		break;
	case EMP_DUMP_TRUNCATED:
		emp_errorf("%s%s", emp_dump_reader_error(r),
			   allow ? "" : " (report covers what was read; --allow-truncated to accept)");
		if (!allow)
			emp_input_worse(in, EMP_EXIT_TRUNCATED);
		break;
	case EMP_DUMP_CORRUPT:
		emp_errorf("%s", emp_dump_reader_error(r));
		emp_input_worse(in, EMP_EXIT_ERROR);
		break;
	}
}
