/* SPDX-License-Identifier: MIT */
/* test_classfile.c - class-file parser/writer: round trips, constant-pool appends, malformed input. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classfile.h"

#define JAVA_BASE_JMOD "/usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod"

/* A minimal valid class: class T extends java/lang/Object, one static method m()V { return; }. */
static const uint8_t tiny[] = {
	0xCA, 0xFE, 0xBA, 0xBE, 0x00, 0x00, 0x00, 0x34, /* magic, minor 0, major 52 */
	0x00, 0x08,                                     /* cp_count 8 */
	0x01, 0x00, 0x01, 'T',                          /* #1 Utf8 T */
	0x07, 0x00, 0x01,                               /* #2 Class #1 */
	0x01, 0x00, 0x10, 'j', 'a', 'v', 'a', '/', 'l', 'a', 'n', 'g', '/', 'O', 'b', 'j', 'e', 'c', 't',
	0x07, 0x00, 0x03,                               /* #4 Class #3 */
	0x01, 0x00, 0x01, 'm',                          /* #5 */
	0x01, 0x00, 0x03, '(', ')', 'V',                /* #6 */
	0x01, 0x00, 0x04, 'C', 'o', 'd', 'e',           /* #7 */
	0x00, 0x21, 0x00, 0x02, 0x00, 0x04,             /* access, this #2, super #4 */
	0x00, 0x00, 0x00, 0x00,                         /* no interfaces, no fields */
	0x00, 0x01,                                     /* one method */
	0x00, 0x09, 0x00, 0x05, 0x00, 0x06, 0x00, 0x01, /* public static m()V, 1 attribute */
	0x00, 0x07, 0x00, 0x00, 0x00, 0x0d,             /* Code, 13 bytes */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xb1, /* stack 0 locals 0, len 1, return */
	0x00, 0x00, 0x00, 0x00,                         /* no exceptions, no attributes */
	0x00, 0x00,                                     /* no class attributes */
};

Test(classfile, tiny_round_trip)
{
	struct emp_classfile *cf;
	cr_assert_eq(emp_cf_parse(tiny, sizeof(tiny), &cf), 0);
	cr_assert_eq(cf->major_version, 52);
	cr_assert_eq(cf->cp_count, 8);
	cr_assert_eq(cf->methods_count, 1);
	cr_assert(emp_cf_utf8_eq(cf, cf->methods[0].name_index, "m"));
	uint16_t n;
	const uint8_t *name = emp_cf_class_name(cf, cf->this_class, &n);
	cr_assert(name && n == 1 && name[0] == 'T');
	cr_assert_null(emp_cf_class_name(cf, 1, &n), "#1 is a Utf8, not a Class");
	cr_assert_null(emp_cf_utf8(cf, 8, &n), "out of range");
	cr_assert_null(emp_cf_utf8(cf, 0, &n));
	struct emp_cf_code code;
	cr_assert_eq(emp_cf_code_parse(&cf->methods[0].attrs[0], &code), 0);
	cr_assert_eq(code.code_len, 1);
	cr_assert_eq(code.code[0], 0xb1);
	emp_cf_code_release(&code);
	uint8_t *out;
	size_t len;
	cr_assert_eq(emp_cf_size(cf), sizeof(tiny));
	cr_assert_eq(emp_cf_write(cf, &out, &len), 0);
	cr_assert_eq(len, sizeof(tiny));
	cr_assert_arr_eq(out, tiny, sizeof(tiny));
	free(out);
	emp_cf_free(cf);
}

Test(classfile, constant_pool_appends)
{
	struct emp_classfile *cf;
	cr_assert_eq(emp_cf_parse(tiny, sizeof(tiny), &cf), 0);
	cr_assert_eq(emp_cf_add_utf8(cf, "Code", 4), 7, "an equal entry is reused");
	cr_assert_eq(emp_cf_add_class(cf, "java/lang/Object", 16), 4);
	int mr = emp_cf_add_methodref(cf, "emp/Probe", "enter", "(I)V");
	/* Utf8 emp/Probe #8, Class #9, Utf8 enter #10, Utf8 (I)V #11, NameAndType #12, Methodref #13 */
	cr_assert_eq(mr, 13);
	cr_assert_eq(cf->cp_count, 14);
	cr_assert_eq(emp_cf_add_methodref(cf, "emp/Probe", "enter", "(I)V"), 13);
	cr_assert_eq(emp_cf_add_integer(cf, 123456), 14);
	for (int i = 0; i < 40; i++) { /* forces the pool array to grow */
		char s[16];
		snprintf(s, sizeof(s), "s%d", i);
		cr_assert_eq(emp_cf_add_utf8(cf, s, strlen(s)), 15 + i);
	}
	uint8_t *out;
	size_t len;
	cr_assert_eq(emp_cf_write(cf, &out, &len), 0);
	struct emp_classfile *again;
	cr_assert_eq(emp_cf_parse(out, len, &again), 0);
	cr_assert_eq(again->cp_count, 55);
	cr_assert_eq(emp_cf_const_u2(again, 13, EMP_CP_METHODREF, 0), 9);
	cr_assert_eq(emp_cf_const_u2(again, 13, EMP_CP_METHODREF, 2), 12);
	cr_assert(emp_cf_utf8_eq(again, 10, "enter"));
	cr_assert(emp_cf_utf8_eq(again, 54, "s39"));
	emp_cf_free(again);
	free(out);
	emp_cf_free(cf);
}

