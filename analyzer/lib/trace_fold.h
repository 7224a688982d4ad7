/* SPDX-License-Identifier: MIT */
/* trace_fold.h - trace.h's calls folded chunk by chunk on every core, with the same result to the ns as feeding
 * every event to trace.h in file order: the validation counts, the figures per method (calls.h, for `calls`) and
 * the calling-context tree with calls, total_ns and self_ns (emp_trace_cct_ops, for tree, top, flame, collapsed).
 *
 * An EVENTS chunk holds one thread's events; all a chunk's calls need from the others is the thread's stack of
 * open calls when the chunk begins, which its worker does not know.  So the worker (emp_trace_fold_chunk, a
 * dump_reader.h fold function) folds the chunk against "virtual" levels instead: level 0 is the call open at the
 * top of that unknown stack, an exit with no call opened in the chunk closes it and moves to level 1, and so on.
 * Calls that open and close inside the chunk are complete there: their per-method figures (which depend on nothing
 * else) go to the worker's own table, and their calling contexts to a tree local to the chunk whose roots are the
 * levels.  Per level the worker keeps what its call needs: its direct callees' summed ticks and ns, their number,
 * the first and the smallest entry, the last exit, the sibling-order violations among them, the deepest depth
 * reached, and the exit that closed it; and the calls still open at the chunk's end.
 *
 * The reading thread then merges the summaries in file order (emp_trace_fold_merge): level k is the k-th call from
 * the top of the thread's real stack, whose close is now complete; levels past the bottom of the real stack hold
 * root calls, and their closing exits are exits without an entry.  The chunk's tree is grafted under those calls,
 * node by node in the order the chunk created them, so the symbols are interned and the nodes created in the
 * order trace.h would; a tree with a limit is pruned (cct.h emp_cct_prune) before a chunk is merged, where
 * trace.h's readers prune it too (emp_trace_cct_prune), so the trees stay alike.  The merge makes the checks
 * that need the caller; one that could fire on several callees of a level at once (an entry before its caller's,
 * which only a broken clock gives) is not told apart, and the merge answers -1: the caller then reads the dump again
 * with trace.h, as it does for anything the fold does not handle (a SAMPLE event, a malformed one, a method or
 * thread not defined by then, a clock rate changed by a later META chunk, a chunk folded ahead of a corrupt one).
 * eoi and ess need no check here: they are numbered from the stack itself, so a trace rebuilt from events cannot
 * break either rule (trace.h counts 0 for every dump). */
#ifndef EMP_TRACE_FOLD_H
#define EMP_TRACE_FOLD_H

#include <stdint.h>

#include "calls.h"
#include "trace.h"

struct emp_cct;
struct emp_dump_reader;
struct emp_flat;
struct emp_symtab_map;
struct emp_trace_fold;

/* emp_trace_fold_probe - the clock rate @path's first events are read at (emp_dump_clock_hz() after the META
 * chunks before them) when it is a trace dump (META mode=trace), else 0: read it with trace.h. */
double emp_trace_fold_probe(const char *path);

/* What a fold makes besides the validation counts: per-method figures (calls.h), or those and the flat figures
 * (flat.h: a method's calls and self time with the calls still open at the end, its outermost calls' time). */
enum { EMP_TRACE_FOLD_METHODS = 1, EMP_TRACE_FOLD_FLAT = 2 };

/* emp_trace_fold_new - a fold of the dump @r (not read yet) whose calls are converted at @hz (the probe's), into
 * what @want says (EMP_TRACE_FOLD_*; FLAT with no tree only), and into the calling-context tree @cct when not NULL
 * (@map: @r's symbols into @cct's or the flat profile's ids).  The workers (@jobs, 0 or 1: the reading thread
 * alone) are @r's: read it with emp_trace_fold_next() only.  Exits when out of memory.
 *
 * The flat figures need whether a method's call is inside another call of the same method.  A chunk's worker
 * sees the calls opened in the chunk: for those it encloses in none, it keeps their ns per method and level (the
 * bottom of the chunk's stack they were entered on); the merge knows the real stack, and adds them to the method's
 * total unless a call of it is open at that level or below.  Memory: the methods of a chunk, not its calls. */
struct emp_trace_fold *emp_trace_fold_new(struct emp_dump_reader *r, unsigned jobs, double hz, unsigned want,
					  struct emp_cct *cct, struct emp_symtab_map *map);
/* emp_trace_fold_free - stops @r's workers too. */
void emp_trace_fold_free(struct emp_trace_fold *f);

/* emp_trace_fold_next - read the next EVENTS chunk of the dump and merge it, unless @skip_thread(@arg, thread)
 * says 1 (its events left out, as a --threads filter does; may be NULL).  Return: 1 merged or skipped, 0 at the
 * end of what can be read (then see the reader's status), -1 when the result would differ from trace.h's (see
 * above): stop and read the dump with trace.h instead. */
int emp_trace_fold_next(struct emp_trace_fold *f, int (*skip_thread)(void *arg, uint32_t thread), void *arg);

/* emp_trace_fold_finish - the dump was read to its end: stop the workers; the validation counts as
 * emp_trace_finish() would leave them (calls still open, those of threads the reader says ended as never
 * closed), the sum of every call's self time in ns, the largest tick of any event (of the threads left out too)
 * and the number of trace events merged.  With a tree, the calls still open are added to it as ending at that
 * tick, as emp_trace_close_open() with emp_trace_cct_ops does.  Return: 0, or -1 when a chunk was folded but not
 * merged (the reading stopped before it) or, with a tree, when a META chunk after the last events changed the
 * clock rate the open calls would be closed at: read the dump with trace.h instead. */
int emp_trace_fold_finish(struct emp_trace_fold *f, struct emp_trace_stats *st, uint64_t *self_ns,
			  uint64_t *last_ticks, uint64_t *events);

/* emp_trace_fold_collect - add every method's figures (all folders') into @slot(@arg, dump-local method id). */
void emp_trace_fold_collect(struct emp_trace_fold *f, struct emp_calls_method *(*slot)(void *arg, uint32_t method),
			    void *arg);

/* emp_trace_fold_collect_flat - after emp_trace_fold_finish(), a fold of EMP_TRACE_FOLD_FLAT: add every method's
 * flat figures into @fl by the map's symbol ids, and the traced time (the root calls', the open ones as ending at
 * the last tick) to fl->all.  Return: 0, or -1 when two of the dump's methods have one symbol (one's call inside
 * the other's is nested by name, which the chunks could not see): nothing added, read it with trace.h. */
int emp_trace_fold_collect_flat(struct emp_trace_fold *f, struct emp_flat *fl);

#endif /* EMP_TRACE_FOLD_H */
