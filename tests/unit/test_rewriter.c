/* SPDX-License-Identifier: MIT */
/* test_rewriter.c - exact bytes of instrumented methods, skip reasons, and all of java.base. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "classfile.h"
#include "rewriter.h"

char *emp_test_extract_java_base(void); /* test_classfile.c */

/* --- a tiny class builder with a fixed constant pool --- */
enum {
	CP_THIS_NAME = 1, CP_THIS = 2, CP_OBJECT = 4, CP_INIT = 5, CP_VOID_DESC = 6, CP_OBJECT_INIT = 8,
	CP_CODE = 9, CP_SMT = 10, CP_M = 11, CP_II_DESC = 12, CP_LNT = 13, CP_COUNT = 14,
	/* appended by the rewriter, in this order */
	CP_ENTER = 19, CP_EXIT = 22, CP_THROW = 25, CP_THROWABLE = 27
};

struct mdef {
	uint16_t access, name, desc, max_stack, max_locals;
	const uint8_t *code;
	uint32_t code_len;
	const uint8_t *smt, *lnt; /* attribute bodies or NULL */
	uint32_t smt_len, lnt_len;
};

struct out {
	uint8_t *p;
	size_t n;
};

static void u1(struct out *o, uint8_t v) { o->p[o->n++] = v; }
static void u2(struct out *o, uint16_t v) { u1(o, (uint8_t)(v >> 8)); u1(o, (uint8_t)v); }
static void u4(struct out *o, uint32_t v) { u2(o, (uint16_t)(v >> 16)); u2(o, (uint16_t)v); }
static void bytes(struct out *o, const void *b, size_t n) { memcpy(o->p + o->n, b, n); o->n += n; }
static void utf8(struct out *o, const char *s) { u1(o, 1); u2(o, (uint16_t)strlen(s)); bytes(o, s, strlen(s)); }

static uint8_t *build(const char *name, uint16_t major, const struct mdef *m, int nm, size_t *len)
{
	struct out o = { calloc(1, 200000), 0 };
	u4(&o, 0xCAFEBABE);
	u2(&o, 0);
	u2(&o, major);
	u2(&o, CP_COUNT);
	utf8(&o, name);                                   /* 1 */
	u1(&o, 7); u2(&o, CP_THIS_NAME);                  /* 2 */
	utf8(&o, "java/lang/Object");                     /* 3 */
	u1(&o, 7); u2(&o, 3);                             /* 4 */
	utf8(&o, "<init>");                               /* 5 */
	utf8(&o, "()V");                                  /* 6 */
	u1(&o, 12); u2(&o, CP_INIT); u2(&o, CP_VOID_DESC); /* 7 */
	u1(&o, 10); u2(&o, CP_OBJECT); u2(&o, 7);         /* 8 */
	utf8(&o, "Code");                                 /* 9 */
	utf8(&o, "StackMapTable");                        /* 10 */
	utf8(&o, "m");                                    /* 11 */
	utf8(&o, "(I)I");                                 /* 12 */
	utf8(&o, "LineNumberTable");                      /* 13 */
	u2(&o, 0x21); u2(&o, CP_THIS); u2(&o, CP_OBJECT);
	u2(&o, 0); u2(&o, 0);
	u2(&o, (uint16_t)nm);
	for (int i = 0; i < nm; i++) {
		u2(&o, m[i].access); u2(&o, m[i].name); u2(&o, m[i].desc);
		u2(&o, 1);
		uint32_t alen = 12 + m[i].code_len + (m[i].smt ? 6 + m[i].smt_len : 0) + (m[i].lnt ? 6 + m[i].lnt_len : 0);
		u2(&o, CP_CODE); u4(&o, alen);
		u2(&o, m[i].max_stack); u2(&o, m[i].max_locals); u4(&o, m[i].code_len);
		bytes(&o, m[i].code, m[i].code_len);
		u2(&o, 0);
		u2(&o, (uint16_t)((m[i].smt != NULL) + (m[i].lnt != NULL)));
		if (m[i].smt) { u2(&o, CP_SMT); u4(&o, m[i].smt_len); bytes(&o, m[i].smt, m[i].smt_len); }
		if (m[i].lnt) { u2(&o, CP_LNT); u4(&o, m[i].lnt_len); bytes(&o, m[i].lnt, m[i].lnt_len); }
	}
	u2(&o, 0);
	*len = o.n;
	return o.p;
}

