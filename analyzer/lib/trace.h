/* SPDX-License-Identifier: MIT */
/* trace.h - calls rebuilt from a dump's ENTER/EXIT/EXIT_THROW events, with Kieker's eoi/ess, and their validation.
 *
 * Per thread (design.md §4, Kieker's OperationExecutionRecord semantics): an entry with no open call starts a new
 * trace (trace ids count from 0 over the whole dump, in the order the roots start); within a trace eoi counts the
 * entries from 0 in pre-order, ess is the depth (root 0).  A call is complete at its exit, so calls come out in
 * post-order (deepest first), as Kieker writes its records.  Durations are in ticks; convert with
 * emp_dump_ticks_to_ns().
 *
 * Validation: every trace must follow Kieker's trace-analysis rules — its calls, ordered by eoi, are eoi 0, 1, ...,
 * n-1 (contiguous, each once: every call entered has exited when its root exits), the first with ess 0 and each
 * next one with 1 <= ess <= previous ess + 1 — and every call must lie inside its parent in time (tin >= parent
 * tin, tout <= parent tout, tout >= tin).  An exit with no open call in its thread, and calls still open at the end
 * (a truncated dump, or a JVM that ended inside them: System.exit), are counted too; calls open in a thread that
 * ended are a violation (never closed).  Memory: the open calls of each thread; nothing grows with the length of
 * a trace.
 */
#ifndef EMP_TRACE_H
#define EMP_TRACE_H

#include <stdint.h>

#include "dump.h"

struct emp_cct;
struct emp_dump_reader;
struct emp_symtab_map;

/* An open or complete call. */
struct emp_trace_call {
	uint32_t thread;      /* dump thread id */
	uint32_t method;      /* dump-local method symbol id */
	uint64_t trace_id;
	uint32_t eoi, ess;
	uint64_t tin, tout;   /* ticks; tout is set once the call is complete */
	uint64_t child_ticks; /* sum of the durations of its complete direct callees */
	int threw;            /* ended by EXIT_THROW */
	void *user;           /* free for the consumer; set in on_enter, seen again in on_call */
};

struct emp_trace_ops {
	/* A call starts; @parent is NULL for a root.  May be NULL. */
	void (*on_enter)(void *arg, struct emp_trace_call *c, const struct emp_trace_call *parent);
	/* A call is complete (post-order); @parent is NULL for a root.  May be NULL. */
	void (*on_call)(void *arg, const struct emp_trace_call *c, const struct emp_trace_call *parent);
};

struct emp_trace_stats {
	uint64_t calls;             /* complete calls */
	uint64_t traces;            /* complete traces (roots that exited) */
	uint64_t threw;             /* complete calls ended by EXIT_THROW */
	uint64_t unclosed;          /* calls still open at emp_trace_finish() */
	uint64_t never_closed;      /* of those, calls open in a thread that ended (EMP_THREAD_ENDED): the thread
				       returned without their exits, a violation; the others were cut by the end of
				       the recording (System.exit, a daemon thread, a truncated dump) */
	uint64_t exit_without_entry;
	uint64_t eoi_violations;    /* traces whose eoi are not exactly 0..n-1 */
	uint64_t ess_violations;    /* traces breaking the ess rule */
	uint64_t time_violations;   /* calls not inside their parent in time, or ending before they start */
	uint32_t max_depth;         /* deepest ess seen + 1 */
};

struct emp_trace;

/* emp_trace_new - a reconstructor calling @ops with @arg.  Exits when out of memory (analyzer only). */
struct emp_trace *emp_trace_new(const struct emp_trace_ops *ops, void *arg);
void emp_trace_free(struct emp_trace *t);
/* emp_trace_event - feed one event of a dump, in dump order (SAMPLE events are ignored). */
void emp_trace_event(struct emp_trace *t, const struct emp_event *ev);
/* emp_trace_finish - the dump @r ended: count the calls still open (they are not reported as calls), those of
 * threads @r says ended as never closed (@r may be NULL: none ended), and reset, so the next dump can be fed. */
void emp_trace_finish(struct emp_trace *t, const struct emp_dump_reader *r);
/* emp_trace_close_open - before emp_trace_finish(): hand every call still open to @on_call(@arg, call, parent) as
 * if it ended at @ticks (the recording's last tick), innermost first, each adding its duration to its caller's
 * callees' ticks — what a view of where the time went wants of a call System.exit or the end of the recording cut
 * (javac's main never returns).  The counts do not change: emp_trace_finish() still counts them as open. */
