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

#include "outcomes.h"

/* Rewriter outcomes by reason, generated from outcomes.h's EMP_REWRITE_REASONS (same order as the rewriter's
 * codes): methods left unchanged (rewrite_skip_*) and classes left unchanged (rewrite_fail_*). */
#define EMP_COUNTER_RW_SKIP(X, id, counter, text) X(RW_SKIP_##id, "rewrite_skip_" counter)
#define EMP_COUNTER_RW_FAIL(X, id, counter, text) X(RW_FAIL_##id, "rewrite_fail_" counter)
#define EMP_COUNTER_REWRITE_LIST(X)                                                                            \
	EMP_REWRITE_REASONS(EMP_COUNTER_RW_SKIP, X)                                                            \
	EMP_REWRITE_REASONS(EMP_COUNTER_RW_FAIL, X)

/* Sample mode (sampler.c).  The agct_* counters of AGCT's outcome codes 0, -1, ... are generated from outcomes.h's
 * EMP_AGCT_OUTCOMES, in code order (sampler.c counts outcome n in EMP_C_AGCT_NO_JAVA_FRAME - n). */
#define EMP_COUNTER_AGCT(X, code, id, name) X(AGCT_##id, "agct_" name)
#define EMP_COUNTER_RECOVER(X, id, name) X(RECOVER_##id, "sample_recover_" name)
#define EMP_COUNTER_SAMPLER_LIST(X)                                                                            \
	X(SAMPLE_SIGNALS, "sample_signals")               /* timer signals taken on armed threads (Java, JVM) */ \
	X(SAMPLE_THREAD_TIME_NS, "sample_thread_time_ns") /* CPU (clock=cpu) or wall time of armed threads */   \
	X(SAMPLE_THREADS_ARMED, "sample_threads_armed")   /* Java threads the engine was started for */        \
	X(SAMPLE_ARM_FAILED, "sample_arm_failed")         /* the engine could not be started for a thread */   \
	X(SAMPLE_VM_THREADS_ARMED, "sample_vm_threads_armed") /* threads=all: JVM threads the scanner armed */   \
	X(SAMPLE_VM_SAMPLES, "sample_vm_samples")         /* ...samples taken on them (part of samples) */     \
	X(SAMPLE_VM_THREAD_TIME_NS, "sample_vm_thread_time_ns") /* ...their CPU time (part of sample_thread_time_ns) */ \
	X(SAMPLE_VM_TAKEOVERS, "sample_vm_takeovers")     /* ...later announced by ThreadStart: now Java */    \
	X(SAMPLE_VM_TRUNCATED, "sample_vm_truncated")     /* ...native walk cut at EMP_VMTHREAD_MAX_NATIVE */  \
	X(SAMPLE_RECOVERED, "sample_recovered_unknown_Java") /* unknown_Java re-walked from the caller */       \
	X(SAMPLE_RECOVERED_NO_TOP, "sample_recovered_top_unnamed") /* ...its own method not found by PC */     \
	EMP_RECOVER_OUTCOMES(EMP_COUNTER_RECOVER, X)      /* the recovery's outcomes (outcomes.h) */           \
	X(SAMPLE_UNRESOLVED, "sample_unresolved_method")  /* a jmethodID JVMTI could not name */               \
	X(SAMPLE_TRUNCATED, "sample_truncated")           /* walk stopped short of the thread's entry */       \
	X(SAMPLE_CONT_TRUNCATED, "sample_continuation_truncated") /* ...of them: a continuation's frames lost */ \
	X(SAMPLE_CONTINUATION, "sample_continuation")     /* walks through Continuation.enterSpecial (virtual threads) */ \
	X(SAMPLE_CONT_RECOVERED, "sample_continuation_recovered") /* ...frames missing after it read from stack chunks */ \
	X(CONT_RECOVER_NO_CONTINUATION, "sample_cont_recover_no_continuation") /* ...not: no such mounted continuation */ \
	X(CONT_RECOVER_BAD_FRAME, "sample_cont_recover_bad_frame") /* ...not: a chunk frame that could not be read */ \
	X(CONT_RECOVER_NO_ENTER, "sample_cont_recover_no_enter") /* ...not: the chunks end before Continuation.enter */ \
	X(CONT_RECOVER_DEPTH, "sample_cont_recover_depth") /* ...not: more frames than depth= */                \
	X(CONT_RECOVER_FAULT, "sample_cont_recover_fault") /* ...not: a read faulted (caught by the guard) */  \
	X(AGCT_OK, "agct_ok")                                                                                  \
	EMP_AGCT_OUTCOMES(EMP_COUNTER_AGCT, X)                                                                 \
	X(AGCT_OTHER, "agct_other")                      /* an outcome code AGCT never documented */          \
	X(AGCT_CRASHED, "agct_crashed")                  /* AGCT faulted; the fault was recovered */

