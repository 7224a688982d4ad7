/* SPDX-License-Identifier: MIT */
/* sampler.h - sample mode (mode=sample): what sampler.c and its helpers in agent/sample (engine.c, agct.c,
 * native.c, vmthreads.c, tidmap.c) share.  The mode itself is emp_sampler_ops, hooks of modes.h.
 *
 * Path of one sample:
 *   engine (engine.c)          a timer signal (SIGPROF) on the thread to sample: perf_event CPU clock, a
 *                              thread-CPU-clock POSIX timer, setitimer(ITIMER_PROF), or tgkill by the wall sampler
 *   handler (sampler.c)        AsyncGetCallTrace guarded against faults, with unknown_Java recovery
 *                              (agct.c, using the JVM's structure tables: vmstructs.c), a virtual thread's frames still
 *                              in its stack chunks and the virtual thread a carrier runs (continuation.c), native
 *                              frames by libunwind (native.c), one ring record;
 *                              on a JVM-internal thread (threads=all) native frames only (vmthreads.c)
 *   writer thread (sampler.c)  the decoder turns the record into a stack of symbol ids: jmethodIDs named from
 *                              methods.c's table (filled at class preparation), native PCs with dladdr, failures
 *                              into pseudo-frames
 */
#ifndef EMP_SAMPLER_H
#define EMP_SAMPLER_H

#include <jvmti.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "dump.h"
#include "modes.h"
#include "outcomes.h"
#include "options.h"
#include "thread.h"

extern const struct emp_mode_ops emp_sampler_ops;

/* The signal every engine delivers.  HotSpot uses SIGSEGV, SIGBUS, SIGFPE, SIGILL (implicit checks, polls),
 * SIGQUIT (thread dumps), SIGUSR2 (suspend/resume on some JDKs, _JAVA_SR_SIGNUM), SIGHUP/SIGINT/SIGTERM
 * (shutdown) and ignores SIGPIPE/SIGXFSZ; it never uses SIGPROF.  setitimer(ITIMER_PROF) can deliver only SIGPROF,
 * so one signal serves every engine.  Not to be combined with another SIGPROF user in the same JVM
 * (async-profiler's cpu/itimer modes, JDK 25's experimental JFR jdk.CPUTimeSample). */
#define EMP_SAMPLER_SIGNAL SIGPROF
#define EMP_SAMPLER_SIGNAL_NAME "SIGPROF"

/* AsyncGetCallTrace's interface (HotSpot forte.cpp; not in any JDK header). */
typedef struct {
	jint lineno; /* bci, or -3 for a native method */
	jmethodID method_id;
} emp_asgct_frame;
typedef struct {
	JNIEnv *env_id;
	jint num_frames; /* > 0 frames, <= 0 an outcome code (EMP_AGCT_OUTCOMES) */
	emp_asgct_frame *frames;
} emp_asgct_trace;

/* AGCT's outcome codes: outcomes.h's EMP_AGCT_OUTCOMES, the one list the agct_* counters are generated from too
 * (EMP_AGCT_NO_JAVA_FRAME = 0, ..., EMP_AGCT_SAFEPOINT = -10; EMP_AGCT_NOUTCOMES of them). */
enum emp_agct_outcome {
#define EMP_AGCT_ENUM(p, code, id, name) EMP_AGCT_##id = (code),
	EMP_AGCT_OUTCOMES(EMP_AGCT_ENUM, _)
#undef EMP_AGCT_ENUM
#define EMP_AGCT_ONE(p, code, id, name) +1
	EMP_AGCT_NOUTCOMES = 0 EMP_AGCT_OUTCOMES(EMP_AGCT_ONE, _)
#undef EMP_AGCT_ONE
};
/* Our own outcome when AGCT faulted and the fault was recovered (agct.c). */
#define EMP_AGCT_CRASHED (-100)
#define EMP_AGCT_CRASHED_NAME "agct_crashed"

/* Native frames kept per sample (leaf side). */
#define EMP_SAMPLER_MAX_NATIVE 64

/* The ring record of one sample (EMP_REC_SAMPLE), followed by nnative native PCs (leaf first) and njava
 * jmethodIDs (leaf first, as AGCT returns them).  40 bytes + 8 per frame. */
