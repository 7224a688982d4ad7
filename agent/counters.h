/* SPDX-License-Identifier: MIT */
/* counters.h - process-wide event and loss counters of the agent, written into every COUNTERS chunk.
 *
 * Every loss is counted by its reason (design.md §3: nothing is lost silently).  Increments are relaxed atomic adds:
 * the counters are statistics, read by the writer thread with no ordering against the data they describe, and an
 * atomic add is async-signal-safe (lock-free on x86-64), so signal handlers may count. */
#ifndef EMP_COUNTERS_H
#define EMP_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

/* X(enum name, dump name) — the dump name is what the analyzer prints; keep it stable. */
#define EMP_COUNTER_LIST(X)                                                                                    \
	X(RECORDS_WRITTEN, "records_written")             /* ring records the writer turned into events */    \
	X(RING_FULL_DROPPED, "lost_ring_full")            /* record dropped: ring full (onfull=drop, samples) */ \
	X(RING_FULL_WAITS, "ring_full_waits")             /* a producer waited for room (onfull=block) */      \
	X(AFTER_SHUTDOWN, "lost_after_shutdown")          /* record produced after the writer stopped */       \
	X(NO_THREAD_STATE, "lost_no_thread_state")        /* sample on a thread the agent does not know */     \
	X(REENTRANT, "lost_reentrant")                    /* probe or handler entered while already inside */  \
	X(UNBALANCED_EXIT, "trace_unbalanced_exit")       /* exit probe without a matching open entry */       \
	X(THREADS, "threads")                             /* thread states created */                          \
	X(WRITE_ERRORS, "write_errors")                   /* the sink failed; later chunks are lost */         \
	X(SAMPLES, "samples")                             /* samples taken (any outcome) */                    \
	X(CLASSES_REWRITTEN, "classes_rewritten")         /* trace mode */                                     \
	X(CLASSES_FAILED, "classes_failed")               /* trace mode: left unchanged, see rewrite_* */      \
	X(METHODS_INSTRUMENTED, "methods_instrumented")   /* trace mode */                                     \
	X(METHODS_SKIPPED, "methods_skipped")             /* trace mode: left unchanged, see rewrite_* */

enum emp_counter {
#define EMP_COUNTER_ENUM(id, name) EMP_C_##id,
	EMP_COUNTER_LIST(EMP_COUNTER_ENUM)
#undef EMP_COUNTER_ENUM
	EMP_COUNTER_COUNT
};

extern _Atomic uint64_t emp_counters[EMP_COUNTER_COUNT];
extern const char *const emp_counter_names[EMP_COUNTER_COUNT];

/* emp_count - add @n to @c.  Async-signal-safe. */
static inline void emp_count(enum emp_counter c, uint64_t n)
{
	atomic_fetch_add_explicit(&emp_counters[c], n, memory_order_relaxed);
}

static inline uint64_t emp_counter_get(enum emp_counter c)
{
	return atomic_load_explicit(&emp_counters[c], memory_order_relaxed);
}

#endif /* EMP_COUNTERS_H */