Test(classfile, every_truncation_is_an_error)
{
	for (size_t n = 0; n < sizeof(tiny); n++) {
		struct emp_classfile *cf = (void *)1;
		/* Copy into an exact-size heap buffer so that ASan catches any over-read. */
		uint8_t *b = malloc(n ? n : 1);
		memcpy(b, tiny, n);
		int r = emp_cf_parse(b, n, &cf);
		cr_assert_lt(r, 0, "prefix of %zu bytes parsed", n);
		cr_assert_null(cf);
		free(b);
	}
	struct emp_classfile *cf;
	uint8_t longer[sizeof(tiny) + 1];
	memcpy(longer, tiny, sizeof(tiny));
	longer[sizeof(tiny)] = 0;
	cr_assert_eq(emp_cf_parse(longer, sizeof(longer), &cf), -EMP_CF_E_TRAILING);
}

Test(classfile, malformed_headers)
{
	struct emp_classfile *cf;
	uint8_t b[sizeof(tiny)];
	memcpy(b, tiny, sizeof(b));
	b[0] = 0xCB;
	cr_assert_eq(emp_cf_parse(b, sizeof(b), &cf), -EMP_CF_E_BAD_MAGIC);
	memcpy(b, tiny, sizeof(b));
	b[7] = 44;
	cr_assert_eq(emp_cf_parse(b, sizeof(b), &cf), -EMP_CF_E_BAD_VERSION);
	b[7] = 70;
	cr_assert_eq(emp_cf_parse(b, sizeof(b), &cf), -EMP_CF_E_BAD_VERSION);
	for (int v = 45; v <= 69; v++) {
		b[7] = (uint8_t)v;
		cr_assert_eq(emp_cf_parse(b, sizeof(b), &cf), 0, "major %d", v);
		emp_cf_free(cf);
	}
	memcpy(b, tiny, sizeof(b));
	b[10] = 2; /* tag 2 does not exist */
	cr_assert_eq(emp_cf_parse(b, sizeof(b), &cf), -EMP_CF_E_BAD_CONSTANT);
}

