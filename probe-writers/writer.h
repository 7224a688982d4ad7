/* SPDX-License-Identifier: MIT */
/* writer.h - the writer thread: drains every thread's ring, encodes records into dump chunks, writes them.
 *
 * One writer per JVM.  emp_writer_open() runs on the thread that loads the agent and writes the file header and
 * the first META chunk at once, so a bad out= path fails the agent's load and even a JVM that dies at start-up
 * leaves a readable (truncated) dump.  emp_writer_start() starts the thread; from then on only the writer thread
 * touches the dump encoder.  emp_writer_stop() (VMDeath, or a termination signal) drains what is left, writes the
 * final counters and the END chunk, and closes the sink.
 *
 * Synchronization table:
 *   emp_writer_add_meta      any thread, not signal-safe (mutex)
 *   emp_writer_alive         any thread, async-signal-safe
 *   emp_writer_wake          any thread, async-signal-safe (futex)
 *   emp_writer_wait_pass     a producer whose ring is full, not in a signal handler (blocks on a futex)
 *   emp_writer_stop          VMDeath/Agent_OnUnload; idempotent; not signal-safe
 *   emp_writer_stop_async    a signal handler; async-signal-safe
 */
#ifndef EMP_WRITER_H
#define EMP_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "dump.h"
#include "options.h"

struct emp_sink;

/* Turns one EMP_REC_SAMPLE ring record into a stack of method ids (root first) and the id of the virtual thread the
 * sampled carrier ran (0 none).  Runs on the writer thread, which cannot call JVMTI or JNI (it is not attached to
 * the JVM).  Return: 0, or -1 to drop the record (counted by the decoder itself). */
typedef int (*emp_sample_decode_fn)(const uint8_t *rec, uint32_t size, uint64_t *ticks,
				    enum emp_thread_state *state, uint32_t *frames, uint32_t *depth, uint64_t *vthread);

/* emp_writer_open - create the encoder on @sink (ownership passes to the writer), write header and META.
 * Return: 0, or -1 with a message in @err. */
int emp_writer_open(const struct emp_options *o, struct emp_sink *sink, const char *const *meta_kv, size_t n_meta,
		    char *err, size_t errlen);
void emp_writer_set_sample_decoder(emp_sample_decode_fn fn);
/* emp_writer_start - start the thread: a native thread, never attached to the JVM, so the program cannot see it
 * (Thread.activeCount/enumerate, ThreadMXBean, jcmd Thread.print; tests/integration/invisible.sh). */
int emp_writer_start(void);
/* Queue a META key/value pair; written with the writer's next pass (or at stop). */
void emp_writer_add_meta(const char *key, const char *value);
/* 1 while records are still accepted (between open and stop). */
int emp_writer_alive(void);
/* emp_writer_cpu_ns - the writer thread's CPU time so far, or 0 when it is not running.  For budget= (its caller
 * stops before the writer does). */
uint64_t emp_writer_cpu_ns(void);
/* emp_writer_wake - ask the writer to drain now (a producer found its ring full). */
void emp_writer_wake(void);
/* A producer whose ring is full waits for the writer's next pass: seq = emp_writer_passes(), then one more try at
 * the ring, then emp_writer_wait_pass(seq), which wakes the writer and sleeps until a pass after seq has ended (at
 * most 1 ms; the caller checks emp_writer_alive() around it).  Not for a signal handler or a thread in its Java
 * state: it blocks. */
uint32_t emp_writer_passes(void);
void emp_writer_wait_pass(uint32_t seen);
/* emp_writer_stop - final drain, counters, END, close.  Idempotent.  @reason goes into END ("vm_death", ...): a
 * string with static storage duration (a literal); when several stop requests race, the first names it. */
void emp_writer_stop(const char *reason);
/* emp_writer_stop_async - from a signal handler: ask the writer thread to finish and wait for it at most
 * @timeout_ms.  Async-signal-safe.  Does nothing useful before the writer thread started. */
void emp_writer_stop_async(const char *reason, unsigned timeout_ms);

#endif /* EMP_WRITER_H */
