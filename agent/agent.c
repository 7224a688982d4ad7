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
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "clock.h"
#include "counters.h"
#include "dump.h"
#include "gcpause.h"
#include "safepoint.h"
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
	JavaVM *vm;
	/* The hooks of the recording: the mode, then with mode=sample,iteration= the trace mode's iteration-only hooks
	 * (they instrument the iteration method, so its calls leave ENTER/EXIT pairs among the samples).  Every event
	 * goes to each in this order, VMDeath in the reverse one (the iteration probe stops before the sampler). */
	const struct emp_mode_ops *modes[2];
	unsigned nmodes;
	int loaded;
	/* A load reached the modes' onload and then failed: their set-up (handlers, tables) is not undone, so no
	 * second attempt is made in this JVM. */
	int tried;
	/* 1 from a successful load until the recording is stopped (VMDeath, duration=, `emp-attach PID stop`): the
	 * first to clear it stops the modes and the writer.  Relaxed where only read: a thread that still sees 1 arms
	 * itself once more, which the modes' own stop flags turn into nothing. */
	_Atomic int recording;
	/* duration=: a native thread (invisible to the program) that stops the recording when the time is up, or
	 * earlier when `stopped` is signalled; joined by whoever stops the recording, unless it is that thread. */
	pthread_t timer;
	int timer_started;
	pthread_mutex_t timer_lock;
	pthread_cond_t timer_cond;
	int stopped;
	_Atomic int stop_done; /* the stopper finished (dump complete): a later stopper waits for it */
} agent = { .timer_lock = PTHREAD_MUTEX_INITIALIZER };

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
	if (agent.opts.mode == EMP_MODE_OFF || emp_tls_thread ||
	    !atomic_load_explicit(&agent.recording, memory_order_relaxed))
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

/* The recording starts: at VMInit (@thread is `main`), or at once when attached (@thread NULL: the thread running
 * Agent_OnAttach is the JVM's Attach Listener, not one of the program's). */
static void start_recording(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	char value[1024];
	/* sun.java.command is set only after the OnLoad phase.  (java.version is not a VM property at all:
	 * jvm_version in META identifies the JDK.) */
	prop(jvmti, "sun.java.command", value, sizeof(value));
	emp_writer_add_meta("command", value);
	emp_writer_start();
	if (agent.opts.safepoints)
		emp_safepoint_start();
	if (thread)
		attach_thread(jvmti, jni, thread);
	EACH_MODE(m) if ((*m)->vm_init)
		(*m)->vm_init(jvmti, jni, thread);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	start_recording(jvmti, jni, thread);
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	attach_thread(jvmti, jni, thread);
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	struct emp_thread *t = emp_tls_thread;
	if (!t)
		return;
	EACH_MODE(m) if ((*m)->thread_end)
		(*m)->thread_end(jvmti, jni, t);
	/* A thread that ends normally has no Java frame left; the one calling System.exit gets its ThreadEnd from the
	 * VM's exit, inside Java code, and its open calls are cut by the exit, not left open. */
	jint frames = 0;
	t->ended = (*jvmti)->GetFrameCount(jvmti, thread, &frames) == JVMTI_ERROR_NONE && frames == 0;
	emp_thread_detach();
}

/* End the recording (once; later calls return at once): the modes stop producing, in reverse order, then the
 * writer drains, writes END with @reason and closes the dump.  The program goes on.  Any thread: the modes' stop
 * hooks take no JVMTI or JNI (@jni is NULL on the duration timer's native thread). */