struct emp_sample_rec {
	uint32_t hdr;
	uint8_t state;    /* enum emp_thread_state */
	uint8_t flags;    /* EMP_SAMPLE_* */
	uint16_t nnative;
	union {
		int32_t agct;     /* AGCT's num_frames: > 0, or an outcome code, or EMP_AGCT_CRASHED */
		int32_t category; /* EMP_SAMPLE_VM: the thread's enum emp_vm_category (AGCT was not called) */
	};
	uint32_t njava;
	uint64_t ticks;
	uint64_t top_pc;  /* EMP_SAMPLE_RECOVERED: the PC AGCT could not walk from (a compiled method's edge) */
	uint64_t vthread; /* the virtual thread mounted on the sampled carrier (Thread.threadId()), 0 none or unknown */
};
/* AGCT failed with unknown_Java/not_walkable_Java, the re-walk succeeded, and the method at the edge is not among
 * the frames (no jmethodID in the handler): the decoder names it from top_pc */
#define EMP_SAMPLE_RECOVERED 0x1u
/* The walk did not reach the thread's entry: AGCT stopped at the depth limit, or ended early on a frame it judged
 * unsafe to walk past (forte.cpp's vframeStreamForte ends a walk there and still returns the frames it has).  The
 * decoder puts a [truncated] pseudo-frame at the root. */
#define EMP_SAMPLE_TRUNCATED 0x2u
/* A JVM-internal thread's sample (threads=all, vmthreads.c): native frames only, njava = 0, the category
 * in place of the AGCT outcome.  With EMP_SAMPLE_TRUNCATED: the native walk stopped at EMP_VMTHREAD_MAX_NATIVE. */
#define EMP_SAMPLE_VM 0x4u
/* With EMP_SAMPLE_TRUNCATED: the walk went from Continuation.enterSpecial (the bottom of a virtual thread's, or any
 * continuation's, stack) to a frame other than Continuation.enter.  After a remount HotSpot thaws only the top
 * frames of a continuation onto the carrier's stack (the rest stay in its stack chunk), and AGCT goes from the last
 * thawed frame straight to enterSpecial: the frames between are missing (counted in sample_continuation_truncated). */
#define EMP_SAMPLE_CONT_TRUNCATED 0x8u
/* The walk passes Continuation.enterSpecial: the sample ran in a continuation (a virtual thread's, above all); with
 * or without the next two flags (sample_continuation). */
#define EMP_SAMPLE_CONTINUATION 0x10u
/* The frames between a thawed frame and enterSpecial were read from the continuation's stack chunks
 * (continuation.c; sample_continuation_recovered): the walk is complete. */
#define EMP_SAMPLE_CONT_RECOVERED 0x20u

/* emp_sample_record - the one builder of EMP_REC_SAMPLE records: a record in @ring with @head's fields (hdr is set
 * here), then head->nnative PCs from @natives and head->njava jmethodIDs from @java (may be NULL when njava is 0).
 * Counts it in samples, or a ring-full drop (and wakes the writer).  Return: 0, or -1 when dropped.
 * Async-signal-safe (the ring's producer: the handler on the ring's own thread). */
int emp_sample_record(struct emp_ring *ring, const struct emp_sample_rec *head, const uint64_t *natives,
		      const emp_asgct_frame *java);
/* emp_sampler_decode - writer thread: sample mode's emp_sample_decode_fn (writer.h), one EMP_REC_SAMPLE record into
 * a stack of symbol ids, root first (pseudo-frames for failed walks, [truncated], a JVM thread's category).  Not
 * static only for its unit test. */
int emp_sampler_decode(const uint8_t *raw, uint32_t size, uint64_t *ticks, enum emp_thread_state *state,
		       uint32_t *frames, uint32_t *depth, uint64_t *vthread);

/* Per-thread sampler state (emp_thread.sampler).  Allocated when the thread is armed (ThreadStart, on the thread);
 * freed at ThreadEnd on the thread itself, after the engine was stopped, the state left the registry and
 * t->sampler was cleared, so neither a late signal nor the wall sampler can reach it. */