/* Selection: fixed id for every method; records what it was asked. */
struct sel {
	int32_t id;
	int calls;
	char last[256];
};

static int32_t select_fixed(void *ctx, const char *klass, const char *method, const char *desc, uint16_t acc)
{
	struct sel *s = ctx;
	s->calls++;
	snprintf(s->last, sizeof(s->last), "%s %s %s %#x", klass, method, desc, acc);
	return s->id;
}

/* Rewrites and returns the decoded Code of method 0 of the output (caller releases both). */
static struct emp_classfile *rewrite(const uint8_t *in, size_t len, int32_t id, struct emp_rewrite_stats *st,
				     uint8_t **outp, struct emp_cf_code *code)
{
	struct sel s = { .id = id };
	size_t olen;
	cr_assert_eq(emp_rewrite_class(in, len, select_fixed, &s, NULL, outp, &olen, st), 0);
	cr_assert_not_null(*outp);
	struct emp_classfile *cf;
	cr_assert_eq(emp_cf_parse(*outp, olen, &cf), 0);
	int ci = emp_cf_find_attr(cf, cf->methods[0].attrs, cf->methods[0].attr_count, "Code");
	cr_assert_geq(ci, 0);
	cr_assert_eq(emp_cf_code_parse(&cf->methods[0].attrs[ci], code), 0);
	return cf;
}

static const struct emp_cf_attr *code_attr(const struct emp_classfile *cf, const struct emp_cf_code *c,
					   const char *name)
{
	int i = emp_cf_find_attr(cf, c->attrs, c->attr_count, name);
	return i < 0 ? NULL : &c->attrs[i];
}

