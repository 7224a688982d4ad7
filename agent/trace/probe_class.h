/* SPDX-License-Identifier: MIT */
/* probe_class.h - the embedded class files of the probe helper class emp/Probe and of emp/Guard (see
 * agent/trace/probe.mk). */
#ifndef EMP_PROBE_CLASS_H
#define EMP_PROBE_CLASS_H

/* agent/trace/java/jni/emp/Probe.java: static natives (RegisterNatives), class-file version 52. */
extern const unsigned char emp_probe_class_jni[];
extern const unsigned emp_probe_class_jni_len;
/* agent/trace/java/ffm/emp/Probe.java: critical downcalls, class-file version 66; length 0 when built without a JDK 22+. */
extern const unsigned char emp_probe_class_ffm[];
extern const unsigned emp_probe_class_ffm_len;

/* agent/trace/java/guard/emp/Guard.java: budget='s guarded front of emp/Probe, class-file version 52. */
extern const unsigned char emp_guard_class[];
extern const unsigned emp_guard_class_len;

#endif /* EMP_PROBE_CLASS_H */