void emp_trace_close_open(struct emp_trace *t, uint64_t ticks,
			  void (*on_call)(void *arg, const struct emp_trace_call *c, const struct emp_trace_call *parent),
			  void *arg);
const struct emp_trace_stats *emp_trace_stats(const struct emp_trace *t);
/* Number of violations of every kind (eoi, ess, time, exits without entry, calls never closed). */
uint64_t emp_trace_violations(const struct emp_trace_stats *s);

/* emp_trace_ns - @ticks of @r's clock as ns, rounded to the nearest.  Every traced time the views show (calls,
 * tree, top, collapsed, flame) is a sum of these per-call values, so they agree to the ns. */
uint64_t emp_trace_ns(const struct emp_dump_reader *r, uint64_t ticks);

/* A cache of emp_trace_ns() for one reader: the same bits, without a call and a division for the short durations
 * most calls have.  emp_trace_clock_sync() before the conversions of a call (it follows the reader's rate, which a
 * META chunk may change); then emp_trace_clock_ns(). */
#define EMP_TRACE_CLOCK_SMALL 4096
struct emp_trace_clock {
	double hz;                             /* rate the table was made for; 0 = none yet */
	uint64_t small[EMP_TRACE_CLOCK_SMALL]; /* emp_trace_ns() of 0 .. EMP_TRACE_CLOCK_SMALL - 1 ticks */
};
void emp_trace_clock_sync(struct emp_trace_clock *c, const struct emp_dump_reader *r);
/* emp_trace_clock_set - the table for a clock of @hz ticks per second (> 0). */
void emp_trace_clock_set(struct emp_trace_clock *c, double hz);
/* emp_trace_round_ns - @ns rounded to an integer, UINT64_MAX from 2^64 on: ticks near 2^64 on a clock slower than
 * 1 GHz (a damaged or forged dump) give more ns than a uint64_t holds, and converting those is undefined. */
static inline uint64_t emp_trace_round_ns(double ns)
{
	return ns + 0.5 < 18446744073709551616.0 ? (uint64_t)(ns + 0.5) : UINT64_MAX;
}
static inline uint64_t emp_trace_clock_ns(const struct emp_trace_clock *c, uint64_t ticks)
{
	if (ticks < EMP_TRACE_CLOCK_SMALL)
		return c->small[ticks];
	/* emp_dump_ticks_to_ns() then emp_trace_ns()'s rounding, the same operations in the same order */
	return emp_trace_round_ns((double)ticks / c->hz * 1e9);
}

/* emp_trace_cct_ops - ops that fold calls into a calling-context tree: arg is a struct emp_trace_cct.  A call adds
 * 1 to its node's calls, its duration to total_ns and its duration minus its callees' to self_ns (emp_trace_ns
 * each); a root call (no caller) adds its duration to the tree root's total_ns too, so that is the traced time. */
struct emp_trace_cct {
	struct emp_cct *cct;
	struct emp_symtab_map *map; /* local ids of the dump being fed -> global symbol ids */
	struct emp_dump_reader *r;  /* that dump: durations via emp_dump_ticks_to_ns() (the META rate while streaming) */
	struct emp_trace_clock clock; /* emp_trace_ns() of r, cached */
	uint64_t chunk;             /* emp_dump_chunks() of EVENTS at the last emp_trace_cct_prune() */
};
extern const struct emp_trace_ops emp_trace_cct_ops;
/* emp_trace_cct_prune - call before each event of tc->r: where a chunk of events begins (emp_dump_chunks() of
 * EVENTS changed), prune the tree when it is due (cct.h emp_cct_prune_due), keeping the nodes of @t's open calls
 * (@t fed with emp_trace_cct_ops or ops that keep its node in c->user; NULL: none yet), which follow their nodes.
 * trace_fold.h prunes at the same moments, so both readers make the same tree. */
void emp_trace_cct_prune(struct emp_trace *t, struct emp_trace_cct *tc);
/* emp_trace_prune_tree - emp_cct_prune(@c) keeping the nodes of @t's open calls that have one in c->user (NULL: the
 * call has none; @t NULL: no call open) and those @pinned marks (emp_cct_size(@c) bytes, the caller's, which this
 * adds to; NULL: none); the open calls follow their nodes.  Return: cct.h's remap (the caller frees it). */
uint32_t *emp_trace_prune_tree(struct emp_trace *t, struct emp_cct *c, uint8_t *pinned);

#endif /* EMP_TRACE_H */
