/* SPDX-License-Identifier: MIT */
/* test_gcpause.c - the end of a recording and the GC pauses around it (agent/core/gcpause.h): a pause running when
 * the recording ends is waited for and kept whole, none opens after it, and a pause that never finishes is left
 * out at the timeout.  Each Criterion test runs in a process of its own, so the module's state starts empty. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <time.h>

#include "counters.h"
#include "gcpause.h"

static void *finish_later(void *arg)
{
	(void)arg;
	nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	emp_gcpause_finish();
	return NULL;
}

Test(gcpause, close_waits_for_the_open_pause)
{
	struct emp_pause out[4];
	emp_gcpause_start();
	emp_gcpause_finish();
	emp_gcpause_start(); /* the world is stopped when the recording ends */
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, finish_later, NULL), 0);
	uint64_t closed;
	cr_assert_eq(emp_gcpause_close(5000000000ull, &closed), 0);
	cr_assert_gt(closed, 0);
	cr_assert_eq(emp_counter_get(EMP_C_GC_PAUSES), 2, "the pause open at the close is counted before it returns");
	cr_assert_eq(emp_gcpause_drain(out, 4), 2);
	cr_assert_gt(out[1].duration, 0);
	pthread_join(t, NULL);
	/* after the close: nothing opens */
	emp_gcpause_start();
	emp_gcpause_finish();
	cr_assert_eq(emp_counter_get(EMP_C_GC_PAUSES), 2);
	cr_assert_eq(emp_gcpause_drain(out, 4), 0);
}

Test(gcpause, close_with_none_open_and_timeout)
{
	uint64_t closed;
	cr_assert_eq(emp_gcpause_close(0, &closed), 0, "nothing open: at once");
	cr_assert_gt(closed, 0);
	emp_gcpause_finish(); /* a finish without a start: ignored */
	cr_assert_eq(emp_counter_get(EMP_C_GC_PAUSES), 0);
}

Test(gcpause, a_pause_that_never_finishes_times_out)
{
	emp_gcpause_start();
	uint64_t closed;
	cr_assert_eq(emp_gcpause_close(20000000ull, &closed), -1);
	cr_assert_eq(emp_counter_get(EMP_C_GC_PAUSES), 0);
}
