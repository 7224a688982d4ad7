/* SPDX-License-Identifier: MIT */
/* modes.h - what a recording mode plugs into the agent's life cycle (agent.c).
 *
 * agent.c owns Agent_OnLoad, the writer, thread states and the VMInit/VMDeath/ThreadStart/ThreadEnd events; a mode
 * adds capabilities and callbacks of its own and is told about those events.  Every hook may be NULL. */
#ifndef EMP_MODES_H
#define EMP_MODES_H

#include <jvmti.h>
#include <stddef.h>

#include "options.h"
#include "thread.h"

struct emp_mode_ops {
	const char *name;
	/* Agent_OnLoad: check @o, add capabilities to @caps and callbacks to @cb (not VMInit, VMDeath, ThreadStart,
	 * ThreadEnd: those are agent.c's).  Return: 0, or -1 with a one-line message in @err (the agent then refuses
	 * to load). */
	int (*onload)(jvmtiEnv *jvmti, const struct emp_options *o, jvmtiCapabilities *caps,
		      jvmtiEventCallbacks *cb, char *err, size_t errlen);
	/* After the capabilities were granted and the callbacks set: enable the mode's events.  Return: 0 or -1. */
	int (*enable)(jvmtiEnv *jvmti, char *err, size_t errlen);
	/* VMInit, after the writer thread started and `main` got its thread state. */
	void (*vm_init)(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);
	/* A Java thread got its state (ThreadStart, or VMInit for the thread running it). */
	void (*thread_start)(jvmtiEnv *jvmti, JNIEnv *jni, struct emp_thread *t);
	/* A Java thread is ending; its state is detached right after. */
	void (*thread_end)(jvmtiEnv *jvmti, JNIEnv *jni, struct emp_thread *t);
	/* VMDeath, before the writer's final drain: stop producing (disarm timers, ...). */
	void (*vm_death)(jvmtiEnv *jvmti, JNIEnv *jni);
};

#endif /* EMP_MODES_H */
