/* SPDX-License-Identifier: MIT */
/* gcpause.h - pauses of the whole JVM on their way to the dump: stop-the-world GC pauses (JVMTI
 * GarbageCollectionStart/Finish) and safepoint pauses (safepoint.h's poller).
 *
 * Each producer has an array of its own (one producer per array).  GC producer: the two JVMTI GC callbacks, which agent.c enables in every mode.  HotSpot posts both from the thread
 * that runs the pause while the world is stopped, and pauses never overlap, so there is one producer at a time
 * and a start always precedes its finish.  The callbacks run in a restricted context (no JNI, almost no JVMTI; the
 * world is stopped, so a lock held by a stopped thread would deadlock): the producer side reads the clock and
 * stores into a fixed array with two atomics, no lock, no allocation.  Safepoint producer: the poller thread of
 * safepoint.c.  Consumer of both: the writer thread.
 *
 *   producer (GC callback)                  consumer (writer thread)
 *   (A) tail = load_acquire(&tail)          (C) head = load_acquire(&head)
 *       write slot head % N                     read slots tail .. head
 *   (B) store_release(&head, head + 1)      (D) store_release(&tail, head)
 *
 *   (B) pairs with (C): the writer sees a slot's pause once it sees the head that covers it.
 *   (D) pairs with (A): the producer reuses a slot only after the writer has read it.
 * A full array (the writer did not drain for EMP_GCPAUSE_SLOTS pauses) drops the pause and counts it
 * (lost_gc_pause_full, lost_safepoint_pause_full). */
#ifndef EMP_GCPAUSE_H
#define EMP_GCPAUSE_H

#include <stddef.h>
#include <stdint.h>

#include "dump.h"

#define EMP_GCPAUSE_SLOTS 256

/* GarbageCollectionStart / GarbageCollectionFinish: lock-free, allocation-free, async-signal-safe. */
void emp_gcpause_start(void);
void emp_gcpause_finish(void);

/* emp_gcpause_close - the recording ends: no GC pause opens from now on, and one that is open (the world stopped
 * while the thread ending the recording runs in native code) is waited for, up to @timeout_ns, so that it is in
 * the dump whole.  The dump then holds exactly the pauses that started before *@closed_mono_ns (CLOCK_MONOTONIC,
 * set at the close).  Call once, before the writer's final drain.  Return: 0, or -1 when a pause was still open
 * at the timeout (it is then left out). */
int emp_gcpause_close(uint64_t timeout_ns, uint64_t *closed_mono_ns);

/* emp_gcpause_finished - GC pauses finished so far (kept or dropped).  Any thread; a relaxed statistic. */
uint64_t emp_gcpause_finished(void);

/* emp_gcpause_safepoint - hand a safepoint pause (EMP_PAUSE_SAFEPOINT*) to the writer.  The poller thread only. */
void emp_gcpause_safepoint(const struct emp_pause *p);

/* emp_gcpause_drain - move up to @max pauses into @out: the GC pauses, then the safepoint pauses, each kind oldest
 * first.  Writer thread only.  Return: how many. */
size_t emp_gcpause_drain(struct emp_pause *out, size_t max);

#endif /* EMP_GCPAUSE_H */
