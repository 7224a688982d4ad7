/* SPDX-License-Identifier: MIT */
/* test_filter.c - include/exclude pattern semantics (the table in agent/trace/filter.h). */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "filter.h"

struct row {
	const char *klass, *method;
	bool selected;
};

static void check(const char *include, const char *exclude, const struct row *rows, size_t n)
{
	struct emp_filter *f = emp_filter_new();
	char err[256];
	cr_assert_eq(emp_filter_add(f, "include", include, err, sizeof(err)), 0, "%s", err);
	if (exclude)
		cr_assert_eq(emp_filter_add(f, "exclude", exclude, err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(emp_filter_selects(f, rows[i].klass, rows[i].method), rows[i].selected,
			     "include=%s exclude=%s: %s.%s should%s be selected", include, exclude ? exclude : "-",
			     rows[i].klass, rows[i].method, rows[i].selected ? "" : " not");
	emp_filter_free(f);
}

Test(filter, prefix_in_unnamed_package)
{
	static const struct row r[] = {
		{ "Foo", "run", true },        { "FooBar", "get", true },  { "Foo$Inner", "x", true },
		{ "bar/Foo", "run", false },   { "Fo", "run", false },     { "xFoo", "run", false },
	};
	check("Foo*", NULL, r, sizeof(r) / sizeof(r[0]));
}

Test(filter, package_and_subpackages)
{
	static const struct row r[] = {
		{ "com/sun/tools/javac/Main", "compile", true },
		{ "com/sun/tools/javac/code/Symbol", "<init>", true },
		{ "com.sun.tools.javac.Main", "compile", true }, /* binary form accepted too */
		{ "com/sun/tools/javacx/Main", "compile", false },
		{ "com/sun/tools/Main", "compile", false },
	};
	check("com.sun.tools.javac.*", NULL, r, sizeof(r) / sizeof(r[0]));
}

Test(filter, class_and_method)
{
	static const struct row bar[] = {
		{ "Bar", "run", true }, { "Bar", "<init>", true }, { "Bar$In", "run", false }, { "a/Bar", "run", false },
		{ "Barx", "run", false },
	};
	check("Bar", NULL, bar, sizeof(bar) / sizeof(bar[0]));
	static const struct row barrun[] = {
		{ "Bar", "run", true }, { "Bar", "runAll", false }, { "Bar$X", "run", false }, { "Bar", "ru", false },
	};
	check("Bar.run", NULL, barrun, sizeof(barrun) / sizeof(barrun[0]));
}

Test(filter, getters_everywhere)
{
	static const struct row r[] = {
		{ "a/B", "getX", true }, { "C", "get", true }, { "a/B", "set", false }, { "a/B", "forget", false },
		{ "a/getters/X", "run", true }, /* documented: the class string itself matches *.get* */
	};
	check("*.get*", NULL, r, sizeof(r) / sizeof(r[0]));
}

Test(filter, several_patterns_and_excludes)
{
	static const struct row r[] = {
		{ "corpus/Main", "main", true },
		{ "corpus/Huge", "big", false },
		{ "corpus/Lambdas", "lambda$run$0", false },
		{ "corpus/Lambdas", "run", true },
		{ "other/X", "y", true },
		{ "other/Y", "y", false },
	};
	check("corpus.*;other.X", "corpus.Huge;*.lambda$*", r, sizeof(r) / sizeof(r[0]));
}

Test(filter, constructors)
{
	static const struct row r[] = {
		{ "a/B", "<init>", true }, { "a/B", "<clinit>", false }, { "a/B", "init", false },
	};
	check("*.<init>", NULL, r, sizeof(r) / sizeof(r[0]));
}

Test(filter, emp_internal_classes_always_excluded)
{
	static const struct row r[] = {
		{ "emp/Probe", "enter", false },    { "emp/Probe$Ring", "x", false }, { "emp/agent/Helper", "x", false },
		{ "emp/sut/CallTree", "run", true }, { "emp/Prober", "x", true },       { "empx/Probe", "x", true },
	};
	check("*", NULL, r, sizeof(r) / sizeof(r[0]));
}

Test(filter, emp_class_in_both_forms)
{
	cr_assert(emp_filter_is_emp_class("emp/Probe"));
	cr_assert(emp_filter_is_emp_class("emp.Probe"));
	cr_assert(emp_filter_is_emp_class("emp/Probe$Ring"));
	cr_assert(emp_filter_is_emp_class("emp.agent.Attach"));
	cr_assert(emp_filter_is_emp_class("emp/Guard"));
	cr_assert_not(emp_filter_is_emp_class("emp/GuardX"));
	cr_assert_not(emp_filter_is_emp_class("emp/ProbeX"));
	cr_assert_not(emp_filter_is_emp_class("emp/agentx/A"));
	cr_assert_not(emp_filter_is_emp_class("emp/sut/CallTree"));
	cr_assert_not(emp_filter_is_emp_class("emp"));
	cr_assert_not(emp_filter_is_emp_class(""));
}

Test(filter, nothing_without_include)
{
	struct emp_filter *f = emp_filter_new();
	cr_assert_eq(emp_filter_include_count(f), 0);
	cr_assert_not(emp_filter_selects(f, "Foo", "run"));
	cr_assert_eq(emp_filter_add(f, "exclude", "Bar", NULL, 0), 0);
	cr_assert_not(emp_filter_selects(f, "Foo", "run"));
	cr_assert_not(emp_filter_may_select_class(f, "Foo"));
	emp_filter_free(f);
}

Test(filter, may_select_class)
{
	struct emp_filter *f = emp_filter_new();
	cr_assert_eq(emp_filter_add(f, "include", "com.acme.*;Bar.run;*.get*", NULL, 0), 0);
	cr_assert_eq(emp_filter_add(f, "exclude", "com.acme.internal.*", NULL, 0), 0);
	cr_assert(emp_filter_may_select_class(f, "com/acme/Svc"));
	cr_assert(emp_filter_may_select_class(f, "Bar"));
	cr_assert(emp_filter_may_select_class(f, "x/Y"), "*.get* may match any class");
	cr_assert_not(emp_filter_may_select_class(f, "com/acme/internal/Z"));
	cr_assert_not(emp_filter_may_select_class(f, "emp/Probe"));
	emp_filter_free(f);
	f = emp_filter_new();
	cr_assert_eq(emp_filter_add(f, "include", "Bar.run", NULL, 0), 0);
	cr_assert(emp_filter_may_select_class(f, "Bar"));
	cr_assert_not(emp_filter_may_select_class(f, "Baz"));
	cr_assert_not(emp_filter_may_select_class(f, "Bar$X"));
	emp_filter_free(f);
}

Test(filter, invalid_patterns)
{
	static const char *bad[] = { "", "a b", "com..x", ".Foo", "Foo.", "a/b", "Foo;", ";Foo", "a;;b",
				     "Foo(I)", "x.<init", "<init>", "a.b<c>", "tab\there" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct emp_filter *f = emp_filter_new();
		char err[256] = "";
		cr_expect_eq(emp_filter_add(f, "include", bad[i], err, sizeof(err)), -EINVAL, "'%s' accepted", bad[i]);
		cr_expect_neq(strstr(err, "invalid include pattern"), NULL, "message for '%s': %s", bad[i], err);
		cr_expect_eq(emp_filter_include_count(f), 0, "'%s': nothing is added on error", bad[i]);
		emp_filter_free(f);
	}
	struct emp_filter *f = emp_filter_new();
	char err[256];
	cr_assert_eq(emp_filter_add(f, "include", "good.*;bad pattern", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "invalid include pattern 'bad pattern': whitespace");
	cr_assert_eq(emp_filter_include_count(f), 0);
	cr_assert_eq(emp_filter_add(f, "includes", "x", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "unknown filter kind 'includes' (want include or exclude)");
	cr_assert_eq(emp_filter_add(f, "include", "a.B.<clinit>;ünicode.*;$Proxy*", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(emp_filter_include_count(f), 3);
	emp_filter_free(f);
	emp_filter_free(NULL);
}

Test(filter, star_backtracking)
{
	static const struct row r[] = {
		{ "aXbXc", "m", true }, { "abc", "m", true }, { "aXbX", "m", false }, { "ab", "c", true },
	};
	check("a*b*c", NULL, r, sizeof(r) / sizeof(r[0]));
}
