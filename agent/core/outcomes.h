/* SPDX-License-Identifier: MIT */
/* outcomes.h - the outcome lists that a mode and the counters (counters.h) are both generated from, so the two
 * can never fall out of step: the rewriter's reasons (agent/trace/rewriter.h) and AsyncGetCallTrace's outcome codes
 * (agent/sample/sampler.h), and what became of agct.c's recovery of a failed walk.  They live here, in the lowest agent layer, because counters.h may not include a mode's
 * header.  Each list is X(P, ...): P is passed through to X untouched, so that a list can be expanded inside another
 * X-macro list (counters.h hands its own X on as P); a user with nothing to pass through gives any token. */
#ifndef EMP_OUTCOMES_H
#define EMP_OUTCOMES_H

/* Why the rewriter skipped a method or left a class unchanged: X(P, enum suffix, counter suffix, text).  The enum is
 * emp_rewrite_reason (EMP_REWRITE_E_<suffix>, codes 1, 2, ... in this order); the counters are rewrite_skip_<counter
 * suffix> and rewrite_fail_<counter suffix>, in this order too (tracer.c indexes them by code).  The counter names
 * are in the dump: keep them stable. */
#define EMP_REWRITE_REASONS(X, P)                                                                              \
	X(P, NOMEM, "nomem", "out of memory")                                                                  \
	X(P, TRUNCATED, "truncated", "truncated class file")                                                   \
	X(P, BAD_MAGIC, "bad_magic", "not a class file (bad magic)")                                           \
	X(P, BAD_VERSION, "bad_version", "unsupported class file version")                                     \
	X(P, BAD_CLASS, "bad_class", "malformed class file")                                                   \
	X(P, CP_FULL, "cp_full", "constant pool full")                                                         \
	X(P, BAD_CODE, "bad_code", "malformed bytecode or Code attribute")                                     \
	X(P, JSR, "jsr", "jsr/ret subroutines")                                                                \
	X(P, CODE_TOO_LARGE, "code_too_large", "code would exceed 65535 bytes")                                \
	X(P, EXC_TABLE_FULL, "exc_table_full", "exception table would exceed 65535 entries")                   \
	X(P, BRANCH_OVERFLOW, "branch_overflow", "no goto_w trampoline site within reach of a widened branch") \
	X(P, BAD_STACKMAP, "bad_stackmap", "malformed or inconsistent StackMapTable")                          \
	X(P, CTOR_SHAPE, "ctor_shape", "constructor without a separable super()/this() prologue")              \
	X(P, CODE_ATTR, "code_attr", "unknown attribute inside Code")

/* AsyncGetCallTrace's outcome codes (HotSpot forte.cpp's ticks_*): X(P, code, enum suffix, name).  The codes run
 * 0, -1, ... without a gap (sampler.c indexes by -code); the enum is EMP_AGCT_<suffix> (sampler.h), the counters
 * agct_<name> (counters.h, in this order, after agct_ok), the pseudo-frames [<name>].  Names are in the dump. */
#define EMP_AGCT_OUTCOMES(X, P)                                                                                \
	X(P, 0, NO_JAVA_FRAME, "no_Java_frame")                                                                \
	X(P, -1, NO_CLASS_LOAD, "no_class_load")                                                               \
	X(P, -2, GC_ACTIVE, "GC_active")                                                                       \
	X(P, -3, UNKNOWN_NOT_JAVA, "unknown_not_Java")                                                         \
	X(P, -4, NOT_WALKABLE_NOT_JAVA, "not_walkable_not_Java")                                               \
	X(P, -5, UNKNOWN_JAVA, "unknown_Java")                                                                 \
	X(P, -6, NOT_WALKABLE_JAVA, "not_walkable_Java")                                                       \
	X(P, -7, UNKNOWN_STATE, "unknown_state")                                                               \
	X(P, -8, THREAD_EXIT, "thread_exit")                                                                   \
	X(P, -9, DEOPT, "deopt")                                                                               \
	X(P, -10, SAFEPOINT, "safepoint")

/* What became of agct.c's recovery when AGCT answered unknown_Java, not_walkable_Java, unknown_not_Java or
 * not_walkable_not_Java: X(P, enum suffix, name).
 * The counters are sample_recover_<name> (counters.h, in this order; EMP_C_RECOVER_<suffix>).  Names are in the
 * dump. */
#define EMP_RECOVER_OUTCOMES(X, P)                                                                              \
	X(P, NAMED, "named")             /* re-walked from the caller; the edge's method named from its nmethod */   \
	X(P, BY_PC, "by_pc")             /* ...the edge's method left to the writer (by PC: CompiledMethodLoad) */   \
	X(P, NATIVE, "native")           /* PC in native code: re-walked from the first JIT frame below it */         \
	X(P, VTABLE_STUB, "vtable_stub") /* re-walked from the caller of a vtable/itable stub (a call in progress) */\
	X(P, STUB, "stub")               /* re-walked from the compiled caller of another stub (arraycopy, barrier) */\
	X(P, ANCHOR, "anchor")           /* *_not_Java in the VM: re-walked with the anchor made walkable */         \
	X(P, RUNTIME_STUB, "runtime_stub") /* ...of which: from the caller of the runtime stub the anchor is in */   \
	X(P, NO_ANCHOR, "no_anchor")     /* *_not_Java outside the VM, without a Java frame, or nothing to repair */ \
	X(P, NO_BLOB, "no_blob")         /* the PC is in no code blob the JVM's tables lead to (nor native code) */  \
	X(P, NOT_NMETHOD, "not_nmethod") /* the PC is in an adapter, or a stub whose caller was not found */         \
	X(P, INTERPRETER, "interpreter") /* the PC is in the interpreter, not in a method entry we can unwind */     \
	X(P, IN_STUB, "nmethod_stub")    /* the PC is in a compiled method's stub section */                         \
	X(P, NO_EDGE, "no_edge")         /* the frame's state at the PC is not one we can tell */                    \
	X(P, BAD_CALLER, "bad_caller")   /* the return address found is not in the code cache */                     \
	X(P, REWALK_FAILED, "rewalk_failed") /* AGCT failed again from the caller */                                 \
	X(P, FAULT, "fault")             /* reading the JVM's structures faulted (caught by the guard) */

#endif /* EMP_OUTCOMES_H */
