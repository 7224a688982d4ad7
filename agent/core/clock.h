/* SPDX-License-Identifier: MIT */
/* clock.h - the event clock: invariant TSC (rdtsc, ~11 ns here) or CLOCK_MONOTONIC (vDSO, ~23 ns).
 *
 * Events carry raw ticks; the dump's META holds the rate and a reference point (ticks, CLOCK_MONOTONIC ns,
 * CLOCK_REALTIME ns) and END a second point, so the analyzer converts ticks to nanoseconds with the rate measured
 * over the whole run.  emp_clock_ticks() is async-signal-safe (rdtsc, or clock_gettime which POSIX lists as safe). */
#ifndef EMP_CLOCK_H
#define EMP_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

enum emp_timesource { EMP_TIME_AUTO, EMP_TIME_TSC, EMP_TIME_MONOTONIC };

/* Which clock emp_clock_ticks() reads; set once by emp_clock_init() before any event is recorded. */
extern int emp_clock_use_tsc;

/* emp_clock_init - choose the clock (auto: TSC when /proc/cpuinfo has constant_tsc and nonstop_tsc) and estimate
 * its rate over @calib_ms milliseconds.  Return: 0, or -1 when timesource=tsc was asked for and the CPU has no
 * invariant TSC (message in @err). */
int emp_clock_init(enum emp_timesource src, unsigned calib_ms, char *err, size_t errlen);
const char *emp_clock_name(void);
double emp_clock_hz(void);

/* emp_clock_read_ns - read clock @id into *@ns.  Return: true, or false when the clock cannot be read (the CPU
 * clock of a thread that has exited: EINVAL), *@ns then 0.  Async-signal-safe (clock_gettime is). */
static inline bool emp_clock_read_ns(clockid_t id, uint64_t *ns)
{
	struct timespec ts;
	if (clock_gettime(id, &ts)) {
		*ns = 0;
		return false;
	}
	*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return true;
}

/* emp_clock_ns - clock @id in nanoseconds, 0 when it cannot be read. */
static inline uint64_t emp_clock_ns(clockid_t id)
{
	uint64_t ns;
	emp_clock_read_ns(id, &ns);
	return ns;
}

/* emp_clock_thread_cpu - the CPU clock of thread @tid of this process: glibc's MAKE_THREAD_CPUCLOCK(tid,
 * CPUCLOCK_SCHED), which is what pthread_getcpuclockid() returns for a pthread (the kernel's clock id encoding:
 * ~pid << 3, per-thread bit 4, scheduler clock 2).  Reading it fails (EINVAL) once the thread has exited. */
static inline clockid_t emp_clock_thread_cpu(pid_t tid)
{
	return (clockid_t)(((unsigned)~tid << 3) | 4u | 2u);
}

/* emp_ns_timespec - @ns nanoseconds as a struct timespec (for nanosleep, futex and timer_settime). */
static inline struct timespec emp_ns_timespec(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
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
