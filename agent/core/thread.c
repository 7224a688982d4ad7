/* SPDX-License-Identifier: MIT */
/* thread.c - per-thread agent state and its hand-off to the writer; see thread.h. */
#include "thread.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters.h"
#include "log.h"
#include "tsan.h"

__thread struct emp_thread *emp_tls_thread __attribute__((tls_model("initial-exec")));

static uint64_t ring_bytes = 1u << 20;
static _Atomic uint32_t next_id;
/* New states travel to the writer through this wait-free queue: enqueue from any thread, the writer is the only
 * dequeuer (so the lock-free __cds_wfcq_splice_blocking() needs no mutual exclusion). */
static struct __cds_wfcq_head new_head;
static struct cds_wfcq_tail new_tail;

void emp_thread_setup(uint64_t bytes)
{
	ring_bytes = bytes;
	__cds_wfcq_init(&new_head, &new_tail);
}

struct emp_thread *emp_thread_new(pid_t tid, const char *name, uint32_t flags, uint64_t bytes)
{
	struct emp_thread *t;
	if (posix_memalign((void **)&t, 64, sizeof(*t)))
		return NULL;
	memset(t, 0, sizeof(*t));
	if (emp_ring_init(&t->ring, bytes ? bytes : ring_bytes)) {
		free(t);
		return NULL;
	}
	t->tid = tid;
	t->flags = flags;
	snprintf(t->name, sizeof(t->name), "%s", name ? name : "");
	/* Relaxed: the id only has to be unique; it is published with the state by the enqueue below. */
	t->id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
	cds_wfcq_node_init(&t->node);
	emp_count(EMP_C_THREADS, 1);
	/* The enqueue's xchg is a full barrier: the initialised state is visible before the writer can see the node
	 * (liburcu wfcqueue: "implicit memory barrier before uatomic_xchg() orders earlier stores"). */
	EMP_TSAN_RELEASE(t);
	cds_wfcq_enqueue(&new_head, &new_tail, &t->node);
	return t;
}

struct emp_thread *emp_thread_attach(const char *name, uint32_t flags, void *jni)
{
	struct emp_thread *t = emp_tls_thread;
	if (t) {
		if (jni && !t->jni)
			t->jni = jni;
		return t;
	}
	t = emp_thread_new((pid_t)syscall(SYS_gettid), name, flags, 0);
	if (!t)
		return NULL;
	t->jni = jni;
	/* Publish to our own signal handlers last: a handler that sees the pointer sees a complete state. */
	atomic_signal_fence(memory_order_release);
	emp_tls_thread = t;
	return t;
}

void emp_thread_retire(struct emp_thread *t)
{
	/* (E) release; pairs with (F) in emp_thread_is_dead(). */
	atomic_store_explicit(&t->dead, 1, memory_order_release);
}

void emp_thread_detach(void)
{
	struct emp_thread *t = emp_tls_thread;
	if (!t)
		return;
	/* Hide the state from our own probes and handlers before the writer may free it. */
	emp_tls_thread = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	emp_thread_retire(t);
}

/* Relaxed: a plain value that publishes nothing; readers only compare tids with it. */
static _Atomic pid_t writer_tid;

pid_t emp_thread_writer_tid(void)
{
	return atomic_load_explicit(&writer_tid, memory_order_relaxed);
}

struct emp_thread *emp_thread_take_new(void)
{
	if (!atomic_load_explicit(&writer_tid, memory_order_relaxed))
		atomic_store_explicit(&writer_tid, (pid_t)syscall(SYS_gettid), memory_order_relaxed);
	struct cds_wfcq_node *n = __cds_wfcq_dequeue_blocking(&new_head, &new_tail);
	if (!n)
		return NULL;
	struct emp_thread *t = caa_container_of(n, struct emp_thread, node);
	EMP_TSAN_ACQUIRE(t);
	return t;
}

void emp_thread_free(struct emp_thread *t)
{
	emp_ring_destroy(&t->ring);
	free(t);
}

struct spawn {
	const char *name;
	void *(*fn)(void *);
	void *arg;
};

static void *spawned(void *p)
{
	struct spawn sp = *(struct spawn *)p;
	free(p);
	pthread_setname_np(pthread_self(), sp.name);
	return sp.fn(sp.arg);
}

int emp_thread_spawn(pthread_t *thread, const char *name, void *(*fn)(void *), void *arg)
{
	struct spawn *sp = malloc(sizeof(*sp));
	if (!sp)
		return ENOMEM;
	*sp = (struct spawn){ name, fn, arg };
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(thread, NULL, spawned, sp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		free(sp);
	return rc;
}