Test(rewriter, branch_returns_exact_bytes)
{
	static const uint8_t code[] = { 0x1a, 0x99, 0x00, 0x05, 0x04, 0xac, 0x03, 0xac };
	static const uint8_t smt[] = { 0x00, 0x01, 0x06 };                    /* same frame at 6 */
	static const uint8_t lnt[] = { 0x00, 0x02, 0, 0, 0, 10, 0, 6, 0, 11 }; /* pc 0 line 10, pc 6 line 11 */
	struct mdef m = { 0x0009, CP_M, CP_II_DESC, 1, 1, code, sizeof(code), smt, lnt, sizeof(smt), sizeof(lnt) };
	size_t len;
	uint8_t *in = build("T", 52, &m, 1, &len), *out;
	struct emp_rewrite_stats st = { 0 };
	struct emp_cf_code c;
	struct emp_classfile *cf = rewrite(in, len, 2, &st, &out, &c);

	static const uint8_t want[] = {
		0x05, 0xb8, 0x00, CP_ENTER,       /*  0: iconst_2; invokestatic enter */
		0x1a,                             /*  4: iload_0 */
		0x99, 0x00, 0x09,                 /*  5: ifeq 14 */
		0x04,                             /*  8: iconst_1 */
		0x05, 0xb8, 0x00, CP_EXIT, 0xac,  /*  9: exit probe; 13: ireturn */
		0x03,                             /* 14: iconst_0 */
		0x05, 0xb8, 0x00, CP_EXIT, 0xac,  /* 15: exit probe; 19: ireturn */
		0x05, 0xb8, 0x00, CP_THROW, 0xbf, /* 20: exitThrow probe; athrow */
	};
	cr_assert_eq(c.code_len, sizeof(want));
	cr_assert_arr_eq(c.code, want, sizeof(want));
	cr_assert_eq(c.max_stack, 2);
	cr_assert_eq(c.max_locals, 1);
	cr_assert_eq(c.exc_count, 2);
	struct emp_cf_exc e0 = { 4, 9, 20, 0 }, e1 = { 14, 15, 20, 0 };
	cr_assert_arr_eq(&c.exc[0], &e0, sizeof(e0));
	cr_assert_arr_eq(&c.exc[1], &e1, sizeof(e1));
	const struct emp_cf_attr *a = code_attr(cf, &c, "StackMapTable");
	static const uint8_t want_smt[] = { 0x00, 0x02, 14, 0xff, 0x00, 0x05, 0x00, 0x00, 0x00, 0x01, 0x07, 0x00,
					    CP_THROWABLE };
	cr_assert_not_null(a);
	cr_assert_eq(a->len, sizeof(want_smt));
	cr_assert_arr_eq(a->data, want_smt, sizeof(want_smt));
	a = code_attr(cf, &c, "LineNumberTable");
	static const uint8_t want_lnt[] = { 0x00, 0x02, 0, 0, 0, 10, 0, 14, 0, 11 };
	cr_assert_not_null(a);
	cr_assert_arr_eq(a->data, want_lnt, sizeof(want_lnt));
	cr_assert(emp_cf_utf8_eq(cf, CP_THROWABLE - 1, "java/lang/Throwable"));
	cr_assert_eq(emp_cf_const_u2(cf, CP_ENTER, EMP_CP_METHODREF, 0), 15);
	cr_assert_eq(st.classes_seen, 1);
	cr_assert_eq(st.classes_rewritten, 1);
	cr_assert_eq(st.methods_instrumented, 1);
	emp_cf_code_release(&c);
	emp_cf_free(cf);
	free(out);
	free(in);
}

/* Does Methodref @idx name @klass.@name@desc? */
static int names_method(const struct emp_classfile *cf, uint16_t idx, const char *klass, const char *name,
			const char *desc)
{
	uint16_t c = emp_cf_const_u2(cf, idx, EMP_CP_METHODREF, 0), nt = emp_cf_const_u2(cf, idx, EMP_CP_METHODREF, 2);
	uint16_t cn = c ? emp_cf_const_u2(cf, c, EMP_CP_CLASS, 0) : 0;
	uint16_t n = nt ? emp_cf_const_u2(cf, nt, EMP_CP_NAME_AND_TYPE, 0) : 0;
	uint16_t d = nt ? emp_cf_const_u2(cf, nt, EMP_CP_NAME_AND_TYPE, 2) : 0;
	return cn && n && d && emp_cf_utf8_eq(cf, cn, klass) && emp_cf_utf8_eq(cf, n, name) && emp_cf_utf8_eq(cf, d, desc);
}

/* min_code_len (budget='s small methods): a method with less code is left alone before the selection is asked and
 * counted; one with exactly that much is instrumented as usual. */
