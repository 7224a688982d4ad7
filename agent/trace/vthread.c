/* SPDX-License-Identifier: MIT */
/* vthread.c - trace mode on virtual threads; see vthread.h.
 *
 * A JVMTI environment of our own, got at VMInit: its callbacks (SetEventCallbacks replaces a whole set, and the
 * agent's set, built with the JDK 17 headers, has no VirtualThreadEnd slot), its capability can_support_virtual_threads
 * (which makes the JVM post the virtual-thread events at all) and its thread-local storage on virtual threads (the
 * pointer to each one's state) stay apart from the agent's environment. */
#include "vthread.h"

#include <jvmti.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "dump.h"
#include "log.h"

static struct {
	jvmtiEnv *jvmti;
	jfieldID tid; /* java.lang.Thread.tid (the value of threadId()), or NULL */
} vt;

/* While a virtual thread is mounted on this carrier: 1, and the carrier's own state set aside (NULL when it has
 * none).  Only this carrier's mount/unmount/end callbacks and its probes' slow path touch them. */
static __thread int mounted;
static __thread struct emp_thread *carrier_state;

/* jvmtiCapabilities.can_support_virtual_threads (JVMTI 21) is the bit after can_generate_sampled_object_alloc_events:
 * bit 4 of byte 5.  Named when emp is built with JDK 21+ headers, by position with older ones (JDK 17, where the bit
 * is padding: GetPotentialCapabilities reports it 0 there). */
static int cap_virtual_threads(jvmtiCapabilities *c, int set)
{
#ifdef JVMTI_VERSION_21
	if (set)
		c->can_support_virtual_threads = 1;
	return c->can_support_virtual_threads;
#else
	unsigned char *p = (unsigned char *)c;
	if (set)
		p[5] |= 0x10;
	return (p[5] & 0x10) != 0;
#endif
}

/* jvmtiEventCallbacks up to slot 88 (VirtualThreadEnd), whatever headers emp is built with. */
typedef void(JNICALL *vthread_event)(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread);
#ifdef JVMTI_VERSION_21
typedef jvmtiEventCallbacks callbacks21;
#else
typedef struct {
	jvmtiEventCallbacks base; /* slots 50 .. 86 */
	vthread_event VirtualThreadStart; /* 87 */
	vthread_event VirtualThreadEnd;   /* 88 */
} callbacks21;
#endif
#define EVENT_VIRTUAL_THREAD_END ((jvmtiEvent)88)

static void JNICALL on_mount(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread)
{
	(void)jni;
	void *v = NULL;
	if (mounted || (*jvmti)->GetThreadLocalStorage(jvmti, vthread, &v) != JVMTI_ERROR_NONE)
		v = NULL;
	if (!mounted) {
		carrier_state = emp_tls_thread;
		mounted = 1;
	}
	/* No probe runs on this carrier now (the JVM is between two Java frames of its own); the fence only keeps the
	 * compiler from moving the store across the flag above. */
	atomic_signal_fence(memory_order_seq_cst);
	emp_tls_thread = v;
}

static void unmount(void)
{
	if (!mounted)
		return;
	emp_tls_thread = carrier_state;
	atomic_signal_fence(memory_order_seq_cst);
	carrier_state = NULL;
	mounted = 0;
}

static void JNICALL on_unmount(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread)
{
	(void)jvmti;
	(void)jni;
	(void)vthread;
	unmount();
}

/* The virtual thread terminates.  Its state is retired whether the JVM posts this before its last unmount (on the
 * virtual thread, still mounted) or after it (on the carrier). */
static void JNICALL on_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread)
{
	(void)jni;
	void *v = NULL;
	if ((*jvmti)->GetThreadLocalStorage(jvmti, vthread, &v) != JVMTI_ERROR_NONE || !v) {
		if (mounted && !emp_tls_thread)
			unmount();
		return;
	}
	if (mounted && emp_tls_thread == v)
		unmount();
	(*jvmti)->SetThreadLocalStorage(jvmti, vthread, NULL);
	((struct emp_thread *)v)->ended = 1; /* its task returned (System.exit would end no virtual thread) */
	emp_thread_retire(v);
}

/* Find the extension events VirtualThreadMount and VirtualThreadUnmount and set their callbacks (which enables
 * them).  Return: 0, or -1 when either is missing or refused. */
