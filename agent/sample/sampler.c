/* SPDX-License-Identifier: MIT */
/* sampler.c - sample mode: the mode's life cycle, the signal handler and the writer-side decoder.
 * See sampler.h for the path of a sample.
 *
 * Threads.  A Java thread is armed once, on itself, when it gets its state (ThreadStart, VMInit for `main`; a
 * second ThreadStart for the same state is ignored) and disarmed at ThreadEnd, on itself.  Armed threads sit in a
 * registry (a list under a mutex; never touched by the signal handler) that the wall sampler walks and VMDeath
 * disarms.  With threads=all (clock=cpu) the JVM's own threads, which JVMTI does not announce, are found and armed
 * by vmthreads.c's scanner; arming a Java thread first claims its tid there (the take-over rule), and the
 * handler hands a signal on a thread without a Java sampler state to emp_vmthreads_sample().
 *
 * The handler (on_signal) is async-signal-safe: it reads initial-exec TLS, calls AGCT (designed for signal
 * handlers) under the fault guard, libunwind's local unwinder (see native.c), reserves and commits one
 * record in the thread's own ring (lock-free, no allocation), counts with relaxed atomic adds, and re-arms the
 * perf counter with one ioctl.  No locks, no malloc, no stdio, no JNI.  It saves and restores errno.
 *
 * Thread states (clock=wall): the sampler thread, a native thread the JVM does not know, reads each thread's state
 * from the JVM's own fields (emp_vmstructs_thread_state) just before it signals the thread; the handler records
 * that state.  clock=cpu records RUNNING, or NATIVE when the top Java frame is a native method.
 *
 * Iterations (iteration=pkg.Class.method): agent.c adds the trace mode's iteration-only hooks after the sampler's,
 * so every call of that method leaves an ENTER/EXIT pair (symbol flag EMP_METHOD_ITERATION) in the thread's ring
 * among its samples; sample mode itself knows nothing of them.
 */
#include "sampler.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "counters.h"
#include "dump.h"
#include "idcache.h"
#include "log.h"
#include "methods.h"
#include "modes.h"
#include "ring.h"
#include "symbols.h"
#include "vmstructs.h"
#include "writer.h"

static struct {
	jvmtiEnv *jvmti;
	JavaVM *vm;
	enum emp_engine engine;
	uint64_t interval_ns;
	uint32_t depth;
	pthread_mutex_t lock;              /* guards threads */
	struct emp_sampler_thread *threads;
	int wall_started;
	pthread_t wall;                    /* clock=wall: the sampler thread */
	_Atomic int stopping;              /* VMDeath began: the wall sampler ends, no new arming */
	int64_t pseudo[EMP_AGCT_NOUTCOMES]; /* pseudo-frame ids by outcome (-code), 0 = none */
	int64_t pseudo_other, pseudo_crashed, pseudo_unresolved, pseudo_truncated;
	int64_t pseudo_vm[EMP_VM_CATEGORY_COUNT];  /* threads=all: the category roots of JVM-thread samples */
	/* Java methods the VM calls on a thread after its run() returned (Thread.exit, dispatchUncaughtException):
	 * roots of complete walks too.  Set under lock by the first arm() (main, at VMInit), before any thread's
	 * entry is set; a handler reads them only on a thread whose own arm() took the lock afterwards. */
	int exits_done;
	jmethodID thread_run, thread_exit, thread_uncaught;
	/* Thread.sleep's native method (JDK 17: sleep(J)V; JDK 21-24: sleep0(J)V; 25: sleepNanos0(J)V), same rule */
	jmethodID thread_sleep[3];
	jclass thread_class; /* java.lang.Thread (a global reference), same rule */
	jfieldID eetop;      /* Thread.eetop, same rule */
} s = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Time the thread of @st was sampled for, from arming until now (CPU time for the cpu engines). */
static uint64_t sampled_time(const struct emp_sampler_thread *st)
{
	uint64_t now = emp_clock_ns(s.engine == EMP_ENGINE_WALL ? CLOCK_MONOTONIC : st->cpu_clock);
	return now > st->armed_at_ns ? now - st->armed_at_ns : 0;
}

static void count_outcome(int n)
{
	if (n > 0)
		emp_count(EMP_C_AGCT_OK, 1);
	else if (n == EMP_AGCT_CRASHED)
		emp_count(EMP_C_AGCT_CRASHED, 1);
	else if (n > -EMP_AGCT_NOUTCOMES)
		emp_count((enum emp_counter)(EMP_C_AGCT_NO_JAVA_FRAME - n), 1);
	else
		emp_count(EMP_C_AGCT_OTHER, 1);
}