Test(rewriter, min_code_len_leaves_small_methods_alone)
{
	static const uint8_t code[] = { 0x1a, 0x99, 0x00, 0x05, 0x04, 0xac, 0x03, 0xac }; /* 8 bytes */
	static const uint8_t smt[] = { 0x00, 0x01, 0x06 };
	struct mdef m = { 0x0009, CP_M, CP_II_DESC, 1, 1, code, sizeof(code), smt, NULL, sizeof(smt), 0 };
	size_t len, olen = 1;
	uint8_t *in = build("T", 52, &m, 1, &len), *out = (uint8_t *)1;
	struct emp_rewrite_stats st = { 0 };
	struct sel s = { .id = 2 };
	const struct emp_probes small = { .klass = "emp/Guard", .guarded = 1, .min_code_len = 9 };
	cr_assert_eq(emp_rewrite_class(in, len, select_fixed, &s, &small, &out, &olen, &st), 0);
	cr_assert_null(out, "nothing instrumented: no new class");
	cr_assert_eq(olen, 0);
	cr_assert_eq(s.calls, 0, "the selection is not asked about a method left alone");
	cr_assert_eq(st.methods_small, 1);
	cr_assert_eq(st.methods_instrumented, 0);
	cr_assert_eq(st.classes_rewritten, 0);

	const struct emp_probes enough = { .klass = "emp/Guard", .guarded = 1, .min_code_len = 8 };
	memset(&st, 0, sizeof(st));
	cr_assert_eq(emp_rewrite_class(in, len, select_fixed, &s, &enough, &out, &olen, &st), 0);
	cr_assert_not_null(out);
	cr_assert_eq(s.calls, 1);
	cr_assert_eq(st.methods_small, 0);
	cr_assert_eq(st.methods_instrumented, 1);
	free(out);
	free(in);
}

/* The guarded shape: the entry's answer in a new local 1, passed to each exit; every frame after the entry (here
 * the branch target and the handler) holds it as an int. */
Test(rewriter, guarded_shape_exact_bytes)
{
	static const uint8_t code[] = { 0x1a, 0x99, 0x00, 0x05, 0x04, 0xac, 0x03, 0xac };
	static const uint8_t smt[] = { 0x00, 0x01, 0x06 }; /* same frame at 6 */
	struct mdef m = { 0x0009, CP_M, CP_II_DESC, 1, 1, code, sizeof(code), smt, NULL, sizeof(smt), 0 };
	size_t len, olen;
	uint8_t *in = build("T", 52, &m, 1, &len), *out;
	struct emp_rewrite_stats st = { 0 };
	struct sel s = { .id = 2 };
	const struct emp_probes guarded = { .klass = "emp/Guard", .guarded = 1 };
	cr_assert_eq(emp_rewrite_class(in, len, select_fixed, &s, &guarded, &out, &olen, &st), 0);
	cr_assert_not_null(out);
	struct emp_classfile *cf;
	cr_assert_eq(emp_cf_parse(out, olen, &cf), 0);
	struct emp_cf_code c;
	int ci = emp_cf_find_attr(cf, cf->methods[0].attrs, cf->methods[0].attr_count, "Code");
	cr_assert_eq(emp_cf_code_parse(&cf->methods[0].attrs[ci], &c), 0);
	cr_assert_eq(c.code_len, 29);
	uint8_t e = c.code[3], x = c.code[14], t = c.code[27];
	cr_assert(names_method(cf, e, "emp/Guard", "enter", "(I)Z"));
	cr_assert(names_method(cf, x, "emp/Guard", "exit", "(ZI)V"));
	cr_assert(names_method(cf, t, "emp/Guard", "exitThrow", "(ZI)V"));
	const uint8_t want[] = {
		0x05, 0xb8, 0x00, e, 0x3c,       /*  0: iconst_2; invokestatic enter(I)Z; istore_1 */
		0x1a,                            /*  5: iload_0 */
		0x99, 0x00, 0x0a,                /*  6: ifeq 16 */
		0x04,                            /*  9: iconst_1 */
		0x1b, 0x05, 0xb8, 0x00, x, 0xac, /* 10: iload_1; iconst_2; invokestatic exit(ZI)V; 15: ireturn */
		0x03,                            /* 16: iconst_0 */
		0x1b, 0x05, 0xb8, 0x00, x, 0xac, /* 17: the same exit; 22: ireturn */
		0x1b, 0x05, 0xb8, 0x00, t, 0xbf, /* 23: iload_1; iconst_2; invokestatic exitThrow(ZI)V; athrow */
	};
	cr_assert_arr_eq(c.code, want, sizeof(want));
	cr_assert_eq(c.max_stack, 3, "the flag and the id above the return value");
	cr_assert_eq(c.max_locals, 2, "the flag local");
	cr_assert_eq(c.exc_count, 2);
	struct emp_cf_exc e0 = { 5, 10, 23, 0 }, e1 = { 16, 17, 23, 0 };
	cr_assert_arr_eq(&c.exc[0], &e0, sizeof(e0));
	cr_assert_arr_eq(&c.exc[1], &e1, sizeof(e1));
	const struct emp_cf_attr *a = code_attr(cf, &c, "StackMapTable");
	cr_assert_not_null(a);
	uint16_t thr = emp_cf_be16(a->data + a->len - 2);
	cr_assert(emp_cf_utf8_eq(cf, emp_cf_const_u2(cf, thr, EMP_CP_CLASS, 0), "java/lang/Throwable"));
	const uint8_t want_smt[] = {
		0x00, 0x02,
		252, 0x00, 16, 0x01,                                              /* append int (the flag) at 16 */
		0xff, 0x00, 6, 0x00, 0x02, 0x00, 0x01, 0x00, 0x01, 0x07, thr >> 8, thr & 0xff, /* 23: top, int | Throwable */
	};
	cr_assert_eq(a->len, sizeof(want_smt));
	cr_assert_arr_eq(a->data, want_smt, sizeof(want_smt));
	cr_assert_eq(st.methods_instrumented, 1);
	emp_cf_code_release(&c);
	emp_cf_free(cf);
	free(out);
	free(in);
}

