/* SPDX-License-Identifier: MIT */
/* agent.c - libemp.so's entry points and life cycle: options, writer, thread states, shutdown paths.
 *
 * Shutdown keeps data (design.md §3):
 *   - VMDeath is posted on a normal end of main, on System.exit, and on SIGTERM/SIGINT/SIGHUP while the JVM's own
 *     handlers are installed (they run the shutdown sequence, which ends in VMDeath): the writer drains and writes
 *     END there.
 *   - With -Xrs the JVM installs no handler for those signals; the ones we install in Agent_OnLoad stay, stop the
 *     writer (async-signal-safe request, bounded wait) and re-raise the signal with its previous disposition.
 *   - SIGKILL: the writer writes complete chunks at least every flush= interval, so the dump reads back up to then.
 */
#include <errno.h>
#include <inttypes.h>
#include <jni.h>
#include <jvmti.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "dump.h"
#include "gcpause.h"
#include "log.h"
#include "modes.h"
#include "options.h"
#include "sink.h"
#include "sampler.h"
#include "symbols.h"
#include "thread.h"
#include "tracer.h"
#include "writer.h"

#define EXPORT __attribute__((visibility("default")))

static struct {
	struct emp_options opts;
	jvmtiEnv *jvmti;
	/* The hooks of the recording: the mode, then with mode=sample,iteration= the trace mode's iteration-only hooks
	 * (they instrument the iteration method, so its calls leave ENTER/EXIT pairs among the samples).  Every event
	 * goes to each in this order, VMDeath in the reverse one (the iteration probe stops before the sampler). */
	const struct emp_mode_ops *modes[2];
	unsigned nmodes;
	int loaded;
} agent;

#define EACH_MODE(m) for (const struct emp_mode_ops *const *m = agent.modes; m < agent.modes + agent.nmodes; m++)

static struct sigaction old_actions[3];
static const int term_signals[3] = { SIGTERM, SIGINT, SIGHUP };

/* Runs only when the JVM did not replace it (-Xrs).  Async-signal-safe: emp_writer_stop_async() is atomics and a
 * futex; the wait is nanosleep; sigaction and raise are on POSIX's list. */
static void on_term_signal(int sig)
{
	emp_writer_stop_async(sig == SIGTERM ? "sigterm" : sig == SIGINT ? "sigint" : "sighup", 5000);
	for (int i = 0; i < 3; i++)
		if (term_signals[i] == sig)
			sigaction(sig, &old_actions[i], NULL);
	raise(sig);
}

static void install_term_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term_signal;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++) {
		struct sigaction cur;
		/* Only where nobody handles the signal yet: never take a signal away from its owner. */
		if (sigaction(term_signals[i], NULL, &cur) || cur.sa_handler != SIG_DFL)
			continue;
		old_actions[i] = cur;
		sigaction(term_signals[i], &sa, NULL);
	}
}

static char *thread_name(jvmtiEnv *jvmti, jthread thread)
{
	jvmtiThreadInfo info;
	memset(&info, 0, sizeof(info));
	if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE)
		return NULL;
	char *name = info.name ? strdup(info.name) : NULL;
	if (info.name)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
	return name;
}

static void attach_thread(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	if (agent.opts.mode == EMP_MODE_OFF || emp_writer_is_current() || emp_tls_thread)
		return;
	char *name = thread_name(jvmti, thread);
	struct emp_thread *t = emp_thread_attach(name, EMP_THREAD_JAVA, jni);
	free(name);
	if (t)
		EACH_MODE(m) if ((*m)->thread_start)
			(*m)->thread_start(jvmti, jni, t);
}

static void prop(jvmtiEnv *jvmti, const char *key, char *out, size_t len)
{
	char *v = NULL;
	snprintf(out, len, "%s", "");
	if ((*jvmti)->GetSystemProperty(jvmti, key, &v) == JVMTI_ERROR_NONE && v) {
		snprintf(out, len, "%s", v);
		(*jvmti)->Deallocate(jvmti, (unsigned char *)v);
	}
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	JavaVM *vm = NULL;
	char value[1024];
	(*jni)->GetJavaVM(jni, &vm);
	/* sun.java.command is set only after the OnLoad phase.  (java.version is not a VM property at all:
	 * jvm_version in META identifies the JDK.) */
	prop(jvmti, "sun.java.command", value, sizeof(value));
	emp_writer_add_meta("command", value);
	emp_writer_start(vm);
	attach_thread(jvmti, jni, thread);
	EACH_MODE(m) if ((*m)->vm_init)
		(*m)->vm_init(jvmti, jni, thread);
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	attach_thread(jvmti, jni, thread);
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	(void)thread;
	struct emp_thread *t = emp_tls_thread;
	if (!t)
		return;
	EACH_MODE(m) if ((*m)->thread_end)
		(*m)->thread_end(jvmti, jni, t);
	emp_thread_detach();
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
	for (unsigned i = agent.nmodes; i-- > 0;)
		if (agent.modes[i]->vm_death)
			agent.modes[i]->vm_death(jvmti, jni);
	emp_writer_stop("vm_death");
}