/* Whether the walk of @n > 0 frames in st->frames stopped before the thread's entry.  A thread with a known entry
 * (st->entry) must end in it or in one of the VM's exit upcalls; any other thread (main, threads attached through
 * JNI, plain java.lang.Thread objects, which share Thread.run with attached threads) can only be judged by the depth
 * limit.  Async-signal-safe: it compares words of this thread's own state and constants (see s.exits_done). */
static int walk_truncated(const struct emp_sampler_thread *st, int n)
{
	if (!st->entry)
		return (uint32_t)n >= st->depth;
	jmethodID root = st->frames[n - 1].method_id;
	return root != st->entry && root != s.thread_exit && root != s.thread_uncaught;
}

int emp_sample_record(struct emp_ring *ring, const struct emp_sample_rec *head, const uint64_t *natives,
		      const emp_asgct_frame *java)
{
	uint32_t size = (uint32_t)sizeof(struct emp_sample_rec) + 8u * (head->nnative + head->njava);
	struct emp_sample_rec *rec = emp_ring_reserve(ring, size);
	if (!rec) {
		emp_count(EMP_C_RING_FULL_DROPPED, 1);
		emp_writer_wake();
		return -1;
	}
	*rec = *head;
	rec->hdr = EMP_REC_HDR(EMP_REC_SAMPLE, size);
	uint64_t *p = (uint64_t *)(rec + 1);
	for (unsigned i = 0; i < head->nnative; i++)
		*p++ = natives[i];
	for (uint32_t i = 0; i < head->njava; i++)
		*p++ = (uint64_t)(uintptr_t)java[i].method_id;
	emp_ring_commit(ring);
	emp_count(EMP_C_SAMPLES, 1);
	return 0;
}

/* Whether @m is Thread.sleep's native method.  Async-signal-safe: compares with ids set before any arm. */
static int is_sleep(jmethodID m)
{
	for (size_t i = 0; m && i < sizeof(s.thread_sleep) / sizeof(*s.thread_sleep); i++)
		if (m == s.thread_sleep[i])
			return 1;
	return 0;
}

/* The sample itself; @t->nesting is held.  Async-signal-safe, see the file comment. */
static void take_sample(struct emp_thread *t, struct emp_sampler_thread *st, void *uc)
{
	struct emp_sample_rec head = { .ticks = emp_clock_ticks() };
	uint64_t top_pc;
	int n = emp_agct_walk(st, uc, &top_pc);
	count_outcome(n);
	head.nnative = (uint16_t)emp_native_unwind(uc, st->native, EMP_SAMPLER_MAX_NATIVE);
	head.njava = n > 0 ? (uint32_t)n : 0;
	if (s.engine == EMP_ENGINE_WALL) {
		/* (X) acquire; pairs with (W) in wall_main(). */
		head.state = (uint8_t)atomic_load_explicit(&st->wall_state, memory_order_acquire);
		/* The JVM's fields do not tell Thread.sleep from a park on every JDK (JDK 17 sleeps in a CONDVAR_WAIT):
		 * a waiting thread with Thread.sleep's native method on top sleeps. */
		if (head.state == EMP_STATE_WAITING && n > 0 && is_sleep(st->frames[0].method_id))
			head.state = EMP_STATE_SLEEPING;
	} else
		head.state = head.njava && st->frames[0].lineno == -3 ? EMP_STATE_NATIVE : EMP_STATE_RUNNING;
	head.flags = top_pc ? EMP_SAMPLE_RECOVERED : 0;
	if (n > 0)
		head.njava = (uint32_t)(n = emp_continuation_check(st, n, &head.flags));
	if (n > 0 && !(head.flags & EMP_SAMPLE_TRUNCATED) && walk_truncated(st, n))
		head.flags |= EMP_SAMPLE_TRUNCATED;
	head.agct = n;
	head.top_pc = top_pc;
	head.vthread = emp_continuation_vthread(st);
	emp_sample_record(&t->ring, &head, st->native, st->frames);
}