Test(rewriter, constructor_entry_after_super)
{
	static const uint8_t code[] = { 0x2a, 0xb7, 0x00, CP_OBJECT_INIT, 0x2a, 0x57, 0xb1 };
	struct mdef m = { 0x0001, CP_INIT, CP_VOID_DESC, 1, 1, code, sizeof(code), NULL, NULL, 0, 0 };
	size_t len;
	uint8_t *in = build("T", 52, &m, 1, &len), *out;
	struct emp_cf_code c;
	struct emp_classfile *cf = rewrite(in, len, 1, NULL, &out, &c);
	static const uint8_t want[] = {
		0x2a, 0xb7, 0x00, CP_OBJECT_INIT, /*  0: aload_0; invokespecial Object.<init> */
		0x04, 0xb8, 0x00, CP_ENTER,       /*  4: entry probe after super() */
		0x2a, 0x57,                       /*  8: aload_0; pop */
		0x04, 0xb8, 0x00, CP_EXIT, 0xb1,  /* 10: exit probe; return */
		0x04, 0xb8, 0x00, CP_THROW, 0xbf, /* 15: handler */
	};
	cr_assert_eq(c.code_len, sizeof(want));
	cr_assert_arr_eq(c.code, want, sizeof(want));
	cr_assert_eq(c.exc_count, 1);
	struct emp_cf_exc e0 = { 8, 10, 15, 0 };
	cr_assert_arr_eq(&c.exc[0], &e0, sizeof(e0));
	const struct emp_cf_attr *a = code_attr(cf, &c, "StackMapTable");
	static const uint8_t want_smt[] = { 0x00, 0x01, 0xff, 0x00, 15, 0x00, 0x00, 0x00, 0x01, 0x07, 0x00,
					    CP_THROWABLE };
	cr_assert_not_null(a, "a StackMapTable is created for the handler");
	cr_assert_arr_eq(a->data, want_smt, sizeof(want_smt));
	emp_cf_code_release(&c);
	emp_cf_free(cf);
	free(out);
	free(in);
}