static void stop_recording(JNIEnv *jni, const char *reason)
{
	int was = 1;
	/* seq_cst CAS: exactly one stopper; pairs with the other stoppers' CAS. */
	if (!atomic_compare_exchange_strong(&agent.recording, &was, 0)) {
		/* (F) acquire; pairs with (G): VMDeath must not return, and let the JVM exit, while the duration timer
		 * is still finishing the dump. */
		while (agent.loaded && !atomic_load_explicit(&agent.stop_done, memory_order_acquire))
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		return;
	}
	for (unsigned i = agent.nmodes; i-- > 0;)
		if (agent.modes[i]->vm_death)
			agent.modes[i]->vm_death(agent.jvmti, jni);
	/* The program goes on: its classes get their original bytes back (counted in the dump, hence before the
	 * writer stops). */
	if (strcmp(reason, "vm_death") && strcmp(reason, "load_failed"))
		emp_tracer_restore(agent.vm, jni);
	/* A GC pause can be running now (this thread is in native code, which a safepoint does not stop): the dump
	 * gets it whole.  Pauses that start later (the JVM runs on after VMDeath until it exits) are not in it; META
	 * gc_pauses_until_mono_ns says where the dump's pauses end. */
	uint64_t closed;
	if (emp_gcpause_close(2000000000ull, &closed))
		emp_warn("a GC pause was still running 2 s after the recording ended; the dump leaves it out");
	char v[32];
	snprintf(v, sizeof(v), "%llu", (unsigned long long)closed);
	emp_writer_add_meta("gc_pauses_until_mono_ns", v);
	emp_safepoint_stop();
	emp_writer_stop(reason);
	pthread_mutex_lock(&agent.timer_lock);
	agent.stopped = 1;
	if (agent.timer_started)
		pthread_cond_signal(&agent.timer_cond);
	pthread_mutex_unlock(&agent.timer_lock);
	if (agent.timer_started && !pthread_equal(agent.timer, pthread_self()))
		pthread_join(agent.timer, NULL);
	else if (agent.timer_started)
		pthread_detach(pthread_self());
	/* (G) release; pairs with (F). */
	atomic_store_explicit(&agent.stop_done, 1, memory_order_release);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
	(void)jvmti;
	stop_recording(jni, "vm_death");
}

/* duration=: sleep until the time is up or the recording was stopped otherwise.  Every signal blocked (it
 * inherits the mask), so no process-directed signal is delivered to it instead of to the JVM's threads. */
static void *timer_main(void *arg)
{
	(void)arg;
	struct timespec until = emp_ns_timespec(emp_clock_ns(CLOCK_MONOTONIC) + agent.opts.duration_ns);
	int due = 0;
	pthread_mutex_lock(&agent.timer_lock);
	while (!agent.stopped && !due)
		due = pthread_cond_timedwait(&agent.timer_cond, &agent.timer_lock, &until) == ETIMEDOUT;
	pthread_mutex_unlock(&agent.timer_lock);
	if (due)
		stop_recording(NULL, "duration");
	return NULL;
}

