/* SPDX-License-Identifier: MIT */
/* probe_class.c - the class file of emp/Probe (agent/java/emp/Probe.java), embedded by agent/probe.mk. */
#include "probe_class.h"

const unsigned char emp_probe_class[] = {
#include "probe_class.inc"
};
const unsigned emp_probe_class_len = sizeof(emp_probe_class);
