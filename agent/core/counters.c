/* SPDX-License-Identifier: MIT */
/* counters.c - storage and names of the agent's counters; see counters.h. */
#include "counters.h"

_Atomic uint64_t emp_counters[EMP_COUNTER_COUNT];

const char *const emp_counter_names[EMP_COUNTER_COUNT] = {
#define EMP_COUNTER_NAME(id, name) [EMP_C_##id] = name,
	EMP_COUNTER_LIST(EMP_COUNTER_NAME)
#undef EMP_COUNTER_NAME
};
