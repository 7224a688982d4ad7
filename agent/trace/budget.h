/* SPDX-License-Identifier: MIT */
/* budget.h - trace mode's budget=PCT: keep the probes' cost under PCT % of the program's CPU time by removing the
 * probes of the methods that cost most for the time they account for.
 *
 * Three parties:
 *   the hook (tracer.c)   registers every selected method with its class (emp_budget_method) and leaves out of a
 *                         class's rewrite the methods the controller removed (emp_budget_removed);
 *   the writer thread     counts, as it drains each thread's ring, calls and self time per method id
 *                         (emp_budget_note): the probes do no extra work;
 *   the controller        a JVMTI agent thread (out of the program's thread views; it must call JVMTI
 *                         RetransformClasses), every 25 ms: calls in the last
 *                         period × the calibrated cost of a probe pair against PCT % of the process CPU time in it;
 *                         over budget, it removes the methods with the most calls per ns of self time (tiny, hot
 *                         ones first) until the estimate is under 40 % of the budget, names each in the dump (META
 *                         deinstrumented.<id>, doc/dump-format.md) and retransforms their classes.
 * Frames running when their method's class is retransformed keep the old, probed code until they return (JVMTI),
 * so every entry recorded still gets its exit. */
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

/* VMInit: calibrate the probe cost (@ffm: probes are the FFM flavour) and start the controller, a JVMTI agent
 * thread.  Return: 0, or -1 (logged; no budget). */
int emp_budget_start(jvmtiEnv *jvmti, JNIEnv *jni, int ffm, emp_budget_retransform_fn retransform);

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