int emp_sampler_sample_existing(struct emp_thread *t, struct emp_sampler_thread *st, void *uc)
{
	JNIEnv *env = NULL;
	/* GetEnv only reads the JVM's own thread-local pointer to the current JavaThread and its JNIEnv field: no lock,
	 * no allocation, no state transition (async-profiler calls it from its signal handler too).  Hidden JavaThreads
	 * (compiler threads) have an env as well, but vmthreads.c gives frames only to threads not named as the JVM's. */
	if (!s.vm || (*s.vm)->GetEnv(s.vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK || !env)
		return 0;
	t->jni = env; /* read by emp_agct_walk() on this thread only */
	/* A Java thread, to the dump too: the writer reads the flags when it names the thread, at its first record,
	 * so this store comes before the first sample's commit (its release pairs with the writer's acquire of the
	 * ring's head); later samples see the bit clear and store nothing. */
	if (t->flags & EMP_THREAD_VM)
		t->flags = (t->flags & ~(uint32_t)EMP_THREAD_VM) | EMP_THREAD_JAVA;
	take_sample(t, st, uc);
	return 1;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	int saved_errno = errno;
	struct emp_thread *t = emp_tls_thread;
	/* t->sampler was published after *st was complete (arm(): signal fence, then the store), on this thread. */
	struct emp_sampler_thread *st = t ? t->sampler : NULL;
	if (!st) {
		/* A JVM thread armed by the scanner (threads=all), else: itimer signals on threads we do not sample, or
		 * a signal queued just before ThreadEnd disarmed us */
		if (!emp_vmthreads_sample(uc))
			emp_count(EMP_C_NO_THREAD_STATE, 1);
		goto out;
	}
	emp_count(EMP_C_SAMPLE_SIGNALS, 1);
	if (t->nesting) {
		emp_count(EMP_C_REENTRANT, 1);
		goto rearm;
	}
	t->nesting = 1;
	atomic_signal_fence(memory_order_seq_cst);
	if (emp_writer_alive())
		take_sample(t, st, uc);
	else
		emp_count(EMP_C_AFTER_SHUTDOWN, 1);
	atomic_signal_fence(memory_order_seq_cst);
	t->nesting = 0;
rearm:
	emp_engine_rearm(st);
out:
	errno = saved_errno;
}

/* --- class preparation: jmethodIDs must exist before AGCT meets a method (design.md §8) --- */

static void prepare_methods(jvmtiEnv *jvmti, jclass klass)
{
	emp_methods_add_class(jvmti, klass); /* creates the jmethodIDs, and names them for the writer */
}

static void JNICALL on_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
	/* Empty on purpose: AGCT answers no_class_load unless ClassLoad events are enabled. */
	(void)jvmti, (void)jni, (void)thread, (void)klass;
}

static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
	(void)jni, (void)thread;
	prepare_methods(jvmti, klass);
}

/* --- compiled code: which method a recovered sample's PC was in (writer side) ---
 * A recovered re-walk starts at the caller; the method whose prologue/epilogue the PC was in is named from the
 * JIT's CompiledMethodLoad events: a table of [start, end) -> jmethodID, sorted by start, under a mutex (compiler
 * threads add and remove, the writer looks up; never the signal handler). */

struct code {
	uint64_t start, end;
	jmethodID method;
};
static pthread_mutex_t code_lock = PTHREAD_MUTEX_INITIALIZER;
static struct code *codes;
static size_t ncodes, code_cap;

