/* SPDX-License-Identifier: MIT */
/* test_elfsym.c - agent/sample/elfsym.c: function names from a file's .symtab, and C++ demangling without parameters. */
#include <criterion/criterion.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"

/* A function of this (unstripped) test binary that is in .symtab but not exported. */
static __attribute__((noinline, used)) int elfsym_probe_target(int x)
{
	return x * 7 + 1;
}

Test(elfsym, names_functions_of_this_binary)
{
	struct emp_elfsym *t = emp_elfsym_load("/proc/self/exe");
	cr_assert_not_null(t, "the test binary has a .symtab");
	Dl_info info;
	struct link_map *lm = NULL;
	uintptr_t fn = (uintptr_t)elfsym_probe_target;
	cr_assert(dladdr1((void *)fn, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm);
	uint64_t vaddr = fn - lm->l_addr, start = 0;
	cr_assert_str_eq(emp_elfsym_find(t, vaddr, &start), "elfsym_probe_target");
	cr_assert_eq(start, vaddr);
	cr_assert_str_eq(emp_elfsym_find(t, vaddr + 3, &start), "elfsym_probe_target");
	cr_assert_eq(start, vaddr);
	start = 42;
	cr_assert_null(emp_elfsym_find(t, 1, &start), "below every function");
	cr_assert_eq(start, 42, "untouched when nothing is found");
	emp_elfsym_free(t);
}

Test(elfsym, refuses_what_is_not_elf)
{
	cr_assert_null(emp_elfsym_load("/nonexistent/libx.so"));
	cr_assert_null(emp_elfsym_load("/proc/self/status"));
	cr_assert_null(emp_elfsym_load("/dev/null"));
}

Test(elfsym, demangles_without_parameters)
{
	/* no libstdc++ needed (Temurin's libjvm does not load it): the demangler is libiberty's, linked in */
	const char *cases[][2] = {
		{ "_ZN13InstanceKlass17find_method_indexEPK5ArrayIP6MethodEPK6SymbolS8_N5Klass18OverpassLookupModeENS9_"
		  "16StaticLookupModeENS9_17PrivateLookupModeE.constprop.0",
		  "InstanceKlass::find_method_index" },
		{ "_ZN3FooclEv", "Foo::operator()" },
		{ "_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo" },
		{ "_ZN1KIFviEE1fEv", "K<void (int)>::f" },
		{ "_ZNK3Foo3getEv", "Foo::get" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = emp_elfsym_demangle(cases[i][0]);
		cr_assert_not_null(d, "%s", cases[i][0]);
		cr_assert_str_eq(d, cases[i][1]);
		free(d);
	}
	cr_assert_null(emp_elfsym_demangle("deflate"), "a C name is not demangled");
	const char *clones[][2] = {
		{ "deflate_slow.part.0", "deflate_slow" },   { "foo.constprop.0.isra.0", "foo" },
		{ "bar.cold", "bar" },                      { "baz.lto_priv.12", "baz" },
		{ "qux.localalias", "qux" },                { "_ZN3Foo3getEv.cold", "Foo::get" },
	};
	for (size_t i = 0; i < sizeof(clones) / sizeof(clones[0]); i++) {
		char *d = emp_elfsym_demangle(clones[i][0]);
		cr_assert_not_null(d, "%s", clones[i][0]);
		cr_assert_str_eq(d, clones[i][1]);
		free(d);
	}
	cr_assert_null(emp_elfsym_demangle("v8.0"), "a version number is not a clone suffix");
	cr_assert_null(emp_elfsym_demangle(".cold"), "nothing left: keep the name");
	cr_assert_null(emp_elfsym_demangle("_Znot a name"), "an invalid name is left alone");
}
