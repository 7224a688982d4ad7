/* SPDX-License-Identifier: MIT */
/* calls_fold.h - the figures of `emp-analyze calls` (calls.h per method, trace.h's validation counts) folded chunk
 * by chunk on every core, with the same result to the ns as feeding every event to trace.h in file order.
 *
 * An EVENTS chunk holds one thread's events; all a chunk's calls need from the others is the thread's stack of
 * open calls when the chunk begins, which its worker does not know.  So the worker (emp_calls_fold_chunk, a
 * dump_reader.h fold function) folds the chunk against "virtual" levels instead: level 0 is the call open at the
 * top of that unknown stack, an exit with no call opened in the chunk closes it and moves to level 1, and so on.
 * Calls that open and close inside the chunk are complete there: their figures (which depend on nothing else) go
 * to the worker's own per-method table.  Per level the worker keeps what its parent needs: its direct callees'
 * summed ticks, their number, the first and the smallest entry, the last exit, the sibling-order violations
 * among them, the deepest depth reached, and the exit that closed it; and the calls still open at the chunk's end.
 *
 * The reading thread then merges the summaries in file order (emp_calls_fold_merge): level k is the k-th call from
 * the top of the thread's real stack, whose close is now complete (its figures go to the reading thread's table);
 * levels past the bottom of the real stack hold root calls, and their closing exits are exits without an entry.
 * The checks that need the parent are made there; one that could fire on several callees of a level at once (an
 * entry before its parent's, which only a broken clock gives) is not told apart, and the merge answers -1: the
 * caller then reads the dump again with trace.h, as it does for anything the fold does not handle (a SAMPLE
 * event, a malformed one, a method or thread not defined by then, a clock rate changed by a later META chunk).
 * eoi and ess need no check here: they are numbered from the stack itself, so a trace rebuilt from events cannot
 * break either rule (trace.h checks them as Kieker's rules, and counts 0 for every dump). */
#ifndef EMP_CALLS_FOLD_H
#define EMP_CALLS_FOLD_H

#include <stdint.h>

#include "calls.h"
#include "trace.h"

struct emp_dump_reader;
struct emp_calls_fold;

/* emp_calls_fold_new - a fold of one dump of format minor version @minor whose calls are converted at @hz (the
 * clock rate the dump's first events are read at: emp_dump_clock_hz() after the META chunks before them).  Then
 * emp_calls_fold_set_folders() with emp_dump_reader_set_fold()'s return, before the first chunk is read (the
 * last folder is the reading thread's; the merges use it too).  Both exit when out of memory. */
struct emp_calls_fold *emp_calls_fold_new(unsigned minor, double hz);
void emp_calls_fold_set_folders(struct emp_calls_fold *f, unsigned folders);
void emp_calls_fold_free(struct emp_calls_fold *f);

/* The fold function and its summaries' free function for emp_dump_reader_set_fold(), arg = the fold. */
void *emp_calls_fold_chunk(void *arg, unsigned folder, const uint8_t *payload, size_t len);
void emp_calls_fold_chunk_free(void *summary);

/* emp_calls_fold_merge - merge the summary @s of the next EVENTS chunk of @thread in file order, and free it.
 * @r: the reader (the symbols and clock rate read so far).  Return: 0, or -1 when the result would differ from
 * trace.h's (see above): stop and read the dump with trace.h instead. */
int emp_calls_fold_merge(struct emp_calls_fold *f, const struct emp_dump_reader *r, uint32_t thread, void *s);

/* emp_calls_fold_finish - the dump ended, and its workers stopped (emp_dump_reader_stop): the validation counts as
 * emp_trace_finish() would leave them (calls still open, those of threads @r says ended as never closed), the sum
 * of every call's self time in ns, and the largest tick of any event.  Return: 0, or -1 when a chunk was folded
 * but not merged (the reading stopped before it): read the dump with trace.h instead. */
int emp_calls_fold_finish(struct emp_calls_fold *f, const struct emp_dump_reader *r, struct emp_trace_stats *st,
			  uint64_t *self_ns, uint64_t *last_ticks);

/* emp_calls_fold_collect - add every method's figures (all folders') into @slot(@arg, dump-local method id). */
void emp_calls_fold_collect(struct emp_calls_fold *f, struct emp_calls_method *(*slot)(void *arg, uint32_t method),
			    void *arg);

#endif /* EMP_CALLS_FOLD_H */
