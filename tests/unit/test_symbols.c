/* SPDX-License-Identifier: MIT */
/* test_symbols.c - agent/core/symbols.c: interned method ids (the rewriter's identity of a method across
 * retransformations) and the queue to the writer. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dump_reader.h"
#include "dump_writer.h"
#include "dumpfile.h"
#include "symbols.h"

static void assert_method(const struct emp_dump_reader *r, uint32_t id, uint32_t flags, const char *klass,
			  const char *name, const char *descriptor)
{
	const struct emp_dump_method *m = emp_dump_method(r, id);
	cr_assert_not_null(m, "no symbol %u", id);
	cr_assert_eq(m->id, id);
	cr_assert_eq(m->kind, EMP_FRAME_JAVA, "symbol %u", id);
	cr_assert_eq(m->flags, flags, "symbol %u", id);
	cr_assert_str_eq(m->klass, klass, "symbol %u", id);
	cr_assert_str_eq(m->name, name, "symbol %u", id);
	cr_assert_str_eq(m->descriptor, descriptor, "symbol %u", id);
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
	/* ids are dense from 0 in a fresh process (Criterion forks each test) */
	cr_assert(a == 0 && b == 1 && c == 2 && d == 3, "ids %lld %lld %lld %lld", (long long)a, (long long)b,
		  (long long)c, (long long)d);
	cr_assert_eq(ids[0], 4);
	cr_assert_eq(ids[1499], 1503);
	/* the drain queued one symbol per fresh id, each exactly as given (class with dots), and nothing else */
	struct emp_dump_reader *r = emp_test_read_symbols();
	cr_assert_eq(emp_dump_method_limit(r), 1504);
	cr_assert_eq(emp_dump_chunks(r, EMP_CHUNK_SYMBOLS), 1);
	assert_method(r, 0, 0, "t.sym.A", "run", "()V");
	assert_method(r, 1, 0, "t.sym.A", "run", "(I)V");
	assert_method(r, 2, EMP_METHOD_ITERATION, "t.sym.A", "run", "()V");
	assert_method(r, 3, 0, "t.sym.B", "run", "()V");
	for (int i = 0; i < 1500; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		assert_method(r, (uint32_t)(4 + i), 0, "t.sym.C", name, "()V");
	}
	emp_dump_reader_close(r);
	/* drained: nothing more is queued */
	r = emp_test_read_symbols();
	cr_assert_eq(emp_dump_method_limit(r), 0);
	emp_dump_reader_close(r);
}