static int set_mount_events(jvmtiEnv *jvmti)
{
	static const struct {
		const char *id;
		vthread_event fn;
	} want[] = { { "com.sun.hotspot.events.VirtualThreadMount", on_mount },
		     { "com.sun.hotspot.events.VirtualThreadUnmount", on_unmount } };
	jint n = 0;
	jvmtiExtensionEventInfo *ev = NULL;
	if ((*jvmti)->GetExtensionEvents(jvmti, &n, &ev) != JVMTI_ERROR_NONE)
		return -1;
	int found = 0;
	for (jint i = 0; i < n; i++) {
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			if (ev[i].id && !strcmp(ev[i].id, want[k].id) &&
			    (*jvmti)->SetExtensionEventCallback(jvmti, ev[i].extension_event_index,
								(jvmtiExtensionEvent)(void (*)(void))want[k].fn) ==
				    JVMTI_ERROR_NONE &&
			    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
							       (jvmtiEvent)ev[i].extension_event_index,
							       NULL) == JVMTI_ERROR_NONE)
				found++;
		for (jint j = 0; j < ev[i].param_count; j++)
			(*jvmti)->Deallocate(jvmti, (unsigned char *)ev[i].params[j].name);
		(*jvmti)->Deallocate(jvmti, (unsigned char *)ev[i].params);
		(*jvmti)->Deallocate(jvmti, (unsigned char *)ev[i].id);
		(*jvmti)->Deallocate(jvmti, (unsigned char *)ev[i].short_description);
	}
	(*jvmti)->Deallocate(jvmti, (unsigned char *)ev);
	return found == 2 ? 0 : -1;
}

int emp_vthread_start(JNIEnv *jni)
{
	JavaVM *vm = NULL;
	jvmtiEnv *jvmti = NULL;
	jint version = 0;
	if ((*jni)->GetJavaVM(jni, &vm) || (*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK || !jvmti)
		return -1;
	jvmtiCapabilities pot, caps;
	memset(&pot, 0, sizeof(pot));
	memset(&caps, 0, sizeof(caps));
	if ((*jvmti)->GetVersionNumber(jvmti, &version) != JVMTI_ERROR_NONE ||
	    (version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR < 21 ||
	    (*jvmti)->GetPotentialCapabilities(jvmti, &pot) != JVMTI_ERROR_NONE || !cap_virtual_threads(&pot, 0)) {
		(*jvmti)->DisposeEnvironment(jvmti);
		return 0; /* no virtual threads here */
	}
	cap_virtual_threads(&caps, 1);
	callbacks21 cb;
	memset(&cb, 0, sizeof(cb));
	cb.VirtualThreadEnd = on_end;
	jvmtiError e = (*jvmti)->AddCapabilities(jvmti, &caps);
	if (e == JVMTI_ERROR_NONE)
		e = (*jvmti)->SetEventCallbacks(jvmti, (jvmtiEventCallbacks *)(void *)&cb, (jint)sizeof(cb));
	if (e == JVMTI_ERROR_NONE)
		e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, EVENT_VIRTUAL_THREAD_END, NULL);
	if (e != JVMTI_ERROR_NONE || set_mount_events(jvmti)) {
		emp_warn("the JVM refused the virtual-thread events (JVMTI error %d): calls on virtual threads are "
			 "traced per carrier thread, and their traces are wrong",
			 e);
		(*jvmti)->DisposeEnvironment(jvmti);
		return -1;
	}
	jclass thread = (*jni)->FindClass(jni, "java/lang/Thread");
	vt.tid = thread ? (*jni)->GetFieldID(jni, thread, "tid", "J") : NULL;
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	if (thread)
		(*jni)->DeleteLocalRef(jni, thread);
	vt.jvmti = jvmti;
	emp_info("virtual threads: each has its own trace state");
	return 1;
}

int emp_vthread_mounted(void)
{
	return mounted;
}

struct emp_thread *emp_vthread_attach(JNIEnv *jni)
{
	jthread thr = NULL;
	if (!mounted || !vt.jvmti || (*vt.jvmti)->GetCurrentThread(vt.jvmti, &thr) != JVMTI_ERROR_NONE || !thr)
		return NULL;
	char name[128] = "";
	jvmtiThreadInfo info;
	memset(&info, 0, sizeof(info));
	if ((*vt.jvmti)->GetThreadInfo(vt.jvmti, thr, &info) == JVMTI_ERROR_NONE && info.name) {
		snprintf(name, sizeof(name), "%s", info.name);
		(*vt.jvmti)->Deallocate(vt.jvmti, (unsigned char *)info.name);
	}
	if (info.thread_group)
		(*jni)->DeleteLocalRef(jni, info.thread_group);
	if (info.context_class_loader)
		(*jni)->DeleteLocalRef(jni, info.context_class_loader);
	if (!name[0]) /* unnamed, as most are: the id jcmd Thread.dump_to_file shows */
		snprintf(name, sizeof(name), "virtual #%lld", vt.tid ? (long long)(*jni)->GetLongField(jni, thr, vt.tid) : -1LL);
	struct emp_thread *t = emp_thread_new(0, name, EMP_THREAD_JAVA | EMP_THREAD_VIRTUAL, EMP_VTHREAD_RING_BYTES);
	if (t && (*vt.jvmti)->SetThreadLocalStorage(vt.jvmti, thr, t) != JVMTI_ERROR_NONE) {
		emp_thread_retire(t); /* the writer frees it; the calls of this thread are not traced */
		t = NULL;
	}
	(*jni)->DeleteLocalRef(jni, thr);
	if (t)
		emp_tls_thread = t;
	return t;
}