Test(rewriter, conditional_branch_overflow_uses_trampoline)
{
	enum { K = 32740 };
	static uint8_t code[4 + 20 + K + 2];
	size_t n = 0;
	code[n++] = 0x1a;
	code[n++] = 0x99;
	code[n++] = (uint8_t)((sizeof(code) - 2 - 1) >> 8);
	code[n++] = (uint8_t)(sizeof(code) - 2 - 1);
	for (int i = 0; i < 10; i++) {
		code[n++] = 0x03;
		code[n++] = 0xac;
	}
	memset(code + n, 0x00, K); /* nop */
	n += K;
	code[n++] = 0x04;
	code[n++] = 0xac;
	cr_assert_eq(n, sizeof(code));
	struct mdef m = { 0x0009, CP_M, CP_II_DESC, 1, 1, code, sizeof(code), NULL, NULL, 0, 0 };
	size_t len;
	uint8_t *in = build("T", 49, &m, 1, &len), *out;
	struct emp_cf_code c;
	struct emp_classfile *cf = rewrite(in, len, 0, NULL, &out, &c);
	const uint8_t *p = c.code;
	cr_assert_eq(p[5], 0x99, "ifeq kept at 5");
	int16_t d = (int16_t)emp_cf_be16(p + 6);
	cr_assert_eq(d, 9, "ifeq goes to the trampoline after the first ireturn");
	cr_assert_eq(p[14], 0xc8, "goto_w trampoline");
	uint32_t target = 14 + emp_cf_be32(p + 15);
	cr_assert_eq(target, 4 + 4 + 10 * 6 + 5 + K);
	static const uint8_t tail[] = { 0x04, 0x03, 0xb8, 0x00, CP_EXIT, 0xac, 0x03, 0xb8, 0x00, CP_THROW, 0xbf };
	cr_assert_eq(c.code_len, target + sizeof(tail));
	cr_assert_arr_eq(p + target, tail, sizeof(tail));
	cr_assert_null(code_attr(cf, &c, "StackMapTable"), "no stack maps below version 50");
	emp_cf_code_release(&c);
	emp_cf_free(cf);
	free(out);
	free(in);
}

Test(rewriter, jsr_method_is_skipped)
{
	static const uint8_t code[] = { 0xa8, 0x00, 0x04, 0xb1, 0x4b, 0xa9, 0x00 };
	struct mdef m = { 0x0009, CP_M, CP_VOID_DESC, 1, 1, code, sizeof(code), NULL, NULL, 0, 0 };
	size_t len, olen;
	uint8_t *in = build("T", 49, &m, 1, &len), *out = (uint8_t *)1;
	struct emp_rewrite_stats st = { 0 };
	struct sel s = { .id = 7 };
	cr_assert_eq(emp_rewrite_class(in, len, select_fixed, &s, NULL, &out, &olen, &st), 0);
	cr_assert_null(out, "nothing instrumented: no new class");
	cr_assert_eq(st.methods_skipped[EMP_REWRITE_E_JSR], 1);
	cr_assert_eq(st.methods_instrumented, 0);
	cr_assert_eq(st.classes_rewritten, 0);
	cr_assert_str_eq(s.last, "T m ()V 0x9");
	free(in);
}

Test(rewriter, too_large_is_skipped)
{
	static uint8_t code[65530];
	memset(code, 0x00, sizeof(code));
	code[sizeof(code) - 1] = 0xb1;
	struct mdef m = { 0x0009, CP_M, CP_VOID_DESC, 1, 1, code, sizeof(code), NULL, NULL, 0, 0 };
	size_t len, olen;
	uint8_t *in = build("T", 52, &m, 1, &len), *out;
	struct emp_rewrite_stats st = { 0 };
	struct sel s = { .id = 0 };
	cr_assert_eq(emp_rewrite_class(in, len, select_fixed, &s, NULL, &out, &olen, &st), 0);
	cr_assert_null(out);
	cr_assert_eq(st.methods_skipped[EMP_REWRITE_E_CODE_TOO_LARGE], 1);
	free(in);
}

