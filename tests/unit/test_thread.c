/* SPDX-License-Identifier: MIT */
/* test_thread.c - the per-thread state (agent/core/thread.h): attach (idempotent), detach (twice), dense ids, the
 * thread counter and the hand-off to the writer in attach order. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters.h"
#include "dump.h"
#include "thread.h"

struct attach_result {
	struct emp_thread *t, *again;
	pid_t tid;
	int tls_set, tls_cleared;
	const char *name;
	void *jni;
};

static void *attach_detach(void *arg)
{
	struct attach_result *a = arg;
	a->tid = (pid_t)syscall(SYS_gettid);
	a->t = emp_thread_attach(a->name, EMP_THREAD_JAVA, NULL);
	/* idempotent: ThreadStart for `main` arrives twice; a JNIEnv given later is kept */
	a->again = emp_thread_attach("other", 0, a->jni);
	a->tls_set = emp_tls_thread == a->t;
	emp_thread_detach();
	a->tls_cleared = emp_tls_thread == NULL;
	emp_thread_detach(); /* a second detach is a no-op */
	return NULL;
}

Test(thread, attach_detach_handoff)
{
	emp_thread_setup(8192);
	uint64_t threads_before = emp_counter_get(EMP_C_THREADS);
	struct attach_result a = { .name = "worker-1", .jni = (void *)0x1234 };
	struct attach_result b = { .name = NULL };
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, attach_detach, &a), 0);
	pthread_join(th, NULL);
	cr_assert_eq(pthread_create(&th, NULL, attach_detach, &b), 0);
	pthread_join(th, NULL);

	cr_assert_not_null(a.t);
	cr_assert_eq(a.again, a.t);
	cr_assert(a.tls_set);
	cr_assert(a.tls_cleared);
	cr_assert_str_eq(a.t->name, "worker-1");
	cr_assert_eq(a.t->flags, EMP_THREAD_JAVA);
	cr_assert_eq(a.t->tid, a.tid);
	cr_assert_eq(a.t->jni, (void *)0x1234);
	cr_assert_eq(a.t->ring.size, 8192);
	cr_assert_eq(a.t->id, 0);
	cr_assert_str_eq(b.t->name, "");
	cr_assert_eq(b.t->jni, NULL);
	cr_assert_eq(b.t->id, 1, "ids are dense");
	cr_assert(emp_thread_is_dead(a.t));
	cr_assert(emp_thread_is_dead(b.t));
	cr_assert_eq(emp_counter_get(EMP_C_THREADS) - threads_before, 2);

	/* in hand-over order, each once */
	cr_assert_eq(emp_thread_take_new(), a.t);
	cr_assert_eq(emp_thread_take_new(), b.t);
	cr_assert_null(emp_thread_take_new(), "taken once");
	emp_thread_free(a.t);
	emp_thread_free(b.t);
	cr_assert_null(emp_tls_thread, "the test's own thread never attached");
}
