/* SPDX-License-Identifier: MIT */
/* vmstructs.h - HotSpot's description of its own structures (the gHotSpotVM* tables libjvm exports for the
 * serviceability agent), read once at start, and the few questions the stack-walk recovery (agct.c) asks of JIT
 * code with it: which code blob a PC is in, that blob's frame layout, the jmethodID of a compiled method, and a
 * thread's last Java frame.
 *
 * Offsets and field sizes always come from the tables, never from a JDK version: a field this JDK's tables do not
 * list turns the question that needs it off (emp_vmstructs_init says which), and agct.c then keeps AGCT's answer.
 *
 * Every emp_vmstructs_* query reads JVM memory that another thread may be changing (a blob freed, a class unloaded):
 * the caller must hold agct.c's fault guard around it, and the answers are plausibility-checked, not trusted.  The
 * queries are async-signal-safe: plain loads, no locks, no allocation.
 */
#ifndef EMP_VMSTRUCTS_H
#define EMP_VMSTRUCTS_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

/* The code blob around a PC, as far as the recovery needs it.  Offsets are from code_begin. */
struct emp_vm_blob {
	uintptr_t blob;           /* the CodeBlob* */
	const char *name;         /* its name in libjvm ("nmethod", "Interpreter", a stub's name) */
	uintptr_t code_begin, code_end;
	int frame_size;           /* words, including the return address and the saved rbp */
	int frame_complete;       /* offset where the frame is set up (after the prologue), -1 never */
	int is_nmethod;           /* a compiled Java method or a native method's wrapper */
	int is_vtable_stub;       /* a vtable/itable dispatch stub: no frame, the caller's return address at [sp] */
	int is_interpreter;       /* the template interpreter (one blob for all its code) */
	int is_adapter;           /* an i2c/c2i adapter blob: the i2c entry first (called from the interpreter) */
	/* nmethod only (else 0): */
	int verified_entry;       /* offset of the verified entry point (the prologue starts there) */
	int stub;                 /* offset of the stub section (poll/exception/deopt stubs: no frame of their own) */
	uintptr_t method;         /* Method* */
};

/* A thread's last Java frame (the JavaFrameAnchor HotSpot sets when Java code calls into the VM or native code). */
struct emp_vm_anchor {
	int in_vm;                /* the thread is in the VM (_thread_in_vm): no other thread walks its stack now */
	uintptr_t sp, fp, pc;     /* _last_Java_sp/_fp/_pc: sp 0 = no Java frame; pc 0 = not yet walkable */
	uintptr_t *sp_slot, *fp_slot, *pc_slot; /* their addresses */
};

/* emp_vmstructs_init - read the tables of the libjvm in this process (Agent_OnLoad; libjvm is loaded).  Never fails:
 * the queries whose fields are missing are off, and the first missing field is named in @what (else "").  Return:
 * 1 when the code-blob queries are on (emp_vmstructs_method_id may still be off: it then answers NULL), else 0. */
int emp_vmstructs_init(char *what, size_t whatlen);
/* emp_vmstructs_init_with - as emp_vmstructs_init, with the tables' symbols found by @lookup instead of dlsym (the
 * unit tests hand it tables of their own). */
int emp_vmstructs_init_with(void *(*lookup)(const char *name), char *what, size_t whatlen);
/* emp_vmstructs_in_code - whether @pc lies in the code cache's reserved range (false when the tables lack it). */
int emp_vmstructs_in_code(uintptr_t pc);
/* emp_vmstructs_blob - the code blob containing @pc into *@b (a segment-map lookup in the CodeHeap holding @pc).
 * Return: 0; -1 @pc is not in a used blob (or the lookup is off). */
int emp_vmstructs_blob(uintptr_t pc, struct emp_vm_blob *b);
/* emp_vmstructs_method_id - the jmethodID of @method (Method*) from its class's jmethodID cache, or NULL when the
 * class has none for it yet, when @method is not one of its class's current methods (a garbage pointer, an old
 * version of a redefined method), or when the lookup is off.  sampler.c creates the jmethodIDs of every prepared
 * class. */
