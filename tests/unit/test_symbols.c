/* SPDX-License-Identifier: MIT */
/* test_symbols.c - agent/core/symbols.c: interned method ids (the rewriter's identity of a method across
 * retransformations) and the queue to the writer. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dump_writer.h"
#include "symbols.h"

static int sink_discard(void *ctx, const void *buf, size_t len)
{
	(void)buf;
	*(size_t *)ctx += len;
	return 0;
}

Test(symbols, intern_keeps_ids)
{
	emp_symbols_setup();
	int fresh = -1;
	int64_t a = emp_symbols_intern_method(EMP_FRAME_JAVA, 0, "t/sym/A", "run", "()V", &fresh);
	cr_assert_geq(a, 0);
	cr_assert_eq(fresh, 1);
	/* the same method again, with dots or slashes: the same id, not fresh */
	cr_assert_eq(emp_symbols_intern_method(EMP_FRAME_JAVA, 0, "t/sym/A", "run", "()V", &fresh), a);
	cr_assert_eq(fresh, 0);
	cr_assert_eq(emp_symbols_intern_method(EMP_FRAME_JAVA, 0, "t.sym.A", "run", "()V", &fresh), a);
	cr_assert_eq(fresh, 0);
	/* anything else differing is another method */
	int64_t b = emp_symbols_intern_method(EMP_FRAME_JAVA, 0, "t/sym/A", "run", "(I)V", &fresh);
	cr_assert_eq(fresh, 1);
	int64_t c = emp_symbols_intern_method(EMP_FRAME_JAVA, EMP_METHOD_ITERATION, "t/sym/A", "run", "()V", &fresh);
	cr_assert_eq(fresh, 1);
	int64_t d = emp_symbols_intern_method(EMP_FRAME_JAVA, 0, "t/sym/B", "run", "()V", &fresh);
	cr_assert_eq(fresh, 1);
	cr_assert(a != b && a != c && a != d && b != c && b != d && c != d);
	/* past the table's first growth (1024 slots at half load), every id is still found */
	int64_t ids[1500];
	char name[32];
	for (int i = 0; i < 1500; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		ids[i] = emp_symbols_intern_method(EMP_FRAME_JAVA, 0, "t/sym/C", name, "()V", &fresh);
		cr_assert_eq(fresh, 1);
	}
	for (int i = 0; i < 1500; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		cr_assert_eq(emp_symbols_intern_method(EMP_FRAME_JAVA, 0, "t/sym/C", name, "()V", &fresh), ids[i]);
		cr_assert_eq(fresh, 0);
	}
	cr_assert_eq(emp_symbols_intern_method(EMP_FRAME_JAVA, 0, "t/sym/A", "run", "()V", &fresh), a);
	/* drain what was queued so the test leaves no allocation behind (one symbol per fresh id) */
	size_t bytes = 0;
	struct emp_dump_writer *w = emp_dump_writer_new(sink_discard, &bytes);
	cr_assert_not_null(w);
	cr_assert_eq(emp_symbols_drain(w), 0);
	emp_dump_writer_free(w);
}