struct emp_sampler_thread {
	struct emp_thread *t;
	pid_t tid;
	int perf_fd;                  /* perf engine: the thread's counter, else -1 */
	uint64_t perf_period_ns;      /* perf engine: the interval each jittered period is drawn around; 0: a kernel
				       * without PERF_EVENT_IOC_PERIOD, the period stays fixed (engine.c) */
	int has_timer;                /* timer engine */
	timer_t timer;
	clockid_t cpu_clock;          /* the thread's CPU clock (cpu engines: time sampled) */
	uint64_t armed_at_ns;         /* CPU (cpu) or monotonic (wall) time when armed */
	/* wall engine: the thread's state as the sampler thread read it just before signalling.
	 * (W) store_release in the wall sampler pairs with (X) load_acquire in the handler. */
	_Atomic int wall_state;
	sigjmp_buf fault_jmp;         /* agct.c: where a fault inside AGCT returns to */
	uintptr_t vm_thread;          /* the HotSpot JavaThread (java.lang.Thread.eetop), 0 unknown; set before arming */
	struct emp_sampler_thread *next; /* registry (sampler.c), under its mutex */
	/* The method every complete walk of this thread ends in: the run() override of a Thread subclass started by
	 * Thread.start (HotSpot's thread_entry calls run() virtually), or NULL when the thread may enter Java
	 * anywhere (see sampler.c, walk_truncated()).  Set before the engine is armed, then constant. */
	jmethodID entry;
	uint32_t depth;               /* capacity of frames */
	emp_asgct_frame *frames;
	uint64_t native[EMP_SAMPLER_MAX_NATIVE];
};

/* agct.c */
/* emp_agct_init - find AsyncGetCallTrace in libjvm, read the JVM's structure tables (vmstructs.c) and install the
 * fault guard (SIGSEGV/SIGBUS handlers chained in front of the JVM's).  Return: 0, or -1 with a message in @err. */
int emp_agct_init(char *err, size_t errlen);
/* emp_agct_walk - AGCT on the current thread from @ucontext into st->frames, recovering unknown_Java at compiled
 * methods' edges.  Return: num_frames (> 0), an outcome code, or EMP_AGCT_CRASHED; *recovered_pc is set to the
 * original PC when a recovery succeeded but could not name the method at the edge (it is then missing from
 * st->frames: the writer names it by PC), else 0.  Async-signal-safe (the handler's own thread only). */
int emp_agct_walk(struct emp_sampler_thread *st, void *ucontext, uint64_t *recovered_pc);

/* emp_agct_guarded - run @fn(@st, @arg) with agct.c's fault guard set: a SIGSEGV/SIGBUS inside comes back here.
 * Return: fn's result, or EMP_AGCT_CRASHED after a fault.  Async-signal-safe (the handler's own thread). */
int emp_agct_guarded(struct emp_sampler_thread *st, int (*fn)(struct emp_sampler_thread *, void *), void *arg);

/* continuation.c */
/* emp_continuation_init - at the first arm (JNI usable): Continuation.enterSpecial and enter, and the set-up of the
 * stack-chunk walk (why it is off goes into the dump's META sample_continuation_frames).  Nothing on JDKs without
 * continuations.  Not signal-safe. */
void emp_continuation_init(JNIEnv *jni);
/* emp_continuation_check - the handler, after a walk of @n > 0 frames into st->frames: for each
 * Continuation.enterSpecial in it, EMP_SAMPLE_CONTINUATION into *@flags; where the frame before it is not
 * Continuation.enter (frames still in the continuation's stack chunks), read them from the chunks and insert them
 * (EMP_SAMPLE_CONT_RECOVERED), or mark the walk EMP_SAMPLE_TRUNCATED | EMP_SAMPLE_CONT_TRUNCATED.  Return: the
 * number of frames now.  Async-signal-safe (see continuation.c). */
int emp_continuation_check(struct emp_sampler_thread *st, int n, uint8_t *flags);
/* emp_continuation_vthread - the Thread.threadId() of the virtual thread mounted on the calling carrier (the
 * JavaThread's _vthread when it is not the carrier's own Thread object), 0 when none is mounted or the chunk walk's
 * set-up is off.  Async-signal-safe (reads under the fault guard). */
uint64_t emp_continuation_vthread(struct emp_sampler_thread *st);

/* native.c */
/* emp_native_unwind - PCs of the native frames from @ucontext (leaf first) while libunwind has unwind
 * information for them (native code: libjvm, libc, JNI libraries; JIT code has none and ends the walk).
 * Return: number stored in @pcs (at most @max).  Async-signal-safe (see native.c). */
unsigned emp_native_unwind(void *ucontext, uint64_t *pcs, unsigned max);
/* emp_native_to_jit - unwind the native frames from @ucontext (as emp_native_unwind) down to the first frame
 * outside every loaded object (the code cache: the Java code that called into native code without telling the
 * VM, such as a leaf runtime call); its pc, sp and rbp into the out parameters.  Return: 0, or -1 when @ucontext is
 * not in native code or the walk does not get there.  Async-signal-safe (see native.c). */
