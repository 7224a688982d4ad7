/* SPDX-License-Identifier: MIT */
/* dump_names.c - printable names of the dump format's enumerations. */
#include "dump.h"

const char *emp_thread_state_name(unsigned state)
{
	static const char *const names[EMP_STATE_COUNT] = {
		[EMP_STATE_UNKNOWN] = "unknown",   [EMP_STATE_RUNNING] = "running",
		[EMP_STATE_WAITING] = "waiting",   [EMP_STATE_BLOCKED] = "blocked",
		[EMP_STATE_SLEEPING] = "sleeping", [EMP_STATE_NATIVE] = "native",
	};
	return state < EMP_STATE_COUNT ? names[state] : "unknown";
}
