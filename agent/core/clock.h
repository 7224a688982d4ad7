/* SPDX-License-Identifier: MIT */
/* clock.h - the event clock: invariant TSC (rdtsc, ~11 ns here) or CLOCK_MONOTONIC (vDSO, ~23 ns).
 *
 * Events carry raw ticks; the dump's META holds the rate and a reference point (ticks, CLOCK_MONOTONIC ns,
 * CLOCK_REALTIME ns) and END a second point, so the analyzer converts ticks to nanoseconds with the rate measured
 * over the whole run.  emp_clock_ticks() is async-signal-safe (rdtsc, or clock_gettime which POSIX lists as safe). */
#ifndef EMP_CLOCK_H
#define EMP_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "options.h"

/* Which clock emp_clock_ticks() reads; set once by emp_clock_init() before any event is recorded. */
extern int emp_clock_use_tsc;

/* emp_clock_init - choose the clock (auto: TSC when /proc/cpuinfo has constant_tsc and nonstop_tsc) and estimate
 * its rate over @calib_ms milliseconds.  Return: 0, or -1 when timesource=tsc was asked for and the CPU has no
 * invariant TSC (message in @err). */
int emp_clock_init(enum emp_timesource src, unsigned calib_ms, char *err, size_t errlen);
const char *emp_clock_name(void);
double emp_clock_hz(void);

static inline uint64_t emp_clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t emp_clock_ticks(void)
{
	if (emp_clock_use_tsc) {
		uint32_t lo, hi;
		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		return (uint64_t)hi << 32 | lo;
	}
	return emp_clock_ns(CLOCK_MONOTONIC);
}

#endif /* EMP_CLOCK_H */
