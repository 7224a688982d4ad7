/* SPDX-License-Identifier: MIT */
/* test_symtab.c - interning across dumps, display names, per-reader maps. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dump_reader.h"
#include "dump_writer.h"
#include "dumpfile.h"
#include "symtab.h"

Test(symtab, intern_is_idempotent_and_dense)
{
	struct emp_symtab *st = emp_symtab_new();
	uint32_t a = emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "pkg.A", "run", "()V");
	uint32_t b = emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "pkg.A", "run", "(I)V");
	uint32_t c = emp_symtab_intern(st, EMP_FRAME_NATIVE, 0, "pkg.A", "run", "()V");
	uint32_t a2 = emp_symtab_intern(st, EMP_FRAME_JAVA, EMP_METHOD_ITERATION, "pkg.A", "run", "()V");
	cr_expect_eq(a, 0);
	cr_expect_eq(b, 1);
	cr_expect_eq(c, 2);
	cr_expect_eq(a2, 0);
	cr_expect_eq(emp_symtab_count(st), 3);
	cr_expect_eq(emp_symtab_get(st, a)->flags, EMP_METHOD_ITERATION | EMP_SYM_OVERLOADED); /* run()V, run(I)V */
	cr_expect_eq(emp_symtab_find(st, EMP_FRAME_JAVA, "pkg.A", "run", "(I)V"), 1);
	cr_expect_eq(emp_symtab_find(st, EMP_FRAME_JAVA, "pkg.A", "walk", "(I)V"), -1);
	/* the separator between fields matters: ("ab","c") is not ("a","bc") */
	uint32_t x = emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "ab", "c", "");
	uint32_t y = emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "a", "bc", "");
	cr_expect_neq(x, y);
	emp_symtab_free(st);
}

/* Overloads print with their descriptors wherever they are named, the first one too once a second comes; other
 * methods, native and pseudo frames do not; growing the table (past 1024 slots) keeps who came first. */
Test(symtab, overloads_print_with_their_descriptors)
{
	struct emp_symtab *st = emp_symtab_new();
	uint32_t scan = emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "t.Scanner", "scan", "(Lt/Tree;)V");
	uint32_t other = emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "t.Other", "scan", "(Lt/List;)V");
	uint32_t nat = emp_symtab_intern(st, EMP_FRAME_NATIVE, 0, "t.Scanner", "scan", "(Lt/List;)V");
	cr_expect_str_eq(emp_symtab_name(st, scan, 0), "t.Scanner.scan");
	char name[32];
	for (int i = 0; i < 1500; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "t.Filler", name, "()V");
	}
	uint32_t list = emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "t.Scanner", "scan", "(Lt/List;)V");
	uint32_t third = emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "t.Scanner", "scan", "()V");
	cr_expect_str_eq(emp_symtab_name(st, scan, 0), "t.Scanner.scan(Lt/Tree;)V");
	cr_expect_str_eq(emp_symtab_name(st, list, 0), "t.Scanner.scan(Lt/List;)V");
	cr_expect_str_eq(emp_symtab_name(st, third, 0), "t.Scanner.scan()V");
	cr_expect_str_eq(emp_symtab_name(st, other, 0), "t.Other.scan");
	cr_expect_str_eq(emp_symtab_name(st, nat, 0), "t.Scanner!scan");
	cr_expect_str_eq(emp_symtab_name(st, emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "t.Filler", "m7", "()V"), 0),
			 "t.Filler.m7");
	cr_expect_eq(emp_symtab_get(st, scan)->flags, EMP_SYM_OVERLOADED);
	cr_expect_eq(emp_symtab_get(st, other)->flags, 0);
	/* the de-instrumented mark follows the descriptor */
	emp_symtab_mark_removed(st, list);
	cr_expect_str_eq(emp_symtab_name(st, list, 0), "t.Scanner.scan(Lt/List;)V" EMP_SYMTAB_REMOVED_MARK);
	emp_symtab_free(st);
}

Test(symtab, display_names)
{
	struct emp_symtab *st = emp_symtab_new();
	uint32_t j = emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "emp.sut.ForkJoinFib", "fib", "(I)J");
	uint32_t n = emp_symtab_intern(st, EMP_FRAME_NATIVE, 0, "libz.so.1", "deflate", "");
	uint32_t p = emp_symtab_intern(st, EMP_FRAME_PSEUDO, 0, "", "[unknown_Java]", "");
	uint32_t q = emp_symtab_intern(st, EMP_FRAME_NATIVE, 0, "", "0x1234", NULL);
	cr_expect_str_eq(emp_symtab_name(st, j, 0), "emp.sut.ForkJoinFib.fib");
	cr_expect_str_eq(emp_symtab_name(st, j, 1), "emp.sut.ForkJoinFib.fib(I)J");
	cr_expect_str_eq(emp_symtab_name(st, n, 0), "libz.so.1!deflate");
	cr_expect_str_eq(emp_symtab_name(st, n, 1), "libz.so.1!deflate");
	cr_expect_str_eq(emp_symtab_name(st, p, 1), "[unknown_Java]");
	cr_expect_str_eq(emp_symtab_name(st, q, 0), "0x1234");
	emp_symtab_free(st);
}

Test(symtab, many_symbols_survive_rehash)
{
	struct emp_symtab *st = emp_symtab_new();
	char name[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		cr_assert_eq(emp_symtab_intern(st, EMP_FRAME_JAVA, 0, "C", name, "()V"), (uint32_t)i);
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		cr_assert_eq(emp_symtab_find(st, EMP_FRAME_JAVA, "C", name, "()V"), i);
	}
	cr_expect_eq(emp_symtab_count(st), 5000);
	emp_symtab_free(st);
}

