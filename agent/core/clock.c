/* SPDX-License-Identifier: MIT */
/* clock.c - event clock selection and calibration; see clock.h. */
#include "clock.h"

#include <stdio.h>
#include <string.h>

int emp_clock_use_tsc;
static double clock_hz = 1e9;

/* Invariant TSC: constant rate across P-states and running through C-states; without both flags TSC deltas are
 * not durations. */
static int cpu_has_invariant_tsc(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	int constant = 0, nonstop = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
}

int emp_clock_init(enum emp_timesource src, unsigned calib_ms, char *err, size_t errlen)
{
	int tsc = cpu_has_invariant_tsc();
	if (src == EMP_TIME_TSC && !tsc) {
		snprintf(err, errlen, "timesource=tsc: this CPU has no invariant TSC (constant_tsc, nonstop_tsc)");
		return -1;
	}
	emp_clock_use_tsc = src != EMP_TIME_MONOTONIC && tsc;
	if (!emp_clock_use_tsc) {
		clock_hz = 1e9;
		return 0;
	}
	/* Rate estimate for short runs; runs of a second or more are re-measured by the analyzer from the META and
	 * END reference points.  Sleeping (not spinning) keeps start-up cheap in CPU. */
	uint64_t n0 = emp_clock_ns(CLOCK_MONOTONIC), t0 = emp_clock_ticks();
	struct timespec d = { .tv_sec = 0, .tv_nsec = (long)calib_ms * 1000000L };
	nanosleep(&d, NULL);
	uint64_t n1 = emp_clock_ns(CLOCK_MONOTONIC), t1 = emp_clock_ticks();
	clock_hz = n1 > n0 ? (double)(t1 - t0) * 1e9 / (double)(n1 - n0) : 1e9;
	return 0;
}

const char *emp_clock_name(void)
{
	return emp_clock_use_tsc ? "tsc" : "monotonic";
}

double emp_clock_hz(void)
{
	return clock_hz;
}