static size_t code_index(uint64_t start)
{
	size_t lo = 0, hi = ncodes;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (codes[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void JNICALL on_compiled_load(jvmtiEnv *jvmti, jmethodID method, jint size, const void *addr, jint nmap,
				     const jvmtiAddrLocationMap *map, const void *compile_info)
{
	(void)jvmti, (void)nmap, (void)map, (void)compile_info;
	uint64_t start = (uint64_t)(uintptr_t)addr;
	pthread_mutex_lock(&code_lock);
	if (ncodes == code_cap) {
		size_t cap = code_cap ? code_cap * 2 : 1024;
		struct code *c = realloc(codes, cap * sizeof(*c));
		if (!c) {
			pthread_mutex_unlock(&code_lock);
			return;
		}
		codes = c;
		code_cap = cap;
	}
	size_t i = code_index(start);
	if (i < ncodes && codes[i].start == start) {
		codes[i].end = start + (uint64_t)size;
		codes[i].method = method;
	} else {
		memmove(codes + i + 1, codes + i, (ncodes - i) * sizeof(*codes));
		codes[i] = (struct code){ start, start + (uint64_t)size, method };
		ncodes++;
	}
	pthread_mutex_unlock(&code_lock);
}

static void JNICALL on_compiled_unload(jvmtiEnv *jvmti, jmethodID method, const void *addr)
{
	(void)jvmti, (void)method;
	uint64_t start = (uint64_t)(uintptr_t)addr;
	pthread_mutex_lock(&code_lock);
	size_t i = code_index(start);
	if (i < ncodes && codes[i].start == start) {
		memmove(codes + i, codes + i + 1, (ncodes - i - 1) * sizeof(*codes));
		ncodes--;
	}
	pthread_mutex_unlock(&code_lock);
}

/* The method compiled at @pc, or NULL (the code was unloaded since, or is not a compiled method). */
static jmethodID code_method(uint64_t pc)
{
	jmethodID m = NULL;
	pthread_mutex_lock(&code_lock);
	size_t i = code_index(pc + 1);
	if (i > 0 && pc < codes[i - 1].end)
		m = codes[i - 1].method;
	pthread_mutex_unlock(&code_lock);
	return m;
}

/* --- arming --- */

/* The jmethodID of @klass's method @name @sig (a static one when @is_static), NULL when @klass is NULL or has none. */
static jmethodID method_id(JNIEnv *jni, jclass klass, int is_static, const char *name, const char *sig)
{
	jmethodID m = NULL;
	if (klass)
		m = is_static ? (*jni)->GetStaticMethodID(jni, klass, name, sig) : (*jni)->GetMethodID(jni, klass, name, sig);
	if ((*jni)->ExceptionCheck(jni)) {
		(*jni)->ExceptionClear(jni); /* NoSuchMethodError: this JDK has no such method */
		m = NULL;
	}
	return m;
}

/* st->entry for the calling thread (see sampler.h): its class's run() when a Thread subclass overrides it; and
 * st->vm_thread.  The lookups that do not depend on the thread (java.lang.Thread, its eetop field, the methods
 * below) are made once, by the first arm(): a program that starts a thread per task pays per thread only for
 * GetCurrentThread, GetObjectClass and one GetLongField (and a GetMethodID for a Thread subclass). */
static void resolve_entry(JNIEnv *jni, struct emp_sampler_thread *st)
{
	jthread self = NULL;
	if (!jni || (*s.jvmti)->GetCurrentThread(s.jvmti, &self) != JVMTI_ERROR_NONE || !self)
		return;
	pthread_mutex_lock(&s.lock);
	if (!s.exits_done) {
		jclass thread = (*jni)->FindClass(jni, "java/lang/Thread");
		if ((*jni)->ExceptionCheck(jni))
			(*jni)->ExceptionClear(jni);
		s.thread_run = method_id(jni, thread, 0, "run", "()V");
		s.thread_exit = method_id(jni, thread, 0, "exit", "()V");
		s.thread_uncaught = method_id(jni, thread, 0, "dispatchUncaughtException", "(Ljava/lang/Throwable;)V");
		s.thread_sleep[0] = method_id(jni, thread, 1, "sleep", "(J)V");
		s.thread_sleep[1] = method_id(jni, thread, 1, "sleep0", "(J)V");
		s.thread_sleep[2] = method_id(jni, thread, 1, "sleepNanos0", "(J)V");
		/* agct.c's recovery reads the JavaThread's frame anchor: its address is the private field Thread.eetop */
		s.eetop = thread ? (*jni)->GetFieldID(jni, thread, "eetop", "J") : NULL;
		if ((*jni)->ExceptionCheck(jni)) {
			(*jni)->ExceptionClear(jni);
			s.eetop = NULL;
		}
		s.thread_class = thread ? (*jni)->NewGlobalRef(jni, thread) : NULL;
		if (thread)
			(*jni)->DeleteLocalRef(jni, thread);
		emp_continuation_init(jni);
		s.exits_done = 1;
	}
	pthread_mutex_unlock(&s.lock);
	if (s.eetop)
		st->vm_thread = (uintptr_t)(*jni)->GetLongField(jni, self, s.eetop);
	jclass klass = (*jni)->GetObjectClass(jni, self);
	if (klass && !(*jni)->IsSameObject(jni, klass, s.thread_class)) {
		jmethodID run = method_id(jni, klass, 0, "run", "()V");
		if (s.thread_run && run != s.thread_run)
			st->entry = run;
	}
	if (klass)
		(*jni)->DeleteLocalRef(jni, klass);
	(*jni)->DeleteLocalRef(jni, self);
}

static void arm(JNIEnv *jni, struct emp_thread *t)
{
	if (t->sampler || atomic_load_explicit(&s.stopping, memory_order_relaxed))
		return; /* the second ThreadStart of `main`, or too late */
	/* threads=all: the scanner leaves this tid alone from now on; if it armed it as a JVM thread (seen before its
	 * ThreadStart, or a native thread attaching through JNI) that stops here, before our engine starts. */
	emp_vmthreads_claim(t->tid);
	struct emp_sampler_thread *st = calloc(1, sizeof(*st));
	emp_asgct_frame *frames = calloc(s.depth, sizeof(*frames));
	if (!st || !frames) {
		free(st);
		free(frames);
		emp_count(EMP_C_SAMPLE_ARM_FAILED, 1);
		return;
	}
	st->t = t;
	st->tid = t->tid;
	st->perf_fd = -1;
	st->depth = s.depth;
	st->frames = frames;
	atomic_store_explicit(&st->wall_state, EMP_STATE_UNKNOWN, memory_order_relaxed);
	if (pthread_getcpuclockid(pthread_self(), &st->cpu_clock))
		st->cpu_clock = CLOCK_THREAD_CPUTIME_ID;
	resolve_entry(jni, st);
	st->armed_at_ns = emp_clock_ns(s.engine == EMP_ENGINE_WALL ? CLOCK_MONOTONIC : st->cpu_clock);
	/* Publish to our own signal handler before the engine can fire (with engine=itimer a process-wide SIGPROF
	 * can land on this thread at any moment, so also before that): the fence orders the initialization of *st
	 * above before the pointer store, as emp_thread_attach() does for emp_tls_thread.  Only this thread's
	 * handler reads t->sampler (through its own TLS), so a compiler fence is enough; it pairs with the handler's
	 * dependent loads through the pointer (on_signal). */
	atomic_signal_fence(memory_order_release);
	t->sampler = st;
	int rc = emp_engine_arm(s.engine, st, s.interval_ns);
	if (rc) {
		emp_count(EMP_C_SAMPLE_ARM_FAILED, 1);
		emp_debug("sampler: cannot arm thread %d (%s): %s", (int)t->tid, t->name, strerror(-rc));
	} else {
		emp_count(EMP_C_SAMPLE_THREADS_ARMED, 1);
	}
	pthread_mutex_lock(&s.lock);
	st->next = s.threads;
	s.threads = st;
	pthread_mutex_unlock(&s.lock);
}

static void disarm(struct emp_thread *t)
{
	struct emp_sampler_thread *st = t->sampler;
	if (!st)
		return;
	emp_vmthreads_release(st->tid);
	pthread_mutex_lock(&s.lock);
	for (struct emp_sampler_thread **pp = &s.threads; *pp; pp = &(*pp)->next)
		if (*pp == st) {
			*pp = st->next;
			break;
		}
	pthread_mutex_unlock(&s.lock);
	emp_engine_disarm(st);
	emp_count(EMP_C_SAMPLE_THREAD_TIME_NS, sampled_time(st));
	/* From here on a late signal finds no sampler state; the fence orders the store before the free. */
	t->sampler = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	free(st->frames);
	free(st);
}

/* --- clock=wall: the sampler thread --- */

/* The wall-clock sampler is a native thread (pthread), which the program cannot see in any view — Thread counts and
 * lists, ThreadMXBean, jcmd Thread.print (tests/integration/invisible.sh).  It needs no JVMTI: each thread's
 * state comes from the JVM's own fields (emp_vmstructs_thread_state), read under s.lock, so the JavaThread cannot
 * end meanwhile (disarm() unlinks it, under the lock, at its ThreadEnd, before the JVM frees it). */
static void *wall_main(void *arg)
{
	(void)arg;
	pid_t pid = getpid();
	uint64_t next = emp_clock_ns(CLOCK_MONOTONIC);
	while (!atomic_load_explicit(&s.stopping, memory_order_acquire)) {
		pthread_mutex_lock(&s.lock);
		for (struct emp_sampler_thread *st = s.threads; st; st = st->next) {
			int state = emp_vmstructs_thread_state(st->vm_thread);
			/* (W) release: the state before the signal that makes the handler read it; pairs with (X). */
			atomic_store_explicit(&st->wall_state, state, memory_order_release);
			syscall(SYS_tgkill, pid, st->tid, EMP_SAMPLER_SIGNAL);
		}
		pthread_mutex_unlock(&s.lock);
		next += s.interval_ns;
		uint64_t now = emp_clock_ns(CLOCK_MONOTONIC);
		if (next < now)
			next = now; /* overrun: skip the missed rounds rather than burst */
		struct timespec ts = emp_ns_timespec(next);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return NULL;
}

/* --- writer side: records into stacks of symbol ids --- */

static struct emp_idcache methods; /* jmethodID -> symbol id */

static int64_t pseudo_id(int64_t *slot, const char *name)
{
	if (!*slot) {
		int64_t id = emp_symbols_add_method(EMP_FRAME_PSEUDO, 0, "", name, "");
		*slot = id < 0 ? 0 : id + 1;
	}
	return *slot - 1;
}

static int64_t outcome_frame(int n)
{
	static const char *const names[] = {
#define EMP_AGCT_NAME(p, code, id, name) [-(code)] = "[" name "]",
		EMP_AGCT_OUTCOMES(EMP_AGCT_NAME, _)
#undef EMP_AGCT_NAME
	};
	if (n == EMP_AGCT_CRASHED)
		return pseudo_id(&s.pseudo_crashed, "[agct_crashed]");
	if (n <= 0 && n > -EMP_AGCT_NOUTCOMES)
		return pseudo_id(&s.pseudo[-n], names[-n]);
	return pseudo_id(&s.pseudo_other, "[agct_other]");
}

/* The writer is never attached to the JVM (the program must not see it): names come from methods.c. */
static int64_t resolve_method(jmethodID m)
{
	const struct emp_method_name *n = emp_methods_find(m);
	return n ? emp_symbols_add_method(EMP_FRAME_JAVA, 0, n->cls, n->name, n->sig) : -1;
}

static int64_t method_frame(uint64_t m)
{
	if (!m) {
		emp_count(EMP_C_SAMPLE_UNRESOLVED, 1);
		return pseudo_id(&s.pseudo_unresolved, "[unknown_method]");
	}
	struct emp_idcache_slot *sl = emp_idcache_lookup(&methods, m);
	if (!sl)
		return -1;
	if (sl->key)
		return sl->id;
	int64_t id = resolve_method((jmethodID)(uintptr_t)m);
	if (id < 0) {
		/* not cached: the same jmethodID may become resolvable (or stay a distinct failure) */
		emp_count(EMP_C_SAMPLE_UNRESOLVED, 1);
		return pseudo_id(&s.pseudo_unresolved, "[unknown_method]");
	}
	emp_idcache_insert(&methods, sl, m, id);
	return id;
}

/* The native frames of @rec root first after frames[0..d), a caller's PC looked up at the call instruction before
 * its return address.  Return: the new depth. */
static uint32_t native_frames(const struct emp_sample_rec *rec, const uint64_t *natives, uint32_t *frames, uint32_t d)
{
	int64_t id;
	for (uint32_t i = rec->nnative; i-- > 0 && d < EMP_MAX_FRAMES;)
		if ((id = emp_native_symbol(i ? natives[i] - 1 : natives[i])) >= 0)
			frames[d++] = (uint32_t)id;
	return d;
}

/* A JVM thread's sample (EMP_SAMPLE_VM): its category as the root, [truncated] when the native walk stopped at its
 * limit (root side missing), then the native frames.  The category comes first so that a profile groups all of a
 * kind's time under one node whatever the walk found. */
static uint32_t decode_vm(const struct emp_sample_rec *rec, const uint64_t *natives, uint32_t *frames)
{
	uint32_t d = 0;
	int64_t id;
	int c = emp_vmthreads_category_name(rec->category) ? rec->category : EMP_VM_NATIVE;
	if ((id = pseudo_id(&s.pseudo_vm[c], emp_vmthreads_category_name(c))) >= 0)
		frames[d++] = (uint32_t)id;
	if (rec->flags & EMP_SAMPLE_TRUNCATED) {
		emp_count(EMP_C_SAMPLE_VM_TRUNCATED, 1);
		if ((id = pseudo_id(&s.pseudo_truncated, "[truncated]")) >= 0)
			frames[d++] = (uint32_t)id;
	}
	return native_frames(rec, natives, frames, d);
}

int emp_sampler_decode(const uint8_t *raw, uint32_t size, uint64_t *ticks, enum emp_thread_state *state,
		       uint32_t *frames, uint32_t *depth, uint64_t *vthread)
{
	const struct emp_sample_rec *rec = (const void *)raw;
	emp_native_refresh(0);
	if (size < sizeof(*rec) || size < sizeof(*rec) + 8u * ((uint64_t)rec->nnative + rec->njava))
		return -1;
	const uint64_t *natives = (const uint64_t *)(rec + 1), *java = natives + rec->nnative;
	uint32_t d = 0;
	int64_t id;
	*ticks = rec->ticks;
	*vthread = rec->vthread;
	*state = rec->state < EMP_STATE_COUNT ? (enum emp_thread_state)rec->state : EMP_STATE_UNKNOWN;
	if (rec->flags & EMP_SAMPLE_VM) {
		*depth = decode_vm(rec, natives, frames);
		return 0;
	}
	if (!rec->njava) {
		if ((id = outcome_frame(rec->agct)) >= 0)
			frames[d++] = (uint32_t)id;
	}
	if (rec->flags & EMP_SAMPLE_CONTINUATION)
		emp_count(EMP_C_SAMPLE_CONTINUATION, 1);
	if (rec->flags & EMP_SAMPLE_CONT_RECOVERED)
		emp_count(EMP_C_SAMPLE_CONT_RECOVERED, 1);
	if (rec->njava && rec->flags & EMP_SAMPLE_TRUNCATED) {
		/* the frames between the thread's entry and the walk's last frame are unknown */
		emp_count(EMP_C_SAMPLE_TRUNCATED, 1);
		if (rec->flags & EMP_SAMPLE_CONT_TRUNCATED)
			emp_count(EMP_C_SAMPLE_CONT_TRUNCATED, 1);
		if ((id = pseudo_id(&s.pseudo_truncated, "[truncated]")) >= 0)
			frames[d++] = (uint32_t)id;
	}
	for (uint32_t i = rec->njava; i-- > 0 && d < EMP_MAX_FRAMES;)
		if ((id = method_frame(java[i])) >= 0)
			frames[d++] = (uint32_t)id;
	if (rec->flags & EMP_SAMPLE_RECOVERED && d < EMP_MAX_FRAMES) {
		/* the re-walk began at the caller: put back the method whose edge the PC was at */
		jmethodID top = code_method(rec->top_pc);
		if (!top)
			emp_count(EMP_C_SAMPLE_RECOVERED_NO_TOP, 1);
		else if ((id = method_frame((uint64_t)(uintptr_t)top)) >= 0)
			frames[d++] = (uint32_t)id;
	}
	*depth = native_frames(rec, natives, frames, d);
	return 0;
}

/* --- the mode --- */

static int sampler_onload(jvmtiEnv *jvmti, const struct emp_options *o, jvmtiCapabilities *caps,
			  jvmtiEventCallbacks *cb, char *err, size_t errlen)
{
	s.jvmti = jvmti;
	caps->can_generate_compiled_method_load_events = 1;
	s.interval_ns = o->interval_ns;
	s.depth = o->depth;
	if (emp_engine_choose(o, &s.engine, err, errlen) || emp_agct_init(err, errlen))
		return -1;
	/* Before the handler is installed: it reads the JVM-thread map. */
	if (o->threads == EMP_THREADS_ALL && emp_vmthreads_setup(s.engine, o->interval_ns, o->ring_bytes, err, errlen))
		return -1;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(EMP_SAMPLER_SIGNAL, &sa, NULL)) {
		snprintf(err, errlen, "mode=sample: cannot install the %s handler: %s", EMP_SAMPLER_SIGNAL_NAME,
			 strerror(errno));
		return -1;
	}
	cb->ClassLoad = on_class_load;
	cb->ClassPrepare = on_class_prepare;
	cb->CompiledMethodLoad = on_compiled_load;
	cb->CompiledMethodUnload = on_compiled_unload;
	emp_writer_set_sample_decoder(emp_sampler_decode);
	char interval[32];
	snprintf(interval, sizeof(interval), "%" PRIu64, o->interval_ns);
	emp_writer_add_meta("sample_engine", emp_engine_name(s.engine));
	emp_writer_add_meta("sample_signal", EMP_SAMPLER_SIGNAL_NAME);
	emp_writer_add_meta("sample_interval_ns", interval);
	emp_writer_add_meta("sample_threads", o->threads == EMP_THREADS_ALL ? "all" : "java");
	emp_info("sampling with %s every %.3f ms (%s)", emp_engine_name(s.engine), (double)o->interval_ns / 1e6,
		 EMP_SAMPLER_SIGNAL_NAME);
	return 0;
}

static int sampler_enable(jvmtiEnv *jvmti, char *err, size_t errlen)
{
	if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, NULL) ||
	    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL) ||
	    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL) ||
	    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, NULL)) {
		snprintf(err, errlen, "mode=sample: cannot enable ClassLoad/ClassPrepare/CompiledMethodLoad events");
		return -1;
	}
	return 0;
}

