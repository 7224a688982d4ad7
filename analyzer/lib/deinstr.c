/* SPDX-License-Identifier: MIT */
/* deinstr.c - methods de-instrumented by budget=; see deinstr.h. */
#include "deinstr.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_reader.h"
#include "notes.h"
#include "symtab.h"

#define KEY_PREFIX "deinstrumented."

uint32_t emp_deinstr_apply(struct emp_dump_reader *r, const char *path, struct emp_symtab *st,
			   struct emp_symtab_map *map, uint64_t last_ticks, uint64_t traced_ns, struct emp_notes *notes)
{
	const char *ref = emp_dump_meta(r, "clock_ref_ticks");
	uint64_t start = ref ? strtoull(ref, NULL, 10) : 0;
	double uncovered = 0;
	uint32_t n = 0;
	for (size_t i = 0; i < emp_dump_meta_count(r); i++) {
		const char *key, *val;
		emp_dump_meta_at(r, i, &key, &val);
		if (strncmp(key, KEY_PREFIX, strlen(KEY_PREFIX)))
			continue;
		char *end;
		unsigned long long id = strtoull(key + strlen(KEY_PREFIX), &end, 10);
		unsigned long long calls, self_ns, at;
		char reason[32];
		if (*end || sscanf(val, "calls=%llu self_ns=%llu at_ticks=%llu reason=%31s", &calls, &self_ns, &at,
				   reason) != 4) {
			emp_notes_add(notes, "%s: META %s=%s: not understood, ignored", path, key, val);
			continue;
		}
		uint32_t gid = emp_symtab_map_get(map, (uint32_t)id);
		emp_symtab_mark_removed(st, gid);
		double before = at > start ? emp_dump_ticks_to_ns(r, (double)(at - start)) : 0;
		double after = last_ticks > at ? emp_dump_ticks_to_ns(r, (double)(last_ticks - at)) : 0;
		if (before > 0)
			uncovered += (double)self_ns / before * after;
		emp_notes_add(notes, "%s: %s: probes removed (%s) at +%.3f s after %llu calls, %.3f ms self time", path,
			      emp_symtab_name(st, gid, 0), reason, before / 1e9, calls, (double)self_ns / 1e6);
		n++;
	}
	if (n)
		emp_notes_add(notes,
			      "%s: %" PRIu32 " methods de-instrumented (marked%s); about %.2f %% of the traced time is no "
			      "longer covered by them but counted in their callers (estimated from each one's self time "
			      "before its removal)",
			      path, n, EMP_SYMTAB_REMOVED_MARK, traced_ns ? 100.0 * uncovered / (double)traced_ns : 0.0);
	return n;
}
