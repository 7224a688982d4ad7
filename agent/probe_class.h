/* SPDX-License-Identifier: MIT */
/* probe_class.h - the embedded class file of the probe helper class emp/Probe (see agent/probe.mk). */
#ifndef EMP_PROBE_CLASS_H
#define EMP_PROBE_CLASS_H

extern const unsigned char emp_probe_class[];
extern const unsigned emp_probe_class_len;

#endif /* EMP_PROBE_CLASS_H */
