/* SPDX-License-Identifier: MIT */
/* symtab.h - method symbols interned across dumps.
 *
 * Symbol ids in a dump are local to that dump; reports over several dumps (and `compare`) merge frames by name.
 * A symbol table gives every distinct (kind, class, name, descriptor) one global id, dense from 0, and a map per
 * reader turns the reader's local ids into global ones.  The map grows while the dump streams: a local id is
 * interned the first time it is looked up, from the reader's current symbol table (a dump defines a symbol before
 * any event that uses it).
 *
 * Display names: Java `pkg.Class.method` (or `pkg.Class.method(I)V` with the descriptor), native
 * `library!symbol`, pseudo-frames their name (`[unknown_Java]`).  Overloads, two Java methods of one class and
 * name interned in one table, always print with their descriptors: every view names each method, and each
 * calling context's path, once (a tree's `path` column is a key).  Not thread-safe (the analyzer is
 * single-threaded).
 */
#ifndef EMP_SYMTAB_H
#define EMP_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "dump.h"

struct emp_dump_reader;

struct emp_sym {
	enum emp_frame_kind kind;
	uint32_t flags;  /* EMP_METHOD_* of every definition seen, or'ed */
	char *klass;     /* binary name with dots (Java), library basename (native), "" (pseudo) */
	char *name;
	char *descriptor;
	char *display;   /* without descriptor, see above */
	char *display_desc; /* with descriptor (equal to display for native and pseudo frames) */
};

struct emp_symtab;

/* emp_symtab_new - an empty table.  Exits when out of memory (analyzer only). */
struct emp_symtab *emp_symtab_new(void);
void emp_symtab_free(struct emp_symtab *st);

/* emp_symtab_intern - the global id of (@kind, @klass, @name, @descriptor), created on first sight.  NULL strings
 * count as "".  @flags are or'ed into the symbol's flags. */
uint32_t emp_symtab_intern(struct emp_symtab *st, enum emp_frame_kind kind, uint32_t flags, const char *klass,
			   const char *name, const char *descriptor);
/* emp_symtab_find - the global id of a symbol, or -1 when it was never interned. */
int64_t emp_symtab_find(const struct emp_symtab *st, enum emp_frame_kind kind, const char *klass, const char *name,
			const char *descriptor);
/* Number of symbols (largest id + 1). */
uint32_t emp_symtab_count(const struct emp_symtab *st);
/* The symbol @gid (must be < emp_symtab_count()).  Valid until the table is freed. */
const struct emp_sym *emp_symtab_get(const struct emp_symtab *st, uint32_t gid);
/* emp_symtab_name - display name of @gid, with the descriptor when @with_desc or when @gid is an overload
 * (EMP_SYM_OVERLOADED: a later symbol can make it one, so a name is final once the table is). */
const char *emp_symtab_name(const struct emp_symtab *st, uint32_t gid, int with_desc);

/* Analyzer-only flag: budget= removed the method's probes during a recording (deinstr.h); its display names end
 * in EMP_SYMTAB_REMOVED_MARK. */
#define EMP_SYM_REMOVED 0x80000000u
/* Analyzer-only flag: another Java symbol of the table has the same class and name (see above). */
#define EMP_SYM_OVERLOADED 0x40000000u
#define EMP_SYMTAB_REMOVED_MARK " [de-instrumented]"
/* emp_symtab_mark_removed - set EMP_SYM_REMOVED on @gid and append the mark to its display names (once). */
void emp_symtab_mark_removed(struct emp_symtab *st, uint32_t gid);

/* Local → global id map of one reader. */
struct emp_symtab_map;
struct emp_symtab_map *emp_symtab_map_new(struct emp_symtab *st, struct emp_dump_reader *r);
void emp_symtab_map_free(struct emp_symtab_map *m);
/* emp_symtab_map_get - global id of the reader's symbol @local.  A local id the dump never defined (a corrupt
 * dump) maps to a pseudo-frame "[undefined_symbol]", so reports still add up.  Return: the global id. */
uint32_t emp_symtab_map_get(struct emp_symtab_map *m, uint32_t local);

#endif /* EMP_SYMTAB_H */