/* Stop-the-world GC pauses, in every mode (mode=off too: a pause timeline at no profiling cost), for
 * emp-analyze latency.  These callbacks run while the world is stopped, where JNI and most of JVMTI are forbidden:
 * gcpause.c only reads the clock and stores into a fixed array. */
static void JNICALL on_gc_start(jvmtiEnv *jvmti)
{
	(void)jvmti;
	emp_gcpause_start();
}

static void JNICALL on_gc_finish(jvmtiEnv *jvmti)
{
	(void)jvmti;
	emp_gcpause_finish();
}

static const struct emp_mode_ops off_ops = { .name = "off" };

/* Open the sink and write header and META.  Return: 0 or -1 (message in err). */
static int open_dump(jvmtiEnv *jvmti, char *err, size_t errlen)
{
	const struct emp_options *o = &agent.opts;
	char path[4096] = "", pid[24], host[256] = "", start[32], hz[48], ref_ticks[32], ref_mono[32], interval[32];
	char jvm_name[256], jvm_version[128];
	uint64_t mono = emp_clock_ns(CLOCK_MONOTONIC), ticks = emp_clock_ticks(), real = emp_clock_ns(CLOCK_REALTIME);

	if (o->writer == EMP_WRITER_FILE &&
	    emp_options_out_path(o->out, getpid(), (int64_t)(real / 1000000000u), path, sizeof(path))) {
		snprintf(err, errlen, "out=%s: path too long", o->out);
		return -1;
	}
	struct emp_sink *sink;
	if (emp_sink_open(o, path, &sink, err, errlen))
		return -1;
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	gethostname(host, sizeof(host) - 1);
	snprintf(start, sizeof(start), "%" PRIu64, real);
	snprintf(hz, sizeof(hz), "%.3f", emp_clock_hz());
	snprintf(ref_ticks, sizeof(ref_ticks), "%" PRIu64, ticks);
	snprintf(ref_mono, sizeof(ref_mono), "%" PRIu64, mono);
	snprintf(interval, sizeof(interval), "%" PRIu64, o->interval_ns);
	prop(jvmti, "java.vm.name", jvm_name, sizeof(jvm_name));
	prop(jvmti, "java.vm.version", jvm_version, sizeof(jvm_version));
	const char *kv[] = {
		"agent", "emp", "agent_version", EMP_VERSION, "mode", emp_mode_name(o->mode), "options", o->text,
		"writer", emp_writer_name(o->writer), "pid", pid, "hostname", host, "start_realtime_ns", start,
		"clock", emp_clock_name(), "clock_hz", hz, "clock_ref_ticks", ref_ticks, "clock_ref_mono_ns", ref_mono,
		"clock_ref_realtime_ns", start, "jvm_name", jvm_name, "jvm_version", jvm_version,
		"interval_ns", o->mode == EMP_MODE_SAMPLE ? interval : "0",
		"sample_clock", o->mode == EMP_MODE_SAMPLE ? (o->clock == EMP_CLOCK_WALL ? "wall" : "cpu") : "",
	};
	if (emp_writer_open(o, sink, kv, sizeof(kv) / sizeof(kv[0]) / 2, err, errlen)) {
		emp_sink_close(sink);
		return -1;
	}
	emp_info("mode=%s, recording to %s", emp_mode_name(o->mode), emp_sink_describe(sink));
	return 0;
}