Test(rewriter, unselected_probe_class_and_malformed)
{
	static const uint8_t code[] = { 0xb1 };
	struct mdef m = { 0x0009, CP_M, CP_VOID_DESC, 1, 1, code, sizeof(code), NULL, NULL, 0, 0 };
	size_t len, olen;
	uint8_t *in = build("T", 52, &m, 1, &len), *out;
	struct emp_rewrite_stats st = { 0 };
	struct sel s = { .id = -1 };
	cr_assert_eq(emp_rewrite_class(in, len, select_fixed, &s, NULL, &out, &olen, &st), 0);
	cr_assert_null(out);
	cr_assert_eq(s.calls, 1);
	free(in);

	in = build("emp/Probe", 52, &m, 1, &len);
	s.id = 3;
	s.calls = 0;
	cr_assert_eq(emp_rewrite_class(in, len, select_fixed, &s, NULL, &out, &olen, &st), 0);
	cr_assert_null(out);
	cr_assert_eq(s.calls, 0, "the probe class is never offered for selection");
	struct emp_probes names = { .klass = "my/P" };
	cr_assert_eq(emp_rewrite_class(in, len, select_fixed, &s, &names, &out, &olen, &st), 0);
	cr_assert_not_null(out, "with another probe class name, emp/Probe is an ordinary class");
	free(out);

	cr_assert_eq(emp_rewrite_class(in, len - 3, select_fixed, &s, NULL, &out, &olen, &st),
		     -EMP_REWRITE_E_TRUNCATED);
	cr_assert_null(out);
	in[0] = 0;
	cr_assert_eq(emp_rewrite_class(in, len, select_fixed, &s, NULL, &out, &olen, &st), -EMP_REWRITE_E_BAD_MAGIC);
	cr_assert_eq(st.classes_failed[EMP_REWRITE_E_TRUNCATED], 1);
	cr_assert_eq(st.classes_failed[EMP_REWRITE_E_BAD_MAGIC], 1);
	cr_assert_eq(st.classes_seen, 5);
	free(in);
}

Test(rewriter, truncated_and_corrupted_inputs_never_crash)
{
	static const uint8_t code[] = { 0x1a, 0x99, 0x00, 0x05, 0x04, 0xac, 0x03, 0xac };
	static const uint8_t smt[] = { 0x00, 0x01, 0x06 };
	struct mdef m = { 0x0009, CP_M, CP_II_DESC, 1, 1, code, sizeof(code), smt, NULL, sizeof(smt), 0 };
	size_t len, olen;
	uint8_t *in = build("T", 52, &m, 1, &len), *out;
	struct sel s = { .id = 40000 };
	for (size_t n = 0; n < len; n++) {
		uint8_t *b = malloc(n ? n : 1);
		memcpy(b, in, n);
		cr_assert_lt(emp_rewrite_class(b, n, select_fixed, &s, NULL, &out, &olen, NULL), 0);
		free(b);
	}
	unsigned seed = 777;
	for (int iter = 0; iter < 20000; iter++) {
		uint8_t *b = malloc(len);
		memcpy(b, in, len);
		seed = seed * 1103515245u + 12345u;
		b[(seed >> 8) % len] ^= (uint8_t)(1u << ((seed >> 4) & 7));
		if (emp_rewrite_class(b, len, select_fixed, &s, NULL, &out, &olen, NULL) == 0 && out) {
			struct emp_classfile *cf;
			cr_assert_eq(emp_cf_parse(out, olen, &cf), 0, "output of a corrupted input must parse");
			emp_cf_free(cf);
			free(out);
		}
		free(b);
	}
	free(in);
}

Test(rewriter, reason_strings)
{
	cr_assert_str_eq(emp_rewrite_reason_str(EMP_REWRITE_E_JSR), "jsr/ret subroutines");
	cr_assert_str_eq(emp_rewrite_reason_str(-EMP_REWRITE_E_JSR), "jsr/ret subroutines");
	cr_assert_str_eq(emp_rewrite_reason_str(EMP_REWRITE_E_CTOR_SHAPE),
			 "constructor without a separable super()/this() prologue");
	cr_assert_str_eq(emp_rewrite_reason_str(0), "ok");
	cr_assert_str_eq(emp_rewrite_reason_str(EMP_REWRITE_NREASONS), "unknown");
	cr_assert_str_eq(emp_rewrite_reason_str(12345), "unknown");
	for (int i = 1; i < EMP_REWRITE_NREASONS; i++)
		cr_assert_neq(strcmp(emp_rewrite_reason_str(i), "unknown"), 0, "reason %d", i);
}

