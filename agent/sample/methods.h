/* SPDX-License-Identifier: MIT */
/* methods.h - the names of the methods of every class sample mode prepares, taken on the thread that prepares the
 * class (a Java thread, inside a JVMTI callback), so that the writer, a native thread the program cannot see and
 * that is never attached to the JVM, names sampled jmethodIDs without calling JVMTI.
 *
 * Why not let the writer call JVMTI: JVMTI's GetMethodName and friends need a thread attached to the JVM, and an
 * attached thread is visible to the program (Thread.activeCount/enumerate, ThreadMXBean counts and ids, jcmd
 * Thread.print; attaching even for a moment takes a thread id, so the program's later threads get other ids).
 *
 * Entries are never removed (HotSpot never reuses a jmethodID, not even after its class is unloaded) and never
 * change once added, so a found entry stays valid for the life of the process.
 *   emp_methods_add_class   any Java thread in a JVMTI callback or VMInit; not signal-safe (mutex, malloc)
 *   emp_methods_find        any thread; not signal-safe (mutex) */
#ifndef EMP_METHODS_H
#define EMP_METHODS_H

#include <jvmti.h>
#include <stddef.h>

struct emp_method_name {
	const char *cls;  /* binary name with slashes, "pkg/Cls" */
	const char *name; /* "run" */
	const char *sig;  /* "(I)V" */
};

/* emp_methods_add_class - create the jmethodIDs of @klass's methods (AsyncGetCallTrace needs them to exist before
 * it meets a method) and remember their names.  A class whose names cannot be read, or memory that runs out, leaves
 * its methods unnamed (the writer shows [unknown_method] and counts sample_unresolved). */
void emp_methods_add_class(jvmtiEnv *jvmti, jclass klass);

/* emp_methods_find - @m's names.  Return: the entry (valid for the life of the process), or NULL when unknown. */
const struct emp_method_name *emp_methods_find(jmethodID m);

#endif /* EMP_METHODS_H */