int emp_native_to_jit(void *ucontext, uint64_t *pc, uint64_t *sp, uint64_t *fp);
/* emp_native_refresh - (re)build the table of loaded objects' text ranges the unwinder stops at.  Any thread
 * but not a signal handler (it takes a lock, allocates and calls dl_iterate_phdr): the VMInit thread and the
 * writer's decoder call it concurrently.  Without @force it checks at most every 100 ms whether objects were
 * loaded or unloaded since. */
void emp_native_refresh(int force);
/* emp_native_symbol - writer thread: the symbol id of the native PC @pc (cached).  Return: id or -1. */
int64_t emp_native_symbol(uint64_t pc);

/* engine.c */
enum emp_engine { EMP_ENGINE_PERF, EMP_ENGINE_CTIMER, EMP_ENGINE_ITIMER, EMP_ENGINE_WALL };
const char *emp_engine_name(enum emp_engine e);
/* emp_engine_choose - the engine for @o into *@e: clock=wall: wall; engine=auto: the best that works here (perf,
 * else timer, else itimer); engine=perf|ctimer|itimer: that one, if it works.  Runs on the thread that loads the
 * agent.  Return: 0, or -1 with a one-line message in @err (the engine asked for does not work here). */
int emp_engine_choose(const struct emp_options *o, enum emp_engine *e, char *err, size_t errlen);
/* emp_engine_arm - start sampling thread st->tid of this process (perf, timer; for the timer engine st->cpu_clock
 * must be that thread's CPU clock), from any thread; the first sample after a random share of one interval
 * (engine.c: short-lived threads).  Return: 0 or a negative errno. */
int emp_engine_arm(enum emp_engine e, struct emp_sampler_thread *st, uint64_t interval_ns);
/* emp_engine_disarm - stop sampling @st's thread (any thread may call it for perf and timer). */
void emp_engine_disarm(struct emp_sampler_thread *st);
/* emp_engine_rearm - from the signal handler: the perf engine's counter stops after each overflow; restart it
 * (at the first overflow also switch from the random first period to the interval).  Async-signal-safe (ioctls). */
void emp_engine_rearm(struct emp_sampler_thread *st);
/* emp_engine_itimer - start (@interval_ns > 0) or stop the process-wide ITIMER_PROF.  Return: 0 or -errno. */
int emp_engine_itimer(uint64_t interval_ns);

/* tidmap.c - OS thread id -> pointer map that signal handlers read without locks (file comment there:
 * the orderings, and why a removed value is never read after emp_tidmap_remove() returns).
 * Synchronization table:
 *   emp_tidmap_init, _destroy        before the first and after the last use by anyone
 *   emp_tidmap_put, _get, _remove    the writer: one thread at a time (the caller's lock); not signal-safe (remove
 *                                    waits for the readers of the removed value)
 *   emp_tidmap_enter, _leave         any thread, concurrently with the writer and each other; async-signal-safe */
struct emp_tidmap_slot {
	_Atomic pid_t tid;       /* 0 never used, -1 removed (tombstone), else the key */
	_Atomic uint32_t busy;   /* readers between enter and leave */
	_Atomic(void *) value;
};
struct emp_tidmap {
	struct emp_tidmap_slot *slots;
	uint32_t mask;           /* capacity - 1 */
	uint32_t live;           /* keys present (writer only) */
};
/* emp_tidmap_init - @capacity slots, a power of two >= 2; at most half of them can hold keys.  Return: 0, -EINVAL,
 * -ENOMEM. */
int emp_tidmap_init(struct emp_tidmap *m, uint32_t capacity);
void emp_tidmap_destroy(struct emp_tidmap *m);
/* emp_tidmap_put - map @tid (> 0) to @value (non-NULL).  Return: 0, -EEXIST (already mapped: nothing changed),
 * -ENOSPC (half the slots are in use), -EINVAL. */
int emp_tidmap_put(struct emp_tidmap *m, pid_t tid, void *value);
/* emp_tidmap_get - writer side: @tid's value, or NULL. */
void *emp_tidmap_get(const struct emp_tidmap *m, pid_t tid);
/* emp_tidmap_remove - unmap @tid; returns once no reader holds its value any more.  Return: the value, or NULL
 * when @tid was not mapped.  The caller owns the value again (may free it). */
void *emp_tidmap_remove(struct emp_tidmap *m, pid_t tid);
/* emp_tidmap_enter - reader: @tid's value, held (not to be removed) until emp_tidmap_leave(*@held); or NULL (not
 * mapped, or being removed), then there is nothing to leave. */
void *emp_tidmap_enter(struct emp_tidmap *m, pid_t tid, struct emp_tidmap_slot **held);
void emp_tidmap_leave(struct emp_tidmap_slot *held);

