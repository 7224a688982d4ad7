/* SPDX-License-Identifier: MIT */
/* rewriter.h - insert entry/exit probes into selected methods of a class file.
 *
 * Pure C11 on top of classfile.h; no JVM dependency, no global state: emp_rewrite_class() is reentrant
 * and may run concurrently on different classes (the ClassFileLoadHook calls it from any thread).
 * The caller owns the statistics struct and decides how to share it (one per call and then added to
 * a global under a lock, or atomics).
 *
 * What a selected method (one with a Code attribute) looks like afterwards, with ID its probe id:
 *
 *     push ID; invokestatic Probe.enter(I)V        -- at pc 0 (constructors: see below), not
 *                                                     covered by any handler
 *     <original body>                              -- every *return is preceded by
 *                                                     push ID; invokestatic Probe.exit(I)V
 *     H: push ID; invokestatic Probe.exitThrow(I)V; athrow
 *
 * and the exception table gains, after all original entries (so they keep precedence), catch-all
 * (catch_type 0) entries that cover the whole original body EXCEPT the exit sequences and the return
 * instructions themselves, all pointing at H.  An exception that leaves the method is therefore
 * recorded exactly once by exitThrow, and a normal return exactly once by exit: if Probe.exit (or the
 * return instruction, e.g. IllegalMonitorStateException) threw, nothing records a second exit.
 * Probe.enter/exit/exitThrow must record first and never throw; an error raised while *invoking*
 * them (StackOverflowError at the call) is the one case where a record can be missing.
 *
 * Constructors: the verifier rejects any handler that covers the invokespecial which initialises
 * `this` (HotSpot re-checks the handler with the post-call frame plus flagThisUninit, which no
 * stack-map frame can accept), so an exception thrown by super()/this() itself can never be seen by a
 * catch-all in the constructor.  To keep enter/exit exactly balanced the entry probe of a constructor
 * is placed right AFTER the super()/this() call, and the catch-all covers only the code after it.
 * Consequences: the constructor's span starts when super()/this() has returned; Super.<init> (and
 * whatever runs while super()'s arguments are evaluated) is recorded as a sibling that precedes
 * Sub.<init>, not as its child; a delegating this(...) constructor's target likewise precedes it; a
 * constructor that throws before or inside super() records neither enter nor exit.  The super()/this()
 * call is found by pairing `new` with invokespecial <init> in code order; the rewriter then checks
 * that the code up to it is a region of its own (no branch in or out, no return, no handler, stack-map
 * frames agree: uninitializedThis in local 0 before, nowhere after) and otherwise skips the
 * constructor (EMP_REWRITE_E_CTOR_SHAPE).  java/lang/Object.<init> is an ordinary method.
 *
 * Branches that no longer fit in 16 bits: goto becomes goto_w; a conditional branch is redirected to
 * a `goto_w target` trampoline placed in an island right after an instruction that does not fall
 * through (or at the end of the code), outside every original handler range and outside a
 * constructor's pre-super() region; the trampoline's stack-map frame is a copy of the target's frame.
 * Layout is iterated until stable.  Switch padding is recomputed.
 *
 * Code attributes: StackMapTable is decoded and re-encoded (offsets, uninitialized(offset) types, new
 * frames for handlers and trampolines), or created when a class file >= 50 had none.
 * LineNumberTable, LocalVariableTable and LocalVariableTypeTable are remapped (pc 0 stays 0, so the
 * entry probe shares the first line and parameters stay in scope).  RuntimeVisible/Invisible-
 * TypeAnnotations inside Code are dropped (they hold pcs of instructions; the JVM ignores them and
 * reflection cannot see them).  Any other attribute in Code skips the method (its pcs could not be
 * remapped).  max_stack grows by 1 (at least 2); max_locals is unchanged (the guarded shape: struct emp_probes).
 *
 * Methods skipped (left byte-identical, counted by reason): jsr/ret, code that would exceed 65535
 * bytes, unexpected constructor shape, malformed code or stack maps, no trampoline site in reach.
 */
#ifndef EMP_REWRITER_H
#define EMP_REWRITER_H

#include <stddef.h>
#include <stdint.h>