static void start_timer(void)
{
	pthread_condattr_t a;
	if (pthread_condattr_init(&a) || pthread_condattr_setclock(&a, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&agent.timer_cond, &a)) {
		emp_warn("duration=: cannot set up the timer; the recording ends with the JVM");
		return;
	}
	pthread_condattr_destroy(&a);
	int rc = emp_thread_spawn(&agent.timer, "emp timer", timer_main, NULL);
	if (rc)
		emp_warn("duration=: cannot start the timer thread (%s); the recording ends with the JVM", strerror(rc));
	else
		agent.timer_started = 1;
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

/* Load at start (Agent_OnLoad, @live 0: the recording starts at VMInit) or into a running JVM (Agent_OnAttach,
 * @live 1: it starts at once, on the threads and classes that exist). */
static jint load(JavaVM *vm, char *options, int live)
{
	char err[512];
	jvmtiEnv *jvmti = NULL;

	if (agent.loaded) {
		emp_error("the agent is already loaded in this JVM; ignoring a second -agentpath");
		return JNI_ERR;
	}
	agent.vm = vm;
	if (emp_options_parse(options, &agent.opts, err, sizeof(err))) {
		emp_error("%s", err);
		return JNI_ERR;
	}
	if (live && emp_options_check_attach(&agent.opts, err, sizeof(err))) {
		emp_error("%s", err);
		return JNI_ERR;
	}
	/* In a running JVM the sampling signal may be taken already (async-profiler, or a libemp.so loaded from
	 * another path, which has state of its own): taking it over would break that one. */
	struct sigaction cur;
	if (live && agent.opts.mode == EMP_MODE_SAMPLE && !sigaction(EMP_SAMPLER_SIGNAL, NULL, &cur) &&
	    cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN) {
		emp_error("attach: %s has a handler already (another profiler in this JVM?); nothing was started",
			  EMP_SAMPLER_SIGNAL_NAME);
		return JNI_ERR;
	}
	if (agent.opts.help) {
		/* stderr, never stdout: the program's output stays the program's.  Then exit(0) here, as the JDK's own
		 * JDWP agent does for -agentlib:jdwp=help: JNI_ERR would make the JVM print "Error occurred during
		 * initialization of VM" and exit 1, and JNI_OK would run the program.  Agent_OnLoad runs before the JVM
		 * creates its heap, its threads or its hsperfdata file (Threads::create_vm loads agents before
		 * vm_init_globals), so there is nothing of the JVM's to clean up; exit() rather than _exit() still
		 * flushes stdio and runs the atexit handlers. */
		fputs(emp_options_help(), stderr);
		fflush(stderr);
		exit(0);
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
	agent.tried = 1;
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
	jvmtiEvent base[] = { JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END,
			      JVMTI_EVENT_VM_INIT };
	/* (VMInit is not an event of the live phase: enabling it after the VM started is refused.) */
	atomic_store_explicit(&agent.recording, 1, memory_order_relaxed);
	for (size_t i = 0; e == JVMTI_ERROR_NONE && i < sizeof(base) / sizeof(base[0]) - (size_t)live; i++)
		e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, base[i], NULL);
	jvmtiEvent gc[] = { JVMTI_EVENT_GARBAGE_COLLECTION_START, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH };
	for (size_t i = 0; gc_events && e == JVMTI_ERROR_NONE && i < sizeof(gc) / sizeof(gc[0]); i++)
		e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, gc[i], NULL);
	if (e != JVMTI_ERROR_NONE) {
		emp_error("cannot enable JVMTI events (error %d)", e);
		atomic_store_explicit(&agent.recording, 0, memory_order_relaxed);
		emp_writer_stop("load_failed");
		return JNI_ERR;
	}
	EACH_MODE(m) if ((*m)->enable && (*m)->enable(jvmti, err, sizeof(err))) {
		emp_error("%s", err);
		atomic_store_explicit(&agent.recording, 0, memory_order_relaxed);
		emp_writer_stop("load_failed");
		return JNI_ERR;
	}
	install_term_handlers();
	agent.loaded = 1;
	emp_writer_add_meta("started_by", live ? "attach" : "agentpath");
	if (live) {
		JNIEnv *jni = NULL;
		if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) != JNI_OK || !jni) {
			emp_error("attach: no JNI environment on the attaching thread");
			stop_recording(NULL, "load_failed");
			return JNI_ERR;
		}
		start_recording(jvmti, jni, NULL);
	}
	if (agent.opts.duration_ns)
		start_timer();
	return JNI_OK;
}

EXPORT JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	return load(vm, options, 0);
}

/* Dynamic attach (`emp-attach PID [options]`, or jcmd PID JVMTI.agent_load): the recording starts at once (see
 * load()).  A JVM records once: a second attach reports the running (or finished) recording instead, and the option
 * string "stop" (`emp-attach PID stop`) finishes the running one.  The return codes are attach.h's. */
EXPORT JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	/* The JVM unloads an agent library whose Agent_OnAttach fails.  A load that failed half-way has left signal
	 * handlers (SIGPROF, and the SIGSEGV guard of agct.c, chained in front of the JVM's) and JVMTI callbacks that
	 * point into this library: it must stay mapped.  RTLD_NODELETE on a reference of our own pins it. */
	Dl_info self;
	if (dladdr((void *)Agent_OnAttach, &self) && self.dli_fname)
		dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
	int recording = atomic_load_explicit(&agent.recording, memory_order_relaxed);
	if (options && !strcmp(options, EMP_ATTACH_STOP)) {
		if (!recording)
			return agent.loaded ? EMP_ATTACH_FINISHED : EMP_ATTACH_NONE;
		JNIEnv *jni = NULL;
		(*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8);
		stop_recording(jni, "stop");
		return JNI_OK;
	}
	if (agent.loaded)
		return recording ? EMP_ATTACH_RUNNING : EMP_ATTACH_FINISHED;
	if (agent.tried)
		return EMP_ATTACH_BROKEN;
	return load(vm, options, 1);
}

EXPORT JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
	(void)vm;
	/* VMDeath has normally stopped the poller and the writer already; this covers a JVM that never reached it. */
	emp_safepoint_stop();
	emp_writer_stop("unload");
}
