/* SPDX-License-Identifier: MIT */
/* thread.h - per-thread agent state: the thread's ring, its ids, its nesting guard, mode-specific slots.
 *
 * Life cycle and ownership:
 *   emp_thread_attach()  on the thread itself (ThreadStart, VMInit for `main`, or lazily by a trace probe):
 *                        allocates the state and its ring, stores it in the initial-exec TLS slot emp_tls_thread,
 *                        and hands it to the writer through a wait-free queue.
 *   emp_thread_detach()  on the thread itself (ThreadEnd): clears the TLS slot first, so no probe or signal handler
 *                        on this thread can reach the state again, then marks it dead.
 *   emp_thread_new()     for another thread, not through TLS (sample mode, threads=all: the scanner of
 *   emp_thread_retire()  vmthreads.c gives each JVM-internal thread a state, reached by its signal handler
 *                        through a tid map); retire marks it dead once no handler can reach it any more.
 *   writer thread        takes new states from the queue (emp_thread_take_new), drains their rings, and frees a
 *                        state once it is dead and drained.  The writer is the only one that ever frees.  What it
 *                        keeps per thread (the encoder, whether the name was written) is its own (writer.c).
 *
 *   (E) store_release(&t->dead, 1) in emp_thread_detach() pairs with (F) load_acquire in emp_thread_is_dead():
 *       every record the thread committed before dying is visible to the writer once it sees dead == 1.
 *
 * Reading emp_tls_thread is async-signal-safe: initial-exec TLS is a fixed offset from the thread pointer (no
 * __tls_get_addr, no allocation).  design.md §8: keep only pointers in TLS; the state itself is on the heap.
 */
#ifndef EMP_THREAD_H
#define EMP_THREAD_H

#define _LGPL_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <urcu/wfcqueue.h>

#include "ring.h"

struct emp_thread {
	struct emp_ring ring;
	uint32_t id;              /* dump thread id, dense from 0 */
	pid_t tid;                /* OS thread id */
	uint32_t flags;           /* EMP_THREAD_* of dump.h */
	char name[128];           /* set before the state is published, then constant */
	_Atomic int dead;         /* (E)/(F), see above */
	/* 1 when the thread ended having returned from all its Java code (set before (E), read by the writer after
	 * (F)): its calls still open were never closed.  0 for a thread the VM's exit ends inside Java code (the
	 * thread calling System.exit gets its ThreadEnd there) and for threads still running at the end. */
	int ended;
	/* Nesting guard: non-zero while a probe or the signal handler of this thread is inside the producer side.
	 * Only this thread (and the handlers that interrupt it) touch it; a signal fence orders it against the
	 * handler, which runs on the same thread. */
	volatile sig_atomic_t nesting;
	/* trace mode, owned by the thread */
	uint32_t trace_depth;     /* open entries */
	uint32_t trace_skip;      /* onfull=drop: depth whose entry was dropped (its subtree is dropped), 0 = none */
	/* sample mode, owned by the sampler */
	void *sampler;
	void *jni;                /* JNIEnv of this thread, saved at attach for AsyncGetCallTrace */
	/* the hand-off to the writer (thread.c) */
	struct cds_wfcq_node node;
};

/* The calling thread's state, or NULL.  Async-signal-safe to read. */
extern __thread struct emp_thread *emp_tls_thread __attribute__((tls_model("initial-exec")));

/* emp_thread_setup - global init: ring size for new threads.  Call once before any attach. */
void emp_thread_setup(uint64_t ring_bytes);

/* emp_thread_attach - the calling thread's state, created on first call (idempotent: ThreadStart for `main` can
 * arrive twice).  @name may be NULL.  Return: the state, or NULL when out of memory.  Not signal-safe. */
struct emp_thread *emp_thread_attach(const char *name, uint32_t flags, void *jni);

/* emp_thread_detach - the calling thread is ending; see above.  Not signal-safe. */
void emp_thread_detach(void);

/* emp_thread_new - a state for thread @tid (any thread of the process), named @name, with a ring of @ring_bytes
 * (0: the size of emp_thread_setup()), handed to the writer like an attached one; not stored in TLS.
 * Return: the state, or NULL when out of memory.  Not signal-safe. */
struct emp_thread *emp_thread_new(pid_t tid, const char *name, uint32_t flags, uint64_t ring_bytes);
/* emp_thread_retire - nothing will produce into @t any more: mark it dead (E) for the writer's last drain and
 * free.  The caller must make sure no producer can still reach @t. */
void emp_thread_retire(struct emp_thread *t);

/* Writer side. */
/* emp_thread_take_new - the next state handed over since the last call, in hand-over order, or NULL. */
struct emp_thread *emp_thread_take_new(void);
/* emp_thread_writer_tid - the OS thread id of the first caller of emp_thread_take_new() — the writer thread, the
 * only caller — or 0 before its first pass.  The sampler's JVM-thread scanner must not sample emp's own writer,
 * which JVMTI announces to nobody (agent.c skips it). */
pid_t emp_thread_writer_tid(void);
static inline int emp_thread_is_dead(struct emp_thread *t)
{
	/* (F) acquire; pairs with (E) in emp_thread_detach(). */
	return atomic_load_explicit(&t->dead, memory_order_acquire);
}
void emp_thread_free(struct emp_thread *t);

/* emp's own threads (writer, JVM-thread scanner, safepoint poller, wall-clock sampler, duration= timer) are native
 * threads the JVM never sees, so the program cannot either (tests/integration/invisible.sh). */
/* emp_thread_spawn - start @fn(@arg) in a native thread with every signal blocked (it inherits the mask: no
 * process-directed signal — the JVM's, or the itimer engine's SIGPROF — is delivered to it instead of a thread
 * that handles or samples it), which names itself @name (at most 15 characters: its OS name for top, perf and
 * /proc, never a Java view) before it calls @fn.  Return: 0 or an errno value. */
int emp_thread_spawn(pthread_t *thread, const char *name, void *(*fn)(void *), void *arg);

#endif /* EMP_THREAD_H */
