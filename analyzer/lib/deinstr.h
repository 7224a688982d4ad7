/* SPDX-License-Identifier: MIT */
/* deinstr.h - methods whose probes the agent removed during a trace recording (budget=; META
 * deinstrumented.<id>, doc/dump-format.md): marked in the views, with how much traced time they no longer cover.
 *
 * Before its removal a method's calls are in the dump like any other; after it, its time is inside its callers'
 * self time.  The share no longer covered is estimated per method from its self time before the removal, at the
 * same rate until the last event of the dump. */
#ifndef EMP_DEINSTR_H
#define EMP_DEINSTR_H

#include <stdint.h>

struct emp_dump_reader;
struct emp_symtab;
struct emp_symtab_map;
struct emp_notes;

/* emp_deinstr_apply - after @r (@path) was read to its end (the META entries come with the events): mark every
 * method it names as de-instrumented in @st (emp_symtab_mark_removed), and add to @notes one line per method and
 * one with the estimate, against @traced_ns (the dump's traced time: the root calls' total) up to @last_ticks
 * (its last event).  Return: the number of methods named. */
uint32_t emp_deinstr_apply(struct emp_dump_reader *r, const char *path, struct emp_symtab *st,
			   struct emp_symtab_map *map, uint64_t last_ticks, uint64_t traced_ns, struct emp_notes *notes);

#endif /* EMP_DEINSTR_H */
