/* SPDX-License-Identifier: MIT */
/* tracer.h - trace mode: the ClassFileLoadHook that rewrites selected methods (rewriter.h), the bootstrap helper
 * class emp/Probe and its native probes, which put ENTER/EXIT/EXIT_THROW records into the thread's ring.
 *
 * Two sets of mode hooks (modes.h):
 *   emp_tracer_ops            mode=trace: every method include=/exclude= select, plus the iteration= method.
 *   emp_tracer_iteration_ops  for mode=sample with iteration=: only the iteration method is instrumented, so each
 *                             of its calls leaves an ENTER/EXIT pair (flag EMP_METHOD_ITERATION) among the samples.
 *                             agent.c runs these hooks after the sampler's when o->iteration is set (onload,
 *                             enable, vm_init, vm_death; the others are NULL).
 *
 * Life cycle: Agent_OnLoad adds can_retransform_classes and the ClassFileLoadHook.  Until VMInit the hook rewrites
 * nothing (emp/Probe does not exist yet).  At VMInit emp/Probe is defined in the bootstrap loader from the class
 * bytes embedded in libemp.so (JNI DefineClass with a NULL loader) in one of two flavours (tracer.c: critical
 * foreign-function downcalls on JDK 22+, else JNI static natives), its natives are bound (RegisterNatives) and it
 * is initialized, the hook starts rewriting, and the classes loaded before that which the filters may select are
 * retransformed.  Rewritten classes of named modules (java.base, jdk.compiler, ...) read emp/Probe's module (the
 * bootstrap loader's unnamed module) through the read edges the JVM adds itself for a module an agent transforms;
 * the agent runs no Java code in the hook or in a JNI probe, so any class may be traced (tracer.c, "What may be
 * traced" and "Module reads").
 *
 * Probe fast path (per call of enter/exit/exitThrow): TLS thread state, nesting guard, emp_clock_ticks(), one
 * 16-byte emp_rec_trace record reserved and committed in the thread's ring; no lock, no allocation, no JNI call;
 * anything else (a thread without state, a full ring, after VMDeath) goes to a slow path in native state.
 * onfull=block waits for room (the writer is woken); onfull=drop drops a whole call subtree when its entry does not
 * fit with room left for the exits of every open call, so what is written always nests; every dropped record is
 * counted (lost_ring_full).
 */
#ifndef EMP_TRACER_H
#define EMP_TRACER_H

#include <jni.h>

#include "modes.h"

extern const struct emp_mode_ops emp_tracer_ops;
extern const struct emp_mode_ops emp_tracer_iteration_ops;

/* emp_tracer_restore - the recording ended while the program goes on (duration=, `emp-attach PID stop`): give every
 * class the tracer may have rewritten its original bytes back (RetransformClasses; counted classes_restored), so
 * that the program runs without probes from now on.  After the modes' vm_death hooks, before the writer stops.
 * @jni: the caller's, or NULL on a native thread (then attached for the call).  No-op without trace mode. */
void emp_tracer_restore(JavaVM *vm, JNIEnv *jni);

#endif /* EMP_TRACER_H */