jmethodID emp_vmstructs_method_id(uintptr_t method);

/* emp_vmstructs_interpreter_sender_sp - frame::interpreter_frame_sender_sp_offset (words from an interpreted frame's
 * rbp to the slot holding its caller's sp), or 0 when the tables lack it. */
int emp_vmstructs_interpreter_sender_sp(void);
/* emp_vmstructs_is_call_stub_return - whether @pc is where Java code called by the VM (JavaCalls, through the call
 * stub: an entry frame) returns to; false when the tables lack StubRoutines::_call_stub_return_address. */
int emp_vmstructs_is_call_stub_return(uintptr_t pc);
/* emp_vmstructs_anchor - the frame anchor of the JavaThread @thread (java.lang.Thread.eetop) into *@a.  Return: 0,
 * or -1 when the tables lack the fields. */
int emp_vmstructs_anchor(uintptr_t thread, struct emp_vm_anchor *a);
/* emp_vmstructs_thread_state - the EMP_STATE_* (dump.h) of the live JavaThread @thread as the JVM itself keeps it
 * (OSThread::_state, JavaThread::_thread_state): BLOCKED, SLEEPING, WAITING (Object.wait, park), NATIVE or
 * RUNNING; EMP_STATE_UNKNOWN when the tables lack the fields or @thread is 0.  Plain loads, no JVMTI: callable from
 * a thread the JVM does not know, as long as @thread cannot end meanwhile. */
int emp_vmstructs_thread_state(uintptr_t thread);

/* Continuations (continuation.c).  The queries below answer only on a JVM whose tables have every field they need
 * and whose nmethods keep their debug information in the immutable data and their metadata after the relocations
 * in the mutable data (JDK 24+; JDK 21-23 lay nmethods out otherwise): emp_vmstructs_cont_ok() says so. */
int emp_vmstructs_cont_ok(void);
/* emp_vmstructs_flag - the value of the bool VM flag @name (JVMFlag::flags).  Not for the signal handler (it
 * compares names).  Return: 0, or -1 when there is no such flag. */
int emp_vmstructs_flag(const char *name, int *value);
/* emp_vmstructs_narrow_oops - CompressedOops' base and shift (set once the heap is reserved: read them at VMInit). */
void emp_vmstructs_narrow_oops(uintptr_t *base, int *shift);
/* emp_vmstructs_instance_size - the instance size in bytes of the class whose java.lang.Class object is at
 * @mirror (Klass::_layout_helper), or -1. */
int64_t emp_vmstructs_instance_size(uintptr_t mirror);
/* emp_vmstructs_interpreter_method, _locals - the word offsets from an interpreted frame's rbp of its Method* and
 * of its locals pointer (x86-64 frame_x86.hpp: method is one below last_sp, locals five below; 0 when off). */
int emp_vmstructs_interpreter_method(void);
int emp_vmstructs_interpreter_locals(void);
/* emp_vmstructs_thread_oop - the java.lang.Thread of the JavaThread @thread (@vthread 0: JavaThread::_threadObj,
 * the carrier's own; 1: _vthread, the mounted virtual thread, or the thread itself when none is mounted), 0 when
 * off.  Plain pointers (OopHandle slots hold uncompressed oops). */
uintptr_t emp_vmstructs_thread_oop(uintptr_t thread, int vthread);
/* emp_vmstructs_scopes - the Java methods (Method*, innermost inlined first) of compiled method @b at the return
 * address @pc of its frame at @sp (a deoptimized frame's original pc is found there), from its PcDesc at that pc and
 * its scope descriptors, into @methods.  Return: how many (1..@max), or -1 (no PcDesc at @pc, bad debug
 * information, deeper than @max, or off). */
int emp_vmstructs_scopes(const struct emp_vm_blob *b, uintptr_t pc, uintptr_t sp, uintptr_t *methods, int max);

#endif /* EMP_VMSTRUCTS_H */
