/* SPDX-License-Identifier: MIT */
/* test_callstats.c - the traced threads' CPU time that budget= takes as its base (agent/core/callstats.h): the
 * first reading of a thread only sets its start, a reading comes at most every EMP_CALLSTATS_CPU_NS unless the
 * thread is gone, and a virtual thread's state (tid 0, which would name the caller's own clock) counts nothing. */
#include <criterion/criterion.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "callstats.h"
#include "clock.h"

static uint64_t thread_cpu(void)
{
	return emp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Spin until this thread has run @ns more CPU time. */
static void burn(uint64_t ns)
{
	uint64_t until = thread_cpu() + ns;
	while (thread_cpu() < until)
		;
}

Test(callstats, traced_cpu_of_a_thread)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct emp_callstats_cpu c = { 0, 0 };
	uint64_t base = emp_callstats_traced_cpu_ns(), now = 1000000000ull;

	emp_callstats_thread_cpu(&c, tid, now, 0);
	cr_assert_eq(emp_callstats_traced_cpu_ns(), base, "the first reading only sets the start");
	cr_assert_gt(c.ns, 0);
	uint64_t start = c.ns;

	burn(3000000);
	emp_callstats_thread_cpu(&c, tid, now + EMP_CALLSTATS_CPU_NS - 1, 0);
	cr_assert_eq(c.ns, start, "read again before EMP_CALLSTATS_CPU_NS");
	cr_assert_eq(emp_callstats_traced_cpu_ns(), base);

	emp_callstats_thread_cpu(&c, tid, now + EMP_CALLSTATS_CPU_NS, 0);
	uint64_t after = thread_cpu();
	cr_assert_geq(c.ns - start, 3000000, "the 3 ms burnt are in the reading");
	cr_assert_leq(c.ns, after);
	cr_assert_eq(emp_callstats_traced_cpu_ns() - base, c.ns - start, "exactly the time between the readings");

	/* gone: read at once, whatever the time since the last reading */
	uint64_t second = c.ns;
	burn(1000000);
	emp_callstats_thread_cpu(&c, tid, now + EMP_CALLSTATS_CPU_NS + 1, 1);
	cr_assert_geq(c.ns - second, 1000000);
	cr_assert_eq(emp_callstats_traced_cpu_ns() - base, c.ns - start);
}

Test(callstats, no_clock_for_a_virtual_thread)
{
	struct emp_callstats_cpu c = { 0, 0 };
	uint64_t base = emp_callstats_traced_cpu_ns();
	for (int i = 0; i < 3; i++) {
		burn(1000000);
		emp_callstats_thread_cpu(&c, 0, (uint64_t)(i + 1) * EMP_CALLSTATS_CPU_NS, i == 2);
	}
	cr_assert_eq(c.ns, 0, "tid 0 is never read (its clock id is the caller's own clock)");
	cr_assert_eq(emp_callstats_traced_cpu_ns(), base);
}

Test(callstats, a_thread_that_is_gone_counts_nothing_more)
{
	struct emp_callstats_cpu c = { 5, 1 }; /* as left by a reading of a thread that has since exited */
	uint64_t base = emp_callstats_traced_cpu_ns();
	/* pid_max is at most 2^22: this tid names no thread, so its clock cannot be read */
	emp_callstats_thread_cpu(&c, (pid_t)((1 << 22) + 7), 2 * EMP_CALLSTATS_CPU_NS, 1);
	cr_assert_eq(c.ns, 5);
	cr_assert_eq(emp_callstats_traced_cpu_ns(), base);
}
