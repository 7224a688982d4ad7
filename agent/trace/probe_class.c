/* SPDX-License-Identifier: MIT */
/* probe_class.c - the class files of emp/Probe (agent/trace/java/{jni,ffm}/emp/Probe.java) and emp/Guard
 * (agent/trace/java/guard/emp/Guard.java), embedded by agent/trace/probe.mk. */
#include "probe_class.h"

const unsigned char emp_probe_class_jni[] = {
#include "probe_jni.inc"
};
const unsigned emp_probe_class_jni_len = sizeof(emp_probe_class_jni);

/* One byte more than the class file, so that the array is never empty (ISO C); the length excludes it. */
const unsigned char emp_probe_class_ffm[] = {
#include "probe_ffm.inc"
	0
};
const unsigned emp_probe_class_ffm_len = sizeof(emp_probe_class_ffm) - 1;

const unsigned char emp_guard_class[] = {
#include "guard.inc"
};
const unsigned emp_guard_class_len = sizeof(emp_guard_class);