/* Only in the fault-injection test build of the agent (tests/faultinject.mk, -DEMP_FAULT_INJECT; agct.c). */
#ifdef EMP_FAULT_INJECT
#define EMP_COUNTER_FAULT_INJECT_LIST(X)                                                                       \
	X(FAULT_INJECTED, "test_fault_injected")          /* faults injected inside the AGCT guard */          \
	X(FAULT_CHAINED, "test_fault_chained")            /* SIGSEGV/SIGBUS passed on to the JVM's handler */
#else
#define EMP_COUNTER_FAULT_INJECT_LIST(X)
#endif

/* X(enum name, dump name) — the dump name is what the analyzer prints; keep it stable. */
#define EMP_COUNTER_LIST(X)                                                                                    \
	X(RECORDS_WRITTEN, "records_written")             /* ring records the writer turned into events */     \
	X(RING_FULL_DROPPED, "lost_ring_full")            /* record dropped: ring full (onfull=drop, samples) */ \
	X(RING_FULL_WAITS, "ring_full_waits")             /* a producer waited for room (onfull=block) */      \
	X(AFTER_SHUTDOWN, "lost_after_shutdown")          /* record produced after the writer stopped */       \
	X(NO_THREAD_STATE, "lost_no_thread_state")        /* sample on a thread the agent does not know */     \
	X(REENTRANT, "lost_reentrant")                    /* probe or handler entered while already inside */  \
	X(UNBALANCED_EXIT, "trace_unbalanced_exit")       /* exit probe without a matching open entry */       \
	X(ITER_CPU_LOST, "lost_iteration_cpu")            /* iteration marker's CPU time not read or recorded */ \
	X(THREADS, "threads")                             /* thread states created */                          \
	X(WRITE_ERRORS, "write_errors")                   /* the sink failed; later chunks are lost */         \
	X(CHUNKS_STORED, "chunks_stored")                 /* compress=auto: events chunks stored, the writer behind */ \
	X(SAMPLES, "samples")                             /* samples taken (any outcome) */                    \
	X(CLASSES_REWRITTEN, "classes_rewritten")         /* trace mode */                                     \
	X(CLASSES_FAILED, "classes_failed")               /* trace mode: left unchanged, see rewrite_* */      \
	X(METHODS_INSTRUMENTED, "methods_instrumented")   /* trace mode */                                     \
	X(METHODS_SKIPPED, "methods_skipped")             /* trace mode: left unchanged, see rewrite_* */      \
	X(CLASSES_NOT_SELECTED, "classes_not_selected")   /* trace mode: loaded, no method selected */         \
	X(CLASSES_RETRANSFORMED, "classes_retransformed")/* trace mode: loaded before VMInit, retransformed */ \
	X(RETRANSFORM_FAILED, "retransform_failed")       /* trace mode: RetransformClasses refused a class */ \
	X(METHODS_DEINSTRUMENTED, "budget_methods_removed") /* trace mode, budget=: probes removed from a method */ \
	X(BUDGET_METHODS_SMALL, "budget_methods_small")   /* trace mode, budget=: selectable, too small to instrument */ \
	X(CLASSES_RESTORED, "classes_restored")           /* trace mode: back to original bytes at the end (stop, duration=) */ \
	X(GC_PAUSES, "gc_pauses")                         /* GC pauses recorded (every mode; PAUSES chunks) */ \
	X(GC_PAUSE_FULL, "lost_gc_pause_full")            /* GC pause dropped: the writer did not drain 256 */ \
	X(SAFEPOINTS, "safepoints")                       /* safepoints the JVM began while safepoints=on polled */ \
	X(SAFEPOINT_PAUSES, "safepoint_pauses")           /* safepoint PAUSES entries recorded (safepoint.h) */ \
	X(SAFEPOINT_PAUSE_FULL, "lost_safepoint_pause_full") /* safepoint entry dropped: the writer did not drain */ \
	EMP_COUNTER_REWRITE_LIST(X)                                                                            \
	EMP_COUNTER_SAMPLER_LIST(X)                                                                            \
	EMP_COUNTER_FAULT_INJECT_LIST(X)

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