#include "outcomes.h"

/* Why a method was skipped or a class left unchanged: outcomes.h's EMP_REWRITE_REASONS, the one list the
 * rewrite_* counters are generated from too.  Codes are positive; functions return them negated.  Stats arrays are
 * indexed by the code (index 0 is unused). */
enum emp_rewrite_reason {
	EMP_REWRITE_OK = 0,
#define EMP_REWRITE_X_ENUM(p, name, counter, str) EMP_REWRITE_E_##name,
	EMP_REWRITE_REASONS(EMP_REWRITE_X_ENUM, _)
#undef EMP_REWRITE_X_ENUM
	EMP_REWRITE_NREASONS
};

/** emp_rewrite_reason_str - text for a reason code (either sign); "unknown" for anything else. */
const char *emp_rewrite_reason_str(int reason);

/* The probe class and its three static methods.  NULL members (or a NULL struct) mean the defaults "emp/Probe",
 * "enter", "exit", "exitThrow", and the shape above, where they are (I)V.  The probe class itself is never
 * rewritten.
 *
 * @guarded selects the guarded shape, where the entry probe decides whether the call is recorded and the exits
 * follow that decision, kept in a new local F (index max_locals, which grows by one):
 *
 *     push ID; invokestatic enter(I)Z; istore F    -- the entry (a constructor's: after super()/this())
 *     iload F; push ID; invokestatic exit(ZI)V     -- before each return
 *     H: iload F; push ID; invokestatic exitThrow(ZI)V; athrow
 *
 * Every stack-map frame after the entry gets F as an int (the locals a frame leaves out are padded with top),
 * H's frame too; max_stack grows by 2 (at least 3).  So a probe class can stop recording a method at run time
 * (budget.h) without the class being retransformed, and a call entered before that still records its exit. */
struct emp_probes {
	const char *klass;
	const char *enter;
	const char *exit;
	const char *exit_throw;
	int guarded;
	/* Methods with less bytecode than this are left alone, before @select is asked (counted in methods_small);
	 * 0: none.  budget= sets it: see EMP_BUDGET_MIN_CODE in tracer.c. */
	uint32_t min_code_len;
};

/*
 * Selection callback, called once for every method that has a Code attribute (never for abstract or
 * native ones).  class_name is in internal form (a/b/C), method_name/descriptor as in the class file
 * (NUL-terminated copies, valid during the call).  Return a probe id >= 0 to instrument the method,
 * < 0 to leave it alone.
 */
typedef int32_t (*emp_rewrite_select_fn)(void *ctx, const char *class_name, const char *method_name,
					 const char *descriptor, uint16_t access_flags);

/* Counters, accumulated (+=) by emp_rewrite_class(); zero it once, before the first call. */
struct emp_rewrite_stats {
	uint64_t classes_seen, classes_rewritten, methods_instrumented;
	uint64_t methods_small; /* left alone for struct emp_probes' min_code_len */
	uint64_t methods_skipped[EMP_REWRITE_NREASONS];
	uint64_t classes_failed[EMP_REWRITE_NREASONS];
};

/**
 * emp_rewrite_class - instrument the methods of one class that @select picks.
 * @in, @len: the class bytes (not modified).
 * @select, @ctx: selection callback and its context.
 * @names: probe class, method names and shape (NULL for the defaults).
 * @out, @out_len: on success, a malloc'ed rewritten class (caller frees) or NULL/0 when no method was
 *	instrumented (nothing selected, or every selected method skipped).
 * @stats: counters to add to; may be NULL.
 *
 * Return: 0 on success; -EMP_REWRITE_E_<reason> when the class could not be parsed or written (the
 * caller keeps the original bytes; *@out is NULL and classes_failed[reason] was incremented).
 * A method that cannot be instrumented is left exactly as it was and counted in methods_skipped; the
 * other methods of the class are still instrumented.
 */
int emp_rewrite_class(const uint8_t *in, size_t len, emp_rewrite_select_fn select, void *ctx,
		      const struct emp_probes *names, uint8_t **out, size_t *out_len,
		      struct emp_rewrite_stats *stats);

#endif /* EMP_REWRITER_H */
