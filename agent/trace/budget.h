/* SPDX-License-Identifier: MIT */
/* budget.h - trace mode's budget=PCT: keep the probes' cost under PCT % of the program's CPU time by removing the
 * probes of the methods that cost most for the time they account for.
 *
 * Three parties:
 *   the hook (tracer.c)   registers every selected method with its class (emp_callstats_method), rewrites in the
 *                         guarded shape (rewriter.h: the entry asks emp/Guard whether to record, the exits follow)
 *                         and leaves out of a later rewrite the methods the controller removed;
 *   the writer thread     counts, as it drains each thread's ring, calls and self time per method id
 *                         (emp_budget_note): the probes do no extra work;
 *   the controller        a JVMTI agent thread (out of the program's thread views; it must call JVMTI
 *                         RetransformClasses), every 25 ms: calls in the last period × the calibrated cost
 *                         of a probe pair against PCT % of the traced threads' CPU time in it (callstats.h);
 *                         over budget, it removes the methods with the most calls per ns of self time (tiny, hot
 *                         ones first) until the estimate is under 40 % of the budget, names each in the dump (META
 *                         deinstrumented.<id>, doc/dump-format.md) and switches it off in emp/Guard.OFF; a method
 *                         whose id is beyond that array, or every one when emp/Guard could not be defined, is
 *                         removed by retransforming its class instead.
 * A call entered before the switch keeps its entry's decision in a local and records its exit; frames running when
 * their method's class is retransformed keep the old, probed code until they return (JVMTI): either way every entry
 * recorded gets its exit.  Switching off throws no compiled code away, which a retransformation does (bench/README.md,
 * "budget: guarded probes"). */
#ifndef EMP_BUDGET_H
#define EMP_BUDGET_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

/* Retransform the loaded classes for which @want(internal name) is non-zero, in the caller's JNI thread.
 * Provided by tracer.c. */
typedef void (*emp_budget_retransform_fn)(JNIEnv *jni, int (*want)(const char *klass));

/* Agent_OnLoad: set the budget (0 < @pct <= 100; 0: none) and, with one, turn the counting on (callstats.h). */
void emp_budget_setup(double pct);

/* The probes the controller works with (tracer.c). */
struct emp_budget_probes {
	int ffm;        /* they are the FFM flavour (the calibration adds no JNI transition) */
	jbyteArray off; /* emp/Guard.OFF (a global ref): a method id below @off_len is switched off there; NULL: none */
	jsize off_len;
	emp_budget_retransform_fn retransform; /* the other methods are removed by retransforming their classes */
};

/* VMInit: calibrate the probe cost and start the controller, a JVMTI agent thread.  Return: 0, or -1 (logged; no
 * budget). */
int emp_budget_start(jvmtiEnv *jvmti, JNIEnv *jni, const struct emp_budget_probes *probes);

/* End of the recording: stop the controller and wait for it (before the writer's final drain). */
void emp_budget_stop(void);

/* VMInit (a Java thread): keep the system thread group for emp_budget_attach(). */
void emp_budget_prepare(jvmtiEnv *jvmti, JNIEnv *jni);

/* Attach the calling native thread to @vm as a daemon of the system thread group (out of the program's
 * Thread.activeCount/enumerate, which see the main group; ThreadMXBean and getAllStackTraces see it while it is
 * attached) named @name, for one retransformation (emp_tracer_restore on the duration= timer); the caller detaches
 * it right after.  Return: its JNIEnv, or NULL. */
JNIEnv *emp_budget_attach(JavaVM *vm, const char *name);

#endif /* EMP_BUDGET_H */