static jint load(JavaVM *vm, char *options)
{
	char err[512];
	jvmtiEnv *jvmti = NULL;

	if (agent.loaded) {
		emp_error("the agent is already loaded in this JVM; ignoring a second -agentpath");
		return JNI_ERR;
	}
	if (emp_options_parse(options, &agent.opts, err, sizeof(err))) {
		emp_error("%s", err);
		return JNI_ERR;
	}
	if (agent.opts.help) {
		/* stderr, never stdout: the program's output stays the program's. */
		fputs(emp_options_help(), stderr);
		return JNI_ERR;
	}
	emp_log_set_level(agent.opts.log);
	switch (agent.opts.mode) {
	case EMP_MODE_OFF:
		agent.modes[agent.nmodes++] = &off_ops;
		break;
	case EMP_MODE_SAMPLE:
		agent.modes[agent.nmodes++] = &emp_sampler_ops;
		if (agent.opts.iteration)
			agent.modes[agent.nmodes++] = &emp_tracer_iteration_ops;
		break;
	case EMP_MODE_TRACE:
		agent.modes[agent.nmodes++] = &emp_tracer_ops;
		break;
	}
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK || !jvmti) {
		emp_error("cannot get a JVMTI 1.2 environment from this JVM");
		return JNI_ERR;
	}
	agent.jvmti = jvmti;
	if (emp_clock_init(agent.opts.timesource, 10, err, sizeof(err))) {
		emp_error("%s", err);
		return JNI_ERR;
	}
	emp_thread_setup(agent.opts.ring_bytes);
	emp_symbols_setup();

	jvmtiCapabilities caps;
	jvmtiEventCallbacks cb;
	memset(&caps, 0, sizeof(caps));
	memset(&cb, 0, sizeof(cb));
	cb.VMInit = on_vm_init;
	cb.VMDeath = on_vm_death;
	cb.ThreadStart = on_thread_start;
	cb.ThreadEnd = on_thread_end;
	/* GC events only where the JVM offers them: their absence must not refuse the load. */
	jvmtiCapabilities potential;
	memset(&potential, 0, sizeof(potential));
	int gc_events = (*jvmti)->GetPotentialCapabilities(jvmti, &potential) == JVMTI_ERROR_NONE &&
			potential.can_generate_garbage_collection_events;
	if (gc_events) {
		caps.can_generate_garbage_collection_events = 1;
		cb.GarbageCollectionStart = on_gc_start;
		cb.GarbageCollectionFinish = on_gc_finish;
	} else {
		emp_warn("this JVM cannot report GC pauses; the dump will have none");
	}
	EACH_MODE(m) if ((*m)->onload && (*m)->onload(jvmti, &agent.opts, &caps, &cb, err, sizeof(err))) {
		emp_error("%s", err);
		return JNI_ERR;
	}
	jvmtiError e = (*jvmti)->AddCapabilities(jvmti, &caps);
	if (e != JVMTI_ERROR_NONE) {
		emp_error("the JVM refused the capabilities mode=%s needs (JVMTI error %d)", agent.modes[0]->name, e);
		return JNI_ERR;
	}
	/* The dump is opened last among the checks that can fail, so a refused load leaves no file behind... */
	if (open_dump(jvmti, err, sizeof(err))) {
		emp_error("%s", err);
		return JNI_ERR;
	}
	/* ...and events are enabled only once it exists. */
	e = (*jvmti)->SetEventCallbacks(jvmti, &cb, (jint)sizeof(cb));
	jvmtiEvent base[] = { JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START,
			      JVMTI_EVENT_THREAD_END };
	for (size_t i = 0; e == JVMTI_ERROR_NONE && i < sizeof(base) / sizeof(base[0]); i++)
		e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, base[i], NULL);
	jvmtiEvent gc[] = { JVMTI_EVENT_GARBAGE_COLLECTION_START, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH };
	for (size_t i = 0; gc_events && e == JVMTI_ERROR_NONE && i < sizeof(gc) / sizeof(gc[0]); i++)
		e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, gc[i], NULL);
	if (e != JVMTI_ERROR_NONE) {
		emp_error("cannot enable JVMTI events (error %d)", e);
		emp_writer_stop("load_failed");
		return JNI_ERR;
	}
	EACH_MODE(m) if ((*m)->enable && (*m)->enable(jvmti, err, sizeof(err))) {
		emp_error("%s", err);
		emp_writer_stop("load_failed");
		return JNI_ERR;
	}
	install_term_handlers();
	agent.loaded = 1;
	return JNI_OK;
}

EXPORT JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	return load(vm, options);
}

/* Dynamic attach (jcmd JVMTI.agent_load) is refused: trace mode must see classes as they load, and sample mode keeps
 * its per-thread state in TLS that only the thread itself can set up (at ThreadStart), so the threads already running
 * at attach time could not be sampled — a profile of new threads only would mislead. */
EXPORT JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
	(void)vm;
	(void)options;
	(void)reserved;
	emp_error("emp cannot be attached to a running JVM; start the JVM with -agentpath:libemp.so=...");
	return JNI_ERR;
}

EXPORT JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
	(void)vm;
	/* VMDeath has normally stopped the writer already; this covers a JVM that never reached it. */
	emp_writer_stop("unload");
}