/* Attach: the Java threads that run already, for vmthreads.c to sample with their Java stacks and names. */
static void java_threads(jvmtiEnv *jvmti)
{
	jint n = 0;
	jthread *threads = NULL;
	char **names = NULL;
	size_t nn = 0;
	if ((*jvmti)->GetAllThreads(jvmti, &n, &threads) == JVMTI_ERROR_NONE && threads) {
		names = calloc((size_t)n, sizeof(*names));
		for (jint i = 0; names && i < n; i++) {
			jvmtiThreadInfo info;
			memset(&info, 0, sizeof(info));
			if ((*jvmti)->GetThreadInfo(jvmti, threads[i], &info) != JVMTI_ERROR_NONE || !info.name)
				continue;
			if ((names[nn] = strdup(info.name)))
				nn++;
			(*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
		}
		(*jvmti)->Deallocate(jvmti, (unsigned char *)threads);
	}
	emp_vmthreads_java_stacks(s.depth, names, nn);
}

static void sampler_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	(*jni)->GetJavaVM(jni, &s.vm);
	emp_native_refresh(1);
	/* Classes loaded before VMInit got no ClassPrepare from us. */
	jint n = 0;
	jclass *classes = NULL;
	if ((*jvmti)->GetLoadedClasses(jvmti, &n, &classes) == JVMTI_ERROR_NONE && classes) {
		for (jint i = 0; i < n; i++) {
			prepare_methods(jvmti, classes[i]);
			(*jni)->DeleteLocalRef(jni, classes[i]);
		}
		(*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
	}
	/* Code compiled before the events were enabled (normally none: they are enabled at load). */
	(*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
	if (s.engine == EMP_ENGINE_ITIMER) {
		int rc = emp_engine_itimer(s.interval_ns);
		if (rc)
			emp_warn("sampler: setitimer failed: %s; no samples will be taken", strerror(-rc));
	}
	if (s.engine == EMP_ENGINE_WALL) {
		int rc = emp_thread_spawn(&s.wall, "emp sampler", wall_main, NULL);
		if (rc)
			emp_warn("sampler: cannot start the wall-clock sampler thread (%s); no samples will be taken",
				 strerror(rc));
		else
			s.wall_started = 1;
	}
	/* threads=all: the scanner's first scan arms the JVM threads that exist now, and after an attach (no @thread)
	 * the Java threads that exist, with their Java stacks. */
	if (!thread)
		java_threads(jvmti);
	emp_vmthreads_start();
	/* `main` was armed by thread_start before this hook (agent.c attaches it first). */
}

static void sampler_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, struct emp_thread *t)
{
	(void)jvmti;
	arm(jni, t);
}

static void sampler_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, struct emp_thread *t)
{
	(void)jvmti, (void)jni;
	disarm(t);
}