/* vmthreads.c - threads=all: the JVM's own threads (JIT compilers, GC workers, the VM thread, ...), which
 * JVMTI never announces, found in /proc/self/task by a scanner thread and sampled with native frames only.
 *
 * Categories: the root pseudo-frame of every such sample, from the thread's name (/proc comm) —
 * X(enum suffix, pseudo-frame name). */
#define EMP_VM_CATEGORIES(X)                                                                                   \
	X(JIT, "[JIT compiler]")   /* C1/C2 CompilerThreadN, Sweeper thread, JVMCI compilers */               \
	X(GC, "[GC]")              /* GC Thread#N, G1 *, Z* (ZGC), Shenandoah * */                            \
	X(VM, "[VM]")              /* VM Thread, VM Periodic Task, Service Thread, ..., and the JDK's threads   \
				      JVMTI did not announce (Reference Handler, Finalizer, Signal Dispatcher) */ \
	X(NATIVE, "[native thread]") /* anything else: the launcher's first thread, a JNI library's own threads */
enum emp_vm_category {
#define EMP_VM_CATEGORY_ENUM(id, name) EMP_VM_##id,
	EMP_VM_CATEGORIES(EMP_VM_CATEGORY_ENUM)
#undef EMP_VM_CATEGORY_ENUM
	EMP_VM_CATEGORY_COUNT
};
/* Native frames kept per JVM-thread sample (C2's parser recurses once per inlining level: stacks run deep). */
#define EMP_VMTHREAD_MAX_NATIVE 256

/* emp_vmthreads_category - the category of a thread named @comm (/proc comm, at most 15 characters). */
enum emp_vm_category emp_vmthreads_category(const char *comm);
/* emp_vmthreads_category_name - "[GC]" etc.; NULL for a value out of range. */
const char *emp_vmthreads_category_name(int category);
/* emp_vmthreads_setup - Agent_OnLoad, threads=all: sample JVM threads with @engine every @interval_ns, rings of
 * @ring_bytes.  @engine is perf, timer or itimer: options.c refuses threads=all with clock=wall.  Return: 0, or -1
 * with a one-line message in @err. */
int emp_vmthreads_setup(enum emp_engine engine, uint64_t interval_ns, uint64_t ring_bytes, char *err,
			size_t errlen);
/* emp_vmthreads_java_stacks - attach, before emp_vmthreads_start(): the threads the scanner arms that HotSpot does
 * not name as its own may be Java threads that ran before the attach; walk their Java stacks, up to @depth frames,
 * and name them after the Java thread among @names (the @n threads at the attach; kept) their OS name fits. */
void emp_vmthreads_java_stacks(uint32_t depth, char **names, size_t n);
/* emp_sampler_sample_existing - the signal handler on a thread vmthreads.c armed with st->frames: when it is a Java
 * thread (one that ran before an attach), take a Java sample into @t's ring as for any Java thread.  Return: 1 when
 * taken, 0 when the thread is no Java thread (the caller takes a native one).  A Java thread trades its
 * EMP_THREAD_VM flag for EMP_THREAD_JAVA at its first sample, before that sample is published: the dump and the
 * counters then count it as the program's thread, not the JVM's.  Async-signal-safe (sampler.c). */
int emp_sampler_sample_existing(struct emp_thread *t, struct emp_sampler_thread *st, void *ucontext);
/* emp_vmthreads_start - VMInit: start the scanner (first scan at once, then every EMP_VMTHREADS_SCAN_MS). */
void emp_vmthreads_start(void);
/* emp_vmthreads_stop - VMDeath, before the writer's final drain: stop the scanner, disarm every JVM thread, count
 * their CPU time, hand their states to the writer.  Idempotent. */
void emp_vmthreads_stop(void);
/* emp_vmthreads_claim - the calling Java thread @tid is being armed (ThreadStart): from now on the scanner leaves it
 * alone, and if the scanner had armed it as a JVM thread that is undone first (take-over).  Not signal-safe. */
void emp_vmthreads_claim(pid_t tid);
/* emp_vmthreads_release - the Java thread @tid was disarmed (ThreadEnd). */
void emp_vmthreads_release(pid_t tid);
/* emp_vmthreads_sample - from the signal handler on a thread without a Java sampler state: take a sample if the
 * calling thread is an armed JVM thread.  Return: 1 when it was one (sampled or counted), 0 otherwise.
 * Async-signal-safe. */
int emp_vmthreads_sample(void *ucontext);

#endif /* EMP_SAMPLER_H */
