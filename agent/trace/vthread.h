/* SPDX-License-Identifier: MIT */
/* vthread.h - trace mode on virtual threads (JDK 21+): each virtual thread has a trace state of its own (ring, open
 * calls, dropped subtree) that moves with it from carrier to carrier.
 *
 * A virtual thread runs on a carrier (an OS thread of its scheduler) between a mount and an unmount, and may resume
 * on another carrier after each park, sleep or yield, in the middle of open traced calls.  The probes find their
 * state in the carrier's TLS slot emp_tls_thread; the JVMTI events VirtualThreadMount and VirtualThreadUnmount
 * (HotSpot extension events) put the virtual thread's state into that slot and set the carrier's own aside, and
 * VirtualThreadEnd retires it.  The probes' fast path is unchanged: it reads the slot, as for a platform thread.
 * A virtual thread gets its state at its first traced call (emp_vthread_attach() from the probe's slow path), kept
 * in JVMTI thread-local storage of the virtual thread, so virtual threads that run no traced code cost one event
 * per mount and unmount and no memory.  Each state is its own dump thread (flags EMP_THREAD_JAVA |
 * EMP_THREAD_VIRTUAL, named by the thread's name or `virtual #<Thread.threadId()>`) with a 64 KiB ring, so a
 * virtual thread's trace is complete and in program order whatever carriers ran it.
 *
 * Handing the ring from carrier to carrier: only the mounted carrier produces into a virtual thread's ring, and the
 * JVM's own hand-over of the virtual thread (the unmount on one carrier happens-before its mount on the next, through
 * the scheduler's queue and the continuation's state CAS) orders its producer-side ring fields.
 *
 * On a JVM without virtual threads (JDK 17) emp_vthread_start() does nothing and emp_vthread_mounted() is 0. */
#ifndef EMP_VTHREAD_H
#define EMP_VTHREAD_H

#include <jni.h>

#include "thread.h"

/* Ring of a virtual thread's state (thousands may be alive at once; a platform thread's is ringsize=). */
#define EMP_VTHREAD_RING_BYTES (64u << 10)

/* emp_vthread_start - at VMInit, before any virtual thread can run: get a JVMTI environment of our own with the
 * virtual-thread capability, the mount/unmount extension events and VirtualThreadEnd.  Return: 1 when virtual
 * threads are followed, 0 when this JVM has none (JDK 20 and older: nothing done), -1 when it has them but refused
 * what is needed (logged; traces of code on virtual threads are then per carrier). */
int emp_vthread_start(JNIEnv *jni);

/* emp_vthread_mounted - is a virtual thread mounted on the calling carrier (emp_tls_thread is then its state, or
 * NULL before its first traced call)?  Probe slow path only. */
int emp_vthread_mounted(void);

/* emp_vthread_attach - a state for the virtual thread mounted on the calling carrier, installed in emp_tls_thread.
 * Return: the state, or NULL (out of memory, or JVMTI refused; counted by the caller).  Probe slow path only. */
struct emp_thread *emp_vthread_attach(JNIEnv *jni);

#endif /* EMP_VTHREAD_H */
