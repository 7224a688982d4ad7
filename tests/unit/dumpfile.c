/* SPDX-License-Identifier: MIT */
/* dumpfile.c - see dumpfile.h. */
#include "dumpfile.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dump_reader.h"
#include "dump_writer.h"
#include "symbols.h"

int emp_test_file_sink(void *ctx, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, ctx) == len ? 0 : -EIO;
}

int emp_test_run_cmd(int (*cmd)(int, char **), const char *dump, const char *a0, const char *a1, const char *a2,
		     const char *a3)
{
	char *argv[6] = { (char *)a0 };
	int argc = 1;
	const char *extra[] = { a1, a2, a3 };
	for (int i = 0; i < 3; i++)
		if (extra[i])
			argv[argc++] = (char *)extra[i];
	argv[argc++] = (char *)dump;
	optind = 0; /* glibc: reinitialize getopt for every command run */
	int rc = cmd(argc, argv);
	fflush(stdout);
	return rc;
}

struct emp_dump_reader *emp_test_read_symbols(void)
{
	char path[] = "/tmp/emp-symbols-XXXXXX", err[256];
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *f = fdopen(fd, "wb");
	cr_assert_not_null(f);
	struct emp_dump_writer *w = emp_dump_writer_new(emp_test_file_sink, f);
	cr_assert_not_null(w);
	cr_assert_eq(emp_dump_write_header(w), 0);
	cr_assert_eq(emp_symbols_drain(w), 0);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	cr_assert_eq(emp_dump_write_end(w, NULL, 0), 0);
	emp_dump_writer_free(w);
	cr_assert_eq(fclose(f), 0);
	struct emp_dump_reader *r;
	cr_assert_eq(emp_dump_reader_open(path, &r, err, sizeof(err)), 0, "%s", err);
	unlink(path);
	emp_dump_reader_drain(r);
	cr_assert_eq(emp_dump_reader_status(r), EMP_DUMP_COMPLETE, "%s", emp_dump_reader_error(r));
	return r;
}