/* --- every class of java.base with every method selected --- */

static struct emp_rewrite_stats jb_stats;
static size_t jb_bad_output;
static const struct emp_probes *jb_probes; /* NULL: the plain shape */

static int32_t select_all(void *ctx, const char *klass, const char *method, const char *desc, uint16_t acc)
{
	(void)klass; (void)method; (void)desc; (void)acc;
	int32_t *next = ctx;
	return (*next)++ % 70000; /* exercises iconst, bipush, sipush and ldc pushes */
}

static int rewrite_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	static int32_t next;
	size_t n = strlen(path);
	if (type != FTW_F || n < 6 || strcmp(path + n - 6, ".class") != 0)
		return 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	uint8_t *b = malloc((size_t)st->st_size + 1);
	size_t len = fread(b, 1, (size_t)st->st_size, f);
	fclose(f);
	uint8_t *out;
	size_t olen;
	int r = emp_rewrite_class(b, len, select_all, &next, jb_probes, &out, &olen, &jb_stats);
	if (r < 0)
		cr_log_error("%s: %s", path, emp_rewrite_reason_str(r));
	if (out) {
		struct emp_classfile *cf;
		if (emp_cf_parse(out, olen, &cf) == 0)
			emp_cf_free(cf);
		else
			jb_bad_output++;
		free(out);
	}
	free(b);
	return 0;
}

Test(rewriter, java_base_all_methods, .timeout = 300)
{
	char *dir = emp_test_extract_java_base();
	if (!dir)
		cr_skip_test("java.base.jmod or unzip not available");
	/* The guarded shape first: it must instrument exactly the methods the plain shape does. */
	static const struct emp_probes guarded = { .klass = "emp/Guard", .guarded = 1 };
	jb_probes = &guarded;
	memset(&jb_stats, 0, sizeof(jb_stats));
	nftw(dir, rewrite_one, 32, FTW_PHYS);
	struct emp_rewrite_stats g = jb_stats;
	jb_probes = NULL;
	memset(&jb_stats, 0, sizeof(jb_stats));
	nftw(dir, rewrite_one, 32, FTW_PHYS);
	cr_assert_arr_eq(&g, &jb_stats, sizeof(g), "the guarded shape skipped or failed other methods than the plain one");
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
	free(dir);
	uint64_t skipped = 0, failed = 0;
	for (int k = 1; k < EMP_REWRITE_NREASONS; k++) {
		skipped += jb_stats.methods_skipped[k];
		failed += jb_stats.classes_failed[k];
		if (jb_stats.methods_skipped[k] || jb_stats.classes_failed[k])
			cr_log_info("java.base: %s: %llu methods skipped, %llu classes failed", emp_rewrite_reason_str(k),
				    (unsigned long long)jb_stats.methods_skipped[k],
				    (unsigned long long)jb_stats.classes_failed[k]);
	}
	cr_log_info("java.base: %llu classes seen, %llu rewritten, %llu methods instrumented, %llu skipped",
		    (unsigned long long)jb_stats.classes_seen, (unsigned long long)jb_stats.classes_rewritten,
		    (unsigned long long)jb_stats.methods_instrumented, (unsigned long long)skipped);
	cr_assert_gt(jb_stats.classes_seen, 5000);
	cr_assert_eq(failed, 0);
	cr_assert_eq(jb_bad_output, 0);
	cr_assert_gt(jb_stats.classes_rewritten, 5000);
	cr_assert_gt(jb_stats.methods_instrumented, 50000);
}