static void sampler_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
	(void)jvmti;
	(void)jni;
	atomic_store_explicit(&s.stopping, 1, memory_order_release);
	/* The wall sampler sees `stopping` within one interval (it sleeps one interval between rounds). */
	if (s.wall_started)
		pthread_join(s.wall, NULL);
	if (s.engine == EMP_ENGINE_ITIMER)
		emp_engine_itimer(0);
	/* threads=all: scanner stopped, JVM threads disarmed and handed to the writer for its final drain. */
	emp_vmthreads_stop();
	/* Stop the engines of the threads still alive and count their sampled time; their states stay (the threads
	 * free them at ThreadEnd, if it still comes). */
	pthread_mutex_lock(&s.lock);
	for (struct emp_sampler_thread *st = s.threads; st; st = st->next) {
		emp_engine_disarm(st);
		emp_count(EMP_C_SAMPLE_THREAD_TIME_NS, sampled_time(st));
		st->armed_at_ns = emp_clock_ns(s.engine == EMP_ENGINE_WALL ? CLOCK_MONOTONIC : st->cpu_clock);
	}
	pthread_mutex_unlock(&s.lock);
}

const struct emp_mode_ops emp_sampler_ops = {
	.name = "sample",
	.onload = sampler_onload,
	.enable = sampler_enable,
	.vm_init = sampler_vm_init,
	.thread_start = sampler_thread_start,
	.thread_end = sampler_thread_end,
	.vm_death = sampler_vm_death,
};