/* A dump of @n methods: ids @ids (NULL: 0, 1, ...), classes @klass (NULL: pkg.C), names @names (NULL: run). */
static void write_dump(const char *path, int n, const uint32_t *ids, const char *const *klass, const char *const *names)
{
	FILE *f = fopen(path, "wb");
	cr_assert(f);
	struct emp_dump_writer *w = emp_dump_writer_new(emp_test_file_sink, f);
	cr_assert(w);
	cr_assert_eq(emp_dump_write_header(w), 0);
	const char *kv[] = { "agent", "test" };
	cr_assert_eq(emp_dump_write_meta(w, kv, 1), 0);
	for (int i = 0; i < n; i++)
		cr_assert_eq(emp_dump_add_method(w, ids ? ids[i] : (uint32_t)i, EMP_FRAME_JAVA, 0, klass ? klass[i] : "pkg.C",
						 names ? names[i] : "run", "()V"),
			     0);
	cr_assert_eq(emp_dump_flush_symbols(w), 0);
	cr_assert_eq(emp_dump_write_end(w, NULL, 0), 0);
	emp_dump_writer_free(w);
	fclose(f);
}

Test(symtab, maps_local_ids_of_two_dumps_by_name)
{
	char p1[] = "/tmp/emp-symtab-XXXXXX", p2[] = "/tmp/emp-symtab-XXXXXX";
	close(mkstemp(p1));
	close(mkstemp(p2));
	static const char *const n1[] = { "a", "b" }, *const n2[] = { "b", "c", "a" };
	static const uint32_t i1[] = { 0, 1 }, i2[] = { 0, 1, 2 };
	write_dump(p1, 2, i1, NULL, n1);
	write_dump(p2, 3, i2, NULL, n2);
	struct emp_symtab *st = emp_symtab_new();
	char err[256];
	struct emp_dump_reader *r1, *r2;
	cr_assert_eq(emp_dump_reader_open(p1, &r1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(emp_dump_reader_open(p2, &r2, err, sizeof(err)), 0, "%s", err);
	emp_dump_reader_drain(r1);
	emp_dump_reader_drain(r2);
	struct emp_symtab_map *m1 = emp_symtab_map_new(st, r1), *m2 = emp_symtab_map_new(st, r2);
	cr_expect_eq(emp_symtab_map_get(m1, 0), 0); /* a */
	cr_expect_eq(emp_symtab_map_get(m1, 1), 1); /* b */
	cr_expect_eq(emp_symtab_map_get(m2, 0), 1); /* b */
	cr_expect_eq(emp_symtab_map_get(m2, 1), 2); /* c */
	cr_expect_eq(emp_symtab_map_get(m2, 2), 0); /* a */
	cr_expect_str_eq(emp_symtab_name(st, 2, 0), "pkg.C.c");
	/* an id neither dump defined */
	uint32_t u = emp_symtab_map_get(m2, 700);
	cr_expect_str_eq(emp_symtab_name(st, u, 0), "[undefined_symbol]");
	cr_expect_eq(emp_symtab_count(st), 4);
	emp_symtab_map_free(m1);
	emp_symtab_map_free(m2);
	emp_dump_reader_close(r1);
	emp_dump_reader_close(r2);
	emp_symtab_free(st);
	unlink(p1);
	unlink(p2);
}

/* Hidden classes lose what differs between JVMs (the address suffix; a JDK 17 lambda's spin counter), so that the
 * same lambda of two runs is one symbol; other names stay whole. */
Test(symtab, hidden_class_names_meet_across_runs)
{
	static const char *const klass[] = {
		"a.B$$Lambda$10.0x00007f156c0bcf78", /* JDK 17 */
		"a.B$$Lambda$23/0x0000000800c03000", /* the same lambda, another run */
		"a.B$$Lambda.0x00007fe46c0be2e8",    /* JDK 21+ */
		"java.lang.invoke.LambdaForm$MH.0x00007f8e34012345",
		"a.B$$Lambda$7",                     /* no address: not hidden */
		"a.B$Inner",
		"pkg.Class0x1234",                   /* too few digits, no separator */
		"pkg.v.0xfeed",                      /* too few digits */
	};
	static const char *const want[] = { "a.B$$Lambda.run", "a.B$$Lambda.run", "a.B$$Lambda.run",
					    "java.lang.invoke.LambdaForm$MH.run", "a.B$$Lambda$7.run", "a.B$Inner.run",
					    "pkg.Class0x1234.run", "pkg.v.0xfeed.run" };
	enum { N = sizeof(klass) / sizeof(klass[0]) };
	char path[] = "/tmp/emp-symtab-XXXXXX";
	close(mkstemp(path));
	write_dump(path, N, NULL, klass, NULL);
	struct emp_symtab *st = emp_symtab_new();
	char err[256];
	struct emp_dump_reader *r;
	cr_assert_eq(emp_dump_reader_open(path, &r, err, sizeof(err)), 0, "%s", err);
	emp_dump_reader_drain(r);
	struct emp_symtab_map *m = emp_symtab_map_new(st, r);
	for (uint32_t i = 0; i < N; i++)
		cr_expect_str_eq(emp_symtab_name(st, emp_symtab_map_get(m, i), 0), want[i], "%s", klass[i]);
	cr_expect_eq(emp_symtab_map_get(m, 0), emp_symtab_map_get(m, 1), "one symbol for the lambda of two runs");
	cr_expect_eq(emp_symtab_map_get(m, 0), emp_symtab_map_get(m, 2));
	cr_expect_eq(emp_symtab_count(st), 6);
	emp_symtab_map_free(m);
	emp_dump_reader_close(r);
	emp_symtab_free(st);
	unlink(path);
}
