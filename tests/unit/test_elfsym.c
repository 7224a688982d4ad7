/* SPDX-License-Identifier: MIT */
/* test_elfsym.c - agent/sample/elfsym.c: function names from a file's .symtab, and C++ demangling without parameters. */
#include <criterion/criterion.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		/* a function template: no return type in front (long* thaw<...>) */
		{ "_Z4thawI6ConfigIL8oop_kind0E12G1BarrierSetEEPlP10JavaThreadi", "thaw<Config<(oop_kind)0, G1BarrierSet> >" },
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

/* A stripped object (Debian's libc.so.6) is named from its separate debug file, found by its build-id under the
 * debug directory; without that file it has no names.  The stripped copy of this binary keeps its build-id note,
 * and the binary itself stands in as the debug file (what matters is its .symtab at the same addresses). */
Test(elfsym, a_stripped_object_is_named_from_its_debug_file)
{
	char dir[] = "/tmp/emp-elfsym-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char self[512], stripped[256], cmd[2048];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1); /* in a shell's command it is the command's */
	cr_assert_gt(n, 0);
	self[n] = 0;
	snprintf(stripped, sizeof(stripped), "%s/stripped", dir);
	snprintf(cmd, sizeof(cmd), "strip -o %s '%s'", stripped, self);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_assert_null(emp_elfsym_load_in(stripped, NULL), "stripped: no .symtab, no debug file asked for");
	cr_assert_null(emp_elfsym_load_in(stripped, dir), "no debug file installed");
	/* the build-id, as readelf prints it */
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | awk '/Build ID/ { print $3 }' > %s/id", self, dir);
	cr_assert_eq(system(cmd), 0);
	char id[256] = "", path[512];
	snprintf(path, sizeof(path), "%s/id", dir);
	FILE *f = fopen(path, "r");
	cr_assert(f && fscanf(f, "%200s", id) == 1, "no build-id in this binary");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/.build-id/%.2s && cp '%s' %s/.build-id/%.2s/%s.debug", dir, id, self, dir,
		 id, id + 2);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	struct emp_elfsym *t = emp_elfsym_load_in(stripped, dir);
	cr_assert_not_null(t, "the debug file %s/.build-id/%.2s/%s.debug", dir, id, id + 2);
	Dl_info info;
	struct link_map *lm = NULL;
	uintptr_t fn = (uintptr_t)elfsym_probe_target;
	cr_assert(dladdr1((void *)fn, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm);
	uint64_t start = 0, vaddr = fn - lm->l_addr;
	cr_assert_str_eq(emp_elfsym_find(t, vaddr, &start), "elfsym_probe_target");
	cr_assert_eq(start, vaddr);
	emp_elfsym_free(t);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}
