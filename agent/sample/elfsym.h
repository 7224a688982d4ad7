/* SPDX-License-Identifier: MIT */
/* elfsym.h - function symbols of an ELF file's full symbol table (.symtab), for naming native frames.
 *
 * dladdr() knows only the dynamic symbols, and answers with the nearest one below an address even when the
 * address lies in a different, non-exported function: in libjvm.so, which exports about 250 of its 60,000-odd
 * functions, it named most VM frames after an unrelated JVM_* entry point.  The .symtab section is not mapped
 * into memory, but JDK builds keep it in the file (Debian's and Temurin's libjvm.so both do), so the writer
 * thread reads it from the file once per object (or, for a stripped object such as Debian's libc, from its separate
 * debug file when one is installed).  C++ names are demangled with libiberty's demangler
 * (linked in statically: Temurin's libjvm does not bring libstdc++, so the process may have no __cxa_demangle).
 *
 * Not signal-safe (file I/O, allocation): writer thread and tests only.  Not thread-safe. */
#ifndef EMP_ELFSYM_H
#define EMP_ELFSYM_H

#include <stdint.h>

struct emp_elfsym;

/* emp_elfsym_load - the sized function symbols of @path's .symtab (dynamic symbols are dladdr's business).
 * Memory: the file's string table and 24 bytes per function address (libjvm.so: 2.6 MiB + 48,000 x 24 bytes).
 * Return: the table, or NULL when the file cannot be read, is not a 64-bit little-endian ELF file or has no
 * .symtab with a function in it. */
struct emp_elfsym *emp_elfsym_load(const char *path);
/* emp_elfsym_load_in - emp_elfsym_load(), and for a file without .symtab (stripped) the .symtab of its separate
 * debug file @debug_dir/.build-id/xx/yyyy.debug named by its GNU build-id (emp_elfsym_load: /usr/lib/debug, where
 * Debian's -dbg packages put them: libc6-dbg names libc's internal functions, start_thread, clone3); the debug
 * file's addresses are the object's.  @debug_dir NULL: no debug file. */
struct emp_elfsym *emp_elfsym_load_in(const char *path, const char *debug_dir);
void emp_elfsym_free(struct emp_elfsym *t);

/* emp_elfsym_find - the function containing the link-time address @vaddr (a runtime address minus the object's
 * load bias, link_map.l_addr).  Return: its name as stored (mangled), valid until emp_elfsym_free, or NULL;
 * *@start is set to the function's link-time address. */
const char *emp_elfsym_find(const struct emp_elfsym *t, uint64_t vaddr, uint64_t *start);

/* emp_elfsym_demangle - @name demangled when it is a C++ name (_Z...), without its parameter list, qualifiers
 * and clone suffix (as profilers show C++ frames: "G1ParScanThreadState::trim_queue", so that overloads and
 * compiler clones add up); a C name without its clone suffix ("deflate_slow.part.0" -> "deflate_slow").
 * Return: a malloc'ed string, or NULL (use @name as it is). */
char *emp_elfsym_demangle(const char *name);

#endif /* EMP_ELFSYM_H */