Test(classfile, code_attribute_bounds)
{
	/* max_stack, max_locals, code_length 3 but only 1 byte of code follows */
	static const uint8_t body[] = { 0, 1, 0, 1, 0, 0, 0, 3, 0xb1, 0, 0, 0, 0 };
	struct emp_cf_attr a = { 7, sizeof(body), body };
	struct emp_cf_code c;
	cr_assert_eq(emp_cf_code_parse(&a, &c), -EMP_CF_E_BAD_CODE);
	static const uint8_t zero_len[] = { 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct emp_cf_attr z = { 7, sizeof(zero_len), zero_len };
	cr_assert_eq(emp_cf_code_parse(&z, &c), -EMP_CF_E_BAD_CODE);
	static const uint8_t extra[] = { 0, 1, 0, 1, 0, 0, 0, 1, 0xb1, 0, 0, 0, 0, 0xff };
	struct emp_cf_attr x = { 7, sizeof(extra), extra };
	cr_assert_eq(emp_cf_code_parse(&x, &c), -EMP_CF_E_BAD_CODE, "attribute length must be used exactly");
}

Test(classfile, random_corruption_never_crashes)
{
	/* Seeded: flips random bytes of the tiny class; every outcome must be an error or a class that
	 * writes back to the same bytes. */
	unsigned seed = 12345;
	uint8_t b[sizeof(tiny)];
	for (int iter = 0; iter < 20000; iter++) {
		memcpy(b, tiny, sizeof(b));
		for (int k = 0; k < 3; k++) {
			seed = seed * 1103515245u + 12345u;
			b[(seed >> 8) % sizeof(b)] = (uint8_t)(seed >> 20);
		}
		struct emp_classfile *cf;
		if (emp_cf_parse(b, sizeof(b), &cf) == 0) {
			uint8_t *out;
			size_t len;
			cr_assert_eq(emp_cf_write(cf, &out, &len), 0);
			cr_assert_eq(len, sizeof(b), "seed %u", seed);
			cr_assert_arr_eq(out, b, len);
			free(out);
			emp_cf_free(cf);
		}
	}
}

Test(classfile, strerror)
{
	cr_assert_str_eq(emp_cf_strerror(0), "success");
	cr_assert_str_eq(emp_cf_strerror(-EMP_CF_E_TRUNCATED), "truncated class file");
	cr_assert_str_eq(emp_cf_strerror(EMP_CF_E_BAD_MAGIC), "bad magic number");
	cr_assert_str_eq(emp_cf_strerror(EMP_CF_NERRORS), "unknown");
	cr_assert_str_eq(emp_cf_strerror(-1000), "unknown");
	/* every error code has a text of its own: neither the fallback nor another code's */
	for (int i = 1; i < EMP_CF_NERRORS; i++) {
		cr_assert_str_neq(emp_cf_strerror(i), "unknown", "code %d", i);
		cr_assert_str_neq(emp_cf_strerror(i), "success", "code %d", i);
		cr_assert_str_eq(emp_cf_strerror(-i), emp_cf_strerror(i));
		for (int k = 1; k < i; k++)
			cr_assert_str_neq(emp_cf_strerror(i), emp_cf_strerror(k), "codes %d and %d", k, i);
	}
}

/* --- every class of java.base: parse -> write must be byte-identical --- */

static size_t rt_classes, rt_failures, rt_unreadable;

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct stat st;
	if (fstat(fileno(f), &st)) {
		fclose(f);
		return NULL;
	}
	uint8_t *b = malloc((size_t)st.st_size + 1);
	*len = b ? fread(b, 1, (size_t)st.st_size, f) : 0;
	fclose(f);
	return b;
}

static int round_trip_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t n = strlen(path);
	if (type != FTW_F || n < 6 || strcmp(path + n - 6, ".class") != 0)
		return 0;
	size_t len;
	rt_classes++;
	uint8_t *b = slurp(path, &len);
	if (!b) {
		cr_log_error("%s: cannot be read", path);
		rt_unreadable++;
		return 0;
	}
	struct emp_classfile *cf;
	int r = emp_cf_parse(b, len, &cf);
	if (r) {
		cr_log_error("%s: %s", path, emp_cf_strerror(r));
		rt_failures++;
	} else {
		uint8_t *out;
		size_t olen;
		if (emp_cf_write(cf, &out, &olen) || olen != len || memcmp(out, b, len) != 0) {
			cr_log_error("%s: round trip differs", path);
			rt_failures++;
		}
		free(out);
		emp_cf_free(cf);
	}
	free(b);
	return 0;
}

/* Extracts the classes of java.base.jmod (a zip behind a 4-byte header) below a new temp dir;
 * returns the dir (caller removes it) or NULL. */
char *emp_test_extract_java_base(void);
char *emp_test_extract_java_base(void)
{
	if (access(JAVA_BASE_JMOD, R_OK) || system("command -v unzip >/dev/null 2>&1"))
		return NULL;
	char tmpl[] = "/tmp/emp-jbase-XXXXXX";
	char *dir = mkdtemp(tmpl);
	if (!dir)
		return NULL;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cd %s && tail -c +5 %s > jb.zip && unzip -q jb.zip 'classes/*' && rm jb.zip",
		 dir, JAVA_BASE_JMOD);
	if (system(cmd) != 0)
		return NULL;
	return strdup(dir);
}

Test(classfile, java_base_round_trip, .timeout = 120)
{
	char *dir = emp_test_extract_java_base();
	if (!dir)
		cr_skip_test("%s or unzip not available", JAVA_BASE_JMOD);
	rt_classes = rt_failures = rt_unreadable = 0;
	nftw(dir, round_trip_one, 32, FTW_PHYS);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
	free(dir);
	cr_log_info("java.base: %zu classes round-tripped", rt_classes);
	cr_assert_gt(rt_classes, 5000);
	cr_assert_eq(rt_unreadable, 0);
	cr_assert_eq(rt_failures, 0);
}
